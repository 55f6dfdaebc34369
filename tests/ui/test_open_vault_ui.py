"""File ▸ Open vault…, the recent vaults, the welcome page's way in, and the window's title."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def launched(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[list[str]]:
    from suzent_desktop.ui.window import main_window

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    started: list[list[str]] = []
    monkeypatch.setattr(main_window, "start_detached", lambda program, args: started.append(args) or True)
    return started


def test_open_vault_asks_for_a_folder_and_opens_it_in_a_new_window(qtbot, window, prompter, launched,
                                                                   tmp_path: Path) -> None:
    vault = tmp_path / "My vault"
    vault.mkdir()
    prompter.folders.append(str(vault))
    window.actions_by_name["open_vault"].trigger()
    assert launched and launched[-1][-2:] == ["open", str(vault)]
    assert "Open vault" in window.menuBar().actions()[0].menu().actions()[0].text()


def test_recent_vaults_are_listed_in_the_file_menu_and_on_the_welcome_page(qtbot, window, launched,
                                                                           tmp_path: Path) -> None:
    from suzent_desktop.core.files.paths.vaults import RecentVaults, open_folder

    first, second = tmp_path / "garden", tmp_path / "work"
    first.mkdir()
    second.mkdir()
    open_folder(first)
    open_folder(second)
    assert [e.vault.name for e in RecentVaults().entries()] == ["work", "garden"]
    menu = window.recent_menu
    menu.aboutToShow.emit()
    texts = [a.text() for a in menu.actions()]
    assert texts[:2] == ["work", "garden"]
    menu.actions()[1].trigger()
    assert launched[-1][-2:] == ["open", str(first.resolve())]
    window.welcome.refresh_recent()
    buttons = window.welcome.buttons()
    assert "open_vault" in buttons
    assert [b.text() for b in window.welcome.recent_buttons] == ["work", "garden"]
    window.welcome.recent_buttons[0].click()
    assert launched[-1][-2:] == ["open", str(second.resolve())]


def test_the_window_title_names_the_app_once(qtbot, window) -> None:
    # The platform appends the application's display name ("Suzent") to a title unless the title
    # already ends with it: ending with it is how the app's name is shown exactly once.
    vault = window.services.layout.notebook_dir.name
    assert window.windowTitle() == f"{vault} — Suzent"
    window.open_path(window.services.layout.notebook_dir / "3_Personal" / "About Me.md")
    assert window.windowTitle() == f"About Me — {vault} — Suzent"


def test_search_can_be_kept_to_any_top_folder_of_the_vault(qtbot, window, tmp_path: Path) -> None:
    from suzent_desktop.ui.window.recent_vaults import top_folders

    vault = tmp_path / "vault"
    for name in ("Projects", "Memory", "0_Inbox", "3_Personal", ".obsidian", "attachments"):
        (vault / name).mkdir(parents=True)
    (vault / "Home.md").write_text("# Home\n", encoding="utf-8")
    assert top_folders(vault) == ["0_Inbox", "3_Personal", "attachments", "Memory", "Projects"]
    box = window.search_pane.zone_box
    listed = [box.itemText(i) for i in range(box.count())]
    assert listed[0] == "All folders" and "3_Personal" in listed


def test_open_vault_refuses_a_folder_whose_config_points_elsewhere(qtbot, window, prompter, launched,
                                                                    tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    clone.mkdir()
    (clone / "config.toml").write_text(f'notebook_path = "{tmp_path}"\n', encoding="utf-8")
    prompter.folders.append(str(clone))
    window.actions_by_name["open_vault"].trigger()
    assert launched == []
    assert prompter.errors and "notebook_path" in prompter.errors[-1] and "did not write" in prompter.errors[-1]


def test_forget_in_a_note_the_person_wrote_keeps_the_note_and_shows_it_as_written(
        qtbot, loop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ui_support import WAIT_MS, FakePrompter, run

    from suzent_desktop.core.files.paths.vaults import vault_home
    from suzent_desktop.ui.base.services import AppServices
    from suzent_desktop.ui.window.main_window import MainWindow

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    vault = tmp_path / "vault"
    (vault / "Plugins").mkdir(parents=True)
    note = vault / "Plugins" / "Graph view.md"
    said = "The graph view shows how your notes link to one another."
    note.write_text(f"# Graph view\n\n{said}\n", encoding="utf-8")
    before = note.read_bytes()
    services = AppServices.open(vault_home(vault))
    prompter = FakePrompter()
    window = MainWindow(services, prompter=prompter)
    try:
        run(qtbot, services.manager.indexing.reindex())
        editor = window.editors.open(note)
        run(qtbot, window.forget_text(said))
        assert prompter.asked[-1] == ("Forget", f"{said}\nPlugins/Graph view.md")  # the dialog names the note
        assert note.read_bytes() == before and services.manager.tombstones.is_tombstoned(said)
        editor.load()
        assert said in editor.text()  # the window shows the note as written, so a save keeps it
        prompter.from_notes = True  # Also delete it from the note
        run(qtbot, services.manager.forgetting.undo(said))
        run(qtbot, window.forget_text(said))
        qtbot.waitUntil(lambda: said.encode() not in note.read_bytes(), timeout=WAIT_MS)
    finally:
        run(qtbot, window.shutdown())
        window.deleteLater()
        run(qtbot, services.shutdown())
