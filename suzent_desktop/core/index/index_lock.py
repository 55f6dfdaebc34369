"""Taking turns on one index: one pass per process, the file lock shared with other processes while
the table and the state change, and the handles to both.

Part of :class:`~suzent_desktop.core.index.indexer.Indexer` (a mixin: it uses the attributes the
indexer's ``__init__`` sets). Two processes may share one index (the app, and the command line
in a terminal): writes take turns through a lock file beside the table, never held while
embedding; whoever takes it adopts what the other wrote (its state, its table) before writing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from suzent_desktop.core.index.index_state import IndexState
from suzent_desktop.core.index.index_store import IndexStore

log = logging.getLogger(__name__)


PASS_MARK = "pass.unfinished"  # exists while a mutation runs; found on entry, the last one was cut short


class IndexLock:
    """Exclusion, the lock file and the state: the indexer's turn-taking."""

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
        never while embedding. Taken in order of arrival with a bounded wait (``core/index/fair_lock.py``),
        polled rather than blocked on, so a cancelled caller never leaves a worker thread holding it.

        On entry, what another process wrote is adopted (plans made before are checked against it
        before they are written) and the crash mark is left for the length of the block.
        """
        self.layout.index_dir.mkdir(parents=True, exist_ok=True)
        await self._fair_lock.acquire(self._tell_waiting)  # IndexBusy past its bound (core/index/fair_lock.py)
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
