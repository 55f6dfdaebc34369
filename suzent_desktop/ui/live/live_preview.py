"""Live Preview: one pane where markdown reads as it will look, with the markup of the element
under the cursor (or selection) shown, as in Obsidian.

- :class:`LivePreviewHighlighter` hides markup with a format of no width, sizes headings and
  styles emphasis, links, tags and code, line by line (a keystroke re-highlights one line);
- :class:`LiveEditor` (the editor widget) draws what text cannot be: task checkboxes that toggle
  on a click, bullets, rules, callout bands, and images and note embeds in place, in the room a
  tall invisible character reserves for them; a click follows a link (Ctrl/Cmd+click: in a new
  tab), a click on a tag runs ``tag:`` search; keys edit lists and pair brackets
  (:mod:`suzent_desktop.ui.editing.editing_keys`).

Images are decoded, and embedded notes read and rendered, on worker threads; the editor is
repainted when they are in. :mod:`suzent_desktop.ui.page.views` switches between this,
Source mode and Reading view.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from PySide6.QtCore import QEvent, QMimeData, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QImageReader,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QTextBlock,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import QPlainTextDocumentLayout, QPlainTextEdit, QWidget

from suzent_desktop.core.files.language.markdown import Link
from suzent_desktop.ui.base import theme
from suzent_desktop.ui.editing.auto_pairs import paste_link
from suzent_desktop.ui.editing.editing_keys import handle_key
from suzent_desktop.ui.live.highlighter import CALLOUT_SHIFT, NORMAL, MarkdownHighlighter, prose_state
from suzent_desktop.ui.live.live_callouts import ICON_ROOM, CalloutFolds, callout_icon, draw_chevron
from suzent_desktop.ui.live.live_syntax import (
    CALLOUT_FAMILIES,
    CALLOUT_RE,
    HEADING_SCALE,
    QUOTE_RE,
    LineDecor,
    callout_code,
    parse_line,
)
from suzent_desktop.ui.live.live_tables import grid, is_row, paint_row, table_range
from suzent_desktop.ui.live.note_embeds import PREVIEW_WORKER, NoteEmbeds
from suzent_desktop.ui.reading.markdown_render import _CALLOUT_COLOURS
from suzent_desktop.ui.reading.preview import _CACHE, ImageCache, _read_scaled, target_size

EMBED_PAD = 6  # room above and below an image or embed drawn in place
EAGER_LINES = 150  # lines past the first visible one styled at once when a whole page is highlighted
NEAR_BEFORE = 20  # lines above the first visible one restyled at once for a new look
DEFERRED_CHUNK = 20  # lines styled at a time after that (a few ms)
DEFERRED_SLICE_S = 0.008  # a turn of the event loop styles chunks for this long at most
NOTE_EMBED_MAX = 420  # tallest a note embed is drawn; the rest is behind a click
_MAYBE_BLOCK = frozenset("`~>")  # first characters (after indent) of a line that may open or close a fence, or quote
HIDDEN_POINTS = 0.5  # hidden markup's font size (the layout refuses 0)
HIDDEN_SPACING = 100 / 64  # percent of the advance hidden markup keeps: Qt's smallest step above 0

Resolver = Callable[[Link], Path | None]
_TEXT, _HIDDEN, _SHOWN = 0, 1, 2  # a character: text, hidden markup, markup shown (the cursor's element)
_FOLLOW_KEYS = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.MetaModifier  # Ctrl/Cmd+click


def document_blocks(document: QTextDocument, numbers: list[int]) -> list[QTextBlock]:
    found = [document.findBlockByNumber(number) for number in numbers]
    return [block for block in found if block.isValid()]


@lru_cache(maxsize=8192)
def decor_of(text: str) -> LineDecor:
    """The line's decoration, cached by its text: repaints and re-highlights ask again and again."""
    return parse_line(text)


def _colours(dark: bool) -> dict[str, str]:
    if dark:
        return {"text": "#dcddde", "muted": "#8b8e94", "link": "#8ab4f8", "tag": "#b4a7ff", "tag_bg": "#34304a",
                "code": "#e6b673", "code_bg": "#2b2d31", "mark": "#5c4d12", "rule": "#44474d", "box": "#9a9ca1"}
    return {"text": "#1f2328", "muted": "#6e7781", "link": "#0b57d0", "tag": "#5b3fd1", "tag_bg": "#ece8fb",
            "code": "#a15c00", "code_bg": "#f3f4f6", "mark": "#fff3a3", "rule": "#d0d7de", "box": "#6e7781"}


def _family_colours(code: int, dark: bool) -> tuple[QColor, QColor]:
    """(accent, band) of a callout family (``code`` from :func:`callout_code`)."""
    key = CALLOUT_FAMILIES[max(0, min(code, len(CALLOUT_FAMILIES)) - 1)][0]
    accent, light, deep = _CALLOUT_COLOURS.get(key, _CALLOUT_COLOURS["note"])
    return QColor(accent), QColor(deep if dark else light)


