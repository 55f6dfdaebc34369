"""Live Preview and Source mode scroll by pixels: the text and the page's head move exactly with
the scroll bar (the wheel, a drag, keys, after a resize), the head never covers the text, and
the last line of a page that nearly fits one screen is in reach."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QTextCursor, QWheelEvent
from PySide6.QtWidgets import QApplication, QScrollBar
from ui_support import WAIT_MS, open_at_end

from suzent_desktop.ui.page.pixel_scroll import PixelScroll

PAGE = ("---\ntags:\n  - garden\n  - summer\nnote: a value\n---\n"
        "# Beans\n\nNo heading here: the page starts with a paragraph.\n\n"
        + "".join(f"Line {n} of a long page{' that wraps across the pane' * (n % 4)}.\n\n" for n in range(160))
        + "## The end\n\nThe last line.\n")


@pytest.fixture(params=["live", "source"])
def page(request, qtbot, loop, tmp_path: Path):
    root = tmp_path / "vault"
    root.mkdir()
    (root / "Beans.md").write_text(PAGE, encoding="utf-8")
    editor = open_at_end(qtbot, root, root / "Beans.md", (900, 700))
    editor.views.set_view(request.param)
    qtbot.waitUntil(lambda: "note" in editor.views.properties.fields or request.param == "source", timeout=WAIT_MS)
    qtbot.waitUntil(lambda: len(vertical_bars(editor)) == 1 and PixelScroll.of(editor.source).settled,
                    timeout=WAIT_MS)  # laid out, taller than the pane
    shown_bar(editor).setValue(0)
    yield editor
    editor.area.deleteLater()


def vertical_bars(editor) -> list[QScrollBar]:
    return [bar for bar in editor.source.findChildren(QScrollBar)
            if bar.orientation() == Qt.Orientation.Vertical and bar.isVisible()]


def shown_bar(editor) -> QScrollBar:
    """The vertical scroll bar a person sees beside the page's text."""
    bars = vertical_bars(editor)
    assert len(bars) == 1
    return bars[0]


def line_top(editor, number: int) -> int:
    """Where line ``number`` of the file is drawn, in the editor's own coordinates."""
    source = editor.source
    rect = source.cursorRect(QTextCursor(source.document().findBlockByNumber(number)))
    return source.viewport().mapTo(source, rect.topLeft()).y()


