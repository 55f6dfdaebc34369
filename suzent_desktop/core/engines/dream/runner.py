"""The dream runner: consolidates past daily logs into the notebook, safely.

Rules it enforces (memory-consolidation.md, interfaces.md §2):

* Pending dates are log dates strictly before today and after the watermark; a batch is the
  oldest ``memory_consolidation_max_days`` of them. Facts whose normalized text is
  tombstoned are removed before an engine sees them, so a forgotten fact is never
  re-consolidated in other words.
* Gates: ``memory_consolidation_enabled``; ``min_hours`` since the last attempt; ``min_facts``
  over the pending dates. ``force`` lifts the time and volume gates only. When the backlog is
  larger than one batch, :meth:`run_cycle` sprints batch after batch until caught up.
* A run is productive only if the engine finished cleanly **and** a content page it wrote
  has different bytes than before its first write (the tools keep a journal of the
  original bytes) (root navigation files and ``.state/`` do not
  count; a user's concurrent edit elsewhere is not proof of work). Only then is
  ``## [TODAY] ingest | daily logs  watermark=BATCH_END`` appended, MEMORY.md promoted and the
  index synced. Any other ending restores every file the run wrote to its bytes before the
  run (also after a timeout or :meth:`cancel`), and counts a retry.
* After ``max_retries`` failures the batch is skipped: an ingest entry naming the skipped dates
  moves the watermark past it, and the indexer keeps those dates' rows searchable.
* Attempt times, per-batch retry counts and the run history live in
  ``.state/dream_state.json`` (atomic writes), so a restart neither resets back-off nor
  forgets failures. Each device keeps its own (``dream_state@ID.json`` for a device not the
  home's first), so a sync tool never has two sides of one file.
* One dream at a time on this device: a run holds ``dream-DEVICE.lock`` in the index folder
  (local, never synced) for its length, so the window, ``dream`` on the command line and an MCP
  client never run one batch twice. A run that finds it held ends at once, "already
  running", and counts no attempt. Across devices, the lease does the same (``core/engines/dream/runs/lease.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import importlib
import shutil
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from filelock import FileLock, Timeout

from suzent_desktop.core.engines import forgetting, provenance
from suzent_desktop.core.engines.capture import fact_judge
from suzent_desktop.core.engines.dream.diffs import annotate, unified_diffs
from suzent_desktop.core.engines.dream.guards import authorship
from suzent_desktop.core.engines.dream.guards.coverage import CoverageReport, check_coverage
from suzent_desktop.core.engines.dream.model import (
    Batch,
    BatchFact,
    DreamResult,
    EngineReport,
    Finding,
    GateStatus,
    LintResult,
)
from suzent_desktop.core.engines.dream.runs import lease, outcome, resume, second_run
from suzent_desktop.core.engines.dream.runs.gates import Gates
from suzent_desktop.core.engines.dream.runs.run_state import (
    home_history,
    load_device_state,
    save_device_state,
)
from suzent_desktop.core.engines.dream.tools import VaultTools
from suzent_desktop.core.engines.ledger import late_facts, lost_facts, uncovered
from suzent_desktop.core.files.disk.atomic import atomic_write_text
from suzent_desktop.core.files.disk.faults import crash_point
from suzent_desktop.core.files.disk.regular import read_regular
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.language.words import count
from suzent_desktop.core.files.paths.layout import ROOT_NAV_FILES
from suzent_desktop.core.files.records.archive import ArchiveError
from suzent_desktop.core.files.records.tombstones import normalize
from suzent_desktop.core.index.dropped import record_run as record_dropped
from suzent_desktop.core.vault.forgotten import Forgotten

if TYPE_CHECKING:
    from suzent_desktop.core.engines.dream.parts import DreamParts
    from suzent_desktop.settings import Settings


__all__ = ["DreamRunner", "DreamResult", "GateStatus", "Finding", "LintResult", "DreamError"]

VECTOR_CACHE_LIMIT = 50_000
COVERAGE_EMBED_SLICE = 64  # texts per embedder call in the coverage check, which stops at the deadline
INDEX_GRACE_SECONDS = 1.0  # the index update after a run, when the run's own time is used up
PROCESS_LOCK = "dream-{device}.lock"  # in the index folder: one dream at a time among this device's processes
ALREADY_RUNNING = ("already running: another dream on this device (the window, `dream` on the command line or "
                   "an MCP client) holds its lock; this one stops here and counts no attempt")
Engine = Callable[[Batch, VaultTools], Awaitable[EngineReport]]
Snapshot = dict[str, bytes]


class DreamError(RuntimeError):
    """A consolidation run could not complete (the message says why)."""


def _fact_json(fact: BatchFact) -> dict[str, Any]:
    return {"date": fact.date, "line": fact.line, "text": fact.fact.content}


# -- vault snapshots (dry runs) ------------------------------------------------------------------
def snapshot_vault(root: Path) -> Snapshot:
    """Bytes of every markdown file an engine could write: content pages and index.md. Reads the
    disk: a dry run's scratch copy of the vault is a folder no vault model holds."""
    found: Snapshot = {}
    if not root.is_dir():
        return found
    for path in root.rglob("*.md"):
        rel = path.relative_to(root)
        if any(part.startswith(".") for part in rel.parts) or not path.is_file() or path.is_symlink():
            continue
        if len(rel.parts) == 1 and rel.name in ("log.md", "schema.md"):
            continue
        try:
            found[rel.as_posix()] = read_regular(path)
        except OSError:
            continue
    return found


