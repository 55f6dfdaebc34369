"""MemoryManager: the one object the CLI, the app and an agent talk to.

It owns no data of its own. Every mutation is a file edit first (a daily-log append, a
tombstone line, a MEMORY.md rewrite) followed by a reindex of exactly the files that
changed, so the LanceDB index can always be thrown away and rebuilt from disk. Blocking
work (file scans, embedding, LanceDB) runs in worker threads so a Qt event loop that
awaits these coroutines never freezes.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import functools
import logging
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from suzent_desktop.core.engines import promotion
from suzent_desktop.core.engines.dream.lint import run_lint
from suzent_desktop.core.engines.dream.model import LintResult
from suzent_desktop.core.engines.dream.runner import DreamRunner
from suzent_desktop.core.files.archive import ArchiveError
from suzent_desktop.core.files.archive import turn_facts as archive_turn_facts
from suzent_desktop.core.files.clock import SYSTEM_CLOCK, Clock
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.facts import Fact
from suzent_desktop.core.files.text import clean
from suzent_desktop.core.files.tombstones import ForgottenTextError
from suzent_desktop.core.files.transcripts import (
    TranscriptError,
    TranscriptTurn,
    clean_text,
)
from suzent_desktop.core.home import Home, PreparedHome, open_home
from suzent_desktop.core.index import dropped
from suzent_desktop.core.index.dropped import DroppedFact
from suzent_desktop.core.services.capture import append_and_index
from suzent_desktop.core.vault.days import Days
from suzent_desktop.settings import Settings

if TYPE_CHECKING:
    import threading

    from suzent_desktop.core.index.embedding import Embedder
    from suzent_desktop.core.vault.model import VaultSnapshot

log = logging.getLogger(__name__)

EARLIEST_TURN = dt.date(1990, 1, 1)  # a turn claiming an earlier time is filed when it is captured

class MemoryManager:
    """The front door: capture, remember, search, forget, unforget, dream, lint and status over one home.

    It holds one frozen :class:`~suzent_desktop.core.home.Home` (built by ``open_home``, the
    composition root) and reads every part from it; switching the embedder or saving
    settings swaps in a new ``Home``.
    """

    def __init__(self, home: Home) -> None:
        self.home = home
        self.last_turn: TranscriptTurn | None = None  # where the latest capture kept its turn
        self._people: dict[str, str] | None = None  # names the user introduced, read from the logs once

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
        self.home = dataclasses.replace(self.home, settings=settings)

    @property
    def embedder(self) -> Embedder:
        return self.home.embedder

    @embedder.setter
    def embedder(self, embedder: Embedder) -> None:
        self.home = dataclasses.replace(self.home, embedder=embedder)

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
    vault = property(lambda self: self.home.vault)

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
        content = " ".join(clean(text).split())
        if not content:
            raise ValueError("nothing to remember: the text is empty")
        session_id = " ".join(clean(session_id).split()) or "manual"
        category = (category or "general").strip().lower() or "general"
        if self.forgetting.rule().holds(content):
            raise ForgottenTextError(f"not remembered: {content[:80]!r} holds text you asked to forget; "
                                     "forget --undo TEXT brings forgotten text back")
        fact = Fact(content=content, category=category, tags=tuple(tags), importance=importance)
        return await append_and_index(self.archive, self.indexer, [fact], session_id=session_id,
                                      when=self.clock.now())

    async def process_conversation_turn_for_memories(
        self,
        user: str,
        assistant: str,
        session_id: str,
        timestamp: dt.datetime | None = None,
    ) -> tuple[list[Fact], ChangeSet]:
        """The per-turn capture path: keep the turn verbatim, extract, append one block, index.

        The transcript is written before extraction, so a failing extraction model loses
        nothing; each fact is tagged with the id of the turn it came from.
        """
        from suzent_desktop.core.engines import extraction

        if not user.strip() and not assistant.strip():
            raise TranscriptError("nothing to capture: both the user and the assistant text are empty")
        session_id = " ".join(clean(session_id).split()) or "manual"  # a NUL or newline never reaches a header
        turn_time, note = self._turn_time(timestamp)
        changes = ChangeSet()
        paths: list[Path] = []
        turn = None
        if self.settings.memory_keep_transcripts:
            turn = await asyncio.to_thread(
                self.transcripts.append, user, assistant, session_id=session_id, when=turn_time, note=note
            )
            paths.append(turn.path)
        self.last_turn = turn
        if turn is not None:
            earlier = await asyncio.to_thread(self._captured_before, turn.id, timestamp)
            if earlier is not None:  # a client's retry: nothing is extracted, paid for or written twice
                return earlier
        turn_text = extraction.turn_to_text(clean(clean_text(user)), clean(clean_text(assistant)))
        try:
            notes: list[str] = []
            people = await asyncio.to_thread(self._known_people)
            facts = list(
                await extraction.extract_facts(turn_text, self.settings, when=turn_time, notes=notes, people=people)
            )
            people.update(extraction.known_people(f.content for f in facts))
        except extraction.ExtractionError as exc:
            if turn is None:
                raise
            # The turn itself is kept and findable even though no fact came out of it: say where,
            # so the message does not read as if the conversation were lost.
            await self.indexer.sync_paths(paths)
            raise extraction.ExtractionError(f"{exc}; the turn is kept in {turn.path}:{turn.line}") from exc
        changes.errors += notes
        facts, refused = self.forgetting.rule().without(facts)
        if refused:
            changes.errors.append(f"{refused} extracted fact(s) held text you asked to forget and were not written")
        if turn is not None:
            facts = [dataclasses.replace(f, turn=turn.id) for f in facts]
        if facts:
            when = self._capture_time(timestamp)
            path, lines = await asyncio.to_thread(
                self.archive.append_turn, facts, session_id=session_id, when=when,
                turn=turn.id if turn is not None else None,
            )
            changes.merge(ChangeSet(logs={when.date().isoformat()}, log_lines=list(lines)))
            paths.insert(0, path)
        if paths:
            changes.merge(await self.indexer.sync_paths(paths))
        if any(f.is_important for f in facts):
            changes.merge(await self._refresh_memory_md_from_important(facts))
        return facts, changes

    def _captured_before(self, turn: str, timestamp: dt.datetime | None) -> tuple[list[Fact], ChangeSet] | None:
        """The facts a log already holds from this turn (its day's log, or today's for a turn of a
        consolidated day), with where they stand; None when the turn was not captured before."""
        for when in dict.fromkeys((self._turn_time(timestamp)[0].date(), self._capture_time(timestamp).date())):
            path = self.archive.path_for(when)
            try:
                earlier = archive_turn_facts(path.read_bytes(), turn) if path.is_file() else []
            except OSError:
                continue
            if earlier:
                return [f.fact for f in earlier], ChangeSet(
                    logs={when.isoformat()}, log_lines=[f.line for f in earlier],
                    message=f"this turn was captured before (turn {turn}); its facts were not written again")
        return None

    def _known_people(self) -> dict[str, str]:
        """People and animals the user introduced in earlier turns ("my sister Ana"), from the daily logs.

        Read once per process, then kept up to date by each capture (blocking: run in a thread).
        """
        if self._people is None:
            from suzent_desktop.core.engines.extraction import known_people

            contents: list[str] = []
            for date in self.archive.dates():
                try:
                    contents += [line.fact.content for line in self.archive.read(date).facts]
                except (ArchiveError, OSError):
                    continue
            self._people = known_people(contents)
        return self._people

    def _turn_time(self, timestamp: dt.datetime | None) -> tuple[dt.datetime, dict]:
        """When a turn is filed in the transcripts, and a note when its own timestamp was not used.

        Unlike facts, a turn of an already consolidated day keeps its day: transcripts of
        every day stay searchable. Only a missing, future or implausibly old timestamp (before
        1990) is replaced by now.
        """
        now = self.clock.now()
        if timestamp is None:
            return now, {"ts_note": "missing"}
        if timestamp.date().isoformat() > self.today():
            return now, {"ts_note": "future", "claimed_ts": timestamp.isoformat()}
        if timestamp.date() < EARLIEST_TURN:  # 0001-01-01: a default value, not a conversation
            return now, {"ts_note": "past", "claimed_ts": timestamp.isoformat()}
        return timestamp, {}

    def _capture_time(self, timestamp: dt.datetime | None) -> dt.datetime:
        """The turn's own time, unless its day is already consolidated or in the future.

        Facts appended to a log at or before the watermark would never be consolidated and
        would be dropped from search, so such a turn goes to today's log instead.
        """
        now = self.clock.now()
        if timestamp is None:
            return now
        day = timestamp.date().isoformat()
        days = self.days()
        if day > days.today or days.is_consolidated(day) or timestamp.date() < EARLIEST_TURN:
            return now
        return timestamp

    async def _refresh_memory_md_from_important(self, facts: list[Fact]) -> ChangeSet:
        """Compatibility path: high-importance facts refresh MEMORY.md before any dream has run."""
        try:
            return await promotion.refresh_from_important(self.home, facts)
        except promotion.PromotionError as exc:  # the facts are captured; MEMORY.md stays as it is
            return ChangeSet(errors=[str(exc)])

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
        return await self.forgetting.take_off_synced_back(changes)

    async def use_embedder(self, embedder: Embedder) -> None:
        """Switch models; the next pass sees the index was built with another and rebuilds it."""
        await self.indexer.use_embedder(embedder)
        self.embedder = embedder

    async def promote_memory_md(self, *, model_timeout: float | None = None) -> ChangeSet:
        """``model_timeout`` caps the model's summary call (a dream passes the time its run has left)."""
        return await promotion.promote(self.home, model_timeout=model_timeout)

    async def lint(self) -> LintResult:
        """One lint pass over the notebook (findings only; ``## [TODAY] lint`` after a clean pass)."""
        return await run_lint(self.home)

    # -- the index, for views -----------------------------------------------------------
    async def sync_paths(self, paths: Iterable[Path]) -> ChangeSet:
        """Bring the index in line with these files (a save, a watcher event)."""
        return await self.forgetting.take_off_synced_back(await self.indexer.sync_paths(list(paths)))

    def log_path(self, date: str) -> Path:
        """Where a day's log is (written or not)."""
        return self.archive.path_for(date)

    def watermark_error(self) -> str | None:
        """Why the watermark in log.md cannot be trusted, naming the line (None when it can)."""
        return self.notebook.watermark_error(self.clock.today())

    def on_index_wait(self, notice: Callable[[], None] | None) -> None:
        """Told once when an index pass must wait for another process's (a terminal says so)."""
        self.indexer.on_wait = notice

    def watch_files(self, watching: bool) -> None:
        """A file watcher reports every change from now on (or stopped): the index's list of stale
        files and the vault model are then trusted without walking the vault (GUI thread: takes no lock)."""
        self.indexer.watch(watching)

    def note_changed(self, paths: Iterable[Path]) -> None:
        """The watcher saw these change: they count as behind until a pass takes them (GUI thread)."""
        self.indexer.note_changed(paths)

    def take_in(self, paths: Iterable[Path]) -> None:
        """(worker thread) Files changed outside this process: the vault model looks at them again."""
        self.home.vault.apply(list(paths))

    async def vault_snapshot(self, *, parsed: bool = True) -> VaultSnapshot:
        """The vault model as it stands (walked, and read unless ``parsed=False``, on first use, off the event loop)."""
        return await asyncio.to_thread(functools.partial(self.home.vault.snapshot, parsed=parsed))

    def stale_paths(self) -> list[Path]:
        """Files the index is behind on (blocking: call it from a worker thread)."""
        return list(self.indexer.stale_paths())

    async def index_stats(self) -> Any:
        return await self.indexer.stats()

    # -- consolidation state -------------------------------------------------------
    def today(self) -> str:
        return self.clock.today().isoformat()

    def days(self) -> Days:
        """Where each day stands now (the one place for today/pending/consolidated/skipped)."""
        return self.home.days()

    def watermark(self) -> str | None:
        return self.home.watermark()

    def pending_dates(self) -> list[str]:
        """Log dates strictly before today and strictly after the effective watermark."""
        return self.home.pending_dates()

    def count_facts(self, dates: Iterable[str]) -> int:
        """Fact lines on those dates, tombstoned ones excluded; unreadable logs count as zero."""
        forgotten = self.forgetting.rule()
        total = 0
        for date in dates:
            try:
                parsed = self.archive.read(date)
            except (ArchiveError, OSError):
                continue
            total += sum(1 for f in parsed.facts if not forgotten.holds(f.fact.content))
        return total

    def pending_dropped(self) -> list[DroppedFact]:
        """Facts a dream dropped that stay in search until a person confirms the drop, oldest first
        (``core/index/dropped.py``); each has an ``id`` for :meth:`confirm_dropped` and the model's reason."""
        return dropped.pending(self.layout, self.days(), self.tombstones.contents())

    async def confirm_dropped(self, ids: Iterable[str]) -> tuple[list[DroppedFact], ChangeSet]:
        """The person agrees with the model: these dropped facts leave search (their daily logs stay
        on disk as written). An unknown id changes nothing and raises ``UnknownDropped``."""
        confirmed = await asyncio.to_thread(dropped.confirm, self.layout, list(ids))
        logs = sorted({path for f in confirmed for path in self.archive.parts(f.date)})
        changes = await self.indexer.sync_paths(logs) if logs else ChangeSet()
        return confirmed, changes

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
        pending = self.pending_dates()
        pending_facts = self.count_facts(pending)
        next_batch = pending[: self.settings.memory_consolidation_max_days]
        lint_due = False
        last_dream: str | None = None
        not_consolidated: list[dict[str, Any]] = []
        runner = DreamRunner(self)
        gate = runner.gate_status()
        next_batch, lint_due = list(gate.next_batch), bool(gate.lint_due)
        not_consolidated = list(gate.not_consolidated)
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
            "not_consolidated": not_consolidated,
            "dropped_awaiting": len(self.pending_dropped()),  # dropped by a dream, in search until confirmed
            "watermark_error": self.notebook.watermark_error(self.clock.today()),
            "users_files": [{"file": user.name, "app_uses": own.name}
                            for user, own in self.layout.user_nav_files()],
        }



_DREAM_RUN_OUTCOMES = frozenset({"productive", "no_change", "failed", "skipped"})


def _safe_history(runner: Any) -> list[dict]:
    try:
        return list(runner.history())
    except (OSError, ValueError):
        return []
