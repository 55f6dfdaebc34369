"""Hover preview of a link, as in Obsidian: rest the mouse on a link and its target's opening shows.

After :data:`HOVER_DELAY_MS` over the same link, the target file is read and cut to its first
paragraphs (or its ``#Heading`` / ``#^block`` section) on a worker thread, because a vault
on a slow or network disk must not stall typing. The excerpt is rendered like the preview (an
image target shows the image) in a small tool-tip window that never takes focus. It closes
when the mouse leaves both the link and the popup, on Esc, on a click or a scroll.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, QSize, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QEnterEvent, QGuiApplication, QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QFrame, QToolTip, QVBoxLayout, QWidget

from suzent_desktop.core.vault.links import is_page
from suzent_desktop.ui.base import theme
from suzent_desktop.ui.reading.markdown_render import (
    CALLOUT_SCHEME,
    IMAGE_SUFFIXES,
    MarkdownRenderer,
    Vault,
    excerpt,
    preview_css,
)
from suzent_desktop.ui.reading.preview import PreviewBrowser

HOVER_DELAY_MS = 500
HIDE_DELAY_MS = 300
POPUP_SIZE = (440, 300)
_READER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hover-preview")


@dataclass(frozen=True)
class HoverTarget:
    """What the mouse rests on: the file a link names, its ``#subpath``, and which link it is."""

    path: Path
    subpath: str | None
    key: str


def preview_markdown(target: HoverTarget, vault: Vault) -> str:
    """The markdown a popup shows for ``target`` (runs on the worker thread: it reads the file)."""
    rel = vault.rel(target.path)
    if target.path.suffix.lower() in IMAGE_SUFFIXES:
        return f"![[{rel}]]"
    if not is_page(target.path):
        return f"**{target.path.name}**: click the link to open it."
    try:
        text = vault.read(target.path)
    except OSError as error:
        return f"Cannot read {rel}: {error}"
    part = excerpt(text, target.subpath)
    if part is None:
        return f"No “{target.subpath}” in {target.path.stem}."
    return part or f"*{target.path.stem} is empty.*"


def place_popup(size: QSize, at: QPoint, screen: QRect, gap: int = 18) -> QPoint:
    """Where a popup of ``size`` opens for the mouse at ``at``: below and right of it, flipped
    above or to the left where it would leave ``screen``, and never off any edge."""
    x, y = at.x() + 12, at.y() + gap
    if y + size.height() > screen.bottom():
        y = at.y() - gap - size.height()
    if x + size.width() > screen.right():
        x = at.x() - 12 - size.width()
    x = max(screen.left(), min(x, screen.right() - size.width()))
    y = max(screen.top(), min(y, screen.bottom() - size.height()))
    return QPoint(x, y)


class HoverPopup(QFrame):
    """The small window: a read-only preview of the excerpt."""

    entered = Signal()
    left = Signal()
    link_clicked = Signal(str)  # href of a link clicked inside the popup

    def __init__(self, vault: Vault, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.ToolTip | Qt.WindowType.FramelessWindowHint)
        self.setFrameShape(QFrame.Shape.Box)
        self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
        self.vault = vault
        self.browser = PreviewBrowser(vault.root, self)
        self.browser.document().setDocumentMargin(8)
        self.renderer = MarkdownRenderer(css=preview_css(theme.is_dark()), vault=vault, dark=theme.is_dark())
        layout = QVBoxLayout(self)
        layout.setContentsMargins(1, 1, 1, 1)
        layout.addWidget(self.browser)
        self.resize(*POPUP_SIZE)
        self.target: HoverTarget | None = None
        self.markdown = ""
        self.browser.images_ready.connect(self._render)
        self.browser.anchorClicked.connect(self._clicked)

    def show_text(self, target: HoverTarget, markdown: str, at: QPoint) -> None:
        """Show below and right of ``at`` (the mouse), or above it where the screen ends; the
        tooltip a link may have is closed, so nothing covers the popup's first lines."""
        self.target, self.markdown = target, markdown
        self._render()
        screen = QGuiApplication.screenAt(at) or self.screen()
        self.move(place_popup(self.size(), at, screen.availableGeometry()))
        QToolTip.hideText()
        self.show()

    def _clicked(self, url: QUrl) -> None:
        """A callout folds here; any other link is followed by the page the popup belongs to."""
        href = url.toString()
        if href.startswith(CALLOUT_SCHEME + ":"):
            key = unquote(href[len(CALLOUT_SCHEME) + 1 :])
            self.renderer.folds[key] = not self.renderer.callouts.get(key, True)
            self._render()
            return
        self.link_clicked.emit(href)

    def _render(self) -> None:
        if self.target is None:
            return
        dark = theme.is_dark()
        self.renderer.css, self.renderer.dark = preview_css(dark), dark
        self.browser.setHtml(self.renderer.render(self.markdown, self.target.path))

    def enterEvent(self, event: QEnterEvent) -> None:  # noqa: N802 - Qt override
        super().enterEvent(event)
        self.entered.emit()

    def leaveEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        super().leaveEvent(event)
        self.left.emit()


