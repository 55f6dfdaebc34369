"""Scrolling a plain-text editor by pixels, with room above its text for the page's head.

Qt's plain-text editor scrolls a whole line at a time: its scroll bar counts lines, and the
first line shown always starts at the top of its viewport. The page's head (inline title and
properties) is measured in pixels, so a head laid out in the viewport's top margin and moved
by the line count made the text move twice as fast as the bar (the margin shrank by a line
and the text scrolled a line), and left the last lines of a page that nearly fits out of reach.

Three designs were weighed:

- the head and the editor in one outer scroll area, the editor as tall as its text: exact, but
  Qt's editor then lays out and paints a viewport as tall as the page, on every keystroke;
- the head as a block of the document: the file's text would no longer be the document's,
  and the editor would still scroll that block as one tall line;
- a scroll bar of our own, in pixels, that the editor's line scrolling follows (this module).

Here, the bar people see counts pixels from the top of the head. A position is shown by
scrolling Qt's editor to the last line that starts above it, and moving the editor's viewport
up (a negative top margin) by the pixels left, or down below the head while the head is in
sight. Block heights come from the editor's own layout, kept per block: a line Qt has not
laid out yet is guessed from its line count and measured soon after, a chunk per turn of the
event loop, and the lines a scroll moves over are measured before it moves (laying out a
2,000-line page at once stalled the window for over 100 ms; a keystroke re-measures its own
line only). When Qt scrolls by itself (keys, the cursor kept in sight, a find, a resize), the pixel
position is read back from what it shows, so the text never jumps.
"""

from __future__ import annotations

from bisect import bisect_right

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QTextBlock
from PySide6.QtWidgets import QApplication, QPlainTextEdit, QScrollBar

REFINE_CHUNK = 120  # guessed heights measured per turn of the event loop (a few milliseconds)


