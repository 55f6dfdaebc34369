"""Split panes as in Obsidian: open beside or below, drag a tab across, links follow the focused
pane, and the panes come back at the next start."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from conftest import _open_services
from PySide6.QtCore import QByteArray, QMimeData, QPoint, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QPlainTextEdit
from ui_support import WAIT_MS, run

from suzent_desktop.ui.workspace import editor_area as editor_module
from suzent_desktop.ui.workspace import split_editors
from suzent_desktop.ui.workspace.split_editors import TAB_MIME


def _window(qtbot, services, prompter):
    from suzent_desktop.ui.window.main_window import MainWindow

    window = MainWindow(services, prompter=prompter)
    window.resize(1400, 900)
    window.show()
    qtbot.waitExposed(window)
    run(qtbot, window.refresh_names())  # links resolve as once the window has scanned the vault
    return window


def _close(qtbot, window) -> None:
    window.ask_before_closing = False
    window.close()
    run(qtbot, window.shutdown())
    window.deleteLater()


@pytest.fixture
def win(qtbot, small_services, prompter):
    window = _window(qtbot, small_services, prompter)
    yield window
    if not window._shut_down:
        _close(qtbot, window)


def _pages(win) -> tuple[Path, Path]:
    notebook = win.services.layout.notebook_dir
    return notebook / "3_Personal" / "Work.md", notebook / "2_Wiki" / "Concepts" / "Vector Search.md"


def _shown(pane) -> list[str]:
    return [editor.path.stem for editor in pane.editors()]


def _left(widget) -> QPoint:
    return widget.mapTo(widget.window(), QPoint(0, 0))


def test_split_right_from_a_tabs_menu_shows_the_page_in_a_pane_beside(qtbot, win) -> None:
    work, _ = _pages(win)
    win.open_path(work)
    menu = win.editors.tab_menu(0)
    next(a for a in menu.actions() if a.text() == "Split right").trigger()
    left, right = win.editors.panes
    assert _shown(left) == ["Work"] and _shown(right) == ["Work"]
    qtbot.waitUntil(lambda: _left(right).x() > _left(left).x() + 200, timeout=WAIT_MS)
    assert _left(right).y() == _left(left).y()
    assert win.editors.focused is right


def test_split_down_from_the_view_menu_puts_a_pane_below(qtbot, win) -> None:
    work, _ = _pages(win)
    win.open_path(work)
    win.actions_by_name["split_down"].trigger()
    top, bottom = win.editors.panes
    qtbot.waitUntil(lambda: _left(bottom).y() > _left(top).y() + 100, timeout=WAIT_MS)
    assert _left(bottom).x() == _left(top).x()
    assert "split_down" in win.actions_by_name and "split_right" in win.actions_by_name  # in the palette too


def test_links_the_tree_and_the_switcher_open_in_the_focused_pane(qtbot, win) -> None:
    work, search = _pages(win)
    win.open_path(work)
    win.editors.split("right")
    left, right = win.editors.panes
    left.current_editor().source.setFocus()
    qtbot.waitUntil(lambda: win.editors.focused is left, timeout=WAIT_MS)
    left.current_editor().link_activated.emit("Vector Search", None)  # a click on [[Vector Search]]
    assert _shown(left) == ["Work", "Vector Search"] and _shown(right) == ["Work"]
    assert win.windowTitle().startswith("Vector Search")  # the window follows the focused pane
    assert left.current_editor().path == search and not win.prompter.asked  # the page linked to, none created
    right.current_editor().source.setFocus()
    qtbot.waitUntil(lambda: win.editors.focused is right, timeout=WAIT_MS)
    assert win.windowTitle().startswith("Work")
    win.open_path(search)  # as the tree and the quick switcher do
    assert _shown(right) == ["Work", "Vector Search"] and len(_shown(left)) == 2


def test_ctrl_alt_click_on_a_link_opens_it_to_the_right(qtbot, win, monkeypatch) -> None:
    work, _ = _pages(win)
    win.open_path(work)
    monkeypatch.setattr(editor_module, "_open_beside_held", lambda: True)
    win.editors.current_editor().link_activated.emit("Vector Search", None)
    left, right = win.editors.panes
    assert _shown(left) == ["Work"] and _shown(right) == ["Vector Search"]
    assert win.editors.focused is right


def _drop(target, source_pane_number: int, index: int, pos: QPoint) -> None:
    """A tab dragged over ``target`` and dropped at ``pos`` (Qt delivers a drop only after its enter)."""
    data = QMimeData()
    data.setData(TAB_MIME, QByteArray(f"{source_pane_number}:{index}".encode()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the constructor Qt itself uses
        enter = QDragEnterEvent(pos, Qt.DropAction.MoveAction, data, Qt.MouseButton.LeftButton,
                                Qt.KeyboardModifier.NoModifier)
    drop = QDropEvent(QPointF(pos), Qt.DropAction.MoveAction, data, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    for event in (enter, drop):
        QApplication.sendEvent(target, event)
        assert event.isAccepted()


def test_a_tab_dragged_into_another_pane_moves_there_in_its_view(qtbot, win) -> None:
    work, search = _pages(win)
    win.open_path(work)
    win.editors.split("right", search)
    left, right = win.editors.panes
    left.current_editor().views.set_view("reading")
    win.open_path(work)  # the focused pane is the right one
    assert _shown(right) == ["Vector Search", "Work"]
    _drop(left, 1, 0, QPoint(40, left.height() // 2))  # "Vector Search" from the right pane into the left
    qtbot.waitUntil(lambda: _shown(left) == ["Work", "Vector Search"], timeout=WAIT_MS)
    assert _shown(right) == ["Work"] and win.editors.focused is left
    _drop(left, 0, 0, QPoint(left.width() - 5, left.height() // 2))  # onto the left pane's right edge: a new pane
    qtbot.waitUntil(lambda: len(win.editors.panes) == 3, timeout=WAIT_MS)
    moved = win.editors.focused.current_editor()
    assert moved.path == work and moved.views.view == "reading"


def test_pulling_a_tab_out_of_its_bar_starts_a_drag(qtbot, win, monkeypatch) -> None:
    work, _ = _pages(win)
    win.open_path(work)
    started: list[tuple] = []
    monkeypatch.setattr(split_editors.SplitEditors, "_start_drag", lambda self, pane, index: started.append((pane, index)))
    bar = win.editors.panes[0].tabBar()
    at = bar.tabRect(0).center()
    qtbot.mousePress(bar, Qt.MouseButton.LeftButton, pos=at)
    qtbot.mouseMove(bar, QPoint(at.x(), bar.height() + 60))
    qtbot.waitUntil(lambda: bool(started), timeout=WAIT_MS)
    assert started == [(win.editors.panes[0], 0)]
    qtbot.mouseRelease(bar, Qt.MouseButton.LeftButton, pos=at)


def test_closing_a_panes_last_tab_closes_the_pane(qtbot, win) -> None:
    work, search = _pages(win)
    win.open_path(work)
    win.editors.split("down", search)
    win.editors.split("right", work)
    assert len(win.editors.panes) == 3
    win.editors.close_tab(0)
    qtbot.waitUntil(lambda: len(win.editors.panes) == 2, timeout=WAIT_MS)
    assert win.editors.focused in win.editors.panes
    win.editors.focus_pane(win.editors.panes[1])
    win.editors.close_tab(0)
    qtbot.waitUntil(lambda: len(win.editors.panes) == 1, timeout=WAIT_MS)
    assert _shown(win.editors.panes[0]) == ["Work"] and win.editors.top.count() == 1


def test_the_panes_and_their_tabs_come_back_at_the_next_start(qtbot, small_home, win, prompter) -> None:
    work, search = _pages(win)
    win.open_path(work)
    win.open_path(search)
    win.editors.split("right", work)
    win.editors.split("down", search)
    left = win.editors.panes[0]
    left.setCurrentIndex(0)
    _close(qtbot, win)
    state = small_home / ".suzent" / "workspace.json"
    assert state.is_file() and not list(win.services.layout.notebook_dir.rglob("workspace.json"))
    assert json.loads(state.read_text(encoding="utf-8"))["root"]["split"] == "right"
    services = _open_services(small_home)
    again = _window(qtbot, services, prompter)
    try:
        panes = again.editors.panes
        assert [_shown(p) for p in again.editors._pane_order()] == [["Work", "Vector Search"], ["Work"], ["Vector Search"]]
        assert panes[0].current_editor().path == work
        outer = again.editors.top
        assert outer.orientation() == Qt.Orientation.Horizontal and outer.count() == 2
        assert outer.widget(1).orientation() == Qt.Orientation.Vertical  # the right side is split down
        assert again.editors.current_editor().path == search  # the pane focused at close
        assert again.center.currentWidget() is again.editors  # no welcome page over restored tabs
    finally:
        _close(qtbot, again)
        run(qtbot, services.shutdown())


def test_a_broken_layout_file_opens_a_new_window(qtbot, small_home, small_services, prompter) -> None:
    state = small_home / ".suzent" / "workspace.json"
    state.parent.mkdir(parents=True, exist_ok=True)
    state.write_text("{not json", encoding="utf-8")
    window = _window(qtbot, small_services, prompter)
    try:
        assert window.editors.count() == 0 and window.center.currentWidget() is window.welcome
    finally:
        _close(qtbot, window)


def test_split_with_no_page_open_makes_no_empty_pane(qtbot, win) -> None:
    win.actions_by_name["split_right"].trigger()
    assert len(win.editors.panes) == 1 and win.center.currentWidget() is win.welcome


def _work_left_search_right(win):
    """Work in a left pane, Vector Search in a right one: (Work's path, left, right, Work's editor)."""
    work, search = _pages(win)
    win.open_path(work)
    win.editors.split("right", search)
    left, right = win.editors.panes
    return work, left, right, left.current_editor()


def _conflicted(qtbot, win, editor, path: Path) -> str:
    """``editor`` typed into, then its file changed by another program: a pending conflict. The disk text."""
    editor.source.moveCursor(editor.source.textCursor().MoveOperation.End)
    qtbot.keyClicks(editor.source, "Mine.")
    theirs = path.read_text(encoding="utf-8") + "Theirs.\n"
    path.write_text(theirs, encoding="utf-8")
    with qtbot.waitSignal(editor.conflict_raised, timeout=WAIT_MS):
        win.editors.on_file_changed(path)  # as the watcher reports it
    return theirs


def test_a_conflicted_tab_moved_right_keeps_its_text_its_conflict_and_keep_mine(qtbot, win) -> None:
    work, left, right, editor = _work_left_search_right(win)
    theirs = _conflicted(qtbot, win, editor, work)
    mine = editor.text()

    _drop(right, 0, 0, QPoint(right.width() - 5, right.height() // 2))  # onto the right pane's right edge

    qtbot.waitUntil(lambda: win.editors.focused.current_editor() is editor, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: len(win.editors.panes) == 2, timeout=WAIT_MS)  # the emptied left pane goes
    search_pane, work_pane = win.editors._pane_order()
    assert _shown(search_pane) == ["Vector Search"] and _shown(work_pane) == ["Work"]
    assert _left(work_pane).x() > _left(search_pane).x() + 100
    assert editor.text() == mine and editor.dirty and editor.conflict == theirs
    assert work.read_text(encoding="utf-8") == theirs  # the move saved nothing
    qtbot.waitUntil(editor.conflict_bar.isVisible, timeout=WAIT_MS)  # the question still shows
    editor.source.undo()  # the undo history came along
    assert not editor.text().endswith("Mine.")
    editor.source.redo()

    with qtbot.waitSignal(win.editors.page_saved, timeout=WAIT_MS) as saved:
        qtbot.mouseClick(editor.conflict_bar.keep_button, Qt.MouseButton.LeftButton)
        assert editor.conflict is None and not editor.conflict_bar.isVisible()
        assert win.editors.save_all() == []
    assert saved.args == [work, editor.initiator] and work.read_text(encoding="utf-8") == mine


def test_a_conflicted_tab_moved_into_a_pane_keeps_reload_and_compare(qtbot, win) -> None:
    from suzent_desktop.ui.page.editor import CompareDialog

    work, left, right, editor = _work_left_search_right(win)
    theirs = _conflicted(qtbot, win, editor, work)

    _drop(right, 0, 0, QPoint(40, right.height() // 2))  # into the right pane

    qtbot.waitUntil(lambda: _shown(right) == ["Vector Search", "Work"], timeout=WAIT_MS)
    assert right.current_editor() is editor and editor.conflict == theirs and editor.text().endswith("Mine.")
    qtbot.mouseClick(editor.conflict_bar.compare_button, Qt.MouseButton.LeftButton)
    dialog = editor.findChild(CompareDialog)
    qtbot.waitUntil(lambda: dialog is not None and dialog.isVisible(), timeout=WAIT_MS)
    assert "+" + editor.text().splitlines()[-1] in dialog.findChildren(QPlainTextEdit)[0].toPlainText()
    dialog.reject()  # Cancel: the question stays
    assert editor.conflict == theirs and editor.conflict_bar.isVisible()

    qtbot.mouseClick(editor.conflict_bar.reload_button, Qt.MouseButton.LeftButton)
    assert editor.text() == theirs and not editor.dirty and editor.conflict is None
    assert work.read_text(encoding="utf-8") == theirs


def test_a_conflicted_tab_moved_onto_its_own_page_takes_the_place_of_the_clean_copy(qtbot, win) -> None:
    work, _ = _pages(win)
    win.open_path(work)
    copy = win.editors.split(split_editors.RIGHT)  # the same page beside, clean
    left, right = win.editors.panes
    editor = left.current_editor()
    theirs = _conflicted(qtbot, win, editor, work)
    assert not copy.dirty and copy.text() == theirs  # the copy reloaded quietly

    assert win.editors.move_tab(left, 0, right) is editor

    assert right.editors() == [editor] and editor.conflict == theirs and editor.text().endswith("Mine.")
    assert work.read_text(encoding="utf-8") == theirs
    qtbot.waitUntil(lambda: len(win.editors.panes) == 1, timeout=WAIT_MS)


def test_a_conflicted_tab_moved_beside_a_conflicted_copy_hears_its_save(qtbot, win) -> None:
    work, _ = _pages(win)
    win.open_path(work)
    copy = win.editors.split(split_editors.RIGHT)
    left, right = win.editors.panes
    editor = left.current_editor()
    copy.source.moveCursor(copy.source.textCursor().MoveOperation.End)
    qtbot.keyClicks(copy.source, "Copy.")  # the copy has unsaved words of its own
    theirs = _conflicted(qtbot, win, editor, work)
    assert copy.conflict == theirs

    assert win.editors.move_tab(left, 0, right) is editor

    assert right.editors() == [copy, editor]  # neither tab closed: each holds words the file does not
    assert copy.text().endswith("Copy.") and editor.text().endswith("Mine.") and work.read_text(encoding="utf-8") == theirs
    qtbot.mouseClick(copy.conflict_bar.keep_button, Qt.MouseButton.LeftButton)
    assert copy.save()
    win.editors.on_file_changed(work, copy.initiator)  # the watcher's echo of the copy's save
    assert editor.conflict == copy.text() and editor.text().endswith("Mine.")  # the question is about the new text
    qtbot.waitUntil(lambda: len(win.editors.panes) == 1, timeout=WAIT_MS)
    assert win.editors.layout_state()["root"]["children"] == [{"tabs": ["3_Personal/Work.md"], "current": 0}]  # once


def test_a_conflicted_tab_moved_right_comes_back_at_the_next_start_as_on_disk(qtbot, small_home, win, prompter) -> None:
    work, left, right, editor = _work_left_search_right(win)
    theirs = _conflicted(qtbot, win, editor, work)
    assert win.editors.move_tab(left, 0, right, split_editors.RIGHT) is editor  # right of Vector Search
    qtbot.waitUntil(lambda: len(win.editors.panes) == 2, timeout=WAIT_MS)
    _close(qtbot, win)  # closing without saving, as asked
    state = json.loads((small_home / ".suzent" / "workspace.json").read_text(encoding="utf-8"))
    assert [pane["tabs"] for pane in state["root"]["children"]] == [["2_Wiki/Concepts/Vector Search.md"],
                                                                     ["3_Personal/Work.md"]]
    assert state["focused"] == 1 and work.read_text(encoding="utf-8") == theirs
    services = _open_services(small_home)
    again = _window(qtbot, services, prompter)
    try:
        assert [_shown(p) for p in again.editors._pane_order()] == [["Vector Search"], ["Work"]]
        restored = again.editors.current_editor()
        assert restored.path == work and restored.text() == theirs and restored.conflict is None
    finally:
        _close(qtbot, again)
        run(qtbot, services.shutdown())


def test_a_links_context_menu_opens_it_to_the_right(qtbot, win) -> None:
    from PySide6.QtGui import QTextCursor
    from PySide6.QtWidgets import QMenu

    work, search = _pages(win)
    editor = win.editors.open(work)
    block = next(b for b in _blocks(editor.source.document()) if "[[Vector Search]]" in b.text())
    cursor = QTextCursor(block)
    cursor.setPosition(block.position() + block.text().index("Vector") + 2)
    pos = editor.source.cursorRect(cursor).center()
    menu = QMenu()
    editor.add_link_actions(menu, pos)
    beside = next(a for a in menu.actions() if a.text() == "Open link to the right")
    beside.trigger()
    left, right = win.editors.panes
    assert _shown(left) == ["Work"] and _shown(right) == ["Vector Search"]
    plain = QMenu()
    editor.add_link_actions(plain, editor.source.cursorRect(QTextCursor(editor.source.document().firstBlock())).center())
    assert not any("Open link" in a.text() for a in plain.actions())  # not on a link: no link entries


def _blocks(document):
    block = document.firstBlock()
    while block.isValid():
        yield block
        block = block.next()


def test_a_split_halves_the_pane_it_splits(qtbot, win) -> None:
    work, search = _pages(win)
    win.open_path(work)
    win.editors.split("right", search)
    left, right = win.editors.panes
    qtbot.waitUntil(lambda: right.width() > 100, timeout=WAIT_MS)
    assert abs(left.width() - right.width()) <= 12
    win.editors.split("down", work)
    _, _, below = win.editors.panes
    qtbot.waitUntil(lambda: below.height() > 100, timeout=WAIT_MS)
    assert abs(right.height() - below.height()) <= 12 and abs(left.width() - below.width()) <= 12


def test_a_save_in_a_pane_without_focus_names_its_editor_so_the_focused_copy_reloads(qtbot, win) -> None:
    work, _ = _pages(win)
    win.open_path(work)
    left = win.editors.current_editor()
    right = win.editors.split(split_editors.RIGHT)  # the same page beside, focused
    assert left is not None and right is not None and right is not left
    assert win.editors.current_editor() is right
    left.set_text(left.text() + "\nWritten in the left pane.\n")
    seen = []
    win.services.bridge.changed.connect(seen.append)

    assert win.editors.save_all() == []  # as the window does when it closes

    assert [c.initiator for c in seen if c.pages == {work}] == [left.initiator]
    qtbot.waitUntil(lambda: "Written in the left pane." in right.text(), timeout=WAIT_MS)


def test_a_tab_moved_to_another_pane_keeps_its_editor_and_undo_history(qtbot, win) -> None:
    work, left, right, editor = _work_left_search_right(win)
    before = editor.text()
    editor.source.moveCursor(editor.source.textCursor().MoveOperation.End)
    qtbot.keyClicks(editor.source, "Typed before the move")

    moved = win.editors.move_tab(left, 0, right)

    assert moved is editor and right.current_editor() is editor and _shown(right) == ["Vector Search", "Work"]
    assert editor.source.document().isUndoAvailable()
    editor.source.undo()
    assert "Typed before the move" not in editor.text() and editor.text() == before
    editor.source.redo()
    assert editor.text().endswith("Typed before the move")
    qtbot.waitUntil(lambda: len(win.editors.panes) == 1, timeout=WAIT_MS)  # the emptied pane goes
    with qtbot.waitSignal(win.editors.page_saved, timeout=WAIT_MS) as saved:  # saved by the pane it moved to
        assert win.editors.save_all() == []
    assert saved.args == [work, editor.initiator] and work.read_text(encoding="utf-8").endswith("Typed before the move")