def _present(files: dict[str, bytes | None]) -> Snapshot:
    return {rel: data for rel, data in files.items() if data is not None}


def snapshot_files(root: Path, rels: Iterable[str]) -> Snapshot:
    """Current bytes of the given vault files (missing files left out)."""
    found: Snapshot = {}
    for rel in rels:
        path = root / rel
        if path.is_file():
            found[rel] = read_regular(path)
    return found


def _is_content(rel: str, reserved: frozenset[str] = ROOT_NAV_FILES) -> bool:
    """A content page: markdown, not hidden, not one of the navigation files (``reserved`` paths)."""
    parts = rel.split("/")
    return rel.lower().endswith(".md") and not any(p.startswith(".") for p in parts) and rel.lower() not in reserved


class DreamRunner(Gates):
    def __init__(
        self,
        parts: Callable[[], DreamParts],
        *,
        on_phase: Callable[[str], None] | None = None,
        on_result: Callable[[DreamResult], None] | None = None,
        engine: Engine | None = None,
        llm: Any = None,
    ) -> None:
        """``parts`` gives what a run reads, asked again at each step, so settings saved and a model
        switched while the runner lives reach its next run. ``engine`` replaces the configured
        engine (for tests and tools); ``llm`` is passed to the agent."""
        self._parts = parts
        self.on_phase = on_phase
        self.on_result = on_result
        self.engine = engine
        self.llm = llm
        self.phase = "idle"
        self.last_lint: Any = None
        self._task: asyncio.Task[EngineReport] | None = None
        self._cancel_requested = False
        self._run_lock: asyncio.Lock | None = None
        self._vectors: dict[tuple[str, str], Any] = {}
        self._wake: asyncio.Event | None = None
        self._started = time.monotonic()
        layout = parts().layout  # one home for the runner's life: its lease and lock stay its own
        self._lease = lease.for_home(layout, parts().settings)
        lock_name = PROCESS_LOCK.format(device=layout.device or "this-device")
        self._process_lock = FileLock(str(layout.index_dir / lock_name), thread_local=False)
        self._read = late_facts.Snapshot()

    # -- small helpers ---------------------------------------------------------------------
    @property
    def parts(self) -> DreamParts:
        """What the run reads, as it stands now."""
        return self._parts()

    @property
    def settings(self) -> Settings:
        return self.parts.settings

    @property
    def state_path(self) -> Path:
        return self.parts.layout.runner_state_file

    def _set_phase(self, phase: str) -> None:
        self.phase = phase
        if self.on_phase is not None:
            self.on_phase(phase)

    def _emit(self, result: DreamResult) -> DreamResult:
        if self.on_result is not None:
            self.on_result(result)
        return result

    def _today(self) -> dt.date:
        return self.parts.clock.today()

    def _now(self) -> float:
        return self.parts.clock.timestamp()

    def _load_state(self) -> dict[str, Any]:
        return load_device_state(self.parts.layout)

    def _save_state(self, state: dict[str, Any]) -> None:
        save_device_state(self.parts.layout, state)

    # -- batches -------------------------------------------------------------------------------
    def _load_batch(self, dates: list[str]) -> Batch:
        """The batch's live facts, up to the first unreadable log, then the facts of earlier
        batches that no page holds yet (``core/engines/ledger/uncovered.py``), offered again.

        A log that cannot be read ends the batch before it, so one bad file never takes the
        healthy days around it down with it; when it is the batch's first day, ArchiveError
        is raised and that day alone is retried and, at the limit, skipped.
        """
        stones = Forgotten(self.parts.tombstones.contents())
        facts: list[BatchFact] = []
        dropped = 0
        digests: dict[str, str] = {}
        # What this run reads, per part, taken before reading (core/engines/ledger/late_facts.py).
        again = sorted(uncovered.by_date(uncovered.consolidated(self.parts.layout, self.parts.days())))
        shared = stones if self._lease.shared() else Forgotten()  # one device: an undo there captures again
        self._read = late_facts.snapshot(self.parts.layout, [*dates, *again], shared)
        for date in dates:
            digests[date] = self._log_digest(date)  # before the read: a later append shows as a change
            try:
                parsed = self.parts.archive.read(date)
            except (ArchiveError, OSError):
                if date == dates[0]:
                    raise
                dates = dates[: dates.index(date)]
                break
            for line in parsed.facts:
                if stones.holds(line.fact.content):
                    dropped += 1
                    continue
                facts.append(BatchFact(date=date, fact=line.fact, line=line.line))
        facts += self._reoffered(set(dates), stones)
        return Batch(dates=list(dates), facts=facts, dropped_tombstoned=dropped, digests=digests)

    def _reoffered(self, dates: set[str], stones: Forgotten) -> list[BatchFact]:
        """Facts of consolidated days that no page holds, as their logs have them now."""
        wanted = uncovered.by_date(uncovered.consolidated(self.parts.layout, self.parts.days()))
        found: list[BatchFact] = []
        for date in sorted(set(wanted) - dates):
            try:
                parsed = self.parts.archive.read(date)
            except (ArchiveError, OSError):
                continue  # the log went unreadable: its record stays, doctor names the file
            seen: set[str] = set()
            for line in parsed.facts:
                norm = normalize(line.fact.content)
                if norm in wanted[date] and not stones.holds(norm) and norm not in seen:
                    seen.add(norm)
                    found.append(BatchFact(date=date, fact=line.fact, line=line.line))
        return found

    def _log_digest(self, date: str) -> str:
        return self.parts.archive.digest(date)  # every device's part of the day

    def _covered_end(self, batch: Batch) -> tuple[str | None, list[str]]:
        """The last date the watermark may cover: logs written to during the run (a capture
        dated in the past, a hand edit) are not, nor any date after the first of them."""
        changed = [d for d in batch.dates if d in batch.digests and self._log_digest(d) != batch.digests[d]]
        if not batch.dates:
            return None, []  # facts given back to search alone: the watermark stays
        if not changed:
            return batch.end, []
        before = [d for d in batch.dates if d < changed[0]]
        return (before[-1] if before else None), changed

    # -- engines -------------------------------------------------------------------------------
    async def _memory_search(self, query: str) -> list[dict[str, Any]]:
        response = await self.parts.search.search(query, limit=8, record_recall=False)
        forgotten = Forgotten(self.parts.tombstones.contents())
        return [
            {"text": h.text, "source_type": h.source_type, "path": h.path, "date": h.date}
            for h in response.hits if not forgotten.holds(h.text)  # never shown to the model
        ]

    async def _run_engine(self, batch: Batch, tools: VaultTools) -> EngineReport:
        if not batch.dates:  # facts given back to search alone: the engine sees their days as the batch's
            batch = dataclasses.replace(batch, dates=sorted({f.date for f in batch.facts}))
        if self.engine is not None:
            return await self.engine(batch, tools)
        model = self.settings.memory_consolidation_model
        # Engines are imported on a worker: on the window's loop a first import (100+ ms for the
        # offline engine) would stall the GUI thread.
        if model:
            agent = await asyncio.to_thread(importlib.import_module, "suzent_desktop.core.engines.dream.agent")
            return await agent.DreamAgent(
                model, tools, llm=self.llm, call_timeout=self.settings.llm_timeout_seconds
            ).run(batch)
        offline = await asyncio.to_thread(importlib.import_module, "suzent_desktop.core.engines.dream.offline")
        embed = self._cached_embed()
        return await asyncio.to_thread(offline.consolidate, batch, tools, embed)

    def _cached_embed(self, deadline: float | None = None) -> Callable[[list[str]], Any]:
        """The embedder in use behind a per-runner cache: a sprint re-reads the same bullets
        batch after batch, and embedding them again is most of the consolidator's time.

        With a ``deadline`` (``time.monotonic()``), texts are embedded a slice at a time and
        TimeoutError is raised once it has passed, so a step after the engine stays in the run's time."""
        embedder = self.parts.embedder
        import numpy as np

        cache = self._vectors

        def embed(texts: list[str]) -> Any:
            name = getattr(embedder, "name", "")
            missing = [t for t in dict.fromkeys(texts) if (name, t) not in cache]
            step = COVERAGE_EMBED_SLICE if deadline is not None else max(1, len(missing))
            for start in range(0, len(missing), step):
                if deadline is not None and time.monotonic() > deadline:
                    raise TimeoutError("out of the run's time (memory_consolidation_timeout_seconds)")
                part = missing[start : start + step]
                for text, vector in zip(part, embedder.embed(part), strict=True):
                    cache[(name, text)] = vector
            result = np.stack([cache[(name, t)] for t in texts]) if texts else np.zeros((0, embedder.dim))
            if len(cache) > VECTOR_CACHE_LIMIT:
                cache.clear()
            return result

        return embed

    async def _guarded_engine(self, batch: Batch, tools: VaultTools) -> tuple[EngineReport | None, str]:
        """Run the engine under the timeout; (report, '') on a clean finish, (None, why) otherwise."""
        timeout = self.settings.memory_consolidation_timeout_seconds
        self._cancel_requested = False
        if self.engine is None and self.settings.memory_consolidation_model:
            from suzent_desktop.core import llm

            try:  # before the clock starts: the import is not the run's work
                await asyncio.to_thread(llm.load)
            except Exception as exc:
                return None, f"the model library could not be loaded: {type(exc).__name__}: {exc}"
        with contextlib.suppress(Exception):  # a judge that cannot load says so where it is used, in the run
            await asyncio.to_thread(fact_judge.load)  # before the clock starts, as the model library above
        task = asyncio.ensure_future(self._run_engine(batch, tools))
        self._task = task
        try:
            return await asyncio.wait_for(task, timeout=timeout if timeout > 0 else None), ""
        except TimeoutError:
            return None, f"timed out after {timeout:g} s (memory_consolidation_timeout_seconds)"
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if self._cancel_requested and (current is None or not current.cancelling()):
                return None, "cancelled"
            raise
        except Exception as exc:  # an engine failure of any kind is a failed run, never a crash
            return None, f"{type(exc).__name__}: {exc}"
        finally:
            tools.close()
            self._task = None

    def _tools(self, root: Path) -> VaultTools:
        """Vault tools on ``root`` (the vault, whose model they use, or a scratch copy), with the program's names."""
        layout = self.parts.layout
        return VaultTools(root, memory_search=self._memory_search, index_name=layout.app_prefix + layout.index_md.name,
                          schema_name=layout.app_prefix + layout.schema_md.name, reserved=layout.reserved_root_names(),
                          app_prefix=layout.app_prefix,
                          max_call_kb=self.settings.memory_consolidation_max_write_kb,
                          forgotten=Forgotten(self.parts.tombstones.contents()),
                          authored=authorship.load(authorship.path_in(layout.state_dir)),
                          vault=self.parts.vault if root == layout.notebook_dir else None)

    def _dates_of(self, batch: Batch) -> tuple[str, str]:
        """The dates a bullet may newly carry in this run: the days of the batch's facts (earlier
        days' facts offered again among them), up to today."""
        return min([*batch.dates, *(f.date for f in batch.facts)]), self._today().isoformat()

    def wake(self) -> None:
        """End the schedule's current wait (settings changed): the gates are read again now."""
        if self._wake is not None:
            self._wake.set()

    def cancel(self) -> None:
        """Stop the run in progress; its page edits are rolled back and it counts as a failure."""
        task = self._task
        if task is not None and not task.done():
            self._cancel_requested = True
            task.cancel()

    # -- one run ----------------------------------------------------------------------------------
    async def run_once(self, *, force: bool = False, dry_run: bool = False) -> DreamResult:
        if self._run_lock is None:
            self._run_lock = asyncio.Lock()
        async with self._run_lock:
            held = None if dry_run else self._take_process_lock()  # no await: a cancel cannot leave it taken
            if held is False:  # another process of this device is dreaming: nothing read, nothing counted
                return self._emit(DreamResult("gated", watermark=await asyncio.to_thread(self.parts.watermark),
                                              reason=ALREADY_RUNNING))
            try:
                result = await self._run_once(force=force, dry_run=dry_run)
                for _ in range(3):  # the watermark moved under the run (a sync arrived): plan again
                    if not result.reason.startswith(lease.REPLAN):
                        break
                    result = await self._run_once(force=force, dry_run=dry_run)
                return self._emit(result)
            finally:
                self._lease.release(self.parts.notebook.raw_watermark)
                if held:
                    self._process_lock.release()
                self._set_phase("idle")

    def _take_process_lock(self) -> bool:
        """This device's dream lock, without waiting: False when another process (or runner) holds it.
        Taken on the caller's thread: it never blocks (a folder made once, one non-blocking lock call)."""
        folder = self.parts.layout.index_dir
        folder.mkdir(parents=True, exist_ok=True)
        try:
            self._process_lock.acquire(timeout=0)
        except Timeout:
            return False
        return True

    async def _run_once(self, *, force: bool, dry_run: bool) -> DreamResult:
        m, s = self.parts, self.settings
        refused = await asyncio.to_thread(m.notebook.watermark_error, self._today())
        if refused:  # nothing is counted against a batch: the log needs a hand, not a retry
            return DreamResult("failed", watermark=m.notebook.watermark(self._today()), reason=refused)
        pending = await asyncio.to_thread(m.pending_dates)
        watermark = m.days().watermark
        given_back = await asyncio.to_thread(self.not_consolidated) if force and not pending else []
        if not pending and not given_back:
            return DreamResult("nothing_pending", watermark=watermark, reason="no daily logs are waiting")
        # With none pending, a forced run is one of facts given back to search alone (dates is empty):
        # they are offered as they would be with the next day's batch, and the watermark stays.
        if not s.memory_consolidation_enabled:
            return DreamResult("gated", watermark=watermark, reason="memory_consolidation_enabled is false")
        state = await asyncio.to_thread(self._load_state)
        if not force:
            count = await asyncio.to_thread(self._count_facts, pending)
            reason, _next = self._gate(state, pending, count)
            if reason:
                return DreamResult("gated", watermark=watermark, reason=reason, forceable=True)
        dates = pending[: max(1, s.memory_consolidation_max_days)]
        if dry_run:
            return await self._dry_run(dates, watermark)
        # Before the clock: a process's first import of the index library (seconds on a busy
        # machine, for the pages' index update at the end) is not the run's work.
        await asyncio.to_thread(importlib.import_module, "lancedb")
        busy = await self._lease.take(m.notebook.raw_watermark())  # one dream at a time across devices
        if busy:
            return DreamResult("gated", watermark=watermark, reason=busy)
        previous_attempt, state["last_attempt"] = state.get("last_attempt"), self._now()
        self._started = time.monotonic()
        await asyncio.to_thread(self._save_state, state)
        self._set_phase("running")
        try:
            batch = await asyncio.to_thread(self._load_batch, dates)
        except (ArchiveError, OSError) as exc:  # the first day's log is unreadable: it alone fails
            return await self._failed(state, dates[:1], watermark, "failed", str(exc), ChangeSet())
        if not batch.facts and not batch.dates:
            return DreamResult("nothing_pending", watermark=watermark, reason="no daily logs are waiting")
        if batch.dates and not any(f.date in batch.dates for f in batch.facts):
            return await self._skip(state, dates, 0, "no facts left to consolidate (empty or all forgotten)")
        if m.layout.app_prefix:  # someone's own vault: the app's folder appears with its first pages
            await asyncio.to_thread(m.notebook.seed_app_folder)
        root = m.layout.notebook_dir
        await asyncio.to_thread(m.vault.current, parsed=False)  # the engine's names, as the disk has them now
        tools = self._tools(root)
        tools.dates = self._dates_of(batch)
        done = await asyncio.to_thread(second_run.already_on_pages, batch, tools) if self._lease.shared() else None
        if done is not None:  # another device consolidated this batch: nothing to write, the watermark moves
            return await self._productive(state, batch, done[0], [], watermark, done[1], {})
        held = await resume.already_on_pages(batch, tools) if resume.suspect(state, batch, previous_attempt) else None
        if held is not None:  # a run cut short before its ingest entry: completed, not retried
            result = await self._productive(state, batch, resume.completed_report(), [], watermark, held, {})
            result.reason = "; ".join(r for r in (resume.COMPLETED, result.reason) if r)
            return result
        try:
            report, error = await self._guarded_engine(batch, tools)
        except asyncio.CancelledError:
            # Cancelled from outside (app shutdown, the task itself cancelled): roll back and
            # count the failure synchronously, then let the cancellation through.
            tools.rollback()
            if dates:
                state["retries"][dates[0]] = int(state["retries"].get(dates[0], 0)) + 1
            self._record(state, "failed", dates, [], "", watermark, "cancelled")
            self._save_state(state)
            raise
        removals = await asyncio.to_thread(self._scrub_forgotten, tools) if report is not None else []
        changed = [r for r in await asyncio.to_thread(tools.changed_files) if _is_content(r, tools.reserved)]
        if report is None or not changed:
            restored = await asyncio.to_thread(tools.rollback)
            changes = ChangeSet(pages={root / r for r in restored})
            verdict = "failed" if report is None else "no_change"
            why = error or outcome.no_change_reason(report)
            return await self._failed(state, dates, watermark, verdict, why, changes)
        moved = await asyncio.to_thread(lease.moved_under, self._lease, watermark, m.days)
        if moved:  # another device consolidated meanwhile: this run's pages go, the batch is planned again
            return await lease.replanned(tools, root, dates, m.days().watermark, moved)
        originals = {r: tools.originals[r] for r in await asyncio.to_thread(tools.changed_files)}
        diffs = await asyncio.to_thread(lambda: annotate(
            unified_diffs(_present(originals), snapshot_files(root, originals)), tools.removed_lines))
        coverage = await asyncio.to_thread(
            check_coverage, batch.facts, tools, changed=changed, embed=self._cached_embed(self._deadline())
        )
        junk = outcome.not_productive(report, coverage)
        if junk:  # pages changed with none of the batch on them: not worth a watermark
            restored = await asyncio.to_thread(tools.rollback)
            return await self._failed(state, dates, watermark, "no_change", junk,
                                      ChangeSet(pages={root / r for r in restored}))
        await asyncio.to_thread(m.forget.journal.record, removals)
        try:
            result = await self._productive(state, batch, report, changed, watermark, coverage, originals)
        except DreamError as exc:  # the watermark moved during the coverage check: the same as above
            if m.days().watermark == watermark:
                raise
            return await lease.replanned(tools, root, dates, m.days().watermark, f"{lease.REPLAN} {exc}")
        result.diffs = diffs
        # Pages this run did not write may still show text forgotten earlier: take it off too.
        result.changes.merge(await m.forget.take_off_pages(m.tombstones.contents()))
        return result

    def _scrub_forgotten(self, tools: VaultTools) -> list[forgetting.Removal]:
        """Take forgotten paragraphs and items off the pages this run wrote, before the watermark moves.

        An engine (a model especially) can write forgotten text back from a page or a search;
        the pages are in the run's journal, so a rollback still restores them whole.
        """
        stones = Forgotten(self.parts.tombstones.contents())
        removals: list[forgetting.Removal] = []
        for rel in tools.changed_files():
            if not _is_content(rel, tools.reserved):
                continue
            try:
                path = tools.resolve(rel)
                text = read_regular(path).decode("utf-8")
            except (OSError, UnicodeDecodeError, ValueError):
                continue
            kept, removed = forgetting.strip_forgotten(str(path), text, stones)
            if removed:
                atomic_write_text(path, kept)
                tools.note_own_write(path)
                removals += removed
        return removals

    async def _failed(
        self, state: dict[str, Any], dates: list[str], watermark: str | None, outcome: str, why: str,
        changes: ChangeSet,
    ) -> DreamResult:
        if not dates:  # facts given back to search alone: no batch to retry or skip, they stay searchable
            self._record(state, outcome, dates, [], "", watermark, why)
            await asyncio.to_thread(self._save_state, state)
            return DreamResult(outcome, watermark=watermark, reason=why, changes=changes, failed_attempt=True)
        key = dates[0]
        attempts = int(state["retries"].get(key, 0)) + 1
        if attempts >= max(1, self.settings.memory_consolidation_max_retries):
            result = await self._skip(state, dates, attempts, why)
            result.changes.merge(changes)
            result.failed_attempt = True
            return result
        state["retries"][key] = attempts
        self._record(state, outcome, dates, [], "", watermark, why, attempt=attempts)
        await asyncio.to_thread(self._save_state, state)
        reason = f"{why} (attempt {attempts} of {self.settings.memory_consolidation_max_retries})"
        return DreamResult(outcome, batch=dates, watermark=watermark, reason=reason, changes=changes,
                           failed_attempt=True)

    async def _skip(self, state: dict[str, Any], dates: list[str], attempts: int, why: str) -> DreamResult:
        """Give the batch up: the watermark moves past it, its facts stay searchable."""
        m = self.parts
        end = dates[-1]
        self._set_phase("finalizing")
        current = m.notebook.raw_watermark()
        if (current is not None and end <= current) or end >= self._today().isoformat():
            raise DreamError(f"refusing to write watermark {end}: current is {current}")
        await asyncio.to_thread(m.notebook.append_skip, self._today(), dates, attempts)
        state["retries"].pop(dates[0], None)
        self._record(state, "skipped", dates, [], why, end, why)
        await asyncio.to_thread(self._save_state, state)
        changes = ChangeSet(watermark=end)
        await self._sync_index(changes)
        return DreamResult("skipped", batch=dates, watermark=end, reason=why, changes=changes,
                           summary=f"skipped {len(dates)} daily logs after {attempts} failed attempts: {why}")

    async def _productive(
        self, state: dict[str, Any], batch: Batch, report: EngineReport, changed: list[str], watermark: str | None,
        coverage: CoverageReport, originals: dict[str, bytes | None],
    ) -> DreamResult:
        m = self.parts
        self._set_phase("finalizing")
        end, grown = await asyncio.to_thread(self._covered_end, batch)
        reasons = [] if batch.dates else ["no daily log was pending: the run consolidated facts given back to search"]
        if grown:
            reasons.append(f"daily logs changed during the run ({', '.join(grown)}); "
                           "they stay pending and are consolidated again")
        current = m.notebook.raw_watermark()
        if end is not None and ((current is not None and end <= current) or end >= self._today().isoformat()):
            raise DreamError(f"refusing to write watermark {end}: current is {current}")
        summary = outcome.summary(report, changed, coverage)
        if report.stopped:
            reasons.append(f"stopped early: {report.stopped}")
        # The record of facts no page holds is written before the ingest entry: a kill between
        # the two leaves entries for days still pending, which mean nothing and are replaced.
        left = await asyncio.to_thread(self._record_uncovered, batch, coverage, end)
        # Dropped facts stay in search until a person confirms the drop (core/index/dropped.py).
        await asyncio.to_thread(record_dropped, m.layout, coverage.dropped, batch.dates, end,
                                self._today().isoformat())
        if coverage.out_of_time:
            reasons.append("the near-duplicate check ran out of time (memory_consolidation_timeout_seconds): "
                           "facts it did not reach count as not consolidated")
        if left:
            reasons.append(f"{count(len(left), 'fact')} not consolidated: no page holds them; they stay searchable "
                           "from the daily logs and the next dream offers them again")
        # The lines this run wrote are the program's from now on (core/engines/dream/guards/authorship.py).
        await asyncio.to_thread(authorship.record, authorship.path_in(m.layout.state_dir), m.layout.notebook_dir,
                                originals)
        crash_point("dream.before_ingest")
        await asyncio.to_thread(lost_facts.record_run, m.layout, batch, coverage, end or current)  # where pages hold them
        await asyncio.to_thread(provenance.record_held, m.layout)  # which facts each page line stands for
        if end is not None:
            await asyncio.to_thread(late_facts.record_run, m.layout, self._read, end)
            await asyncio.to_thread(m.notebook.append_ingest, self._today(), end, summary)
            crash_point("dream.after_ingest")
        else:
            if not batch.dates and current is not None:  # given-back facts alone: late ones are read now
                await asyncio.to_thread(late_facts.record_run, m.layout, self._read, current)
            end = current  # pages stand; the watermark waits for the changed logs
        if batch.dates:
            state["retries"].pop(batch.dates[0], None)
        state["last_success"] = self._now()
        reason = "; ".join(reasons)
        self._record(state, "productive", batch.dates, changed, summary, end, reason,
                     uncovered=[_fact_json(f) for f in left],
                     dropped=[{**_fact_json(f), "reason": why} for f, why in coverage.dropped])
        await asyncio.to_thread(self._save_state, state)
        root = m.layout.notebook_dir
        changes = ChangeSet(pages={root / r for r in report.pages_written} | {root / r for r in changed},
                            watermark=end)
        try:
            changes.merge(await m.promote.run(model_timeout=self._time_left()))
        except Exception as exc:  # the consolidation stands; promotion can be rerun with `promote`
            changes.errors.append(f"MEMORY.md promotion failed: {exc}")
        await self._sync_index(changes)
        return DreamResult("productive", batch=batch.dates, watermark=end, pages_changed=changed,
                           summary=summary, changes=changes, reason=reason,
                           uncovered=[_fact_json(f) for f in left],
                           dropped=[{**_fact_json(f), "reason": why} for f, why in coverage.dropped])

    def _record_uncovered(self, batch: Batch, coverage: CoverageReport, end: str | None) -> list[BatchFact]:
        """Update ``.state/uncovered.json`` for this run; returns the batch's facts left uncovered.

        Entries of the batch's days are replaced by this run's findings; re-offered facts that
        a page now holds (or that were forgotten since) leave the record. Facts of days the
        watermark will not cover yet are not recorded: their logs stay pending anyway.
        """
        layout = self.parts.layout
        forgotten = Forgotten(self.parts.tombstones.contents())
        before = uncovered.load(layout)
        offered = {(f.date, normalize(f.fact.content)) for f in batch.facts}
        missing = [f for f in coverage.uncovered if end is not None and f.date <= end or f.date not in batch.dates]
        missing_keys = {(f.date, normalize(f.fact.content)) for f in missing}
        kept = [
            u for u in before
            if u.date not in batch.dates and (u.key not in offered or u.key in missing_keys) and not forgotten.holds(u.key[1])
        ]
        since = {u.key: u.since for u in before}
        known = {u.key for u in kept}
        today = self._today().isoformat()
        kept += [
            uncovered.UncoveredFact(f.date, f.fact.content, f.line, since.get(key, today))
            for f in missing if (key := (f.date, normalize(f.fact.content))) not in known
        ]
        if kept != before:
            uncovered.save(layout, kept)
        crash_point("dream.after_coverage")
        return missing

    def _deadline(self) -> float | None:
        """When this run's memory_consolidation_timeout_seconds is up (monotonic; None: no limit)."""
        left = self._time_left()
        return None if left is None else time.monotonic() + left

    def _time_left(self) -> float | None:
        """Seconds left of memory_consolidation_timeout_seconds for this run (None: no limit), so
        the model's MEMORY.md summary cannot stretch a run past its limit."""
        timeout = self.settings.memory_consolidation_timeout_seconds
        if not timeout > 0:
            return None
        return max(0.0, timeout - (time.monotonic() - self._started))

    async def _sync_index(self, changes: ChangeSet) -> None:
        """Index what the run wrote, within the time the run has left (at least a short grace, so
        a small run that used its time up still gets its few rows in).

        Pages are indexed before the logs they consolidate, and a pass cut short keeps the rows
        of files it would have dropped, so a fact is findable from its log until its page is.
        """
        # The pages are named like a watcher would name them: a watched index reads just those.
        self.parts.indexer.note_changed(changes.pages)
        cancel = threading.Event()
        left = self._time_left()
        budget = None if left is None else max(left, INDEX_GRACE_SECONDS)
        timer = None if budget is None else asyncio.get_running_loop().call_later(budget, cancel.set)
        try:
            changes.merge(await self.parts.indexer.sync(cancel=cancel))
        except Exception as exc:  # the files are right; the index catches up on the next sync
            changes.errors.append(f"reindex after the dream failed: {exc}")
        finally:
            if timer is not None:
                timer.cancel()
        if cancel.is_set():
            changes.errors.append(
                "the run's time was up before everything it wrote was indexed: the index catches up on the "
                "next pass, and the facts stay searchable from their daily logs meanwhile"
            )

    def _record(
        self, state: dict[str, Any], outcome: str, batch: list[str], pages: list[str], summary: str,
        watermark: str | None, reason: str, **extra: Any,
    ) -> None:
        state["history"].append({
            "ts": self._now(), "date": self._today().isoformat(), "outcome": outcome, "batch": list(batch),
            "pages_changed": list(pages), "summary": summary, "watermark": watermark, "reason": reason, **extra,
        })

    # -- dry run ----------------------------------------------------------------------------------
    async def _dry_run(self, dates: list[str], watermark: str | None) -> DreamResult:
        """Run the engine on a scratch copy of the vault and report diffs; nothing real is written."""
        root = self.parts.layout.notebook_dir
        self._set_phase("running")
        try:
            batch = await asyncio.to_thread(self._load_batch, dates)
        except (ArchiveError, OSError) as exc:
            return DreamResult("failed", batch=dates, watermark=watermark, reason=f"dry run: {exc}",
                               failed_attempt=True)
        with tempfile.TemporaryDirectory(prefix="suzent-dream-") as scratch:
            copy = Path(scratch) / "vault"
            await asyncio.to_thread(
                shutil.copytree, root, copy, symlinks=True, ignore=shutil.ignore_patterns(".*"),
            )
            before = await asyncio.to_thread(snapshot_vault, copy)
            tools = self._tools(copy)
            tools.dates = self._dates_of(batch)
            report, error = await self._guarded_engine(batch, tools)
            if report is not None:
                await asyncio.to_thread(self._scrub_forgotten, tools)
            after = await asyncio.to_thread(snapshot_vault, copy)
            diffs = annotate(unified_diffs(before, after), tools.removed_lines)
            changed = sorted(r for r in diffs if _is_content(r, tools.reserved))
            left: list[BatchFact] = []
            summary, why_not, note = "", "", ""
            if report is not None and changed:  # what a real run would leave unconsolidated
                coverage = await asyncio.to_thread(
                    check_coverage, batch.facts, tools, changed=changed, embed=self._cached_embed()
                )
                left = coverage.uncovered
                summary = outcome.summary(report, changed, coverage)
                why_not = outcome.not_productive(report, coverage)
                note = f"stopped early: {report.stopped}" if report.stopped else ""
            elif report is not None:
                why_not = outcome.no_change_reason(report)
        verdict = "failed" if report is None else "no_change" if why_not else "productive"
        why = error or why_not or note
        return DreamResult(
            verdict, batch=dates, watermark=watermark, pages_changed=changed, summary=summary, diffs=diffs,
            reason=f"dry run: nothing was written{'; ' + why if why else ''}",
            failed_attempt=verdict != "productive", uncovered=[_fact_json(f) for f in left],
        )

    # -- cycles and the background loop --------------------------------------------------------------
    async def run_cycle(self, *, force: bool = False) -> list[DreamResult]:
        """Gates (unless ``force``), then batch after batch while a backlog remains; then lint
        when caught up and due. The app's schedule, `Dream now` and the `dream` command all run this."""
        self.last_lint = None
        results = [await self.run_once(force=force)]
        while results[-1].outcome in ("productive", "skipped") and len(results) < 10_000:
            pending = await asyncio.to_thread(self.parts.pending_dates)
            if not pending:
                break
            results.append(await self.run_once(force=True))
        pending = await asyncio.to_thread(self.parts.pending_dates)
        last = results[-1].outcome
        caught_up = not pending or (last == "gated" and len(pending) <= self.settings.memory_consolidation_max_days)
        if caught_up and last != "failed" and self.lint_due():
            self.last_lint = await self.parts.lint.run()
        return results

    async def serve(self, stop: asyncio.Event) -> None:
        """Run a cycle every ``memory_consolidation_interval_seconds`` until ``stop`` is set.

        It serves even while consolidation is disabled: each cycle's gate says so, and enabling
        it in the settings (which calls :meth:`wake`) takes effect without a restart.
        """
        self._wake = asyncio.Event()
        while not stop.is_set():
            try:
                await self.run_cycle()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the service must outlive one bad cycle
                self._emit(DreamResult("failed", reason=f"{type(exc).__name__}: {exc}", failed_attempt=True))
            interval = max(1.0, float(self.settings.memory_consolidation_interval_seconds))
            waits = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(self._wake.wait())]
            try:
                await asyncio.wait(waits, timeout=interval, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for wait in waits:
                    wait.cancel()
            self._wake.clear()

    # -- history ------------------------------------------------------------------------------------
    def history(self) -> list[dict]:
        """Newest first: the runner's own records, plus log.md entries it has no record of.

        An entry known only from log.md (written by hand, by another install, or before the
        runner kept records) has no list of changed pages: ``pages_changed`` is None, meaning
        "not recorded", not "no pages". Its batch is the logged days its watermark covered.
        """
        records = [
            {**{k: r.get(k) for k in ("date", "outcome", "batch", "pages_changed", "summary", "watermark", "reason",
                                      "ts")},
             "uncovered": list(r.get("uncovered") or []), "dropped": list(r.get("dropped") or [])}
            for r in home_history(self.parts.layout)
        ]
        known = {(r["date"], r["watermark"]) for r in records if r["outcome"] in ("productive", "skipped")}
        known_lint = {r["date"] for r in records if r["outcome"] == "lint"}
        log_dates = self.parts.archive.dates()
        days = self.parts.days()
        previous: str | None = None
        for entry in self.parts.notebook.entries():
            if entry.kind == "ingest" and (entry.date, entry.watermark) not in known:
                covered = entry.skipped or days.moved(log_dates, previous, entry.watermark)
                records.append({"date": entry.date, "outcome": "skipped" if entry.skipped else "productive",
                                "batch": covered, "pages_changed": None, "summary": entry.summary,
                                "watermark": entry.watermark, "reason": "", "ts": None, "uncovered": [],
                                "dropped": []})
            elif entry.kind == "lint" and entry.date not in known_lint:
                records.append({"date": entry.date, "outcome": "lint", "batch": [], "pages_changed": [],
                                "summary": entry.summary, "watermark": None, "reason": "", "ts": None,
                                "uncovered": [], "dropped": []})
            if entry.kind == "ingest" and entry.watermark:
                previous = max(previous or "", entry.watermark)
        records.sort(key=lambda r: (r["date"] or "", r["ts"] or 0.0), reverse=True)
        for record in records:
            record.pop("ts", None)
        return records
