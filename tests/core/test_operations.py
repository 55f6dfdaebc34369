"""The UI's operations: each does the change and returns a frozen record of what it did."""

from __future__ import annotations

from pathlib import Path

import pytest
from dream_support import make_manager, write_log

from suzent_desktop.core import operations
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.records.tombstones import normalize
from suzent_desktop.core.vault.vault_ops import VaultOpError


def _write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_moving_a_page_names_the_move_every_rewritten_file_and_what_to_reindex(tmp_path: Path) -> None:
    page = _write(tmp_path, "A/Espresso.md", "# Espresso\n")
    linker = _write(tmp_path, "B/Linker.md", "See [[Espresso]] and [[A/Espresso|it]].\n")
    bystander = _write(tmp_path, "B/Other.md", "Nothing here.\n")
    new = tmp_path / "C" / "Espresso.md"

    changes = operations.move(tmp_path, page, new)

    assert changes.moved == ((page, new),)
    assert changes.changed == {new, linker}
    assert changes.refresh == {page, new, linker}
    assert changes.paths == {page, new, linker}
    assert bystander not in changes.paths
    assert linker.read_text(encoding="utf-8") == "See [[Espresso]] and [[C/Espresso|it]].\n"
    assert changes.message == "Moved A/Espresso.md → C/Espresso.md; links updated in 1 file"
    assert changes.pages == {page, new, linker}


def test_an_operations_file_record_cannot_be_edited_in_place_and_merges_into_a_pass(tmp_path: Path) -> None:
    changes = operations.create_page(tmp_path, tmp_path, "Fresh")
    fresh = tmp_path / "Fresh.md"
    assert isinstance(changes.added, frozenset) and isinstance(changes.moved, tuple)
    with pytest.raises(AttributeError):
        changes.added.add(tmp_path / "other.md")  # type: ignore[attr-defined]
    total = ChangeSet(logs={"2026-07-19"}, initiator="dream").merge(changes)  # one type for every change
    assert total.added == {fresh} and total.pages == {fresh} and total.logs == {"2026-07-19"}
    assert total.initiator == "dream" and total.message == changes.message and changes.logs == set()


def test_every_operation_that_changes_files_names_who_asked(tmp_path: Path) -> None:
    who = {"initiator": "pane:tree"}
    folder = operations.create_folder(tmp_path, tmp_path, "Notes", **who)
    page = operations.create_page(tmp_path, tmp_path / "Notes", "Fresh", **who)
    (path,) = page.added
    saved = operations.save_page(path, "# Fresh\n\nMore.\n", **who)
    renamed = operations.rename(tmp_path, path, "Renamed", **who)
    moved = operations.move(tmp_path, tmp_path / "Notes" / "Renamed.md", tmp_path / "Renamed.md", **who)
    trashed = operations.trash(tmp_path, tmp_path / ".trash", tmp_path / "Renamed.md", **who)
    restored = operations.restore(tmp_path, *trashed.trashed[0], **who)
    records = [folder, page, saved, renamed, moved, trashed, restored]
    assert [r.initiator for r in records] == ["pane:tree"] * len(records)
    assert operations.create_page(tmp_path, tmp_path, "Anonymous").initiator == ""  # nobody said


def test_renaming_an_attachment_carries_the_links_to_it(tmp_path: Path) -> None:
    image = _write(tmp_path, "Assets/cat.png", "png")
    page = _write(tmp_path, "Notes/Pets.md", "![[cat.png]] and ![cat](../Assets/cat.png)\n")

    changes = operations.rename(tmp_path, image, "kitten")

    new = tmp_path / "Assets" / "kitten.png"
    assert new.read_text() == "png" and not image.exists()
    assert changes.moved == ((image, new),)
    assert page.read_text(encoding="utf-8") == "![[kitten.png]] and ![cat](../Assets/kitten.png)\n"


def test_rename_keeps_a_folders_name_and_a_files_extension(tmp_path: Path) -> None:
    folder = tmp_path / "Projects"
    _write(tmp_path, "Projects/Plan.md", "# Plan\n")
    changes = operations.rename(tmp_path, folder, "Work")
    assert changes.moved == ((folder, tmp_path / "Work"),)
    assert (tmp_path / "Work" / "Plan.md").is_file()
    assert changes.changed == {tmp_path / "Work" / "Plan.md"}


