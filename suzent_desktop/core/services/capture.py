"""Capture: a fact the user states, or a conversation turn, goes into the day's log (the turn kept
verbatim in the transcripts first), and the index takes that log at once.

What the write guard refuses is the one forgotten-text rule (``core/vault/forgotten.py``): text
a person asked to forget is never written back by a capture.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import datetime as dt
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from suzent_desktop.core.files.clock import Clock
from suzent_desktop.core.files.disk.text_hygiene import clean
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.records.archive import Archive, ArchiveError
from suzent_desktop.core.files.records.archive import turn_facts as archive_turn_facts
from suzent_desktop.core.files.records.log_grammar import Fact
from suzent_desktop.core.files.records.tombstones import ForgottenTextError, Tombstones
from suzent_desktop.core.files.records.transcripts import (
    TranscriptError,
    Transcripts,
    TranscriptTurn,
    clean_text,
)
from suzent_desktop.core.index.storage.fair_lock import IndexBusy
from suzent_desktop.core.vault.days import Days
from suzent_desktop.core.vault.forgotten import Forgotten
from suzent_desktop.core.vault.notebook import Notebook
from suzent_desktop.settings import Settings

if TYPE_CHECKING:
    from suzent_desktop.core.index.indexer import Indexer

EARLIEST_TURN = dt.date(1990, 1, 1)  # a turn claiming an earlier time is filed when it is captured
CONTEXT_TURNS = 6  # earlier turns of the conversation an extraction model reads with the new one
CONTEXT_CHARS = 1_500  # of each side of such a turn


async def append_and_index(
    archive: Archive, indexer: Indexer, facts: list[Fact], *, session_id: str, when: dt.datetime
) -> ChangeSet:
    """Append ``facts`` as one block of the day's log, then index that log; an index another process
    holds leaves the facts in the log for the next pass (the caller never hangs on it)."""
    path, lines = await asyncio.to_thread(archive.append_turn, facts, session_id=session_id, when=when)
    changes = ChangeSet(logs={when.date().isoformat()}, log_lines=list(lines))
    try:
        changes.merge(await indexer.sync_paths([path]))
    except IndexBusy as exc:
        changes.errors.append(f"written to {path.name}, not indexed yet: {exc}")
    return changes


@dataclass(eq=False)  # a service is itself, not its parts
class Capture:
    """Remember and capture over one home's logs, transcripts and index."""

    settings: Settings
    clock: Clock
    _: KW_ONLY
    archive: Archive
    transcripts: Transcripts
    notebook: Notebook
    indexer: Indexer
    tombstones: Tombstones
    last_turn: TranscriptTurn | None = field(default=None, init=False)  # where the latest capture kept its turn
    _people: dict[str, str] | None = field(default=None, init=False)  # names the user introduced, read once

    def with_settings(self, settings: Settings) -> Capture:
        """This service under new settings (the names it learnt kept): a home's settings are replaced, never edited."""
        changed = copy.copy(self)  # (not dataclasses.replace: the names learnt and the last turn stay)
        changed.settings = settings
        return changed

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
        if Forgotten(self.tombstones.contents()).holds(content):
            raise ForgottenTextError(f"not remembered: {content[:80]!r} holds text you asked to forget; "
                                     "forget --undo TEXT brings forgotten text back")
        fact = Fact(content=content, category=category, tags=tuple(tags), importance=importance)
        return await append_and_index(self.archive, self.indexer, [fact], session_id=session_id,
                                      when=self.clock.now())

    async def turn(
        self,
        user: str,
        assistant: str,
        session_id: str,
        timestamp: dt.datetime | None = None,
        *,
        important: Callable[[list[Fact]], Awaitable[ChangeSet]] | None = None,
    ) -> tuple[list[Fact], ChangeSet]:
        """The per-turn capture path: keep the turn verbatim, extract, append one block, index.

        The transcript is written before extraction, so a failing extraction model loses
        nothing; each fact is tagged with the id of the turn it came from. ``important`` is told the
        facts of a turn captured now (not a client's retry) when any of them is important.
        """
        from suzent_desktop.core.engines.capture import extraction
        from suzent_desktop.core.engines.capture.offline import known_people

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
            context = await asyncio.to_thread(self._context, turn)
            facts = list(await extraction.extract_facts(
                turn_text, self.settings, when=turn_time, notes=notes, people=people, context=context))
            people.update(known_people(f.content for f in facts))
        except extraction.ExtractionError as exc:
            if turn is None:
                raise
            # The turn itself is kept and findable even though no fact came out of it: say where,
            # so the message does not read as if the conversation were lost.
            await self.indexer.sync_paths(paths)
            raise extraction.ExtractionError(f"{exc}; the turn is kept in {turn.path}:{turn.line}") from exc
        changes.errors += notes
        facts, refused = Forgotten(self.tombstones.contents()).without(facts)
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
        if important is not None and any(f.is_important for f in facts):
            changes.merge(await important(facts))
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

    def _context(self, turn: TranscriptTurn | None) -> list[tuple[str, str]]:
        """The turns of the same conversation kept before ``turn`` that day (the last
        :data:`CONTEXT_TURNS`, each side cut at :data:`CONTEXT_CHARS`): a model reading "I've been
        playing for four months" must see the turn that named the violin, and the offline extractor reads
        the assistant's last question in it (blocking: run in a thread)."""
        if turn is None:
            return []
        try:
            earlier = [t for t in self.transcripts.read(turn.date).turns
                       if t.session == turn.session and t.ts <= turn.ts and t.id != turn.id]
        except OSError:
            return []  # the context helps the model; the turn is captured without it
        return [(clean(clean_text(t.user))[:CONTEXT_CHARS], clean(clean_text(t.assistant))[:CONTEXT_CHARS])
                for t in earlier[-CONTEXT_TURNS:]]

    def _known_people(self) -> dict[str, str]:
        """People and animals the user introduced in earlier turns ("my sister Ana"), from the daily logs.

        Read once per process, then kept up to date by each capture (blocking: run in a thread).
        """
        if self._people is None:
            from suzent_desktop.core.engines.capture.offline import known_people

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
        if timestamp.date().isoformat() > self.clock.today().isoformat():
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
        days = Days.read(self.notebook, self.clock.today())
        if day > days.today or days.is_consolidated(day) or timestamp.date() < EARLIEST_TURN:
            return now
        return timestamp
