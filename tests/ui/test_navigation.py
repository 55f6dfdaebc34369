"""Getting around the window: fuzzy quick switcher and palette, create page, reveal in tree, theme, welcome page."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from ui_support import WAIT_MS, run

from suzent_desktop.core.files.language import fuzzy
from suzent_desktop.settings import load_settings


def on_screen(widget) -> bool:
    """Shown and not behind another dock's tab (a tabbed dock stays "visible" behind its tab)."""
    return widget.isVisible() and not widget.visibleRegion().isEmpty()


def notebook(window) -> Path:
    return window.services.layout.notebook_dir


def ready_names(qtbot, window) -> None:
    """The vault model's names and aliases handed to the editors, taken off the GUI thread as at start-up."""
    task = window.services.submit(window.refresh_names())
    qtbot.waitUntil(task.done, timeout=WAIT_MS)


def watcher_batch(qtbot, window, path: Path) -> None:
    """What the watcher's batch does with a changed page: the vault model takes it in on a worker,
    then the editors get the new snapshot."""
    run(qtbot, window.refresh_names([path]))


def window_on(home: Path, prompter):
    """A window on another home than the demo's (closed by the test)."""
    from suzent_desktop.ui.base.services import AppServices
    from suzent_desktop.ui.window.main_window import MainWindow

    return MainWindow(AppServices.open(home), prompter=prompter)


# -- quick switcher -------------------------------------------------------------------------------
def test_switcher_finds_every_word_in_any_order_and_opens_the_page(qtbot, window) -> None:
    ready_names(qtbot, window)
    switcher = window.show_quick_switcher()
    qtbot.keyClicks(switcher.input, "anna gift")
    assert switcher.labels()[0].startswith("Gift ideas for Anna")
    qtbot.keyClick(switcher.input, Qt.Key.Key_Return)
    assert window.editors.current_editor().path == notebook(window) / "0_Inbox" / "Gift ideas for Anna.md"


def test_switcher_ranks_initials_first_and_arrows_move_the_choice(qtbot, window) -> None:
    root = notebook(window)
    for name in ("Machine Learning Projects", "Example lamp", "Multilayer perceptron"):
        (root / "1_Projects" / f"{name}.md").write_text(f"# {name}\n", encoding="utf-8")
    ready_names(qtbot, window)
    switcher = window.show_quick_switcher()
    qtbot.keyClicks(switcher.input, "mlp")
    assert [label.split("    ")[0] for label in switcher.labels()[:3]] == [
        "Machine Learning Projects", "Multilayer perceptron", "Example lamp"
    ]
    qtbot.keyClick(switcher.input, Qt.Key.Key_Down)
    qtbot.keyClick(switcher.input, Qt.Key.Key_Return)
    assert window.editors.current_editor().path == root / "1_Projects" / "Multilayer perceptron.md"


def test_before_typing_the_switcher_lists_the_last_visited_pages_first(qtbot, window) -> None:
    ready_names(qtbot, window)
    root = notebook(window)
    for rel in ("3_Personal/Work.md", "2_Wiki/Concepts/Vector Search.md", "3_Personal/People.md"):
        window.open_path(root / rel)
    switcher = window.show_quick_switcher()
    assert [label.split("    ")[0] for label in switcher.labels()[:2]] == ["Vector Search", "Work"]
    qtbot.keyClick(switcher.input, Qt.Key.Key_Return)  # Ctrl+O, Enter: back to the page before
    assert window.editors.current_editor().path == root / "2_Wiki" / "Concepts" / "Vector Search.md"


def test_switcher_lists_aliases_that_open_their_page(qtbot, window) -> None:
    ready_names(qtbot, window)
    switcher = window.show_quick_switcher()
    qtbot.keyClicks(switcher.input, "semantic")
    assert switcher.labels()[0] == "Semantic Search    → Vector Search"
    qtbot.keyClick(switcher.input, Qt.Key.Key_Return)
    assert window.editors.current_editor().path == notebook(window) / "2_Wiki" / "Concepts" / "Vector Search.md"


def test_switcher_matches_the_folder_path_too(qtbot, window) -> None:
    ready_names(qtbot, window)
    switcher = window.show_quick_switcher()
    qtbot.keyClicks(switcher.input, "concepts vector")
    assert switcher.labels()[0].startswith("Vector Search")


