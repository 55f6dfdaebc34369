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

from suzent_desktop.core.engines import forget_match, forgetting, promotion
from suzent_desktop.core.engines.dream.lint import run_lint
from suzent_desktop.core.engines.dream.model import LintResult
from suzent_desktop.core.engines.dream.runner import DreamRunner
from suzent_desktop.core.engines.recall import Recall
from suzent_desktop.core.files.archive import ArchiveError
from suzent_desktop.core.files.archive import turn_facts as archive_turn_facts
from suzent_desktop.core.files.clock import SYSTEM_CLOCK, Clock
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.facts import Fact
from suzent_desktop.core.files.regular import read_regular
from suzent_desktop.core.files.text import clean
from suzent_desktop.core.files.tombstones import (
    ForgottenTextError,
    forgotten_in,
    normalize,
    without_forgotten,
)
from suzent_desktop.core.files.transcripts import (
    TranscriptError,
    TranscriptTurn,
    clean_text,
    turn_chunks,
    turn_key,
)
from suzent_desktop.core.home import Home, PreparedHome, open_home
from suzent_desktop.core.index import dropped, hits
from suzent_desktop.core.index.dropped import DroppedFact
from suzent_desktop.core.index.fair_lock import IndexBusy
from suzent_desktop.core.index.filters import Filters
from suzent_desktop.core.vault.days import Days
from suzent_desktop.core.vault.links import inside_vault
from suzent_desktop.core.vault.model import Kind
from suzent_desktop.settings import Settings

