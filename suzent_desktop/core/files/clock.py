"""The one clock every date rule uses.

"Today" is the local calendar date (never UTC: a UTC date rolls over mid-afternoon for
users west of Greenwich), unless ``SUZENT_TODAY=YYYY-MM-DD`` pins it for tests and demos.
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Clock:
    """Injectable source of the current date and time. ``fixed_today`` pins the date."""

    fixed_today: dt.date | None = None

    def today(self) -> dt.date:
        if self.fixed_today is not None:
            return self.fixed_today
        pinned = os.environ.get("SUZENT_TODAY", "").strip()
        if pinned:
            try:
                return dt.date.fromisoformat(pinned)
            except ValueError:
                raise ValueError(f"environment variable SUZENT_TODAY: not a YYYY-MM-DD date: {pinned!r}") from None
        return dt.date.today()

    def now(self) -> dt.datetime:
        """Local wall time; its date follows :meth:`today` so a pinned day stays consistent."""
        current = dt.datetime.now().astimezone()
        today = self.today()
        if current.date() != today:
            current = current.replace(year=today.year, month=today.month, day=today.day)
        return current

    def timestamp(self) -> float:
        """Seconds since the epoch, for gating intervals (real time, not the pinned date)."""
        return dt.datetime.now().timestamp()


SYSTEM_CLOCK = Clock()
