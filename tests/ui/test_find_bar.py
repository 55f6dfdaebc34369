"""Find and replace in the open note (Ctrl+F / Ctrl+H), driven by real key presses."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from suzent_desktop.ui.editing.find_bar import find_spans
from suzent_desktop.ui.workspace.editor_area import EditorArea

TEXT = "Cat and cat.\nA category of cats: CAT, cat!\n"


@pytest.fixture
def editor(qtbot, loop, tmp_path: Path):
    root = tmp_path / "vault"
    root.mkdir()
    (root / "Pets.md").write_text(TEXT)
    area = EditorArea(root)
    area.show()
    yield area.open(root / "Pets.md")
    area.deleteLater()


def selected(editor) -> tuple[int, int]:
    cursor = editor.source.textCursor()
    return cursor.selectionStart(), cursor.selectionEnd()


@pytest.mark.parametrize(
    ("case", "word", "count"),
    [(False, False, 6), (True, False, 4), (False, True, 4), (True, True, 2)],
)
def test_match_count_follows_case_and_whole_word(qtbot, editor, case, word, count) -> None:
    bar = editor.show_find()
    qtbot.keyClicks(bar.find_input, "cat")
    if case:
        qtbot.mouseClick(bar.case_box, Qt.MouseButton.LeftButton)
    if word:
        qtbot.mouseClick(bar.word_box, Qt.MouseButton.LeftButton)
    assert bar.match_count() == count
    assert bar.count_label.text() == f"1 of {count}"
    assert len(find_spans(TEXT, "cat", case=case, whole_word=word)) == count


def test_enter_and_shift_enter_walk_the_matches_and_wrap(qtbot, editor) -> None:
    bar = editor.show_find()
    qtbot.keyClicks(bar.find_input, "cat")
    qtbot.mouseClick(bar.word_box, Qt.MouseButton.LeftButton)
    assert selected(editor) == (0, 3)
    qtbot.keyClick(bar.find_input, Qt.Key.Key_Return)
    assert selected(editor) == (8, 11) and bar.count_label.text() == "2 of 4"
    qtbot.keyClick(bar.find_input, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert selected(editor) == (0, 3)
    qtbot.keyClick(bar.find_input, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert bar.count_label.text() == "4 of 4"
    assert editor.text()[slice(*selected(editor))] == "cat"
    qtbot.keyClick(bar.find_input, Qt.Key.Key_Escape)
    assert not bar.isVisible()


def test_no_match_says_so(qtbot, editor) -> None:
    bar = editor.show_find()
    qtbot.keyClicks(bar.find_input, "dog")
    assert bar.match_count() == 0 and bar.count_label.text() == "No matches"


def test_replace_one_then_all_is_one_undo(qtbot, editor) -> None:
    bar = editor.show_find(replace=True)
    assert bar.replace_input.isVisible()
    qtbot.keyClicks(bar.find_input, "cat")
    qtbot.mouseClick(bar.case_box, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(bar.replace_input, "dog")
    qtbot.keyClick(bar.replace_input, Qt.Key.Key_Return)  # replaces the first lower-case "cat"
    assert editor.text() == "Cat and dog.\nA category of cats: CAT, cat!\n"
    assert bar.count_label.text() == "1 of 3"
    qtbot.mouseClick(bar.replace_all_button, Qt.MouseButton.LeftButton)
    assert editor.text() == "Cat and dog.\nA dogegory of dogs: CAT, dog!\n"
    assert bar.count_label.text() == "Replaced 3" and bar.match_count() == 0
    editor.source.undo()
    assert editor.text() == "Cat and dog.\nA category of cats: CAT, cat!\n"
    assert editor.dirty


def test_find_opens_with_the_selection_and_read_only_has_no_replace(qtbot, loop, tmp_path) -> None:
    root = tmp_path / "vault"
    (root / "archive").mkdir(parents=True)
    (root / "archive" / "Old.md").write_text("old words, old ways\n")
    area = EditorArea(root, read_only_dirs=(root / "archive",))
    area.show()
    editor = area.open(root / "archive" / "Old.md")
    cursor = editor.source.textCursor()
    cursor.setPosition(0)
    cursor.setPosition(3, cursor.MoveMode.KeepAnchor)
    editor.source.setTextCursor(cursor)
    bar = editor.show_find(replace=True)
    assert bar.find_input.text() == "old" and bar.match_count() == 2
    assert not bar.replace_input.isVisible() and bar.replace_all() == 0
    assert editor.text() == "old words, old ways\n"
    area.deleteLater()
