"""Tables wider than Reading view's pane are held to its width.

Qt's rich text cannot scroll one block sideways: a table wider than the pane widened the whole
page, so every line scrolled with it. After a page is laid out, each table that does not fit is
set to the pane's width and its cells wrap at words (header cells too: the page is laid out again
without the style that keeps headers on one line). A table that fits keeps its own width, as in
Obsidian.
"""

from __future__ import annotations

from PySide6.QtGui import QTextDocument, QTextFrame, QTextLength, QTextTable

HEADERS_ON_ONE_LINE = "white-space: nowrap;"  # in the preview's style for table headers


def _tables(frame: QTextFrame) -> list[QTextTable]:
    found: list[QTextTable] = []
    for child in frame.childFrames():
        if isinstance(child, QTextTable):
            found.append(child)
        found.extend(_tables(child))
    return found


def fit_wide_tables(document: QTextDocument, width: float) -> int:
    """Hold each table wider than ``width`` to 100% of the page; returns how many were."""
    layout = document.documentLayout()
    document.size()  # lay the page out at its width first
    fitted = 0
    for table in _tables(document.rootFrame()):
        if layout.frameBoundingRect(table).right() <= width + 1:
            continue
        fmt = table.format()
        fmt.setWidth(QTextLength(QTextLength.Type.PercentageLength, 99))
        table.setFormat(fmt)
        fitted += 1
    return fitted
