"""Search pane: as-you-type search, opening a hit, forgetting it, the dirty-index notice."""

from __future__ import annotations

from pathlib import Path

import panes_support
from panes_support import WAIT_MS, run, seed, wait_task, write_page
from PySide6.QtCore import Qt

from suzent_desktop.ui.dialogs.forget_dialog import ForgetChoice, ForgetDialog
from suzent_desktop.ui.panes.common import highlight
from suzent_desktop.ui.panes.search_pane import SearchPane

# fixtures shared by the pane tests
pane_services = panes_support.pane_services


def make_pane(qtbot, services) -> SearchPane:
    pane = SearchPane(services)
    qtbot.addWidget(pane)
    pane.show()
    qtbot.waitUntil(lambda: pane.refresh_count > 0, timeout=WAIT_MS)
    return pane


def search(qtbot, pane: SearchPane, text: str) -> list:
    with qtbot.waitSignal(pane.searched, timeout=WAIT_MS):
        pane.set_query(text)  # typed: the debounce timer fires the query
    return pane.hits()


def test_highlight_marks_every_query_word_and_escapes_html() -> None:
    out = highlight("User prefers <b>compact</b> dashboards", "compact DASHBOARDS")
    assert out.count("background-color") == 2
    assert "&lt;b&gt;" in out


def test_highlight_skips_stopwords_and_matches_stems() -> None:
    out = highlight("User worked at the Contoso office", "where does the user work")
    assert out.count("background-color") == 1
    assert ">worked</span>" in out and ">the</span>" not in out and ">User</span>" not in out


def test_search_and_open_a_hit(qtbot, pane_services) -> None:
    services = pane_services
    paths = seed(services.manager)
    run(qtbot, services.manager.indexing.reindex())
    pane = make_pane(qtbot, services)

    hits = search(qtbot, pane, "compact dashboards")
    assert hits, "the seeded fact should be found"
    row = next(i for i, h in enumerate(hits) if "compact dashboards" in h.text)
    hit = hits[row]
    assert Path(hit.path) == paths["log15"]
    assert hit.line is not None
    assert "background-color" in pane.hit_label(row)  # the match is highlighted
    assert "2026-07-15" in pane.hit_label(row)  # the source's date is shown

    with qtbot.waitSignal(services.bridge.open_path, timeout=WAIT_MS) as opened:
        pane.open_hit(row)
    assert opened.args == [paths["log15"], hit.line]
    # the line really holds the fact
    lines = paths["log15"].read_text(encoding="utf-8").splitlines()
    assert "compact dashboards" in lines[hit.line - 1]


def test_source_filter_limits_hits(qtbot, pane_services) -> None:
    services = pane_services
    seed(services.manager)
    run(qtbot, services.manager.indexing.reindex())
    pane = make_pane(qtbot, services)
    pane.source_box.setCurrentIndex(pane.source_box.findData("notebook"))
    hits = search(qtbot, pane, "Microsoft")
    assert hits and all(h.source_type == "notebook" for h in hits)


def test_forget_a_hit_gone_at_once_and_after_full_reindex(qtbot, pane_services) -> None:
    services = pane_services
    seed(services.manager)
    run(qtbot, services.manager.indexing.reindex())
    pane = make_pane(qtbot, services)
    hits = search(qtbot, pane, "compact dashboards")
    row = next(i for i, h in enumerate(hits) if "compact dashboards" in h.text)
    text = hits[row].text

    pane.choose_units = lambda units, notes: ForgetChoice()  # the user cancels: nothing happens
    assert pane.forget_hit(row) is None
    assert any(h.text == text for h in pane.hits())

    asked: list[list[str]] = []
    pane.choose_units = lambda units, notes: asked.append(units) or ForgetChoice(units)
    task = pane.forget_hit(row)
    assert asked == [["User prefers compact dashboards"]]
    assert all(h.text != text for h in pane.hits())  # gone at once, before the engine answered
    wait_task(qtbot, task)
    assert services.manager.tombstones.is_tombstoned(text)

    run(qtbot, services.manager.indexing.reindex(full=True))
    hits = search(qtbot, pane, "compact dashboards prefers")
    assert all("compact dashboards" not in h.text for h in hits)