class LivePreviewHighlighter(MarkdownHighlighter):
    """The source highlighter, plus Live Preview's hiding and sizing while ``live`` is on."""

    def __init__(self, document: QTextDocument, *, live: bool = True) -> None:
        self.live = live
        # Lines the cursor or selection is on → the columns it covers there: the markup of the
        # elements it touches shows, and the marks of the line itself (see LineDecor.revealed).
        self.active: dict[int, tuple[int, int]] = {}
        self.reserve: Callable[[QTextBlock, LineDecor], int] = lambda _block, _decor: 0
        self._formats: dict[tuple, QTextCharFormat] = {}
        self._base = 0.0  # the body font's size, which headings are sized from
        # While a whole page is (re)highlighted, lines past the first screens get the source look
        # at once and their Live Preview look soon after, a chunk per turn of the event loop.
        self.eager_until: int | None = None
        self.deferred: list[QTextBlock] = []
        self.near: Callable[[], int] = lambda: 0  # the first visible line, to style first
        self.titles: list[QTextBlock] = []  # quotes' first lines just styled: callouts that may fold
        self.on_titles: Callable[[list[QTextBlock]], None] = lambda _blocks: None
        super().__init__(document)
        self._later = QTimer(self)  # goes with the highlighter, which goes with the editor's document
        self._later.setSingleShot(True)
        self._later.setInterval(0)
        self._later.timeout.connect(self._style_deferred)
        self._titles_timer = QTimer(self)
        self._titles_timer.setSingleShot(True)
        self._titles_timer.setInterval(0)
        self._titles_timer.timeout.connect(self._titles_styled)

    def _titles_styled(self) -> None:
        titles, self.titles = self.titles, []
        self.on_titles(titles)

    def set_dark(self, dark: bool) -> None:
        self.colours = _colours(dark)
        self._formats = {}
        super().set_dark(dark)

    def set_live(self, live: bool) -> None:
        self.live = live
        self._formats = {}
        self.restyle_from(self.near())

    def restyle_from(self, first: int) -> None:
        """A new look for the whole page: the lines in view (from ``first``) are styled now, the
        rest keep their old look until a later slice restyles them, nearest first. A line's old
        look left in place costs no new layout, so switching a long page's mode is no stall."""
        blocks: list[QTextBlock] = []
        block = self.document().firstBlock()
        while block.isValid():
            blocks.append(block)
            block = block.next()
        start = max(0, first - NEAR_BEFORE)
        self.deferred = blocks[:start] + blocks[first + EAGER_LINES:]
        self.restyle(blocks[start:first + EAGER_LINES])  # a changed block state carries on down by itself
        if self.deferred:
            self._later.start()

    def whole_document(self, work: Callable[[], None], first: int = 0) -> None:
        """Run ``work`` (a load, a re-highlight of every line) styling only the lines near ``first``
        now; the rest are styled after it, a chunk at a time, so a long page opens without a stall."""
        self.eager_until = first + EAGER_LINES
        self.deferred = []
        try:
            work()
        finally:
            self.eager_until = None
        if self.deferred:
            self._later.start()

    def _style_deferred(self) -> None:
        """One slice: the waiting lines nearest the view, a chunk at a time until the slice's time
        is spent (a slow machine styles fewer lines a turn, never a longer turn)."""
        near = self.near()
        self.deferred.sort(key=lambda block: abs(block.blockNumber() - near) if block.isValid() else 0)
        until = time.perf_counter() + DEFERRED_SLICE_S
        while self.deferred and time.perf_counter() < until:
            chunk, self.deferred = self.deferred[:DEFERRED_CHUNK], self.deferred[DEFERRED_CHUNK:]
            self.restyle([block for block in chunk if block.isValid()])
        if self.deferred:
            self._later.start()

    def set_active(self, spans: dict[int, tuple[int, int]]) -> None:
        """Show the markup the cursor or selection touches (and hide it again where it left): only
        the lines whose shown markup changes are styled again."""
        if spans == self.active:
            return
        old, self.active = self.active, spans
        document = self.document()
        changed = {number for number in old.keys() ^ spans.keys()}
        for number in old.keys() & spans.keys():
            if old[number] != spans[number]:
                decor = decor_of(document.findBlockByNumber(number).text())
                if decor.revealed(old[number]) != decor.revealed(spans[number]):
                    changed.add(number)
        for number in list(changed):  # a table shows its source, or its cells, all rows at once
            span = table_range(self.document().findBlockByNumber(number))
            if span is not None:
                changed.update(range(span[0], span[1] + 1))
        self.restyle(document_blocks(self.document(), sorted(changed)))

    def table_edited(self, span: tuple[int, int]) -> bool:
        return any(span[0] <= number <= span[1] for number in self.active)

    def restyle(self, blocks: list[QTextBlock]) -> None:
        """Highlight these blocks again without the document saying its text changed (re-styling
        is no edit: the page must not turn unsaved because the cursor moved)."""
        document = self.document()
        blocked = document.blockSignals(True)
        try:
            for block in blocks:
                self.rehighlightBlock(block)
        finally:
            document.blockSignals(blocked)

    # -- formats ---------------------------------------------------------------------------------
    def _format(self, styles: frozenset[str], heading: int, hidden: bool, active: bool) -> QTextCharFormat:
        base = self._base
        key = (styles, heading, hidden, active, base)  # a heading is sized from the font of the moment
        fmt = self._formats.get(key)
        if fmt is not None:
            return fmt
        fmt = QTextCharFormat()
        c = self.colours
        if heading:
            fmt.setFontPointSize(base * HEADING_SCALE[heading])
            fmt.setFontWeight(QFont.Weight.Bold)
        if "bold" in styles or "callout-title" in styles:
            fmt.setFontWeight(QFont.Weight.Bold)
        if "italic" in styles:
            fmt.setFontItalic(True)
        if "strike" in styles or "done" in styles:
            fmt.setFontStrikeOut(True)
        if "done" in styles or "muted" in styles:
            fmt.setForeground(QColor(c["muted"]))
        if "mark" in styles:
            fmt.setBackground(QColor(c["mark"]))
        if "code" in styles:
            fmt.setFontFamilies(["monospace"])
            fmt.setFontFixedPitch(True)
            fmt.setForeground(QColor(c["code"]))
            fmt.setBackground(QColor(c["code_bg"]))
        if "link" in styles:
            fmt.setForeground(QColor(c["link"]))
            fmt.setFontUnderline(True)
        if "tag" in styles:
            fmt.setForeground(QColor(c["tag"]))
            fmt.setBackground(QColor(c["tag_bg"]))
        if "room" in styles:  # the checkbox's and the bullet's place: drawn over, so not written
            fmt.setForeground(QColor(0, 0, 0, 0))
        if "table" in styles:  # a table's source under the cells drawn over it
            fmt.setForeground(QColor(0, 0, 0, 0))
        if "icon" in styles:  # a callout's "[", widened to hold its icon
            fmt.setForeground(QColor(0, 0, 0, 0))
            fmt.setFontLetterSpacingType(QFont.SpacingType.AbsoluteSpacing)
            fmt.setFontLetterSpacing(ICON_ROOM)
        if hidden:
            if active:
                fmt.setForeground(QColor(c["muted"]))
            else:
                # A tiny font at the smallest spacing Qt keeps (1/64 of the advance): each hidden
                # character takes a fraction of a pixel and never less than nothing, so a long
                # hidden link target cannot pull the text after it back over the word before.
                fmt.setFontPointSize(HIDDEN_POINTS)
                fmt.setFontLetterSpacingType(QFont.SpacingType.PercentageSpacing)
                fmt.setFontLetterSpacing(HIDDEN_SPACING)
                fmt.setForeground(QColor(0, 0, 0, 0))
        self._formats[key] = fmt
        return fmt

    def _spacer(self, height: int, char: str) -> QTextCharFormat:
        """A character of no width whose line is ``height`` pixels tall: room for an image below."""
        font = QFont(self.document().defaultFont())
        font.setPixelSize(100)
        ratio = QFontMetricsF(font).height() / 100
        font.setPixelSize(max(8, round(height / ratio)))
        fmt = QTextCharFormat()
        fmt.setFont(font)
        fmt.setFontLetterSpacingType(QFont.SpacingType.AbsoluteSpacing)
        fmt.setFontLetterSpacing(-QFontMetricsF(font).horizontalAdvance(char))
        fmt.setForeground(QColor(0, 0, 0, 0))
        return fmt

    # -- one line ---------------------------------------------------------------------------------
    def highlightBlock(self, text: str) -> None:  # noqa: N802 - Qt override
        block = self.currentBlock()
        if self.eager_until is not None and block.blockNumber() > self.eager_until:
            self._defer(text, block)
            return
        super().highlightBlock(text)
        if not self.live:
            return
        state = self.currentBlockState()
        if state != NORMAL:
            if state != 2:  # code: monospace, on the band painted behind it
                self.setFormat(0, len(text), self._format(frozenset({"code"}), 0, False, False))
            return
        previous = self.previousBlockState()
        inherited = previous // CALLOUT_SHIFT if previous >= 0 else 0
        self._base = self.document().defaultFont().pointSizeF()  # once a line, not once a run
        decor = decor_of(text)
        code = callout_code(decor.callout_title) if decor.callout_title else (inherited if decor.quote else 0)
        self.setCurrentBlockState(NORMAL + CALLOUT_SHIFT * code)
        span = self.active.get(block.blockNumber())
        active = span is not None
        self._apply(text, decor, span)
        if is_row(text):
            span = table_range(block)
            if span is not None and not self.table_edited(span):
                delimiter = block.blockNumber() == span[0] + 1  # folded to a rule under the header
                self.setFormat(0, len(text), self._format(frozenset({"table"}), 0, delimiter, False))
        if decor.quote and not QUOTE_RE.match(block.previous().text()):  # a quote's first line
            self.titles.append(QTextBlock(block))
            self._titles_timer.start()
        if decor.embed is not None and not active:
            height = self.reserve(block, decor)
            if height > 0 and decor.embed.link.end > decor.embed.link.start:
                start = decor.embed.link.start
                self.setFormat(start, 1, self._spacer(height, text[start]))

    def _defer(self, text: str, block: QTextBlock) -> None:
        """A line past the first screens: only its block state now (fences, front matter, the callout
        it is in), so the lines after it start right; its formats come in a later slice."""
        if text[:1] not in _MAYBE_BLOCK and text.lstrip(" \t")[:1] not in _MAYBE_BLOCK \
                and prose_state(self.previousBlockState()) == NORMAL:
            self.setCurrentBlockState(NORMAL)  # most lines: prose after prose, nothing to track
            self.deferred.append(QTextBlock(block))
            return
        state, _whole = self.line_state(text)
        if self.live and state == NORMAL:
            previous = self.previousBlockState()
            inherited = previous // CALLOUT_SHIFT if previous >= 0 else 0
            quote = QUOTE_RE.match(text)
            callout = CALLOUT_RE.match(text, quote.end()) if quote else None
            state += CALLOUT_SHIFT * (callout_code(callout.group("kind")) if callout else (inherited if quote else 0))
        self.setCurrentBlockState(state)
        self.deferred.append(QTextBlock(block))

    def _apply(self, text: str, decor: LineDecor, cursor: tuple[int, int] | None) -> None:
        """Per character: its styles and whether it is hidden markup (or markup shown, muted, for
        the element under the cursor), then one format per run."""
        size = len(text)
        if not size:
            return
        active = cursor is not None
        styles: list[set[str]] = [set() for _ in range(size)]
        markup = [_TEXT] * size
        revealed = decor.revealed(cursor)
        for span in decor.spans:
            for i in range(max(0, span.start), min(size, span.end)):
                styles[i].add(span.style)
        for a, b, owner in sorted(decor.hidden, key=lambda hide: hide[2] in revealed):  # shown wins
            state = _SHOWN if owner in revealed else _HIDDEN
            for i in range(max(0, a), min(size, b)):
                markup[i] = state
        if decor.task is not None and decor.marker_drawn(cursor):
            for i in range(decor.task[0], min(size, decor.task[0] + 3)):
                styles[i].add("room")
                markup[i] = _TEXT
        elif decor.bullet is not None and decor.marker_drawn(cursor):
            styles[decor.bullet].add("room")
        if decor.callout_at >= 0 and not active:
            styles[decor.callout_at].add("icon")
            markup[decor.callout_at] = _TEXT
        if decor.rule and active:
            markup = [_TEXT] * size
        run_start = 0
        for i in range(1, size + 1):
            if i == size or styles[i] != styles[run_start] or markup[i] != markup[run_start]:
                state = markup[run_start]
                fmt = self._format(frozenset(styles[run_start]), decor.heading, state != _TEXT, state == _SHOWN)
                self.setFormat(run_start, i - run_start, fmt)
                run_start = i


