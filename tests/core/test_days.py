"""The one home of the day rules: today, pending, consolidated, skipped, and which logs are indexed."""

from __future__ import annotations

import datetime as dt

import pytest
from dream_support import make_manager

from suzent_desktop.core.vault.days import CONSOLIDATED, PENDING, SKIPPED, TODAY, Days

DAYS = Days(today="2026-07-20", watermark="2026-07-17", skipped=frozenset({"2026-07-16"}))

# (date, status, indexed)
ROWS = [
    ("2026-07-20", TODAY, True),
    ("2026-07-16", SKIPPED, True),         # behind the watermark, yet still searchable
    ("2026-07-17", CONSOLIDATED, False),   # the watermark's own day is consolidated
    ("2026-07-10", CONSOLIDATED, False),
    ("2026-07-18", PENDING, True),
    ("2026-07-25", PENDING, True),         # a hand-made log dated later waits for its day
]


@pytest.mark.parametrize(("date", "status", "indexed"), ROWS, ids=[r[0] for r in ROWS])
def test_day_rules(date: str, status: str, indexed: bool) -> None:
    assert DAYS.status(date) == status
    assert DAYS.indexed(date) is indexed


def test_pending_is_after_the_watermark_and_before_today() -> None:
    dates = [r[0] for r in ROWS]
    assert DAYS.pending(dates) == ["2026-07-18"]
    assert Days(today="2026-07-20", watermark=None, skipped=frozenset()).pending(dates) == [
        "2026-07-10", "2026-07-16", "2026-07-17", "2026-07-18"
    ]


def test_read_from_log_md_refuses_a_future_watermark_and_counts_today_as_yesterday(home, clock, today) -> None:
    manager = make_manager(home, clock)
    manager.notebook.append_skip(today, ["2026-07-01"], 3)
    manager.notebook.append_ingest(today, today.isoformat())
    manager.notebook.append_ingest(today, (today + dt.timedelta(days=3)).isoformat())  # refused: ignored
    days = manager.dreaming.days()
    assert days.watermark == (today - dt.timedelta(days=1)).isoformat()
    assert days.skipped == {"2026-07-01"} and days.status("2026-07-01") == SKIPPED
    assert manager.dreaming.watermark() == days.watermark