def test_forget_a_two_paragraph_hit_through_the_dialog(qtbot, pane_services) -> None:
    services = pane_services
    page = write_page(
        services.manager,
        "3_Personal/Preferences.md",
        "# Preferences\n\n## Travel\n- User prefers window seats on flights\n\n"  # undated: prose, one row
        "Allergies are on [[Health]]. See also [[Work]].\n",
    )
    run(qtbot, services.manager.indexing.reindex())
    pane = make_pane(qtbot, services)
    hits = search(qtbot, pane, "window seats flights")
    row = next(i for i, h in enumerate(hits) if "window seats" in h.text)
    assert "Allergies" in hits[row].text  # one hit, two paragraphs

    shown: list[list[str]] = []

    def answer(units: list[str], notes: list[str]) -> ForgetChoice:
        dialog = ForgetDialog(units, notes=notes)  # the real dialog, driven as a user would
        qtbot.addWidget(dialog)
        shown.append(dialog.shown())
        dialog.lines.item(1).setCheckState(Qt.CheckState.Unchecked)
        assert dialog.forget_button.isEnabled()
        dialog.lines.item(0).setCheckState(Qt.CheckState.Unchecked)
        assert not dialog.forget_button.isEnabled()  # nothing chosen: nothing to forget
        dialog.lines.item(0).setCheckState(Qt.CheckState.Checked)
        dialog.lines.item(1).setCheckState(Qt.CheckState.Checked)
        assert not dialog.memory_only.isVisibleTo(dialog)  # the app's own page: nothing to choose
        dialog.forget_button.click()
        return dialog.choice()

    pane.choose_units = answer
    with qtbot.waitSignal(pane.searched, timeout=WAIT_MS):  # the list refreshes after the forget
        wait_task(qtbot, pane.forget_hit(row))
    assert shown == [["User prefers window seats on flights", "Allergies are on [[Health]]. See also [[Work]]."]]
    assert not any("window seats" in h.text or "Allergies" in h.text for h in pane.hits())
    assert "window seats" not in page.read_text(encoding="utf-8")

    run(qtbot, services.manager.indexing.reindex(full=True))
    hits = search(qtbot, pane, "window seats flights allergies")
    assert not any("window seats" in h.text or "Allergies" in h.text for h in hits)


def test_dirty_index_notice_after_an_external_write(qtbot, pane_services) -> None:
    services = pane_services
    seed(services.manager)
    run(qtbot, services.manager.indexing.reindex())
    pane = make_pane(qtbot, services)
    search(qtbot, pane, "Redmond")
    assert pane.stale_label.isHidden()

    write_page(services.manager, "2_Wiki/Concepts/Kayaks.md", "# Kayaks\n\nSea kayaks are long and narrow.\n")
    search(qtbot, pane, "kayaks")
    assert not pane.stale_label.isHidden()
    assert "index is behind the files (1 waiting)" in pane.stale_label.text()

    wait_task(qtbot, services.reindex())  # broadcasts the change-set; the pane re-checks
    qtbot.waitUntil(lambda: pane.stale_label.isHidden(), timeout=WAIT_MS)


def test_stale_count_from_the_bus(qtbot, pane_services) -> None:
    pane = make_pane(qtbot, pane_services)
    pane_services.bridge.index_stale.emit(3)
    assert "(3 waiting)" in pane.stale_label.text() and not pane.stale_label.isHidden()
    pane_services.bridge.index_stale.emit(0)
    assert pane.stale_label.isHidden()


def test_transcript_filter_and_a_hit_opens_at_its_turn(qtbot, pane_services) -> None:
    import datetime as dt

    services = pane_services
    manager = services.manager
    for hour, words in ((9, "We visited the glass museum in Murano"), (10, "The vaporetto was packed")):
        when = dt.datetime(2026, 7, 18, hour, 0)
        run(qtbot, manager.process_conversation_turn_for_memories(words, "Sounds fun", "s1", when))
    pane = make_pane(qtbot, services)
    pane.source_box.setCurrentIndex(pane.source_box.findData("transcript"))
    hits = search(qtbot, pane, "vaporetto packed")
    assert hits and all(h.source_type == "transcript" for h in hits)
    assert "Transcript" in pane.hit_label(0)
    with qtbot.waitSignal(services.bridge.open_path, timeout=WAIT_MS) as opened:
        pane.open_hit(0)
    path, line = opened.args
    assert path == manager.layout.transcript("2026-07-18")
    assert "vaporetto" in path.read_text(encoding="utf-8").splitlines()[line - 1]


def test_superseded_hit_shows_its_date_the_current_value_and_every_place(qtbot, pane_services) -> None:
    services = pane_services
    work = write_page(
        services.manager,
        "3_Personal/Work.md",
        "# Work\n\n- User now works at Microsoft on the search team (2026-07-10)\n"
        "- User's manager is Daniel Okafor (2026-07-11)\n\n## History\n\n"
        "- ~~User works at Contoso as a data engineer~~ (2026-06-01, until 2026-07-10)\n",
    )
    services.manager.layout.memory_dir.mkdir(parents=True, exist_ok=True)
    services.manager.layout.memory_md.write_text(
        "# Memory\n\n- User now works at Microsoft on the search team\n", encoding="utf-8"
    )
    run(qtbot, services.manager.indexing.reindex())
    pane = make_pane(qtbot, services)
    hits = search(qtbot, pane, "where does the user work")
    assert hits[0].text == "User now works at Microsoft on the search team"
    first = pane.hit_label(0)
    assert "2026-07-10" in first and "Also in: MEMORY.md:3" in first
    assert ">works</span>" in first and ">User</span>" not in first
    old = next(i for i, h in enumerate(hits) if h.superseded)
    label = pane.hit_label(old)
    assert "(superseded on 2026-07-10)" in label and "2026-06-01" in label
    assert "Now: User now works at Microsoft on the search team" in label
    with qtbot.waitSignal(services.bridge.open_path, timeout=WAIT_MS) as opened:
        pane.open_current(old)
    assert opened.args == [work, 3]


