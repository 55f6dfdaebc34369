"""Dream panel: status, a dream and a dry run with the offline engine, lint findings that open pages."""

from __future__ import annotations

import panes_support
from panes_support import WAIT_MS, seed, write_page
from PySide6.QtCore import Qt

from suzent_desktop.ui.panes.daily_logs import DailyLogsPane
from suzent_desktop.ui.panes.dream_panel import DreamPanel, describe_next_run

# fixtures shared by the pane tests
pane_services = panes_support.pane_services


def make_panel(qtbot, services) -> DreamPanel:
    panel = DreamPanel(services)
    qtbot.addWidget(panel)
    panel.show()
    qtbot.waitUntil(lambda: panel.refresh_count > 0, timeout=WAIT_MS)
    return panel


def test_describe_next_run() -> None:
    assert describe_next_run(None, 100.0) == "not scheduled"
    assert describe_next_run(50.0, 100.0) == "due now"
    assert "(in 5 min)" in describe_next_run(100.0 + 300, 100.0)


def test_status_shows_pending_days_and_why_the_runner_waits(qtbot, pane_services) -> None:
    seed(pane_services.manager)
    panel = make_panel(qtbot, pane_services)
    assert "none yet" in panel.watermark_label.text()
    assert panel.pending_label.text().startswith("4:")  # 07-15, 07-17, 07-18, 07-19; today is not pending
    assert "2026-07-15" in panel.pending_label.text()
    assert panel.facts_label.text().startswith("5")
    assert panel.reason_label.text()  # a gate explains the wait (too few facts for the default threshold)
    assert panel.phase_label.text().count("idle") == 1
    assert panel.dream_button.isEnabled() and not panel.cancel_button.isEnabled()


def test_dream_now_moves_the_watermark_and_fills_the_history(qtbot, pane_services) -> None:
    services = pane_services
    seed(services.manager)
    panel = make_panel(qtbot, services)
    logs = DailyLogsPane(services)
    qtbot.addWidget(logs)
    logs.show()
    qtbot.waitUntil(lambda: logs.refresh_count > 0, timeout=WAIT_MS)
    phases: list[str] = []
    services.bridge.dream_phase.connect(phases.append)

    with qtbot.waitSignal(panel.run_finished, timeout=WAIT_MS) as finished:
        qtbot.mouseClick(panel.dream_button, Qt.MouseButton.LeftButton)
    result = finished.args[0]
    assert result.outcome == "productive", result.reason
    assert result.watermark == "2026-07-19"
    assert "running" in phases and phases[-1] == "idle"
    assert "2026-07-19" in panel.watermark_label.text()
    assert panel.pending_label.text().startswith("none")
    top = panel.history.topLevelItem(0)
    assert top.text(1) == "productive" and "2026-07-15" in top.text(2)
    assert int(top.text(3)) == len(result.pages_changed) > 0
    # the run's diffs are on hand for its history row
    assert panel.history_diff.page_names()[: len(result.pages_changed)] == list(result.pages_changed)
    assert panel.history_diff.diff_text().startswith(("---", "+++", "@@")) or "@@" in panel.history_diff.diff_text()
    # the daily logs pane follows the watermark the run wrote
    qtbot.waitUntil(lambda: logs.statuses().get("2026-07-19") == "consolidated", timeout=WAIT_MS)
    assert logs.statuses()["2026-07-20"] == "today"


def test_dry_run_shows_diffs_and_writes_nothing(qtbot, pane_services) -> None:
    services = pane_services
    seed(services.manager)
    log_md = services.manager.layout.log_md.read_text(encoding="utf-8")
    panel = make_panel(qtbot, services)
    with qtbot.waitSignal(panel.run_finished, timeout=WAIT_MS) as finished:
        qtbot.mouseClick(panel.dry_button, Qt.MouseButton.LeftButton)
    result = finished.args[0]
    assert result.diffs, result.reason
    assert panel.tabs.currentIndex() == 1
    assert panel.dry_diff.page_names()
    assert "+" in panel.dry_diff.diff_text()
    assert services.manager.layout.log_md.read_text(encoding="utf-8") == log_md
    assert "none yet" in panel.watermark_label.text()


