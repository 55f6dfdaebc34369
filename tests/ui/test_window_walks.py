"""A window session walks the vault once: names, index, backlinks, tags and lint share the one model."""

from __future__ import annotations

from pathlib import Path

import pytest
from ui_support import WAIT_MS, run
from watchfiles import Change

from suzent_desktop.core import operations
from suzent_desktop.core.vault import links
from suzent_desktop.core.vault import model as vault


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    seen: dict[str, list[str]] = {"vault": [], "VaultIndex.scan": []}
    real_entries, real_scan = vault._walk_entries, links.VaultIndex.scan
    monkeypatch.setattr(vault, "_walk_entries", lambda top, *rest: seen["vault"].append(str(top)) or real_entries(top, *rest))
    monkeypatch.setattr(links.VaultIndex, "scan",
                        classmethod(lambda cls, root: seen["VaultIndex.scan"].append(str(root)) or real_scan.__func__(cls, root)))
    return seen


@pytest.fixture
def lantern(demo_home: Path) -> Path:
    target = demo_home / "notebook" / "2_Wiki" / "Concepts" / "Lantern.md"
    target.write_text("# Lantern\n\nA light. #glass\n", encoding="utf-8")
    return target


def test_a_window_session_walks_the_vault_once(qtbot, walks, lantern, window) -> None:  # noqa: ANN001
    services = window.services
    root: Path = services.layout.notebook_dir
    target = lantern
    with qtbot.waitSignal(window.names_ready, timeout=WAIT_MS):
        window.start_background(watch=True, serve=False, index=True)
    qtbot.waitUntil(lambda: window.watcher.ready, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: services.index_stats is not None, timeout=WAIT_MS)  # the first index pass is done

    # the backlinks pane on an open page, then a page written by hand that links to it (a watcher event)
    window.docks["backlinks"].raise_()
    window.backlinks.set_page(target)
    qtbot.waitUntil(lambda: window.backlinks.backlinks == [] and window.backlinks.page == target, timeout=WAIT_MS)
    linker = root / "0_Inbox" / "Shelf.md"
    linker.write_text("The [[Lantern]] sits on the shelf. #glass\n", encoding="utf-8")
    qtbot.waitUntil(lambda: window.backlinks.backlink_sources() == [linker], timeout=WAIT_MS)

    # the tags pane, and a page made through an operation (AppServices.apply)
    window.docks["tags"].raise_()
    qtbot.waitUntil(lambda: window.tags.counts().get("glass") == 2, timeout=WAIT_MS)
    services.apply(operations.create_page(root, root / "0_Inbox", "Candle", "Next to the [[Lantern]]. #glass\n"))
    qtbot.waitUntil(lambda: window.tags.counts().get("glass") == 3, timeout=WAIT_MS)

    # lint from the menu
    with qtbot.waitSignal(window.dream_panel.lint_finished, timeout=WAIT_MS):
        window.actions_by_name["lint"].trigger()

    assert [w for w in walks["vault"] if w == str(root)] == [str(root)]  # one walk, then what changed
    assert walks["VaultIndex.scan"] == []
    assert services.manager.vault.walks == 1


def test_a_daily_log_kept_inside_the_vault_is_a_log_to_the_watcher(qtbot, loop, home: Path) -> None:  # noqa: ANN001
    """The watcher's events go through the one classifier: the memory folder is looked at before the vault."""
    from suzent_desktop.core.files.events import ChangeSet
    from suzent_desktop.ui.base.services import AppServices
    from suzent_desktop.ui.window.main_window import MainWindow

    (home / "config.toml").write_text('notebook_path = "vault"\nmemory_path = "vault/memory"\n', encoding="utf-8")
    services = AppServices.open(home)
    win = MainWindow(services)
    try:
        log = services.layout.daily_log("2026-07-19")
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text("# Daily Log - 2026-07-19\n\n## 10:00 — abc12345\n\n- [work] works at [[Contoso]]\n", encoding="utf-8")
        page = services.layout.notebook_dir / "0_Inbox" / "Contoso.md"
        page.write_text("# Contoso\n", encoding="utf-8")
        seen: list[ChangeSet] = []
        services.bridge.changed.connect(seen.append)
        win._on_watch_batch([(Change.added, log), (Change.added, page)])
        assert seen and seen[-1].logs == {"2026-07-19"} and seen[-1].pages == {page}
        assert operations.path_kind(services.manager, log) is vault.Kind.LOG
    finally:
        run(qtbot, win.shutdown())
        run(qtbot, services.shutdown())
        win.deleteLater()