def test_switcher_takes_names_from_the_cached_index_without_walking_the_vault(qtbot, window, monkeypatch) -> None:
    from suzent_desktop.core.vault import links

    with qtbot.waitSignal(window.names_ready, timeout=WAIT_MS):  # the model's names, taken on a worker thread
        window.start_background(watch=False, serve=False, index=False)
    new = notebook(window) / "0_Inbox" / "Zebra crossing.md"
    new.write_text("# Zebra crossing\n", encoding="utf-8")
    watcher_batch(qtbot, window, new)

    def no_walk(*_args, **_kwargs):
        raise AssertionError("the vault was walked")

    monkeypatch.setattr(links.VaultIndex, "scan", no_walk)
    monkeypatch.setattr(Path, "rglob", no_walk)
    monkeypatch.setattr(Path, "iterdir", no_walk)
    switcher = window.show_quick_switcher()
    qtbot.keyClicks(switcher.input, "zebra")
    assert switcher.labels() == ["Zebra crossing    0_Inbox"]


def test_switcher_rows_follow_new_files_and_changed_aliases_between_openings(qtbot, window) -> None:
    ready_names(qtbot, window)
    first = window.show_quick_switcher()
    qtbot.keyClicks(first.input, "platypus")
    assert first.labels() == ["Create page “platypus”    in 0_Inbox"]
    first.reject()
    page = notebook(window) / "3_Personal" / "Pets.md"
    page.write_text("---\naliases: [Platypus log]\n---\n# Pets\n", encoding="utf-8")
    watcher_batch(qtbot, window, page)
    again = window.show_quick_switcher()
    qtbot.keyClicks(again.input, "platypus")
    assert again.labels() == ["Platypus log    → Pets"]
    again.reject()
    page.write_text("---\naliases: [Duck-billed friend]\n---\n# Pets\n", encoding="utf-8")
    watcher_batch(qtbot, window, page)
    third = window.show_quick_switcher()
    qtbot.keyClicks(third.input, "duck billed")
    assert third.labels() == ["Duck-billed friend    → Pets"]


def test_no_match_offers_to_create_the_page_in_the_inbox_and_opens_it(qtbot, window) -> None:
    switcher = window.show_quick_switcher()
    qtbot.keyClicks(switcher.input, "Quokka habits")
    assert switcher.labels() == ["Create page “Quokka habits”    in 0_Inbox"]
    qtbot.keyClick(switcher.input, Qt.Key.Key_Return)
    created = notebook(window) / "0_Inbox" / "Quokka habits.md"
    assert created.read_text(encoding="utf-8") == "# Quokka habits\n\n"
    assert window.editors.current_editor().path == created
    assert window.tree.selected_path() == created


def test_a_typed_folder_path_creates_the_page_there(qtbot, window) -> None:
    switcher = window.show_quick_switcher()
    qtbot.keyClicks(switcher.input, "2_Wiki/Concepts/Quokka Theory")
    qtbot.keyClick(switcher.input, Qt.Key.Key_Return)
    created = notebook(window) / "2_Wiki" / "Concepts" / "Quokka Theory.md"
    assert created.is_file()
    assert window.editors.current_editor().path == created


