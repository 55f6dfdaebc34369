"""The centre of the window: tabbed markdown editors with a debounced rendered preview.

An edit is never lost: saves are atomic (Ctrl+S, focus loss, closing a tab or the window),
and a file changed on disk while the editor holds unsaved text raises a conflict bar
offering Reload / Keep mine / Compare instead of silently overwriting either side. A change
on disk while the editor is clean reloads quietly. Our own saves are recognised by content,
so the watcher's echo of a save never looks like a conflict.
"""

from __future__ import annotations

import difflib
import hashlib
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QAction, QDesktopServices, QFont, QFontDatabase, QTextCursor
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from suzent_desktop.core.files.disk.regular import read_regular
from suzent_desktop.core.files.language.markdown import MARKDOWN, WIKI, Link, heading_line, line_links
from suzent_desktop.core.operations import save_page
from suzent_desktop.core.vault.links import in_vault_walk, is_page
from suzent_desktop.ui.base import theme
from suzent_desktop.ui.editing.find_bar import FindBar
from suzent_desktop.ui.editing.link_completer import LinkCompleter
from suzent_desktop.ui.live.highlighter import NORMAL, prose_state
from suzent_desktop.ui.live.live_connect import connect_live_editor
from suzent_desktop.ui.live.live_preview import LiveEditor, LivePreviewHighlighter
from suzent_desktop.ui.page.hover_preview import HoverPreview, HoverTarget
from suzent_desktop.ui.page.views import LIVE, READING, PageViews
from suzent_desktop.ui.reading.markdown_render import (
    CALLOUT_SCHEME,
    TAG_SCHEME,
    MarkdownRenderer,
    Vault,
    parse_embed_href,
    parse_href,
    preview_css,
)
from suzent_desktop.ui.reading.preview import PreviewBrowser

if TYPE_CHECKING:
    from suzent_desktop.core.vault.model import VaultSnapshot

PREVIEW_DELAY_MS = 250
# Every preview render runs on this one thread: a page with many note embeds took 389 ms of CPU,
# and one thread means a renderer (its embed cache, its markdown parser) is never used by two.
_RENDER_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="preview-render")
log = logging.getLogger(__name__)


