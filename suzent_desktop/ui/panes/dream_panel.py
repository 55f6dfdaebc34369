"""Dream panel: where consolidation stands, why the runner waits, and buttons to act now.

It shows the watermark, the pending days and facts, the next scheduled run and the gate
holding it back, the runner's phase live, a run history (from the runner's state and
``log.md``) with the pages each run changed, and the findings of the last lint pass.
Diffs are shown for runs started from this panel (the vault is snapshotted first) and for
dry runs; other runs keep only their page list, which opens the page.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import html
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from suzent_desktop.core.engines.dream.diffs import unified_diffs
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.language.words import count
from suzent_desktop.core.operations import vault_texts
from suzent_desktop.ui.dialogs.prompts import Prompter
from suzent_desktop.ui.panes.common import Pane
from suzent_desktop.ui.panes.diff_view import DiffView

if TYPE_CHECKING:
    from suzent_desktop.core.engines.dream.model import DreamResult, GateStatus
    from suzent_desktop.ui.base.services import AppServices

RUN_ROLE = Qt.ItemDataRole.UserRole + 1
FINDING_ROLE = Qt.ItemDataRole.UserRole + 2
PHASE_TEXT = {"idle": "idle", "running": "running…", "finalizing": "finalizing…"}
OUTCOME_TEXT = {  # the runner's outcome codes that are not words already ("productive", "failed" are)
    "no_change": "no change",
    "nothing_pending": "nothing to consolidate",
}
DRY_RUN_TEXT = {  # a dry run writes nothing: say what a real run would do
    "productive": "a dream would update pages",
    "no_change": "a dream would change nothing",
    "nothing_pending": "nothing to consolidate",
    "gated": "a dream would wait",
}
OUTCOME_COLORS = {
    "productive": "#2e7d32",
    "no_change": "#757575",
    "failed": "#c62828",
    "skipped": "#c62828",
    "gated": "#b26a00",
    "nothing_pending": "#757575",
}


def describe_outcome(outcome: str, *, dry_run: bool = False) -> str:
    """Words for an outcome code (``nothing_pending`` → "nothing to consolidate"); unknown codes lose their underscores."""
    text = (DRY_RUN_TEXT.get(outcome) if dry_run else None) or OUTCOME_TEXT.get(outcome)
    return text or outcome.replace("_", " ")


def describe_next_run(next_run_at: float | None, now: float) -> str:
    """'14:05 (in 23 min)' or 'now'; None means no run is scheduled."""
    if next_run_at is None:
        return "not scheduled"
    delta = next_run_at - now
    if delta <= 0:
        return "due now"
    when = dt.datetime.fromtimestamp(next_run_at).strftime("%Y-%m-%d %H:%M")
    minutes = int(delta // 60)
    if minutes < 1:
        return f"{when} (in under a minute)"
    if minutes < 120:
        return f"{when} (in {minutes} min)"
    return f"{when} (in {minutes // 60} h {minutes % 60} min)"


def describe_wait(gate: GateStatus, interval_seconds: float) -> str:
    """Why the runner waits, in words; a due run waits for nothing but the schedule's next check."""
    if not (gate.due or gate.reason == "due"):
        return gate.reason or ""
    minutes = max(1, round(interval_seconds / 60))
    return f"not waiting: due, it starts at the schedule's next check (within {count(minutes, 'minute')})"


def describe_lint(result: Any) -> str:
    """"clean", "15 findings", or "failed" when the pass itself failed (its finding says why)."""
    if not result.ok:
        return "failed"
    return count(len(result.findings), "finding") if result.findings else "clean"


def _diffs_since(before: dict[str, bytes], root: Path, pages: list[str]) -> dict[str, str]:
    """Unified diffs of ``pages`` between a snapshot taken before a run and the files now."""
    after: dict[str, bytes] = {}
    for rel in pages:
        try:
            after[rel] = (root / rel).read_bytes()
        except OSError:
            continue  # deleted by the run: diffed against nothing
    return unified_diffs({rel: before[rel] for rel in pages if rel in before}, after)


def _no_pages_reason(row: dict) -> str:
    """What an empty page list means for this history row."""
    if row.get("pages_changed") is None:
        return "This run is known from log.md only: the pages it changed were not recorded."
    if row.get("outcome") == "lint":
        return "A lint pass changes no pages; its findings are in the Lint tab."
    reason = str(row.get("reason") or "").strip()
    return f"This run changed no pages: {reason}" if reason else "This run changed no pages."