def test_lint_findings_open_their_page(qtbot, pane_services) -> None:
    services = pane_services
    seed(services.manager)
    broken = write_page(services.manager, "2_Wiki/Concepts/Kayaks.md", "# Kayaks\n\nSee [[Nowhere At All]].\n")
    panel = make_panel(qtbot, services)
    with qtbot.waitSignal(panel.lint_finished, timeout=WAIT_MS) as finished:
        qtbot.mouseClick(panel.lint_button, Qt.MouseButton.LeftButton)
    assert finished.args[0].findings
    assert panel.tabs.currentIndex() == 2
    rows = [panel.findings.item(i).text() for i in range(panel.findings.count())]
    row = next(i for i, text in enumerate(rows) if "broken_link" in text and "Kayaks.md" in text)
    with qtbot.waitSignal(services.bridge.open_path, timeout=WAIT_MS) as opened:
        panel.open_finding(row)
    assert opened.args == [broken, None]
    # the lint pass is in the history now
    qtbot.waitUntil(lambda: panel.history.topLevelItemCount() > 0, timeout=WAIT_MS)
    assert panel.history.topLevelItem(0).text(1) == "lint"


def test_a_dry_run_started_elsewhere_shows_in_the_panel(qtbot, pane_services) -> None:
    services = pane_services
    seed(services.manager)
    panel = make_panel(qtbot, services)
    runner = services.runner
    with qtbot.waitSignal(services.bridge.dream_result, timeout=WAIT_MS):
        services.submit(runner.run_once(force=True, dry_run=True), label="Dream dry run")
    assert panel.last_dry_run is not None and panel.dry_diff.page_names()
    assert panel.tabs.currentIndex() == 1


def test_a_run_known_only_from_log_md_shows_unrecorded_pages(qtbot, pane_services) -> None:
    import datetime as dt

    services = pane_services
    seed(services.manager)
    services.manager.notebook.append_ingest(dt.date(2026, 7, 20), "2026-07-17", "consolidated by hand")
    panel = make_panel(qtbot, services)
    top = panel.history.topLevelItem(0)
    assert top.text(1) == "productive"
    assert top.text(2) == "2026-07-15 … 2026-07-17"
    assert top.text(3) == "—" and "not recorded" in top.toolTip(3)
    panel.history.setCurrentItem(top)
    assert panel.history_diff.page_names() == []
    assert "not recorded" in panel.history_diff.text.placeholderText()


def test_a_run_that_changed_nothing_shows_its_reason_in_the_history(qtbot, pane_services) -> None:
    from suzent_desktop.core.engines.dream.runs.run_state import load_state, save_state

    services = pane_services
    seed(services.manager)
    why = "the engine finished but no content page changed; the model's calls failed: write: missing argument 'content'"
    state = load_state(services.runner.state_path)
    state["history"].append({"ts": "2026-07-20T09:00:00+00:00", "date": "2026-07-20", "outcome": "no_change",
                             "batch": ["2026-07-15"], "pages_changed": [], "summary": "", "watermark": None,
                             "reason": why})
    save_state(services.runner.state_path, state)
    panel = make_panel(qtbot, services)
    top = panel.history.topLevelItem(0)
    assert top.text(4) == why and top.toolTip(4) == why
    panel.history.setCurrentItem(top)
    assert why in panel.history_diff.text.placeholderText()


def test_dream_now_with_consolidation_disabled_explains_and_offers_to_enable(qtbot, pane_services) -> None:
    from ui_support import FakePrompter

    services = pane_services
    seed(services.manager)
    services.manager.settings = services.settings.replace(memory_consolidation_enabled=False)
    panel = make_panel(qtbot, services)
    panel.prompter = FakePrompter()
    panel.prompter.confirm_answer = False
    messages: list[str] = []
    services.bridge.status_message.connect(messages.append)

    qtbot.mouseClick(panel.dream_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: any("Dream not run" in m for m in messages), timeout=WAIT_MS)
    assert panel.prompter.asked[0][0] == "Consolidation is turned off"
    assert "memory_consolidation_enabled" in panel.prompter.asked[0][1]
    assert services.manager.dreaming.watermark() is None and not services.settings.memory_consolidation_enabled

    panel.prompter.confirm_answer = True
    with qtbot.waitSignal(panel.run_finished, timeout=WAIT_MS) as finished:
        qtbot.mouseClick(panel.dream_button, Qt.MouseButton.LeftButton)
    assert finished.args[0].outcome == "productive", finished.args[0].reason
    assert services.settings.memory_consolidation_enabled
    from suzent_desktop.settings import load_settings

    assert load_settings(services.manager.layout.home).memory_consolidation_enabled