def test_shift_enter_creates_the_typed_page_even_when_something_matches(qtbot, window) -> None:
    ready_names(qtbot, window)
    switcher = window.show_quick_switcher()
    qtbot.keyClicks(switcher.input, "Gift")
    assert switcher.labels()[0].startswith("Gift ideas for Anna")
    qtbot.keyClick(switcher.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    created = notebook(window) / "0_Inbox" / "Gift.md"
    assert created.is_file()
    assert window.editors.current_editor().path == created


def test_a_name_that_cannot_be_a_page_offers_nothing(qtbot, window) -> None:
    switcher = window.show_quick_switcher()
    qtbot.keyClicks(switcher.input, "../outside")
    assert switcher.labels() == []
    qtbot.keyClick(switcher.input, Qt.Key.Key_Return)
    assert not (notebook(window).parent / "outside.md").exists()


# -- command palette -------------------------------------------------------------------------------
def test_palette_is_fuzzy_too(qtbot, window) -> None:
    palette = window.show_command_palette()
    qtbot.keyClicks(palette.input, "tree reveal")
    assert palette.labels()[0] == "Reveal in tree"
    palette.input.clear()
    qtbot.keyClicks(palette.input, "rbi")  # initials of "Rebuild index from files"
    assert palette.labels()[0] == "Rebuild index from files"


# -- reveal in tree ----------------------------------------------------------------------------------
def test_reveal_in_tree_shows_the_vault_expands_selects_and_focuses(qtbot, window) -> None:
    window.activateWindow()
    page = notebook(window) / "2_Wiki" / "Concepts" / "Vector Search.md"
    window.open_path(page)
    window.tree.collapseAll()
    window.tree.setCurrentItem(None)
    window.show_dock("search")  # the Vault dock is behind the Search tab
    qtbot.waitUntil(lambda: not on_screen(window.tree), timeout=WAIT_MS)
    window.actions_by_name["reveal"].trigger()
    qtbot.waitUntil(lambda: on_screen(window.tree), timeout=WAIT_MS)
    assert window.tree.selected_path() == page
    assert window.tree.item_for(page.parent).isExpanded()
    assert window.tree.item_for(page.parent.parent).isExpanded()
    qtbot.waitUntil(lambda: window.tree.hasFocus(), timeout=WAIT_MS)


def test_a_tabs_context_menu_reveals_its_file(qtbot, window) -> None:
    page = notebook(window) / "3_Personal" / "Work.md"
    window.open_path(page)
    window.tree.collapseAll()
    window.show_dock("logs")
    qtbot.waitUntil(lambda: not on_screen(window.tree), timeout=WAIT_MS)
    menu = window.editors.tab_menu(0)
    assert [a.text() for a in menu.actions()] == ["Reveal in tree", "Split right", "Split down", "Close tab"]
    menu.actions()[0].trigger()
    qtbot.waitUntil(lambda: on_screen(window.tree), timeout=WAIT_MS)
    assert window.tree.selected_path() == page


# -- theme -------------------------------------------------------------------------------------------
def test_view_theme_menu_applies_at_once_and_is_remembered(qtbot, window, theme_manager) -> None:
    view = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    theme_menu = next(a.menu() for a in view.actions() if a.text() == "&Theme")
    assert [a.text() for a in theme_menu.actions()] == ["System", "Light", "Dark"]
    assert window.theme_actions["system"].isChecked()
    window.theme_actions["dark"].trigger()
    assert window.palette().base().color().lightness() < 80
    assert window.theme_actions["dark"].isChecked() and not window.theme_actions["system"].isChecked()
    home = window.services.layout.home
    assert load_settings(home, environ={}).theme == "dark"
    assert 'theme = "dark"' in (home / "config.toml").read_text(encoding="utf-8")
    window.theme_actions["light"].trigger()
    assert window.palette().base().color().lightness() > 200
    assert load_settings(home, environ={}).theme == "light"


def test_switching_the_theme_leaves_open_pages_unchanged(qtbot, window, theme_manager) -> None:
    page = notebook(window) / "3_Personal" / "Work.md"
    before = page.read_bytes()
    editor = window.editors.open(page)
    for mode in ("dark", "light", "system"):
        window.theme_actions[mode].trigger()
        assert not editor.dirty, mode
    assert window.editors.tabText(0) == "Work"  # no unsaved-changes dot
    editor.save()
    assert page.read_bytes() == before


def test_palette_switches_the_theme_with_keys(qtbot, window, theme_manager) -> None:
    palette = window.show_command_palette()
    qtbot.keyClicks(palette.input, "theme dark")
    assert palette.labels()[0] == "Theme: Dark"
    qtbot.keyClick(palette.input, Qt.Key.Key_Return)
    assert theme_manager.dark and theme_manager.mode == "dark"


def test_a_remembered_theme_applies_when_the_window_opens(qtbot, loop, home, prompter, theme_manager) -> None:
    (home / "config.toml").write_text('theme = "dark"\n', encoding="utf-8")
    window = window_on(home, prompter)
    try:
        assert theme_manager.mode == "dark" and theme_manager.dark
        assert window.theme_actions["dark"].isChecked()
    finally:
        run(qtbot, window.shutdown())
        window.deleteLater()


def test_the_system_theme_follows_the_platform_but_a_fixed_one_does_not(window, theme_manager) -> None:
    theme_manager.set_mode("dark")
    theme_manager._on_scheme(Qt.ColorScheme.Light)  # the platform changes its mind
    assert theme_manager.dark
    theme_manager.set_mode("system")
    assert theme_manager.dark == (theme_manager.app.styleHints().colorScheme() == Qt.ColorScheme.Dark)


def test_an_unknown_theme_in_config_is_an_error_naming_the_key(home) -> None:
    from suzent_desktop.settings import SettingsError

    (home / "config.toml").write_text('theme = "purple"\n', encoding="utf-8")
    with pytest.raises(SettingsError, match="theme.*system, light, dark") as caught:
        load_settings(home, environ={})
    assert caught.value.line == 1 and caught.value.key == "theme"


# -- welcome page ----------------------------------------------------------------------------------------
def test_welcome_page_at_launch_says_what_the_app_is_and_which_home(qtbot, window) -> None:
    assert window.center.currentWidget() is window.welcome and window.welcome.isVisible()
    text = window.welcome.home_label.text()
    assert str(window.services.layout.home) in text and str(notebook(window)) in text
    assert "demo home" in text


def test_welcome_buttons_open_switcher_search_and_dream_panel(qtbot, window) -> None:
    window.activateWindow()
    buttons = window.welcome.buttons()
    qtbot.mouseClick(buttons["switcher"], Qt.MouseButton.LeftButton)
    assert window._switcher.isVisible()
    window._switcher.reject()
    qtbot.mouseClick(buttons["search"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: on_screen(window.search_pane), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: window.search_pane.query_edit.hasFocus(), timeout=WAIT_MS)
    assert not on_screen(window.dream_panel)
    qtbot.mouseClick(buttons["dream"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: on_screen(window.dream_panel), timeout=WAIT_MS)


def test_welcome_demo_button_on_the_demo_opens_a_page_and_the_welcome_returns_after_the_last_tab(qtbot, window) -> None:
    qtbot.mouseClick(window.welcome.buttons()["demo"], Qt.MouseButton.LeftButton)
    editor = window.editors.current_editor()
    assert editor is not None and editor.path.name == "About Me.md"
    assert window.center.currentWidget() is window.editors
    window.editors.close_tab(0)
    assert window.center.currentWidget() is window.welcome


def test_welcome_on_a_new_home_starts_the_demo_elsewhere(qtbot, loop, home, prompter, monkeypatch) -> None:
    window = window_on(home, prompter)
    launched = []
    monkeypatch.setattr(window, "launch_demo", lambda: launched.append(True) or True)
    window.show()
    try:
        assert window.welcome.isVisible()
        assert "demo home" not in window.welcome.home_label.text()
        qtbot.mouseClick(window.welcome.buttons()["demo"], Qt.MouseButton.LeftButton)
        assert launched == [True]
        assert window.editors.count() == 0
        assert "demo" in window.statusBar().currentMessage()
    finally:
        run(qtbot, window.shutdown())
        window.close()
        window.deleteLater()


# -- docks -------------------------------------------------------------------------------------------------
def test_clicking_the_search_tab_focuses_the_query_box(qtbot, window) -> None:
    from PySide6.QtWidgets import QTabBar

    window.activateWindow()
    qtbot.waitExposed(window)
    bar = next(b for b in window.findChildren(QTabBar) if "Search" in [b.tabText(i) for i in range(b.count())])
    index = [bar.tabText(i) for i in range(bar.count())].index("Search")
    assert bar.currentIndex() != index
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())
    qtbot.waitUntil(lambda: window.search_pane.query_edit.hasFocus(), timeout=WAIT_MS)
    assert on_screen(window.search_pane)


def test_the_demo_starts_in_the_demo_folder_even_when_suzent_home_names_this_home(window, monkeypatch) -> None:
    from suzent_desktop.ui.window import main_window

    started = []
    monkeypatch.setenv("SUZENT_HOME", str(window.services.layout.home))
    monkeypatch.setattr(main_window, "start_detached", lambda program, args: started.append((program, args)) or True)
    assert window.launch_demo()
    (program, args), = started
    assert args[:3] == ["-m", "suzent_desktop", "demo"] and len(args) == 4
    assert Path(args[3]).name == "suzent-desktop-demo" and Path(args[3]) != window.services.layout.home


def test_the_first_switcher_keystroke_finds_every_name_already_prepared(qtbot, window) -> None:
    """The matcher's name cache is warmed on a worker when the names are scanned, not by the first key."""
    fuzzy._prepare.cache_clear()
    with qtbot.waitSignal(window.names_ready, timeout=WAIT_MS):
        window.start_background(watch=False, serve=False, index=False)
    switcher = window.show_quick_switcher()
    before = fuzzy._prepare.cache_info()
    qtbot.keyClick(switcher.input, "g")
    after = fuzzy._prepare.cache_info()
    assert switcher.labels() and after.misses == before.misses and after.hits > before.hits


def test_the_switcher_rows_are_built_on_a_worker_when_the_names_change(qtbot, window, monkeypatch) -> None:
    from suzent_desktop.ui.dialogs import quick_switcher

    page = notebook(window) / "0_Inbox" / "Quokka.md"
    page.write_text("---\naliases: [Happy marsupial]\n---\n# Quokka\n", encoding="utf-8")
    watcher_batch(qtbot, window, page)  # the snapshot and its rows are made off the GUI thread

    def on_gui_thread(_snapshot):  # noqa: ANN001, ANN202
        raise AssertionError("the switcher's rows were built on the GUI thread")

    monkeypatch.setattr(quick_switcher, "_switcher_rows", on_gui_thread)
    switcher = window.show_quick_switcher()
    qtbot.keyClicks(switcher.input, "happy marsupial")
    assert switcher.labels() == ["Happy marsupial    → Quokka"]