def _row_summary(row: dict) -> str:
    """A failed or empty run has no summary; its reason is what the user needs to see instead."""
    return str(row.get("summary") or row.get("reason") or "")


def run_key(batch: Any, pages: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """How a history row is matched to a result of this session (which carries the diffs)."""
    return tuple(batch or ()), tuple(sorted(pages or ()))


class DreamPanel(Pane):
    """Consolidation status, Dream now / Dry run / Lint now, history with diffs, lint findings."""

    # Emitted when a run started from the panel finished (argument: the DreamResult).
    run_finished = Signal(object)
    # Emitted when a lint pass started from the panel finished (argument: the LintResult).
    lint_finished = Signal(object)

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(services, parent)
        self.gate: GateStatus | None = None
        self.watermark: str | None = None
        self.history_rows: list[dict] = []
        self.last_dry_run: Any = None
        self.last_lint: Any = None
        self._session_diffs: dict[tuple[tuple[str, ...], tuple[str, ...]], dict[str, str]] = {}
        self._history_key: tuple | None = None
        self._panel_run = False  # a run started from this panel is in progress (it shows its own result)
        self.prompter = Prompter(self)  # tests put a scripted one here
        self._build()
        services.bridge.dream_phase.connect(self._on_phase)
        services.bridge.dream_result.connect(self._on_result)
        self._clock = QTimer(self)
        self._clock.setInterval(30_000)
        self._clock.timeout.connect(self._update_next_run)
        self._clock.start()
        self._on_phase(services.runner.phase)
        self.refresh()

    # -- widgets -----------------------------------------------------------------------------
    def _build(self) -> None:
        self.watermark_label = QLabel(self)
        self.pending_label = QLabel(self)
        self.pending_label.setWordWrap(True)
        self.facts_label = QLabel(self)
        self.next_label = QLabel(self)
        self.reason_label = QLabel(self)
        self.reason_label.setWordWrap(True)
        self.phase_label = QLabel(self)
        self.lint_label = QLabel(self)
        self.uncovered_label = QLabel(self)
        self.uncovered_label.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Watermark:", self.watermark_label)
        form.addRow("Pending days:", self.pending_label)
        form.addRow("Pending facts:", self.facts_label)
        form.addRow("Next dream:", self.next_label)
        form.addRow("Waiting because:", self.reason_label)
        form.addRow("Runner:", self.phase_label)
        form.addRow("Lint:", self.lint_label)
        form.addRow("Not consolidated:", self.uncovered_label)

        self.dream_button = QPushButton("Dream now", self)
        self.dream_button.setToolTip("Consolidate the next batch of pending days now, ignoring the schedule")
        self.dream_button.clicked.connect(self.dream_now)
        self.dry_button = QPushButton("Dry run", self)
        self.dry_button.setToolTip("Show what a run would change, without writing anything")
        self.dry_button.clicked.connect(self.dry_run)
        self.lint_button = QPushButton("Lint now", self)
        self.lint_button.setToolTip("Audit the notebook: broken links, orphans, contradictions")
        self.lint_button.clicked.connect(self.lint_now)
        self.cancel_button = QPushButton("Stop", self)
        self.cancel_button.setToolTip("Stop the run in progress; its page edits are rolled back")
        self.cancel_button.clicked.connect(self._cancel)
        buttons = QHBoxLayout()
        for button in (self.dream_button, self.dry_button, self.lint_button, self.cancel_button):
            buttons.addWidget(button)

        self.history = QTreeWidget(self)
        self.history.setHeaderLabels(["Date", "Outcome", "Batch", "Pages", "Summary"])
        self.history.setRootIsDecorated(False)
        self.history.currentItemChanged.connect(self._run_selected)
        self.history_diff = DiffView(self)
        self.history_diff.open_requested.connect(self.open_page)
        history_box = QSplitter(Qt.Orientation.Vertical, self)
        history_box.addWidget(self.history)
        history_box.addWidget(self.history_diff)

        dry_box = QWidget(self)
        self.dry_summary = QLabel("Press “Dry run” to see what the next run would change.", dry_box)
        self.dry_summary.setWordWrap(True)
        self.dry_diff = DiffView(dry_box)
        self.dry_diff.open_requested.connect(self.open_page)
        dry_layout = QVBoxLayout(dry_box)
        dry_layout.setContentsMargins(0, 0, 0, 0)
        dry_layout.addWidget(self.dry_summary)
        dry_layout.addWidget(self.dry_diff, 1)

        lint_box = QWidget(self)
        self.lint_summary = QLabel("Press “Lint now” to audit the notebook.", lint_box)
        self.lint_summary.setWordWrap(True)
        self.findings = QListWidget(lint_box)
        self.findings.setWordWrap(True)
        self.findings.itemActivated.connect(self._finding_activated)
        lint_layout = QVBoxLayout(lint_box)
        lint_layout.setContentsMargins(0, 0, 0, 0)
        lint_layout.addWidget(self.lint_summary)
        lint_layout.addWidget(self.findings, 1)

        self.tabs = QTabWidget(self)
        self.tabs.addTab(history_box, "History")
        self.tabs.addTab(dry_box, "Dry run")
        self.tabs.addTab(lint_box, "Lint")

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.tabs, 1)

    # -- status ------------------------------------------------------------------------------
    def wants(self, changes: ChangeSet) -> bool:
        return bool(changes.watermark or changes.logs or changes.tombstones or changes.pages)

    async def load(self) -> None:
        gate, watermark, history = await asyncio.to_thread(self._read_state)
        if not self.alive():
            return
        self.gate, self.watermark, self.history_rows = gate, watermark, history
        self._show_status()
        self._show_history()
        self._show_last_logged_lint()

    def _read_state(self) -> tuple[GateStatus, str | None, list[dict]]:
        runner = self.services.runner
        manager = self.services.manager
        return runner.gate_status(), manager.dreaming.watermark(), list(runner.history())

    def _show_status(self) -> None:
        gate = self.gate
        self.watermark_label.setText(f"<b>{html.escape(self.watermark or 'none yet')}</b>")
        if gate is None:  # not read yet
            return
        dates = list(gate.pending_dates)
        if dates:
            shown = ", ".join(dates[:6]) + (f", … ({len(dates) - 6} more)" if len(dates) > 6 else "")
            self.pending_label.setText(f"{len(dates)}: {shown}")
        else:
            self.pending_label.setText("none — caught up")
        batch = list(gate.next_batch)
        batch_text = f" · next batch: {batch[0]} … {batch[-1]} ({count(len(batch), 'day')})" if batch else ""
        self.facts_label.setText(f"{gate.pending_facts}{batch_text}")
        interval = self.services.settings.memory_consolidation_interval_seconds
        self.reason_label.setText(html.escape(describe_wait(gate, interval), quote=False))
        self.lint_label.setText("due" if gate.lint_due else "not due")
        self._show_not_consolidated(list(gate.not_consolidated), gate.dropped_awaiting)
        self._update_next_run()

    def _show_not_consolidated(self, facts: list[dict], dropped: int = 0) -> None:
        """Facts of consolidated days no page holds: still searchable, offered to the next run; and
        the facts a dream dropped, still searchable until a person confirms the drop."""
        awaiting = f"{count(dropped, 'dropped fact')} awaiting your confirmation (still searchable)" if dropped else ""
        if not facts:
            self.uncovered_label.setText(html.escape(awaiting) if awaiting
                                         else "none — every consolidated fact stands on a page")
            self.uncovered_label.setToolTip("")
            return
        shown = "; ".join(f"{f['date']}: {f['text']}" for f in facts[:3])
        more = f"; … ({len(facts) - 3} more)" if len(facts) > 3 else ""
        also = f"; {awaiting}" if awaiting else ""
        self.uncovered_label.setText(
            html.escape(f"{count(len(facts), 'fact')}, still searchable and offered to the next run — {shown}{more}{also}")
        )
        self.uncovered_label.setToolTip("\n".join(f"{f['date']}  {f['text']}" for f in facts))

    def _update_next_run(self) -> None:
        if self.gate is None:
            return
        text = "due now" if self.gate.due else describe_next_run(self.gate.next_run_at, time.time())
        self.next_label.setText(text)

    def _on_phase(self, phase: str) -> None:
        if not self.alive():
            return
        self.phase = phase
        color = "#2e7d32" if phase == "idle" else "#1565c0"
        self.phase_label.setText(f'<span style="color:{color}">{PHASE_TEXT.get(phase, phase)}</span>')
        busy = phase != "idle"
        for button in (self.dream_button, self.dry_button):
            button.setEnabled(not busy)
        self.cancel_button.setEnabled(busy)

    def _on_result(self, result: DreamResult) -> None:
        """Any run (scheduled or from the panel): keep its diffs, redraw status and history."""
        if not self.alive():
            return
        self._remember_diffs(result)
        lint = getattr(self.services.runner, "last_lint", None)
        if lint is not None and lint is not self.last_lint:  # the lint a dream ran after catching up
            self._show_lint(lint, switch=False)
        if str(result.reason).startswith("dry run"):
            if not self._panel_run:
                self._show_dry_run(result)  # a dry run started elsewhere (command palette)
        elif result.outcome == "productive" and self.last_dry_run is not None:
            self._clear_dry_run()  # what it showed is what the pages are now, or no longer true
        self.request_refresh()

    def _remember_diffs(self, result: DreamResult) -> None:
        if result.diffs:
            self._session_diffs[run_key(result.batch, result.pages_changed)] = dict(result.diffs)

    # -- history ------------------------------------------------------------------------------
    def _show_history(self) -> None:
        key = (list(self.history_rows), tuple(self._session_diffs))
        if key == self._history_key:
            return  # unchanged: keep the rows, the selection and the diff on screen
        self._history_key = key
        keep = self.history.currentIndex().row()
        self.history.clear()
        for row in self.history_rows:
            batch = list(row.get("batch") or [])
            recorded = row.get("pages_changed")
            pages = list(recorded or [])
            batch_text = f"{batch[0]} … {batch[-1]}" if len(batch) > 1 else (batch[0] if batch else "")
            summary = " ".join(_row_summary(row).split())
            item = QTreeWidgetItem(
                [
                    str(row.get("date") or ""),
                    describe_outcome(str(row.get("outcome") or "")),
                    batch_text,
                    "—" if recorded is None else str(len(pages)),
                    summary,
                ]
            )
            if recorded is None:
                item.setToolTip(3, "Known from log.md only: the pages this run changed were not recorded")
            item.setData(0, RUN_ROLE, row)
            item.setToolTip(4, _row_summary(row))
            color = OUTCOME_COLORS.get(str(row.get("outcome")))
            if color:
                item.setForeground(1, QBrush(QColor(color)))
            self.history.addTopLevelItem(item)
        for column in range(4):
            self.history.resizeColumnToContents(column)
        kept = self.history.topLevelItem(max(0, min(keep, self.history.topLevelItemCount() - 1)))
        if kept is not None:
            self.history.setCurrentItem(kept)
        else:
            self.history_diff.set_pages([])

    def _run_selected(self, current: QTreeWidgetItem | None, _previous: object = None) -> None:
        if current is None:
            self.history_diff.set_pages([])
            return
        row = current.data(0, RUN_ROLE) or {}
        pages = list(row.get("pages_changed") or [])
        self.history_diff.set_pages(
            pages, self._session_diffs.get(run_key(row.get("batch"), pages), {}), empty=_no_pages_reason(row)
        )

    # -- actions -------------------------------------------------------------------------------
    def dream_now(self) -> asyncio.Task[Any]:
        """Run one consolidation batch now, whatever the schedule says.

        With consolidation turned off, nothing would run: say so and offer to turn it on
        (saved to config.toml, so the schedule runs too), instead of a silent "done".
        """
        runner = self.services.runner
        if not self.services.settings.memory_consolidation_enabled and not self._offer_to_enable():
            return self.run_job("dream", self._not_run(), supersede=False)
        return self.run_job(
            "dream", self._dream(False), label="Dreaming", supersede=False, on_cancel=runner.cancel
        )

    def dry_run(self) -> asyncio.Task[Any]:
        """Compute the next run's page diffs without writing anything."""
        runner = self.services.runner
        if not self.services.settings.memory_consolidation_enabled and not self._offer_to_enable():
            return self.run_job("dream", self._not_run(), supersede=False)
        return self.run_job(
            "dream", self._dream(True), label="Dry run", supersede=False, on_cancel=runner.cancel
        )

    def _offer_to_enable(self) -> bool:
        """Ask to turn consolidation on; True when it is on now."""
        if not self.prompter.confirm(
            "Consolidation is turned off",
            "Dreaming is disabled in the settings (memory_consolidation_enabled = false), so nothing "
            "would run.\n\nTurn consolidation on and dream now? The background schedule runs again too; "
            "you can turn it off in File ▸ Settings.",
            ok="Turn on and dream",
        ):
            return False
        try:
            self.services.save_settings(self.services.settings.replace(memory_consolidation_enabled=True))
        except (OSError, ValueError) as exc:
            self.prompter.error("Settings not saved", f"Consolidation could not be turned on: {exc}")
            return False
        return True

    async def _not_run(self) -> None:
        self.report("Dream not run: consolidation is disabled (memory_consolidation_enabled = false)")

    async def _dream(self, dry_run: bool) -> None:
        self.dream_button.setEnabled(False)
        self.dry_button.setEnabled(False)
        root = self.services.manager.layout.notebook_dir
        before = None if dry_run else await asyncio.to_thread(vault_texts, self.services.manager)
        self._panel_run = True
        try:
            result = await self.services.runner.run_once(force=True, dry_run=dry_run)
        finally:
            self._panel_run = False
            if self.alive():
                self._on_phase(self.services.runner.phase)
        if before is not None and result.pages_changed and not result.diffs:
            result.diffs = await asyncio.to_thread(_diffs_since, before, root, list(result.pages_changed))
        if not self.alive():
            return
        self._remember_diffs(result)
        self._show_history()
        if dry_run:
            self._show_dry_run(result)
        self.report(
            f"{'Dry run' if dry_run else 'Dream'}: {describe_outcome(result.outcome, dry_run=dry_run)}"
            + (f" — {result.reason}" if result.reason else "")
        )
        await self.load()
        if self.alive():
            self.run_finished.emit(result)

    def _show_dry_run(self, result: Any) -> None:
        self.last_dry_run = result
        batch = list(result.batch or [])
        text = f"Dry run: <b>{html.escape(describe_outcome(result.outcome, dry_run=True))}</b>"
        if batch:
            text += f" · batch {batch[0]} … {batch[-1]}"
        if result.reason:
            text += f" · {html.escape(result.reason)}"
        if result.summary:
            text += f"<br>{html.escape(result.summary)}"
        self.dry_summary.setText(text)
        self.dry_diff.set_pages(list(result.pages_changed or []), dict(result.diffs or {}))
        self.tabs.setCurrentIndex(1)

    def _clear_dry_run(self) -> None:
        self.last_dry_run = None
        self.dry_summary.setText("A dream ran since the last dry run. Press “Dry run” to see what the "
                                 "next run would change.")
        self.dry_diff.set_pages([])

    def lint_now(self) -> asyncio.Task[Any]:
        return self.run_job("lint", self._lint(), label="Lint", supersede=False)

    async def _lint(self) -> None:
        self.lint_button.setEnabled(False)
        try:
            result = await self.services.manager.linting.run()
        finally:
            if self.alive():
                self.lint_button.setEnabled(True)
        if not self.alive():
            return
        self._show_lint(result)
        root = self.services.manager.layout.notebook_dir
        changed = {root / p for p in (result.pages_changed or [])}
        self.publish(ChangeSet(pages=changed, index=bool(changed)))
        await self.load()
        if self.alive():
            self.lint_finished.emit(result)

    def _show_last_logged_lint(self) -> None:
        """Before a lint ran in this window, say when the last one ran (the history lists it)."""
        if self.last_lint is not None:
            return
        row = next((r for r in self.history_rows if r.get("outcome") == "lint"), None)
        if row is None:
            self.lint_summary.setText("No lint has run yet. Press “Lint now” to audit the notebook.")
            return
        summary = " ".join(_row_summary(row).split())
        self.lint_summary.setText(f"Last lint: {row.get('date')}{' · ' + summary if summary else ''}. "
                                  "Press “Lint now” to list its findings.")

    def _show_lint(self, result: Any, *, switch: bool = True) -> None:
        self.last_lint = result
        self.findings.clear()
        for finding in result.findings:
            item = QListWidgetItem(f"{finding.kind} — {finding.path}: {finding.detail}", self.findings)
            item.setData(FINDING_ROLE, finding)
            item.setToolTip("Double-click to open the page")
        self.lint_summary.setText(f"Lint: {describe_lint(result)}")
        if switch:
            self.tabs.setCurrentIndex(2)

    def _finding_activated(self, item: QListWidgetItem) -> None:
        finding = item.data(FINDING_ROLE)
        if finding is not None and finding.path:
            self.open_page(str(finding.path))

    def open_finding(self, row: int) -> None:
        item = self.findings.item(row)
        if item is not None:
            self._finding_activated(item)

    def open_page(self, page: str) -> None:
        """Open a page given vault-relative (or absolute) in the editor area."""
        path = Path(page)
        if not path.is_absolute():
            path = self.services.manager.layout.notebook_dir / path
        self.services.bridge.open_path.emit(path, None)

    def _cancel(self) -> None:
        self.services.runner.cancel()
