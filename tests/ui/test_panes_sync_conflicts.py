"""The Sync conflicts pane: the conflict copies a sync tool left, each one click from its diff."""

from __future__ import annotations

import panes_support
from panes_support import WAIT_MS, write_log, write_page

from suzent_desktop.ui.panes.sync_conflicts_pane import NONE_FOUND, SyncConflictsPane

pane_services = panes_support.pane_services


def test_lists_copies_and_markers_and_shows_the_diff(qtbot, pane_services) -> None:
    services = pane_services
    manager = services.manager
    pane = SyncConflictsPane(services)
    qtbot.addWidget(pane)
    pane.show()
    qtbot.waitUntil(lambda: pane.refresh_count > 0, timeout=WAIT_MS)
    assert pane.labels() == [] and pane.header.text() == NONE_FOUND

    write_page(manager, "3_Personal/Work.md", "# Work\n\n- User works at Acme\n")
    write_page(manager, "3_Personal/Work.sync-conflict-20260720-101010-ABCDEFG.md",
               "# Work\n\n- User works at Initech\n")
    write_page(manager, "2_Wiki/Tea.md", "# Tea\n<<<<<<< HEAD\nGreen\n=======\nBlack\n>>>>>>> laptop\n")
    log = write_log(manager, "2026-07-15", [("work", "User likes tea", ())])
    (log.parent / f"{log.name}.conflict1").write_text(log.read_text(encoding="utf-8") + "- User likes jazz\n")
    with qtbot.waitSignal(pane.refreshed, timeout=WAIT_MS):
        pane.refresh()
    assert pane.header.text() == "3 sync conflicts"
    labels = pane.labels()
    copy = next(label for label in labels if "sync-conflict" in label)
    pane.diffs.select_page(copy)
    assert "-- User works at Acme" in pane.diffs.diff_text() and "+- User works at Initech" in pane.diffs.diff_text()
    assert "compare the two" in pane.note.text()
    pane.diffs.select_page(next(label for label in labels if label.endswith(".conflict1")))
    assert "+- User likes jazz" in pane.diffs.diff_text() and "read with the original's" in pane.note.text()
    with qtbot.waitSignal(pane.open_requested, timeout=WAIT_MS) as opened:
        pane.diffs.open_requested.emit(copy)
    assert opened.args[0].name.startswith("Work.sync-conflict")
