"""Before a pass and after it: the table opened (or rebuilt for a new model), checked against the
state and the files, and the ``doctor`` audit of rows no file gives.

Part of :class:`~suzent_desktop.core.index.indexer.Indexer` (a mixin: it uses the attributes the
indexer's ``__init__`` sets).
"""

from __future__ import annotations

import logging

from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.faults import crash_point
from suzent_desktop.core.index.index_state import IndexState, digest
from suzent_desktop.core.index.index_store import IndexStore, IndexStoreError

log = logging.getLogger(__name__)





class TableReconciliation:
    """Preparing a pass, reconciling the table with the files, and the audit."""

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

    def _report_problem(self, changes: ChangeSet) -> None:
        with self._state_lock:
            problem, self._problem = self._problem, None
        if problem:
            changes.errors.insert(0, problem)
