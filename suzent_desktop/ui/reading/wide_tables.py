"""Tables wider than Reading view's pane are held to its width.

Qt's rich text cannot scroll one block sideways: a table wider than the pane widened the whole
page, so every line scrolled with it. After a page is laid out, each table that does not fit is
set to the pane's width and its cells wrap at words (header cells too: the page is laid out
again without the style that keeps headers on one line). Only a table with more columns than
whole words fit in has its words broken. A table that fits keeps its own width, as in Obsidian.
"""

from __future__ import annotations

from PySide6.QtGui import QTextBlockFormat, QTextCursor, QTextDocument, QTextFrame, QTextLength, QTextTable

HEADERS_ON_ONE_LINE = "white-space: nowrap;"  # in the preview's style for table headers


def _tables(frame: QTextFrame) -> list[QTextTable]:
    found: list[QTextTable] = []
    for child in frame.childFrames():
        if isinstance(child, QTextTable):
            found.append(child)
        found.extend(_tables(child))
    return found


def _wide(document: QTextDocument, width: float) -> list[QTextTable]:
    layout = document.documentLayout()
    document.size()  # lay the page out at its width first
    return [table for table in _tables(document.rootFrame()) if layout.frameBoundingRect(table).right() > width]


def _break_words(table: QTextTable) -> None:
    cursor = QTextCursor(table.firstCursorPosition())
    cursor.setPosition(table.lastCursorPosition().position(), QTextCursor.MoveMode.KeepAnchor)
    breakable = QTextBlockFormat()
    breakable.setNonBreakableLines(False)
    cursor.mergeBlockFormat(breakable)


def fit_wide_tables(document: QTextDocument, width: float, *, break_words: bool = False) -> int:
    """Hold each table wider than ``width`` to the page's width; returns how many were."""
    wide = _wide(document, width)
    for table in wide:
        fmt = table.format()
        fmt.setWidth(QTextLength(QTextLength.Type.PercentageLength, 99))  # 100% and its border overflow
        table.setFormat(fmt)
        if break_words:
            _break_words(table)
    return len(wide)


def set_html_fitted(document: QTextDocument, html: str, set_html) -> None:  # noqa: ANN001 - the view's setHtml
    """``set_html(html)`` with wide tables held to the page's width, trying whole words first."""
    set_html(html)
    if not fit_wide_tables(document, document.textWidth()) or HEADERS_ON_ONE_LINE not in html:
        return
    set_html(html.replace(HEADERS_ON_ONE_LINE, ""))  # held tables' headers wrap at words too
    fit_wide_tables(document, document.textWidth())
    if document.idealWidth() > document.textWidth():  # more columns than whole words fit in
        set_html(html)
        fit_wide_tables(document, document.textWidth(), break_words=True)
