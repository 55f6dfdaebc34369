"""The vault model: one walk, one classifier, links/tags/aliases/headings kept current by apply()."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.home import bootstrap_home
from suzent_desktop.core.vault import model as vault_module
from suzent_desktop.core.vault.model import Kind, Vault, VaultSnapshot, classify
from suzent_desktop.settings import Settings


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def vault(layout: Layout) -> Vault:
    bootstrap_home(layout)
    root = layout.notebook_dir
    write(root / "2_Wiki/Kyoto.md", "---\naliases: [Old Capital]\ntags: [trip]\n---\n# Kyoto\n\n## Temples\nSee [[Tokyo]].\n")
    write(root / "2_Wiki/Tokyo.md", "# Tokyo\nCapital. Back to [[Kyoto#Temples]] and ![[map.png]] #trip/japan\n")
    write(root / "0_Inbox/Plan.md", "Visit kyoto soon. `[[Tokyo]]` is code. #draft\n\n```\n[[Kyoto]] #fenced\n```\n")
    write(root / "4_Assets/map.png", "png")
    write(root / "Board.canvas", '{"nodes": [{"id": "a", "type": "text", "text": "[[Kyoto]]"}]}')
    write(root / ".obsidian/x.md", "[[Kyoto]] #hidden")
    return Vault(layout)


def test_backlinks_resolve_every_link_form_and_skip_code(vault: Vault) -> None:
    root = vault.root
    found = {b.source: b for b in vault.backlinks(root / "2_Wiki/Kyoto.md")}
    assert set(found) == {root / "2_Wiki/Tokyo.md", root / "Board.canvas"}  # not the fenced link, not hidden
    assert found[root / "2_Wiki/Tokyo.md"].line == 2
    assert "Back to" in found[root / "2_Wiki/Tokyo.md"].context
    assert [b.source for b in vault.backlinks(root / "4_Assets/map.png")] == [root / "2_Wiki/Tokyo.md"]
    assert [b.source for b in vault.backlinks(root / "2_Wiki/Tokyo.md")] == [root / "2_Wiki/Kyoto.md"]


def test_tags_aliases_headings_and_mentions(vault: Vault) -> None:
    root = vault.root
    snap = vault.snapshot()
    assert snap.tag_counts() == {"trip": 2, "trip/japan": 1, "draft": 1}
    assert vault.pages_with_tag("TRIP") == [root / "2_Wiki/Kyoto.md", root / "2_Wiki/Tokyo.md"]
    assert vault.pages_with_tag("trip/japan") == [root / "2_Wiki/Tokyo.md"]
    assert vault.pages_with_tag("tri") == []
    assert snap.aliases(root / "2_Wiki/Kyoto.md") == ["Old Capital"]
    assert snap.headings(root / "2_Wiki/Kyoto.md") == [(5, 1, "Kyoto"), (7, 2, "Temples")]
    mentions = vault.unlinked_mentions(root / "2_Wiki/Kyoto.md")
    assert [(m.path.name, m.text) for m in mentions] == [("Plan.md", "kyoto")]


def test_one_classifier_puts_logs_kept_inside_the_vault_before_pages(tmp_path: Path) -> None:
    home = tmp_path / "home"
    layout = Layout.from_settings(home, Settings(notebook_path=str(home / "vault"), memory_path=str(home / "vault/memory")))
    bootstrap_home(layout)
    log = write(layout.archive_dir / "2026-07-01.md", "# Daily Log - 2026-07-01\n\n- [work] at [[Kyoto]]\n")
    page = write(layout.notebook_dir / "Kyoto.md", "# Kyoto\n")
    assert classify(layout, log) is Kind.LOG
    assert classify(layout, layout.memory_md) is Kind.CORE
    assert classify(layout, layout.transcript("2026-07-01")) is Kind.TRANSCRIPT
    assert classify(layout, page) is Kind.PAGE
    assert classify(layout, layout.log_md) is Kind.NAV
    assert classify(layout, layout.tombstones_file) is Kind.HIDDEN
    assert classify(layout, tmp_path / "elsewhere.md") is Kind.OUTSIDE
    vault = Vault(layout)
    assert log not in vault.snapshot().pages()
    assert page in vault.snapshot().pages()
    assert vault.backlinks(page) == []  # a log is no page: its links are not backlinks


def test_a_users_own_log_md_is_a_page(layout: Layout) -> None:
    bootstrap_home(layout)
    assert classify(layout, layout.notebook_dir / "log.md") is Kind.NAV
    (layout.notebook_dir / "log.md").write_text("my own diary\n", encoding="utf-8")
    assert classify(layout, layout.notebook_dir / "log.md") is Kind.PAGE


def test_one_walk_then_apply_keeps_it_current(vault: Vault, monkeypatch: pytest.MonkeyPatch) -> None:
    root = vault.root
    walks = []
    real_walk = vault_module._walk_entries
    monkeypatch.setattr(vault_module, "_walk_entries", lambda top, *rest: walks.append(str(top)) or real_walk(top, *rest))
    vault.snapshot()
    vault.snapshot()
    assert walks == [str(root)] and vault.walks == 1
    # a new page linking to Kyoto, a removed link, a renamed page, a folder trashed
    write(root / "1_Projects/Trip.md", "[[Kyoto]] #trip\n")
    write(root / "2_Wiki/Tokyo.md", "# Tokyo\nno links now\n")
    vault.apply([root / "1_Projects/Trip.md", root / "2_Wiki/Tokyo.md"])
    assert [b.source for b in vault.backlinks(root / "2_Wiki/Kyoto.md")] == [root / "1_Projects/Trip.md", root / "Board.canvas"]
    assert vault.snapshot().tag_counts()["trip"] == 2
    (root / "2_Wiki/Kyoto.md").rename(root / "2_Wiki/Kyōto.md")
    vault.apply(ChangeSet(moved=((root / "2_Wiki/Kyoto.md", root / "2_Wiki/Kyōto.md"),)))
    assert root / "2_Wiki/Kyōto.md" in vault.snapshot().pages()
    assert vault.backlinks(root / "2_Wiki/Kyōto.md") == []  # [[Kyoto]] names no file now
    assert vault.resolve("Kyoto") is None
    (root / "1_Projects/Trip.md").unlink()
    (root / "1_Projects").rmdir()
    vault.apply(ChangeSet(pages={root / "1_Projects"}))
    assert root / "1_Projects/Trip.md" not in vault.snapshot().pages()
    assert vault.snapshot().tag_counts().get("trip") == 1
    assert walks == [str(root)]  # a folder vanished: nothing was walked for it


def test_a_folder_that_appears_is_walked_alone(vault: Vault, monkeypatch: pytest.MonkeyPatch) -> None:
    vault.snapshot()
    root = vault.root
    write(root / "5_Archives/Old/A.md", "[[Tokyo]]")
    walks = []
    real_walk = vault_module._walk_entries
    monkeypatch.setattr(vault_module, "_walk_entries", lambda top, *rest: walks.append(str(top)) or real_walk(top, *rest))
    vault.apply([root / "5_Archives/Old"])
    assert walks == [str(root / "5_Archives/Old")]
    assert root / "5_Archives/Old/A.md" in [b.source for b in vault.backlinks(root / "2_Wiki/Tokyo.md")]


def test_a_snapshot_never_changes_under_a_reader(vault: Vault) -> None:
    root = vault.root
    before = vault.snapshot()
    write(root / "0_Inbox/New.md", "[[Kyoto]]")
    vault.apply([root / "0_Inbox/New.md"])
    assert root / "0_Inbox/New.md" not in before.pages()
    assert root / "0_Inbox/New.md" not in [b.source for b in before.backlinks(root / "2_Wiki/Kyoto.md")]
    after = vault.snapshot()
    assert root / "0_Inbox/New.md" in [b.source for b in after.backlinks(root / "2_Wiki/Kyoto.md")]
    errors: list[BaseException] = []

    def read() -> None:
        try:
            for _ in range(50):
                after.backlinks(root / "2_Wiki/Kyoto.md")
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    reader = threading.Thread(target=read)
    reader.start()
    for n in range(20):
        write(root / f"0_Inbox/N{n}.md", "[[Kyoto]]")
        vault.apply([root / f"0_Inbox/N{n}.md"])
    reader.join()
    assert not errors
    assert len(vault.backlinks(root / "2_Wiki/Kyoto.md")) == len(after.backlinks(root / "2_Wiki/Kyoto.md")) + 20


def test_a_home_owns_one_vault(home: Path) -> None:
    from suzent_desktop.core.home import open_home
    from suzent_desktop.core.index.embedding import HashingEmbedder

    opened = open_home(home, embedder=HashingEmbedder())
    assert opened.vault.walks == 0  # nothing walked until asked
    write(opened.layout.notebook_dir / "A.md", "[[B]]")
    write(opened.layout.notebook_dir / "B.md", "")
    assert [b.source.name for b in opened.vault.backlinks(opened.layout.notebook_dir / "B.md")] == ["A.md"]
    assert opened.vault.walks == 1


def test_a_pages_links_keep_their_lines_every_form_outside_code(vault: Vault) -> None:
    page = write(vault.root / "0_Inbox/Forms.md",
                 "x [[Home|my home]] y\n[up](../b/Other%20Page.md#top) [web](https://x.org/a.md)\n`[[Code]]` ![[cat.png]]\n")
    assert [(line, link.target) for line, link in vault.snapshot().links(page)] == [
        (1, "Home"), (2, "../b/Other Page.md"), (3, "cat.png")]


def test_links_out_of_the_vault_are_no_files_and_are_named_also_when_they_appear_later(
    vault: Vault, tmp_path: Path
) -> None:
    root = vault.root
    secret = write(tmp_path / "outside/secret.md", "the password is hunter2 [[Kyoto]]")
    (root / "2_Wiki/secret.md").symlink_to(secret)
    (root / "2_Wiki/loopA.md").symlink_to(root / "2_Wiki/loopB.md")
    (root / "2_Wiki/loopB.md").symlink_to(root / "2_Wiki/loopA.md")
    snap = vault.snapshot()
    assert root / "2_Wiki/secret.md" not in snap.pages() and root / "2_Wiki/loopA.md" not in snap.pages()
    assert [b.source.name for b in snap.backlinks(root / "2_Wiki/Kyoto.md")] == ["Tokyo.md", "Board.canvas"]
    refused = dict(snap.refused())
    assert "outside the vault" in refused["2_Wiki/secret.md"] and "cannot be" in refused["2_Wiki/loopA.md"]
    assert str(root / "2_Wiki/loopA.md") in snap.unreadable()

    (root / "0_Inbox/later.md").symlink_to(secret)  # made while a watcher feeds the model
    (root / "2_Wiki/secret.md").unlink()
    vault.apply([root / "0_Inbox/later.md", root / "2_Wiki/secret.md"])
    snap = vault.snapshot()
    assert root / "0_Inbox/later.md" not in snap.pages()
    refused = dict(snap.refused())
    assert "0_Inbox/later.md" in refused and "2_Wiki/secret.md" not in refused
    assert not any(b.source.name == "later.md" for b in snap.backlinks(root / "2_Wiki/Kyoto.md"))


def test_a_conflict_copy_is_a_page_and_device_parts_are_logs(layout: Layout) -> None:
    bootstrap_home(layout)
    root = layout.notebook_dir
    assert classify(layout, root / "2_Wiki/Work.md.conflict1") is Kind.PAGE
    assert classify(layout, root / "2_Wiki/Work.sync-conflict-20261205-142233-7ZXQ3RT.md") is Kind.PAGE
    assert classify(layout, layout.archive_dir / "2026-12-05@laptop.md") is Kind.LOG
    assert classify(layout, layout.transcripts_dir / "2026-12-05.jsonl.conflict1") is Kind.TRANSCRIPT


def test_a_view_is_built_once_per_snapshot_and_again_for_the_next(vault: Vault) -> None:
    built: list[int] = []

    def names(snapshot) -> list[str]:  # noqa: ANN001
        built.append(1)
        return sorted(p.stem for p in snapshot.pages())

    first = vault.snapshot()
    assert first.view("names", names) == first.view("names", names) and len(built) == 1
    page = vault.root / "0_Inbox" / "Zebra.md"
    write(page, "# Zebra\n")
    vault.apply([page])
    assert "Zebra" in vault.snapshot().view("names", names) and len(built) == 2


def test_a_bare_folder_has_a_model_too(tmp_path: Path) -> None:
    from suzent_desktop.core.operations import folder_vault

    write(tmp_path / "a" / "Same.md", "---\naliases: [Twin]\n---\n")
    write(tmp_path / ".hidden" / "X.md", "x")
    snapshot = folder_vault(tmp_path).snapshot()
    assert snapshot.resolve("Same") == tmp_path / "a" / "Same.md" and snapshot.resolve("X") is None
    assert snapshot.all_aliases() == {tmp_path / "a" / "Same.md": ["Twin"]}


def test_the_model_keeps_folders_empty_ones_too_and_follows_them_created_renamed_and_deleted(
        vault: Vault, monkeypatch: pytest.MonkeyPatch) -> None:
    root = vault.root
    (root / "1_Projects/Empty").mkdir(parents=True)
    (root / ".trash/Old").mkdir(parents=True)
    folders = vault.snapshot(parsed=False).folders()
    assert {root / "2_Wiki", root / "0_Inbox", root / "4_Assets", root / "1_Projects/Empty"} <= set(folders)
    assert [f for f in folders if vault.kind(f / "x.md") is Kind.HIDDEN] == []  # .obsidian, .trash, .state
    assert root / ".obsidian" not in folders and root not in folders
    walks = []
    real_walk = vault_module._walk_entries
    monkeypatch.setattr(vault_module, "_walk_entries", lambda top, *rest: walks.append(str(top)) or real_walk(top, *rest))
    # created (with a parent made at the same time), renamed, deleted: only what changed is looked at
    (root / "5_Archives/2025/Q1").mkdir(parents=True)
    vault.apply(ChangeSet(folders={root / "5_Archives/2025/Q1"}))
    assert {root / "5_Archives/2025", root / "5_Archives/2025/Q1"} <= set(vault.snapshot(parsed=False).folders())
    (root / "5_Archives/2025").rename(root / "5_Archives/Y2025")
    vault.apply(ChangeSet(moved=((root / "5_Archives/2025", root / "5_Archives/Y2025"),)))
    folders = set(vault.snapshot(parsed=False).folders())
    assert {root / "5_Archives/Y2025", root / "5_Archives/Y2025/Q1"} <= folders
    assert not {root / "5_Archives/2025", root / "5_Archives/2025/Q1"} & folders
    (root / "1_Projects/Empty").rmdir()
    vault.apply([root / "1_Projects/Empty"])
    write(root / "6_New/Deep/Page.md", "# Page\n")  # only the file's event arrives
    vault.apply([root / "6_New/Deep/Page.md"])
    (root / ".obsidian/plugins").mkdir()
    vault.apply([root / ".obsidian/plugins"])
    folders = set(vault.snapshot(parsed=False).folders())
    assert root / "1_Projects/Empty" not in folders and root / "1_Projects" in folders
    assert {root / "6_New", root / "6_New/Deep"} <= folders and root / ".obsidian/plugins" not in folders
    assert str(root) not in walks
    vault.refresh()  # a new walk finds what apply() kept
    assert set(vault.snapshot(parsed=False).folders()) == folders


def test_the_model_of_a_vault_not_walked_yet_holds_nothing_and_resolves_nothing(tmp_path: Path) -> None:
    """What the editor area shows before the first walk comes back: a page there finds no link target."""
    write(tmp_path / "Kyoto.md", "# Kyoto\n")
    empty = VaultSnapshot.empty(tmp_path)
    assert empty.root == tmp_path and empty.files() == [] and empty.resolve("Kyoto") is None
    assert empty.backlinks(tmp_path / "Kyoto.md") == []
