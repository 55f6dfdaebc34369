"""Records the dream runner, its engines and lint hand to callers (CLI, UI, tests)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.records.log_grammar import Fact

SUMMARY_MAX_CHARS = 600


@dataclass(frozen=True)
class BatchFact:
    """One fact line of a pending daily log, with the date that is its provenance."""

    date: str
    fact: Fact
    line: int

    def as_log_line(self) -> str:
        tags = f" `{' '.join(self.fact.tags)}`" if self.fact.tags else ""
        return f"{self.date} - [{self.fact.category}] {self.fact.content}{tags}"


@dataclass
class Batch:
    """The dates one run consolidates and their live (not tombstoned) facts."""

    dates: list[str]
    facts: list[BatchFact]
    dropped_tombstoned: int = 0
    # date -> sha256 of its log as it was read: a log that changed during the run is not covered
    digests: dict[str, str] = field(default_factory=dict)

    @property
    def end(self) -> str:
        return self.dates[-1]


@dataclass
class EngineReport:
    summary: str
    pages_written: list[str] = field(default_factory=list)
    # The model's tool calls that failed ("write: missing argument 'content'"): a run that
    # then changes nothing names them as its cause instead of a bare "no page changed".
    call_errors: list[str] = field(default_factory=list)
    # Why the model's loop was ended early ('' when the model closed it): a repeated call, replies
    # that changed nothing (core/engines/dream/guards/loop_guard.py). The summary is then empty.
    stopped: str = ""


@dataclass
class DreamResult:
    outcome: str  # productive | no_change | failed | skipped | gated | nothing_pending
    batch: list[str] = field(default_factory=list)
    watermark: str | None = None
    pages_changed: list[str] = field(default_factory=list)
    summary: str = ""
    diffs: dict[str, str] = field(default_factory=dict)
    changes: ChangeSet = field(default_factory=ChangeSet)
    reason: str = ""
    forceable: bool = False  # gated by time or volume only: `dream --force` runs it now
    # True when the run counts as a failed attempt (failed, no change, or skipped after the
    # retry limit): `dream` exits non-zero for it, whatever the outcome's name.
    failed_attempt: bool = False
    # Facts of the batch no page holds after a productive run ({"date", "line", "text"}):
    # kept searchable and offered to the next run (core/engines/ledger/uncovered.py).
    uncovered: list[dict[str, Any]] = field(default_factory=list)
    dropped: list[dict[str, Any]] = field(default_factory=list)  # ... plus "reason": left out on purpose

    def as_json(self) -> dict[str, Any]:
        """The ``dream --json`` document of interfaces.md §3."""
        return {
            "outcome": self.outcome,
            "batch": list(self.batch),
            "watermark": self.watermark,
            "pages_changed": list(self.pages_changed),
            "summary": self.summary,
            "uncovered": list(self.uncovered),
            "dropped": list(self.dropped),
        }


@dataclass
class GateStatus:
    due: bool
    reason: str
    next_run_at: float | None
    pending_dates: list[str]
    pending_facts: int
    next_batch: list[str]
    lint_due: bool
    # Facts of consolidated days that no page holds ({"date", "line", "text", "path"}), searchable
    # from their logs and offered to the next run (core/engines/ledger/uncovered.py).
    not_consolidated: list[dict[str, Any]] = field(default_factory=list)
    dropped_awaiting: int = 0  # facts a dream dropped, in search until a person confirms (core/index/dropped.py)


@dataclass(frozen=True)
class Finding:
    kind: str  # contradiction | broken_link | orphan | stale | duplicate_page | tombstone_paraphrase | error
    path: str
    detail: str

    def as_json(self) -> dict[str, str]:
        return {"kind": self.kind, "path": self.path, "detail": self.detail}


@dataclass
class LintResult:
    findings: list[Finding] = field(default_factory=list)
    pages_changed: list[str] = field(default_factory=list)
    ok: bool = True


def clean_summary(text: str | None, limit: int = SUMMARY_MAX_CHARS) -> str:
    """One line, at most ``limit`` characters, that can never parse as a ``log.md`` entry or fence.

    The summary is written into ``log.md`` under the ingest entry; a model's summary that
    started with ``## [date] ingest ... watermark=`` or a code fence must not move the
    watermark or hide later entries.
    """
    flat = " ".join((text or "").split())
    flat = flat.lstrip("#`~> ").strip()
    if len(flat) > limit:
        flat = flat[: limit - 1].rstrip() + "…"
    return flat