class LineLayout(QPlainTextDocumentLayout):
    """Qt's plain-text layout, told where a change ends in the new text.

    A syntax highlighter marks a line it styled as "its length removed and its length added",
    and the document merges that with the keystroke's own change. The plain-text layout adds
    removed and added characters, reaches past the line's end, and relays and repaints the whole
    viewport on every keystroke. Only what was added is in the document now: counted alone, the
    change stays inside the edited line, which Qt lays out and repaints by itself (the rest of the
    page only when that line's height changed)."""

    painted: dict[int, float] | None = None  # block number → height it was last painted at (set by the editor)

    def documentChanged(self, position: int, removed: int, added: int) -> None:  # noqa: N802 - Qt override
        super().documentChanged(position, 0 if removed and added else removed, added)
        self._repaint_if_taller_or_shorter(position, added)

    def _repaint_if_taller_or_shorter(self, position: int, added: int) -> None:
        """Repaint the page when a re-styled line changed height (a table leaving its source, a
        heading made or unmade). Qt compares the line's height with itself here (its old lines are
        gone by now) and repaints that line alone, leaving the lines below painted where they were."""
        if not self.painted:
            return  # nothing painted yet, or Source mode (its lines never change height this way)
        block = self.document().findBlock(position)
        if position + added > block.position() + block.length() or block.layout().lineCount() == 0:
            return  # several lines: Qt repaints the page itself
        old = self.painted.get(block.blockNumber())
        if old is not None and old != self.blockBoundingRect(block).height():
            self.painted = {}
            self.requestUpdate()


