"""Closing a tab whose file changed on disk while it held unsaved edits asks whose words stay."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMessageBox
from ui_support import WAIT_MS

from suzent_desktop.ui.dialogs import prompts
from suzent_desktop.ui.workspace.editor_area import EditorArea

MINE = "# One\n\nmy unsaved words\n"
THEIRS = "# One\n\nwritten by another program\n"


@pytest.fixture
def page_file(tmp_path: Path) -> Path:
    (tmp_path / "vault").mkdir()
    path = tmp_path / "vault" / "One.md"
    path.write_text("# One\n\nfirst\n", encoding="utf-8")
    return path


@pytest.fixture
def area(qtbot, loop, page_file: Path):
    widget = EditorArea(page_file.parent)
    widget.show()
    yield widget
    widget.deleteLater()


def _conflicted(area: EditorArea, path: Path):
    editor = area.open(path)
    editor.set_text(MINE)
    path.write_text(THEIRS, encoding="utf-8")
    editor.on_disk_changed()
    assert editor.conflict is not None
    return editor


def _answer(monkeypatch, choice: str) -> list[str]:
    asked: list[str] = []
    monkeypatch.setattr(prompts, "ask_keep_or_discard", lambda _parent, name: asked.append(name) or choice)
    return asked


def test_cancel_keeps_the_tab_its_words_and_its_conflict(qtbot, area, page_file, monkeypatch) -> None:
    editor = _conflicted(area, page_file)
    asked = _answer(monkeypatch, prompts.CANCEL)
    area.tabCloseRequested.emit(area.indexOf(editor))  # the tab's ×
    assert asked == ["One.md"]
    assert area.editors() == [editor] and editor.text() == MINE and editor.conflict_bar.isVisibleTo(editor)
    assert page_file.read_text(encoding="utf-8") == THEIRS


@pytest.mark.parametrize(("choice", "left_on_disk"), [(prompts.KEEP_MINE, MINE), (prompts.DISCARD_MINE, THEIRS)])
def test_keep_mine_saves_over_the_disk_discard_mine_leaves_it(
        qtbot, area, page_file, monkeypatch, choice: str, left_on_disk: str) -> None:
    editor = _conflicted(area, page_file)
    _answer(monkeypatch, choice)
    area.tabCloseRequested.emit(area.indexOf(editor))
    assert area.editors() == []
    assert page_file.read_text(encoding="utf-8") == left_on_disk


def test_a_tab_without_a_conflict_closes_saved_without_asking(qtbot, area, page_file, monkeypatch) -> None:
    editor = area.open(page_file)
    editor.set_text(MINE)
    asked = _answer(monkeypatch, prompts.CANCEL)
    area.tabCloseRequested.emit(area.indexOf(editor))
    assert asked == [] and area.editors() == []
    assert page_file.read_text(encoding="utf-8") == MINE


def _notes(window) -> Path:
    return window.services.layout.notebook_dir / "3_Personal" / "Lantern Notes.md"


def _conflict_in_window(qtbot, window):
    _notes(window).write_text("# Places\n\nfirst\n", encoding="utf-8")
    editor = window.editors.open(_notes(window))
    editor.set_text("# Places\n\nmy unsaved words\n")
    _notes(window).write_text("# Places\n\nwritten elsewhere\n", encoding="utf-8")
    editor.on_disk_changed()
    assert editor.conflict is not None
    return editor


def test_ctrl_w_asks_too(qtbot, window, monkeypatch) -> None:
    editor = _conflict_in_window(qtbot, window)
    close = next(a for a in window.findChildren(QAction) if a.shortcut() == QKeySequence("Ctrl+W"))
    _answer(monkeypatch, prompts.CANCEL)
    close.trigger()
    assert window.editors.editor_for(editor.path) is editor and editor.conflict is not None
    _answer(monkeypatch, prompts.KEEP_MINE)
    close.trigger()
    assert window.editors.editor_for(editor.path) is None
    assert "my unsaved words" in _notes(window).read_text(encoding="utf-8")


def test_closing_the_window_asks_and_cancel_keeps_it_open(qtbot, window, prompter) -> None:
    editor = _conflict_in_window(qtbot, window)
    prompter.conflict_answers = ["cancel"]
    assert not window.close()
    assert window.isVisible() and editor.text() == "# Places\n\nmy unsaved words\n"
    assert ("Unsaved edits", "Lantern Notes.md") in prompter.asked
    assert "written elsewhere" in _notes(window).read_text(encoding="utf-8")
    prompter.conflict_answers = ["keep"]
    with qtbot.waitSignal(window.closed, timeout=WAIT_MS):
        assert window.close()
    assert "my unsaved words" in _notes(window).read_text(encoding="utf-8")


def test_a_conflicted_page_deleted_on_disk_keeps_its_tab_and_asks(qtbot, area, page_file, monkeypatch) -> None:
    editor = _conflicted(area, page_file)
    page_file.unlink()
    area.on_file_deleted(page_file)
    assert area.editors() == [editor]  # the words stay on screen
    _answer(monkeypatch, prompts.KEEP_MINE)
    area.tabCloseRequested.emit(area.indexOf(editor))
    assert area.editors() == [] and page_file.read_text(encoding="utf-8") == MINE


def test_closing_the_last_tab_of_a_pane_asks_and_cancel_keeps_the_pane(qtbot, window, monkeypatch) -> None:
    editor = _conflict_in_window(qtbot, window)
    window.editors.split("right", editor.path)
    pane = window.editors.focused
    twin = pane.editor_for(editor.path)
    assert len(window.editors.panes) == 2 and twin is not editor
    twin.set_text("# Places\n\nwords typed beside\n")
    _notes(window).write_text("# Places\n\nwritten elsewhere again\n", encoding="utf-8")
    twin.on_disk_changed()
    assert twin.conflict is not None
    _answer(monkeypatch, prompts.CANCEL)
    pane.tabCloseRequested.emit(pane.indexOf(twin))
    assert len(window.editors.panes) == 2 and pane.editors() == [twin]
    _answer(monkeypatch, prompts.DISCARD_MINE)
    pane.tabCloseRequested.emit(pane.indexOf(twin))
    qtbot.waitUntil(lambda: len(window.editors.panes) == 1, timeout=WAIT_MS)
    assert "written elsewhere again" in _notes(window).read_text(encoding="utf-8")


@pytest.mark.parametrize(("button", "choice"), [("Keep mine", prompts.KEEP_MINE),
                                                 ("Discard mine", prompts.DISCARD_MINE), ("Cancel", prompts.CANCEL)])
def test_the_message_box_names_the_page_and_maps_its_buttons(qtbot, monkeypatch, button: str, choice: str) -> None:
    shown: list[str] = []

    def answer(box: QMessageBox) -> int:
        shown.append(box.text())
        next(b for b in box.buttons() if b.text().replace("&", "") == button).click()
        return 0

    monkeypatch.setattr(QMessageBox, "exec", answer)
    assert prompts.ask_keep_or_discard(None, "One.md") == choice
    assert shown == ["One.md changed on disk while you had unsaved edits."]
