"""Editing as an Obsidian user types: lists that continue on Enter, Tab that indents, brackets and
marks in pairs, a click that follows a link, a URL pasted over words, lines moved with Alt+Up/Down,
a checkbox toggled with Ctrl+Enter; each one undo step."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, Qt
from PySide6.QtGui import QGuiApplication, QTextCursor
from ui_support import WAIT_MS, open_at_end

CTRL = Qt.KeyboardModifier.ControlModifier
ALT = Qt.KeyboardModifier.AltModifier


@pytest.fixture
def page(qtbot, loop, tmp_path: Path):
    """An editor on Page.md in a vault that also holds Two.md."""
    (tmp_path / "Page.md").write_text("start\n", encoding="utf-8")
    (tmp_path / "Two.md").write_text("# Two\n\nThe second page.\n", encoding="utf-8")
    editor = open_at_end(qtbot, tmp_path, tmp_path / "Page.md", (900, 700))
    yield editor
    editor.area.deleteLater()


def _load(page, text: str, line: int, column: int | None = None, anchor: tuple[int, int] | None = None) -> None:
    """The page holds ``text``; the cursor at (line, column) (the line's end by default)."""
    page.source.setPlainText(text)
    block = page.source.document().findBlockByNumber(line)
    cursor = QTextCursor(block)
    if anchor is not None:
        start = page.source.document().findBlockByNumber(anchor[0])
        cursor.setPosition(start.position() + anchor[1])
    cursor.setPosition(block.position() + (len(block.text()) if column is None else column),
                       QTextCursor.MoveMode.KeepAnchor if anchor is not None else QTextCursor.MoveMode.MoveAnchor)
    page.source.setTextCursor(cursor)


def _text_and_cursor(page) -> str:
    """The text with "|" where the cursor is."""
    text = page.text()
    position = page.source.textCursor().position()
    return text[:position] + "|" + text[position:]


def _undo_restores(page, before: str) -> None:
    page.source.undo()
    assert page.text() == before


# -- Enter ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "line", "after"), [
    ("- apples", 0, "- apples\n- |"),
    ("* apples", 0, "* apples\n* |"),
    ("- [x] done", 0, "- [x] done\n- [ ] |"),
    ("\t- nested", 0, "\t- nested\n\t- |"),
    ("> - quoted item", 0, "> - quoted item\n> - |"),
    ("> a quote", 0, "> a quote\n> |"),
    ("1. one\n2. two\n3. three", 0, "1. one\n2. |\n3. two\n4. three"),
    ("3) three", 0, "3) three\n4) |"),
    # an empty item ends the list, or outdents it when nested
    ("- apples\n- ", 1, "- apples\n|"),
    ("- apples\n- [ ] ", 1, "- apples\n|"),
    ("- a\n\t- ", 1, "- a\n- |"),
    ("1. a\n\t1. ", 1, "1. a\n2. |"),
    ("> quote\n> ", 1, "> quote\n|"),
    ("-", 0, "-\n|"),  # a dash alone is no item: kept, no new one
])
def test_enter_continues_a_list_a_task_and_numbers(qtbot, page, text, line, after) -> None:
    _load(page, text, line)
    qtbot.keyClick(page.source, Qt.Key.Key_Return)
    assert _text_and_cursor(page) == after
    _undo_restores(page, text)


def test_enter_in_an_item_carries_the_rest_and_shift_enter_and_code_do_not_continue(qtbot, page) -> None:
    _load(page, "- apples and pears", 0, len("- apples"))
    qtbot.keyClick(page.source, Qt.Key.Key_Return)
    assert _text_and_cursor(page) == "- apples\n- | and pears"
    _load(page, "- apples", 0)
    qtbot.keyClick(page.source, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)  # a line, no new item
    assert _text_and_cursor(page) == "- apples\n|"
    assert page.source.blockCount() == 2
    _load(page, "```\n- in code\n```", 1)
    qtbot.keyClick(page.source, Qt.Key.Key_Return)
    assert _text_and_cursor(page) == "```\n- in code\n|\n```"


# -- Tab, Shift+Tab -----------------------------------------------------------------------------------------
def test_tab_and_shift_tab_indent_and_outdent_items_and_renumber(qtbot, page) -> None:
    text = "1. one\n2. two\n3. three"
    _load(page, text, 1)
    qtbot.keyClick(page.source, Qt.Key.Key_Tab)
    assert _text_and_cursor(page) == "1. one\n\t1. two|\n2. three"
    qtbot.keyClick(page.source, Qt.Key.Key_Backtab)
    assert _text_and_cursor(page) == "1. one\n2. two|\n3. three"
    page.source.undo()
    assert page.text() == "1. one\n\t1. two\n2. three"
    _undo_restores(page, text)


def test_tab_indents_every_selected_line_and_keeps_its_usual_meaning_on_prose(qtbot, page) -> None:
    _load(page, "- a\n- b\n- c", 2, 1, anchor=(1, 0))
    qtbot.keyClick(page.source, Qt.Key.Key_Tab)
    assert page.text() == "- a\n\t- b\n\t- c"
    qtbot.keyClick(page.source, Qt.Key.Key_Backtab)
    assert page.text() == "- a\n- b\n- c"
    _load(page, "plain", 0)
    qtbot.keyClick(page.source, Qt.Key.Key_Tab)
    assert page.text() == "plain\t"


