"""The top of a page, as in Obsidian: its inline title (the file's name) and its properties.

The head is part of the page, not a bar above it: it sits in the top margin of whichever view
shows the page and leaves with the first lines as the page scrolls down. Editing the title
renames the file (the window does it as the tree's Rename does, links updated).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRect, Signal
from PySide6.QtGui import QFont, QKeyEvent, QMouseEvent, QPalette
from PySide6.QtWidgets import QAbstractScrollArea, QLineEdit, QPlainTextEdit, QVBoxLayout, QWidget

from suzent_desktop.ui.page.pixel_scroll import PixelScroll

TITLE_SCALE = 1.8  # the inline title reads as a first heading


class PageHead(QWidget):
    """The inline title above the page's ``properties`` view."""

    rename_requested = Signal(str)  # the new name (without ".md") typed into the title

    def __init__(self, properties: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("pageHead")
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.Base)  # the page's own colour: it is part of the page
        column = QVBoxLayout(self)
        column.setContentsMargins(16, 10, 16, 4)
        column.setSpacing(4)
        self.title = QLineEdit(self)
        self.title.setObjectName("inlineTitle")
        self.title.setFrame(False)
        self.title.setToolTip("The file's name: edit it to rename the page (links to it follow)")
        font = QFont(self.title.font())
        font.setPointSizeF(font.pointSizeF() * TITLE_SCALE)
        font.setBold(True)
        self.title.setFont(font)
        self.title.editingFinished.connect(self._title_done)
        self._name = ""
        column.addWidget(self.title)
        self.properties = properties
        column.addWidget(properties)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        """A key a field let go of (Return after a name) stops here, never typed into the page below."""
        event.accept()

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        event.accept()

    def set_name(self, name: str, *, read_only: bool = False) -> None:
        self._name = name
        self.title.setText(name)
        self.title.setCursorPosition(0)
        self.title.setReadOnly(read_only)

    def _title_done(self) -> None:
        typed = self.title.text().strip()
        if typed.lower().endswith(".md"):
            typed = typed[:-3].rstrip()
        if not typed or typed == self._name or self.title.isReadOnly():
            self.title.setText(self._name)  # an empty or unchanged title: the name as it is
            return
        self.title.setText(self._name)  # the rename, once done, names the page again (set_name)
        self.rename_requested.emit(typed)


class ScrollingHead(QObject):
    """Keeps ``head`` above the text of the scroll area showing the page, leaving as it scrolls.

    In Reading view the head's height is added to the document's top margin, so the scroll range
    holds head and text and both move exactly with the scroll bar. The editor scrolls a line at a
    time: there a pixel scroll bar of our own (:mod:`suzent_desktop.ui.page.pixel_scroll`) keeps the
    head's height as room above the text and moves head and text by the same pixels."""

    def __init__(self, head: PageHead) -> None:
        super().__init__(head)
        self.head = head
        self.area: QAbstractScrollArea | None = None
        head.installEventFilter(self)

    def attach(self, area: QAbstractScrollArea) -> None:
        if area is self.area:
            return
        if self.area is not None:
            self.area.removeEventFilter(self)
            if isinstance(self.area, QPlainTextEdit):
                PixelScroll.of(self.area).moved.disconnect(self.place)
            else:
                self.area.verticalScrollBar().valueChanged.disconnect(self.place)
                self.area.document().contentsChanged.disconnect(self.place)  # type: ignore[attr-defined]
                self._pad(self.area, 0)
        self.area = area
        self.head.setParent(area)
        if isinstance(area, QPlainTextEdit):
            PixelScroll.of(area).moved.connect(self.place)
        else:
            area.verticalScrollBar().valueChanged.connect(self.place)
            area.document().contentsChanged.connect(self.place)  # type: ignore[attr-defined]  # new HTML: a new margin
        area.installEventFilter(self)
        self.head.show()
        self.place()

    @staticmethod
    def _pad(area: QAbstractScrollArea, height: int) -> None:
        """The document's top margin: its own margin plus ``height`` for the head above the text."""
        document = area.document()  # type: ignore[attr-defined]
        root = document.rootFrame()
        fmt = root.frameFormat()
        wanted = document.documentMargin() + height
        if fmt.topMargin() != wanted:  # the same margin again would lay the page out again
            fmt.setTopMargin(wanted)
            root.setFrameFormat(fmt)

    def scrolled(self) -> int:
        """Pixels of the page scrolled out of sight, head first."""
        area = self.area
        if area is None:
            return 0
        if isinstance(area, QPlainTextEdit):
            return PixelScroll.of(area).position
        return area.verticalScrollBar().value()

    def _bar_width(self, area: QAbstractScrollArea) -> int:
        bar = PixelScroll.of(area).bar if isinstance(area, QPlainTextEdit) else area.verticalScrollBar()
        return bar.width() if bar.isVisibleTo(area) else 0

    def place(self) -> None:
        area = self.area
        if area is None:
            return
        frame = area.frameWidth()
        width = area.width() - 2 * frame - self._bar_width(area)
        height = self.head.heightForWidth(width) if self.head.hasHeightForWidth() else -1
        if height <= 0:
            height = self.head.sizeHint().height()
        if isinstance(area, QPlainTextEdit):
            scroll = PixelScroll.of(area)
            if scroll.room != height:
                scroll.set_room(height)  # moves the text below the head, and comes back here
                return
        else:
            self._pad(area, height)
        shift = min(height, self.scrolled())
        geometry = QRect(frame, frame - shift, width, height)
        if self.head.geometry() != geometry:
            self.head.setGeometry(geometry)
        if self.head.isHidden() == (shift < height):
            self.head.setVisible(shift < height)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() in (QEvent.Type.Resize, QEvent.Type.LayoutRequest) and (
                watched is self.area or (watched is self.head and self.head.isVisible())):
            self.place()
        return super().eventFilter(watched, event)