class HoverPreview(QObject):
    """Watches one text widget's viewport for links under a resting mouse."""

    shown = Signal(object)  # HoverTarget, once the popup shows it
    link_clicked = Signal(str)  # href of a link clicked in the popup (the popup closes)
    _loaded = Signal(int, object, str)  # (request, target, markdown), from the worker thread

    def __init__(self, view: QWidget, viewport: QWidget, target_at: Callable[[QPoint], HoverTarget | None],
                 vault: Vault) -> None:
        super().__init__(view)
        self.view = view
        self.viewport = viewport
        self.target_at = target_at
        self.vault = vault
        self.popup: HoverPopup | None = None
        self._pending: HoverTarget | None = None
        self._at = QPoint()
        self._request = 0
        viewport.setMouseTracking(True)
        viewport.installEventFilter(self)
        view.installEventFilter(self)
        self._show_timer = QTimer(self)
        self._show_timer.setSingleShot(True)
        self._show_timer.setInterval(HOVER_DELAY_MS)
        self._show_timer.timeout.connect(self._load)
        self._hide_timer = QTimer(self)
        self._hide_timer.setSingleShot(True)
        self._hide_timer.setInterval(HIDE_DELAY_MS)
        self._hide_timer.timeout.connect(self.hide)
        self._loaded.connect(self._on_loaded)

    @property
    def visible(self) -> bool:
        return self.popup is not None and self.popup.isVisible()

    def hide(self) -> None:
        self._show_timer.stop()
        self._hide_timer.stop()
        self._pending = None
        self._request += 1  # a read still in flight is dropped
        if self.popup is not None:
            self.popup.hide()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        kind = event.type()
        if watched is self.viewport:
            if kind == QEvent.Type.MouseMove and isinstance(event, QMouseEvent):
                self._moved(event.position().toPoint())
            elif kind == QEvent.Type.Leave:
                self._show_timer.stop()
                self._pending = None
                if self.visible:
                    self._hide_timer.start()
            elif kind in (QEvent.Type.MouseButtonPress, QEvent.Type.Wheel):
                self.hide()
        elif watched is self.view and kind == QEvent.Type.KeyPress and self.visible and isinstance(event, QKeyEvent):
            if event.key() == Qt.Key.Key_Escape:
                self.hide()
                return True
            self.hide()
        return super().eventFilter(watched, event)

    def _moved(self, pos: QPoint) -> None:
        target = self.target_at(pos)
        shown = self.popup.target if self.visible and self.popup is not None else None
        if target is None:
            self._show_timer.stop()
            self._pending = None
            if shown is not None:
                self._hide_timer.start()
            return
        if shown is not None and target.key == shown.key:
            self._hide_timer.stop()
            return
        if self._pending is None or target.key != self._pending.key:
            self._pending = target
            self._at = self.viewport.mapToGlobal(pos)
            self._show_timer.start()

    def _load(self) -> None:
        target = self._pending
        if target is None:
            return
        self._request += 1
        request = self._request
        vault = self.vault

        def read() -> None:
            markdown = preview_markdown(target, vault)
            try:
                self._loaded.emit(request, target, markdown)
            except RuntimeError:
                pass  # the view closed while the file was being read

        _READER.submit(read)

    def _follow(self, href: str) -> None:
        self.hide()
        self.link_clicked.emit(href)

    def _on_loaded(self, request: int, target: HoverTarget, markdown: str) -> None:
        if request != self._request:
            return
        if self.popup is None:
            self.popup = HoverPopup(self.vault, self.view)
            self.popup.entered.connect(self._hide_timer.stop)
            self.popup.left.connect(self._hide_timer.start)
            self.popup.link_clicked.connect(self._follow)
        self._hide_timer.stop()
        self.popup.show_text(target, markdown, self._at)
        self._pending = None
        self.shown.emit(target)
