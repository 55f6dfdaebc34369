"""The Review pane's keys and approval flow, the provenance card, and pages that stay clean."""

from __future__ import annotations

import datetime as dt
import re

import panes_support
import pytest
from markdown_it import MarkdownIt
from panes_support import WAIT_MS, run
from PySide6.QtCore import Qt

from suzent_desktop.ui.panes.review_pane import ReviewPane
from suzent_desktop.ui.panes.source_pane import SourcePane

pane_services = panes_support.pane_services

TURNS = [
    ("I have a greyhound named Biscuit.", 8),
    ("I work at Contoso as a data engineer.", 9),
    ("I prefer dark mode in every editor.", 10),
    ("I live in Seattle.", 11),
]


def dream_over(qtbot, manager) -> list[str]:
    ids = []
    for text, hour in TURNS:
        facts, _ = run(qtbot, manager.process_conversation_turn_for_memories(
            text, "Noted.", "sess-1", dt.datetime(2026, 7, 10, hour)))
        ids.append(facts[0].turn)
    run(qtbot, manager.dreaming.runner().run_once(force=True))
    return ids


def make_pane(qtbot, services) -> ReviewPane:
    pane = ReviewPane(services)
    qtbot.addWidget(pane)
    pane.show()
    qtbot.waitUntil(lambda: pane.refresh_count > 0, timeout=WAIT_MS)
    return pane


def texts(pane: ReviewPane, kind: str = "added") -> list[str]:
    rows = [pane.list.topLevelItem(i) for i in range(pane.list.topLevelItemCount())]
    return [r.text(0) for r in rows if r.text(1) == kind]


def row_of(pane: ReviewPane, text: str, kind: str = "added"):
    return next(r for r in pane.list.findItems(text, Qt.MatchFlag.MatchExactly, 0) if r.text(1) == kind)


def test_keys_move_keep_forget_and_edit(qtbot, pane_services) -> None:
    manager = pane_services.manager
    dream_over(qtbot, manager)
    pane = make_pane(qtbot, pane_services)
    pane.list.setFocus()
    assert "User works at Contoso as a data engineer" in texts(pane)
    first, second = [pane.list.topLevelItem(i).text(0) for i in range(2)]
    qtbot.keyClick(pane.list, Qt.Key.Key_N)
    assert pane.current().text == second
    qtbot.keyClick(pane.list, Qt.Key.Key_P)
    assert pane.current().text == first
    with qtbot.waitSignal(pane.card_shown, timeout=WAIT_MS):
        pane.list.setCurrentItem(row_of(pane, "User works at Contoso as a data engineer"))
    assert "I work at Contoso as a data engineer." in pane.card.toPlainText()
    before = len(pane.items)
    with qtbot.waitSignal(pane.count_changed, timeout=WAIT_MS) as counted:
        qtbot.keyClick(pane.list, Qt.Key.Key_K)
    assert counted.args == [before - 1] and "User works at Contoso as a data engineer" not in texts(pane)
    qtbot.waitUntil(lambda: pane.job("keep").done(), timeout=WAIT_MS)
    assert "User works at Contoso as a data engineer" not in [
        i.text for i in manager.reviewing.items() if i.kind == "added"]

    pane.list.setCurrentItem(row_of(pane, "User prefers dark mode in every editor"))
    pane.confirm = lambda _title, _text: True
    qtbot.keyClick(pane.list, Qt.Key.Key_F)
    qtbot.waitUntil(lambda: pane.job("forget").done(), timeout=WAIT_MS)
    assert manager.tombstones.is_tombstoned("User prefers dark mode in every editor")

    row = row_of(pane, "User lives in Seattle")
    pane.list.setCurrentItem(row)
    qtbot.keyClick(pane.list, Qt.Key.Key_E)
    assert pane.list.state() == pane.list.State.EditingState
    editor = pane.list.focusWidget()
    editor.selectAll()
    qtbot.keyClicks(editor, "User lives in Seattle, in Capitol Hill")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: pane.job("edit") is not None and pane.job("edit").done(), timeout=WAIT_MS)
    page = next(p for p in manager.layout.notebook_dir.rglob("*.md") if "Capitol Hill" in p.read_text())
    assert "- User lives in Seattle, in Capitol Hill (2026-07-10)" in page.read_text()


def test_mark_all_and_the_memory_md_approval_flow(qtbot, loop, home) -> None:
    (home / "config.toml").write_text("memory_md_needs_approval = true\n")
    from suzent_desktop.ui.base.services import AppServices

    services = AppServices.open(home)
    try:
        manager = services.manager
        dream_over(qtbot, manager)
        memory = manager.layout.memory_md
        assert "Contoso" not in memory.read_text()
        pane = make_pane(qtbot, services)
        assert pane.accept_button.isVisible() and "waits for approval" in pane.summary.text()
        assert any(pane.list.topLevelItem(i).text(1) == "MEMORY.md +" for i in range(pane.list.topLevelItemCount()))
        with qtbot.waitSignal(pane.refreshed, timeout=WAIT_MS):
            qtbot.mouseClick(pane.accept_button, Qt.MouseButton.LeftButton)
        assert "Contoso" in memory.read_text() and not pane.accept_button.isVisible()
        with qtbot.waitSignal(pane.refreshed, timeout=WAIT_MS):
            qtbot.mouseClick(pane.all_button, Qt.MouseButton.LeftButton)
        assert pane.items == [] and pane.hint.isVisible()
    finally:
        run(qtbot, services.shutdown())