class PixelScroll(QObject):
    """A pixel scroll bar for ``edit``, with ``room`` pixels above its text (see the module)."""

    moved = Signal(int)  # pixels scrolled from the very top: the head is moved up by as many

    def __init__(self, edit: QPlainTextEdit) -> None:
        super().__init__(edit)
        self.edit = edit
        self.bar = QScrollBar(Qt.Orientation.Vertical, edit)  # the bar people see and drag
        self.bar.setObjectName("pixelScrollBar")
        self.bar.hide()
        self.room = 0  # pixels above the text (the head's height)
        self.position = 0  # pixels scrolled from the very top
        self._heights: list[float] = []  # per block, as laid out (0 for a hidden block)
        self._tops: list[float] | None = None  # per block, its top in the text's pixels (lazy)
        self._end = 0.0  # the text's whole height
        self._stale = True  # the heights are measured again before they are next used
        self._busy = False  # while this moves Qt's editor: its own scroll signals are ours
        self._qt_value = 0  # Qt's line at the top, as last seen
        edit.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        edit.verticalScrollBar().valueChanged.connect(self._qt_scrolled)
        edit.verticalScrollBar().rangeChanged.connect(self._qt_scrolled)
        self.bar.valueChanged.connect(self._bar_moved)
        self._remeasure = QTimer(self)
        self._remeasure.setSingleShot(True)
        self._remeasure.setInterval(0)
        self._remeasure.timeout.connect(self.follow_qt)  # measures what is stale first (tops)
        self._guessed: set[int] = set()  # blocks whose height is a guess: not laid out yet
        self._refiner = QTimer(self)
        self._refiner.setSingleShot(True)
        self._refiner.setInterval(0)
        self._refiner.timeout.connect(self._refine)
        edit.cursorPositionChanged.connect(self._cursor_moved)
        layout = edit.document().documentLayout()
        layout.updateBlock.connect(self._block_laid_out)
        layout.update.connect(lambda _rect=None: self._measure_later())
        layout.documentSizeChanged.connect(lambda _size: self._measure_later())
        self._viewport = edit.viewport()  # kept: asked for while the editor is being deleted, it is gone
        edit.installEventFilter(self)
        self._viewport.installEventFilter(self)
        self.measure()

    @classmethod
    def of(cls, edit: QPlainTextEdit) -> PixelScroll:
        """The editor's pixel scrolling, made on first use."""
        found = edit.findChild(PixelScroll)
        return found if found is not None else cls(edit)

    # -- heights ---------------------------------------------------------------------------------
    def measure(self) -> None:
        """Every block's height again (a new page, font, width or margin), keeping the view where it is."""
        self._stale = True
        self.follow_qt()

    def _measure_heights(self) -> None:
        """Each block's height as laid out; a line Qt has not laid out yet (it lays out what it
        shows) is guessed from its line count, so a long page is not laid out at once."""
        document = self.edit.document()
        layout = document.documentLayout()
        spacing = self.edit.fontMetrics().lineSpacing()
        heights: list[float] = []
        guessed: set[int] = set()
        block = document.firstBlock()
        while block.isValid():
            if not block.isVisible():
                heights.append(0.0)
            elif block.layout().lineCount():
                heights.append(layout.blockBoundingRect(block).height())
            else:
                guessed.add(len(heights))
                heights.append(float(spacing * max(1, block.lineCount())))
            block = block.next()
        if heights and len(heights) - 1 in guessed:
            heights[-1] += document.documentMargin()  # the last block holds the bottom margin
        self._heights, self._guessed, self._tops, self._stale = heights, guessed, None, False
        if guessed:
            self._refiner.start()

    def _exact(self, first: int, last: int) -> bool:
        """The guessed heights of blocks ``first`` to ``last`` measured (laid out); True if any changed."""
        if not self._guessed:
            return False
        document = self.edit.document()
        layout = document.documentLayout()
        changed = False
        for number in range(max(0, first), min(last, len(self._heights) - 1) + 1):
            if number in self._guessed:
                self._guessed.discard(number)
                height = layout.blockBoundingRect(document.findBlockByNumber(number)).height()
                if height != self._heights[number]:
                    self._heights[number], changed = height, True
        if changed:
            self._tops = None
        return changed

    def _exact_span(self, start: int, end: int) -> bool:
        """Exact heights from pixel ``start`` to a screen below pixel ``end``, so a scroll moves the
        text by exactly the pixels asked for; True if one changed. Far apart (a jump), both ends
        only, and False: the place jumped to is then the one asked for, not a distance."""
        if not self._guessed:
            return False
        tops, screen = self.tops(), self.visible_height()
        first = max(0, bisect_right(tops, min(start, end) - self.room) - 1)
        last = bisect_right(tops, max(start, end) - self.room + screen)
        if last - first <= 400:
            return self._exact(first, last)
        lines = screen // max(1, self.edit.fontMetrics().lineSpacing()) + 2
        near, far = (first, last - lines) if start <= end else (last - lines, first)
        self._exact(near, near + lines)
        self._exact(far, far + lines)
        return False

    def _refine(self) -> None:
        """A few guessed heights measured per turn of the event loop, the view kept where it is."""
        if self._stale or not self._guessed:
            return
        numbers = sorted(self._guessed)[:REFINE_CHUNK]
        if self._exact(numbers[0], numbers[-1]):
            self.follow_qt()
        if self._guessed:
            self._refiner.start()

    def _block_laid_out(self, block: QTextBlock) -> None:
        """One line laid out again (a keystroke, a re-styled line): only its height is measured
        again. The layout's other signals (several lines, a new width or font) measure all of
        them, after the event or when a scroll needs them first. The layout is listened to, not
        the document: re-styling a line keeps the document quiet (it is no edit)."""
        number = block.blockNumber()
        if self._stale or len(self._heights) != self.edit.document().blockCount() or number >= len(self._heights):
            self._measure_later()
            return
        self._guessed.discard(number)
        height = self.edit.document().documentLayout().blockBoundingRect(block).height()
        if height != self._heights[number]:
            self._heights[number] = height
            self._tops = None
            self._remeasure.start()  # the view and the bar's range, after the event

    def tops(self) -> list[float]:
        """Each block's top in the text's pixels: the document's top margin, then the blocks above."""
        if self._stale and (not self._remeasure.isActive()
                            or len(self._heights) != self.edit.document().blockCount()):
            self._measure_heights()  # lines came or went: now; other changes once per turn of the loop
        if self._tops is None:
            top, tops = self.edit.document().documentMargin(), []
            for height in self._heights:
                tops.append(top)
                top += height
            self._tops = tops
            self._end = top  # the last block's height holds the bottom margin
        return self._tops

    @property
    def settled(self) -> bool:
        """Every line's height is measured, none guessed: the bar's range is the page's exact height."""
        return not self._stale and not self._guessed

    def text_height(self) -> float:
        self.tops()
        return self._end

    # -- what Qt shows -----------------------------------------------------------------------------
    def _shown_top(self) -> float:
        """The text pixel at the top of Qt's viewport, as Qt scrolled it (a line's top)."""
        block = self.edit.firstVisibleBlock()
        tops = self.tops()
        number = block.blockNumber()
        if not 0 <= number < len(tops):
            return 0.0
        return tops[number] - self.edit.blockBoundingGeometry(block).top() - self.edit.contentOffset().y()

    def visible_height(self) -> int:
        return self.edit.height() - 2 * self.edit.frameWidth()

    def maximum(self) -> int:
        return max(0, int(round(self.room + self.text_height())) - self.visible_height())

    # -- moving ------------------------------------------------------------------------------------
    def set_room(self, room: int) -> None:
        """The head's height: while the head is in sight its top stays put, else the text does."""
        if room == self.room:
            return
        if self.position >= self.room:  # the head is out of sight: the text stays where it is
            self.position += room - self.room
        self.room = room
        self.scroll_to(self.position)

    def scroll_to(self, position: int) -> None:
        """Show the page from ``position`` pixels below the top of the head."""
        if self._exact_span(self.position, int(position)) and position > 0:  # a guess was wrong: move from what shows
            position = self._shown_position() + int(position) - self.position
        position = max(0, min(int(position), self.maximum()))
        target = position - self.room  # the text pixel at the top of the visible area
        self._busy = True
        try:
            for _ in range(3):  # a new viewport height may make Qt clamp its line: settle
                self._show_line_at(target)
                if not self._margins_to(int(round(self.room - position + self._shown_top()))):
                    break
        finally:
            self._busy = False
        self.position = position
        self._sync_bar()
        self.moved.emit(position)

    def _show_line_at(self, target: float) -> None:
        """Qt's editor scrolled to the last line that starts at or above the text pixel ``target``."""
        tops = self.tops()
        document = self.edit.document()
        if target <= 0 or not tops:
            self.edit.verticalScrollBar().setValue(0)
            return
        number = max(0, bisect_right(tops, target) - 1)
        block = document.findBlockByNumber(number)
        while block.isValid() and not block.isVisible() and block.previous().isValid():
            block = block.previous()  # a hidden line has no line of its own to scroll to
        line = self._line_in(block, target - tops[block.blockNumber()])
        self.edit.verticalScrollBar().setValue(block.firstLineNumber() + line)

    @staticmethod
    def _line_in(block: QTextBlock, offset: float) -> int:
        layout = block.layout()
        line = 0
        for index in range(1, layout.lineCount()):
            if layout.lineAt(index).y() > offset:
                break
            line = index
        return line

    def _margins_to(self, top: int) -> bool:
        """Put Qt's viewport ``top`` pixels below the area's top (negative: partly above it); True if moved."""
        right = self.bar.sizeHint().width() if self.bar.isVisibleTo(self.edit) else 0
        margins = self.edit.viewportMargins()
        if margins.top() == top and margins.right() == right:
            return False
        self.edit.setViewportMargins(0, top, right, 0)
        return True

    def _sync_bar(self) -> None:
        maximum = self.maximum()
        blocked = self.bar.blockSignals(True)
        try:
            self.bar.setRange(0, maximum)
            self.bar.setPageStep(max(1, self.visible_height()))
            self.bar.setSingleStep(max(1, self.edit.fontMetrics().lineSpacing()))
            self.bar.setValue(self.position)
        finally:
            self.bar.blockSignals(blocked)
        needed = maximum > 0  # a narrower page only grows taller: showing the bar never hides it again
        if needed != self.bar.isVisibleTo(self.edit):
            self.bar.setVisible(needed)
            self._place_bar()
            self._measure_later()  # the text's width changed: its lines wrap anew
        else:
            self._place_bar()

    def _place_bar(self) -> None:
        frame = self.edit.frameWidth()
        width = self.bar.sizeHint().width()
        geometry = self.edit.rect().adjusted(frame, frame, -frame, -frame)
        geometry.setLeft(geometry.right() - width + 1)
        if self.bar.geometry() != geometry:
            self.bar.setGeometry(geometry)
        self.bar.raise_()

    def _bar_moved(self, value: int) -> None:
        if value != self.position:
            self.scroll_to(value)

    def follow_qt(self, *, to_top: bool = False) -> None:
        """Qt scrolled its editor (keys, the cursor kept in sight, a resize): the pixel position is
        what it now shows, read back from Qt's line and our viewport margin. ``to_top``: Qt went
        back to the first line (Ctrl+Home, a new page), which shows the page from its title when
        the cursor stays in sight below the head."""
        if self._busy:
            return
        if self.edit.verticalScrollBar().value() == 0 and (self.position < self.room or (
                to_top and self._cursor_fits_below_head())):
            self.scroll_to(0 if to_top else self.position)  # the head in sight keeps its place
            return
        self._exact_span(self.position, self._shown_position())  # the lines Qt moved over and shows
        self.scroll_to(self._shown_position())

    def _shown_position(self) -> int:
        """The pixel position of what Qt shows now, below our viewport margin."""
        return int(round(self.room - self.edit.viewportMargins().top() + self._shown_top()))

    def _cursor_fits_below_head(self) -> bool:
        """Whether the page shown from its title keeps the cursor in sight, if it is in sight now."""
        cursor = self.edit.cursorRect(self.edit.textCursor())
        shown = 0 <= cursor.top() + self.edit.viewportMargins().top() < self.visible_height()
        return not shown or self.room + self._shown_top() + cursor.bottom() < self.visible_height()

    def _qt_scrolled(self, *_args: int) -> None:
        value = self.edit.verticalScrollBar().value()
        went_to_top, self._qt_value = value == 0 and self._qt_value != 0, value
        if not self._busy:
            self.follow_qt(to_top=went_to_top)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        kind = event.type()
        if watched is self._viewport and kind == QEvent.Type.Wheel:
            if not event.modifiers() & Qt.KeyboardModifier.ControlModifier:  # type: ignore[attr-defined]
                QApplication.sendEvent(self.bar, event)  # the wheel scrolls pixels, a few lines a notch
                return True
        elif watched is self.edit and kind in (QEvent.Type.Resize, QEvent.Type.FontChange):
            self._measure_later()
            self._place_bar()
        return super().eventFilter(watched, event)

    def _measure_later(self) -> None:
        self._stale = True
        self._remeasure.start()

    def _cursor_moved(self) -> None:
        """The cursor's line, when it is the first one shown and partly above the top, is scrolled
        into sight whole (Qt counts the part above the top as shown: it is in its viewport)."""
        if self._busy:
            return
        cursor = self.edit.textCursor()
        if cursor.block() != self.edit.firstVisibleBlock():
            return  # further away: Qt scrolls by lines, and the pixel position follows
        above = self.edit.cursorRect(cursor).top() + self.edit.viewportMargins().top()
        if above < 0:
            self.scroll_to(self.position + above)
