"""Tables in Live Preview: drawn as a grid of aligned cells while the cursor is outside them.

A table is a run of lines starting with ``|`` whose second line is the delimiter row
(``|---|:--:|``), as in Obsidian. While no line of it is being edited, its source text is laid
out but not written (no width change, so the lines keep their place) and the cells are drawn
over it, each column as wide as its widest cell (narrowed to the pane, with the words cut
short, when the table is wider than the pane), the header bold, the delimiter row a rule. With
the cursor on any of its lines, the whole table shows its source, aligned or not, as typed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen, QTextBlock

from suzent_desktop.core.files.language.markdown import plain_text

DELIMITER_RE = re.compile(r"^\s*\|?\s*:?-{1,}:?\s*(?:\|\s*:?-{1,}:?\s*)*\|?\s*$")
_SPLIT_RE = re.compile(r"(?<!\\)\|")
MAX_ROWS = 2000  # a walk to a table's edges stops here
CELL_PAD = 8.0


def is_row(text: str) -> bool:
    return text.lstrip().startswith("|")


def cells(text: str) -> list[str]:
    """A row's cells as the reader sees them (markup dropped, ``\\|`` kept as a bar)."""
    inner = text.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [_plain(part.strip().replace("\\|", "|")) for part in _SPLIT_RE.split(inner)]


@lru_cache(maxsize=4096)
def _plain(cell: str) -> str:
    return plain_text(cell) if any(mark in cell for mark in "*_[`~=%<") else cell


def table_range(block: QTextBlock) -> tuple[int, int] | None:
    """(first, last) block numbers of the table ``block`` is a row of, or None."""
    if not block.isValid() or not is_row(block.text()):
        return None
    first = block
    for _ in range(MAX_ROWS):
        previous = first.previous()
        if not previous.isValid() or not is_row(previous.text()):
            break
        first = previous
    second = first.next()
    if not second.isValid() or not DELIMITER_RE.match(second.text()) or "-" not in second.text():
        return None
    last = block
    for _ in range(MAX_ROWS):
        following = last.next()
        if not following.isValid() or not is_row(following.text()):
            break
        last = following
    return first.blockNumber(), last.blockNumber()


@dataclass(frozen=True)
class Grid:
    """Column edges of a table drawn at one width."""

    rows: tuple[tuple[str, ...], ...]  # cells per row, the delimiter row empty
    edges: tuple[float, ...]  # x of each column's left edge, then the right edge of the last


@lru_cache(maxsize=256)
def grid(texts: tuple[str, ...], family: str, size: float, width: float) -> Grid:
    """Columns as wide as their widest cell (header bold), scaled down to ``width`` if need be."""
    rows = tuple(() if number == 1 else tuple(cells(text)) for number, text in enumerate(texts))
    columns = max((len(row) for row in rows), default=0)
    plain, bold = QFont(family), QFont(family)
    plain.setPointSizeF(size)
    bold.setPointSizeF(size)
    bold.setBold(True)
    metrics = [QFontMetricsF(bold), QFontMetricsF(plain)]
    widths = [0.0] * columns
    for number, row in enumerate(rows):
        for column, cell in enumerate(row):
            advance = metrics[0 if number == 0 else 1].horizontalAdvance(cell)
            widths[column] = max(widths[column], advance + 2 * CELL_PAD)
    total = sum(widths) or 1.0
    if total > width:
        widths = [w * width / total for w in widths]
    edges = [0.0]
    for w in widths:
        edges.append(edges[-1] + w)
    return Grid(rows, tuple(edges))


def paint_row(painter: QPainter, row_number: int, table: Grid, rect: QRectF, left: float,
              font: QFont, colours: dict[str, str]) -> None:
    """Row ``row_number`` of ``table`` in the row's ``rect``; ``left`` is where text starts."""
    edges = [left + x for x in table.edges]
    rule = QColor(colours["rule"])
    if row_number == 1:  # the delimiter row: the header's bottom rule
        painter.setPen(QPen(rule, 2))
        y = rect.center().y()
        painter.drawLine(QPointF(edges[0], y), QPointF(edges[-1], y))
        return
    if row_number == 0:
        painter.fillRect(QRectF(edges[0], rect.top(), edges[-1] - edges[0], rect.height()), QColor(colours["code_bg"]))
    painter.setPen(QPen(rule, 1))
    for x in edges:
        painter.drawLine(QPointF(x, rect.top()), QPointF(x, rect.bottom()))
    painter.drawLine(QPointF(edges[0], rect.bottom()), QPointF(edges[-1], rect.bottom()))
    if row_number == 0:
        painter.drawLine(QPointF(edges[0], rect.top()), QPointF(edges[-1], rect.top()))
    cell_font = QFont(font)
    cell_font.setBold(row_number == 0)
    painter.setFont(cell_font)
    painter.setPen(QColor(colours["text"]))
    metrics = QFontMetricsF(cell_font)
    for column, cell in enumerate(table.rows[row_number]):
        if column + 1 >= len(edges):
            break
        box = QRectF(edges[column] + CELL_PAD, rect.top(), edges[column + 1] - edges[column] - 2 * CELL_PAD, rect.height())
        shown = metrics.elidedText(cell, Qt.TextElideMode.ElideRight, max(0.0, box.width()))
        painter.drawText(box, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, shown)
