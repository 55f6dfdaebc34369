"""Live file events for the window, from watchfiles.awatch running as a task on the qasync loop.

The rust watcher blocks in a worker thread (awatch hands it to anyio's thread pool), so the
GUI thread never waits. A folder that appears is reported as ``folder_added``: a file written
right after ``mkdir`` is missed about half the time by the OS watcher, so the tree rescans the
new folder instead of trusting per-file events.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterable
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from watchfiles import Change, awatch

log = logging.getLogger(__name__)


def _ignored(path: Path) -> bool:
    """Editor swap files and our own atomic-write temporaries are noise."""
    name = path.name
    return name.endswith(("~", ".swp", ".swx")) or (name.startswith(".") and name.endswith(".tmp"))


class VaultWatcher(QObject):
    """Emits path-level events for the watched roots (the vault and the memory folder)."""

    added = Signal(object)  # Path of a file that appeared
    modified = Signal(object)  # Path of a file whose content changed
    deleted = Signal(object)  # Path of a file or folder that vanished
    folder_added = Signal(object)  # Path of a folder that appeared (rescan it)
    batch = Signal(object)  # the whole set of (Change, Path) of one awatch batch
    started = Signal()  # the OS watch is in place: writes from now on are seen

    def __init__(self, roots: Iterable[Path], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.roots = [Path(r) for r in roots]
        self._stop = threading.Event()
        self._task: asyncio.Task[None] | None = None
        self.ready = False

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> asyncio.Task[None]:
        """Start watching on the running loop (idempotent)."""
        if self.running:
            assert self._task is not None
            return self._task
        self._stop.clear()
        self.ready = False
        self._task = asyncio.ensure_future(self._watch())
        return self._task

    async def stop(self) -> None:
        """Ask the watcher thread to return, then wait for the task (about one poll step)."""
        self._stop.set()
        task, self._task = self._task, None
        self.ready = False
        if task is not None:
            try:
                await asyncio.wait_for(task, timeout=3)
            except (TimeoutError, asyncio.CancelledError):
                task.cancel()

    async def _watch(self) -> None:
        roots = [str(r) for r in self.roots if r.is_dir()]
        if not roots:
            return
        try:
            # A short rust timeout with yield_on_timeout tells us when the OS watch is in place.
            async for changes in awatch(
                *roots, stop_event=self._stop, debounce=150, step=40, recursive=True,
                rust_timeout=250, yield_on_timeout=True,
            ):
                if not self.ready:
                    self.ready = True
                    self.started.emit()
                if changes:
                    self.dispatch(changes)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a watcher failure must not take the window down
            log.exception("file watcher stopped")
            self.batch.emit({("error", str(exc))})

    def dispatch(self, changes: set[tuple[Change, str]]) -> None:
        """Turn one awatch batch into signals (also called by tests with synthetic batches)."""
        events: list[tuple[Change, Path]] = []
        for change, raw in sorted(changes, key=lambda c: (c[1], int(c[0]))):
            path = Path(raw)
            if _ignored(path):
                continue
            events.append((change, path))
            if change == Change.deleted:
                self.deleted.emit(path)
            elif path.is_dir():
                if change == Change.added:
                    self.folder_added.emit(path)
            elif change == Change.added:
                self.added.emit(path)
            else:
                self.modified.emit(path)
        if events:
            self.batch.emit(events)
