"""Dream: past daily logs consolidated into the notebook (``core/engines/dream/runner.py``), and
where consolidation stands: the watermark, the pending days, the gate, the facts a dream dropped.

Asked for by the window (its schedule, `Dream now`, the Dream panel), the command line (``dream``,
``status``, ``dropped``) and the MCP tool. The runner works on what this service holds and on
nothing else: it never sees the front door.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import KW_ONLY, dataclass
from typing import TYPE_CHECKING, Any

from suzent_desktop.core.engines.dream.model import DreamResult, GateStatus, LintResult
from suzent_desktop.core.engines.dream.runner import DreamRunner, Engine
from suzent_desktop.core.engines.dream.runs import outcome, run_state
from suzent_desktop.core.files.clock import Clock
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.records.archive import Archive, ArchiveError
from suzent_desktop.core.files.records.tombstones import Tombstones
from suzent_desktop.core.index import dropped
from suzent_desktop.core.index.dropped import DroppedFact
from suzent_desktop.core.services.forget import Forget
from suzent_desktop.core.services.lint import Lint
from suzent_desktop.core.services.promote import Promote
from suzent_desktop.core.services.search import Search
from suzent_desktop.core.vault.days import Days
from suzent_desktop.core.vault.model import Vault
from suzent_desktop.core.vault.notebook import Notebook
from suzent_desktop.settings import Settings

if TYPE_CHECKING:
    from suzent_desktop.core.index.embedding import Embedder
    from suzent_desktop.core.index.indexer import Indexer

# The outcomes that count as a dream for ``last_dream`` (a lint or a gated check is none).
DREAM_RUN_OUTCOMES = frozenset({"productive", "no_change", "failed", "skipped"})


@dataclass(frozen=True)
class DreamCycle:
    """What one dream command did: each batch's result in order, then the lint it ran (None when
    no lint was due, and always for a dry run)."""

    results: list[DreamResult]
    lint: LintResult | None = None


@dataclass(eq=False)  # a service is itself, not its parts
class Dream:
    """Consolidation over one home's logs, pages, index and the services a run ends with
    (the page strip, search for the model, MEMORY.md promotion, lint)."""

    settings: Settings
    layout: Layout
    clock: Clock
    _: KW_ONLY
    embedder: Embedder
    archive: Archive
    notebook: Notebook
    tombstones: Tombstones
    indexer: Indexer
    vault: Vault
    forget: Forget
    search: Search
    promote: Promote
    lint: Lint

    def with_parts(self, **parts: Any) -> Dream:
        """This service on new settings, another embedder or the services rebuilt for them (a home's
        parts are replaced, never edited)."""
        return dataclasses.replace(self, **parts)

    # -- runs ------------------------------------------------------------------------------------
    def runner(
        self,
        *,
        on_phase: Callable[[str], None] | None = None,
        on_result: Callable[[DreamResult], None] | None = None,
        engine: Engine | None = None,
        llm: Any = None,
        follow: Callable[[], Dream] | None = None,
    ) -> DreamRunner:
        """A runner on this service's parts; ``follow`` gives the service to use at each step instead
        (the window keeps one runner while saved settings and a new model replace the home's parts).
        ``engine`` replaces the configured engine (tests, tools); ``llm`` is handed to the agent."""
        return DreamRunner(follow or (lambda: self), on_phase=on_phase, on_result=on_result, engine=engine, llm=llm)

    async def cycle(self, *, force: bool = False, dry_run: bool = False,
                    on_result: Callable[[DreamResult], None] | None = None) -> DreamCycle:
        """A dream as the app runs it: batch after batch until caught up, then lint if due. A dry run
        is one batch on a scratch copy of the vault (its result carries the diffs)."""
        runner = self.runner(on_result=on_result)
        if dry_run:
            return DreamCycle([await runner.run_once(force=force, dry_run=True)])
        results = await runner.run_cycle(force=force)
        return DreamCycle(results, runner.last_lint)

    async def once(self, *, force: bool = False, dry_run: bool = False) -> DreamResult:
        """One batch of the dream (the MCP tool): a caller that asks again gets the next batch."""
        return await self.runner().run_once(force=force, dry_run=dry_run)

    # -- where consolidation stands ----------------------------------------------------------------
    def days(self) -> Days:
        """Where each day stands now (the one place for today/pending/consolidated/skipped)."""
        return Days.read(self.notebook, self.clock.today())

    def watermark(self) -> str | None:
        return self.days().watermark

    def watermark_error(self) -> str | None:
        """Why the watermark in log.md cannot be trusted, naming the line (None when it can)."""
        return self.notebook.watermark_error(self.clock.today())

    def pending_dates(self) -> list[str]:
        """Log dates strictly before today and strictly after the effective watermark: the backlog."""
        return self.days().pending(self.archive.dates())

    def count_facts(self, dates: Iterable[str]) -> int:
        """Fact lines on those dates, forgotten ones excluded; unreadable logs count as zero."""
        forgotten = self.forget.rule()
        total = 0
        for date in dates:
            try:
                parsed = self.archive.read(date)
            except (ArchiveError, OSError):
                continue
            total += sum(1 for f in parsed.facts if not forgotten.holds(f.fact.content))
        return total

    def gate_status(self) -> GateStatus:
        """Whether the next dream would run now, and if not why and when it looks again."""
        return self.runner().gate_status()

    def history(self) -> list[dict]:
        """The runs, newest first (the runner's records and the log.md entries it has none of)."""
        return self.runner().history()

    def never_ran(self) -> bool:
        """True when this device's own records hold no run yet (log.md may hold a demo's)."""
        return not run_state.load_state(self.layout.runner_state_file)["history"]

    def last_run_note(self) -> str:
        """For ``status``: the outcome, attempt and reason of the last dream when it did not succeed ('' when it did)."""
        history = run_state.load_device_state(self.layout)["history"]
        return outcome.last_run_note(history, self.settings.memory_consolidation_max_retries)

    # -- dropped facts -------------------------------------------------------------------------------
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

    # -- status ----------------------------------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        """(worker thread) The consolidation keys of the ``status --json`` document (interfaces.md §3)."""
        gate = self.gate_status()
        last_dream = next((r.get("date") for r in _safe_history(self) if r.get("outcome") in DREAM_RUN_OUTCOMES),
                          None)
        ingest = self.notebook.last_entry("ingest")
        if last_dream is None and ingest is not None:
            last_dream = ingest.date
        lint = self.notebook.last_entry("lint")
        return {
            "today": self.clock.today().isoformat(),
            "watermark": self.watermark(),
            "pending_dates": list(gate.pending_dates),
            "pending_facts": int(gate.pending_facts),
            "next_batch": list(gate.next_batch),
            "last_dream": last_dream,
            "last_lint": lint.date if lint is not None else None,
            "lint_due": bool(gate.lint_due),
            "not_consolidated": list(gate.not_consolidated),
            "dropped_awaiting": gate.dropped_awaiting,  # dropped by a dream, in search until confirmed
            "watermark_error": self.watermark_error(),
        }


def _safe_history(dream: Dream) -> list[dict]:
    """The run history, or none when its records cannot be read (``status`` still answers)."""
    try:
        return list(dream.history())
    except (OSError, ValueError):
        return []
