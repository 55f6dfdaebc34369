"""MemoryManager: the one object the CLI, the app and an agent talk to.

It owns no data of its own. Every mutation is a file edit first (a daily-log append, a
tombstone line, a MEMORY.md rewrite) followed by a reindex of exactly the files that
changed, so the LanceDB index can always be thrown away and rebuilt from disk. Blocking
work (file scans, embedding, LanceDB) runs in worker threads so a Qt event loop that
awaits these coroutines never freezes.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from suzent_desktop.core.files.clock import SYSTEM_CLOCK, Clock
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.records.log_grammar import Fact
from suzent_desktop.core.home import Home, PreparedHome, open_home
from suzent_desktop.settings import Settings

if TYPE_CHECKING:

    from suzent_desktop.core.index.embedding import Embedder
    from suzent_desktop.core.vault.model import VaultSnapshot

log = logging.getLogger(__name__)


class MemoryManager:
    """The front door: capture, remember, search, forget, unforget, dream, lint and status over one home.

    It holds one frozen :class:`~suzent_desktop.core.home.Home` (built by ``open_home``, the
    composition root) and reads every part from it; switching the embedder or saving
    settings swaps in a new ``Home``.
    """

    def __init__(self, home: Home) -> None:
        self.home = home

    # -- construction ------------------------------------------------------------
    @classmethod
    def open(
        cls,
        home: Path | None = None,
        *,
        settings: Settings | None = None,
        clock: Clock = SYSTEM_CLOCK,
        embedder: Embedder | None = None,
        bootstrap: bool = True,
        prepared: PreparedHome | None = None,
    ) -> MemoryManager:
        """Open a home through the composition root (:func:`~suzent_desktop.core.home.open_home`).

        ``bootstrap=False`` writes nothing (a read-only server on an existing home).
        Raises ``SettingsError`` (naming the file and key), ``LayoutError`` or ``NotebookError``
        (naming the path) before anything is written.
        """
        return cls(open_home(home, settings=settings, clock=clock, embedder=embedder, bootstrap=bootstrap,
                             prepared=prepared))

    # -- the parts of the home ------------------------------------------------------
    @property
    def settings(self) -> Settings:
        return self.home.settings

    @settings.setter
    def settings(self, settings: Settings) -> None:
        self.home = self.home.with_settings(settings)

    @property
    def embedder(self) -> Embedder:
        return self.home.embedder

    @embedder.setter
    def embedder(self, embedder: Embedder) -> None:
        self.home = self.home.with_embedder(embedder)

    layout = property(lambda self: self.home.layout)
    clock = property(lambda self: self.home.clock)
    indexer = property(lambda self: self.home.indexer)
    archive = property(lambda self: self.home.archive)
    notebook = property(lambda self: self.home.notebook)
    tombstones = property(lambda self: self.home.tombstones)
    transcripts = property(lambda self: self.home.transcripts)
    recall = property(lambda self: self.home.recall)
    forgetting = property(lambda self: self.home.forget)  # forget, undo and the forgotten-text rule
    searching = property(lambda self: self.home.search)  # queries, related rows, hits by id
    capturing = property(lambda self: self.home.capture)  # remember, and each conversation turn
    promoting = property(lambda self: self.home.promote)  # MEMORY.md from pages, recalls and important facts
    linting = property(lambda self: self.home.lint)  # findings over the notebook
    indexing = property(lambda self: self.home.index)  # passes over the index, and what it is behind on
    dreaming = property(lambda self: self.home.dream)  # a dream's runs, its gate, the watermark and the backlog
    reviewing = property(lambda self: self.home.review)  # what the dream learned, and where each memory came from
    last_turn = property(lambda self: self.home.capture.last_turn)  # where the latest capture kept its turn
    vault = property(lambda self: self.home.vault)

    # -- capture -----------------------------------------------------------------
    async def process_conversation_turn_for_memories(
        self, user: str, assistant: str, session_id: str, timestamp: dt.datetime | None = None
    ) -> tuple[list[Fact], ChangeSet]:
        """The per-turn capture (the Capture service), MEMORY.md refreshed when a captured fact is important."""
        return await self.capturing.turn(user, assistant, session_id, timestamp,
                                         important=self.promoting.important)

    async def use_embedder(self, embedder: Embedder) -> None:
        """Switch models; the next pass sees the index was built with another and rebuilds it."""
        await self.indexer.use_embedder(embedder)
        self.embedder = embedder

    # -- for views ---------------------------------------------------------------------------
    def log_path(self, date: str) -> Path:
        """Where a day's log is (written or not)."""
        return self.archive.path_for(date)

    async def vault_snapshot(self, *, parsed: bool = True) -> VaultSnapshot:
        """The vault model as it stands (walked, and read unless ``parsed=False``, on first use, off the event loop)."""
        return await asyncio.to_thread(functools.partial(self.home.vault.snapshot, parsed=parsed))

    # -- status -------------------------------------------------------------------------
    async def status(self) -> dict[str, Any]:
        """The ``status --json`` document of interfaces.md §3, plus ``transcripts`` (days, turns, bad lines)."""
        snapshot = await asyncio.to_thread(self._status_files)
        stats = await self.indexer.stats()
        snapshot["transcripts"] = await asyncio.to_thread(self.transcripts.counts)
        snapshot["index"] = {
            "rows": stats.rows,
            "by_source": dict(stats.by_source),
            "stale_files": [str(p) for p in stats.stale_files],
            "errors": list(stats.errors),
        }
        return snapshot

    def _status_files(self) -> dict[str, Any]:
        return {**self.dreaming.status(), "users_files": [{"file": user.name, "app_uses": own.name}
                                                          for user, own in self.layout.user_nav_files()]}
