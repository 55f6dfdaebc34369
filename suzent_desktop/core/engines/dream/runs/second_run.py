"""A batch another device already consolidated: the coverage check is the rule.

On a home shared by several devices a run can meet a batch whose facts another device
already put on pages, when that device's ``log.md`` entry has not arrived (or was lost in a
sync conflict). Running the engine again would at best change nothing (a failed attempt,
retried, then skipped) and at worst write the facts a second time. So before the engine, the
batch is checked against the vault with the coverage check's exact rules
(``core/engines/dream/guards/coverage.py``: the same text, or the same subject and value, on a page): when
every fact already stands on a page the run writes nothing and moves the watermark.

A home with one device never takes this path: its runs keep today's behaviour.
"""

from __future__ import annotations

from suzent_desktop.core.engines.dream.guards.coverage import CoverageReport, check_coverage
from suzent_desktop.core.engines.dream.model import Batch, EngineReport
from suzent_desktop.core.engines.dream.tools import VaultTools

SUMMARY = "every fact of the batch already stands on a page (another device consolidated it); nothing written"


def already_on_pages(batch: Batch, tools: VaultTools) -> tuple[EngineReport, CoverageReport] | None:
    """(an empty report, the coverage) when all of the batch's facts are on pages, else None."""
    own = [f for f in batch.facts if f.date in batch.dates]
    if not own:
        return None
    coverage = check_coverage(batch.facts, tools)  # exact rules only: no embedder, no near duplicates
    if coverage.uncovered or coverage.accounted:
        return None
    return EngineReport(summary=SUMMARY), coverage
