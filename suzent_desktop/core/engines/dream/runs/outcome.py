"""Honest outcomes: whether a finished run earned its watermark, and the words it leaves in log.md.

* A run is productive only if a content page changed **and** at least one fact of the batch
  stands on a page or was accounted for (:mod:`~suzent_desktop.core.engines.dream.guards.coverage`). Pages
  changed with none of the batch on them are junk: the run is ``no_change`` (rolled back, a
  failed attempt) and its reason names the facts left uncovered.
* A run the loop guard stopped (:mod:`~suzent_desktop.core.engines.dream.guards.loop_guard`) is judged the
  same way, its reason saying what was repeated.
* The summary is the model's closing text; when there is none (the loop was stopped), the
  program says what changed in its own words. A tool call is never a summary (the agent sends
  an unreadable one back as an error).
"""

from __future__ import annotations

from suzent_desktop.core.engines.dream.guards.coverage import CoverageReport
from suzent_desktop.core.engines.dream.model import EngineReport, clean_summary

FACTS_NAMED = 3
FACT_CHARS = 80


def _named(texts: list[str]) -> str:
    shown = "; ".join(repr(t if len(t) <= FACT_CHARS else t[: FACT_CHARS - 1] + "…") for t in texts[:FACTS_NAMED])
    return shown + (f"; and {len(texts) - FACTS_NAMED} more" if len(texts) > FACTS_NAMED else "")


def no_change_reason(report: EngineReport | None) -> str:
    """Why a finished run changed no page; the model's failed calls or its stopped loop are the
    likely cause (a model that cannot form a call answers in text and stops), so they are named."""
    why = "the engine finished but no content page changed"
    if report is not None and report.stopped:
        why = f"stopped early: {report.stopped}; no content page changed"
    if report is not None and report.call_errors:
        why += "; the model's calls failed: " + "; ".join(report.call_errors)
    return why


def not_productive(report: EngineReport, coverage: CoverageReport) -> str:
    """'' when the run counts as productive; else the ``no_change`` reason naming what was left uncovered."""
    if coverage.on_pages or coverage.accounted:
        return ""
    left = [f.fact.content for f in coverage.uncovered]
    why = f"pages changed, but no fact of the batch is on a page or accounted for ({len(left)} uncovered: {_named(left)})"
    if report.stopped:
        why = f"stopped early: {report.stopped}; {why}"
    return why


def summary(report: EngineReport, changed: list[str], coverage: CoverageReport) -> str:
    """The run's summary for log.md: the model's closing text, or the program's account of the run."""
    own = clean_summary(report.summary)
    if own:
        return own
    total = len(coverage.on_pages) + len(coverage.accounted) + len(coverage.uncovered)
    pages = ", ".join(changed) or "none"
    return clean_summary(
        f"(no closing summary from the model) {len(coverage.on_pages) + len(coverage.accounted)} of {total} "
        f"fact(s) on pages or accounted for; pages changed: {pages}"
    )


def last_run_note(history: list[dict], max_retries: int) -> str:
    """For ``status``: the outcome, attempt and reason of the last dream when it did not succeed ('' when it did)."""
    runs = [r for r in history if isinstance(r, dict) and r.get("outcome") not in (None, "lint")]
    if not runs or runs[-1].get("outcome") == "productive":
        return ""
    last = runs[-1]
    attempt = f", attempt {last['attempt']} of {max_retries}" if isinstance(last.get("attempt"), int) else ""
    reason = " ".join(str(last.get("reason") or "").split())
    if len(reason) > 300:
        reason = reason[:299] + "…"
    return f" (last run {last.get('date') or '?'}: {last['outcome']}{attempt}: {reason or 'no reason recorded'})"
