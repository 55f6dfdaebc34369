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
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from suzent_desktop.core.archive import Archive, ArchiveError
from suzent_desktop.core.clock import SYSTEM_CLOCK, Clock
from suzent_desktop.core.events import ChangeSet
from suzent_desktop.core.facts import Fact
from suzent_desktop.core.layout import Layout, LayoutError, default_home
from suzent_desktop.core.notebook import Notebook
from suzent_desktop.core.recall import Recall, RecallLog
from suzent_desktop.core.tombstones import Tombstones
from suzent_desktop.settings import Settings, load_settings

if TYPE_CHECKING:
    import threading

    from suzent_desktop.core.embedding import Embedder
    from suzent_desktop.core.indexer import Indexer, SearchResponse

# Only a heading: a prose placeholder would be indexed and show up in every search.
MEMORY_MD_HEADER = "# Memory\n"


class MemoryManager:
    """Capture, search, forget and promotion over one home folder."""

    def __init__(
        self,
        layout: Layout,
        settings: Settings,
        clock: Clock,
        embedder: Embedder,
        indexer: Indexer,
    ) -> None:
        self.layout = layout
        self.settings = settings
        self.clock = clock
        self.embedder = embedder
        self.archive = Archive(layout)
        self.notebook = Notebook(layout)
        self.tombstones = Tombstones(layout)
        self.recall = RecallLog(layout)
        self.indexer = indexer

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
    ) -> MemoryManager:
        """Load settings, refuse unusable folders, bootstrap what is missing (never overwriting).

        ``bootstrap=False`` writes nothing (a read-only server on an existing home).

        Raises ``SettingsError`` (naming the file and key), ``LayoutError`` or ``NotebookError``
        (naming the path) before anything is written.
        """
        home = Path(home).expanduser() if home is not None else default_home()
        if home.exists() and not home.is_dir():
            raise LayoutError(f"{home}: the home must be a folder, but it is a file")
        if settings is None:
            settings = load_settings(home)
        layout = Layout.from_settings(home, settings)
        layout.check()
        if bootstrap:
            bootstrap_home(layout)
        if embedder is None:
            from suzent_desktop.core.embedding import make_embedder

            embedder = make_embedder(settings)
        from suzent_desktop.core.indexer import Indexer

        archive, notebook, tombstones = Archive(layout), Notebook(layout), Tombstones(layout)
        indexer = Indexer(layout, embedder, clock, notebook=notebook, archive=archive, tombstones=tombstones)
        manager = cls(layout, settings, clock, embedder, indexer)
        manager.archive, manager.notebook, manager.tombstones = archive, notebook, tombstones
        return manager

    # -- capture -----------------------------------------------------------------
    async def remember(
        self,
        text: str,
        *,
        category: str = "general",
        tags: Iterable[str] = (),
        session_id: str = "manual",
        importance: float | None = None,
    ) -> ChangeSet:
        """Append one fact line to today's log and index just that file's new rows."""
        content = " ".join(text.split())
        if not content:
            raise ValueError("nothing to remember: the text is empty")
        category = (category or "general").strip().lower() or "general"
        fact = Fact(content=content, category=category, tags=tuple(tags), importance=importance)
        return await self._append_and_index([fact], session_id=session_id, when=self.clock.now())

    async def process_conversation_turn_for_memories(
        self,
        user: str,
        assistant: str,
        session_id: str,
        timestamp: dt.datetime | None = None,
    ) -> tuple[list[Fact], ChangeSet]:
        """The per-turn capture path of the design: extract, append one block, index, maybe promote."""
        from suzent_desktop.core import extraction

        turn_text = extraction.turn_to_text(user, assistant)
        facts = list(await extraction.extract_facts(turn_text, self.settings))
        if not facts:
            return [], ChangeSet()
        when = self._capture_time(timestamp)
        changes = await self._append_and_index(facts, session_id=session_id, when=when)
        if any(f.is_important for f in facts):
            changes.merge(await self._refresh_memory_md_from_important(facts))
        return facts, changes

    def _capture_time(self, timestamp: dt.datetime | None) -> dt.datetime:
        """The turn's own time, unless its day is already consolidated or in the future.

        Facts appended to a log at or before the watermark would never be consolidated and
        would be dropped from search, so such a turn goes to today's log instead.
        """
        now = self.clock.now()
        if timestamp is None:
            return now
        day = timestamp.date().isoformat()
        mark = self.watermark()
        if day > self.today() or (mark is not None and day <= mark):
            return now
        return timestamp

    async def _append_and_index(self, facts: list[Fact], *, session_id: str, when: dt.datetime) -> ChangeSet:
        path, lines = await asyncio.to_thread(self.archive.append_turn, facts, session_id=session_id, when=when)
        changes = ChangeSet(logs={when.date().isoformat()}, log_lines=list(lines))
        changes.merge(await self.indexer.sync_paths([path]))
        return changes

    async def _refresh_memory_md_from_important(self, facts: list[Fact]) -> ChangeSet:
        """Compatibility path: high-importance facts refresh MEMORY.md before any dream has run."""
        from suzent_desktop.core import promotion

        try:
            return await promotion.refresh_from_important(self, facts)
        except promotion.PromotionError as exc:  # the facts are captured; MEMORY.md stays as it is
            return ChangeSet(errors=[str(exc)])

    # -- retrieval ---------------------------------------------------------------
    async def search(
        self,
        query: str,
        *,
        limit: int = 10,
        source: str | None = None,
        zone: str | None = None,
        date_from: str | None = None,
        date_to: str | None = None,
        record_recall: bool = True,
    ) -> SearchResponse:
        """Search the index; each returned hit is a recall signal unless the caller is the runner itself."""
        response = await self.indexer.search(
            query, limit=limit, source=source, zone=zone, date_from=date_from, date_to=date_to
        )
        if record_recall and response.hits:
            recalls = [Recall(hit.text, hit.source_type) for hit in response.hits]
            try:
                await asyncio.to_thread(self.recall.record, recalls)
            except OSError:
                pass  # recall signals are best-effort; a read-only vault must not break search
        return response

    async def forget(self, text: str) -> ChangeSet:
        """Tombstone the text, then drop matching rows at once. ``rows_removed == 0``: nothing matched.

        The tombstone is recorded even when no row matched, so a later reindex can never
        bring the text back from a log or page that was not indexed yet.
        """
        normalized = await asyncio.to_thread(self.tombstones.add, text)
        removed = await self.indexer.remove_text(normalized)
        return ChangeSet(tombstones=True, rows_removed=removed, index=removed > 0)

    async def reindex(
        self,
        *,
        full: bool = False,
        progress: Callable[[int, int, str], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> ChangeSet:
        return await self.indexer.sync(full=full, progress=progress, cancel=cancel)

    async def use_embedder(self, embedder: Embedder) -> None:
        """Switch models; the next pass sees the index was built with another and rebuilds it."""
        await self.indexer.use_embedder(embedder)
        self.embedder = embedder

    async def promote_memory_md(self) -> ChangeSet:
        from suzent_desktop.core.promotion import promote

        return await promote(self)

    # -- consolidation state -------------------------------------------------------
    def today(self) -> str:
        return self.clock.today().isoformat()

    def watermark(self) -> str | None:
        return self.notebook.watermark(self.clock.today())

    def pending_dates(self) -> list[str]:
        """Log dates strictly before today and strictly after the effective watermark."""
        today = self.today()
        mark = self.watermark()
        return [d for d in self.archive.dates() if d < today and (mark is None or d > mark)]

    def count_facts(self, dates: Iterable[str]) -> int:
        """Fact lines on those dates, tombstoned ones excluded; unreadable logs count as zero."""
        stones = self.tombstones.contents()
        total = 0
        for date in dates:
            try:
                parsed = self.archive.read(date)
            except (ArchiveError, OSError):
                continue
            total += sum(1 for f in parsed.facts if " ".join(f.fact.content.lower().split()) not in stones)
        return total

    async def status(self) -> dict[str, Any]:
        """Exactly the ``status --json`` document of interfaces.md §3."""
        snapshot = await asyncio.to_thread(self._status_files)
        stats = await self.indexer.stats()
        snapshot["index"] = {
            "rows": stats.rows,
            "by_source": dict(stats.by_source),
            "stale_files": [str(p) for p in stats.stale_files],
            "errors": list(stats.errors),
        }
        return snapshot

    def _status_files(self) -> dict[str, Any]:
        pending = self.pending_dates()
        pending_facts = self.count_facts(pending)
        next_batch = pending[: self.settings.memory_consolidation_max_days]
        lint_due = False
        last_dream: str | None = None
        runner = self._runner()
        if runner is not None:
            gate = runner.gate_status()
            next_batch, lint_due = list(gate.next_batch), bool(gate.lint_due)
            pending_facts = int(gate.pending_facts)
            runs = [r for r in _safe_history(runner) if r.get("outcome") in _DREAM_RUN_OUTCOMES]
            if runs:
                last_dream = runs[0].get("date")
        ingest = self.notebook.last_entry("ingest")
        if last_dream is None and ingest is not None:
            last_dream = ingest.date
        lint = self.notebook.last_entry("lint")
        return {
            "today": self.today(),
            "watermark": self.watermark(),
            "pending_dates": pending,
            "pending_facts": pending_facts,
            "next_batch": next_batch,
            "last_dream": last_dream,
            "last_lint": lint.date if lint is not None else None,
            "lint_due": lint_due,
        }

    def _runner(self) -> Any:
        """A DreamRunner for gate figures, or None while the dream package is not installed."""
        try:
            from suzent_desktop.core.dream.runner import DreamRunner
        except ImportError:
            return None
        return DreamRunner(self)


_DREAM_RUN_OUTCOMES = frozenset({"productive", "no_change", "failed", "skipped"})


def _safe_history(runner: Any) -> list[dict]:
    try:
        return list(runner.history())
    except (OSError, ValueError):
        return []


def bootstrap_home(layout: Layout) -> list[Path]:
    """Create the vault, the memory folders and a MEMORY.md header when missing; never overwrite."""
    created = Notebook(layout).bootstrap()
    for folder in (layout.home, layout.memory_dir, layout.archive_dir):
        if not folder.exists():
            folder.mkdir(parents=True, exist_ok=True)
            created.append(folder)
    if not layout.memory_md.exists():
        try:
            with layout.memory_md.open("x", encoding="utf-8") as handle:
                handle.write(MEMORY_MD_HEADER)
            created.append(layout.memory_md)
        except FileExistsError:
            pass
    return created
