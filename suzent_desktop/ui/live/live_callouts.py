"""Callouts in Live Preview: their family's icon before the title, and folding as in Obsidian.

``> [!note]- Title`` starts folded (its body lines hidden), ``> [!note]+ Title`` open; a click
on the chevron after the title (or on the icon) folds or unfolds it in the view, the file's
``-``/``+`` untouched, and the choice holds while the page is open (as Reading view does). A
callout without a sign cannot fold. Only the callouts whose title line was just styled are
looked at, so a keystroke elsewhere costs nothing here.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from PySide6.QtCore import QByteArray, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPolygonF, QTextBlock, QTextCursor
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QPlainTextEdit

from suzent_desktop.ui.live.live_syntax import CALLOUT_FAMILIES, QUOTE_RE

ICON_ROOM = 16.0  # extra advance given to the hidden "[" so the icon has its place before the title


def icon_name(code: int) -> str:
    """The icon file of a colour family (``code`` from :func:`live_syntax.callout_code`)."""
    return "callout-" + CALLOUT_FAMILIES[max(1, min(code, len(CALLOUT_FAMILIES))) - 1][0]


@lru_cache(maxsize=64)
def callout_icon(code: int, colour: str, size: int) -> QImage:
    """The family's icon from the app's set, stroked in the family's colour."""
    path = resources.files("suzent_desktop.resources").joinpath("icons", f"{icon_name(code)}.svg")
    svg = path.read_text(encoding="utf-8").replace("#000000", colour)
    renderer = QSvgRenderer(QByteArray(svg.encode("utf-8")))
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    return image


def draw_chevron(painter: QPainter, box: QRectF, is_open: bool, colour: QColor) -> None:
    """▾ when open, ▸ when folded, inside ``box``."""
    c, r = box.center(), min(box.width(), box.height()) * 0.28
    if is_open:
        points = [QPointF(c.x() - r, c.y() - r * 0.5), QPointF(c.x() + r, c.y() - r * 0.5), QPointF(c.x(), c.y() + r * 0.7)]
    else:
        points = [QPointF(c.x() - r * 0.5, c.y() - r), QPointF(c.x() - r * 0.5, c.y() + r), QPointF(c.x() + r * 0.7, c.y())]
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(colour)
    painter.drawPolygon(QPolygonF(points))


def body_blocks(title: QTextBlock) -> list[QTextBlock]:
    """The quoted lines under a callout's title line: its body."""
    found = []
    block = title.next()
    while block.isValid() and QUOTE_RE.match(block.text()):
        found.append(block)
        block = block.next()
    return found


class CalloutFolds:
    """Which foldable callouts are folded in one editor, and their body lines hidden or shown."""

    def __init__(self, editor: QPlainTextEdit) -> None:
        self.editor = editor
        self.chosen: dict[str, bool] = {}  # title line's text → open, as the user left it
        self.enabled = True  # Source mode shows every line

    def is_open(self, title_text: str, sign: str) -> bool:
        return self.chosen.get(title_text, sign != "-") if sign else True

    def toggle(self, title: QTextBlock, sign: str) -> None:
        self.chosen[title.text()] = not self.is_open(title.text(), sign)
        self.apply([title], lambda _text: sign)

    def apply(self, titles: list[QTextBlock], sign_of) -> None:  # noqa: ANN001 - text -> "-", "+" or ""
        """Hide or show the bodies of these callouts (titles no longer callouts show theirs)."""
        document = self.editor.document()
        first = last = None
        for title in titles:
            if not title.isValid():
                continue
            sign = sign_of(title.text())
            hide = self.enabled and sign is not None and not self.is_open(title.text(), sign or "")
            for block in body_blocks(title):
                if block.isVisible() == hide:
                    block.setVisible(not hide)
                    first = block if first is None or block.position() < first.position() else first
                    last = block if last is None or block.position() > last.position() else last
        if first is None or last is None:
            return
        # Lay the changed lines out again without telling listeners the text changed: it did not.
        blocked = document.blockSignals(True)
        try:
            start = first.previous().position() if first.previous().isValid() else first.position()
            document.markContentsDirty(start, last.position() + last.length() - start)
        finally:
            document.blockSignals(blocked)
        self._cursor_out_of_hidden_lines()
        self.editor.viewport().update()

    def show_all(self) -> None:
        """Source mode: every body line shown again (the choices are kept for Live Preview)."""
        document = self.editor.document()
        block, changed = document.firstBlock(), False
        while block.isValid():
            if not block.isVisible() and QUOTE_RE.match(block.text()):
                block.setVisible(True)
                changed = True
            block = block.next()
        if changed:
            blocked = document.blockSignals(True)
            try:
                document.markContentsDirty(0, document.characterCount())
            finally:
                document.blockSignals(blocked)

    def _cursor_out_of_hidden_lines(self) -> None:
        cursor = self.editor.textCursor()
        block = cursor.block()
        if block.isVisible():
            return
        while block.isValid() and not block.isVisible():
            block = block.previous()
        if block.isValid():
            moved = QTextCursor(block)
            moved.movePosition(QTextCursor.MoveOperation.EndOfBlock)
            self.editor.setTextCursor(moved)
