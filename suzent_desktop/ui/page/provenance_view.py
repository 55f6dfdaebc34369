"""The provenance card: the turns behind a memory, drawn the same way for a page line, a hit and MEMORY.md.

The card is built by the engine (``manager.reviewing.card``) off the GUI thread; this module
only draws it: for each source fact, who said it and when, the sentence highlighted in the
turn, one turn either side, and "Open in transcript", which shows the day's whole conversation
with that turn in view. The other pages holding the same fact are links that open them.
"""

from __future__ import annotations

import asyncio
import html
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QUrl, Signal
from PySide6.QtWidgets import QDialog, QTextBrowser, QVBoxLayout, QWidget

from suzent_desktop.ui.panes.common import HIGHLIGHT_STYLE

TRANSCRIPT_SCHEME = "transcript"
PAGE_SCHEME = "page"
_MUTED = "color: palette(placeholder-text)"


def _when(ts: str) -> str:
    return html.escape(ts[:16].replace("T", " "))


def _said(turn: Any) -> str:
    """The turn's side that holds the sentence, the sentence highlighted."""
    text = turn.user if turn.speaker == "user" else turn.assistant
    start, end = turn.start, turn.end
    if not (0 <= start < end <= len(text)):
        return html.escape(text)
    return (html.escape(text[:start]) + f'<span style="{HIGHLIGHT_STYLE}">{html.escape(text[start:end])}</span>'
            + html.escape(text[end:]))


def _context(label: str, side: Any) -> str:
    if side is None:
        return ""
    return (f'<div style="{_MUTED}; margin-left: 12px">{label} ({_when(side.ts)}) user: '
            f"{html.escape(side.user)}</div>")


def card_html(card: Any) -> str:
    """The card as HTML for a QTextBrowser."""
    where = f"{card.path}:{card.line}" if card.path and card.line else card.path or card.kind
    out = [f"<p><b>{html.escape(card.text)}</b><br><span style=\"{_MUTED}\">{html.escape(where)}</span></p>"]
    if card.typed_by_hand == "editor":
        out.append("<p><i>Typed by hand in a page: no daily-log fact stands behind this line.</i></p>")
    for number, source in enumerate(card.sources):
        out.append(f'<p style="margin-bottom:2px">From the log of {html.escape(source.date)}: '
                   f"{html.escape(source.fact)}</p>")
        turn = source.turn
        if turn is None:
            note = "Typed by hand (remember)." if source.typed_by_hand else "Its conversation turn is not kept."
            out.append(f"<p><i>{note}</i></p>")
            continue
        out.append(_context("before", turn.before))
        out.append(f'<div style="margin-left: 12px"><b>{html.escape(turn.speaker)}</b>, {_when(turn.ts)}: '
                   f"{_said(turn)}</div>")
        out.append(_context("after", turn.after))
        out.append(f'<p><a href="{TRANSCRIPT_SCHEME}:{number}">Open in transcript</a></p>')
    if card.other_pages:
        links = ", ".join(f'<a href="{PAGE_SCHEME}:{i}">{html.escape(p.page)}:{p.line}</a>'
                          for i, p in enumerate(card.other_pages))
        out.append(f"<p>Also on: {links}</p>")
    return "\n".join(out)


class CardLoader:
    """Cards built from one read of the files, shared by every card until the files change.

    Stepping through a long review list asks for a card per key press: building each from
    nothing would start a worker per press, all reading the same files and competing with the
    window for the interpreter. One build is shared instead (a later request waits for it)."""

    def __init__(self, manager: Any) -> None:
        self.manager = manager
        self._index: asyncio.Future[Any] | None = None

    def invalidate(self) -> None:
        self._index = None

    async def card(self, path: Path | None, line: int | None, text: str = "", *, hit: Any = None) -> Any:
        if self._index is None:
            self._index = asyncio.ensure_future(asyncio.to_thread(self.manager.reviewing.provenance))
        index = await asyncio.shield(self._index)
        return await asyncio.to_thread(self.manager.reviewing.card, path, line, text, hit=hit, index=index)


class CardBrowser(QTextBrowser):
    """A card, with its links handled: pages open in the editor, a turn opens its transcript."""

    open_page = Signal(object, object)  # (absolute path, line)

    def __init__(self, notebook: Path, memory_md: Path, turns_of: Callable[[str], list[Any]],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.notebook, self.memory_md, self.turns_of = notebook, memory_md, turns_of
        self.card: Any = None
        self.transcript: TranscriptDialog | None = None
        self.setOpenLinks(False)
        self.anchorClicked.connect(self._clicked)

    def show_card(self, card: Any) -> None:
        self.card = card
        self.setHtml(card_html(card))

    def show_message(self, text: str) -> None:
        self.card = None
        self.setHtml(f"<p><i>{html.escape(text)}</i></p>")

    def open_transcript(self, number: int) -> TranscriptDialog | None:
        turn = self.card.sources[number].turn if self.card is not None else None
        if turn is None:
            return None
        date = Path(turn.path).stem.partition("@")[0]
        self.transcript = TranscriptDialog(self.turns_of(date), turn.id, date, self)
        self.transcript.show()
        return self.transcript

    def _clicked(self, url: QUrl) -> None:
        scheme, _, rest = url.toString().partition(":")
        if self.card is None or not rest.isdigit():
            return
        if scheme == TRANSCRIPT_SCHEME:
            self.open_transcript(int(rest))
        elif scheme == PAGE_SCHEME:
            place = self.card.other_pages[int(rest)]
            path = self.memory_md if place.page == "MEMORY.md" else self.notebook / place.page
            self.open_page.emit(path, place.line)


class TranscriptDialog(QDialog):
    """A day's conversation, word for word, with one turn marked and scrolled into view."""

    def __init__(self, turns: list[Any], turn_id: str, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Transcript {title}")
        self.resize(640, 520)
        self.browser = QTextBrowser(self)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser)
        self.browser.setHtml(self._html(turns, turn_id))
        self.browser.scrollToAnchor(f"t{turn_id}")

    @staticmethod
    def _html(turns: list[Any], turn_id: str) -> str:
        out: list[str] = []
        for turn in turns:
            mark = f' style="{HIGHLIGHT_STYLE}"' if turn.id == turn_id else ""
            out.append(f'<a name="t{html.escape(turn.id)}"></a><p{mark}><b>{_when(turn.ts)}</b><br>'
                       f"<b>user:</b> {html.escape(turn.user)}<br><b>assistant:</b> {html.escape(turn.assistant)}</p>")
        return "\n".join(out)