def middle_line(editor) -> int:
    """The number of a line in the middle of what is shown."""
    source = editor.source
    middle = source.mapTo(source.viewport(), QPoint(40, source.height() // 2))
    return source.cursorForPosition(middle).blockNumber()


def head_top(editor) -> int | None:
    head = editor.views.head
    return head.geometry().top() if head.isVisible() else None


def assert_moves_with_bar(editor, to: int) -> None:
    """Scrolling the bar to ``to`` moves a line, and the head while it shows, by the bar's change.

    The line is one shown in the lower of the two positions (Qt places a line above its first
    shown one only roughly)."""
    bar, head = shown_bar(editor), editor.views.head
    before = bar.value()
    if to > before:
        bar.setValue(to)
        line = middle_line(editor)
        bar.setValue(before)
    else:
        line = middle_line(editor)
    top, head_before = line_top(editor, line), head_top(editor)
    bar.setValue(to)
    moved = bar.value() - before
    assert moved == to - before or to > bar.maximum()
    assert line_top(editor, line) == top - moved
    if head_before is not None and head.isVisible():
        assert head.geometry().top() == head_before - moved
    assert_head_clear(editor)


def assert_head_clear(editor) -> None:
    """The head shows exactly while the bar is within its height, and never over a line of text."""
    bar, head, source = shown_bar(editor), editor.views.head, editor.source
    assert head.isVisible() == (bar.value() < head.height())
    if head.isVisible():
        assert head.geometry().top() == source.frameWidth() - bar.value()
        assert source.viewport().geometry().top() >= head.geometry().bottom() + 1
        assert line_top(editor, middle_line(editor)) > head.geometry().bottom()


def test_the_text_and_the_head_move_exactly_with_the_scroll_bar(page) -> None:
    height = page.views.head.height()
    for to in (7, 30, height - 5, height + 9, height + 40, 700, 705, 1500, 600, 3):
        assert_moves_with_bar(page, to)


def test_the_wheel_moves_text_and_head_by_what_the_bar_moves(page) -> None:
    bar, viewport = shown_bar(page), page.source.viewport()
    for notch in (-120, -120, -120, -120, -120, 120):
        before, line = bar.value(), middle_line(page)
        top, head_before = line_top(page, line), head_top(page)
        where = QPointF(viewport.width() / 2, viewport.height() / 2)
        event = QWheelEvent(where, viewport.mapToGlobal(where), QPoint(0, 0), QPoint(0, notch),
                            Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
        QApplication.sendEvent(viewport, event)
        moved = bar.value() - before
        assert moved != 0 and line_top(page, line) == top - moved
        if head_before is not None and head_top(page) is not None:
            assert head_top(page) == head_before - moved
        assert_head_clear(page)


@pytest.mark.parametrize("keys", [
    [(Qt.Key.Key_PageDown, Qt.KeyboardModifier.NoModifier)] * 3,
    [(Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)],
    [(Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier), (Qt.Key.Key_Home, Qt.KeyboardModifier.ControlModifier)],
    [(Qt.Key.Key_Down, Qt.KeyboardModifier.NoModifier)] * 40,
    [(Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier), (Qt.Key.Key_PageUp, Qt.KeyboardModifier.NoModifier)]
    + [(Qt.Key.Key_Up, Qt.KeyboardModifier.NoModifier)] * 30,
], ids=["page down", "ctrl+end", "ctrl+home", "down off screen", "up off screen"])
def test_keys_keep_the_cursor_in_sight_and_the_bar_exact(qtbot, page, keys) -> None:
    source = page.source
    source.moveCursor(QTextCursor.MoveOperation.Start)
    source.setFocus()
    for key, modifiers in keys:
        qtbot.keyClick(source, key, modifiers)
    cursor = source.cursorRect()
    top = source.viewport().mapTo(source, cursor.topLeft()).y()
    assert 0 <= top and top + cursor.height() <= source.height()  # the cursor's line is whole in sight
    assert_head_clear(page)
    if keys[-1][0] == Qt.Key.Key_Home:
        assert shown_bar(page).value() == 0  # the page from its title
    bar = shown_bar(page)
    assert_moves_with_bar(page, bar.value() + 11 if bar.value() + 11 <= bar.maximum() else bar.value() - 11)


def test_after_a_resize_the_text_still_moves_with_the_bar(qtbot, page) -> None:
    bar = shown_bar(page)
    bar.setValue(400)
    page.area.resize(620, 560)
    qtbot.waitUntil(lambda: page.source.width() <= 620 and PixelScroll.of(page.source).settled, timeout=WAIT_MS)
    assert_moves_with_bar(page, bar.value() + 25)
    assert_moves_with_bar(page, 40)
    assert_moves_with_bar(page, 10)


@pytest.mark.parametrize("lines", [13, 15, 17, 19])
@pytest.mark.parametrize("view", ["live", "source"])
def test_every_line_of_a_page_that_nearly_fits_is_in_reach(qtbot, loop, tmp_path: Path, lines: int, view: str) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "Near.md").write_text("---\ntags: [a]\nnote: b\n---\n" + "".join(
        f"Line {n}\n\n" for n in range(lines)), encoding="utf-8")
    page = open_at_end(qtbot, root, root / "Near.md", (900, 700))
    page.views.set_view(view)
    qtbot.waitUntil(lambda: "note" in page.views.properties.fields or view == "source", timeout=WAIT_MS)
    source = page.source
    last = source.blockCount() - 2

    def last_line_in_sight() -> bool:
        top = line_top(page, last)
        head = page.views.head
        below_head = not head.isVisible() or top > head.geometry().bottom()
        return below_head and top + source.cursorRect().height() <= source.height()

    QApplication.processEvents()  # laid out
    for bar in vertical_bars(page):
        bar.setValue(bar.maximum())
        assert last_line_in_sight()
        assert_head_clear(page)
        bar.setValue(0)
    source.moveCursor(QTextCursor.MoveOperation.Start)
    source.setFocus()
    qtbot.keyClick(source, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    assert last_line_in_sight()
    page.area.deleteLater()
