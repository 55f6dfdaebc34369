"""Keeps the search index in step with the files (the write path), and answers searches.

The indexer is a small coordinator over four parts, each in its own module, none reading another's
private names:

* ``core/index/storage/table.py`` (:class:`IndexTable`): the table and its state, the turns a pass takes
  (one per process, and a lock file shared with other processes), writing and removing rows;
* ``core/index/rows/sources.py`` (:class:`Sources`): which files should have rows (the vault model's
  snapshot, the core files, the days' logs, transcripts) and which the index is behind on;
* ``core/index/rows/planner.py`` (:class:`Planner`): a file's rows, what a pass must do about them,
  vectors for new rows (reused where the table has them);
* ``core/index/ranking/search.py`` (:class:`Searcher`): the read path, with one ``search(request)``.

This module runs the passes: whole, or the paths a watcher or an operation named; streaming
windows; forgetting.

The files are the truth; the index is derived. Each pass reconciles the indexed files
recorded in the index state (``core/index/storage/state.py``) with the files on disk: mtime and size
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
import logging
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from suzent_desktop.core.files.clock import Clock
from suzent_desktop.core.files.disk.regular import read_page
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.records.archive import Archive
from suzent_desktop.core.files.records.tombstones import Tombstones, normalize
from suzent_desktop.core.files.records.transcripts import Transcripts
from suzent_desktop.core.index.embedding import Embedder, EmbeddingError
from suzent_desktop.core.index.ranking.filters import Filters
from suzent_desktop.core.index.ranking.hits import SearchHit
from suzent_desktop.core.index.ranking.search import IndexStats, Searcher, SearchRequest, SearchResponse
from suzent_desktop.core.index.rows.planner import EMBED_SLICE, Cancelled, Plan, Planner
from suzent_desktop.core.index.rows.sources import KeptFacts, Moment, Source, Sources
from suzent_desktop.core.index.storage import audit
from suzent_desktop.core.index.storage.state import IndexState
from suzent_desktop.core.index.storage.store import IndexStoreError, norm_key
from suzent_desktop.core.index.storage.table import IndexTable
from suzent_desktop.core.vault.model import Vault
from suzent_desktop.core.vault.notebook import Notebook

log = logging.getLogger(__name__)

BATCH_TEXTS = 4096  # new texts per window: sorted by length together, held in memory together (RSS: bench/incremental.py)
BATCH_FILES = 4000  # files per window at most

ProgressFn = Callable[[int, int, str], None]


class Indexer:
    """The index of one home: passes that keep it in step with the files, and its queries."""

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
        vault: Vault | None = None,
        kept: KeptFacts | None = None,
    ) -> None:
        """``kept`` gives, per consolidated day, the facts whose log rows stay in search (the memory
        ledger, ``core/engines/ledger/uncovered.py``, handed down by the home); without it such days have none."""
        self.layout = layout
        self.notebook = notebook or Notebook(layout)
        self.archive = archive or Archive(layout)
        self.tombstones = tombstones or Tombstones(layout)
        self.vault = vault or Vault(layout)  # the home's model: the index discovers pages through it
        self.table = IndexTable(layout, embedder)
        self.sources = Sources(
            layout, self.table, notebook=self.notebook, archive=self.archive,
            transcripts=transcripts or Transcripts(layout), vault=self.vault, clock=clock, kept=kept,
        )
        self.planner = Planner(self.table, self.sources, self.tombstones)
        self.searcher = Searcher(self.table, self.sources, self.planner, layout=layout, vault=self.vault,
                                 tombstones=self.tombstones)

    @property
    def embedder(self) -> Embedder:
        return self.table.embedder

    @embedder.setter
    def embedder(self, embedder: Embedder) -> None:
        """Between passes only (see :meth:`use_embedder`, which waits for one to end)."""
        self.table.embedder = embedder

    @property
    def state(self) -> IndexState:
        return self.table.state

    @property
    def on_wait(self) -> Callable[[], None] | None:
        """Told once when a pass must wait its turn (the window shows it)."""
        return self.table.on_wait

    @on_wait.setter
    def on_wait(self, notice: Callable[[], None] | None) -> None:
        self.table.on_wait = notice

    # -- passes ----------------------------------------------------------------------------------
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
        async with self.table.turn():
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

    async def _prepare(self, full: bool, changes: ChangeSet) -> tuple[set[str], bool] | None:
        """Under the file lock: the table opened (rebuilt when it must be) and checked; the tombstones
        and whether every file must be read again for them. None when the embedder cannot say its
        model (the error is in ``changes``)."""

        def prepare() -> tuple[set[str], bool]:
            self.table.prepare(full, self.sources.all)
            stones = self.tombstones.contents()
            return stones, self.table.behind_tombstones(stones)

        try:
            return await asyncio.to_thread(prepare)
        except EmbeddingError as exc:
            changes.errors.append(f"index not updated: {exc}")
            return None

    async def _sync_once(
        self, full: bool, progress: ProgressFn | None, cancel: threading.Event | None, refresh: bool = False
    ) -> ChangeSet:
        changes = ChangeSet()
        epoch = self.sources.epoch
        async with self.table.writing():
            prepared = await self._prepare(full, changes)
        if prepared is None:
            return changes
        stones, recheck = prepared
        if problem := self.table.take_problem():
            changes.errors.insert(0, problem)
        todo, gone, cached = await asyncio.to_thread(self.sources.targets, full or recheck, refresh)
        cancelled = await self._stream(todo, stones, recheck, changes, progress, cancel)
        async with self.table.writing():
            # Files that are gone lose their rows last: a renamed file's rows lent their vectors above.
            # A pass cut short keeps them: a log consolidated into pages not indexed yet still answers.
            if not cancelled:
                await asyncio.to_thread(self._remove_gone, gone, changes)
            self.sources.after_pass(cached, epoch, cancelled)
            if not cancelled:
                await asyncio.to_thread(self.table.finish, stones, full or changes.rows_added > 1000)
        return changes

    async def _stream(
        self,
        sources: list[Source],
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
        planner = self.planner
        outer_cancel, planner.cancel = planner.cancel, cancel  # a pass let in between slices runs nested
        start = 0
        try:
            while start < total:
                if cancel is not None and cancel.is_set():
                    return True
                window, end = await asyncio.to_thread(self._plan_window, sources, start, stones, recheck)
                keys = {p.source.key for p in window}
                planner.inflight.update((p.source.key, (p.mtime, p.size)) for p in window)
                try:
                    await self._embed_window(window, _slice_progress(progress, start, end, total))
                    async with self.table.writing():
                        await asyncio.to_thread(self._write_window, window, stones, changes)
                finally:
                    for key in keys:
                        planner.inflight.pop(key, None)
                start = end
                if progress:
                    progress(start, total, window[-1].source.key if window else "")
        except Cancelled:
            return True
        finally:
            planner.cancel = outer_cancel
        return False

    def _plan_window(self, sources: list[Source], start: int, stones: set[str], recheck: bool) -> tuple[list[Plan], int]:
        """Plans for the files from ``start`` on, until the window is full; and where the next begins."""
        plans: list[Plan] = []
        texts, index = 0, start
        while index < len(sources) and texts < BATCH_TEXTS and len(plans) < BATCH_FILES:
            source = sources[index]
            index += 1
            plan = self.planner.plan(source, self.table.entry(source.key), stones, recheck)
            if plan is not None:
                plans.append(plan)
                texts += len(plan.new_rows)
        return plans, index

    async def _embed_window(self, plans: list[Plan], on_slice: Callable[[float], None]) -> None:
        """Vectors for a window's new rows, one slice per call, sorted by length across the window.

        When a call fails, the window is embedded again file by file so the failing files are
        named and the others still indexed.
        """
        planner = self.planner
        ready = [p for p in plans if not p.error and not p.touch_only]
        await asyncio.to_thread(planner.reuse, ready)
        rows = sorted((r for p in ready for r in p.new_rows if r.vector is None), key=lambda r: len(r.embed_text))
        for begin in range(0, len(rows), EMBED_SLICE):
            if planner.cancelled():
                raise Cancelled
            try:
                await asyncio.to_thread(planner.embed_rows, rows[begin : begin + EMBED_SLICE])
            except EmbeddingError:
                await asyncio.to_thread(planner.embed_plans, ready)
                return
            on_slice(min(1.0, (begin + EMBED_SLICE) / len(rows)))
            await self.table.let_others_in()

    def _write_window(self, plans: list[Plan], stones: set[str], changes: ChangeSet) -> None:
        """Under the file lock: write what a window embedded without it, checked against the state now."""
        checked = self.planner.checked(plans, stones)
        if checked is not None:
            self.table.write(*checked, changes)

    def _remove_gone(self, keys: list[str], changes: ChangeSet) -> None:
        """Under the lock: files still without a source lose their rows (one may have come back)."""
        self.table.remove([k for k in keys if self.sources.source_for(Path(k)) is None], changes)

    async def sync_paths(self, paths: Iterable[Path]) -> ChangeSet:
        """Re-index just these files (a log after an append, a page after a save, a watcher's batch).

        A folder stands for the files under it now and those indexed under it before, so a
        folder renamed outside the app is one call with its old and new paths; rows of a file
        that moved keep their vectors (a row of the same text lends its vector).
        """
        paths = [Path(p) for p in paths]
        await asyncio.to_thread(self.vault.apply, paths)  # the vault model first: it never waits for a pass
        async with self.table.turn():
            changes = ChangeSet()
            async with self.table.writing():
                prepared = await self._prepare(False, changes)
            if prepared is None:
                return changes
            stones, recheck = prepared
            if recheck or self.table.has_problem:  # tombstones changed, or no usable state: check every file
                return await self._sync_locked(False, None, None)

            def targets() -> tuple[list[str], list[Source]]:
                gone: list[str] = []
                sources: list[Source] = []
                for path in self.sources.expand(paths):
                    source = self.sources.source_for(path)
                    if source is None:
                        gone.append(str(path))
                    else:
                        sources.append(source)
                return gone, sources

            gone, sources = await asyncio.to_thread(targets)
            await self._stream(sources, stones, False, changes, None, None)
            async with self.table.writing():
                await asyncio.to_thread(self._remove_gone, gone, changes)
                self.sources.after_paths(paths, gone, sources)
                await asyncio.to_thread(self.table.finish, stones, False)
            return changes

    async def use_embedder(self, embedder: Embedder) -> None:
        """Between passes only: one pass must embed all its rows with one model."""
        async with self.table.exclusive():
            self.table.embedder = embedder

    # -- forgetting ------------------------------------------------------------------------------
    def take_holding_forgotten(self) -> list[Path]:
        """Files the passes so far found holding forgotten text (another device's page, synced after
        the forget, or a tombstone synced after the page), once each: the index leaves the text out,
        and the caller takes it off the files."""
        return [Path(k) for k in sorted(self.planner.take_holding_forgotten())]

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
        async with self.table.exclusive():
            return await asyncio.to_thread(self._remove_texts, norms)

    def _remove_texts(self, norms: set[str]) -> int:
        current = self.tombstones.contents()
        try:
            removed, rechunk = self.table.remove_texts(norms, current)
        except EmbeddingError:
            return 0
        stones = current | norms
        plans = []
        for path in sorted(rechunk):
            source = self.sources.source_for(Path(path))
            plan = None if source is None else self.planner.plan(source, self.table.entry(path), stones, True)
            if plan is not None:
                plans.append(plan)
        if plans:
            try:
                self.table.write(*self.planner.embedded(plans), ChangeSet())
            except IndexStoreError as exc:
                log.warning("re-chunking after forget failed: %s", exc)
        self.table.save_state()
        return removed

    def sources_holding(self, text: str) -> list[Path]:
        """Live files that would give ``text`` a row if it were not tombstoned (blocking; reads files)."""
        normalized = normalize(text)
        key = norm_key(normalized)
        found: list[Path] = []
        for source in self.sources.all().values():
            try:
                data = read_page(source.path).decode("utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if normalized not in normalize(data):
                continue
            if any(r.norm == normalized or key in r.norm_keys for r in self.planner.rows_for(source, data, set())):
                found.append(source.path)
        return found

    # -- what is behind, and the watcher ---------------------------------------------------------
    def stale_paths(self, *, refresh: bool = False) -> list[Path]:
        """Files the index is behind on (see :meth:`Sources.stale_paths`)."""
        return self.sources.stale_paths(refresh=refresh)

    def watch(self, watching: bool) -> None:
        """A watcher reports every change from now on, or stopped (see :meth:`Sources.watch`)."""
        self.sources.watch(watching)

    def note_changed(self, paths: Iterable[Path]) -> None:
        """The watcher saw these change; the next pass or look takes them (GUI thread, no lock)."""
        self.sources.note_changed(paths)

    def audit_rows(self, at: Moment | None = None) -> list[tuple[str, str]]:
        """``(path, why)`` for every index row the files do not give now (``doctor``; ``at``: the vault
        and days it read); reads only."""
        return audit.audit_rows(self.table, self.sources, self.planner, at)

    # -- queries ---------------------------------------------------------------------------------
    async def search(
        self, query: str, *, limit: int = 10, filters: Filters | None = None, operators: bool = True
    ) -> SearchResponse:
        """Hybrid search (see :meth:`Searcher.search`, the one ranking path)."""
        return await self.searcher.search(SearchRequest(query, limit, filters, operators))

    async def hit_by_id(self, row_id: str) -> SearchHit | None:
        return await self.searcher.hit_by_id(row_id)

    async def related(self, path: Path, limit: int = 8) -> list[SearchHit]:
        return await self.searcher.related(path, limit)

    async def findable(self, stones: Iterable[str]) -> list[tuple[str, int | None, str, str]]:
        return await self.searcher.findable(stones)

    async def stats(self, at: Moment | None = None) -> IndexStats:
        return await self.searcher.stats(at)

    async def row_with_text(self, text: str) -> tuple[str, str, str] | None:
        return await self.searcher.row_with_text(text)


def _slice_progress(progress: ProgressFn | None, start: int, end: int, total: int) -> Callable[[float], None]:
    """Progress inside a window (files ``start``..``end``): never past its end before it is written."""

    def report(part: float) -> None:
        if progress:
            progress(start + int((end - start - 1) * part), total, "")

    return report
