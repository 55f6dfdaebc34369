"""Index: the search index kept in line with the files (``core/index/indexer.py``), and what it is
behind on; forgotten text a pass finds on a page is taken off that page at once (the Forget service).

Asked for by the window (its first pass, the file watcher, `Reindex`), the command line
(``reindex``, the catch-up before a search) and the MCP server (its catch-up before each tool).
LanceDB stays behind this service: no front end holds the indexer.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.services.forget import Forget

if TYPE_CHECKING:
    from suzent_desktop.core.index.indexer import Indexer
    from suzent_desktop.core.index.ranking.search import IndexStats


@dataclass(eq=False)  # a service is itself, not its parts
class Index:
    """Passes over one home's index, with the page strip a pass may call for."""

    indexer: Indexer
    forget: Forget

    async def reindex(
        self,
        *,
        full: bool = False,
        progress: Callable[[int, int, str], None] | None = None,
        cancel: threading.Event | None = None,
        walk: bool = True,
    ) -> ChangeSet:
        """Asked for (a menu, a model switch): the vault is walked even while watched. ``walk=False`` is
        the window's first pass, which the vault model's first walk serves."""
        changes = await self.indexer.sync(full=full, refresh=walk, progress=progress, cancel=cancel)
        return await self.forget.take_off_synced_back(changes)

    async def sync_paths(self, paths: Iterable[Path]) -> ChangeSet:
        """Bring the index in line with these files (a save, a watcher event)."""
        return await self.forget.take_off_synced_back(await self.indexer.sync_paths(list(paths)))

    def watch(self, watching: bool) -> None:
        """A file watcher reports every change from now on (or stopped): the list of stale files and
        the vault model are then trusted without walking the vault (GUI thread: takes no lock)."""
        self.indexer.watch(watching)

    def note_changed(self, paths: Iterable[Path]) -> None:
        """The watcher saw these change: they count as behind until a pass takes them (GUI thread)."""
        self.indexer.note_changed(paths)

    def stale_paths(self) -> list[Path]:
        """Files the index is behind on (blocking: call it from a worker thread)."""
        return list(self.indexer.stale_paths())

    async def stats(self) -> IndexStats:
        """Rows by source, stale files and read errors (the status bar, ``reindex``, ``status``)."""
        return await self.indexer.stats()

    def on_wait(self, notice: Callable[[], None] | None) -> None:
        """Told once when a pass must wait for another process's (a terminal says so)."""
        self.indexer.on_wait = notice
