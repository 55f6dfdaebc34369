"""What the window does when files change on disk: the tree and the open tabs follow, and the index
queues the changed paths and takes them in a debounced batch.

Kept apart from ``main_window.py`` because it is one idea (the watcher's events and the index queue)
that reads the window's parts but builds none of them. :class:`WatchedFiles` is mixed into
:class:`~suzent_desktop.ui.window.main_window.MainWindow`, which owns ``services``, ``bridge``, ``tree``,
``editors``, ``_index_timer``, ``_pending_index`` and ``_shut_down``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from watchfiles import Change

from suzent_desktop.core import operations
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.vault.model import Kind


class WatchedFiles:
    """The window's file-event handlers and index queue (a mixin: no state of its own)."""

    services: Any
    bridge: Any
    tree: Any
    editors: Any
    _index_timer: Any
    _pending_index: set[Path]
    _shut_down: bool
    refresh_agent: Any  # the window's methods these handlers call
    refresh_names: Any
    _refresh_status: Any
    _on_status_message: Any

    def _on_file_added(self, path: Path) -> None:
        self.tree.add_path(path)
        self.editors.on_file_added(path)
        self.editors.on_file_changed(path)

    def _on_folder_added(self, path: Path) -> None:
        self.tree.add_path(path)
        for page in path.rglob("*.md"):
            self.editors.on_file_added(page)
            self._queue_index(page)

    def _on_file_modified(self, path: Path) -> None:
        self.editors.on_file_changed(path)

    def _on_file_deleted(self, path: Path) -> None:
        self.tree.on_deleted(path)
        self.editors.on_file_deleted(path)

    def _on_watch_batch(self, events: list) -> None:  # noqa: ANN001
        """What the watcher saw: each path is handled by its kind (one classifier, so a daily log kept
        inside the vault is a log), the vault model takes the vault's paths in on a worker thread,
        and the index queues what it holds."""
        layout = self.services.layout
        manager = self.services.manager
        changes = ChangeSet()
        in_vault: list[Path] = []
        for change, path in events:
            if change == "error":  # the watcher stopped; the tree no longer updates by itself
                self._on_status_message(f"Error: file watching stopped: {path}")
                self._index_watched(False)
                continue
            if path == layout.mcp_activity_file:
                self.refresh_agent()
                continue
            if not isinstance(path, Path):
                continue
            kind = operations.path_kind(manager, path)
            if path.is_relative_to(layout.notebook_dir) and kind is not Kind.HIDDEN:
                in_vault.append(path)
            if kind is Kind.LOG:
                changes.logs.add(path.stem)
                self._queue_index(path)
            elif kind is Kind.CORE:
                changes.memory_md = changes.memory_md or path == layout.memory_md
                self._queue_index(path)
            elif kind is Kind.CANVAS or (change == Change.deleted and path.suffix.lower() != ".md"):
                if path.is_relative_to(layout.notebook_dir):  # a board, or a folder removed or renamed away
                    self._queue_index(path)
            elif kind in (Kind.PAGE, Kind.NAV):
                changes.pages.add(path)
                self._queue_index(path)
            elif path.suffix.lower() == ".md" and path.is_relative_to(layout.memory_dir):
                self._queue_index(path)
        if in_vault:  # the model takes them in on a worker; the editors get the new snapshot
            self.services.submit(self.refresh_names(in_vault))
        if not changes.empty:
            self.bridge.changed.emit(changes)

    def _index_watched(self, watching: bool) -> None:
        """The index trusts its cached list of stale files only while the watcher reports changes."""
        self.services.manager.indexing.watch(watching)

    def _queue_index(self, path: Path) -> None:
        if any(part.startswith(".") for part in path.parts[-3:]):
            return
        self.services.manager.indexing.note_changed([path])  # counted as behind until the sync below takes it
        self._pending_index.add(path)
        self.bridge.index_stale.emit(len(self._pending_index))  # at least these wait; refreshed after the sync
        self._index_timer.start()

    def _flush_index(self) -> None:
        paths, self._pending_index = sorted(self._pending_index), set()
        if paths and not self._shut_down:
            self.services.submit(self._sync_paths(paths))

    async def _sync_paths(self, paths: list[Path]) -> ChangeSet:
        changes = await self.services.manager.indexing.sync_paths(paths)
        await self._refresh_status()
        return changes