def _digest(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def read_text(path: Path) -> str:
    """Pages are UTF-8; undecodable bytes are shown replaced rather than refusing to open."""
    return read_regular(path).decode("utf-8", errors="replace")


class ConflictBar(QFrame):
    """Inline, non-blocking notice: the file changed on disk while there are unsaved edits."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("conflictBar")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        self.label = QLabel("This page changed on disk while you were editing it.")
        layout.addWidget(self.label, 1)
        self.reload_button = QPushButton("Reload from disk")
        self.keep_button = QPushButton("Keep mine")
        self.compare_button = QPushButton("Compare…")
        for button in (self.reload_button, self.keep_button, self.compare_button):
            layout.addWidget(button)
        self.hide()


class CompareDialog(QDialog):
    """A unified diff of the disk version against the editor's text, with the same two choices."""

    def __init__(self, path: Path, disk: str, mine: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Compare — {path.name}")
        self.resize(760, 520)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Lines starting with − are on disk only; + are in your unsaved text."))
        view = QPlainTextEdit()
        view.setReadOnly(True)
        view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        diff = difflib.unified_diff(
            disk.splitlines(), mine.splitlines(), "on disk", "your text", lineterm=""
        )
        view.setPlainText("\n".join(diff) or "(no differences)")
        layout.addWidget(view)
        self.choice: str | None = None
        buttons = QDialogButtonBox()
        reload_button = buttons.addButton("Reload from disk", QDialogButtonBox.ButtonRole.DestructiveRole)
        keep_button = buttons.addButton("Keep mine", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        reload_button.clicked.connect(lambda: self._pick("reload"))
        keep_button.clicked.connect(lambda: self._pick("keep"))
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def _pick(self, choice: str) -> None:
        self.choice = choice
        self.accept()


class PageEditor(QWidget):
    """One open file, in one pane: Live Preview, Source mode or Reading view (see ``page_views``)."""

    provenance_hover: object | None = None  # the window's hover tip of where a bullet came from

    saved = Signal(object)  # Path
    dirty_changed = Signal(bool)
    link_activated = Signal(str, object)  # (target, heading | None) of a clicked wikilink
    path_link_activated = Signal(str, object)  # (href path, heading | None) of a clicked markdown link
    attachment_activated = Signal(object)  # Path of a clicked embed (an image, a PDF…)
    outside_vault = Signal(str)  # a clicked or hovered target that leads out of the vault: refused
    forget_requested = Signal(str)  # paragraph text the user asked to forget
    tag_activated = Signal(str)  # a tag clicked in Live Preview or Reading view (name without '#')
    rendered = Signal()
    conflict_raised = Signal()
    rename_requested = Signal(object, str)  # (Path, new name) typed into the inline title
    open_requested = Signal(object, object, str)  # (Path, heading, "" | "right") from a link's context menu
    _render_done = Signal(int, str, str)  # (request, text rendered, html), from the render thread

    def __init__(self, path: Path, *, exists: Callable[[Link], bool] | None = None,
                 read_only: bool = False, names: Callable[[], VaultSnapshot] | None = None,
                 vault: Vault | None = None, mode: str = LIVE, parent: QWidget | None = None,
                 shown: Callable[[str], str] | None = None) -> None:
        """``shown``: the file's text as the page is shown (the window leaves forgotten text out)."""
        super().__init__(parent)
        self.path = Path(path)
        self.initiator = f"editor:{id(self)}"  # on the change its save publishes: it ignores that echo
        self.read_only = read_only
        self.conflict: str | None = None  # the disk text that conflicts with unsaved edits
        self.deleted_on_disk = False
        self.follow_in_place = False  # while a plain click in Live Preview follows a link: open it in this tab
        self._disk_digest: str | None = None
        self._dirty = False
        self._loading = False
        self.vault = vault
        self._shown = shown
        self.renderer = MarkdownRenderer(exists, preview_css(theme.is_dark()), vault, dark=theme.is_dark())
        self.last_html = ""
        self._shown_html = ""  # what the Reading view holds (set only while it is shown)
        self._render_request = 0  # the newest render asked for; an older result is never shown

        self.source = LiveEditor()
        self.source.setTabStopDistance(28)
        self.source.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.source.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.source.customContextMenuRequested.connect(self._source_menu)
        self.source.installEventFilter(self)
        self.source.setReadOnly(read_only)
        self.highlighter = LivePreviewHighlighter(self.source.document(), live=False)
        connect_live_editor(self, self.source, self.highlighter)
        self.completer = LinkCompleter(self.source, names, lambda: self.path) if names and not read_only else None
        self.preview = PreviewBrowser(vault.root if vault is not None else None)
        self.preview.anchorClicked.connect(self._anchor_clicked)
        self.hovers = [
            HoverPreview(self.source, self.source.viewport(), self._source_link_at, vault),
            HoverPreview(self.preview, self.preview.viewport(), self._preview_link_at, vault),
        ] if vault is not None else []
        for hover in self.hovers:
            hover.link_clicked.connect(self.follow_link)
        preview_font = QFont(self.preview.font())
        preview_font.setPointSize(max(preview_font.pointSize(), 10))
        self.preview.setFont(preview_font)
        self.preview.document().setDocumentMargin(14)

        self.conflict_bar = ConflictBar()
        self.conflict_bar.reload_button.clicked.connect(lambda: self.resolve_conflict("reload"))
        self.conflict_bar.keep_button.clicked.connect(lambda: self.resolve_conflict("keep"))
        self.conflict_bar.compare_button.clicked.connect(lambda: self.resolve_conflict("compare"))

        self.views = PageViews(self.source, self.preview, mode, self)
        self.views.view_changed.connect(self._view_changed)
        self.views.head.set_name(self.path.stem, read_only=read_only)
        self.views.head.rename_requested.connect(lambda name: self.rename_requested.emit(self.path, name))
        self.views.properties.tag_clicked.connect(self.tag_activated.emit)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.find_bar = FindBar(self.source)
        layout.addWidget(self.views.header)
        layout.addWidget(self.conflict_bar)
        layout.addWidget(self.find_bar)
        layout.addWidget(self.views.stack, 1)

        self._render_timer = QTimer(self)
        self._render_timer.setSingleShot(True)
        self._render_timer.setInterval(PREVIEW_DELAY_MS)
        self._render_timer.timeout.connect(self.render_soon)
        self._render_done.connect(self._apply_render)
        self.preview.width_changed.connect(self._render_timer.start)
        self.preview.images_ready.connect(self._render_timer.start)
        self.source.textChanged.connect(self._text_changed)
        self.load()

    # -- state ----------------------------------------------------------------------------------
    @property
    def dirty(self) -> bool:
        return self._dirty

    def _set_dirty(self, dirty: bool) -> None:
        if dirty != self._dirty:
            self._dirty = dirty
            self.dirty_changed.emit(dirty)

    def text(self) -> str:
        return self.source.toPlainText()

    def set_text(self, text: str) -> None:
        """Programmatic edit (tests, scripts): behaves like typing."""
        self.source.setPlainText(text)

    def load(self) -> None:
        """(Re)read the file, keeping the cursor's line."""
        data = read_regular(self.path) if self.path.exists() else b""  # a FIFO is refused, never waited on
        line = self.source.textCursor().blockNumber()
        self._loading = True
        try:
            text = data.decode("utf-8", errors="replace")
            self.source.setPlainText(self._shown(text) if self._shown is not None else text)
        finally:
            self._loading = False
        self._disk_digest = _digest(data)
        self.deleted_on_disk = False
        self._set_dirty(False)
        self.goto_line(line + 1, center=False)
        self.render_soon()

    def save(self) -> bool:
        """Atomic write. A pending conflict blocks saving until the user has chosen."""
        if self.conflict is not None or self.read_only:
            return False
        if not self._dirty and not self.deleted_on_disk:
            return True
        text = self.text()
        save_page(self.path, text)
        self._disk_digest = _digest(text.encode("utf-8"))
        self.deleted_on_disk = False
        self._set_dirty(False)
        self.saved.emit(self.path)
        return True

    # -- disk events --------------------------------------------------------------------------------
    def on_disk_changed(self) -> None:
        """The watcher saw the file change. Our own save's echo is recognised by content."""
        try:
            data = read_regular(self.path)
        except OSError:  # gone, or a FIFO or socket now stands there: never opened, the page is not there
            self.on_disk_deleted()
            return
        digest = _digest(data)
        if digest == self._disk_digest:
            return
        if not self._dirty:
            self.load()
            return
        if digest == _digest(self.text().encode("utf-8")):
            self._disk_digest = digest
            self._set_dirty(False)
            return
        self.conflict = data.decode("utf-8", errors="replace")
        self.conflict_bar.label.setText(f"{self.path.name} changed on disk while you were editing it.")
        self.conflict_bar.show()
        self.conflict_raised.emit()

    def on_disk_deleted(self) -> None:
        """The file vanished: the text stays here; an explicit save recreates the file."""
        self.deleted_on_disk = True

    def resolve_conflict(self, choice: str) -> None:
        """"reload": take the disk version; "keep": keep editing, next save overwrites; "compare": show a diff."""
        if self.conflict is None:
            return
        if choice == "compare":
            dialog = CompareDialog(self.path, self.conflict, self.text(), self)
            dialog.finished.connect(lambda _r: self.resolve_conflict(dialog.choice) if dialog.choice else None)
            dialog.open()
            return
        disk = self.conflict
        self.conflict = None
        self.conflict_bar.hide()
        if choice == "reload":
            self.load()
        elif choice == "keep":
            self._disk_digest = _digest(disk.encode("utf-8"))
            self._set_dirty(True)
        else:
            raise ValueError(f"unknown conflict choice {choice!r}")

    def retarget(self, new_path: Path) -> None:
        """The file was renamed or moved by the app: follow it."""
        self.path = Path(new_path)
        self.views.head.set_name(self.path.stem, read_only=self.read_only)

    # -- editing ------------------------------------------------------------------------------------
    def _text_changed(self) -> None:
        if self._loading:
            return
        self._set_dirty(True)
        self._render_timer.start()

    def schedule_render(self) -> None:
        """Render the preview after the usual pause (a burst of changes renders once)."""
        self._render_timer.start()

    def refresh_theme(self) -> None:
        self._loading = True  # recolouring the source re-highlights it, which is not an edit
        try:
            self.highlighter.set_dark(theme.is_dark())
        finally:
            self._loading = False
        self.source.css = preview_css(theme.is_dark())
        self.source.refresh_embeds()  # note embeds drawn in place take the theme's colours
        self.render_now()

    def render_now(self) -> None:
        """Render and show the preview before returning (a fold click, a theme change): waits for the
        render thread, where every render of the page runs."""
        request, job = self._render_job()
        html = _RENDER_THREAD.submit(job).result()
        if request == self._render_request:
            self._show_html(html)

    def render_soon(self) -> None:
        """Render on the render thread and show the result if the text is still the one rendered, so
        opening or typing in a page with many note embeds never waits for the render."""
        request, job = self._render_job()
        text = self.text()

        def work() -> None:
            try:
                html = job()
            except Exception:  # a page that cannot be rendered keeps its last preview
                log.exception("rendering the preview of %s failed", self.path)
                return
            try:
                self._render_done.emit(request, text, html)
            except RuntimeError:
                pass  # the editor closed meanwhile

        _RENDER_THREAD.submit(work)

    def _render_job(self) -> tuple[int, Callable[[], str]]:
        """A numbered render of the text as it is now, with the theme taken here on the GUI thread."""
        self._render_timer.stop()
        self._render_request += 1
        dark = theme.is_dark()
        css, text, path, renderer = preview_css(dark), self.text(), self.path, self.renderer

        def job() -> str:
            renderer.css, renderer.dark = css, dark
            return renderer.render(text, path)

        return self._render_request, job

    def _apply_render(self, request: int, text: str, html: str) -> None:
        if request == self._render_request and text == self.text():
            self._show_html(html)

    def _show_html(self, html: str) -> None:
        self.last_html = html
        if self.views.reading:  # laying out a long page takes a while: only where it is seen
            self._put_html()
        self.rendered.emit()

    def _put_html(self) -> None:
        if self._shown_html is self.last_html:
            return
        scroll = self.preview.verticalScrollBar().value()
        self._shown_html = self.last_html
        self.preview.setHtml(self.last_html)
        self.preview.verticalScrollBar().setValue(scroll)

    def _view_changed(self, view: str) -> None:
        if view == READING:
            if self._render_timer.isActive():
                self.render_now()
            self._put_html()

    def goto_line(self, line: int | None, *, center: bool = True) -> None:
        if line is None or line < 1:
            return
        block = self.source.document().findBlockByNumber(min(line, self.source.blockCount()) - 1)
        cursor = QTextCursor(block)
        self.source.setTextCursor(cursor)
        if center:
            self.source.centerCursor()

    def goto_heading(self, heading: str) -> bool:
        line = heading_line(self.text(), heading)
        self.goto_line(line)
        return line is not None

    def show_find(self, *, replace: bool = False) -> FindBar:
        """Ctrl+F / Ctrl+H: the find bar over this note (replace only in an editable one)."""
        self.find_bar.open_bar(replace=replace)
        return self.find_bar

    def current_paragraph(self) -> str:
        """The selection, else the blank-line-delimited paragraph under the cursor."""
        cursor = self.source.textCursor()
        if cursor.hasSelection():
            return cursor.selectedText().replace("\u2029", "\n").strip()
        lines = self.text().split("\n")
        row = cursor.blockNumber()
        if row >= len(lines) or not lines[row].strip():
            return ""
        start = row
        while start > 0 and lines[start - 1].strip():
            start -= 1
        end = row
        while end + 1 < len(lines) and lines[end + 1].strip():
            end += 1
        return "\n".join(lines[start : end + 1]).strip()

    def select_paragraph_at_line(self, line: int) -> str:
        self.goto_line(line, center=False)
        return self.current_paragraph()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if watched is self.source and event.type() == QEvent.Type.FocusOut and self._dirty:
            self.save()
        return super().eventFilter(watched, event)

    def _source_menu(self, pos) -> None:  # noqa: ANN001 - QPoint
        menu: QMenu = self.source.createStandardContextMenu()
        menu.addSeparator()
        forget = QAction("Forget this paragraph…", menu)
        paragraph = self.current_paragraph()
        forget.setEnabled(bool(paragraph))
        forget.triggered.connect(lambda: self.forget_requested.emit(paragraph))
        menu.addAction(forget)
        self.add_link_actions(menu, pos)
        menu.exec(self.source.viewport().mapToGlobal(pos))

    def add_link_actions(self, menu: QMenu, pos) -> None:  # noqa: ANN001 - QPoint
        """On a link to a page: open it in a new tab, or in a pane to the right (as in Obsidian)."""
        target = self._source_link_at(pos)
        if target is None or not is_page(target.path):
            return
        menu.addSeparator()
        menu.addAction("Open link in new tab", lambda: self.open_requested.emit(target.path, target.subpath, ""))
        menu.addAction("Open link to the right", lambda: self.open_requested.emit(target.path, target.subpath, "right"))

    # -- links --------------------------------------------------------------------------------------------
    def _hover_target(self, link: Link, key: str) -> HoverTarget | None:
        if self.vault is None:
            return None
        path = self.vault.resolve(link, self.path) if link.target else self.path
        return HoverTarget(path, link.subpath, key) if path is not None else None

    def _source_link_at(self, pos) -> HoverTarget | None:  # noqa: ANN001 - QPoint
        """The link under the mouse in the source (none inside code or frontmatter)."""
        cursor = self.source.cursorForPosition(pos)
        block = cursor.block()
        if prose_state(block.userState()) not in (-1, NORMAL):
            return None
        rect = self.source.cursorRect(cursor)
        if abs(rect.center().x() - pos.x()) > rect.height() or abs(rect.center().y() - pos.y()) > rect.height():
            return None  # past the end of the line, or below the text
        column = cursor.positionInBlock()
        for link in line_links(block.text()):
            if link.start <= column < link.end:
                return self._hover_target(link, f"source:{block.blockNumber()}:{link.start}")
        return None

    def _preview_link_at(self, pos) -> HoverTarget | None:  # noqa: ANN001 - QPoint
        """The vault link under the mouse in the preview: wikilinks, embeds and relative markdown links."""
        href = self.preview.anchorAt(pos)
        if not href or self.vault is None:
            return None
        key = f"preview:{href}"
        embed = parse_embed_href(href)
        if embed is not None:
            path = self._vault_file(embed[0])
            return HoverTarget(path, None, key) if path is not None else None
        wiki = parse_href(href)
        if wiki is not None:
            return self._hover_target(Link(kind=WIKI, start=0, end=0, target=wiki[0], subpath=wiki[1]), key)
        url = QUrl(href)
        if url.scheme():
            return None  # the web, mail, callout toggles
        path_part, _, heading = url.toString(QUrl.ComponentFormattingOption.FullyDecoded).partition("#")
        link = Link(kind=MARKDOWN, start=0, end=0, target=path_part, subpath=heading or None, wiki_syntax=False)
        return self._hover_target(link, key)

    def _vault_file(self, rel: str) -> Path | None:
        """The vault file an ``embed:`` URL names, or None (said on the status bar) when it leads out.

        A page's raw HTML can write any ``embed:`` URL, so the path is checked here, where it is
        opened or read, and not only where it was written.
        """
        if self.vault is None:
            return None
        path = self.vault.root / rel
        if not in_vault_walk(self.vault.root, path):
            self.outside_vault.emit(rel)
            return None
        return path

    def _anchor_clicked(self, url: QUrl) -> None:
        self.follow_link(url.toString())

    def toggle_callout(self, key: str) -> None:
        """Fold or unfold a foldable callout; the choice holds until the page is closed."""
        self.renderer.folds[key] = not self.renderer.callouts.get(key, True)
        self.render_now()

    def follow_link(self, href: str) -> None:
        if href.startswith(TAG_SCHEME + ":"):
            self.tag_activated.emit(unquote(href[len(TAG_SCHEME) + 1 :]))
            return
        if href.startswith(CALLOUT_SCHEME + ":"):
            self.toggle_callout(unquote(href[len(CALLOUT_SCHEME) + 1 :]))
            return
        embed = parse_embed_href(href)
        if embed is not None:
            path = self._vault_file(embed[0])
            if path is not None:
                self.attachment_activated.emit(path)
            return
        wiki = parse_href(href)
        if wiki is not None:
            target, heading = wiki
            if not target:
                if heading:
                    self.goto_heading(heading)
                return
            self.link_activated.emit(target, heading)
            return
        url = QUrl(href)
        if url.scheme() in ("http", "https", "mailto"):
            QDesktopServices.openUrl(url)
            return
        path_part, _, heading = url.toString(QUrl.ComponentFormattingOption.FullyDecoded).partition("#")
        if not path_part:
            if heading:
                self.goto_heading(heading)
            return
        self.path_link_activated.emit(path_part, heading or None)