def test_typed_operators_filter_hits_and_are_not_highlighted(qtbot, pane_services) -> None:
    services = pane_services
    seed(services.manager)
    write_page(services.manager, "3_Personal/Pets.md", "---\ntags: [pets/cats]\n---\n# Pets\n\nThe user's cat Pixel sleeps all day.\n")
    run(qtbot, services.manager.indexing.reindex())
    pane = make_pane(qtbot, services)
    pane.query_edit.setFocus()
    with qtbot.waitSignal(pane.searched, timeout=WAIT_MS):
        qtbot.keyClicks(pane.query_edit, "cat tag:pets")
        qtbot.keyClick(pane.query_edit, Qt.Key.Key_Return)
    assert [Path(h.path).name for h in pane.hits()] == ["Pets.md"]
    assert "tag:" not in pane.hit_label(0) and ">cat</span>" in pane.hit_label(0)
    with qtbot.waitSignal(pane.searched, timeout=WAIT_MS):
        pane.search_tag("pets/cats")  # what a click in the tags pane runs
    assert pane.query_edit.text() == "tag:pets/cats"
    assert [Path(h.path).name for h in pane.hits()] == ["Pets.md"] and pane.empty_label.text() == "1 page"


def test_searching_never_walks_the_vault_while_a_watcher_reports_changes(qtbot, pane_services, monkeypatch) -> None:
    from suzent_desktop.core.vault import model as indexer_module

    services = pane_services
    seed(services.manager)
    indexer = services.manager.indexer
    indexer.watch(True)  # what the window does once its watcher is in place
    run(qtbot, services.manager.indexing.reindex())
    walks: list = []
    real_walk = indexer_module._walk_entries
    monkeypatch.setattr(indexer_module, "_walk_entries", lambda *args: walks.append(args) or real_walk(*args))
    pane = make_pane(qtbot, services)
    search(qtbot, pane, "Redmond")
    assert pane.stale_label.isHidden()
    kayaks = write_page(services.manager, "2_Wiki/Concepts/Kayaks.md", "# Kayaks\n\nSea kayaks are long and narrow.\n")
    indexer.note_changed([kayaks])  # the watcher's event
    search(qtbot, pane, "kayaks")
    assert "(1 waiting)" in pane.stale_label.text()
    assert walks == []


def test_forgetting_a_hit_in_a_note_the_person_wrote_asks_first(qtbot, loop, tmp_path: Path, monkeypatch) -> None:
    """In a vault the app was opened on, the dialog offers memory only (the default) or the note too."""
    from suzent_desktop.core.files.paths.vaults import vault_home
    from suzent_desktop.ui.base.services import AppServices

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    vault = tmp_path / "vault"
    (vault / "Plugins").mkdir(parents=True)
    note = vault / "Plugins" / "Graph view.md"
    note.write_text("# Graph view\n\nThe graph view shows how your notes link to one another.\n\nFilters narrow it.\n",
                    encoding="utf-8")
    before = note.read_bytes()
    services = AppServices.open(vault_home(vault))
    try:
        run(qtbot, services.manager.indexing.reindex())
        pane = make_pane(qtbot, services)
        asked: list[list[str]] = []

        def answer(also_the_note: bool):  # noqa: ANN202 - the real dialog, driven as a user would
            def drive(units: list[str], notes: list[str]) -> ForgetChoice:
                dialog = ForgetDialog(units, notes=notes)
                qtbot.addWidget(dialog)
                asked.append(notes)
                assert dialog.memory_only.isVisibleTo(dialog) and dialog.memory_only.isChecked()
                if also_the_note:
                    dialog.also_notes.click()
                dialog.forget_button.click()
                return dialog.choice()
            return drive

        for also_the_note, query in ((False, "graph view notes link"), (True, "how notes link in the graph")):
            hits = search(qtbot, pane, query)
            row = next(i for i, h in enumerate(hits) if "link to one another" in h.text)
            pane.choose_units = answer(also_the_note)
            with qtbot.waitSignal(pane.searched, timeout=WAIT_MS):
                wait_task(qtbot, pane.forget_hit(row))
            assert asked[-1] == ["Plugins/Graph view.md"]
            assert not any("link to one another" in h.text for h in pane.hits())  # out of search either way
            if not also_the_note:
                assert note.read_bytes() == before  # memory only: the person's words stay as written
                run(qtbot, services.manager.forgetting.undo("The graph view shows how your notes link to one another."))
        assert b"link to one another" not in note.read_bytes() and b"Filters narrow it." in note.read_bytes()
    finally:
        run(qtbot, services.shutdown())
