"""The index's table and its state, and the turns taken to change them: one part of the indexer.

The table (``core/index/storage/store.py``) holds the rows; the state (``core/index/storage/state.py``)
records which file gave which rows. Both are derived from the files and change together, so this
part owns both handles and the locks around them:

* one pass per process (:attr:`IndexTable.lock`, :meth:`IndexTable.turn`);
* the lock file beside the table, shared with other processes (the app and the command line in a
  terminal) while the table and the state change, never held while embedding
  (:meth:`IndexTable.writing`): whoever takes it adopts what the other wrote (its state, its table);
* the crash mark, left while a mutation runs: one found on entry means the last one was cut short,
  and the next pass compares the whole table with the files (:meth:`IndexTable.reconcile`);
* writing a pass's plans fail-closed (:meth:`IndexTable.write`) and removing a file's rows.

Queries never create or reset the table: they open it with ``repair=False``.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from suzent_desktop.core.files.disk.faults import crash_point
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.index.embedding import Embedder
from suzent_desktop.core.index.storage.fair_lock import FairLock
from suzent_desktop.core.index.storage.state import FileState, IndexState, StateStore, content_hash, digest
from suzent_desktop.core.index.storage.store import TABLE_NAME, IndexStore, IndexStoreError
from suzent_desktop.core.vault.forgotten import Forgotten

if TYPE_CHECKING:
    from suzent_desktop.core.index.rows.planner import Plan

log = logging.getLogger(__name__)

PASS_MARK = "pass.unfinished"  # exists while a mutation runs; found on entry, the last one was cut short


class IndexTable:
    """The table, the state, and the locks a pass takes to change them."""

    def __init__(self, layout: Layout, embedder: Embedder) -> None:
        self.layout = layout
        self.embedder = embedder  # the model whose vectors the table holds; changed between passes only
        self.lock = asyncio.Lock()  # one pass of this process at a time
        self.state_lock = threading.RLock()  # the state and the handles, across worker threads
        # Not thread-local: it may be taken and released on different threads.
        self.fair_lock = FairLock(layout.index_dir / "write.lock")  # taken in order of arrival, bounded wait
        self.states = StateStore(layout.index_dir)
        self.on_wait: Callable[[], None] | None = None  # told once when a pass must wait its turn
        self._state: IndexState | None = None
        self._store: IndexStore | None = None
        self._dirty = False
        self._generation: int | None = None  # the stored state's generation as this process last saw it
        self._problem: str | None = None  # why the stored state was unusable; the next pass reports it
        self._by_hash: dict[str, str] | None = None  # content hash -> an indexed row with that text (lazy)
        self._table_checked = True  # False: the next pass compares the whole table with the files

    # -- turns ---------------------------------------------------------------------------------
    @asynccontextmanager
    async def exclusive(self) -> AsyncIterator[None]:
        """A pass of this process that holds the file lock throughout (forget, a model switch)."""
        async with self.turn(), self.writing():
            yield

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """One pass of this process at a time; a pass lets a waiting one in between embedding slices."""
        if self.lock.locked():
            self._tell_waiting()
        async with self.lock:
            yield

    @asynccontextmanager
    async def writing(self) -> AsyncIterator[None]:
        """The lock file shared with other processes, held while the table and the state change and
        never while embedding. Taken in order of arrival with a bounded wait (``core/index/storage/fair_lock.py``),
        polled rather than blocked on, so a cancelled caller never leaves a worker thread holding it.

        On entry, what another process wrote is adopted (plans made before are checked against it
        before they are written) and the crash mark is left for the length of the block.
        """
        self.layout.index_dir.mkdir(parents=True, exist_ok=True)
        await self.fair_lock.acquire(self._tell_waiting)  # IndexBusy past its bound (core/index/storage/fair_lock.py)
        try:
            await asyncio.to_thread(self._adopt_other_writers)
            await asyncio.to_thread(self._mark_pass)
            yield
            await asyncio.to_thread(self.save_state)
            if self._table_checked:  # a clean end; a pending comparison keeps the mark
                self._pass_mark.unlink(missing_ok=True)
        finally:
            self.fair_lock.lock.release()

    async def let_others_in(self) -> None:
        """Between embedding slices: a pass waiting in this process (a remembered fact) runs now.

        Nothing of the slices embedded so far is in the table yet, and the files being embedded
        are skipped by the pass let in (``Planner.inflight``).
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

    def _adopt_other_writers(self) -> None:
        """Another process saved the state since we last did: reload it and reopen the table."""
        generation = self.states.generation()
        with self.state_lock:
            if self._state is not None and generation != self._generation:
                log.info("the index was changed by another process; reloading its state")
                self._forget_loaded()

    def _forget_loaded(self) -> None:
        self._state = None
        self._by_hash = None
        self._store = None
        self._dirty = False

    # -- the state -------------------------------------------------------------------------------
    @property
    def state(self) -> IndexState:
        with self.state_lock:
            if self._state is None:
                self._generation = self.states.generation()
                self._state = self.states.load()
                if self._state.problem:
                    self._problem, self._dirty = self._state.problem, True
            return self._state

    def changed(self, key: str) -> None:
        """This file's entry in the state changed: the next save writes it (and only the changed ones)."""
        with self.state_lock:
            self.state.mark(key)
            self._dirty = True

    def save_state(self) -> None:
        """Write the files that changed since the last save (a no-op pass writes nothing)."""
        with self.state_lock:
            if not self._dirty and self._generation is not None:
                return
            self._generation = self.states.save(self.state)
            self._dirty = False

    def take_problem(self) -> str | None:
        """Why the stored state was unusable, once (the pass that found it reports it)."""
        with self.state_lock:
            problem, self._problem = self._problem, None
        return problem

    @property
    def has_problem(self) -> bool:
        return self._problem is not None

    def donor(self, text_hash: str) -> str | None:
        """An indexed row whose embedded text has this hash: its vector serves any row of that text."""
        with self.state_lock:
            if self._by_hash is None:
                self._by_hash = {h: rid for f in self.state.files.values() for rid, h in f.hashes.items()}
            return self._by_hash.get(text_hash)

    def files(self) -> dict[str, FileState]:
        """A copy of the indexed files' entries (safe to read while a pass changes the state)."""
        with self.state_lock:
            return dict(self.state.files)

    def entry(self, key: str) -> FileState | None:
        with self.state_lock:
            return self.state.files.get(key)

    def failed(self) -> set[str]:
        with self.state_lock:
            return set(self.state.errors)

    # -- the table -------------------------------------------------------------------------------
    @property
    def store(self) -> IndexStore | None:
        """The open handle, if any (None before a pass or a query opened it)."""
        return self._store

    @property
    def exists(self) -> bool:
        """The table is on disk (it is made by the first pass)."""
        return (self.layout.index_dir / f"{TABLE_NAME}.lance").exists()

    def read_dim(self) -> int:
        """The dimension of the table on disk (never reset it to the embedder's just to read)."""
        return self.state.dim or int(self.embedder.dim)

    def open_store(self, dim: int, *, repair: bool = True) -> IndexStore:
        """The table; ``repair=False`` (queries) raises IndexStoreError instead of recreating it."""
        with self.state_lock:
            if self._store is None or self._store.dim != dim:
                store = IndexStore(self.layout.index_dir, dim)
                store.open(repair=repair)
                self._store = store
            return self._store

    def reader(self) -> IndexStore:
        """The table for a query, never created or repaired by it."""
        return self.open_store(self.read_dim(), repair=False)

    def current_store(self) -> IndexStore:
        """The table a pass writes to (reopened when another process's writes were adopted)."""
        return self._store if self._store is not None else self.open_store(self.read_dim())

    def drop_failed_store(self, store: IndexStore | None = None) -> None:
        """After a query failed, reopen the table next time (another process may have rebuilt it).

        Only while no pass runs in this process: a pass uses the handle throughout.
        """
        with self.state_lock:
            store = store or self._store
            if store is not None and self._store is store and not self.lock.locked():
                self._store = None

    # -- before and after a pass -----------------------------------------------------------------
    def prepare(self, full: bool, sources: Callable[[], Mapping[str, object]]) -> None:
        """Open the table, rebuild when the model changed or the state and table disagree
        (``sources``: the files that should have rows, asked only when a comparison needs them)."""
        dim = int(self.embedder.dim)
        with self.state_lock:
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
                self.open_store(dim)
        self.reconcile(sources, deep=not self._table_checked)
        self._table_checked = True
        crash_point("index.after_reconcile")

    def reconcile(self, sources: Callable[[], Mapping[str, object]], *, deep: bool) -> None:
        """The state must describe the table, and the table hold only what the files give.

        Every pass compares row counts. A full comparison runs when they disagree and when the
        last pass was cut short (its mark was still there): rows of files that should have none (a
        daily log at or before the watermark, a page that is gone), rows the state does not know
        and duplicated rows are deleted, and files whose recorded rows are missing are read again.
        """
        store = self.current_store()
        try:
            count = store.count()
        except IndexStoreError:
            store.reset()
            count = 0
        with self.state_lock:
            expected = sum(len(f.rows) for f in self.state.files.values())
        if count == expected and not deep:
            return
        table = store.scan(["id", "path"]) if count else None
        ids = table.column("id").to_pylist() if table is not None else []
        paths = table.column("path").to_pylist() if table is not None else []
        wanted = sources()
        with self.state_lock:
            files = self.state.files
            for key in [k for k in files if k not in wanted]:
                del files[key]  # its rows are deleted below, as rows no file owns
                self.state.errors.pop(key, None)
                self.changed(key)
            owner = {rid: key for key, f in files.items() for rid in f.rows}
        seen: dict[str, int] = {}
        for rid in ids:
            seen[rid] = seen.get(rid, 0) + 1
        stray = {rid for rid, path in zip(ids, paths, strict=True) if owner.get(rid) != path}
        doubled = {rid for rid, times in seen.items() if times > 1} - stray
        present = set(seen) - stray - doubled
        with self.state_lock:
            for key, file_state in files.items():
                if any(rid not in present for rid in file_state.rows):
                    file_state.rows = {rid: ln for rid, ln in file_state.rows.items() if rid in present}
                    file_state.sha256 = ""
                    file_state.mtime = -1.0
                    self.changed(key)
        if stray or doubled:
            log.info("index: removing %d row(s) no file gives and %d duplicated row(s)", len(stray), len(doubled))
            store.delete_ids(stray | doubled)

    def behind_tombstones(self, stones: set[str]) -> bool:
        """The tombstones changed since the index last reflected them: every file must be re-read."""
        return digest(stones) != self.state.tombstones

    def finish(self, stones: set[str], bulk: bool) -> None:
        """After a whole pass: the index now reflects ``stones``; the table compacted (``bulk``: fully)."""
        self.reflect(stones)
        self.current_store().optimize(force=bulk)  # reopened when another process wrote meanwhile
        self.save_state()

    def reflect(self, stones: set[str]) -> None:
        with self.state_lock:
            if self.state.tombstones != digest(stones):
                self.state.tombstones = digest(stones)
                self._dirty = True

    # -- writing ---------------------------------------------------------------------------------
    def write(self, ok: list[Plan], failed: list[Plan], changes: ChangeSet) -> None:
        """Delete old rows and add new ones, then record the files in the state; failed files keep
        their old rows and are retried on the next pass (fail-closed)."""
        store = self.current_store()
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
        with self.state_lock:
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
                self.changed(plan.source.key)
                state.errors[plan.source.key] = plan.error or f"{plan.source.path}: not indexed"
                changes.errors.append(state.errors[plan.source.key])

    def _record(self, plan: Plan) -> None:
        with self.state_lock:
            self.changed(plan.source.key)
            hashes = {r.id: content_hash(r.embed_text) for r in plan.rows}
            self.state.files[plan.source.key] = FileState(
                plan.source.source_type, plan.mtime, plan.size, plan.sha256, {r.id: r.line for r in plan.rows},
                plan.source.variant, hashes,
            )
            if self._by_hash is not None:
                self._by_hash.update((h, rid) for rid, h in hashes.items())
            self.state.errors.pop(plan.source.key, None)

    def touch(self, plan: Plan) -> None:
        """A file touched but not changed: its new mtime is remembered, nothing is embedded."""
        with self.state_lock:
            prior = self.state.files.get(plan.source.key)
            if prior is not None:
                prior.mtime, prior.size = plan.mtime, plan.size
            self.state.errors.pop(plan.source.key, None)
            self.changed(plan.source.key)

    def remove(self, keys: Iterable[str], changes: ChangeSet) -> None:
        """Files that vanished, were renamed, or fell behind the watermark lose every row."""
        with self.state_lock:
            keys = [k for k in keys if k in self.state.files]
            ids = [rid for k in keys for rid in self.state.files[k].rows]
        if not keys:
            return
        store = self.current_store()
        removed = store.delete_ids(ids)
        crash_point("index.after_remove")
        removed += store.delete_paths(keys)  # rows the state did not know about (a crash mid-write)
        with self.state_lock:
            for key in keys:
                self.state.files.pop(key, None)
                self.state.errors.pop(key, None)
                self.changed(key)
        changes.rows_removed += removed
        changes.index = changes.index or removed > 0

    def remove_texts(self, norms: set[str], current: set[str]) -> tuple[int, set[str]]:
        """Delete the rows matching the new tombstones ``norms`` (``current``: the whole tombstone file
        now, which the state may then record as reflected); returns how many went and the files whose
        other rows must be chunked again."""
        store = self.current_store()
        ids = [row["id"] for row in store.showing(Forgotten(norms))]  # what a pass with them leaves out
        with self.state_lock:
            if norms <= current and self.state.tombstones == digest(current - norms):
                # Every indexed row matching the new tombstones goes below, so the index now reflects
                # the whole tombstone file: the next pass need not re-read every file for them.
                self.reflect(current)
        if not ids:
            return 0, set()
        info = store.fetch(ids, ["id", "path", "source_type"])
        removed = store.delete_ids(ids)
        rechunk: set[str] = set()
        with self.state_lock:
            for rid, path, source_type in zip(
                info.column("id").to_pylist(),
                info.column("path").to_pylist(),
                info.column("source_type").to_pylist(),
                strict=True,
            ):
                file_state = self.state.files.get(path)
                if file_state is not None:
                    file_state.rows.pop(rid, None)
                    self.changed(path)
                if source_type not in ("archive", "transcript"):  # their rows stand alone
                    rechunk.add(path)
        return removed, rechunk