# -- pairs ---------------------------------------------------------------------------------------------------
def test_brackets_and_marks_close_in_pairs_and_the_closer_is_typed_over(qtbot, page) -> None:
    _load(page, "", 0)
    qtbot.keyClicks(page.source, "[[")
    assert _text_and_cursor(page) == "[[|]]"
    qtbot.keyClicks(page.source, "Two]]")
    assert _text_and_cursor(page) == "[[Two]]|"
    qtbot.keyClicks(page.source, " and **")
    assert _text_and_cursor(page) == "[[Two]] and **|**"
    qtbot.keyClicks(page.source, "bold**")
    assert _text_and_cursor(page) == "[[Two]] and **bold**|"
    qtbot.keyClicks(page.source, " `")
    assert _text_and_cursor(page) == "[[Two]] and **bold** `|`"
    qtbot.keyClicks(page.source, "x` (")
    assert _text_and_cursor(page) == "[[Two]] and **bold** `x` (|)"
    qtbot.keyClick(page.source, Qt.Key.Key_Backspace)
    assert _text_and_cursor(page) == "[[Two]] and **bold** `x` |"


def test_a_mark_typed_over_a_selection_wraps_it_and_a_bullet_star_stays_single(qtbot, page) -> None:
    _load(page, "a word here", 0, 6, anchor=(0, 2))
    qtbot.keyClicks(page.source, "**")
    assert page.text() == "a **word** here"
    assert page.source.textCursor().selectedText() == "word"
    _load(page, "", 0)
    qtbot.keyClicks(page.source, "* item")
    assert page.text() == "* item"
    _load(page, "", 0)
    qtbot.keyClicks(page.source, "```")
    assert page.text() == "```"


# -- clicks ---------------------------------------------------------------------------------------------------
def _point(page, line: int, column: int):
    block = page.source.document().findBlockByNumber(line)
    cursor = QTextCursor(block)
    cursor.setPosition(block.position() + column)
    return page.source.cursorRect(cursor).center()


def test_a_click_follows_a_link_in_this_tab_and_ctrl_click_in_a_new_tab(qtbot, page) -> None:
    area = page.area
    _load(page, "see [[Two|the second page]] here\n\nend", 2)
    column = page.text().index("second")
    qtbot.mouseClick(page.source.viewport(), Qt.MouseButton.LeftButton, CTRL, _point(page, 0, column))
    qtbot.waitUntil(lambda: area.count() == 2, timeout=WAIT_MS)
    assert [e.path.name for e in area.editors()] == ["Page.md", "Two.md"]
    area.close_tab(1)
    qtbot.mouseClick(page.source.viewport(), Qt.MouseButton.LeftButton, pos=_point(page, 0, column))
    qtbot.waitUntil(lambda: area.current_editor() is not page, timeout=WAIT_MS)
    assert [e.path.name for e in area.editors()] == ["Two.md"]  # opened in place of the page, saved first
    assert "[[Two|" in page.path.read_text(encoding="utf-8")
    area.go_back()
    assert area.current_editor().path.name == "Page.md"


def test_a_click_on_a_link_being_edited_places_the_cursor(qtbot, page) -> None:
    _load(page, "see [[Two|the second page]] here\n\nend", 0, 12)  # the cursor in the link: its source shows
    column = page.text().index("second") + 2
    qtbot.mouseClick(page.source.viewport(), Qt.MouseButton.LeftButton, pos=_point(page, 0, column))
    assert page.area.current_editor() is page
    assert page.source.textCursor().positionInBlock() in (column, column + 1)


# -- paste, move, toggle ---------------------------------------------------------------------------------------
def test_pasting_a_url_over_a_selection_makes_a_link_in_one_step(qtbot, page) -> None:
    _load(page, "read the manual first", 0, 15, anchor=(0, 9))
    mime = QMimeData()
    mime.setText("https://example.org/manual")
    page.source.insertFromMimeData(mime)
    assert page.text() == "read the [manual](https://example.org/manual) first"
    _undo_restores(page, "read the manual first")
    QGuiApplication.clipboard().setText("plain words")
    _load(page, "read the manual first", 0, 15, anchor=(0, 9))
    page.source.paste()
    assert page.text() == "read the plain words first"


def test_alt_up_and_down_move_lines_with_the_cursor(qtbot, page) -> None:
    text = "- one\n- two\n- three"
    _load(page, text, 2, 3)
    qtbot.keyClick(page.source, Qt.Key.Key_Up, ALT)
    assert _text_and_cursor(page) == "- one\n- t|hree\n- two"
    qtbot.keyClick(page.source, Qt.Key.Key_Up, ALT)
    assert _text_and_cursor(page) == "- t|hree\n- one\n- two"
    qtbot.keyClick(page.source, Qt.Key.Key_Down, ALT)
    assert _text_and_cursor(page) == "- one\n- t|hree\n- two"
    page.source.undo()
    assert page.text() == "- three\n- one\n- two"
    _load(page, text, 1, 0, anchor=(0, 0))  # a selection of the first line moves as a whole
    qtbot.keyClick(page.source, Qt.Key.Key_Down, ALT)
    assert page.text() == "- two\n- one\n- three"
    assert page.source.textCursor().selectedText() == "- one\u2029"  # the line and its end, as selected


def test_ctrl_enter_toggles_a_checkbox_and_makes_tasks(qtbot, page) -> None:
    _load(page, "- [ ] water\n- beans\nplain", 0, 3)
    qtbot.keyClick(page.source, Qt.Key.Key_Return, CTRL)
    assert page.text() == "- [x] water\n- beans\nplain"
    qtbot.keyClick(page.source, Qt.Key.Key_Return, CTRL)
    assert page.text() == "- [ ] water\n- beans\nplain"
    _load(page, "- [ ] water\n- beans\nplain", 2, 2, anchor=(1, 0))
    qtbot.keyClick(page.source, Qt.Key.Key_Return, CTRL)
    assert page.text() == "- [ ] water\n- [ ] beans\n- [ ] plain"
    _undo_restores(page, "- [ ] water\n- beans\nplain")