class LiveEditor(QPlainTextEdit):
    """The page's text, in Live Preview or as plain source (``set_live``)."""

    link_clicked = Signal(object, bool)  # (Link, in a new tab: Ctrl/Cmd+click) of a clicked link or embed
    url_clicked = Signal(str)  # a clicked web link's address
    tag_clicked = Signal(str)  # a tag's name, without '#'
    _embed_ready = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        document = QTextDocument(self)
        document.setDocumentLayout(LineLayout(document))
        self.setDocument(document)
        self.live = False
        self.resolve: Resolver = lambda _link: None
        self.render_note: Callable[[Path, str | None, bool], str] = lambda _path, _sub, _dark: ""
        self.css = ""
        self.notes = NoteEmbeds(lambda p, s, d: self.render_note(p, s, d), self._embed_ready.emit)
        self._embed_ready.connect(self.refresh_embeds)
        self._image_pending: set[tuple] = set()
        self._ops: dict[tuple, list[tuple]] = {}  # overlay drawing per (line text, width, edited)
        self.highlighter: LivePreviewHighlighter | None = None
        self.folds = CalloutFolds(self)
        self.cursorPositionChanged.connect(self._track_active)
        self.selectionChanged.connect(self._track_active)

    def setFont(self, font: QFont) -> None:  # type: ignore[override]  # noqa: N802 - given QFonts only
        """The view's font, kept: a style sheet applied again (a theme switch) resets a text
        edit's font to the window's, which shrank the text and every heading sized from it."""
        self._chosen_font = QFont(font)
        super().setFont(font)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        chosen = getattr(self, "_chosen_font", None)
        if event.type() == QEvent.Type.FontChange and chosen is not None and self.font() != chosen:
            super().setFont(chosen)

    def attach(self, highlighter: LivePreviewHighlighter) -> None:
        self.highlighter = highlighter
        highlighter.reserve = self._reserve
        highlighter.near = lambda: self.firstVisibleBlock().blockNumber()
        highlighter.on_titles = lambda titles: self.folds.apply(titles, self._fold_sign)

    @staticmethod
    def _fold_sign(text: str) -> str | None:
        """A callout title's fold sign ("-", "+" or ""), None for a line that is not one."""
        decor = decor_of(text)
        return decor.callout_fold if decor.callout_title is not None else None

    def setPlainText(self, text: str) -> None:  # noqa: N802 - Qt override
        """Load a page: the first screens are styled now, the rest right after (see ``whole_document``)."""
        if self.highlighter is None:
            super().setPlainText(text)
            return
        self.highlighter.whole_document(lambda: super(LiveEditor, self).setPlainText(text))

    def set_live(self, live: bool) -> None:
        self.live = live
        self._ops.clear()
        self.document().documentLayout().painted = None  # type: ignore[attr-defined]  # ours: heights as painted
        self.folds.enabled = live
        if not live:
            self.folds.show_all()
        if self.highlighter is not None:
            self._track_active()
            self.highlighter.set_live(live)
        self.viewport().update()

    # -- which lines are being edited ----------------------------------------------------------------
    def _track_active(self) -> None:
        if self.highlighter is None:
            return
        if not self.live:
            self.highlighter.set_active({})
            return
        cursor = self.textCursor()
        if not cursor.hasSelection():  # typing: the cursor's line alone, found without a search
            self.highlighter.set_active({cursor.blockNumber(): (cursor.positionInBlock(),) * 2})
            return
        document = self.document()
        start, end = document.findBlock(cursor.selectionStart()), document.findBlock(cursor.selectionEnd())
        spans = {number: (0, 1 << 30) for number in range(start.blockNumber() + 1, end.blockNumber())}
        first = cursor.selectionStart() - start.position()
        last = cursor.selectionEnd() - end.position()
        if start.blockNumber() == end.blockNumber():
            spans[start.blockNumber()] = (first, last)
        else:
            spans[start.blockNumber()] = (first, 1 << 30)
            spans[end.blockNumber()] = (0, last)
        self.highlighter.set_active(spans)

    # -- room for what is drawn in place -------------------------------------------------------------
    def fit_width(self) -> int:
        return max(64, self.viewport().width() - 2 * int(self.document().documentMargin()) - 24)

    def _reserve(self, _block: QTextBlock, decor: LineDecor) -> int:
        """Pixels the embed on this line needs (0 when it shows as a link: missing, not a page or image)."""
        embed = decor.embed
        assert embed is not None
        path = self.resolve(embed.link)
        if path is None or not path.is_file():
            return 0
        if embed.image:
            natural = QImageReader(str(path)).size()  # the header only
            if not natural.isValid():
                return 0
            return target_size(natural, embed.width, embed.height, self.fit_width()).height() + 2 * EMBED_PAD
        if path.suffix.lower() != ".md":
            return 0
        doc = self.notes.document(path, embed.link.subpath, self.fit_width() - 16, self.css)
        height = doc.size().height() if doc is not None else 2 * QFontMetricsF(self.font()).height()
        return int(min(height, NOTE_EMBED_MAX)) + 2 * EMBED_PAD + 4

    def refresh_embeds(self) -> None:
        """An embed's page was read: lay out the lines that embed something again."""
        if self.highlighter is None:
            return
        embeds = []
        block = self.document().firstBlock()
        while block.isValid():
            if "![" in block.text() and decor_of(block.text()).embed is not None:
                embeds.append(block)
            block = block.next()
        self.highlighter.restyle(embeds)
        self.viewport().update()

    # -- drawing ---------------------------------------------------------------------------------------------
    def _visible_blocks(self, event: QPaintEvent) -> list[tuple[QTextBlock, QRectF]]:
        """The blocks the repainted area crosses (typing repaints the edited line, not the page)."""
        found = []
        layout = self.document().documentLayout()
        painted = layout.painted = {} if layout.painted is None else layout.painted  # type: ignore[attr-defined]
        block = self.firstVisibleBlock()
        offset = self.contentOffset()
        top, bottom = event.rect().top(), event.rect().bottom()
        while block.isValid():
            rect = self.blockBoundingGeometry(block).translated(offset)
            if rect.top() > bottom:
                break
            if block.isVisible() and rect.bottom() >= top:
                found.append((block, rect))
                painted[block.blockNumber()] = rect.height()
            block = block.next()
        return found

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        if not self.live or self.highlighter is None:
            super().paintEvent(event)
            return
        blocks = self._visible_blocks(event)
        dark = theme.is_dark()
        c = _colours(dark)
        painter = QPainter(self.viewport())
        width = self.viewport().width()
        previous_state = blocks[0][0].previous().userState() if blocks else -1
        for block, rect in blocks:  # bands behind the text: callouts and code blocks
            state = block.userState()
            if state >= CALLOUT_SHIFT:
                accent, band = _family_colours(state // CALLOUT_SHIFT, dark)
                painter.fillRect(QRectF(rect.left(), rect.top(), width - rect.left() - 8, rect.height()), band)
                painter.fillRect(QRectF(rect.left(), rect.top(), 3, rect.height()), accent)
            elif prose_state(state) >= 16 or prose_state(previous_state) >= 16:
                painter.fillRect(QRectF(rect.left(), rect.top(), width - rect.left() - 8, rect.height()),
                                 QColor(c["code_bg"]))
            previous_state = state
        painter.end()
        super().paintEvent(event)
        painter = QPainter(self.viewport())
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        active = self.highlighter.active
        tables: dict[int, tuple[int, int, object]] = {}
        for block, rect in blocks:
            if prose_state(block.userState()) != NORMAL:
                continue
            if is_row(block.text()):
                self._paint_table_row(painter, block, rect, tables, c)
                continue
            number = block.blockNumber()
            ops = self._overlay(block, rect, active.get(number))
            if ops:
                self._draw(painter, ops, rect, c)
        painter.end()

    def _overlay(self, block: QTextBlock, rect: QRectF, span: tuple[int, int] | None) -> list[tuple]:
        """What to draw over a line, relative to its top, cached by its text, the width and what the
        cursor shows of it: a keystroke repaints the whole viewport, and most lines are as they were."""
        text = block.text()
        decor = decor_of(text)
        drawn = decor.marker_drawn(span)
        key = (text, int(rect.width()), span is not None, drawn)
        ops = self._ops.get(key)
        if ops is not None:
            return ops
        ops = []
        origin = QRectF(rect.left(), 0.0, rect.width(), rect.height())
        if drawn and decor.task is not None:
            ops.append(("box", self._checkbox_rect(block, origin, decor), decor.task[1]))
        if drawn and decor.bullet is not None:
            spot = self._column_rect(block, origin, decor.bullet, decor.bullet + 1)
            ops.append(("dot", spot.center(), max(2.0, spot.height() * 0.12)))
        if span is None:
            if decor.rule:
                ops.append(("rule",))
            if decor.embed is not None:
                ops.append(("embed", decor))
            if decor.callout_title is not None:
                ops += self._callout_ops(block, origin, decor)
        if len(self._ops) > 4096:
            self._ops.clear()
        self._ops[key] = ops
        return ops

    def _draw(self, painter: QPainter, ops: list[tuple], rect: QRectF, c: dict[str, str]) -> None:
        top = rect.top()
        for op in ops:
            if op[0] == "box":
                box, checked = op[1].translated(0, top), op[2]
                painter.setPen(QPen(QColor(c["box"]), 1.4))
                painter.setBrush(QColor(c["link"]) if checked else Qt.BrushStyle.NoBrush)
                painter.drawRoundedRect(box, 3, 3)
                if checked:
                    painter.setPen(QPen(QColor("#ffffff"), 1.8))
                    painter.drawPolyline([
                        QPointF(box.left() + box.width() * 0.22, box.center().y()),
                        QPointF(box.left() + box.width() * 0.42, box.bottom() - box.height() * 0.25),
                        QPointF(box.right() - box.width() * 0.2, box.top() + box.height() * 0.25)])
            elif op[0] == "dot":
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(QColor(c["muted"]))
                painter.drawEllipse(op[1] + QPointF(0, top), op[2], op[2])
            elif op[0] == "rule":
                painter.setPen(QPen(QColor(c["rule"]), 1))
                y = rect.center().y()
                painter.drawLine(QPointF(rect.left(), y), QPointF(self.viewport().width() - 12, y))
            elif op[0] == "embed":
                self._paint_embed(painter, rect, op[1], c)
            elif op[0] == "icon":
                box, code = op[1].translated(0, top), op[2]
                side = int(min(box.height(), ICON_ROOM))
                image = callout_icon(code, _family_colours(code, theme.is_dark())[0].name(), side)
                painter.drawImage(QPointF(box.right() - side - 2, box.center().y() - side / 2), image)
            elif op[0] == "fold":
                draw_chevron(painter, op[1].translated(0, top), self.folds.is_open(op[2], op[3]), QColor(c["muted"]))

    def table_grid(self, block: QTextBlock) -> tuple[int, object] | None:
        """(first row's number, Grid) of the table ``block`` is in, as drawn now; None when it is
        not a table or is being edited (its source shows)."""
        span = table_range(block)
        if span is None or self.highlighter is None or self.highlighter.table_edited(span):
            return None
        texts, row = [], self.document().findBlockByNumber(span[0])
        while row.isValid() and row.blockNumber() <= span[1]:
            texts.append(row.text())
            row = row.next()
        font = self.document().defaultFont()
        width = self.fit_width()
        return span[0], grid(tuple(texts), font.family(), font.pointSizeF(), float(width))

    def _paint_table_row(self, painter: QPainter, block: QTextBlock, rect: QRectF, tables: dict, c: dict) -> None:
        number = block.blockNumber()
        found = next((t for t in tables.values() if t[0] <= number <= t[1]), None)
        if found is None:
            drawn = self.table_grid(block)
            span = table_range(block)
            if span is None:
                return
            found = tables[span[0]] = (span[0], span[1], drawn)
        if found[2] is None:
            return
        first, table = found[2]
        left = rect.left() + self.document().documentMargin()
        paint_row(painter, number - first, table, rect, left, self.document().defaultFont(), c)  # type: ignore[arg-type]  # a Grid

    def _callout_ops(self, block: QTextBlock, origin: QRectF, decor: LineDecor) -> list[tuple]:
        """The icon in the widened "[" and, for a foldable callout, the chevron after its title."""
        ops: list[tuple] = [("icon", self._column_rect(block, origin, decor.callout_at, decor.callout_at + 1),
                             callout_code(decor.callout_title or ""))]
        if decor.callout_fold:
            ops.append(("fold", self._chevron_rect(block, origin), block.text(), decor.callout_fold))
        return ops

    def _chevron_rect(self, block: QTextBlock, rect: QRectF) -> QRectF:
        end = self._column_rect(block, rect, len(block.text()), len(block.text()))
        side = max(12.0, end.height() * 0.8)
        return QRectF(end.right() + 6, end.center().y() - side / 2, side, side)

    def _column_rect(self, block: QTextBlock, rect: QRectF, start: int, end: int) -> QRectF:
        layout = block.layout()
        line = layout.lineForTextPosition(start)
        if not line.isValid():
            return QRectF()
        x1, x2 = line.cursorToX(start)[0], line.cursorToX(end)[0]  # type: ignore[index]  # the stub says object
        top = rect.top() + line.y()
        return QRectF(rect.left() + x1, top, max(1.0, x2 - x1), line.height())

    def _checkbox_rect(self, block: QTextBlock, rect: QRectF, decor: LineDecor) -> QRectF:
        assert decor.task is not None
        room = self._column_rect(block, rect, decor.task[0], decor.task[0] + 3)
        side = min(room.height() * 0.62, max(room.width(), 10.0))
        return QRectF(room.left() + (room.width() - side) / 2, room.center().y() - side / 2, side, side)

    def _paint_embed(self, painter: QPainter, rect: QRectF, decor: LineDecor, c: dict[str, str]) -> None:
        embed = decor.embed
        assert embed is not None
        path = self.resolve(embed.link)
        if path is None or not path.is_file():
            return
        margin = self.document().documentMargin()
        area = QRectF(rect.left() + margin, rect.top() + EMBED_PAD, self.fit_width() - margin, rect.height() - 2 * EMBED_PAD)
        if embed.image:
            image = self._image(path, embed.width, embed.height)
            if image is not None and not image.isNull():
                painter.drawImage(QPointF(area.left(), area.top()), image)
            else:
                painter.setPen(QPen(QColor(c["rule"]), 1, Qt.PenStyle.DashLine))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(QRectF(area.left(), area.top(), min(area.width(), 320), area.height()))
            return
        doc = self.notes.document(path, embed.link.subpath, self.fit_width() - 16, self.css)
        painter.setPen(QPen(QColor(c["rule"]), 1))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(area, 4, 4)
        painter.fillRect(QRectF(area.left(), area.top(), 3, area.height()), QColor(c["link"]))
        if doc is not None:
            painter.save()
            painter.translate(area.left() + 8, area.top() + 2)
            doc.drawContents(painter, QRectF(0, 0, area.width() - 12, area.height() - 4))
            painter.restore()

    def _image(self, path: Path, width: int | None, height: int | None) -> QImage | None:
        fit = self.fit_width()
        key = ImageCache.key(path, width, height, fit)
        if key is None:
            return None
        image = _CACHE.get(key)
        if image is None and key not in self._image_pending:
            self._image_pending.add(key)

            def work() -> None:
                decoded = _read_scaled(path, width, height, fit)
                _CACHE.put(key, decoded if decoded is not None else QImage())
                self._image_pending.discard(key)
                self._embed_ready.emit()

            PREVIEW_WORKER.submit(work)
        return image

    # -- keys ---------------------------------------------------------------------------------------------
    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        if handle_key(self, event):
            event.accept()
            self.ensureCursorVisible()
            return
        super().keyPressEvent(event)

    def insertFromMimeData(self, source: QMimeData) -> None:  # noqa: N802 - Qt override
        cursor = self.textCursor()
        if source.hasText() and paste_link(cursor, source.text()):
            self.setTextCursor(cursor)
            return
        super().insertFromMimeData(source)

    # -- clicks ------------------------------------------------------------------------------------------
    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        if self.live and event.button() == Qt.MouseButton.LeftButton and self._clicked(event):
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        """A pointing hand over what a click acts on (a checkbox, a tag, a link; an embed with Ctrl/Cmd)."""
        super().mouseMoveEvent(event)
        if self.live and event.buttons() == Qt.MouseButton.NoButton:
            hand = self._target_at(event.position(), event.modifiers()) is not None
            self.viewport().setCursor(Qt.CursorShape.PointingHandCursor if hand else Qt.CursorShape.IBeamCursor)

    def _clicked(self, event: QMouseEvent) -> bool:
        """A checkbox, a tag, a link (Ctrl/Cmd: in a new tab), or with Ctrl/Cmd an embed: act on it
        instead of placing the cursor."""
        target = self._target_at(event.position(), event.modifiers())
        if target is None:
            return False
        kind, value = target
        if kind == "task" and isinstance(value, QTextBlock):
            self.toggle_task(value)
        elif kind == "fold" and isinstance(value, QTextBlock):
            self.folds.toggle(value, decor_of(value.text()).callout_fold)
        elif kind == "tag":
            self.tag_clicked.emit(value)
        elif kind == "link":
            self.link_clicked.emit(value, bool(event.modifiers() & _FOLLOW_KEYS))
        else:
            self.url_clicked.emit(value)
        return True

    def _target_at(self, pos: QPointF, modifiers: Qt.KeyboardModifier) -> tuple[str, object] | None:
        """What a click at ``pos`` acts on: ("task", block), ("tag", name), ("link", Link), ("url", href).

        A plain click follows a link or a tag, as in Obsidian, unless its markup shows (the cursor is
        in it: the click then places the cursor to edit it); with Ctrl/Cmd it always follows."""
        cursor = self.cursorForPosition(pos.toPoint())
        block = cursor.block()
        if prose_state(block.userState()) != NORMAL:
            return None
        decor = decor_of(block.text())
        span = (self.highlighter.active if self.highlighter else {}).get(block.blockNumber())
        active = span is not None
        rect = self.blockBoundingGeometry(block).translated(self.contentOffset())
        follow = bool(modifiers & _FOLLOW_KEYS)

        def clickable(start: int, end: int) -> bool:
            return start <= column < end and (follow or span is None or not (start <= span[1] and span[0] <= end))

        if decor.task is not None and decor.marker_drawn(span) and self._checkbox_rect(block, rect, decor).adjusted(
                -3, -3, 3, 3).contains(pos):
            return ("task", block)
        if decor.callout_fold and not active and (
                self._chevron_rect(block, rect).adjusted(-3, -3, 3, 3).contains(pos)
                or self._column_rect(block, rect, decor.callout_at, decor.callout_at + 1).contains(pos)):
            return ("fold", block)
        column = cursor.positionInBlock()
        for start, end, tag in decor.tags:
            if clickable(start, end):
                return ("tag", tag)
        if decor.embed is not None:
            return ("link", decor.embed.link) if follow and not active else None
        for link in decor.links:
            if clickable(link.start, link.end):
                return ("link", link)
        for start, end, href in decor.urls:
            if clickable(start, end):
                return ("url", href)
        return None

    def toggle_task(self, block: QTextBlock) -> None:
        """``[ ]`` ⇄ ``[x]`` as one undoable edit; the cursor stays where it was."""
        decor = decor_of(block.text())
        if decor.task is None or self.isReadOnly():
            return
        column, checked = decor.task
        edit = QTextCursor(block)
        edit.setPosition(block.position() + column + 1)
        edit.setPosition(block.position() + column + 2, QTextCursor.MoveMode.KeepAnchor)
        edit.insertText(" " if checked else "x")
