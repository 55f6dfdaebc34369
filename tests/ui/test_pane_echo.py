"""A view that made a change shows it itself and ignores its echo on the bus; it still reacts to
the same kind of change made by another view (the change names its ``initiator``)."""

from __future__ import annotations

import panes_support
from panes_support import WAIT_MS, seed, wait_task
from ui_support import FakePrompter

from suzent_desktop.core import operations
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.ui.panes.daily_logs import DailyLogsPane
from suzent_desktop.ui.panes.tombstones_pane import TombstonesPane
from suzent_desktop.ui.window.vault_tree import VaultTree

pane_services = panes_support.pane_services


def shown(qtbot, pane):
    qtbot.addWidget(pane)
    pane.show()
    qtbot.waitUntil(lambda: pane.refresh_count > 0, timeout=WAIT_MS)
    asked: list[object] = []
    real = pane.request_refresh
    pane.request_refresh = lambda: asked.append(1) or real()  # called for each change-set the pane wants
    return asked


def test_a_pane_ignores_the_echo_of_its_own_forget_and_reacts_to_another_panes(qtbot, pane_services) -> None:
    services = pane_services
    seed(services.manager)
    logs, stones = DailyLogsPane(services), TombstonesPane(services)
    logs_asked, stones_asked = shown(qtbot, logs), shown(qtbot, stones)
    seen = []
    services.bridge.changed.connect(seen.append)

    with qtbot.waitSignal(logs.day_shown, timeout=WAIT_MS):
        logs.select_date("2026-07-15")
    logs.facts.setCurrentRow(logs.fact_rows()[0][0])
    logs.confirm = lambda *_: True
    with qtbot.waitSignal(stones.refreshed, timeout=WAIT_MS):  # the other pane hears of it
        wait_task(qtbot, logs.forget_selected())
    assert seen[-1].tombstones and seen[-1].initiator == logs.initiator
    assert logs_asked == [] and len(stones_asked) == 1  # its own echo: no reload
    assert "forgotten" in logs.fact_label(logs.fact_rows()[0][0])  # shown by the pane itself
    assert stones.contents() == ["user prefers compact dashboards"]

    stones.select("User prefers compact dashboards")
    stones.confirm = lambda *_: True
    with qtbot.waitSignal(logs.refreshed, timeout=WAIT_MS):  # now the logs pane is the other one
        wait_task(qtbot, stones.undo_selected())
    assert seen[-1].initiator == stones.initiator
    assert len(logs_asked) == 1 and len(stones_asked) == 1
    assert stones.contents() == []
    qtbot.waitUntil(lambda: "forgotten" not in logs.fact_label(logs.fact_rows()[0][0]), timeout=WAIT_MS)


def test_the_tree_shows_its_own_operation_once_and_another_views_too(qtbot, pane_services) -> None:
    services = pane_services
    tree = VaultTree(services, FakePrompter())
    qtbot.addWidget(tree)
    shows = []
    real = tree._show
    tree._show = lambda changes: shows.append(changes.initiator) or real(changes)
    root = tree.root

    page = tree.create_page(root, "Mine")
    assert page is not None and tree.item_for(page) is not None
    assert shows == [tree.initiator]  # shown when the operation returned; its echo was ignored

    other = operations.create_page(root, root, "Theirs", initiator="pane:elsewhere")
    assert other.initiator == "pane:elsewhere"
    services.apply(other)
    (theirs,) = other.added
    assert tree.item_for(theirs) is not None
    assert shows == [tree.initiator, "pane:elsewhere"]
    # the vault and index work both changes started ends before the tree and the services are torn down
    qtbot.waitUntil(lambda: not services._tasks, timeout=WAIT_MS)


def test_an_editors_save_names_the_editor_which_ignores_the_echo_while_the_panes_take_it(qtbot, window) -> None:  # noqa: ANN001
    page = window.services.layout.notebook_dir / "3_Personal" / "Work.md"
    window.open_path(page)
    editor = window.editors.current_editor()
    assert editor is not None and editor.path == page
    looked: list[object] = []
    real_look = editor.on_disk_changed
    editor.on_disk_changed = lambda: looked.append(1) or real_look()  # the editor reading its file again
    pane = window.sync_conflicts  # a pane that wants every change-set with pages
    pane_asked: list[object] = []
    real_ask = pane.request_refresh
    pane.request_refresh = lambda: pane_asked.append(1) or real_ask()
    seen = []
    window.services.bridge.changed.connect(seen.append)

    editor.set_text(editor.text() + "\nSaved from the editor.\n")
    with qtbot.waitSignal(editor.saved, timeout=WAIT_MS):
        window.actions_by_name["save"].trigger()

    saves = [c for c in seen if c.pages == {page}]
    assert len(saves) == 1 and saves[0].initiator == editor.initiator and editor.initiator
    assert looked == []  # its own echo: nothing read again
    assert pane_asked == [1]  # another view takes the change in
    # a change of the same page made by someone else still reaches the editor
    window.services.bridge.changed.emit(ChangeSet(pages={page}))
    assert looked == [1]
