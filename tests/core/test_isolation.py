"""One bad vault entry or one odd fact never fails a whole batch; names are bounded before files are made."""

from __future__ import annotations

import os

import pytest
from dream_support import days_before, make_manager, write_log

from suzent_desktop.core.engines.dream.tools import MAX_NAME_BYTES, VaultAccessError, VaultTools
from suzent_desktop.core.files.records.log_grammar import Fact

FACTS = [Fact("User likes green tea", "preference"), Fact("User works at Contoso", "work")]


def notebook_text(manager) -> str:
    """Every readable page (the bad entries themselves cannot be read)."""
    texts = []
    for path in manager.notebook.content_pages():
        try:
            texts.append(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
    return "\n".join(texts)


async def _dream(manager):
    result = await manager.dreaming.runner().run_once()
    assert result.outcome == "productive", result.reason
    return result


@pytest.mark.parametrize("entry", ["folder loop", "page loop", "dangling page", "folder named .md"])
async def test_a_bad_vault_entry_is_skipped_not_the_batch(home, clock, today, entry):
    manager = make_manager(home, clock)
    write_log(manager, days_before(today, 1)[0], FACTS)
    personal = manager.layout.notebook_dir / "3_Personal"
    if entry == "folder loop":
        os.symlink("loop_b", personal / "loop_a")
        os.symlink("loop_a", personal / "loop_b")
    elif entry == "page loop":
        os.symlink("Y.md", personal / "X.md")
        os.symlink("X.md", personal / "Y.md")
    elif entry == "dangling page":
        os.symlink("Nowhere.md", personal / "Gone.md")
    else:
        (personal / "Odd.md").mkdir()
    await _dream(manager)
    text = notebook_text(manager)
    assert "User likes green tea" in text and "User works at Contoso" in text


async def test_an_unreadable_page_is_skipped_not_the_batch(home, clock, today, monkeypatch):
    manager = make_manager(home, clock)
    write_log(manager, days_before(today, 1)[0], FACTS)
    (manager.layout.notebook_dir / "3_Personal" / "Locked.md").write_text("# Locked\n", encoding="utf-8")
    real_read = VaultTools.read

    def read(self, relative):
        if relative.endswith("Locked.md"):
            raise PermissionError(13, "Permission denied", relative)
        return real_read(self, relative)

    monkeypatch.setattr(VaultTools, "read", read)
    await _dream(manager)
    assert "User works at Contoso" in notebook_text(manager)


async def test_a_250_character_category_makes_a_bounded_page_and_the_batch_succeeds(home, clock, today):
    manager = make_manager(home, clock)
    long_category = "collecting-" + "x" * 240
    write_log(manager, days_before(today, 1)[0], [*FACTS, Fact("User collects stamps", long_category)])
    result = await _dream(manager)
    assert all(len(p.rsplit("/", 1)[-1].encode()) <= MAX_NAME_BYTES for p in result.pages_changed)
    text = notebook_text(manager)
    assert "User collects stamps" in text and "User works at Contoso" in text


def test_an_over_long_name_is_refused_with_the_limit_named(tmp_path):
    (tmp_path / "3_Personal").mkdir()
    tools = VaultTools(tmp_path)
    with pytest.raises(VaultAccessError, match=f"at most {MAX_NAME_BYTES}"):
        tools.write("3_Personal/" + "n" * 250 + ".md", "# x\n")
    with pytest.raises(VaultAccessError, match="at most"):
        tools.write("3_Personal/" + "é" * 120 + ".md", "# x\n")  # 240 bytes in UTF-8
    assert list((tmp_path / "3_Personal").iterdir()) == []


async def test_bad_entries_are_named_by_the_index_and_the_rest_is_indexed(home, clock):
    manager = make_manager(home, clock)
    personal = manager.layout.notebook_dir / "3_Personal"
    os.symlink("Y.md", personal / "X.md")
    os.symlink("X.md", personal / "Y.md")
    (personal / "Good.md").write_text("# Good\n\nUser rides a blue bicycle.\n", encoding="utf-8")
    changes = await manager.indexer.sync()
    assert any("X.md" in e for e in changes.errors)
    hits = (await manager.searching.search("blue bicycle", record_recall=False)).hits
    assert any("blue bicycle" in h.text for h in hits)


@pytest.mark.parametrize("name", ["Preferences.md", "Work.md", "Notes.md"])
async def test_a_page_that_is_not_utf8_is_left_out_and_the_batch_goes_on(home, clock, today, name):
    """A latin-1 page under 3_Personal/ (even the page a category files into) never fails the batch."""
    manager = make_manager(home, clock)
    days = days_before(today, 3)
    for day in days:
        write_log(manager, day, [Fact(f"User visited café number {day[-2:]}", "travel"), *FACTS])
    bad = manager.layout.notebook_dir / "3_Personal" / name
    bad.write_bytes("# Préférences\n\n- User likes crêpes\n".encode("latin-1"))
    before = bad.read_bytes()
    result = await _dream(manager)
    assert result.batch == days and manager.dreaming.watermark() == days[-1]
    assert bad.read_bytes() == before  # never rewritten
    text = notebook_text(manager)
    assert "User likes green tea" in text and "User works at Contoso" in text and "café number" in text


@pytest.mark.parametrize("damage", ["binary", "unreadable"])
async def test_rows_of_a_log_that_became_unreadable_leave_the_index(home, clock, today, damage):
    manager = make_manager(home, clock)
    for n in range(6):
        await manager.capturing.remember(f"User owns heron statue number {n}")
    log = manager.archive.path_for(today.isoformat())
    if damage == "binary":
        log.write_bytes(os.urandom(4096).replace(b"\n", b"\x00") + b"\x00" * 64)
    else:
        log.chmod(0)
        if os.access(log, os.R_OK):
            pytest.skip("running as a user who reads every file")
    try:
        changes = await manager.indexing.reindex()
        assert any(str(log) in e for e in changes.errors)  # named
        hits = (await manager.searching.search("heron statue", limit=20, record_recall=False)).hits
        assert not [h for h in hits if "heron statue" in h.text]  # no rows that no file gives
    finally:
        log.chmod(0o644)