def test_the_source_card_for_a_line_and_for_a_hit(qtbot, pane_services) -> None:
    manager = pane_services.manager
    ids = dream_over(qtbot, manager)
    pane = SourcePane(pane_services)
    qtbot.addWidget(pane)
    pane.show()
    work = manager.layout.notebook_dir / "3_Personal" / "Work.md"
    line = next(n for n, text in enumerate(work.read_text().splitlines(), start=1) if "Contoso" in text)
    with qtbot.waitSignal(pane.card_shown, timeout=WAIT_MS):
        pane.show_line(work, line)
    shown = pane.card.toPlainText()
    assert "user, 2026-07-10 09:00: I work at Contoso as a data engineer." in shown
    assert "before (2026-07-10 08:00) user: I have a greyhound named Biscuit." in shown
    assert "Open in transcript" in shown
    dialog = pane.card.open_transcript(0)
    qtbot.addWidget(dialog)
    assert "greyhound" in dialog.browser.toPlainText() and ids[1]
    response = run(qtbot, manager.searching.search("Contoso data engineer", limit=5, record_recall=False))
    with qtbot.waitSignal(pane.card_shown, timeout=WAIT_MS):
        pane.show_hit(response.hits[0])
    assert "I work at Contoso as a data engineer." in pane.card.toPlainText()
    memory = manager.layout.memory_md
    number = next(n for n, text in enumerate(memory.read_text().splitlines(), start=1) if "Contoso" in text)
    with qtbot.waitSignal(pane.card_shown, timeout=WAIT_MS):
        pane.show_line(memory, number)
    assert "I work at Contoso as a data engineer." in pane.card.toPlainText()
    assert "3_Personal/Work.md" in pane.card.toPlainText()  # the other place holding the fact


def test_a_page_with_provenance_reads_clean_in_a_plain_markdown_reader(qtbot, pane_services) -> None:
    manager = pane_services.manager
    ids = dream_over(qtbot, manager)
    from suzent_desktop.core.engines.provenance import load_record

    record = load_record(manager.layout)
    assert record.sources  # the page has provenance
    from suzent_desktop.ui.reading.markdown_render import render

    for page in manager.layout.notebook_dir.rglob("*.md"):
        if ".state" in page.parts:
            continue
        text = page.read_text()
        visible = re.sub(r"<[^>]+>", "", MarkdownIt("commonmark").render(text))
        reading = re.sub(r"<[^>]+>", "", render(text))
        for shown in (text, visible, reading):
            assert not any(turn in shown for turn in ids), page
            assert "turn:" not in shown and not re.search(r"\^[0-9a-z-]{4,}\s*$", shown, re.MULTILINE), page


def test_the_status_bar_counts_what_to_review(qtbot, window) -> None:
    label = window.review_label
    qtbot.waitUntil(lambda: label.isVisible(), timeout=WAIT_MS)
    assert re.fullmatch(r"\d+ to review", label.text())
    qtbot.mouseClick(label, Qt.MouseButton.LeftButton)
    assert window.docks["review"].isVisible()


@pytest.mark.parametrize("key", [Qt.Key.Key_J])
def test_j_moves_down_too(qtbot, pane_services, key) -> None:
    dream_over(qtbot, pane_services.manager)
    pane = make_pane(qtbot, pane_services)
    pane.list.setFocus()
    qtbot.keyClick(pane.list, key)
    assert pane.list.indexOfTopLevelItem(pane.list.currentItem()) == 1


def test_clicking_a_bullet_shows_its_card_in_the_source_pane(qtbot, window) -> None:
    window.show_dock("source")
    work = window.services.layout.notebook_dir / "3_Personal" / "Work.md"
    number = next(n for n, text in enumerate(work.read_text().splitlines(), start=1) if "Contoso" in text)
    window.open_path(work)
    editor = window.editors.current_editor()
    cursor = editor.source.textCursor()
    with qtbot.waitSignal(window.source_pane.card_shown, timeout=WAIT_MS):
        cursor.movePosition(cursor.MoveOperation.Start)
        cursor.movePosition(cursor.MoveOperation.Down, n=number - 1)
        editor.source.setTextCursor(cursor)
    shown = window.source_pane.card.toPlainText()
    assert "Contoso" in shown and "user, 20" in shown and "Open in transcript" in shown


def test_resting_the_mouse_on_a_bullet_shows_where_it_came_from(qtbot, window) -> None:
    from suzent_desktop.ui.page.provenance_hover import ProvenanceHover

    work = window.services.layout.notebook_dir / "3_Personal" / "Work.md"
    number = next(n for n, text in enumerate(work.read_text().splitlines(), start=1) if "Contoso" in text)
    window.open_path(work)
    editor = window.editors.current_editor()
    hover = editor.provenance_hover
    assert isinstance(hover, ProvenanceHover)
    block = editor.source.document().findBlockByNumber(number - 1)
    point = editor.source.blockBoundingGeometry(block).translated(editor.source.contentOffset()).center().toPoint()
    with qtbot.waitSignal(hover.shown, timeout=WAIT_MS) as shown:
        qtbot.mouseMove(editor.source.viewport(), point)
        hover.hover(point)  # offscreen platforms may deliver no move event
    assert "user</b>, 20" in shown.args[0] and "Contoso" in shown.args[0]
