"""Keeps the search index in step with the files (the write path), and answers searches.

The indexer is one object made of parts split by direction, each in its own module:

* ``core/index/index_sources.py``: which files should have rows, and which the index is behind on;
* ``core/index/index_plan.py``: a file's rows, what a pass must do about them, vectors for new rows;
* ``core/index/index_lock.py``: one pass per process, the lock file shared with other processes, the state;
* ``core/index/index_reconcile.py``: the table opened or rebuilt, checked against the files, the audit;
* this module: passes (whole, or the paths a watcher or an operation named), streaming windows,
  writing fail-closed, and forgetting;
* ``core/index/search.py``: the read path (query, filters, hybrid search, folding, supersede ranking).

The files are the truth; the index is derived. Each pass reconciles the indexed files
recorded in the index state (``core/index/index_state.py``) with the files on disk: mtime and size
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

import numpy as np

from suzent_desktop.core.files.archive import Archive
from suzent_desktop.core.files.clock import Clock
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.faults import crash_point
from suzent_desktop.core.files.layout import Layout
from suzent_desktop.core.files.regular import read_page
from suzent_desktop.core.files.tombstones import Tombstones, normalize
from suzent_desktop.core.files.transcripts import Transcripts
from suzent_desktop.core.index import fusion
from suzent_desktop.core.index.embedding import Embedder, EmbeddingError
from suzent_desktop.core.index.fair_lock import FairLock
from suzent_desktop.core.index.index_lock import IndexLock
from suzent_desktop.core.index.index_plan import Plan as _Plan
from suzent_desktop.core.index.index_plan import RowPlanning
from suzent_desktop.core.index.index_reconcile import TableReconciliation
from suzent_desktop.core.index.index_sources import Source as _Source
from suzent_desktop.core.index.index_sources import SourceDiscovery, _stat_of
from suzent_desktop.core.index.index_state import FileState, IndexState, StateStore, content_hash, digest
from suzent_desktop.core.index.index_store import IndexStore, IndexStoreError, Row, norm_key
from suzent_desktop.core.index.search import IndexSearch
from suzent_desktop.core.index.unindexed import RowCache
from suzent_desktop.core.vault.model import Vault
from suzent_desktop.core.vault.notebook import Notebook
from suzent_desktop.core.vault.tags import FileTags

log = logging.getLogger(__name__)

BATCH_TEXTS = 4096  # new texts per window: sorted by length together, held in memory together (RSS: bench/incremental.py)
BATCH_FILES = 4000  # files per window at most
EMBED_SLICE = 256  # texts per embedder call; the cancel flag is checked between calls (~0.4 s apart)

ProgressFn = Callable[[int, int, str], None]


class _Cancelled(Exception):
    """Raised inside a worker thread when the user cancelled the pass (before anything is written)."""


# -- the indexer ---------------------------------------------------------------------------
class Indexer(IndexLock, SourceDiscovery, RowPlanning, TableReconciliation, IndexSearch):
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
    ) -> None:
        self.layout = layout
        self.embedder = embedder
        self.clock = clock
        self.notebook = notebook or Notebook(layout)
        self.archive = archive or Archive(layout)
        self.tombstones = tombstones or Tombstones(layout)
        self.transcripts = transcripts or Transcripts(layout)
        self.vault = vault or Vault(layout)  # the home's model: the index discovers pages through it
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
        self._tags = FileTags()  # for ``tag:``: tags of the memory folder's files, re-read when their hash changes
        self._tag_digests: dict[str, str | None] = {}  # the content hashes the vault model's tags were taken at
        # files a pass is embedding, with the (mtime, size) it read: a pass let in skips them
        # while they are still as that pass read them
        self._inflight_paths: dict[str, tuple[float, int]] = {}
        self.on_wait: Callable[[], None] | None = None  # told once when a pass must wait its turn
        self._table_checked = True  # False: the next pass compares the whole table with the files
        # pages and core files a pass found still holding forgotten text (see take_holding_forgotten)
        self.holding_forgotten: set[str] = set()

    # -- state ---------------------------------------------------------------------------


    # -- planning (worker thread) ----------------------------------------------------------


    # -- writing (worker thread) -----------------------------------------------------------

    def _embed_into(self, rows: list[Row]) -> None:
        """Vectors for ``rows``, in slices so a cancel request is honoured within seconds.

        Rows are sorted by length first so each slice pads its texts to similar lengths.
        """
        rows = sorted((r for r in rows if r.vector is None), key=lambda r: len(r.embed_text))
        for start in range(0, len(rows), EMBED_SLICE):
            if self._cancel is not None and self._cancel.is_set():
                raise _Cancelled
            self._embed_rows(rows[start : start + EMBED_SLICE])


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
            sources = self._sources(fresh=walk)
            behind = set(sources) if everything else self._behind(sources, files, failed)
            return [s for s in sources.values() if s.key in behind], [k for k in files if k not in sources], cached
        memory = self._memory_sources()
        # besides what the watcher named: files a pass failed on or found rows missing for
        redo = {k for k, f in files.items() if (f.dirty or k in failed) and self._in_vault(k)}
        present, behind, vanished = self._named(cached | redo, files, failed)
        behind |= self._behind(memory, files, failed)
        gone = [k for k in files if not self._in_vault(k) and k not in memory] + vanished
        return [s for s in {**present, **memory}.values() if s.key in behind], gone, cached


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
        await asyncio.to_thread(self.vault.apply, paths)  # the vault model first: it never waits for a pass
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


    def take_holding_forgotten(self) -> list[Path]:
        """Files the passes so far found holding forgotten text (another device's page, synced after
        the forget, or a tombstone synced after the page), once each: the index leaves the text out,
        and the caller takes it off the files."""
        keys, self.holding_forgotten = self.holding_forgotten, set()
        return [Path(k) for k in sorted(keys)]

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


    def sources_holding(self, text: str) -> list[Path]:
        """Live files that would give ``text`` a row if it were not tombstoned (blocking; reads files)."""
        normalized = normalize(text)
        key = norm_key(normalized)
        found: list[Path] = []
        for source in self._sources().values():
            try:
                data = read_page(source.path).decode("utf-8")
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

