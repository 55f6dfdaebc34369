"""Where each day's log stands: today, pending, consolidated or skipped, and whether it is indexed.

One reading of ``log.md`` and the clock answers every question about days, so the status
line, the dream runner, capture, the indexer and the daily-logs pane cannot disagree:

* **today**: the clock's date; today's log is never consolidated until the day is over;
* **skipped**: named by a ``skipped=`` ingest entry (given up after the retry limit); the
  watermark has passed it, yet its facts stay searchable;
* **consolidated**: on or before the effective watermark (a watermark on today counts as
  yesterday; one after today is refused and ignored, see ``Notebook.watermark``);
* **pending**: after the watermark and before today: the next dream's work. A log dated
  after today (written by hand) waits, pending, until its day has passed.

A log has index rows exactly while its facts live nowhere else: pending, today, later, or
skipped.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from suzent_desktop.core.vault.notebook import Notebook

TODAY, PENDING, CONSOLIDATED, SKIPPED = "today", "pending", "consolidated", "skipped"


def covered(date: str, watermark: str | None) -> bool:
    """The one spelling of "consolidated": a day on or before a watermark (no watermark covers nothing)."""
    return watermark is not None and date <= watermark


@dataclass(frozen=True)
class Days:
    """A snapshot of the day rules at one moment (cheap: one read of ``log.md``)."""

    today: str
    watermark: str | None
    skipped: frozenset[str]

    @classmethod
    def read(cls, notebook: Notebook, today: dt.date) -> Days:
        return cls(
            today=today.isoformat(),
            watermark=notebook.watermark(today),
            skipped=frozenset(notebook.skipped_dates()),
        )

    def status(self, date: str) -> str:
        """Skipped days are also behind the watermark, so they are tested first."""
        if date == self.today:
            return TODAY
        if date in self.skipped:
            return SKIPPED
        if self.is_consolidated(date):
            return CONSOLIDATED
        return PENDING

    def is_consolidated(self, date: str) -> bool:
        """Covered by the watermark: a fact appended to this day would never be consolidated."""
        return covered(date, self.watermark)

    def moved(self, dates: Iterable[str], before: str | None, after: str | None) -> list[str]:
        """Dates a watermark line moving from ``before`` to ``after`` consolidated, oldest first.

        A ``log.md`` line is judged by today's rules, so history never claims a day the status
        calls pending: a mark after today covers nothing, and none covers today.
        """
        def honoured(mark: str | None) -> str | None:
            return mark if mark is not None and mark <= self.today else None

        return sorted(
            d for d in dates if d < self.today and covered(d, honoured(after)) and not covered(d, honoured(before))
        )

    def pending(self, dates: Iterable[str]) -> list[str]:
        """Dates the next dream may take: after the watermark and strictly before today."""
        return sorted(d for d in dates if d < self.today and not self.is_consolidated(d))

    def indexed(self, date: str) -> bool:
        """Whether a log of this date has index rows (its facts are in no notebook page yet)."""
        return not self.is_consolidated(date) or date in self.skipped
