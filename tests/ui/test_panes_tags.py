"""Tags pane: counts and nesting, clicks that search, following file events without a rescan."""

from __future__ import annotations

from pathlib import Path

import panes_support
import pytest
from panes_support import WAIT_MS, run, write_page
from PySide6.QtCore import Qt

from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.ui.panes.search_pane import SearchPane
from suzent_desktop.ui.panes.tags import TagsPane

pane_services = panes_support.pane_services


@pytest.fixture
def tagged(pane_services):
    manager = pane_services.manager
    write_page(manager, "3_Personal/Japan.md", "---\ntags: [trip/japan, Food]\n---\n# Japan\n\nGreen tea in Uji.\n")
    write_page(manager, "3_Personal/Lisbon.md", "# Lisbon\n\nA conference #trip and #work, then #food.\n")
    write_page(manager, "2_Areas/Code.md", "# Code\n\n```\n#notatag\n```\n\nSee `#inline` and [[#heading]]. #work\n")
    return pane_services


def make_pane(qtbot, services) -> TagsPane:
    pane = TagsPane(services)
    qtbot.addWidget(pane)
    with qtbot.waitSignal(pane.refreshed, timeout=WAIT_MS):
        pane.show()  # the first read starts when the pane is shown, in a worker thread
    return pane


def test_tags_with_page_counts_and_nested_tags_as_a_tree(qtbot, tagged) -> None:
    pane = make_pane(qtbot, tagged)
    assert pane.counts() == {"trip": 2, "trip/japan": 1, "Food": 2, "work": 2}
    top = [pane.tree.topLevelItem(i).text(0) for i in range(pane.tree.topLevelItemCount())]
    assert top == ["#Food", "#trip", "#work"]  # case-insensitive order, first spelling shown
    trip = pane.item_for("trip")
    assert trip.childCount() == 1 and trip.child(0).text(0) == "#japan" and trip.child(0).text(1) == "1"
    assert pane.summary.text() == "4 tags on 3 pages"


def test_keyboard_and_click_on_a_tag_ask_for_a_tag_search(qtbot, tagged) -> None:
    pane = make_pane(qtbot, tagged)
    pane.tree.setFocus()
    pane.tree.setCurrentItem(pane.item_for("trip"))
    qtbot.keyClick(pane.tree, Qt.Key.Key_Right)  # expand
    qtbot.keyClick(pane.tree, Qt.Key.Key_Down)  # to #japan
    assert pane.tree.currentItem().text(0) == "#japan"
    with qtbot.waitSignal(pane.tag_chosen, timeout=WAIT_MS) as chosen:
        qtbot.keyClick(pane.tree, Qt.Key.Key_Return)
    assert chosen.args == ["trip/japan"]
    work = pane.item_for("work")
    with qtbot.waitSignal(pane.tag_chosen, timeout=WAIT_MS) as chosen:
        qtbot.mouseClick(pane.tree.viewport(), Qt.MouseButton.LeftButton, pos=pane.tree.visualItemRect(work).center())
    assert chosen.args == ["work"]


def test_a_clicked_tag_lists_its_pages_in_the_search_pane(qtbot, tagged) -> None:
    run(qtbot, tagged.manager.indexing.reindex())
    tags = make_pane(qtbot, tagged)
    search = SearchPane(tagged)
    qtbot.addWidget(search)
    search.show()
    tags.tag_chosen.connect(search.search_tag)  # as the window wires them
    with qtbot.waitSignal(search.searched, timeout=WAIT_MS):
        qtbot.mouseClick(tags.tree.viewport(), Qt.MouseButton.LeftButton,
                         pos=tags.tree.visualItemRect(tags.item_for("trip")).center())
    assert search.query_edit.text() == "tag:trip"
    assert sorted(Path(h.path).name for h in search.hits()) == ["Japan.md", "Lisbon.md"]


def test_file_events_update_the_tags_without_walking_the_vault(qtbot, tagged, monkeypatch) -> None:
    pane = make_pane(qtbot, tagged)
    vault = tagged.manager.vault
    assert vault.walks == 1
    new = write_page(tagged.manager, "0_Inbox/Idea.md", "An idea #trip/kyoto and #Draft\n")
    lisbon = tagged.manager.layout.notebook_dir / "3_Personal/Lisbon.md"
    lisbon.unlink()
    with qtbot.waitSignal(pane.refreshed, timeout=WAIT_MS):
        tagged.bridge.changed.emit(ChangeSet(pages={new, lisbon}))
    assert pane.counts() == {"trip": 2, "trip/japan": 1, "trip/kyoto": 1, "Food": 1, "work": 1, "Draft": 1}
    trash = tagged.manager.layout.notebook_dir / "3_Personal"
    for page in trash.glob("*.md"):
        page.unlink()
    with qtbot.waitSignal(pane.refreshed, timeout=WAIT_MS):
        tagged.bridge.changed.emit(ChangeSet(pages={trash}))  # a folder gone whole
    assert pane.counts() == {"trip": 1, "trip/kyoto": 1, "work": 1, "Draft": 1}
    assert vault.walks == 1  # the vault was walked once, for the first look
