"""A run cut short after its last page write, before its ingest entry, is completed, not retried.

A kill between the last page write and ``log.md``'s ingest entry leaves every fact of the
batch on a page and the watermark where it was. The next run's engine then finds nothing to
do, changes no page, and the old rule counted that as a failed attempt until the batch was
*skipped*, a record that lied (its facts were on pages all along). So before the engine runs,
the batch is checked against the vault with the coverage check's strict rules (the same text
once case, punctuation and dates are ignored, or the same subject and value; no similarity
guess): when a page holds every one of its facts, the run writes the ingest entry the killed
run did not, and counts as productive. It neither calls the engine nor counts an attempt. The
check reads the vault, so it runs only when a kill is likely: the last run recorded no outcome,
or this batch has already failed an attempt.
"""

from __future__ import annotations

import asyncio
from typing import Any

from suzent_desktop.core.engines.dream.guards.coverage import CoverageReport, check_coverage
from suzent_desktop.core.engines.dream.model import Batch, EngineReport
from suzent_desktop.core.engines.dream.tools import VaultTools

COMPLETED = ("every fact of the batch was already on a page (a run cut short before its ingest entry); "
             "its ingest entry is written now")


def suspect(state: dict[str, Any], batch: Batch, previous_attempt: float | None) -> bool:
    """Worth a look at the vault (it reads every page): the last run started and recorded no outcome
    (a kill), or this batch already failed an attempt (a home caught in that loop before)."""
    history = state.get("history") or []
    cut_short = previous_attempt is not None and (not history or float(history[-1].get("ts") or 0) < previous_attempt)
    return cut_short or bool(batch.dates and int(state.get("retries", {}).get(batch.dates[0], 0)) > 0)


async def already_on_pages(batch: Batch, tools: VaultTools) -> CoverageReport | None:
    """The batch's coverage when pages already hold all of its facts, else None (the engine runs)."""
    if not batch.facts:
        return None
    report = await asyncio.to_thread(check_coverage, batch.facts, tools)  # no embedder: exact rules only
    return report if not report.uncovered and not report.accounted else None


def completed_report() -> EngineReport:
    """What the completing run says it did (its summary goes into the ingest entry)."""
    return EngineReport(summary=COMPLETED)
