"""The dream runner's gates: whether a run is due, and the figures ``status`` and the window show.

Part of :class:`~suzent_desktop.core.engines.dream.runner.DreamRunner` (a mixin: it uses the runner's
parts, settings, clock and state). Kept apart so the runner holds the run itself.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from suzent_desktop.core.engines.dream.model import GateStatus
from suzent_desktop.core.engines.ledger import uncovered
from suzent_desktop.core.files.language.words import count
from suzent_desktop.core.vault.forgotten import Forgotten


class Gates:
    """Gate checks and status figures; reads files, never writes."""

    def lint_due(self) -> bool:
        if not self.settings.memory_lint_enabled:
            return False
        last = self.parts.notebook.last_entry("lint")
        if last is None:
            return True
        try:
            when = dt.date.fromisoformat(last.date)
        except ValueError:
            return True
        return (self._today() - when).days >= self.settings.memory_lint_min_days

    def _gate(self, state: dict[str, Any], pending: list[str], pending_facts: int) -> tuple[str, float | None]:
        """Why the time/volume gates hold the run back ('' when they do not), and when to look again."""
        s = self.settings
        last = state.get("last_attempt")
        if isinstance(last, int | float):
            wait_until = float(last) + s.memory_consolidation_min_hours * 3600
            if self._now() < wait_until:
                hours = (self._now() - float(last)) / 3600
                return (
                    f"last attempt {hours:.1f} h ago; memory_consolidation_min_hours is "
                    f"{s.memory_consolidation_min_hours:g}",
                    wait_until,
                )
        if pending_facts < s.memory_consolidation_min_facts:
            return (
                f"{count(pending_facts, 'pending fact')}; memory_consolidation_min_facts is "
                f"{s.memory_consolidation_min_facts}",
                None,
            )
        return "", None

    def gate_status(self) -> GateStatus:
        """Figures for ``status`` and the UI; reads files, never writes."""
        m, s = self.parts, self.settings
        pending = m.pending_dates()
        pending_facts = self._count_facts(pending)
        next_batch = pending[: max(1, s.memory_consolidation_max_days)]
        lint_due = self.lint_due()
        left = self.not_consolidated()
        status = self._gate_status(m, s, pending, pending_facts, next_batch, lint_due, left)
        status.dropped_awaiting = len(m.pending_dropped())
        return status

    def _gate_status(self, m: Any, s: Any, pending: list[str], pending_facts: int, next_batch: list[str],
                     lint_due: bool, left: list[dict[str, Any]]) -> GateStatus:
        if not pending:
            return GateStatus(False, "nothing pending", None, pending, 0, [], lint_due, left)
        if not s.memory_consolidation_enabled:
            return GateStatus(False, "memory_consolidation_enabled is false", None, pending, pending_facts,
                              next_batch, lint_due, left)
        reason, next_at = self._gate(self._load_state(), pending, pending_facts)
        if not reason:
            next_at = self._now()
        return GateStatus(not reason, reason or "due", next_at, pending, pending_facts, next_batch, lint_due, left)

    def not_consolidated(self) -> list[dict[str, Any]]:
        """Facts of consolidated days that no page holds (forgotten ones left out), oldest first."""
        m = self.parts
        forgotten = Forgotten(m.tombstones.contents())
        left = [f for f in uncovered.consolidated(m.layout, m.days()) if not forgotten.holds(f.text)]
        return [{"date": f.date, "line": f.line, "text": f.text, "path": f.path}
                for f in uncovered.located(m.layout, left)]

    def _count_facts(self, dates: list[str]) -> int:
        return int(self.parts.count_facts(dates))
