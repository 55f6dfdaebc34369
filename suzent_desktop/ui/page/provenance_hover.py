"""Rest the mouse on a bullet in the editor, and a tip says where it came from.

After :data:`HOVER_DELAY_MS` on the same bullet line (of a page or MEMORY.md), its provenance
card is built off the GUI thread (one read of the files shared with the Source pane's cards)
and a short tip shows the turn behind it: who said it, when, the sentence. A click on the line
shows the whole card in the Source pane. Moving to another line, typing or leaving hides it.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, QPoint, QTimer, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QPlainTextEdit, QToolTip

HOVER_DELAY_MS = 600
_BULLET_STARTS = ("- ", "* ", "+ ")


def tip_html(card: Any) -> str:
    """The card in a few lines: each source's turn (speaker, time, sentence), or how it was typed."""
    if card.typed_by_hand == "editor":
        return "<i>Typed by hand: no log fact stands behind this line.</i>"
    lines: list[str] = []
    for source in card.sources[:3]:
        turn = source.turn
        if turn is None:
            lines.append(f"{html.escape(source.date)}: <i>typed by hand</i>")
        else:
            lines.append(f"<b>{html.escape(turn.speaker)}</b>, {html.escape(turn.ts[:16].replace('T', ' '))}: "
                         f"«{html.escape(turn.sentence)}»")
    more = len(card.sources) - 3
    if more > 0:
        lines.append(f"and {more} more (the Source pane shows them)")
    return "<br>".join(lines)


class ProvenanceHover(QObject):
    """The hover tip of one editor's bullets."""

    shown = Signal(str)  # the tip's HTML, once shown

    def __init__(self, editor: QPlainTextEdit, path: Callable[[], Path],
                 card: Callable[[Path, int], Coroutine[Any, Any, Any]],
                 submit: Callable[[Coroutine[Any, Any, Any]], Any]) -> None:
        super().__init__(editor)
        self.editor, self.path, self.card, self.submit = editor, path, card, submit
        self.line = 0
        self.pos = QPoint()
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(HOVER_DELAY_MS)
        self.timer.timeout.connect(self._fire)
        editor.viewport().setMouseTracking(True)
        editor.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        kind = event.type()
        if kind == QEvent.Type.MouseMove and isinstance(event, QMouseEvent):
            self.hover(event.position().toPoint())
        elif kind in (QEvent.Type.Leave, QEvent.Type.KeyPress, QEvent.Type.Wheel):
            self.timer.stop()
            self.line = 0
        return super().eventFilter(watched, event)

    def hover(self, pos: QPoint) -> None:
        block = self.editor.cursorForPosition(pos).block()
        line = block.blockNumber() + 1 if block.text().lstrip().startswith(_BULLET_STARTS) else 0
        if line != self.line:
            self.line = line
            QToolTip.hideText()
            self.timer.stop()
        self.pos = pos
        if line and not self.timer.isActive():
            self.timer.start()

    def _fire(self) -> None:
        if self.line:
            self.submit(self._show(self.line))

    async def _show(self, line: int) -> None:
        try:
            card = await self.card(self.path(), line)
        except ValueError:
            return
        if line != self.line:
            return  # the mouse moved on meanwhile
        text = tip_html(card)
        QToolTip.showText(self.editor.viewport().mapToGlobal(self.pos), text, self.editor.viewport())
        self.shown.emit(text)
