"""Unlinked mentions in the backlinks pane: listed, linked with the Link button, undone with Ctrl+Z."""

from __future__ import annotations

import panes_support
from panes_support import WAIT_MS, write_page
from PySide6.QtCore import Qt

from suzent_desktop.ui.panes.backlinks import BacklinksPane

pane_services = panes_support.pane_services


def make_pane(qtbot, services, page) -> BacklinksPane:
    pane = BacklinksPane(services)
    qtbot.addWidget(pane)
    pane.show()
    with qtbot.waitSignal(pane.refreshed, timeout=WAIT_MS):
        pane.set_page(page)
    return pane


def test_mentions_are_listed_linked_by_a_click_and_undone_with_ctrl_z(qtbot, pane_services) -> None:
    manager = pane_services.manager
    kyoto = write_page(manager, "2_Wiki/Kyoto.md", "---\naliases: [Kyo]\n---\n# Kyoto\n\nTemples.\n")
    trip = write_page(manager, "3_Personal/Trip.md",
                      "# Trip\n\nWe stayed in kyoto for a week.\n\n`Kyoto` in code, [[Kyoto]] linked, #kyoto tag.\n")
    notes = write_page(manager, "0_Inbox/Notes.md", "Kyo is what friends call it.\n")
    write_page(manager, "0_Inbox/Other.md", "Nothing to see.\n")
    pane = make_pane(qtbot, pane_services, kyoto)

    assert [(m.path, m.line, m.text) for m in pane.mentions] == [(notes, 1, "Kyo"), (trip, 3, "kyoto")]
    assert pane.mentions_label.text() == "Unlinked mentions (2)"
    assert pane.backlink_sources() == [trip]

    with qtbot.waitSignal(pane.refreshed, timeout=WAIT_MS):  # the write's change-set refreshes the pane
        qtbot.mouseClick(pane.link_button(1), Qt.MouseButton.LeftButton)
    assert trip.read_text(encoding="utf-8").splitlines()[2] == "We stayed in [[Kyoto|kyoto]] for a week."
    assert [m.path for m in pane.mentions] == [notes]
    assert sorted(pane.backlink_sources()) == [trip]  # still one backlink page; the new link resolves to Kyoto

    with qtbot.waitSignal(pane.refreshed, timeout=WAIT_MS):
        qtbot.mouseClick(pane.link_button(0), Qt.MouseButton.LeftButton)
    assert notes.read_text(encoding="utf-8") == "[[Kyoto|Kyo]] is what friends call it.\n"
    assert pane.mentions == [] and sorted(pane.backlink_sources()) == sorted([notes, trip])

    pane.mentions_list.setFocus()
    with qtbot.waitSignal(pane.refreshed, timeout=WAIT_MS):
        qtbot.keyClick(pane.mentions_list, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert notes.read_text(encoding="utf-8") == "Kyo is what friends call it.\n"
    assert [m.path for m in pane.mentions] == [notes]
    with qtbot.waitSignal(pane.refreshed, timeout=WAIT_MS):
        qtbot.mouseClick(pane.undo_button, Qt.MouseButton.LeftButton)
    assert "We stayed in kyoto for a week." in trip.read_text(encoding="utf-8")
    assert not pane.undo_button.isEnabled()


def test_a_page_changed_under_the_list_is_not_edited(qtbot, pane_services) -> None:
    manager = pane_services.manager
    kyoto = write_page(manager, "2_Wiki/Kyoto.md", "# Kyoto\n")
    trip = write_page(manager, "3_Personal/Trip.md", "Kyoto trip.\n")
    pane = make_pane(qtbot, pane_services, kyoto)
    trip.write_text("A new first line.\nKyoto trip.\n", encoding="utf-8")  # edited elsewhere, no event yet
    with qtbot.waitSignal(pane_services.bridge.status_message, timeout=WAIT_MS) as said:
        qtbot.mouseClick(pane.link_button(0), Qt.MouseButton.LeftButton)
    assert "changed since" in said.args[0]
    assert trip.read_text(encoding="utf-8") == "A new first line.\nKyoto trip.\n"
    qtbot.waitUntil(lambda: [m.line for m in pane.mentions] == [2], timeout=WAIT_MS)  # listed again as it is


def test_a_link_made_in_the_pane_reaches_the_other_views_and_its_echo_is_ignored(qtbot, pane_services) -> None:
    manager = pane_services.manager
    kyoto = write_page(manager, "2_Wiki/Kyoto.md", "# Kyoto\n")
    write_page(manager, "3_Personal/Trip.md", "We stayed in kyoto.\n")
    pane = make_pane(qtbot, pane_services, kyoto)
    seen = []
    pane_services.bridge.changed.connect(seen.append)
    jobs = []
    real_run_job = pane.run_job
    pane.run_job = lambda key, coro, **kw: jobs.append(key) or real_run_job(key, coro, **kw)
    with qtbot.waitSignal(pane.refreshed, timeout=WAIT_MS):
        qtbot.mouseClick(pane.link_button(0), Qt.MouseButton.LeftButton)
    assert seen and seen[-1].initiator == pane.initiator  # the other panes were told, naming who made it
    assert jobs == ["refresh"]  # one refresh: the pane's own, not a second one for the echo