def test_facts_no_page_holds_are_listed_as_not_consolidated(qtbot, pane_services) -> None:
    async def junk_engine(batch, tools):
        from suzent_desktop.core.engines.dream.model import EngineReport

        tools.write("2_Wiki/Junk.md", "# Junk\n\nlorem ipsum\n")
        return EngineReport(summary="junk")

    services = pane_services
    seed(services.manager)
    services.runner.engine = junk_engine
    panel = make_panel(qtbot, services)
    assert panel.uncovered_label.text().startswith("none")
    with qtbot.waitSignal(panel.run_finished, timeout=WAIT_MS) as finished:
        qtbot.mouseClick(panel.dream_button, Qt.MouseButton.LeftButton)
    result = finished.args[0]
    # "User now works at Microsoft" stands on the Work page already ("works at Microsoft on cloud dashboards")
    assert result.outcome == "productive" and len(result.uncovered) == 4
    qtbot.waitUntil(lambda: panel.uncovered_label.text().startswith("4 facts"), timeout=WAIT_MS)
    assert "User moved to Redmond last spring" in panel.uncovered_label.toolTip()


def test_a_real_dream_clears_the_dry_run_it_made_stale(qtbot, pane_services) -> None:
    services = pane_services
    seed(services.manager)
    panel = make_panel(qtbot, services)
    with qtbot.waitSignal(panel.run_finished, timeout=WAIT_MS):
        qtbot.mouseClick(panel.dry_button, Qt.MouseButton.LeftButton)
    assert panel.dry_diff.page_names()
    with qtbot.waitSignal(panel.run_finished, timeout=WAIT_MS) as finished:
        qtbot.mouseClick(panel.dream_button, Qt.MouseButton.LeftButton)
    assert finished.args[0].outcome == "productive"
    assert panel.dry_diff.page_names() == [] and panel.last_dry_run is None
    assert "A dream ran since the last dry run" in panel.dry_summary.text()


def test_the_lint_header_says_clean_or_how_many_findings(qtbot, pane_services) -> None:
    from suzent_desktop.core.engines.dream.model import Finding, LintResult

    services = pane_services
    seed(services.manager)
    write_page(services.manager, "2_Wiki/Concepts/Kayaks.md", "# Kayaks\n\nSee [[Nowhere At All]].\n")
    panel = make_panel(qtbot, services)
    with qtbot.waitSignal(panel.lint_finished, timeout=WAIT_MS) as finished:
        qtbot.mouseClick(panel.lint_button, Qt.MouseButton.LeftButton)
    found = len(finished.args[0].findings)
    assert panel.lint_summary.text() == f"Lint: {found} finding{'s' if found > 1 else ''}"
    panel._show_lint(LintResult())
    assert panel.lint_summary.text() == "Lint: clean"
    panel._show_lint(LintResult([Finding("error", "", "lint failed: OSError: disk")], ok=False))
    assert panel.lint_summary.text() == "Lint: failed"


def test_a_due_dream_says_it_waits_for_nothing_but_the_next_check(qtbot, pane_services) -> None:
    import dataclasses

    services = pane_services
    seed(services.manager)
    panel = make_panel(qtbot, services)
    panel.gate = dataclasses.replace(panel.gate, due=True, reason="due")
    panel._show_status()
    minutes = services.settings.memory_consolidation_interval_seconds // 60
    assert panel.reason_label.text() == (
        f"not waiting: due, it starts at the schedule's next check (within {minutes} minutes)")


def test_dropped_facts_awaiting_a_word_are_counted_as_not_consolidated(qtbot, pane_services) -> None:
    from suzent_desktop.core.index import dropped

    services = pane_services
    layout = services.manager.layout
    dropped.record(layout, [dropped.DroppedFact("2026-07-10", "User mentioned the weather in Hull", 5,
                                                "small talk about weather", "2026-07-20")])
    services.manager.notebook.append_ingest(services.manager.clock.today(), "2026-07-10", "consolidated")
    panel = make_panel(qtbot, services)
    qtbot.waitUntil(lambda: "1 dropped fact awaiting your confirmation" in panel.uncovered_label.text(), timeout=WAIT_MS)