def test_a_window_session_with_a_dream_a_rename_and_a_lint_lists_the_vault_once_for_the_model(
        qtbot, monkeypatch, walks, lantern, window) -> None:  # noqa: ANN001
    """Any walker lists a folder with os.scandir: from the start of the window's background work, the
    vault's root folder is listed once, by the model's walk; the dream (its tools, coverage, promotion,
    the panel's before-texts), a rename through the tree, the sync-conflicts pane and lint list nothing
    again. (This window is built as tests build it, with no watcher announced: its tree lists the vault
    itself before this count starts. The app's way is counted whole by the test below.)"""
    import os

    services = window.services
    root: Path = services.layout.notebook_dir
    personal = str(root / "3_Personal")
    listed: list[str] = []
    real_scandir = os.scandir
    monkeypatch.setattr(os, "scandir", lambda path=".": listed.append(os.fspath(path)) or real_scandir(path))
    with qtbot.waitSignal(window.names_ready, timeout=WAIT_MS):
        window.start_background(watch=True, serve=False, index=True)
    qtbot.waitUntil(lambda: window.watcher.ready, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: services.index_stats is not None, timeout=WAIT_MS)

    panel = window.dream_panel
    with qtbot.waitSignal(panel.run_finished, timeout=60_000) as finished:
        panel.dream_now()
    assert finished.args[0].outcome == "productive", finished.args[0].reason
    window.tree.rename(lantern, "Lamp")
    assert (lantern.parent / "Lamp.md").is_file()
    with qtbot.waitSignal(panel.lint_finished, timeout=WAIT_MS):
        window.actions_by_name["lint"].trigger()

    assert [p for p in listed if p == str(root)] == [str(root)], walks  # the model's one walk
    assert [p for p in listed if p == personal] == [personal]
    assert services.manager.vault.walks == 1 and walks["VaultIndex.scan"] == []


def test_a_window_open_lists_the_vault_once_and_its_tree_shows_the_models_walk(
        qtbot, monkeypatch, services, prompter) -> None:  # noqa: ANN001
    """Opened as the app opens it (the watcher follows at once), the window lists the vault's root once,
    from before the window is built to the end of its start: the vault tree shows the model's walk
    (empty folders too, hidden ones never, zones in order) instead of listing the vault itself."""
    import os

    from suzent_desktop.ui.base.app import open_window

    root: Path = services.layout.notebook_dir
    (root / "1_Projects" / "Empty").mkdir(parents=True)
    (root / ".obsidian").mkdir(exist_ok=True)
    listed: list[str] = []
    real_scandir = os.scandir
    monkeypatch.setattr(os, "scandir", lambda path=".": listed.append(os.fspath(path)) or real_scandir(path))
    window = open_window(services, prompter)
    try:
        window.show()
        assert window.tree.waiting  # the model's walk waits for the watcher, and the tree for the walk
        with qtbot.waitSignal(window.names_ready, timeout=WAIT_MS):
            window.start_background(watch=True, serve=False, index=True)
        qtbot.waitUntil(lambda: services.index_stats is not None, timeout=WAIT_MS)
        tree = window.tree
        top = [tree.topLevelItem(i).text(0) for i in range(tree.topLevelItemCount())]
        assert top[:3] == ["0_Inbox", "1_Projects", "2_Wiki"] and top[-3:] == ["index", "log", "schema"]
        assert ".obsidian" not in top and ".state" not in top
        assert tree.item_for(root / "1_Projects" / "Empty") is not None
        assert tree.item_for(root / "3_Personal" / "Work.md").text(0) == "Work"
        # a file event after the fill still reaches the tree one path at a time
        (root / "0_Inbox" / "Later.md").write_text("# Later\n", encoding="utf-8")
        qtbot.waitUntil(lambda: tree.item_for(root / "0_Inbox" / "Later.md") is not None, timeout=WAIT_MS)
        assert [p for p in listed if p == str(root)] == [str(root)]  # the model's one walk
        assert services.manager.vault.walks == 1
    finally:
        run(qtbot, window.shutdown())
        window.close()
        window.deleteLater()
