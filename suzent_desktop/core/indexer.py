"""Keeps the search index in step with the files, and answers searches.

The files are the truth; the index is derived. Each pass reconciles the indexed files
recorded in the index state (``core/index_state.py``) with the files on disk: mtime and size
are a cheap hint, the content hash decides. Row ids are derived from the source path, the
row's content and its occurrence number, so unchanged rows keep their ids and their vectors:
a daily log that gained five lines costs five embeddings, not a whole day. A row whose text
an indexed row already has (a renamed or moved file) takes that row's vector.

A pass streams: files are read a window at a time, the window's new texts are embedded
sorted by length, then written. Fail-closed: every new row of a file is embedded before any
of its old rows is deleted, so an embedding failure leaves the old rows searchable and the
file is retried on the next pass. Tombstones are applied on every pass, full rebuilds included.

Two processes may share one index (the app, and the command line in a terminal): writes to
the table and the state take turns through a lock file beside the table, never held while
embedding; whoever takes it adopts what the other wrote (its state, its table) and checks its
plans against it before writing. Queries never create or reset the table.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

import numpy as np

from suzent_desktop.core import fusion, streams, uncovered
from suzent_desktop.core.archive import Archive
from suzent_desktop.core.canvas import CANVAS_SUFFIX, canvas_markdown, is_canvas
from suzent_desktop.core.chunking import chunk_markdown, embedding_text
from suzent_desktop.core.clock import Clock
from suzent_desktop.core.confine import UNREADABLE, Confinement
from suzent_desktop.core.confine import walk as confine_walk
from suzent_desktop.core.days import Days
from suzent_desktop.core.dream.pages import subject_value
from suzent_desktop.core.embedding import Embedder, EmbeddingError
from suzent_desktop.core.events import ChangeSet
from suzent_desktop.core.facts import parse_log
from suzent_desktop.core.fair_lock import FairLock
from suzent_desktop.core.faults import crash_point
from suzent_desktop.core.hits import SearchHit, answer_order
from suzent_desktop.core.index_state import FileState, IndexState, StateStore, content_hash, digest
from suzent_desktop.core.index_store import TABLE_NAME, Filters, IndexStore, IndexStoreError, Row, norm_key
from suzent_desktop.core.layout import Layout
from suzent_desktop.core.notebook import Notebook
from suzent_desktop.core.query import SearchQuery, file_passes, parse_query, text_passes
from suzent_desktop.core.sync_conflicts import page_name
from suzent_desktop.core.tags import FileTags
from suzent_desktop.core.text import clean, decode_lenient, looks_binary
from suzent_desktop.core.title_rows import page_title
from suzent_desktop.core.tombstones import Tombstones, normalize
from suzent_desktop.core.transcripts import Transcripts, clean_text, turn_chunks, turn_key
from suzent_desktop.core.transcripts import parse as parse_transcript
from suzent_desktop.core.unindexed import RowCache, text_matches

log = logging.getLogger(__name__)

BATCH_TEXTS = 4096  # new texts per window: sorted by length together, held in memory together (RSS: bench/incremental.py)
BATCH_FILES = 4000  # files per window at most
EMBED_SLICE = 256  # texts per embedder call; the cancel flag is checked between calls (~0.4 s apart)
PASS_MARK = "pass.unfinished"  # exists while a mutation runs; found on entry, the last one was cut short
EMBEDDING_FAILED = "not indexed, embedding failed"
CANDIDATES_PER_HIT = 2  # rows fetched per hit asked for: folding and superseding need room to reorder
EXTRA_CANDIDATES = 0  # a larger pool reshuffles the fused ranks: 2x keeps overall recall (bench/recall.py)
NOT_CONSOLIDATED = "not consolidated"  # the heading of a kept row of a consolidated day (no page holds it)

ProgressFn = Callable[[int, int, str], None]


# -- public result types ------------------------------------------------------------------
@dataclass
class SearchResponse:
    hits: list[SearchHit]
    mode: str  # "hybrid" | "fulltext" | "list" (a query of operators only: matching files, unranked)
    warning: str | None = None
    words: str | None = None  # the query's words hits were ranked by (its operators left out): what to highlight
    failed: bool = False  # the index could not be read: no hits is not "nothing known" (the warning says why)


@dataclass
class IndexStats:
    rows: int
    by_source: dict[str, int]
    stale_files: list[str]
    errors: list[str]


# -- internal records ----------------------------------------------------------------------
@dataclass
class _Source:
    key: str  # the path as a string: the state's and the table's key (a big vault makes many)
    source_type: str
    date: str | None = None
    zone: str | None = None
    # A consolidated day's log gives rows only for these facts (normalized): the ones no page holds.
    only: frozenset[str] | None = None
    stat: tuple[float, int] | None = None  # (mtime, size) when the scan that found it read them

    @cached_property
    def path(self) -> Path:
        return Path(self.key)

    @property
    def variant(self) -> str:
        """Which rows the file gives besides its bytes: a change re-plans the file."""
        return "" if self.only is None else "only:" + digest(self.only)


@dataclass
class _Plan:
    """What one file needs: new rows to embed, kept rows whose line moved, and rows to drop."""

    source: _Source
    mtime: float = 0.0
    size: int = 0
    sha256: str = ""
    rows: list[Row] = field(default_factory=list)
    error: str | None = None
    notes: list[str] = field(default_factory=list)  # indexed all the same; reported once per change
    touch_only: bool = False
    prior: FileState | None = None  # the state it was planned against; a pass let in may replace it
    new_rows: list[Row] = field(default_factory=list)
    moved_rows: list[Row] = field(default_factory=list)
    stale_ids: list[str] = field(default_factory=list)
    unreadable: bool = False  # the file can no longer be read: its old rows leave the index


class _Cancelled(Exception):
    """Raised inside a worker thread when the user cancelled the pass (before anything is written)."""


def _vectors(table, dim: int) -> np.ndarray:
    """The ``vector`` column of an arrow table as an (n, dim) float32 matrix."""
    column = table.column("vector").combine_chunks()
    return np.asarray(column.flatten(), dtype=np.float32).reshape(-1, dim)


def _stat_of(key: str) -> tuple[float, int] | None:
    try:
        stat = os.stat(key)
    except OSError:
        return None
    return stat.st_mtime, stat.st_size


def _walk(root: Path, skip: str | None, confinement: Confinement) -> Iterator[tuple[str, os.stat_result | None]]:
    """Every file under ``root`` the confinement rule allows (``core/confine.py``), with its stat;
    an entry that cannot be had (a dangling link, a loop) comes with None, so the pass names it.
    Links out of the vault or into a program folder are left out; ``skip`` is not entered."""
    refused: list[tuple[str, str]] = []
    yield from confine_walk(root, confinement, refused, skip=skip)
    for path, reason in refused:
        if reason.startswith(UNREADABLE):
            yield path, None


def row_id(source_type: str, path: str, content: str, occurrence: int) -> str:
    """Stable across reindexes: the same text at the same place keeps its id (and its vector)."""
    key = f"{source_type}\x00{path}\x00{content}\x00{occurrence}".encode()
    return hashlib.blake2b(key, digest_size=16).hexdigest()


# -- the indexer ---------------------------------------------------------------------------
class Indexer:
    def __init__(
        self,
        layout: Layout,
        embedder: Embedder,
        clock: Clock,
        *,
        notebook: Notebook | None = None,
        archive: Archive | None = None,
        tombstones: Tombstones | None = None,
        transcripts: Transcripts | None = None,
    ) -> None:
        self.layout = layout
        self.embedder = embedder
        self.clock = clock
        self.notebook = notebook or Notebook(layout)
        self.archive = archive or Archive(layout)
        self.tombstones = tombstones or Tombstones(layout)
        self.transcripts = transcripts or Transcripts(layout)
        self.lock = asyncio.Lock()
        self._state_lock = threading.RLock()
        self._state: IndexState | None = None
        self._store: IndexStore | None = None
        self._dirty = False
        self._cancel: threading.Event | None = None
        # Not thread-local: it may be taken and released on different threads.
        self._fair_lock = FairLock(layout.index_dir / "write.lock")  # taken in order of arrival, bounded wait
        self._file_lock = self._fair_lock.lock
        self._states = StateStore(layout.index_dir)
        self._generation: int | None = None  # the stored state's generation as this process last saw it
        self._problem: str | None = None  # why the stored state was unusable; the next pass reports it
        self._stale_vault: set[str] | None = None  # vault files the index may be behind on; None: walk to know
        self._watched = False  # a watcher feeds note_changed: the cache above can be trusted
        # watch() counts its calls; the cache is trusted only if made after the latest (no lock: GUI thread)
        self._watch_epoch = 0
        self._cache_epoch = 0
        self._noted: list[str] = []  # paths the watcher reported, not yet taken into the cache
        self._by_hash: dict[str, str] | None = None  # content hash -> an indexed row with that text (lazy)
        self._unindexed = RowCache()
        self._titles = fusion.TitleCache()  # page names, aliases, headings of the table's rows
        self._tags = FileTags()  # for ``tag:``: each indexed file's tags, re-read when its hash changes
        # files a pass is embedding, with the (mtime, size) it read: a pass let in skips them
        # while they are still as that pass read them
        self._inflight_paths: dict[str, tuple[float, int]] = {}
        self.on_wait: Callable[[], None] | None = None  # told once when a pass must wait its turn
        self._table_checked = True  # False: the next pass compares the whole table with the files

    # -- exclusion: one pass per process, and the file lock only while writing ------------------
    @asynccontextmanager
    async def _exclusive(self) -> AsyncIterator[None]:
        """A pass of this process that holds the file lock throughout (forget, a model switch)."""
        async with self._pass(), self._writing():
            yield

    @asynccontextmanager
    async def _pass(self) -> AsyncIterator[None]:
        """One pass of this process at a time; a pass lets a waiting one in between embedding slices."""
        if self.lock.locked():
            self._tell_waiting()
        async with self.lock:
            yield

    @asynccontextmanager
    async def _writing(self) -> AsyncIterator[None]:
        """The lock file shared with other processes, held while the table and the state change and
        never while embedding. Taken in order of arrival with a bounded wait (``core/fair_lock.py``),
        polled rather than blocked on, so a cancelled caller never leaves a worker thread holding it.

        On entry, what another process wrote is adopted (plans made before are checked against it
        before they are written) and the crash mark is left for the length of the block.
        """
        self.layout.index_dir.mkdir(parents=True, exist_ok=True)
        await self._fair_lock.acquire(self._tell_waiting)  # IndexBusy past its bound (core/fair_lock.py)
        try:
            await asyncio.to_thread(self._adopt_other_writers)
            await asyncio.to_thread(self._mark_pass)
            yield
            await asyncio.to_thread(self._save_state)
            if self._table_checked:  # a clean end; a pending comparison keeps the mark
                self._pass_mark.unlink(missing_ok=True)
        finally:
            self._file_lock.release()

    @property
    def _pass_mark(self) -> Path:
        return self.layout.index_dir / PASS_MARK

    def _mark_pass(self) -> None:
        """Leave a mark for the length of a mutation: one found on entry means the last one was
        cut short (a kill, a crash), so the next pass compares the whole table with the files."""
        if self._pass_mark.exists():
            log.info("the last index pass did not finish; comparing the table with the files")
            self._table_checked = False
        self._pass_mark.touch()

    def _tell_waiting(self) -> None:
        if self.on_wait is not None:
            try:
                self.on_wait()
            except Exception:  # a notice must never stop the pass
                log.exception("on_wait notice failed")

    async def _let_others_in(self) -> None:
        """Between embedding slices: a pass waiting in this process (a remembered fact) runs now.

        Nothing of the slices embedded so far is in the table yet, and the files being embedded
        are skipped by the pass let in (``_inflight_paths``).
        """
        self.lock.release()
        try:
            await asyncio.sleep(0)
        finally:
            cancelled = False
            while True:
                try:
                    await self.lock.acquire()
                    break
                except asyncio.CancelledError:
                    cancelled = True
            if cancelled:
                raise asyncio.CancelledError

    def _adopt_other_writers(self) -> None:
        """Another process saved the state since we last did: reload it and reopen the table."""
        generation = self._states.generation()
        with self._state_lock:
            if self._state is not None and generation != self._generation:
                log.info("the index was changed by another process; reloading its state")
                self._state = None
                self._by_hash = None
                self._store = None
                self._dirty = False

    # -- state ---------------------------------------------------------------------------
    @property
    def state(self) -> IndexState:
        with self._state_lock:
            if self._state is None:
                self._generation = self._states.generation()
                self._state = self._states.load()
                if self._state.problem:
                    self._problem, self._dirty = self._state.problem, True
            return self._state

    def _changed(self, key: str) -> None:
        """This file's entry in the state changed: the next save writes it (and only the changed ones)."""
        with self._state_lock:
            self.state.mark(key)
            self._dirty = True

    def _save_state(self) -> None:
        """Write the files that changed since the last save (a no-op pass writes nothing)."""
        with self._state_lock:
            if not self._dirty and self._generation is not None:
                return
            self._generation = self._states.save(self.state)
            self._dirty = False

    def _read_dim(self) -> int:
        """The dimension of the table on disk (never reset it to the embedder's just to read)."""
        return self.state.dim or int(self.embedder.dim)

    def _open_store(self, dim: int, *, repair: bool = True) -> IndexStore:
        """The table; ``repair=False`` (queries) raises IndexStoreError instead of recreating it."""
        with self._state_lock:
            if self._store is None or self._store.dim != dim:
                store = IndexStore(self.layout.index_dir, dim)
                store.open(repair=repair)
                self._store = store
            return self._store

    def _current_store(self) -> IndexStore:
        """The table a pass writes to (reopened when another process's writes were adopted)."""
        return self._store if self._store is not None else self._open_store(self._read_dim())

    def _drop_failed_store(self, store: IndexStore | None) -> None:
        """After a query failed, reopen the table next time (another process may have rebuilt it).

        Only while no pass runs in this process: a pass uses ``self._store`` throughout.
        """
        with self._state_lock:
            if store is not None and self._store is store and not self.lock.locked():
                self._store = None

    # -- sources -------------------------------------------------------------------------
    def _sources(self) -> dict[str, _Source]:
        """Every file that should have rows now: core files, content pages, logs after the watermark."""
        return {**self._vault_sources(), **self._memory_sources()}

    def _vault_sources(self, under: Path | None = None) -> dict[str, _Source]:
        """The vault's pages and boards (or those under one folder of it), with their mtime and size.

        One walk with ``os.scandir``: the stat comes with the listing, and names are sorted
        out as strings (this is the cost of a full pass on a big vault, so it stays lean).
        """
        root = str(self.notebook.root)
        memory = str(self.layout.memory_dir)
        skip = memory if self.layout.memory_dir != self.notebook.root else None
        found: dict[str, _Source] = {}
        if under is not None and (
            not self._in_vault(os.path.join(under, "x"))
            or any(part.startswith(".") for part in Path(under).relative_to(root).parts)
        ):
            return found  # outside the vault, hidden, or the memory folder: no pages there
        for key, stat in _walk(Path(under) if under is not None else self.notebook.root, skip, self.layout.confinement):
            lower = key.lower()
            if not page_name(lower).endswith((".md", CANVAS_SUFFIX)) or not key.startswith(root + os.sep):
                continue
            relative = key[len(root) + 1 :]
            head, sep, _ = relative.partition(os.sep)
            if not sep and not (self.notebook.is_content_page(Path(key)) or self.notebook.is_canvas(Path(key))):
                continue  # the program's own files at the vault's root
            known = (stat.st_mtime, stat.st_size) if stat is not None else None
            found[key] = _Source(key, "notebook", zone=head if sep else "", stat=known)
        return found

    def _memory_sources(self) -> dict[str, _Source]:
        """Core files, daily logs after the watermark (or not consolidated), transcripts: few, and cheap."""
        found: dict[str, _Source] = {}
        for path in self.layout.core_files:
            if path.is_file():
                found[str(path)] = _Source(str(path), "core")
        days = Days.read(self.notebook, self.clock.today())
        kept = uncovered.by_date(uncovered.consolidated(self.layout, days))
        for part in streams.dated_parts(self.layout.archive_dir, ".md"):  # every device's log of a day
            source = self._archive_source(part.base, days, kept, part.path)
            if source is not None:
                found[source.key] = source
        for part in streams.dated_parts(self.layout.transcripts_dir, ".jsonl"):  # every day: evidence behind pages
            found[str(part.path)] = _Source(str(part.path), "transcript", date=part.base)
        return {key: source for key, source in found.items() if self.layout.confinement.allows(key)}

    def _archive_source(self, date: str, days: Days, kept: dict[str, set[str]], path: Path) -> _Source | None:
        """A log after the watermark (or skipped) gives all its facts; a consolidated one only
        those no page holds (``core/uncovered.py``); otherwise none."""
        if days.indexed(date):
            return _Source(str(path), "archive", date=date)
        if date in kept:
            return _Source(str(path), "archive", date=date, only=frozenset(kept[date]))
        return None

    def _source_for(self, path: Path) -> _Source | None:
        """The source a single path stands for now, or None when it should have no rows."""
        path = Path(path)
        if not self.layout.confinement.allows(path):
            return None  # a link out of the vault or into a program folder (core/confine.py)
        sources = {str(p): p for p in self.layout.core_files}
        if str(path) in sources:
            return _Source(str(path), "core") if path.is_file() else None
        if self.notebook.is_content_page(path) or self.notebook.is_canvas(path):
            if not path.is_file():
                return None
            parts = Path(self.notebook.relative(path)).parts
            return _Source(str(path), "notebook", zone=parts[0] if len(parts) > 1 else "")
        if path.parent == self.layout.archive_dir and (part := streams.parse_part(path.name, ".md")) is not None:
            if part.base not in self.archive.dates() or not path.is_file():
                return None
            days = Days.read(self.notebook, self.clock.today())
            kept = uncovered.by_date(uncovered.consolidated(self.layout, days))
            return self._archive_source(part.base, days, kept, path)
        if path.parent == self.layout.transcripts_dir and (part := streams.parse_part(path.name, ".jsonl")) is not None:
            if part.base in self.transcripts.dates() and path.is_file():
                return _Source(str(path), "transcript", date=part.base)
        return None

    # -- planning (worker thread) ----------------------------------------------------------
    def _rows_for(self, source: _Source, text: str, stones: set[str]) -> list[Row]:
        key = source.key
        rows: list[Row] = []
        seen: dict[str, int] = {}
        if source.source_type == "archive":
            for fact_line in parse_log(text).facts:
                content = fact_line.fact.content
                norm = normalize(content)
                if not norm or norm in stones or (source.only is not None and norm not in source.only):
                    continue
                occurrence = seen.get(content, 0)
                seen[content] = occurrence + 1
                rows.append(
                    Row(
                        id=row_id("archive" if source.only is None else "archive:kept", key, content, occurrence),
                        text=content,
                        source_type="archive",
                        path=key,
                        zone=None,
                        line=fact_line.line,
                        date=source.date,
                        heading=None if source.only is None else NOT_CONSOLIDATED,
                        norm=norm,
                        norm_keys=[],
                        embed_text=content,
                    )
                )
            return rows
        if source.source_type == "transcript":
            return self._transcript_rows(source, text, stones)
        keys: dict[str, str] = {}  # pieces of one long paragraph share its (long) normalized text
        if is_canvas(source.path):
            text = canvas_markdown(text)  # a board is searched by its text nodes
        title = page_title(key, text)
        for chunk in chunk_markdown(text, tombstones=stones):
            content = embedding_text(chunk)
            # A bullet's id covers what is written around its text (strike-through, dates, History),
            # so striking a fact through re-indexes it as superseded.
            identity = content if chunk.source_text == chunk.text else f"{content}\x00{chunk.source_text}"
            occurrence = seen.get(identity, 0)
            seen[identity] = occurrence + 1
            rows.append(
                Row(
                    id=row_id(source.source_type, key, identity, occurrence),
                    text=chunk.text,
                    source_type=source.source_type,
                    path=key,
                    zone=source.zone,
                    line=chunk.line,
                    date=chunk.date,
                    heading=chunk.heading,
                    norm=normalize(chunk.text),
                    norm_keys=[keys.get(n) or keys.setdefault(n, norm_key(n)) for n in chunk.norms()],
                    embed_text=content,
                    superseded=chunk.superseded,
                    until=chunk.until,
                    title=title,
                )
            )
        return rows

    @staticmethod
    def _transcript_rows(source: _Source, text: str, stones: set[str]) -> list[Row]:
        """One row per turn (long turns split); a forgotten turn or piece has no row.

        Every row of a turn lists the turn's key (``turn:ID``) among its norms, so one
        tombstone takes the whole turn out, and a fact's forget can reach its source turn.
        """
        key = source.key
        rows: list[Row] = []
        seen: dict[str, int] = {}
        for turn in parse_transcript(text, source.path).turns:
            whole = turn_key(turn.id)
            if whole in stones:
                continue
            sides = [normalize(clean_text(turn.user)), normalize(clean_text(turn.assistant))]
            for content in turn_chunks(turn):
                norm = normalize(content)
                if norm in stones or any(side and side in stones for side in sides):
                    continue
                occurrence = seen.get(content, 0)
                seen[content] = occurrence + 1
                keys = [whole, *[side for side in sides if side]]
                rows.append(
                    Row(
                        id=row_id("transcript", key, content, occurrence),
                        text=content,
                        source_type="transcript",
                        path=key,
                        zone=None,
                        line=turn.line,
                        date=source.date,
                        heading=None,
                        norm=norm,
                        norm_keys=[norm_key(k) for k in keys],
                        embed_text=content,
                    )
                )
        return rows

    def _plan(
        self, source: _Source, prior: FileState | None, stones: set[str], recheck: bool
    ) -> _Plan | None:
        """None when the file is unchanged; otherwise what must be embedded, moved and dropped."""
        plan = _Plan(source, prior=prior)
        if source.stat is not None:
            plan.mtime, plan.size = source.stat
        else:
            try:
                stat = source.path.stat()
            except OSError as exc:
                plan.error, plan.unreadable = f"{source.path}: cannot read ({exc.strerror or exc})", True
                return plan
            plan.mtime, plan.size = stat.st_mtime, stat.st_size
        if self._inflight_paths.get(source.key) == (plan.mtime, plan.size):
            return None  # another pass of this process is adding the file as it is now
        same_variant = prior is not None and prior.variant == source.variant
        if (
            prior
            and not prior.dirty
            and not recheck
            and same_variant
            and prior.mtime == plan.mtime
            and prior.size == plan.size
        ):
            return None
        try:
            data = source.path.read_bytes()
        except OSError as exc:
            plan.error, plan.unreadable = f"{source.path}: cannot read ({exc.strerror or exc})", True
            return plan
        plan.sha256 = hashlib.sha256(data).hexdigest()
        if prior and not prior.dirty and not recheck and same_variant and prior.sha256 == plan.sha256:
            plan.touch_only = True  # touched, not changed: remember the new mtime, embed nothing
            return plan
        if looks_binary(data):
            plan.error = f"{source.path}: looks like a binary file; skipped, file left untouched"
            plan.unreadable = True
            return plan
        text, bad = decode_lenient(data)
        if bad:
            lines = ", ".join(str(n) for n in bad[:5]) + (f" and {len(bad) - 5} more" if len(bad) > 5 else "")
            plan.notes.append(
                f"{source.path}: line {lines} not valid UTF-8; left out of the index, the rest is indexed"
            )
        text = clean(text)
        plan.rows = self._rows_for(source, text, stones)
        known = prior.rows if prior else {}
        wanted = {r.id for r in plan.rows}
        plan.stale_ids = [rid for rid in known if rid not in wanted]
        for row in plan.rows:
            if row.id not in known:
                plan.new_rows.append(row)
            elif known[row.id] != row.line:
                plan.moved_rows.append(row)
        return plan

    # -- writing (worker thread) -----------------------------------------------------------
    def _embed_plans(self, plans: list[_Plan]) -> tuple[list[_Plan], list[_Plan]]:
        """Embed the new rows of several files in one call; on failure retry file by file to isolate it."""
        todo = [p for p in plans if p.new_rows]
        try:
            self._embed_into([r for p in todo for r in p.new_rows])
            return plans, []
        except EmbeddingError as exc:
            if len(todo) == 1:
                todo[0].error = f"{todo[0].source.path}: {EMBEDDING_FAILED}: {exc}"
                return [p for p in plans if p is not todo[0]], todo
        ok: list[_Plan] = [p for p in plans if not p.new_rows]
        failed: list[_Plan] = []
        streak, last_error = 0, ""
        for plan in todo:
            if streak >= 3:  # the embedder is down, not this file: do not hammer it once per file
                plan.error = f"{plan.source.path}: {EMBEDDING_FAILED}: {last_error}"
                failed.append(plan)
                continue
            try:
                self._embed_into(plan.new_rows)
                ok.append(plan)
                streak = 0
            except EmbeddingError as exc:
                streak, last_error = streak + 1, str(exc)
                plan.error = f"{plan.source.path}: {EMBEDDING_FAILED}: {exc}"
                failed.append(plan)
        return ok, failed

    def _embed_into(self, rows: list[Row]) -> None:
        """Vectors for ``rows``, in slices so a cancel request is honoured within seconds.

        Rows are sorted by length first so each slice pads its texts to similar lengths.
        """
        rows = sorted((r for r in rows if r.vector is None), key=lambda r: len(r.embed_text))
        for start in range(0, len(rows), EMBED_SLICE):
            if self._cancel is not None and self._cancel.is_set():
                raise _Cancelled
            self._embed_rows(rows[start : start + EMBED_SLICE])

    def _embed_rows(self, rows: list[Row]) -> None:
        """One embedder call; its vectors go onto the rows."""
        dim = self._current_store().dim
        vectors = np.asarray(self.embedder.embed([r.embed_text for r in rows]), dtype=np.float32)
        if vectors.shape != (len(rows), dim):
            raise EmbeddingError(f"embedder returned shape {vectors.shape}, expected ({len(rows)}, {dim})")
        for row, vector in zip(rows, vectors, strict=True):
            row.vector = vector

    def _apply(self, plans: list[_Plan], changes: ChangeSet) -> None:
        """Embed, then write (holding the file lock throughout: small work, such as after a forget)."""
        errored = [p for p in plans if p.error]
        ready = [p for p in plans if not p.error]
        self._reuse_vectors(ready)
        self._reuse_by_content(ready)
        ok, failed = self._embed_plans(ready)
        self._write(ok, failed + errored, changes)

    def _write_window(self, plans: list[_Plan], stones: set[str], changes: ChangeSet) -> None:
        """Under the file lock: write what a window embedded without it.

        Each plan is checked against the state as it is now: when another pass (of this or
        another process) wrote the file meanwhile, the plan is diffed again against what that
        pass left, so its rows are neither doubled nor deleted by mistake; the few rows that
        this leaves without a vector are embedded here. Text forgotten meanwhile (a forget in
        this or another process) is never written: the files are chunked again without it.
        """
        with self._state_lock:
            if self.state.model != self.embedder.name or self.state.dim != int(self.embedder.dim):
                return  # rebuilt for another model meanwhile: these vectors do not belong in it
        now = self.tombstones.contents()
        if now != stones:
            plans = self._replanned(plans, now)
        ok: list[_Plan] = []
        failed: list[_Plan] = []
        for plan in plans:
            with self._state_lock:
                current = self.state.files.get(plan.source.key)
            same = current is plan.prior or (
                current is not None
                and plan.prior is not None
                and (current.sha256, current.variant, current.rows) == (plan.prior.sha256, plan.prior.variant, plan.prior.rows)
            )
            if plan.error:
                failed.append(plan)
            elif plan.touch_only:
                if same:
                    self._touch(plan)
            elif same:
                ok.append(plan)
            else:
                again = self._against(plan, current, now)
                if again is not None:
                    (failed if again.error else ok).append(again)
        redone = [p for p in ok if any(r.vector is None for r in (*p.new_rows, *p.moved_rows))]
        if redone:
            self._reuse_vectors(redone)
            self._reuse_by_content(redone)
            lost = self._embed_plans(redone)[1]
            ok = [p for p in ok if p not in lost]
            failed += lost
        self._write(ok, failed, changes)

    def _against(self, plan: _Plan, current: FileState | None, stones: set[str]) -> _Plan | None:
        """A plan whose file another pass wrote meanwhile, made right against what that pass left;
        None when there is nothing left for this one to write.

        The newer of the two reads wins: when the file changed again after this plan read it,
        it is read again here rather than letting older text delete rows the other pass added.
        """
        stat = _stat_of(plan.source.key)
        if current is not None and stat == (current.mtime, current.size):
            return None  # the other pass indexed the file as it is now: newer than what we read
        source = self._source_for(plan.source.path)
        if source is None or source.variant != plan.source.variant:
            return None  # the file gives other rows now (a watermark moved meanwhile): the next pass decides
        if stat == (plan.mtime, plan.size):
            self._rediff(plan, current)
            return plan
        return self._read_again(source, current, stones, {r.id: r.vector for r in plan.rows if r.vector is not None})

    def _read_again(
        self, source: _Source, current: FileState | None, stones: set[str], vectors: dict[str, np.ndarray]
    ) -> _Plan | None:
        """A plan of ``source`` made anew against ``current``, keeping the vectors already embedded."""
        with self._state_lock:
            self._inflight_paths.pop(source.key, None)  # ours: written right after this
        again = self._plan(source, current, stones, True)
        if again is not None:
            for row in again.rows:
                row.vector = vectors.get(row.id)
        return again

    def _replanned(self, plans: list[_Plan], stones: set[str]) -> list[_Plan]:
        """The window's files planned again with the tombstones as they are now; vectors carried over."""
        vectors = {r.id: r.vector for p in plans for r in p.rows if r.vector is not None}
        fresh: list[_Plan] = []
        for plan in plans:
            with self._state_lock:
                current = self.state.files.get(plan.source.key)
            again = plan if plan.error else self._read_again(plan.source, current, stones, vectors)
            if again is not None:
                fresh.append(again)
        return fresh

    @staticmethod
    def _rediff(plan: _Plan, current: FileState | None) -> None:
        known = current.rows if current is not None else {}
        wanted = {r.id for r in plan.rows}
        plan.prior = current
        plan.stale_ids = [rid for rid in known if rid not in wanted]
        plan.new_rows = [r for r in plan.rows if r.id not in known]
        plan.moved_rows = [r for r in plan.rows if r.id in known and known[r.id] != r.line]

    def _write(self, ok: list[_Plan], failed: list[_Plan], changes: ChangeSet) -> None:
        """Delete old rows and add new ones, then record the files in the state; failed files keep
        their old rows and are retried on the next pass (fail-closed)."""
        store = self._current_store()
        moved = [r for p in ok for r in p.moved_rows]
        delete = [rid for p in ok for rid in p.stale_ids] + [r.id for r in moved]
        add = [r for p in ok for r in p.new_rows] + moved
        removed = store.delete_ids(delete)
        crash_point("index.after_delete")
        store.add(add)
        crash_point("index.after_add")
        changes.errors += [note for p in ok for note in p.notes]
        changes.rows_added += sum(len(p.new_rows) for p in ok)
        changes.rows_removed += max(0, removed - len(moved))
        if delete or add:
            changes.index = True
        with self._state_lock:
            state = self.state
            for plan in ok:
                self._record(plan)
            for plan in failed:
                prior = state.files.get(plan.source.key)
                if prior is not None and plan.unreadable:  # no file gives these rows any more
                    changes.rows_removed += store.delete_ids(list(prior.rows))
                    prior.rows = {}
                if prior is not None:  # keep the old rows (an embedding failure), force a retry next pass
                    prior.sha256 = ""
                    prior.mtime = -1.0
                self._changed(plan.source.key)
                state.errors[plan.source.key] = plan.error or f"{plan.source.path}: not indexed"
                changes.errors.append(state.errors[plan.source.key])

    def _reuse_vectors(self, plans: list[_Plan]) -> None:
        """Rows whose text is unchanged but whose line moved keep their vector; a lost one is re-embedded."""
        moved = [r for p in plans for r in p.moved_rows]
        if not moved:
            return
        store = self._current_store()
        old = store.fetch([r.id for r in moved], ["id", "vector"])
        vectors = dict(zip(old.column("id").to_pylist(), _vectors(old, store.dim), strict=True))
        for plan in plans:
            for row in plan.moved_rows:
                row.vector = vectors.get(row.id)
            plan.new_rows += [r for r in plan.moved_rows if r.vector is None]
            plan.moved_rows = [r for r in plan.moved_rows if r.vector is not None]

    def _reuse_by_content(self, plans: list[_Plan]) -> None:
        """New rows whose text an indexed row already has (a renamed or moved file, a paragraph moved
        to another page) take that row's vector: a vector depends on the text only."""
        rows = [r for p in plans for r in p.new_rows if r.vector is None]
        if not rows:
            return
        with self._state_lock:
            if self._by_hash is None:
                self._by_hash = {h: rid for f in self.state.files.values() for rid, h in f.hashes.items()}
            donors = {r.id: d for r in rows if (d := self._by_hash.get(content_hash(r.embed_text)))}
        if not donors:
            return
        store = self._current_store()
        found = store.fetch(sorted(set(donors.values())), ["id", "vector"])  # a donor may be gone: embed
        vectors = dict(zip(found.column("id").to_pylist(), _vectors(found, store.dim), strict=True))
        for row in rows:
            row.vector = vectors.get(donors.get(row.id, ""))

    def _record(self, plan: _Plan) -> None:
        with self._state_lock:
            self._changed(plan.source.key)
            hashes = {r.id: content_hash(r.embed_text) for r in plan.rows}
            self.state.files[plan.source.key] = FileState(
                plan.source.source_type, plan.mtime, plan.size, plan.sha256, {r.id: r.line for r in plan.rows},
                plan.source.variant, hashes,
            )
            if self._by_hash is not None:
                self._by_hash.update((h, rid) for rid, h in hashes.items())
            self.state.errors.pop(plan.source.key, None)

    def _touch(self, plan: _Plan) -> None:
        with self._state_lock:
            prior = self.state.files.get(plan.source.key)
            if prior is not None:
                prior.mtime, prior.size = plan.mtime, plan.size
            self.state.errors.pop(plan.source.key, None)
            self._changed(plan.source.key)

    def _remove_sources(self, keys: Iterable[str], changes: ChangeSet) -> None:
        """Files that vanished, were renamed, or fell behind the watermark lose every row."""
        with self._state_lock:
            keys = [k for k in keys if k in self.state.files]
            ids = [rid for k in keys for rid in self.state.files[k].rows]
        if not keys:
            return
        store = self._current_store()
        removed = store.delete_ids(ids)
        crash_point("index.after_remove")
        removed += store.delete_paths(keys)  # rows the state did not know about (a crash mid-write)
        with self._state_lock:
            for key in keys:
                self.state.files.pop(key, None)
                self.state.errors.pop(key, None)
                self._changed(key)
        changes.rows_removed += removed
        changes.index = changes.index or removed > 0

    # -- preparation (worker thread) -------------------------------------------------------
    def _prepare(self, full: bool) -> tuple[set[str], bool]:
        """Open the table, rebuild when the model changed or the state and table disagree.

        Returns the current tombstones and whether every file must be re-read (they changed).
        """
        dim = int(self.embedder.dim)
        with self._state_lock:
            state = self.state
            if full or state.model != self.embedder.name or state.dim != dim:
                self._state = IndexState(model=self.embedder.name, dim=dim)
                self._by_hash = None
                self._dirty = True
                # Reset the store queries already hold when it can: its lock keeps them off the
                # table while the folder is replaced.
                store = self._store if self._store is not None and self._store.dim == dim else None
                store = store or IndexStore(self.layout.index_dir, dim)
                store.reset()
                self._store = store
            else:
                if self._store is not None and not self._store.table_dir.exists():
                    self._store = None  # deleted under a running app: open (and so recreate) it anew
                self._open_store(dim)
        self._reconcile_with_table(deep=not self._table_checked)
        self._table_checked = True
        crash_point("index.after_reconcile")
        stones = self.tombstones.contents()
        return stones, digest(stones) != self.state.tombstones

    def _reconcile_with_table(self, deep: bool) -> None:
        """The state must describe the table, and the table hold only what the files give.

        Every pass compares row counts. A full comparison runs when they disagree and when the
        last pass was cut short (its mark was still there, see :meth:`_mark_pass`): rows of
        files that should have none (a daily log at or before the watermark, a page that is
        gone), rows the state does not know and duplicated rows are deleted, and files whose
        recorded rows are missing are read again.
        """
        try:
            count = self._store.count()
        except IndexStoreError:
            self._store.reset()
            count = 0
        with self._state_lock:
            expected = sum(len(f.rows) for f in self.state.files.values())
        if count == expected and not deep:
            return
        table = self._store.scan(["id", "path"]) if count else None
        ids = table.column("id").to_pylist() if table is not None else []
        paths = table.column("path").to_pylist() if table is not None else []
        sources = self._sources()
        with self._state_lock:
            files = self.state.files
            for key in [k for k in files if k not in sources]:
                del files[key]  # its rows are deleted below, as rows no file owns
                self.state.errors.pop(key, None)
                self._changed(key)
            owner = {rid: key for key, f in files.items() for rid in f.rows}
        seen: dict[str, int] = {}
        for rid in ids:
            seen[rid] = seen.get(rid, 0) + 1
        stray = {rid for rid, path in zip(ids, paths, strict=True) if owner.get(rid) != path}
        doubled = {rid for rid, times in seen.items() if times > 1} - stray
        present = set(seen) - stray - doubled
        with self._state_lock:
            for key, file_state in files.items():
                if any(rid not in present for rid in file_state.rows):
                    file_state.rows = {rid: ln for rid, ln in file_state.rows.items() if rid in present}
                    file_state.sha256 = ""
                    file_state.mtime = -1.0
                    self._changed(key)
        if stray or doubled:
            log.info("index: removing %d row(s) no file gives and %d duplicated row(s)", len(stray), len(doubled))
            self._store.delete_ids(stray | doubled)

    def audit_rows(self) -> list[tuple[str, str]]:
        """``(path, why)`` for every index row the files do not give now (``doctor``); reads only.

        Rows of files that are merely stale (changed since the last pass, or failed to
        embed) are reported too; callers that list stale files separately may drop those.
        """
        store = self._open_store(self._read_dim(), repair=False)
        table = store.scan(["id", "path"])
        sources = self._sources()
        stones = self.tombstones.contents()
        wanted: dict[str, set[str]] = {}
        counts: dict[tuple[str, str], int] = {}
        for rid, path in zip(table.column("id").to_pylist(), table.column("path").to_pylist(), strict=True):
            counts[(path, rid)] = counts.get((path, rid), 0) + 1
        problems: dict[str, list[str]] = {}
        for (path, rid), times in sorted(counts.items()):
            source = sources.get(path)
            if source is None:
                problems.setdefault(path, []).append("none")
                continue
            if path not in wanted:
                wanted[path] = {r.id for r in self._read_rows(source, stones)}
            if rid not in wanted[path]:
                problems.setdefault(path, []).append("other")
            elif times > 1:
                problems.setdefault(path, []).append("double")
        found: list[tuple[str, str]] = []
        for path, kinds in sorted(problems.items()):
            if "none" in kinds:
                why = (f"{len(kinds)} index row(s) of a file that should have none (deleted, or a daily log "
                       "the watermark covers)")
            else:
                parts = []
                if kinds.count("other"):
                    parts.append(f"{kinds.count('other')} index row(s) not derivable from the file as it is")
                if kinds.count("double"):
                    parts.append(f"{kinds.count('double')} duplicated index row(s)")
                why = "; ".join(parts)
            found.append((path, why))
        return found

    def _finish(self, stones: set[str], bulk: bool) -> None:
        with self._state_lock:
            if self.state.tombstones != digest(stones):
                self.state.tombstones = digest(stones)
                self._dirty = True
        self._current_store().optimize(force=bulk)  # reopened when another process wrote meanwhile
        self._save_state()

    # -- public API ------------------------------------------------------------------------
    async def sync(
        self,
        *,
        full: bool = False,
        refresh: bool = False,
        progress: ProgressFn | None = None,
        cancel: threading.Event | None = None,
    ) -> ChangeSet:
        """Bring the index in step with the files; ``full`` drops the table and rebuilds it.

        While a watcher reports changes, only the files it named are looked at, unless
        ``refresh`` asks for a walk of the whole vault (a user's "Reindex changed files").
        """
        async with self._pass():
            return await self._sync_locked(full, progress, cancel, refresh=refresh)

    async def _sync_locked(
        self, full: bool, progress: ProgressFn | None, cancel: threading.Event | None, *, refresh: bool = False
    ) -> ChangeSet:
        try:
            return await self._sync_once(full, progress, cancel, refresh)
        except IndexStoreError as exc:
            # The table broke under us (files damaged on disk): start over from the files.
            log.warning("index unreadable (%s); rebuilding from files", exc)
            changes = await self._sync_once(True, progress, cancel, refresh)
            changes.errors.insert(0, f"index was unreadable and has been rebuilt: {exc}")
            return changes

    async def _sync_once(
        self, full: bool, progress: ProgressFn | None, cancel: threading.Event | None, refresh: bool = False
    ) -> ChangeSet:
        changes = ChangeSet()
        epoch = self._watch_epoch
        async with self._writing():
            try:
                stones, recheck = await asyncio.to_thread(self._prepare, full)
            except EmbeddingError as exc:
                changes.errors.append(f"index not updated: {exc}")
                return changes
        self._report_problem(changes)
        todo, gone, cached = await asyncio.to_thread(self._pass_targets, full or recheck, refresh)
        cancelled = await self._stream(todo, stones, recheck, changes, progress, cancel)
        async with self._writing():
            # Files that are gone lose their rows last: a renamed file's rows lent their vectors above.
            # A pass cut short keeps them: a log consolidated into pages not indexed yet still answers.
            if not cancelled:
                await asyncio.to_thread(self._remove_gone, gone, changes)
            self._take_notes()
            with self._state_lock:  # what the watcher reports from now on keeps the cache right
                noted = set() if self._stale_vault is None else self._stale_vault - cached
                errors = {k for k in self.state.errors if self._in_vault(k)}
                self._stale_vault = None if cancelled else errors | noted
                self._cache_epoch = epoch
            if not cancelled:
                await asyncio.to_thread(self._finish, stones, full or changes.rows_added > 1000)
        return changes

    def _pass_targets(self, everything: bool, walk: bool) -> tuple[list[_Source], list[str], set[str]]:
        """The files a pass must read (``everything``: all of them), the indexed files that are
        gone, and the cached candidates it took (those the watcher notes while it runs stay cached).

        The vault is walked on the first pass, on request and where no watcher reports changes
        (the command line); while one does, its cache names the only vault files that can be
        behind, so a pass after a dream or an undo costs what changed, not the vault's size.
        """
        self._take_notes()
        with self._state_lock:
            files, failed = dict(self.state.files), set(self.state.errors)
            trusted = self._watched and not (walk or everything) and self._stale_vault is not None
            cached = set(self._stale_vault) if self._stale_vault is not None else set()
        if not trusted:
            sources = self._sources()
            behind = set(sources) if everything else self._behind(sources, files, failed)
            return [s for s in sources.values() if s.key in behind], [k for k in files if k not in sources], cached
        memory = self._memory_sources()
        # besides what the watcher named: files a pass failed on or found rows missing for
        redo = {k for k, f in files.items() if (f.dirty or k in failed) and self._in_vault(k)}
        present, behind, vanished = self._named(cached | redo, files, failed)
        behind |= self._behind(memory, files, failed)
        gone = [k for k in files if not self._in_vault(k) and k not in memory] + vanished
        return [s for s in {**present, **memory}.values() if s.key in behind], gone, cached

    def _named(
        self, keys: set[str], files: dict[str, FileState], failed: set[str]
    ) -> tuple[dict[str, _Source], set[str], list[str]]:
        """Vault files named by the watcher's cache: those there now, which of them are behind,
        and those gone that still have rows."""
        candidates = {k: self._source_for(Path(k)) for k in keys}
        present = {k: src for k, src in candidates.items() if src is not None}
        gone = [k for k, src in candidates.items() if src is None and k in files]
        return present, self._behind(present, files, failed), gone

    def _report_problem(self, changes: ChangeSet) -> None:
        with self._state_lock:
            problem, self._problem = self._problem, None
        if problem:
            changes.errors.insert(0, problem)

    async def _stream(
        self,
        sources: list[_Source],
        stones: set[str],
        recheck: bool,
        changes: ChangeSet,
        progress: ProgressFn | None,
        cancel: threading.Event | None,
    ) -> bool:
        """Read, embed and write the files a window at a time; True when cancelled part-way.

        A window is up to BATCH_TEXTS new texts (or BATCH_FILES files): its texts are embedded
        sorted by length across all its files, EMBED_SLICE per call, without the file lock
        (between calls: cancel, progress, and a pass of this process waiting its turn runs),
        then written under the lock. Memory holds one window, never the whole vault; nothing of
        a file is written before all its rows have vectors (fail-closed).
        """
        total = len(sources)
        if progress and total:
            progress(0, total, "")
        outer_cancel, self._cancel = self._cancel, cancel  # a pass let in between slices runs nested
        start = 0
        try:
            while start < total:
                if cancel is not None and cancel.is_set():
                    return True
                window, end = await asyncio.to_thread(self._plan_window, sources, start, stones, recheck)
                keys = {p.source.key for p in window}
                self._inflight_paths.update((p.source.key, (p.mtime, p.size)) for p in window)
                try:
                    await self._embed_window(window, self._slice_progress(progress, start, end, total))
                    async with self._writing():
                        await asyncio.to_thread(self._write_window, window, stones, changes)
                finally:
                    for key in keys:
                        self._inflight_paths.pop(key, None)
                start = end
                if progress:
                    progress(start, total, window[-1].source.key if window else "")
        except _Cancelled:
            return True
        finally:
            self._cancel = outer_cancel
        return False

    @staticmethod
    def _slice_progress(progress: ProgressFn | None, start: int, end: int, total: int) -> Callable[[float], None]:
        """Progress inside a window (files ``start``..``end``): never past its end before it is written."""

        def report(part: float) -> None:
            if progress:
                progress(start + int((end - start - 1) * part), total, "")

        return report

    def _plan_window(
        self, sources: list[_Source], start: int, stones: set[str], recheck: bool
    ) -> tuple[list[_Plan], int]:
        """Plans for the files from ``start`` on, until the window is full; and where the next begins."""
        plans: list[_Plan] = []
        texts, index = 0, start
        while index < len(sources) and texts < BATCH_TEXTS and len(plans) < BATCH_FILES:
            source = sources[index]
            index += 1
            with self._state_lock:
                prior = self.state.files.get(source.key)
            plan = self._plan(source, prior, stones, recheck)
            if plan is not None:
                plans.append(plan)
                texts += len(plan.new_rows)
        return plans, index

    async def _embed_window(self, plans: list[_Plan], on_slice: Callable[[float], None]) -> None:
        """Vectors for a window's new rows, one slice per call, sorted by length across the window.

        When a call fails, the window is embedded again file by file so the failing files are
        named and the others still indexed.
        """
        ready = [p for p in plans if not p.error and not p.touch_only]
        await asyncio.to_thread(self._reuse, ready)
        rows = sorted((r for p in ready for r in p.new_rows if r.vector is None), key=lambda r: len(r.embed_text))
        for begin in range(0, len(rows), EMBED_SLICE):
            if self._cancel is not None and self._cancel.is_set():
                raise _Cancelled
            try:
                await asyncio.to_thread(self._embed_rows, rows[begin : begin + EMBED_SLICE])
            except EmbeddingError:
                await asyncio.to_thread(self._embed_plans, ready)
                return
            on_slice(min(1.0, (begin + EMBED_SLICE) / len(rows)))
            await self._let_others_in()

    def _reuse(self, plans: list[_Plan]) -> None:
        self._reuse_vectors(plans)
        self._reuse_by_content(plans)

    def _remove_gone(self, keys: list[str], changes: ChangeSet) -> None:
        """Under the lock: files still without a source lose their rows (one may have come back)."""
        self._remove_sources([k for k in keys if self._source_for(Path(k)) is None], changes)

    async def sync_paths(self, paths: Iterable[Path]) -> ChangeSet:
        """Re-index just these files (a log after an append, a page after a save, a watcher's batch).

        A folder stands for the files under it now and those indexed under it before, so a
        folder renamed outside the app is one call with its old and new paths; rows of a file
        that moved keep their vectors (see :meth:`_reuse_by_content`).
        """
        paths = [Path(p) for p in paths]
        async with self._pass():
            changes = ChangeSet()
            async with self._writing():
                try:
                    stones, recheck = await asyncio.to_thread(self._prepare, False)
                except EmbeddingError as exc:
                    changes.errors.append(f"index not updated: {exc}")
                    return changes
            if recheck or self._problem:  # tombstones changed, or no usable state: check every file
                return await self._sync_locked(False, None, None)

            def targets() -> tuple[list[str], list[_Source]]:
                gone: list[str] = []
                sources: list[_Source] = []
                for path in self._expand(paths):
                    source = self._source_for(path)
                    if source is None:
                        gone.append(str(path))
                    else:
                        sources.append(source)
                return gone, sources

            gone, sources = await asyncio.to_thread(targets)
            await self._stream(sources, stones, False, changes, None, None)
            async with self._writing():
                await asyncio.to_thread(self._remove_gone, gone, changes)
                self._take_notes()
                with self._state_lock:
                    if self._stale_vault is not None:
                        self._stale_vault.difference_update([*gone, *(str(p) for p in paths)])
                        for key in (s.key for s in sources):
                            (self._stale_vault.add if key in self.state.errors else self._stale_vault.discard)(key)
                await asyncio.to_thread(self._finish, stones, False)
            return changes

    def _expand(self, paths: list[Path]) -> list[Path]:
        """Folders stand for the files under them: those there now and those indexed there before."""
        found: dict[str, Path] = {}
        with self._state_lock:
            known = set(self.state.files)
        for path in paths:
            key = str(path)
            if path.is_dir():
                found.update((k, s.path) for k, s in self._vault_sources(path).items())
            elif key in known or path.exists():
                found[key] = path
                continue
            prefix = key + os.sep  # a folder now, or one that was renamed or deleted
            found.update((k, Path(k)) for k in known if k.startswith(prefix))
            if not path.is_dir():
                found.setdefault(key, path)
        return list(found.values())

    async def use_embedder(self, embedder: Embedder) -> None:
        """Between passes only: one pass must embed all its rows with one model."""
        async with self._exclusive():
            self.embedder = embedder

    async def remove_text(self, normalized: str) -> int:
        return await self.remove_texts([normalized])

    async def remove_texts(self, texts: Iterable[str]) -> int:
        """Delete rows whose text, or a paragraph or list item inside them, matches one of these tombstones.

        Chunks that lost one paragraph are re-chunked right away so their other paragraphs
        stay findable; if that re-embedding fails they come back on the next pass.
        """
        norms = {n for n in (normalize(t) for t in texts) if n}
        if not norms:
            return 0
        async with self._exclusive():
            return await asyncio.to_thread(self._remove_texts, norms)

    async def row_with_text(self, text: str) -> tuple[str, str, str] | None:
        """(source type, path, text) of an indexed row whose whole text is ``text`` (as search showed it).

        Text cut short with "…" (the one-line form of ``search``) names the one row it begins.
        """
        normalized = normalize(text)
        cut = normalized.endswith("…")
        normalized = normalized.rstrip("…").strip()
        if not normalized:
            return None

        def find() -> tuple[str, str, str] | None:
            import pyarrow.compute as pc

            try:
                store = self._open_store(self._read_dim(), repair=False)
                rows = store.scan(["source_type", "path", "text", "norm"])
            except (IndexStoreError, EmbeddingError):
                return None
            norms = rows.column("norm")
            mask = pc.starts_with(norms, normalized) if cut else pc.equal(norms, normalized)
            rows = rows.filter(pc.fill_null(mask, False))
            if rows.num_rows == 0 or (cut and rows.num_rows > 1):
                return None
            first = rows.slice(0, 1).to_pylist()[0]
            return first["source_type"], first["path"], first["text"]

        return await asyncio.to_thread(find)

    async def hit_by_id(self, row_id: str) -> SearchHit | None:
        """The row ``row_id`` as a hit; ids derive from source and content, so they outlive a restart."""

        def find() -> SearchHit | None:
            try:
                store = self._open_store(self._read_dim(), repair=False)
                rows = store.fetch([row_id], IndexStore.RESULT_COLUMNS).to_pylist()
            except (IndexStoreError, EmbeddingError):
                return None
            return self._hits([rows[0] | {"score": 0.0}])[0] if rows else None

        return await asyncio.to_thread(find)

    def sources_holding(self, text: str) -> list[Path]:
        """Live files that would give ``text`` a row if it were not tombstoned (blocking; reads files)."""
        normalized = normalize(text)
        key = norm_key(normalized)
        found: list[Path] = []
        for source in self._sources().values():
            try:
                data = source.path.read_bytes().decode("utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if normalized not in normalize(data):
                continue
            if any(r.norm == normalized or key in r.norm_keys for r in self._rows_for(source, data, set())):
                found.append(source.path)
        return found

    def _remove_texts(self, norms: set[str]) -> int:
        try:
            self._open_store(self._read_dim())
        except EmbeddingError:
            return 0
        ids = list(dict.fromkeys(i for n in sorted(norms) for i in self._store.ids_with_norm(n)))
        current = self.tombstones.contents()
        with self._state_lock:
            if norms <= current and self.state.tombstones == digest(current - norms):
                # Every indexed row matching the new tombstones goes below, so the index now reflects
                # the whole tombstone file: the next pass need not re-read every file for them.
                self.state.tombstones = digest(current)
                self._dirty = True
        if not ids:
            self._save_state()
            return 0
        info = self._store.fetch(ids, ["id", "path", "source_type"])
        removed = self._store.delete_ids(ids)
        rechunk: set[str] = set()
        with self._state_lock:
            for rid, path, source_type in zip(
                info.column("id").to_pylist(),
                info.column("path").to_pylist(),
                info.column("source_type").to_pylist(),
                strict=True,
            ):
                file_state = self.state.files.get(path)
                if file_state is not None:
                    file_state.rows.pop(rid, None)
                    self._changed(path)
                if source_type not in ("archive", "transcript"):  # their rows stand alone
                    rechunk.add(path)
        stones = current | norms
        changes = ChangeSet()
        plans = []
        for path in sorted(rechunk):
            source = self._source_for(Path(path))
            if source is None:
                continue
            with self._state_lock:
                prior = self.state.files.get(path)
            plan = self._plan(source, prior, stones, True)
            if plan is not None:
                plans.append(plan)
        if plans:
            try:
                self._apply(plans, changes)
            except IndexStoreError as exc:
                log.warning("re-chunking after forget failed: %s", exc)
        self._save_state()
        return removed

    # -- queries ---------------------------------------------------------------------------
    async def search(
        self,
        query: str,
        *,
        limit: int = 10,
        source: str | None = None,
        zone: str | None = None,
        date_from: str | None = None,
        date_to: str | None = None,
        operators: bool = True,
    ) -> SearchResponse:
        """Hybrid search; full-text only (and a warning saying why) when vectors cannot be had.

        The query's operators (``tag:``, ``path:``, ``"phrase"``, ``-term``: see ``core.query``)
        filter the rows before the limit; ``operators=False`` reads the query as plain words.
        """
        limit = max(1, int(limit))
        zone = Path(zone.strip("/")).parts[0] if zone and zone.strip("/") else None
        filters = Filters(source=source or None, zone=zone, date_from=date_from, date_to=date_to)
        parsed = parse_query(query) if operators else SearchQuery(words=query)
        return await asyncio.to_thread(self._search, parsed, limit, filters)

    def _search(self, query: SearchQuery, limit: int, filters: Filters) -> SearchResponse:
        """Candidates from the index (and unindexed files), then ordered to answer: see ``core.hits``."""
        scoped = self._scoped(query, filters)
        words = query.words
        if query.operators_only:
            response = self._listing(query, limit, scoped) if scoped is not None else SearchResponse([], "list")
        elif scoped is None:
            response = SearchResponse([], "hybrid")
        else:
            wanted = limit * CANDIDATES_PER_HIT + EXTRA_CANDIDATES
            response = self._with_unindexed(self._search_index(words, wanted, scoped), words, wanted, scoped)
            response.hits = answer_order(response.hits, words, limit, lambda hit: self._current_for(hit, query))
        response.words = words
        return response

    def _scoped(self, query: SearchQuery, filters: Filters) -> Filters | None:
        """``filters`` narrowed by the query's operators; None when no file can hold a hit.

        ``tag:`` and ``path:`` are decided per file, over the files the index holds (their tags
        read once per content hash), and become a list of paths the table query keeps or skips,
        whichever is shorter: LanceDB compares each row's path with the list (bench/search_operators.py).
        """
        filters = replace(filters, phrases=query.phrases, without=query.without)
        if not query.has_file_filters:
            return filters
        with self._state_lock:
            files: dict[str, str | None] = {key: state.sha256 for key, state in self.state.files.items()}
            files.update({key: None for key in self.state.errors if key not in files})
        if query.tags or query.without_tags:
            for key, digest in files.items():
                self._tags.update(key, digest)  # no hash (a failed file): its mtime and size
            self._tags.keep_only(files)
        tags = self._tags.snapshot() if query.tags or query.without_tags else {}
        keep = {key for key in files if file_passes(query, self._relative(key), tags.get(key, ()))}
        if not keep:
            return None
        skip = files.keys() - keep
        if len(keep) <= len(skip):
            return replace(filters, paths=frozenset(keep))
        return replace(filters, skip_paths=frozenset(skip))

    def _relative(self, key: str) -> str:
        """A file's path as ``path:`` sees it: inside the vault, else inside the memory folder."""
        for root in (self.layout.notebook_dir, self.layout.memory_dir):
            prefix = os.path.join(root, "")
            if key.startswith(prefix):
                return key[len(prefix) :].replace(os.sep, "/")
        return key.replace(os.sep, "/")

    def _listing(self, query: SearchQuery, limit: int, filters: Filters) -> SearchResponse:
        """A query of operators only: the matching files by path, one hit each.

        Each file's hit is its row naming a wanted ``#tag``, else its first row.
        """
        dim = self.state.dim
        if not dim:
            return SearchResponse([], "list")
        try:
            store = self._open_store(dim, repair=False)
            rows = store.matching(filters, IndexStore.RESULT_COLUMNS).to_pylist()
        except IndexStoreError as exc:
            self._drop_failed_store(self._store)
            return SearchResponse([], "list", f"search index unavailable ({exc}); unless a reindex is running, "
                                  "run reindex", failed=any(f.rows for f in self.state.files.values()))
        marks = tuple(f"#{tag}" for tag in query.tags)

        def rank(row: dict) -> tuple[bool, int]:
            return not any(mark in row["text"].lower() for mark in marks), row.get("line") or 0

        best: dict[str, dict] = {}
        for row in rows:
            known = best.get(row["path"])
            if known is None or rank(row) < rank(known):
                best[row["path"]] = row
        pages = sorted(best.values(), key=lambda row: self._relative(row["path"]).lower())
        return SearchResponse(self._hits([row | {"score": 1.0} for row in pages[:limit]]), "list")

    def _current_for(self, hit: SearchHit, query: SearchQuery | None = None) -> SearchHit | None:
        """The current fact on a superseded hit's page that sets the same subject (``works at X`` → ``works at Y``).

        With a query, the current fact must pass its ``"phrase"`` and ``-term`` filters too.
        """
        subject = subject_value(hit.text)
        store = self._store
        if subject is None or store is None:
            return None
        try:
            rows = store.rows_for_path(hit.path, IndexStore.RESULT_COLUMNS).to_pylist()
        except IndexStoreError:
            return None
        for row in sorted(rows, key=lambda r: r.get("line") or 0):
            if row.get("superseded") or row["id"] == hit.row_id:
                continue
            if query is not None and not text_passes(query, row["text"]):
                continue
            other = subject_value(row["text"])
            if other is not None and other.key == subject.key:
                return self._hits([row | {"score": hit.score}])[0]
        return None

    def _with_unindexed(self, response: SearchResponse, query: str, limit: int, filters: Filters) -> SearchResponse:
        """Add word matches from files whose embedding failed: the index holds no row of them."""
        extra = self._unindexed_hits(query, limit, filters)
        if not extra:
            return response
        seen = {h.row_id for h in response.hits}
        hits = response.hits + [h for h in extra if h.row_id not in seen]
        note = "some files are not indexed yet (embedding failed); they were searched by words only"
        warning = f"{response.warning}; {note}" if response.warning else note
        return SearchResponse(hits[:limit], response.mode, warning, failed=response.failed)

    def _unindexed_hits(self, query: str, limit: int, filters: Filters) -> list[SearchHit]:
        with self._state_lock:
            keys = [k for k, message in self.state.errors.items() if EMBEDDING_FAILED in message]
        self._unindexed.keep_only(keys)
        if not keys:
            return []
        stones = self.tombstones.contents()
        stamp = digest(stones)
        rows: list[Row] = []
        for key in keys:
            source = self._source_for(Path(key))
            if source is None:
                continue
            rows += self._unindexed.rows(source.path, stamp, lambda s=source: self._read_rows(s, stones))
        return self._hits(text_matches(rows, query, limit, filters))

    def _read_rows(self, source: _Source, stones: set[str]) -> list[Row]:
        try:
            data = source.path.read_bytes()
        except OSError:
            return []
        if looks_binary(data):
            return []
        return self._rows_for(source, clean(decode_lenient(data)[0]), stones)

    def _search_index(self, query: str, limit: int, filters: Filters) -> SearchResponse:
        warning: str | None = None
        vector = None
        try:
            if self.state.model and self.state.model != self.embedder.name:
                raise EmbeddingError(f"the index was built with {self.state.model}; run reindex")
            dim = self._read_dim()
            plan = fusion.plan_for(query, fusion.embedder_scripts(self.embedder))
            embed = getattr(self.embedder, "embed_query", self.embedder.embed)  # E5 embeds questions apart
            vector = embed([query])[0] if query.strip() and plan.vectors else None
        except EmbeddingError as exc:
            warning = f"semantic search unavailable ({exc}); showing full-text matches only"
            dim = self.state.dim
            if not dim:
                return SearchResponse([], "fulltext", warning)
        failure: IndexStoreError | None = None
        for last in (False, True):  # once more on a fresh handle: another process may have rebuilt it
            try:
                return self._query(dim, vector, query, limit, filters, warning, fall_back=last)
            except IndexStoreError as exc:  # the next sync pass rebuilds an unreadable table
                self._drop_failed_store(self._store)
                failure = exc
        return SearchResponse(
            [], "fulltext", f"search index unavailable ({failure}); unless a reindex is running, run reindex",
            failed=any(f.rows for f in self.state.files.values()),  # rows were written: the memory is not empty
        )

    def _query(
        self,
        dim: int,
        vector: np.ndarray | None,
        query: str,
        limit: int,
        filters: Filters,
        warning: str | None,
        *,
        fall_back: bool,
    ) -> SearchResponse:
        store = self._open_store(dim, repair=False)
        plan = fusion.plan_for(query, fusion.embedder_scripts(self.embedder) if vector is not None else frozenset())
        titles = self._titles.get(store)
        if plan.vectors:
            try:
                hits = self._hits(fusion.search(store, titles, plan, query, vector, limit, filters))
                return SearchResponse(hits, "hybrid", store.ann_notice)  # a damaged ANN index is bypassed
            except IndexStoreError as exc:
                if not fall_back:
                    raise
                warning = f"semantic search failed ({exc}); showing full-text matches only"
                plan = replace(plan, vectors=False)
        return SearchResponse(self._hits(fusion.search(store, titles, plan, query, None, limit, filters)),
                              "fulltext", warning)

    @staticmethod
    def _hits(rows: list[dict]) -> list[SearchHit]:
        return [
            SearchHit(
                text=r["text"],
                source_type=r["source_type"],
                path=r["path"],
                line=r.get("line"),
                date=r.get("date"),
                score=float(r.get("score", 0.0)),
                heading=r.get("heading"),
                row_id=r["id"],
                superseded=bool(r.get("superseded")),
                until=r.get("until"),
            )
            for r in rows
        ]

    async def related(self, path: Path, limit: int = 8) -> list[SearchHit]:
        """Rows nearest to a page's own chunks, from other files only (a backlinks-style 'see also')."""
        return await asyncio.to_thread(self._related, Path(path), limit)

    def _related(self, path: Path, limit: int) -> list[SearchHit]:
        try:
            if self.state.model and self.state.model != self.embedder.name:
                return []  # vectors of two models are not comparable; wait for the rebuild
            store = self._open_store(self._read_dim(), repair=False)
            vectors = list(_vectors(store.rows_for_path(str(path), ["id", "vector"]), store.dim))
            if not vectors and path.is_file():
                chunks = chunk_markdown(clean(decode_lenient(path.read_bytes())[0]))[:8]
                if chunks:
                    vectors = list(self.embedder.embed([embedding_text(c) for c in chunks]))
            best: dict[str, SearchHit] = {}
            for vector in vectors[:8]:
                rows = store.vector_search(np.asarray(vector), limit, Filters(exclude_path=str(path)))
                for hit in self._hits(rows):
                    if hit.score <= 0:
                        continue
                    if hit.row_id not in best or best[hit.row_id].score < hit.score:
                        best[hit.row_id] = hit
        except IndexStoreError as exc:
            self._drop_failed_store(self._store)
            log.warning("related pages for %s unavailable: %s", path, exc)
            return []
        except (EmbeddingError, OSError) as exc:
            log.warning("related pages for %s unavailable: %s", path, exc)
            return []
        return sorted(best.values(), key=lambda h: h.score, reverse=True)[:limit]

    async def findable(self, stones: Iterable[str], *, min_contained: int = 12) -> list[tuple[str, int | None, str, str]]:
        """Rows that still show tombstoned text: (path, line, source type, tombstone); read-only.

        A row shows it when the row is the text, holds it as a paragraph or item, or (for a
        tombstone of ``min_contained`` characters or more) contains it inside a longer text.
        """
        return await asyncio.to_thread(self._findable, [normalize(s) for s in stones if normalize(s)], min_contained)

    def _findable(self, stones: list[str], min_contained: int) -> list[tuple[str, int | None, str, str]]:
        import pyarrow.compute as pc

        if not stones or not (self.layout.index_dir / f"{TABLE_NAME}.lance").exists():
            return []
        try:
            store = self._open_store(self._read_dim(), repair=False)
            table = store.scan(["path", "line", "source_type", "norm", "norm_keys"])
        except (IndexStoreError, EmbeddingError):
            return []
        if table.num_rows == 0:
            return []
        norms = table.column("norm")
        keys = table.column("norm_keys").combine_chunks()
        flat_keys, parents = pc.list_flatten(keys), pc.list_parent_indices(keys)
        found: list[tuple[str, int | None, str, str]] = []
        for stone in sorted(set(stones)):
            mask = np.asarray(pc.fill_null(pc.equal(norms, stone), False).to_numpy(zero_copy_only=False))
            if len(stone) >= min_contained:
                inside = pc.fill_null(pc.match_substring(norms, stone), False)
                mask = mask | np.asarray(inside.to_numpy(zero_copy_only=False))
            held = pc.filter(parents, pc.fill_null(pc.equal(flat_keys, norm_key(stone)), False)).to_numpy()
            mask[held] = True
            for index in np.flatnonzero(mask):
                row = table.slice(int(index), 1).to_pylist()[0]
                found.append((row["path"], row["line"], row["source_type"], stone))
        return found

    async def stats(self) -> IndexStats:
        return await asyncio.to_thread(self._stats)

    def _stats(self) -> IndexStats:
        errors = list(self.state.errors.values())
        rows, by_source = 0, {}
        store = None
        try:
            dim = self._read_dim()
            if (self.layout.index_dir / f"{TABLE_NAME}.lance").exists():  # else: nothing indexed yet
                store = self._open_store(dim, repair=False)
                rows, by_source = store.count(), store.count_by_source()
        except EmbeddingError as exc:
            errors.append(f"index unreadable: {exc}")
        except IndexStoreError as exc:
            self._drop_failed_store(store or self._store)
            errors.append(f"index unreadable: {exc}")
        return IndexStats(rows, by_source, [str(p) for p in self.stale_paths()], errors)

    def stale_paths(self, *, refresh: bool = False) -> list[Path]:
        """Files the index is behind on: changed since indexed (mtime or size), never indexed, failed, gone.

        While a watcher reports changes (:meth:`watch`, :meth:`note_changed`), the vault's part
        comes from a cache that it and the passes keep, so asking after every search or status
        refresh never walks the vault: only the cached candidates are looked at again. The vault
        is walked the first time, when ``refresh`` asks, and in a process that watches nothing
        (the command line). Core files and daily logs are few and always checked.
        """
        self._take_notes()
        epoch = self._watch_epoch
        with self._state_lock:
            trusted = self._watched and not refresh and self._stale_vault is not None
            cached = set(self._stale_vault) if trusted else None
            files = dict(self.state.files)
            failed = set(self.state.errors)
        try:
            memory = self._memory_sources()
            table_gone = bool(files) and not (self.layout.index_dir / f"{TABLE_NAME}.lance").exists()
            vault = self._vault_sources() if cached is None or table_gone else None
        except OSError:
            return []
        if table_gone:  # the table was deleted: everything is behind
            return sorted(s.path for s in {**vault, **memory}.values())
        stale = self._behind(memory, files, failed) | {k for k in files if k not in memory and not self._in_vault(k)}
        if vault is not None:
            found = self._behind(vault, files, failed) | {k for k in files if k not in vault and self._in_vault(k)}
        else:
            _present, behind, gone = self._named(cached, files, failed)
            found = behind | set(gone)
        with self._state_lock:
            self._stale_vault = found
            self._cache_epoch = epoch
        return sorted(Path(k) for k in stale | found)

    @staticmethod
    def _behind(sources: dict[str, _Source], files: dict[str, FileState], failed: set[str]) -> set[str]:
        stale: set[str] = set()
        for key, source in sources.items():
            prior = files.get(key)
            if prior is None or prior.dirty or key in failed or prior.variant != source.variant:
                stale.add(key)
                continue
            if source.stat is None:
                try:
                    stat = os.stat(key)
                except OSError:
                    stale.add(key)
                    continue
                source.stat = (stat.st_mtime, stat.st_size)
            if source.stat != (prior.mtime, prior.size):
                stale.add(key)
        return stale

    def _in_vault(self, key: str) -> bool:
        """A path of the vault's own files (not of a memory folder kept inside it)."""
        root, memory = self._prefixes
        return key.startswith(root) and (memory is None or not key.startswith(memory))

    @cached_property
    def _prefixes(self) -> tuple[str, str | None]:
        """The vault's path and, when the memory folder is inside it, that folder's (as string prefixes)."""
        root, memory = self.notebook.root, self.layout.memory_dir
        return f"{root}{os.sep}", None if memory == root else f"{memory}{os.sep}"

    def watch(self, watching: bool) -> None:
        """A watcher reports every change from now on (or stopped): only then is the cache trusted.
        Either way the next look walks the vault once. Called on the GUI thread, so it takes no
        lock a pass may hold (a first pass holds it for seconds): the next look drops the cache."""
        self._watched = watching
        self._watch_epoch += 1

    def note_changed(self, paths: Iterable[Path]) -> None:
        """The watcher saw these change (files, or folders: every file indexed under them counts):
        they count as behind until a pass takes them. Called on the GUI thread per event, so it
        only queues them (no lock a pass may hold); the next look at the cache takes them in."""
        self._noted.extend(str(p) for p in paths)

    def _take_notes(self) -> None:
        """Move the paths the watcher reported into the stale cache (under the state lock)."""
        with self._state_lock:
            noted, self._noted = self._noted, []
            if self._cache_epoch != self._watch_epoch:  # made before the watcher started or stopped
                self._stale_vault = None
            if self._stale_vault is None:
                return  # not known yet: the first look walks the vault anyway
            for key in noted:
                if not self._in_vault(key):
                    continue
                if key in self.state.files or key.lower().endswith((".md", CANVAS_SUFFIX)):
                    self._stale_vault.add(key)
                if key not in self.state.files and not key.lower().endswith((".md", CANVAS_SUFFIX)):
                    prefix = key + os.sep  # a folder: the files indexed under it
                    self._stale_vault.update(k for k in self.state.files if k.startswith(prefix))