if TYPE_CHECKING:
    import threading

    from suzent_desktop.core.index.embedding import Embedder
    from suzent_desktop.core.index.hits import SearchHit
    from suzent_desktop.core.index.search import SearchResponse
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
    forget_journal = property(lambda self: self.home.forget_journal)
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
        if forgotten_in(content, self.tombstones.contents()):
            raise ForgottenTextError(f"not remembered: {content[:80]!r} holds text you asked to forget; "
                                     "forget --undo TEXT brings forgotten text back")
        fact = Fact(content=content, category=category, tags=tuple(tags), importance=importance)
        return await self._append_and_index([fact], session_id=session_id, when=self.clock.now())

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
        facts, refused = without_forgotten(facts, self.tombstones.contents())
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

    async def _append_and_index(self, facts: list[Fact], *, session_id: str, when: dt.datetime) -> ChangeSet:
        path, lines = await asyncio.to_thread(self.archive.append_turn, facts, session_id=session_id, when=when)
        changes = ChangeSet(logs={when.date().isoformat()}, log_lines=list(lines))
        try:
            changes.merge(await self.indexer.sync_paths([path]))
        except IndexBusy as exc:  # the fact is in the log: the next pass indexes it; never hang the caller
            changes.errors.append(f"written to {path.name}, not indexed yet: {exc}")
        return changes

    async def _refresh_memory_md_from_important(self, facts: list[Fact]) -> ChangeSet:
        """Compatibility path: high-importance facts refresh MEMORY.md before any dream has run."""
        try:
            return await promotion.refresh_from_important(self.home, facts)
        except promotion.PromotionError as exc:  # the facts are captured; MEMORY.md stays as it is
            return ChangeSet(errors=[str(exc)])

    # -- retrieval ---------------------------------------------------------------
    async def search(
        self,
        query: str,
        *,
        limit: int = 10,
        filters: Filters | None = None,
        record_recall: bool = True,
    ) -> SearchResponse:
        """Search the index; each returned hit is a recall signal unless the caller is the runner itself."""
        response = await self.indexer.search(query, limit=limit, filters=filters)
        allowed = [hit for hit in response.hits if self.layout.confinement.allows(hit.path)]
        if len(allowed) < len(response.hits):  # rows a pass before the rule left behind (core/files/confine.py)
            response = dataclasses.replace(response, hits=allowed)
        if record_recall and response.hits:
            recalls = [Recall(hit.text, hit.source_type) for hit in response.hits]
            try:
                await asyncio.to_thread(self.recall.record, recalls)
            except OSError:
                pass  # recall signals are best-effort; a read-only vault must not break search
        return response

    async def units_to_forget(self, text: str, *, source_type: str | None = None, path: str | None = None) -> list[str]:
        """What forgetting ``text`` tombstones: the paragraphs and list items it stands for, each on its own.

        ``text`` is a search hit (give its source type and path) or typed text; typed text that is
        exactly an indexed row (a hit copied from ``search``) is read as that row.
        """
        if source_type is None:
            hit = await self._hit_named(text)
            if hit is not None:  # a hit as search showed it: every place it folds
                return await asyncio.to_thread(self.hit_units, hit)
            row = await self.indexer.row_with_text(text)
            if row is not None:
                source_type, path, text = row
        return await asyncio.to_thread(self.units_of_hit, text, source_type, path)

    async def _hit_named(self, text: str) -> Any:
        """The search hit whose text (or one of whose places) is ``text``, also cut short with "…"."""
        wanted = normalize(text)
        cut = wanted.endswith("…")
        wanted = wanted.rstrip("…").strip()
        if not wanted:
            return None
        try:
            response = await self.indexer.search(text.strip().rstrip("…"), limit=10, operators=False)
        except Exception:  # noqa: BLE001 - no search, no hit: the text is then read as typed
            return None
        for hit in response.hits:
            for place in getattr(hit, "places", [hit]):
                norm = normalize(place.text)
                if norm == wanted or (cut and norm.startswith(wanted)):
                    return hit
        return None

    def hit_units(self, hit: Any) -> list[str]:
        """Every unit a search hit stands for, in each place it folds (a page bullet, a MEMORY.md line, a log line).

        Reads those files only (never the index), so the window may call it for a dialog.
        """
        places = getattr(hit, "places", None) or [hit]
        units: dict[str, str] = {}
        for place in places:
            if place.source_type in hits.EVIDENCE_SOURCES and hit.source_type not in hits.EVIDENCE_SOURCES:
                # The turn a fact was taken from folds in as its evidence. Forgetting the fact hides that
                # turn through the fact's turn tag (tied to the fact, so undo brings it back); as a unit of
                # its own it would take every other fact said in the same turn with it.
                continue
            for unit in self.units_of_hit(place.text, place.source_type, str(place.path)):
                units.setdefault(normalize(unit), unit)
        return list(units.values())

    def units_of_hit(self, text: str, source_type: str | None, path: str | None) -> list[str]:
        """The units of a hit whose source is known (reads that one file, never the index)."""
        page_text = None
        if path and source_type not in (None, "archive", "transcript"):
            try:
                page_text = read_regular(Path(path)).decode("utf-8", errors="replace")
            except OSError:
                page_text = None
        return forgetting.units_for(text, source_type=source_type, page_text=page_text)

    async def forget(
        self,
        text: str,
        *,
        source_type: str | None = None,
        path: str | None = None,
        units: list[str] | None = None,
        hit: Any = None,
        force: bool = False,
        from_notes: Iterable[Path] | bool = False,
    ) -> ChangeSet:
        """Tombstone each unit the text stands for, drop their rows at once and take them off pages.

        In a vault the app was opened on, a note the person wrote (``Layout.persons_note``) keeps
        the text as written: it leaves search, the app's pages, MEMORY.md and the model's prompts
        only. ``from_notes`` also takes it off these notes (True: every note of theirs holding it).

        Typed text must name exactly one memory (``core/engines/forget_match.py``): cut-short text that
        could mean several, or text that matches nothing, is refused and nothing is recorded,
        unless ``force`` (text not captured yet, kept from ever being indexed). The
        transcript turns the units came from (a fact's ``turn:`` tag, or the turn a transcript
        hit belongs to) are tombstoned too, tied to their unit: undoing it brings them back.
        """
        if units is None and hit is not None:
            units = await asyncio.to_thread(self.hit_units, hit)
        if units is None and source_type is None:  # typed text: exactly one memory, or refused (forget_match.py)
            text = await forget_match.exact_target(self, text, force=force)
        if units is None:
            units = await self.units_to_forget(text, source_type=source_type, path=path)
        if not any(u.strip() for u in units):
            raise ValueError("nothing to forget: the text is empty")
        norms = await asyncio.to_thread(self.tombstones.add_many, units)
        removed = await self.indexer.remove_texts(norms)
        removed += await self._forget_source_turns(norms)
        changes = ChangeSet(tombstones=True, rows_removed=removed, index=removed > 0, forgotten=list(norms))
        changes.merge(await self.take_off_pages(set(norms)))
        if from_notes:
            notes = None if from_notes is True else [Path(p) for p in from_notes]
            changes.merge(await self.take_off_pages(set(norms), notes, from_notes=True))
        return changes

    def notes_holding(self, units: Iterable[str], paths: Iterable[Path | str] | None = None) -> list[Path]:
        """Which of ``paths`` (default: the vault's pages) are notes the person wrote that hold one of
        ``units`` (reads those files): the notes a forget leaves as written unless asked."""
        stones = {normalize(u) for u in units}
        if paths is None:
            paths = self.home.vault.current(parsed=False).files(Kind.PAGE)
        found: list[Path] = []
        for path in dict.fromkeys(Path(p) for p in paths):
            if not self.layout.persons_note(path) or not self._ours(path):
                continue
            try:
                text = path.read_bytes().decode("utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if forgetting.find_forgotten(text, stones):
                found.append(path)
        return found

    async def _forget_source_turns(self, norms: list[str]) -> int:
        """Tombstone the source turn of each forgotten unit, and the facts of a forgotten turn; rows removed.

        Every such tombstone names its unit (``of``), so undoing the unit lifts them all.
        """
        turns, facts = await asyncio.to_thread(self.source_turns, set(norms))
        removed = 0
        for norm in dict.fromkeys([*turns.values(), *facts.values()]):
            keys = [turn_key(t) for t, n in turns.items() if n == norm] + [f for f, n in facts.items() if n == norm]
            await asyncio.to_thread(
                self.tombstones.add_many, keys, reason="source turn of a forgotten text, and its facts", of=norm
            )
            removed += await self.indexer.remove_texts([normalize(k) for k in keys])
        return removed

    async def take_off_pages(
        self, stones: set[str], pages: Iterable[Path] | None = None, *, from_notes: bool = False
    ) -> ChangeSet:
        """Remove forgotten paragraphs and items from notebook pages and core files (all, or these).

        Notes the person wrote are left as written unless ``from_notes`` (they asked for it).
        Each removal is journalled, so undo puts the lines back where they stood.
        """
        changed, outside = await asyncio.to_thread(
            self._strip_pages, stones, None if pages is None else list(pages), from_notes
        )
        core = set(self.layout.core_files)
        changes = ChangeSet(pages={p for p in changed if p not in core}, memory_md=any(p in core for p in changed))
        changes.errors += [
            f"forgotten text remains on {p}: it is outside the vault (reached through a link), which the app "
            "never writes; search no longer shows it"
            for p in outside
        ]
        if changed:
            changes.merge(await self.indexer.sync_paths(changed))
        return changes

    def _strip_pages(
        self, stones: set[str], pages: list[Path] | None, from_notes: bool = False
    ) -> tuple[list[Path], list[Path]]:
        """Pages rewritten, and pages holding forgotten text left alone because they lie outside the vault."""
        if not stones:
            return [], []
        changed: list[Path] = []
        outside: list[Path] = []
        if pages is None:  # MEMORY.md too: the agent sees it on every turn
            vault = self.home.vault.current(parsed=False)  # the model; walked again only where nothing watches
            pages = [*vault.files(Kind.PAGE), *(p for p in self.layout.core_files if p.is_file())]
        for page in pages:
            try:
                text = read_regular(page).decode("utf-8")
            except (OSError, UnicodeDecodeError):
                continue  # never rewrite what cannot be read exactly
            flat = normalize(text)
            if not any(stone in flat for stone in stones):
                continue
            kept, removals = forgetting.strip_forgotten(str(page), text, stones)
            if not removals:
                continue
            if not self._ours(page):
                outside.append(page)
                continue
            if self.layout.persons_note(page) and not from_notes:
                continue  # the person's own words: forgotten from memory, not from their note
            self.forget_journal.record(removals)
            forgetting.rewrite_page(page, kept)
            changed.append(page)
        return changed, outside

    def _ours(self, page: Path) -> bool:
        """Whether forget and undo may rewrite ``page``: it really lives in the vault (core files: the memory folder).

        Folder links out of the vault are followed for reading, as Obsidian does, but what they
        lead to belongs to someone else and is never edited.
        """
        root = self.layout.memory_dir if page in self.layout.core_files else self.layout.notebook_dir
        return inside_vault(root, page)

    async def undo_forget(self, text: str) -> ChangeSet:
        """Lift the tombstones ``text`` names, put their lines back on pages, and make them findable.

        A fact forgotten while its day was pending is in no live file once that day is
        consolidated (the dream left it out), so it is captured again in today's log: it is
        searchable at once and the next dream files it.
        """
        targets = await asyncio.to_thread(self._undo_targets, text)
        if not targets:
            raise ValueError(f"nothing to undo: {text.strip()[:80]!r} is not forgotten")
        for content in targets:
            await asyncio.to_thread(self.tombstones.undo, content)
        changes = ChangeSet(tombstones=True, restored=list(targets))
        pages, outside = await asyncio.to_thread(self._restore_pages, set(targets))
        changes.errors += [self._not_put_back(p) for p in outside]
        core = set(self.layout.core_files)
        changes.pages |= {p for p in pages if p not in core}
        changes.memory_md = any(p in core for p in pages)
        self.indexer.note_changed(pages)  # a watched index reads just these
        changes.merge(await self.indexer.sync())
        orphans = [c for c in targets if not await asyncio.to_thread(self.indexer.sources_holding, c)]
        facts = await asyncio.to_thread(self._consolidated_facts, orphans)
        if facts:
            changes.merge(await self._append_and_index(facts, session_id="restored", when=self.clock.now()))
        return changes

    def _not_put_back(self, page: Path) -> str:
        """Why an undo left a journalled page alone: a link leads it out of the vault, or the forget
        was recorded with a path no page of this vault answers to (another device's, an old place)."""
        if page.is_relative_to(self.layout.notebook_dir) or page.is_relative_to(self.layout.memory_dir):
            return (f"forgotten text not put back on {page}: it is outside the vault (reached through a link), "
                    "which the app never writes")
        return (f"forgotten text not put back on {page}: the forget recorded that page, and no page of this vault "
                "stands there (the forget was made on another device, or the page has moved); it is searchable "
                "again, add its line back by hand if you want it on a page")

    def _undo_targets(self, text: str) -> list[str]:
        """The live tombstones ``text`` names: itself (a tombstone as listed) or its paragraphs and items,
        read in every form ``forget`` reads (a pasted log line, a trailing full stop: ``forget_match``)."""
        live = self.tombstones.contents()
        forms = [v for typed in (text, forget_match.as_logged(text)) for v in forget_match.variants(typed)]
        wanted = [normalize(f) for f in forms] + [normalize(u) for f in forms for u in forgetting.units_for(f)]
        return [c for c in dict.fromkeys(wanted) if c in live]

    def _restore_pages(self, contents: set[str]) -> tuple[list[Path], list[Path]]:
        """Pages given their lines back, and journalled pages left alone because they now lie outside the vault."""
        removals = self.forget_journal.outstanding(contents)
        by_path: dict[str, list[forgetting.Removal]] = {}
        for removal in removals:
            by_path.setdefault(removal.path, []).append(removal)
        changed: list[Path] = []
        outside: list[Path] = []
        done: list[str] = []
        for raw, items in by_path.items():
            page = Path(raw)
            if not self._ours(page):
                outside.append(page)
                continue
            try:
                text = read_regular(page).decode("utf-8") if page.exists() else ""
            except (OSError, UnicodeDecodeError):
                continue
            restored = text
            for removal in sorted(items, key=lambda r: r.line):
                restored = forgetting.restore_lines(restored, removal)
            if restored != text:
                forgetting.rewrite_page(page, restored)
                changed.append(page)
            done += [r.id for r in items]
        self.forget_journal.mark_restored(done)
        return changed, outside

    def _consolidated_facts(self, contents: list[str]) -> list[Fact]:
        """The newest fact line of each content found in a daily log (for those no live file holds)."""
        wanted = set(contents)
        found: dict[str, Fact] = {}
        for date in reversed(self.archive.dates()):
            if not wanted - set(found):
                break
            try:
                parsed = self.archive.read(date)
            except (ArchiveError, OSError):
                continue
            for line in parsed.facts:
                norm = normalize(line.fact.content)
                if norm in wanted and norm not in found:
                    found[norm] = line.fact
        return [found[c] for c in contents if c in found]

    def source_turns(self, norms: set[str]) -> tuple[dict[str, str], dict[str, str]]:
        """What else forgetting ``norms`` reaches (blocking: run in a thread).

        Returns turn id → forgotten text (the turns of fact lines with that text, and turns
        with a side or an index piece of that text), and fact text → forgotten text for the
        facts extracted from a forgotten turn.
        """
        turns: dict[str, str] = {}
        by_turn: dict[str, list[str]] = {}
        for date in self.archive.dates():
            try:
                parsed = self.archive.read(date)
            except (ArchiveError, OSError):
                continue
            for line in parsed.facts:
                if not line.fact.turn:
                    continue
                norm = normalize(line.fact.content)
                by_turn.setdefault(line.fact.turn.lower(), []).append(norm)
                if norm in norms:
                    turns.setdefault(line.fact.turn.lower(), norm)
        facts: dict[str, str] = {}
        for turn in self.transcripts.turns():
            texts = [clean_text(turn.user), clean_text(turn.assistant), *turn_chunks(turn)]
            match = next((n for n in map(normalize, texts) if n in norms), None)
            if match is not None:
                turns.setdefault(turn.id, match)
                facts.update({f: match for f in by_turn.get(turn.id, []) if f not in norms})
        return turns, facts

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
        return await self._take_off_synced_back(changes)

    async def _take_off_synced_back(self, changes: ChangeSet) -> ChangeSet:
        """Forgotten text an index pass found on a page (another device's page written before the
        forget reached it, or a forget synced in after the page) is taken off that page now, as a
        forget takes it (journalled, so undo puts it back), not at the next productive dream."""
        pages = self.indexer.take_holding_forgotten()
        if pages:
            changes.merge(await self.take_off_pages(self.tombstones.contents(), pages))
        return changes

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
        return await self._take_off_synced_back(await self.indexer.sync_paths(list(paths)))

    async def related(self, page: Path, *, limit: int = 8) -> list[Any]:
        """Index rows nearest to a page's own chunks, from other files (a "see also")."""
        return await self.indexer.related(page, limit=limit)

    async def hit_by_id(self, row_id: str) -> SearchHit | None:
        """The indexed row ``row_id`` as a hit (ids derive from source and content: they outlive a restart)."""
        return await self.indexer.hit_by_id(row_id)

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
        stones = self.tombstones.contents()
        total = 0
        for date in dates:
            try:
                parsed = self.archive.read(date)
            except (ArchiveError, OSError):
                continue
            total += sum(1 for f in parsed.facts if normalize(f.fact.content) not in stones)
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