def test_trash_then_restore_round_trips_and_each_says_so(tmp_path: Path) -> None:
    page = _write(tmp_path, "Notes/Gone.md", "# Gone\nwords\n")
    trash_dir = tmp_path / ".trash"

    trashed = operations.trash(tmp_path, trash_dir, page)
    ((original, copy),) = trashed.trashed
    assert original == page and not page.exists() and copy.read_text(encoding="utf-8") == "# Gone\nwords\n"
    assert trashed.removed == {page} and trashed.refresh == {page}
    assert trashed.message == "Moved Notes/Gone.md to trash — Ctrl+Z in the tree to undo"

    restored = operations.restore(tmp_path, original, copy)
    assert page.read_text(encoding="utf-8") == "# Gone\nwords\n"
    assert restored.added == {page} and restored.message == "Restored Notes/Gone.md"


def test_restore_refuses_to_overwrite_a_page_made_meanwhile(tmp_path: Path) -> None:
    page = _write(tmp_path, "Gone.md", "old words\n")
    ((original, copy),) = operations.trash(tmp_path, tmp_path / ".trash", page).trashed
    page.write_text("new words\n", encoding="utf-8")
    with pytest.raises(VaultOpError, match="exists again"):
        operations.restore(tmp_path, original, copy)
    assert page.read_text(encoding="utf-8") == "new words\n" and copy.is_file()


def test_create_refuses_bad_names_and_existing_pages(tmp_path: Path) -> None:
    created = operations.create_page(tmp_path, tmp_path / "Inbox", "Idea")
    path = tmp_path / "Inbox" / "Idea.md"
    assert created.added == {path} and path.read_text(encoding="utf-8") == "# Idea\n\n"
    with pytest.raises(VaultOpError, match="already exists"):
        operations.create_page(tmp_path, tmp_path / "Inbox", "Idea")
    with pytest.raises(VaultOpError, match="not allowed"):
        operations.create_page(tmp_path, tmp_path, "a|b")
    folder = operations.create_folder(tmp_path, tmp_path, "Later")
    assert folder.folders == {tmp_path / "Later"} and folder.paths == frozenset()


def test_save_page_writes_the_text_and_asks_for_its_reindex(tmp_path: Path) -> None:
    path = _write(tmp_path, "Page.md", "before\n")
    changes = operations.save_page(path, "after\n")
    assert path.read_text(encoding="utf-8") == "after\n"
    assert changes == ChangeSet(changed=frozenset({path}), refresh=frozenset({path}))


def test_a_day_reads_with_its_forgotten_facts_and_a_bad_day_says_why(home: Path, clock) -> None:
    manager = make_manager(home, clock)
    write_log(manager, "2026-03-02", ["User drinks green tea", "User owns a bicycle"])
    manager.tombstones.add("User owns a bicycle")

    day = operations.read_day(manager, "2026-03-02")

    assert day.error is None and "2026-03-02" in operations.log_dates(manager)
    gone = {entry.fact.content: operations.is_forgotten(entry, day.forgotten) for entry in day.parsed.facts}
    assert gone == {"User drinks green tea": False, "User owns a bicycle": True}
    stones, problems = operations.forgotten_list(manager)
    assert [s.content for s in stones] == [normalize("User owns a bicycle")] and problems == []

    manager.log_path("2026-03-03").write_bytes(b"\xff\xfe not utf-8")
    bad = operations.read_day(manager, "2026-03-03")
    assert bad.parsed is None and bad.error


def test_memory_md_reads_as_on_disk_and_none_before_it_exists(home: Path, clock) -> None:
    manager = make_manager(home, clock)
    manager.layout.memory_md.unlink(missing_ok=True)
    assert operations.read_memory_md(manager) is None
    manager.layout.memory_md.write_bytes("# Memory\n- tea \u2615\n".encode() + b"\xff\n")
    assert operations.read_memory_md(manager) == "# Memory\n- tea \u2615\n\ufffd\n"
