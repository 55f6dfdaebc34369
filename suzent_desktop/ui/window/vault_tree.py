"""The vault tree: zones in their order, pages by name, kept live from file events.

It is filled from the vault model (its folders, empty ones too, and its files): in the window the
model's one walk, taken once the watcher is in place, fills it; the tree lists the disk itself only
when no model is walked or coming (a tree opened alone) and when asked to look again (:meth:`reload`).
Updates are incremental (add one item, drop one item, rescan one new folder) so a big vault
never rebuilds on each save. Hidden folders (``.state``, ``.trash``, ``.obsidian``) never
show. File operations go through :mod:`suzent_desktop.core.operations`; their ChangeSet is
applied by ``AppServices.apply``, which updates this tree at once (rather than waiting for the
watcher) and then reports the change on the bus.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QAction, QDropEvent, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QMenu, QStyle, QTreeWidget, QTreeWidgetItem, QWidget

from suzent_desktop.core import operations
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.paths.layout import ROOT_NAV_FILES, ZONES
from suzent_desktop.core.vault.vault_ops import TrashRecord, VaultOpError
from suzent_desktop.ui.base.services import AppServices
from suzent_desktop.ui.dialogs.prompts import Prompter

if TYPE_CHECKING:
    from suzent_desktop.core.vault.model import VaultSnapshot

PATH_ROLE = Qt.ItemDataRole.UserRole
IS_DIR_ROLE = Qt.ItemDataRole.UserRole + 1
_ZONE_RANK = {zone: rank for rank, zone in enumerate(ZONES)}


class VaultTree(QTreeWidget):
    """Left-hand navigator over the notebook folder."""

    page_activated = Signal(object)  # Path of a page the user opened
    page_moved = Signal(object, object)  # (old Path, new Path) after rename/move (files and folders)
    page_deleted = Signal(object)  # Path moved to trash

    def __init__(self, services: AppServices, prompter: Prompter | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.prompter = prompter or Prompter(self)
        self.root = services.layout.notebook_dir
        self._root_str = str(self.root)
        self.trash_dir = services.layout.trash_dir
        self._items: dict[Path, QTreeWidgetItem] = {}
        self._keys: dict[str, tuple] = {}  # path -> sort key, for binary-search insertion
        self.undo_stack: list[TrashRecord] = []
        self.setHeaderHidden(True)
        self.setUniformRowHeights(True)
        self.setAnimated(True)
        self.setIndentation(14)
        # Drag a page or folder onto a folder (or a page in it) to move it there; the files move
        # and links are rewritten by the move operation, never by Qt moving items on its own.
        self.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.setDropIndicatorShown(True)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._context_menu)
        self.itemActivated.connect(self._activated)
        self.itemClicked.connect(self._activated)
        style = self.style()
        self._dir_icon = style.standardIcon(QStyle.StandardPixmap.SP_DirIcon)
        self._file_icon = style.standardIcon(QStyle.StandardPixmap.SP_FileIcon)
        self._muted = self.palette().placeholderText()
        self.undo_action = QAction("Undo delete", self)
        self.undo_action.setShortcut(QKeySequence.StandardKey.Undo)
        self.undo_action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        self.undo_action.triggered.connect(self.undo_delete)
        self.addAction(self.undo_action)
        self.initiator = f"tree:{id(self)}"  # on the changes the tree makes: it shows them at once, not on their echo
        services.files_changed.connect(self.apply)
        # While the window's first snapshot of the vault model is on its way: what file events said,
        # (shown?, path) in order, taken in after the fill. None once filled.
        self._early: list[tuple[bool, Path]] | None = None
        self._first_fill()

    # -- model -------------------------------------------------------------------------------
    def _visible(self, path: Path) -> bool:
        try:
            rel = path.relative_to(self.root)
        except ValueError:
            return False
        return bool(rel.parts) and not any(part.startswith(".") for part in rel.parts)

    def _relpath(self, path: Path) -> str:
        """Vault-relative posix path by string slicing (Path.relative_to is slow for big vaults)."""
        text = str(path)
        if text == self._root_str:
            return ""
        return text[len(self._root_str) + 1 :].replace(os.sep, "/")

    def _sort_key(self, path: Path, is_dir: bool) -> tuple:
        rel = self._relpath(path)
        if is_dir:
            return (0, _ZONE_RANK.get(rel, len(ZONES)), path.name.lower())
        nav = "/" not in rel and path.name in ROOT_NAV_FILES
        return (1, 1 if nav else 0, path.name.lower())

    def _first_fill(self) -> None:
        """Fill from the vault model when it is walked; wait for the window to hand over its first
        snapshot when that walk is waiting for the watcher (the window's start: listing the vault
        here as well would list it twice); else (no model walked or coming) look at the disk."""
        manager = self.services.manager
        snapshot = operations.walked_snapshot(manager)
        if snapshot is not None:
            self.fill(snapshot)
        elif operations.vault_walks_held(manager):
            self._early = []
        else:
            self.reload()

    @property
    def waiting(self) -> bool:
        """Whether the tree waits for the vault model's first snapshot (:meth:`fill`)."""
        return self._early is not None

    def fill(self, snapshot: VaultSnapshot) -> None:
        """Show the vault as the model holds it: its folders (empty ones too) and files; each
        folder's entries are sorted once and added together, so a big vault fills in n log n.
        What file events said while the snapshot was on its way is taken in after."""
        below: dict[str, list[tuple[Path, bool]]] = {}
        for folder in snapshot.folders():
            below.setdefault(str(folder.parent), []).append((folder, True))
        for file in snapshot.files():
            below.setdefault(str(file.parent), []).append((file, False))
        early, self._early = self._early or [], None
        self._refill(lambda: self._add_children(below))
        for shown, path in early:
            if shown:
                self.add_path(path)
            else:
                self.on_deleted(path)

    def reload(self) -> None:
        """Look at the disk again, the whole vault (a tree with no model to fill from, or asked to);
        later changes arrive one path at a time."""
        self._early = None
        self._refill(lambda: self._scan_into(self.root) if self.root.is_dir() else None)

    def _refill(self, fill) -> None:  # noqa: ANN001 - a callable adding the items
        expanded = {p for p, item in self._items.items() if item.isExpanded()}
        self.clear()
        self._items.clear()
        self._keys.clear()
        fill()
        for path in expanded:
            item = self._items.get(path)
            if item is not None:
                item.setExpanded(True)

    def _add_children(self, below: dict[str, list[tuple[Path, bool]]]) -> None:
        """Every entry of ``below`` (folder -> its entries) under its folder's item, root first."""
        stack: list[tuple[str, QTreeWidgetItem | None]] = [(self._root_str, None)]
        while stack:
            folder, parent_item = stack.pop()
            items = self._sorted_items(below.get(folder, []))
            if parent_item is not None:
                parent_item.addChildren(items)
            else:
                self.addTopLevelItems(items)
            stack.extend((item.data(0, PATH_ROLE), item) for item in items if item.data(0, IS_DIR_ROLE))

    def _sorted_items(self, entries: list[tuple[Path, bool]]) -> list[QTreeWidgetItem]:
        """Items for one folder's entries, in the tree's order, recorded for later insertions."""
        items = []
        for key, text, path, is_dir in sorted((self._sort_key(p, d), str(p), p, d) for p, d in entries):
            self._keys[text] = key
            item = self._make_item(path, is_dir)
            self._items[path] = item
            items.append(item)
        return items

    def _scan_into(self, folder: Path) -> None:
        for dirpath, dirs, files in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            base = Path(dirpath)
            entries = [(base / n, True) for n in dirs] + [(base / n, False) for n in files if not n.startswith(".")]
            parent_item = None if base == self.root else self._ensure_item(base, True)
            if base != self.root and parent_item is None:
                continue
            empty = (parent_item.childCount() if parent_item is not None else self.topLevelItemCount()) == 0
            if not empty:  # a rescan of a known folder: insert the new entries one by one
                for path, is_dir in entries:
                    self._ensure_item(path, is_dir)
                continue
            items = self._sorted_items(entries)
            if parent_item is not None:
                parent_item.addChildren(items)
            else:
                self.addTopLevelItems(items)

    def top_folders(self) -> list[str]:
        """The names of the vault's top folders as the tree shows them (the app's zones first)."""
        items = (self.topLevelItem(i) for i in range(self.topLevelItemCount()))
        return [item.text(0) for item in items if item is not None and item.data(0, IS_DIR_ROLE)]

    def item_for(self, path: Path) -> QTreeWidgetItem | None:
        return self._items.get(Path(path))

    def paths(self) -> list[Path]:
        return sorted(self._items)

    def _ensure_item(self, path: Path, is_dir: bool) -> QTreeWidgetItem | None:
        if not self._visible(path):
            return None
        existing = self._items.get(path)
        if existing is not None:
            return existing
        parent_item = None
        if path.parent != self.root:
            parent_item = self._ensure_item(path.parent, True)
            if parent_item is None:
                return None
        item = self._make_item(path, is_dir)
        key = self._sort_key(path, is_dir)
        self._keys[str(path)] = key
        index = self._insert_index(parent_item, key)
        if parent_item is not None:
            parent_item.insertChild(index, item)
        else:
            self.insertTopLevelItem(index, item)
        self._items[path] = item
        return item

    def _insert_index(self, parent_item: QTreeWidgetItem | None, key: tuple) -> int:
        """Binary search among the siblings (kept sorted), so a big folder loads in n log n."""
        count = parent_item.childCount() if parent_item is not None else self.topLevelItemCount()
        lo, hi = 0, count
        while lo < hi:
            mid = (lo + hi) // 2
            sibling = parent_item.child(mid) if parent_item is not None else self.topLevelItem(mid)
            assert sibling is not None  # mid < count
            if self._keys[sibling.data(0, PATH_ROLE)] <= key:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def _make_item(self, path: Path, is_dir: bool) -> QTreeWidgetItem:
        page = not is_dir and path.name.lower().endswith(".md")
        item = QTreeWidgetItem([path.name[:-3] if page else path.name])
        item.setToolTip(0, self._relpath(path))
        item.setData(0, PATH_ROLE, str(path))
        item.setData(0, IS_DIR_ROLE, is_dir)
        item.setIcon(0, self._dir_icon if is_dir else self._file_icon)
        if not is_dir and not page:
            item.setForeground(0, self._muted)
        return item

    def add_path(self, path: Path) -> None:
        """A file or folder appeared; a folder is rescanned (files written right after mkdir are often missed)."""
        path = Path(path)
        if self._early is not None:
            self._early.append((True, path))
            return
        if not path.exists() or not self._visible(path):
            return
        if path.is_dir():
            self._ensure_item(path, True)
            self._scan_into(path)
        else:
            self._ensure_item(path, False)

    def remove_path(self, path: Path) -> None:
        path = Path(path)
        if self._early is not None:
            self._early.append((False, path))
            return
        item = self._items.get(path)
        if item is None:
            return
        for known in [p for p in self._items if p == path or p.is_relative_to(path)]:
            self._items.pop(known, None)
            self._keys.pop(str(known), None)
        parent = item.parent()
        if parent is not None:
            parent.removeChild(item)
        else:
            self.takeTopLevelItem(self.indexOfTopLevelItem(item))

    def on_deleted(self, path: Path) -> None:
        """Watcher: a path vanished (ignore it if it still exists, e.g. an atomic replace)."""
        if not Path(path).exists():
            self.remove_path(path)

    def select_path(self, path: Path | None) -> None:
        item = self._items.get(Path(path)) if path is not None else None
        if item is None:
            return
        parent = item.parent()
        while parent is not None:
            parent.setExpanded(True)
            parent = parent.parent()
        self.blockSignals(True)
        self.setCurrentItem(item)
        self.blockSignals(False)
        self.scrollToItem(item)

    def selected_path(self) -> Path | None:
        item = self.currentItem()
        return Path(item.data(0, PATH_ROLE)) if item is not None else None

    def folders(self) -> list[Path]:
        return [self.root] + sorted(p for p, item in self._items.items() if item.data(0, IS_DIR_ROLE))

    def _activated(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        if not item.data(0, IS_DIR_ROLE):
            self.page_activated.emit(Path(item.data(0, PATH_ROLE)))

    # -- operations -------------------------------------------------------------------------------
    def apply(self, changes: ChangeSet) -> None:
        """Show what another view's file operation did (``AppServices.files_changed``); the tree's own
        operations were shown when they returned, so their echo is ignored."""
        if changes.initiator != self.initiator:
            self._show(changes)

    def _show(self, changes: ChangeSet) -> None:
        """Show a file operation's record, and say it on ``page_moved`` / ``page_deleted``."""
        for old, new in changes.moved:
            self.remove_path(old)
            self.add_path(new)
            self.page_moved.emit(old, new)
        for original, _copy in changes.trashed:
            self.remove_path(original)
            self.page_deleted.emit(original)
        for path in changes.removed:
            self.remove_path(path)
        for path in changes.added | changes.folders:
            self.add_path(path)

    def _run(self, operation, *args, **options) -> ChangeSet | None:  # noqa: ANN001, ANN003 - any operation of core.operations
        """Run one operation and apply its changes; a refusal is shown, never raised into Qt."""
        try:
            changes = operation(*args, initiator=self.initiator, **options)
        except (VaultOpError, OSError) as exc:
            self._fail(exc)
            return None
        self._show(changes)
        self.services.apply(changes)
        return changes

    def _fail(self, exc: Exception) -> None:
        self.services.last_error = str(exc)
        self.services.bridge.status_message.emit(f"Error: {exc}")
        self.prompter.error("Suzent", str(exc))

    def create_page(self, folder: Path | None = None, name: str | None = None) -> Path | None:
        folder = folder or self.root
        if name is None:
            name = self.prompter.ask_text("New page", f"Page name in {self._rel(folder)}:")
            if name is None:
                return None
        changes = self._run(operations.create_page, self.root, folder, name)
        if changes is None:
            return None
        (path,) = changes.added
        self.select_path(path)
        self.page_activated.emit(path)
        return path

    def create_folder(self, parent: Path | None = None, name: str | None = None) -> Path | None:
        parent = parent or self.root
        if name is None:
            name = self.prompter.ask_text("New folder", f"Folder name in {self._rel(parent)}:")
            if name is None:
                return None
        changes = self._run(operations.create_folder, self.root, parent, name)
        if changes is None:
            return None
        (path,) = changes.folders
        self.select_path(path)
        return path

    def rename(self, path: Path, new_name: str | None = None) -> Path | None:
        """Rename a page (rewriting links to it across the vault) or a folder."""
        if new_name is None:
            new_name = self.prompter.ask_text("Rename", "New name:", path.stem if path.is_file() else path.name)
            if new_name is None:
                return None
        return self._moved(self._run(operations.rename, self.root, path, new_name, vault=self._model()), path)

    def move_path(self, path: Path, folder: Path | None = None) -> Path | None:
        if folder is None:
            choices = [f for f in self.folders() if f != path.parent and not (path.is_dir() and f.is_relative_to(path))]
            labels = [self._rel(f) for f in choices]
            picked = self.prompter.choose("Move", f"Move {path.name} to:", labels)
            if picked is None:
                return None
            folder = choices[labels.index(picked)]
        return self._moved(self._run(operations.move, self.root, path, folder / path.name, vault=self._model()), path)

    def _model(self):  # noqa: ANN202 - the home's Vault, or None
        """The home's vault model once walked: a move then reads only the files linking to what moves."""
        return operations.vault_model(self.services.manager)

    def _moved(self, changes: ChangeSet | None, old: Path) -> Path | None:
        """Where a move put ``old`` (selected), or None when it was refused."""
        if changes is None:
            return None
        new = changes.moved[0][1] if changes.moved else old
        self.select_path(new)
        return new

    def drop_target(self, item: QTreeWidgetItem | None) -> Path:
        """The folder a drop on ``item`` lands in: the folder itself, a page's folder, or the vault root."""
        if item is None:
            return self.root
        path = Path(item.data(0, PATH_ROLE))
        return path if item.data(0, IS_DIR_ROLE) else path.parent

    def move_many(self, paths: list[Path], folder: Path) -> list[Path]:
        """Move each path into ``folder``; what is already there or would go inside itself stays."""
        moved = []
        for path in paths:
            if path.parent == folder or folder == path or folder.is_relative_to(path):
                continue
            new = self.move_path(path, folder)
            if new is not None:
                moved.append(new)
        return moved

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 - Qt override
        if not event.mimeData().hasFormat(self.mimeTypes()[0]):  # only this tree's own items
            event.ignore()
            return
        folder = self.drop_target(self.itemAt(event.position().toPoint()))
        paths = [Path(item.data(0, PATH_ROLE)) for item in self.selectedItems()]
        event.setDropAction(Qt.DropAction.IgnoreAction)  # the items move when the files have moved
        event.accept()
        self.move_many(paths, folder)

    def delete(self, path: Path, *, confirm: bool = True) -> TrashRecord | None:
        """Move to ``.trash`` (undoable with Ctrl+Z in the tree or Edit ▸ Undo delete)."""
        if confirm and not self.prompter.confirm(
            "Delete", f"Move {self._rel(path)} to the trash?\nYou can undo this.", ok="Move to trash"
        ):
            return None
        changes = self._run(operations.trash, self.root, self.trash_dir, path)
        if changes is None:
            return None
        record = TrashRecord(*changes.trashed[0])
        self.undo_stack.append(record)
        return record

    def undo_delete(self) -> Path | None:
        if not self.undo_stack:
            self.services.bridge.status_message.emit("Nothing to undo")
            return None
        record = self.undo_stack.pop()
        changes = self._run(operations.restore, self.root, record.original, record.trashed)
        if changes is None:
            return None
        self.select_path(record.original)
        return record.original

    def _rel(self, path: Path) -> str:
        if path == self.root:
            return "the vault root"
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    # -- context menu ------------------------------------------------------------------------------
    def _context_menu(self, pos: QPoint) -> None:
        item = self.itemAt(pos)
        menu = self.build_menu(Path(item.data(0, PATH_ROLE)) if item is not None else None)
        menu.exec(self.viewport().mapToGlobal(pos))

    def build_menu(self, path: Path | None) -> QMenu:
        """The context menu for ``path`` (None: the vault root)."""
        menu = QMenu(self)
        folder = path if path is not None and path.is_dir() else (path.parent if path is not None else self.root)
        menu.addAction("New page…", lambda: self.create_page(folder))
        menu.addAction("New folder…", lambda: self.create_folder(folder))
        if path is not None:
            menu.addSeparator()
            if path.is_file():
                menu.addAction("Open", lambda: self.page_activated.emit(path))
            menu.addAction("Rename…", lambda: self.rename(path))
            menu.addAction("Move to…", lambda: self.move_path(path))
            menu.addAction("Delete (move to trash)", lambda: self.delete(path))
        if self.undo_stack:
            menu.addSeparator()
            menu.addAction(f"Undo delete of {self.undo_stack[-1].original.name}", self.undo_delete)
        return menu
