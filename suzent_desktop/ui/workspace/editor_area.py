"""The tabs of one editor pane: which pages are open, where a link leads from the focused page,
Back and Forward, and how the pane follows files that change, move or go on disk."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import (
    QMenu,
    QTabWidget,
    QWidget,
)

from suzent_desktop.core import operations
from suzent_desktop.core.files.language.markdown import Link
from suzent_desktop.core.vault.links import in_vault_walk, is_page
from suzent_desktop.core.vault.model import VaultSnapshot
from suzent_desktop.ui.dialogs import prompts
from suzent_desktop.ui.page.views import LIVE
from suzent_desktop.ui.reading.markdown_render import (
    BINARY_SUFFIXES,
    Vault,
    is_attachment_name,
)

if TYPE_CHECKING:
    from suzent_desktop.core.vault.links import VaultIndex
    from suzent_desktop.core.vault.model import Vault as VaultModel  # not the renderer's Vault above

from suzent_desktop.ui.page.editor import PageEditor, read_text


def _open_beside_held() -> bool:
    """Ctrl+Alt (Cmd+Option) held on a link click: Obsidian opens the page in a pane to the right."""
    mods = QGuiApplication.keyboardModifiers()
    return bool(mods & Qt.KeyboardModifier.ControlModifier) and bool(mods & Qt.KeyboardModifier.AltModifier)


def _open_with_system(path: Path) -> bool:
    return QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))


class EditorArea(QTabWidget):
    """Tabs of PageEditors plus a back/forward history of visited pages."""

    current_page_changed = Signal(object)  # Path | None
    page_saved = Signal(object, str)  # (Path, initiator of the editor that saved it: one page may be open twice)
    forget_requested = Signal(str)
    missing_link = Signal(str)  # a wikilink target that names no page
    missing_attachment = Signal(str)  # a link to a file (an image, a PDF…) that is not in the vault
    outside_vault = Signal(str)  # a link target that leads out of the vault: never opened
    reveal_requested = Signal(object)  # Path: show this tab's file in the vault tree
    tag_activated = Signal(str)  # a tag clicked in a page: the window runs ``tag:`` search
    rename_requested = Signal(object, str)  # (Path, new name): a page's inline title was edited
    split_requested = Signal(object, str)  # (Path, "right" | "down"): a tab's Split right / Split down
    open_beside = Signal(object, object)  # (Path, heading): a link Ctrl+Alt+clicked, for a pane to the right
    line_clicked = Signal(object, int)  # (Path, 1-based line): the cursor moved to a line (its source is shown)

    def __init__(self, root: Path, read_only_dirs: tuple[Path, ...] = (), parent: QWidget | None = None,
                 confinement: object = None, *, shared_model: bool = False) -> None:
        """``confinement`` is the home's rule of what links may reach (``Layout.confinement``); without
        it, only the vault itself: a link out of it is not followed by the preview or embeds."""
        super().__init__(parent)
        self.root = Path(root)
        self.confinement = confinement
        self.read_only_dirs = tuple(Path(p) for p in read_only_dirs)
        self.setTabsClosable(True)
        self.setMovable(True)
        self.setDocumentMode(True)
        self.tabCloseRequested.connect(self.close_tab)
        self.currentChanged.connect(self._current_changed)
        # Names, aliases and headings links use: a snapshot of the vault model. The window hands one
        # over after each change (shared_model: the home's model, on its worker threads); a bare
        # editor keeps a model of its folder itself, built on first use.
        self._shared = shared_model
        self._model: VaultModel | None = None  # a bare editor's own model, built on first use
        self._snapshot: VaultSnapshot | None = None
        self.vault = Vault(self.root, lambda link, source: self.pages.resolve_link(link, source), read_text)
        self.open_externally: Callable[[Path], object] = _open_with_system  # images, PDFs…: the system's viewer
        self.editor_mode = LIVE  # the editing view pages open in (the editor_mode setting)
        self.shown: Callable[[str], str] | None = None  # a page's text as it is shown (see PageEditor)
        self.as_written: Callable[[Path], bool] = lambda _path: False  # pages always shown as written
        self.history: list[Path] = []
        self.history_pos = -1
        self._navigating = False
        self.can_split = False  # in split panes (``split_editors``): Split right / down, open to the right
        self.tabBar().setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tabBar().customContextMenuRequested.connect(self._tab_menu)
        self._wires: dict[PageEditor, list[tuple[Any, Callable[..., object]]]] = {}  # see _wire

    def snapshot(self) -> VaultSnapshot:
        """The vault model as this area last heard of it (empty until the window's first one comes)."""
        if self._snapshot is None:
            if self._shared:
                self._snapshot = VaultSnapshot.empty(self.root)
            else:
                if self._model is None:
                    self._model = operations.folder_vault(self.root, getattr(self.confinement, "outside", ()))
                self._snapshot = self._model.snapshot()
        return self._snapshot

    def use_snapshot(self, snapshot: VaultSnapshot) -> None:
        """The window's newest snapshot of the home's vault model (taken on a worker thread)."""
        self._snapshot = snapshot

    @property
    def pages(self) -> VaultIndex:
        """The resolver of the current snapshot (read only: it belongs to the snapshot)."""
        return self.snapshot().index

    def _took_in(self, *paths: Path) -> None:
        """A file event: a bare editor's own model takes it in; the window's model is fed by the window."""
        if self._model is not None:
            self._model.apply(list(paths))
            self._snapshot = None

    # -- tabs ------------------------------------------------------------------------------------------
    def editors(self) -> list[PageEditor]:
        return [w for i in range(self.count()) if isinstance(w := self.widget(i), PageEditor)]

    def editor_for(self, path: Path) -> PageEditor | None:
        path = Path(path)
        return next((e for e in self.editors() if e.path == path), None)

    def current_editor(self) -> PageEditor | None:
        widget = self.currentWidget()
        return widget if isinstance(widget, PageEditor) else None

    def open(self, path: Path, line: int | None = None, heading: str | None = None,
             in_tab: PageEditor | None = None) -> PageEditor | None:
        """Open (or switch to) a file, optionally at a 1-based line or a heading; an image, a PDF… opens outside.
        ``in_tab``: the page opens in that tab, in place of its page (saved first), unless it is open already."""
        path = Path(path)
        if not path.is_file():
            return None
        if path.suffix.lower() in BINARY_SUFFIXES:
            self.open_externally(path)  # never shown as text (nor saved back as text)
            return None
        editor = self.editor_for(path)
        replaced = None
        if editor is None:
            read_only = any(path.is_relative_to(d) for d in self.read_only_dirs)
            editor = PageEditor(path, exists=self._exists, read_only=read_only, names=self.snapshot,
                                vault=self.vault, mode=self.editor_mode,
                                shown=None if read_only or self.as_written(path) else self.shown)  # a log too
            self._wire(editor)
            at = self.indexOf(in_tab) if in_tab is not None and in_tab.conflict is None else -1
            replaced = in_tab if at >= 0 else None
            index = self.insertTab(at + 1, editor, self._title(editor)) if at >= 0 else self.addTab(
                editor, self._title(editor))
            self.setTabToolTip(index, self._rel(path))
        self.setCurrentWidget(editor)
        if replaced is not None:
            self.close_tab(self.indexOf(replaced))
        if heading:
            editor.goto_heading(heading)
        elif line is not None:
            editor.goto_line(line)
        self._push_history(path)
        return editor

    def _wire(self, editor: PageEditor) -> None:
        """Connect ``editor`` to this area; the connections are kept so that :meth:`release` undoes them."""
        wires: list[tuple[Any, Callable[..., object]]] = [
            (editor.saved, lambda p, e=editor: self.page_saved.emit(p, e.initiator)),
            (editor.dirty_changed, lambda _d, e=editor: self._update_title(e)),
            (editor.link_activated, lambda t, h, e=editor: self.follow_wikilink(t, h, e.path, in_tab=e)),
            (editor.path_link_activated,
             lambda t, h, e=editor: self.follow_wikilink(t, h, e.path, markdown=True, in_tab=e)),
            (editor.attachment_activated, self.open_attachment),
            (editor.outside_vault, self.outside_vault.emit),
            (editor.forget_requested, self.forget_requested.emit),
            (editor.tag_activated, self.tag_activated.emit),
            (editor.rename_requested, self.rename_requested.emit),
            (editor.open_requested, self._open_requested),
            (editor.source.cursorPositionChanged,
             lambda e=editor: self.line_clicked.emit(e.path, e.source.textCursor().blockNumber() + 1)),
        ]
        for signal, slot in wires:
            signal.connect(slot)
        self._wires[editor] = wires

    def release(self, index: int) -> PageEditor | None:
        """Take the tab at ``index`` out of this area without closing it, for another pane to
        :meth:`adopt`: its text, unsaved edits and undo history go with it."""
        editor = self.widget(index)
        if not isinstance(editor, PageEditor):
            return None
        for signal, slot in self._wires.pop(editor, []):
            signal.disconnect(slot)
        self.removeTab(index)
        if self.count() == 0:
            self.current_page_changed.emit(None)
        return editor

    def adopt(self, editor: PageEditor, at: int = -1) -> PageEditor:
        """Show an editor another pane let go of (:meth:`release`) as this area's current tab, at
        index ``at`` (default: last)."""
        self._wire(editor)
        index = self.insertTab(at, editor, self._title(editor))
        self.setTabToolTip(index, self._rel(editor.path))
        self.setCurrentWidget(editor)
        self._push_history(editor.path)
        return editor

    def _open_requested(self, path: Path, heading: str | None, where: str) -> None:
        if where and self.can_split:
            self.open_beside.emit(path, heading)
        else:
            self.open(path, heading=heading)

    def let_go(self, editor: PageEditor, ask: Callable[[str], str] | None = None) -> bool:
        """Whether ``editor`` may close without losing words: its unsaved text is saved first. A pending
        conflict (its file changed on disk meanwhile) cannot be saved, so ``ask`` (default: a message box)
        chooses: Keep mine saves the user's text over the disk's, Discard mine leaves the disk's, Cancel
        keeps the tab."""
        if editor.conflict is not None:
            choice = (ask or (lambda name: prompts.ask_keep_or_discard(self, name)))(editor.path.name)
            if choice == prompts.CANCEL:
                return False
            if choice == prompts.DISCARD_MINE:
                return True
            editor.resolve_conflict("keep")
        if editor.dirty:
            editor.save()
        return True

    def close_tab(self, index: int) -> None:
        widget = self.widget(index)
        if isinstance(widget, PageEditor) and not self.let_go(widget):
            return
        self.removeTab(index)
        self._wires.pop(widget, None)  # type: ignore[call-overload]
        if widget is not None:
            widget.deleteLater()
        if self.count() == 0:
            self.current_page_changed.emit(None)

    def tab_menu(self, index: int) -> QMenu:
        """A tab's context menu (as in Obsidian): reveal its file in the tree, close it."""
        menu = QMenu(self)
        editor = self.widget(index)
        if isinstance(editor, PageEditor):
            menu.addAction("Reveal in tree", lambda: self.reveal_requested.emit(editor.path))
            if self.can_split:
                menu.addAction("Split right", lambda: self.split_requested.emit(editor.path, "right"))
                menu.addAction("Split down", lambda: self.split_requested.emit(editor.path, "down"))
        if editor is not None:
            menu.addAction("Close tab", lambda: self.close_tab(self.indexOf(editor)))
        return menu

    def _tab_menu(self, pos) -> None:  # noqa: ANN001 - QPoint
        index = self.tabBar().tabAt(pos)
        if index >= 0:
            self.tab_menu(index).exec(self.tabBar().mapToGlobal(pos))

    def set_view(self, view: str) -> None:
        """The open page's view: "live", "source", "reading", or "toggle" (Reading ⇄ editing)."""
        editor = self.current_editor()
        if editor is not None:
            editor.views.toggle_reading() if view == "toggle" else editor.views.set_view(view)

    def show_find(self, *, replace: bool = False) -> None:
        editor = self.current_editor()
        if editor is not None:
            editor.show_find(replace=replace)

    def save_current(self) -> bool:
        editor = self.current_editor()
        return editor.save() if editor is not None else False

    def save_all(self) -> list[Path]:
        """Save every dirty editor without a pending conflict; returns the files that still are unsaved."""
        unsaved = []
        for editor in self.editors():
            if editor.dirty and not editor.save():
                unsaved.append(editor.path)
        return unsaved

    def _title(self, editor: PageEditor) -> str:
        name = editor.path.stem if editor.path.suffix == ".md" else editor.path.name
        return f"● {name}" if editor.dirty else name

    def _update_title(self, editor: PageEditor) -> None:
        index = self.indexOf(editor)
        if index >= 0:
            self.setTabText(index, self._title(editor))

    def _rel(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def _current_changed(self, _index: int) -> None:
        editor = self.current_editor()
        self.current_page_changed.emit(editor.path if editor else None)

    # -- links -------------------------------------------------------------------------------------------
    def _exists(self, link: Link) -> bool:
        return self.pages.resolve_link(link) is not None

    def resolve(self, target: str, source: Path | None = None) -> Path | None:
        return self.pages.resolve(target, source)

    def follow_wikilink(
        self, target: str, heading: str | None, source: Path | None = None, *, markdown: bool = False,
        in_tab: PageEditor | None = None,
    ) -> PageEditor | None:
        """Open what a link names (the one resolver's rules); a markdown link is relative first. From
        ``in_tab`` while it follows a plain click (``follow_in_place``), the page replaces it there."""
        path = self._resolve_current(target, source, markdown=markdown)
        if path is None:
            if is_attachment_name(target):
                self.missing_attachment.emit(target)  # never offer to make a page named "x.png"
            else:
                self.missing_link.emit(target)
            return None
        if not is_page(path):
            self.open_attachment(path)
            return None
        if self.can_split and _open_beside_held():
            self.open_beside.emit(path, heading)
            return None
        return self.open(path, heading=heading, in_tab=in_tab if in_tab is not None and in_tab.follow_in_place else None)

    def _resolve_current(self, target: str, source: Path | None, *, markdown: bool) -> Path | None:
        """The file a link names, as the index kept by the watcher's events knows it.

        No rescan: walking the vault here cost 142-182 ms of GUI-thread CPU per click on a missing
        page at 5,000 pages. A file deleted behind the index's back is dropped from it in memory
        and the link resolved again, so the click can still find another file of that name.
        """
        path = self.pages.resolve(target, source, relative_first=markdown)
        if path is not None and path != source and not path.exists():
            self._took_in(path)
            pages = self.pages.copy()  # the window's model hears of it from the watcher
            pages.remove(path)
            path = pages.resolve(target, source, relative_first=markdown)
        return path if path is not None and path.exists() else None

    def open_attachment(self, path: Path) -> None:
        """A clicked embed or link to a file: a page opens here, anything else in the system's viewer.

        A path that leads out of the vault is refused: opened here it could be saved over, and the
        system's viewer could run it.
        """
        if not in_vault_walk(self.root, path):
            self.outside_vault.emit(str(path))
            return
        if is_page(path):
            self.open(path)
        else:
            self.open_externally(path)

    # -- file events ----------------------------------------------------------------------------------------
    def _forget_embeds(self) -> None:
        """A file appeared, moved or vanished: an embedded page's links may now name another file."""
        for editor in self.editors():
            editor.renderer.forget_embeds()

    def on_file_added(self, path: Path) -> None:
        self._forget_embeds()
        self._took_in(path)

    def on_file_changed(self, path: Path, initiator: str = "") -> None:
        """A file changed; ``initiator`` names who changed it (the editor that saved it reads nothing again)."""
        self._took_in(path)  # its aliases and headings may have changed
        for other in self.editors():
            if str(path) in other.renderer.embedded_files:
                other.schedule_render()  # an embedded page or image changed: show the new one
        for editor in self.editors():  # a page may be open twice here (a conflicted tab moved in)
            if editor.path == path and editor.initiator != initiator:
                editor.on_disk_changed()

    def on_file_deleted(self, path: Path) -> None:
        if not path.exists():
            self.on_trashed(path)

    def on_moved(self, old: Path, new: Path) -> None:
        """The app renamed/moved a page or folder: open tabs follow, other tabs re-check their text.

        The names follow through the vault model (only the moved paths are looked at).
        """
        self._took_in(old, new)
        self._forget_embeds()
        for editor in self.editors():
            if editor.path == old or editor.path.is_relative_to(old):
                editor.retarget(new / editor.path.relative_to(old) if editor.path != old else new)
                self._update_title(editor)
                self.setTabToolTip(self.indexOf(editor), self._rel(editor.path))
            editor.on_disk_changed()
        self.history = [new if p == old else p for p in self.history]

    def on_trashed(self, path: Path) -> None:
        """A page or folder left the vault: its tabs close, an edited one keeps its text and says so."""
        self._forget_embeds()
        self._took_in(path)  # a deleted folder takes its files with it
        for editor in list(self.editors()):
            if editor.path == path or editor.path.is_relative_to(path):
                if editor.dirty:
                    editor.on_disk_deleted()
                else:
                    self.close_tab(self.indexOf(editor))

    def refresh_theme(self, _dark: bool | None = None) -> None:
        for editor in self.editors():
            editor.refresh_theme()

    # -- history ----------------------------------------------------------------------------------------------
    def _push_history(self, path: Path) -> None:
        if self._navigating:
            return
        if self.history_pos >= 0 and self.history[self.history_pos] == path:
            return
        del self.history[self.history_pos + 1 :]
        self.history.append(path)
        self.history_pos = len(self.history) - 1

    def can_go_back(self) -> bool:
        return self.history_pos > 0

    def can_go_forward(self) -> bool:
        return self.history_pos < len(self.history) - 1

    def go_back(self) -> None:
        self._step(-1)

    def go_forward(self) -> None:
        self._step(1)

    def _step(self, delta: int) -> None:
        pos = self.history_pos + delta
        while 0 <= pos < len(self.history):
            if self.history[pos].exists():
                self.history_pos = pos
                self._navigating = True
                try:
                    self.open(self.history[pos])
                finally:
                    self._navigating = False
                return
            pos += delta
