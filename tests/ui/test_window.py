"""The main window on the demo home: opening, editing, saving, live tree, links, conflicts, closing."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from PySide6.QtCore import Qt, QUrl
from ui_support import WAIT_MS, run

from suzent_desktop.core.files.paths.layout import ZONES
from suzent_desktop.settings import load_settings


def page(window, rel: str) -> Path:
    return window.services.layout.notebook_dir / rel


INDEX_PAGE = "2_Wiki/Concepts/Lantern Index.md"
NOTES_PAGE = "3_Personal/Lantern Notes.md"


@pytest.fixture(autouse=True)
def pages(demo_home: Path) -> dict[str, Path]:
    """Two linked pages of our own on top of the demo vault (the demo's wording may change)."""
    notebook = demo_home / "notebook"
    index = notebook / INDEX_PAGE
    notes = notebook / NOTES_PAGE
    index.write_text(
        "# Lantern Index\n\nLanterns are indexed by the colour of their glass.\nEach colour has a shelf.\n\n"
        "## Details\n\nDetail text.\n",
        encoding="utf-8",
    )
    notes.write_text(
        "# Lantern Notes\n\nSee [[Lantern Index]] and [[Lantern Index#Details|the details]].\n\n"
        "Relative: [index](../2_Wiki/Concepts/Lantern%20Index.md)\n",
        encoding="utf-8",
    )
    return {"index": index, "notes": notes}


def open_page(qtbot, window, rel: str):
    item = window.tree.item_for(page(window, rel))
    assert item is not None, rel
    window.tree.setCurrentItem(item)
    window.tree.itemActivated.emit(item, 0)
    editor = window.editors.current_editor()
    assert editor is not None and editor.path == page(window, rel)
    qtbot.waitUntil(lambda: editor.last_html != "", timeout=WAIT_MS)  # rendered on the render thread
    return editor


def test_window_opens_before_the_index_with_zones_in_order(window) -> None:
    tree = window.tree
    top = [tree.topLevelItem(i).text(0) for i in range(tree.topLevelItemCount())]
    zones = [z for z in ZONES if "/" not in z]
    assert top[: len(zones)] == zones
    assert ".state" not in top and ".trash" not in top
    assert top[-3:] == ["index", "log", "schema"]  # root navigation files after the zones
    wiki = tree.item_for(page(window, "2_Wiki"))
    assert [wiki.child(i).text(0) for i in range(wiki.childCount())] == [
        "Concepts", "Literature", "Syntheses", "Entities"
    ]
    assert tree.item_for(page(window, ".state/tombstones.jsonl")) is None
    # Nothing has been indexed yet, and the editor already works.
    assert not window.services.busy
    assert window.services.layout.index_state_file.exists() is False


def test_background_index_reports_rows_in_status_bar(qtbot, window) -> None:
    window.start_background(watch=False, serve=False, index=True)
    assert window.services.busy  # indexing runs in the background; the window is already usable
    editor = open_page(qtbot, window, "3_Personal/Work.md")
    editor.set_text(editor.text() + "\nTyped while indexing.\n")
    qtbot.waitUntil(lambda: not window.services.busy, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "rows" in window.rows_label.text(), timeout=WAIT_MS)
    rows = int(window.rows_label.text().split()[1])
    assert rows > 10
    assert window.stale_label.text()  # "Index up to date" or the number of files waiting


def test_a_stopped_first_index_says_it_is_paused_and_resumes(qtbot, window) -> None:
    from suzent_desktop.ui.base.services import AppServices

    services = window.services
    messages: list[str] = []
    services.bridge.status_message.connect(messages.append)

    def stop_at_once(_label: str, _done: int, total: int) -> None:
        if total and services.busy:
            services.cancel_current()  # Cancel pressed as soon as the first pass shows its progress

    services.bridge.progress.connect(stop_at_once)
    window.start_background(watch=False, serve=False, index=True)
    qtbot.waitUntil(lambda: any(m.startswith("Indexing: ") for m in messages), timeout=WAIT_MS)
    services.bridge.progress.disconnect(stop_at_once)
    said = next(m for m in messages if m.startswith("Indexing: "))
    assert said.startswith("Indexing: paused") and "Indexing: done" not in messages, messages
    qtbot.waitUntil(lambda: "paused" in window.stale_label.text(), timeout=WAIT_MS)
    assert window.resume_button.isVisible()
    assert window.search_pane.stale_label.isVisible() and "paused" in window.search_pane.stale_label.text()

    # the next start resumes it
    again = AppServices.open(services.manager.layout.home)
    try:
        run(qtbot, again.reindex(full=False, walk=False))
        assert not again.index_paused and not again.manager.indexing.stale_paths()
        hits = run(qtbot, again.manager.searching.search("Contoso", record_recall=False)).hits
        assert hits
    finally:
        run(qtbot, again.shutdown())

    # and Resume, here, too
    qtbot.mouseClick(window.resume_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.resume_button.isVisible() and not services.busy, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "paused" not in window.stale_label.text(), timeout=WAIT_MS)
    assert not window.search_pane.stale_label.isVisible()


def test_select_edit_and_save_writes_the_file(qtbot, window) -> None:
    editor = open_page(qtbot, window, NOTES_PAGE)
    editor.set_text("# Places\n\n- User lives in Seattle.\n- User visits Lisbon every spring.\n")
    assert editor.dirty
    assert window.editors.tabText(window.editors.currentIndex()).startswith("●")
    with qtbot.waitSignal(editor.saved, timeout=WAIT_MS):
        window.actions_by_name["save"].trigger()
    assert "Lisbon" in page(window, NOTES_PAGE).read_text(encoding="utf-8")
    assert not editor.dirty
    assert window.editors.tabText(window.editors.currentIndex()) == "Lantern Notes"


def test_save_on_focus_loss(qtbot, window) -> None:
    editor = open_page(qtbot, window, NOTES_PAGE)
    editor.source.setFocus()
    qtbot.waitUntil(editor.source.hasFocus, timeout=WAIT_MS)
    editor.source.insertPlainText("Focus-loss edit. ")
    window.tree.setFocus()
    qtbot.waitUntil(lambda: not editor.dirty, timeout=WAIT_MS)
    assert "Focus-loss edit." in page(window, NOTES_PAGE).read_text(encoding="utf-8")


def test_tree_follows_external_writes_including_a_new_folder(qtbot, window) -> None:
    window.start_background(watch=True, serve=False, index=False)
    qtbot.waitUntil(lambda: window.watcher.ready, timeout=WAIT_MS)
    new_page = page(window, "0_Inbox/Shopping.md")
    new_page.write_text("# Shopping\n", encoding="utf-8")
    qtbot.waitUntil(lambda: window.tree.item_for(new_page) is not None, timeout=WAIT_MS)
    folder = page(window, "1_Projects/Garden")
    folder.mkdir()
    nested = folder / "Tomatoes.md"
    nested.write_text("# Tomatoes\n", encoding="utf-8")  # written right after mkdir
    qtbot.waitUntil(lambda: window.tree.item_for(nested) is not None, timeout=WAIT_MS)
    new_page.unlink()
    qtbot.waitUntil(lambda: window.tree.item_for(new_page) is None, timeout=WAIT_MS)


def test_wikilink_click_navigates_to_page_and_heading(qtbot, pages, window) -> None:
    run(qtbot, window.refresh_names())  # the vault model's names, as at start-up
    editor = open_page(qtbot, window, NOTES_PAGE)
    assert 'href="wikilink:Lantern%20Index#Details"' in editor.last_html
    editor.preview.anchorClicked.emit(QUrl("wikilink:Lantern%20Index#Details"))
    target = window.editors.current_editor()
    assert target.path == pages["index"]
    assert target.source.textCursor().block().text() == "## Details"
    assert window.tree.selected_path() == target.path
    window.actions_by_name["back"].trigger()
    assert window.editors.current_editor().path == editor.path
    window.actions_by_name["forward"].trigger()
    assert window.editors.current_editor().path == target.path


def test_missing_wikilink_offers_to_create_the_page(qtbot, window, prompter) -> None:
    editor = open_page(qtbot, window, INDEX_PAGE)
    editor.follow_link("wikilink:Bouldering%20gyms")
    created = page(window, "0_Inbox/Bouldering gyms.md")
    assert created.is_file()
    assert window.editors.current_editor().path == created
    assert prompter.asked[-1][0] == "Create page"


def test_external_change_while_dirty_offers_reload_keep_compare(qtbot, window) -> None:
    window.start_background(watch=True, serve=False, index=False)
    qtbot.waitUntil(lambda: window.watcher.ready, timeout=WAIT_MS)
    path = page(window, NOTES_PAGE)
    editor = open_page(qtbot, window, NOTES_PAGE)
    editor.set_text("# Places\n\nmy unsaved words\n")
    with qtbot.waitSignal(editor.conflict_raised, timeout=WAIT_MS):
        path.write_text("# Places\n\nwritten by another program\n", encoding="utf-8")
    assert editor.conflict_bar.isVisible()
    assert not editor.save()  # no silent overwrite while the choice is pending
    assert "another program" in path.read_text(encoding="utf-8")
    editor.resolve_conflict("keep")
    assert editor.text() == "# Places\n\nmy unsaved words\n" and editor.dirty
    assert editor.save()
    assert path.read_text(encoding="utf-8") == "# Places\n\nmy unsaved words\n"

    editor.set_text("# Places\n\nsecond draft\n")
    with qtbot.waitSignal(editor.conflict_raised, timeout=WAIT_MS):
        path.write_text("# Places\n\nthe other side again\n", encoding="utf-8")
    editor.resolve_conflict("reload")
    assert editor.text() == "# Places\n\nthe other side again\n"
    assert not editor.dirty and not editor.conflict_bar.isVisible()


def test_clean_editor_reloads_silently_on_external_change(qtbot, window) -> None:
    window.start_background(watch=True, serve=False, index=False)
    qtbot.waitUntil(lambda: window.watcher.ready, timeout=WAIT_MS)
    path = page(window, NOTES_PAGE)
    editor = open_page(qtbot, window, NOTES_PAGE)
    path.write_text("# Places\n\nUpdated elsewhere.\n", encoding="utf-8")
    qtbot.waitUntil(lambda: "Updated elsewhere." in editor.text(), timeout=WAIT_MS)
    assert editor.conflict is None and not editor.dirty


def test_rename_from_tree_keeps_links_and_follows_open_tab(qtbot, pages, window, prompter) -> None:
    editor = open_page(qtbot, window, INDEX_PAGE)
    notes_editor = open_page(qtbot, window, NOTES_PAGE)
    prompter.texts.append("Glass Catalogue")
    new = window.tree.rename(pages["index"])
    assert new == page(window, "2_Wiki/Concepts/Glass Catalogue.md") and new.is_file()
    assert not pages["index"].exists()
    notes = pages["notes"].read_text(encoding="utf-8")
    assert "[[Glass Catalogue]]" in notes and "[[Glass Catalogue#Details|the details]]" in notes
    assert "(../2_Wiki/Concepts/Glass%20Catalogue.md)" in notes and "Lantern Index" not in notes
    assert editor.path == new
    assert "[[Glass Catalogue]]" in notes_editor.text()  # the clean open tab picked up the rewrite
    assert window.tree.item_for(new) is not None


def test_delete_moves_to_trash_and_undo_restores(qtbot, window) -> None:
    path = page(window, INDEX_PAGE)
    record = window.tree.delete(path)
    assert record is not None and not path.exists() and record.trashed.is_file()
    assert ".trash" in record.trashed.parts
    assert window.tree.item_for(path) is None
    window.actions_by_name["undo_delete"].trigger()
    assert path.is_file() and window.tree.item_for(path) is not None


def test_open_path_signal_opens_at_a_line(qtbot, pages, window) -> None:
    window.bridge.open_path.emit(pages["index"], 6)
    editor = window.editors.current_editor()
    assert editor.path == pages["index"]
    assert editor.source.textCursor().blockNumber() == 5
    assert editor.source.textCursor().block().text() == "## Details"


def test_daily_logs_open_read_only(qtbot, window) -> None:
    layout = window.services.layout
    log = sorted(layout.archive_dir.glob("*.md"))[0]
    window.bridge.open_path.emit(log, 3)
    editor = window.editors.current_editor()
    assert editor.path == log and editor.read_only and editor.source.isReadOnly()


def test_forget_selected_paragraph_after_confirmation(qtbot, pages, window, prompter) -> None:
    editor = open_page(qtbot, window, INDEX_PAGE)
    editor.goto_line(4)
    paragraph = editor.current_paragraph()
    assert paragraph == "Lanterns are indexed by the colour of their glass.\nEach colour has a shelf."
    prompter.confirm_answer = False
    assert window.forget_text(paragraph) is None
    prompter.confirm_answer = True
    with qtbot.waitSignal(window.bridge.changed, timeout=WAIT_MS) as blocker:
        task = window.forget_text(paragraph)
    qtbot.waitUntil(task.done, timeout=WAIT_MS)
    assert prompter.asked[-1] == ("Forget", paragraph)  # the dialog's lines: this one paragraph
    assert blocker.args[0].tombstones
    stones = window.services.layout.tombstones_file.read_text(encoding="utf-8").splitlines()
    assert any(json.loads(line)["content"] == "lanterns are indexed by the colour of their glass. each colour has a shelf."
               for line in stones)


def test_quick_switcher_fuzzy_opens_a_page(qtbot, pages, window) -> None:
    run(qtbot, window.refresh_names())
    switcher = window.show_quick_switcher()
    qtbot.keyClicks(switcher.input, "lantidx")
    assert switcher.labels()[0].startswith("Lantern Index")
    qtbot.keyClick(switcher.input, "\r")
    assert window.editors.current_editor().path == pages["index"]


def test_command_palette_runs_an_action(qtbot, window) -> None:
    palette = window.show_command_palette()
    qtbot.keyClicks(palette.input, "daily logs")
    assert palette.labels()[0].startswith("Daily logs")
    qtbot.keyClick(palette.input, "\r")
    assert window.docks["logs"].isVisible()


def test_search_shortcut_focuses_the_search_pane(qtbot, window) -> None:
    window.activateWindow()
    window.actions_by_name["search"].trigger()
    assert window.docks["search"].isVisible()
    qtbot.waitUntil(lambda: window.search_pane.isAncestorOf(window.focusWidget() or window), timeout=WAIT_MS)


def test_settings_dialog_validates_and_writes_config(qtbot, window) -> None:
    dialog = window.show_settings()
    assert set(dialog.editors) >= {"notebook_path", "memory_consolidation_min_facts", "memory_lint_enabled"}
    dialog.set_value("embedding_model", "hashing")
    dialog.set_value("memory_consolidation_min_facts", 7)
    dialog.set_value("memory_lint_enabled", False)
    with qtbot.waitSignal(window.bridge.settings_changed, timeout=WAIT_MS):
        assert dialog.save()
    saved = load_settings(window.services.layout.home, environ={})
    assert saved.memory_consolidation_min_facts == 7 and saved.memory_lint_enabled is False


def test_the_embedding_model_setting_offers_the_multilingual_models(qtbot, window) -> None:
    dialog = window.show_settings()
    editor = dialog.editors["embedding_model"]
    assert [editor.itemText(i) for i in range(editor.count())] == [
        "", "multilingual-e5-small", "multilingual-e5-small-int8"]
    editor.setCurrentIndex(1)
    assert dialog.collect().embedding_model == "multilingual-e5-small"
    editor.setCurrentIndex(2)
    assert dialog.collect().embedding_model == "multilingual-e5-small-int8"
    dialog.set_value("embedding_model", "openai/text-embedding-3-small")  # any litellm model may be typed
    assert dialog.collect().embedding_model == "openai/text-embedding-3-small"
    dialog.reject()


def test_a_new_embedding_model_from_settings_rebuilds_the_index_with_it(qtbot, window) -> None:
    services = window.services
    run(qtbot, services.reindex())
    dialog = window.show_settings()
    dialog.set_value("embedding_model", "hashing:64")
    assert dialog.save()
    assert (services.current_label or "").startswith("Rebuilding the index")
    qtbot.waitUntil(lambda: not services.busy, timeout=WAIT_MS)
    indexer = services.manager.indexer
    assert services.manager.embedder.dim == 64
    assert (indexer.state.model, indexer.state.dim) == (services.manager.embedder.name, 64)
    response = run(qtbot, indexer.search("oat milk"))
    assert response.mode == "hybrid" and response.warning is None and response.hits


def test_progress_bar_and_cancel_follow_the_current_operation(qtbot, window) -> None:
    started = asyncio.Event()

    async def slow() -> None:
        started.set()
        await asyncio.sleep(3600)

    task = window.services.submit(slow(), label="Long job")
    qtbot.waitUntil(started.is_set, timeout=WAIT_MS)
    window.bridge.progress.emit("Long job", 3, 10)
    assert window.progress_bar.isVisible() and window.cancel_button.isVisible()
    assert window.progress_bar.value() == 3
    window.cancel_button.click()
    qtbot.waitUntil(task.done, timeout=WAIT_MS)
    assert task.cancelled()
    qtbot.waitUntil(lambda: not window.progress_bar.isVisible(), timeout=WAIT_MS)


def test_closing_during_a_dream_asks_then_cancels(qtbot, window, prompter) -> None:
    cancelled: list[bool] = []
    real = window.services.runner
    window.services.runner = SimpleNamespace(phase="running", cancel=lambda: cancelled.append(True))
    try:
        prompter.confirm_answer = False
        assert not window.close()
        assert window.isVisible() and not cancelled
        prompter.confirm_answer = True
        with qtbot.waitSignal(window.closed, timeout=WAIT_MS):
            assert window.close()
        assert cancelled == [True]
    finally:
        window.services.runner = real


def test_closing_saves_dirty_editors(qtbot, window) -> None:
    editor = open_page(qtbot, window, NOTES_PAGE)
    editor.set_text("# Places\n\nSaved on close.\n")
    with qtbot.waitSignal(window.closed, timeout=WAIT_MS):
        window.close()
    assert "Saved on close." in page(window, NOTES_PAGE).read_text(encoding="utf-8")


def test_run_app_shuts_down_cleanly(qtbot, loop, demo_home, prompter) -> None:
    """The shutdown path used by run_app: stop serve, watcher and tasks without leaving any behind."""
    from suzent_desktop.ui.base.services import AppServices
    from suzent_desktop.ui.window.main_window import MainWindow

    services = AppServices.open(demo_home)
    win = MainWindow(services, prompter=prompter)
    win.show()
    win.start_background()
    qtbot.waitUntil(lambda: win.watcher.running, timeout=WAIT_MS)
    win.close()
    run(qtbot, win.shutdown())
    assert not win.watcher.running
    assert all(t.done() for t in services.tasks())
    win.deleteLater()


def test_shutdown_also_stops_a_task_started_while_others_wind_down(qtbot, services) -> None:
    """A task that queues a follow-up when it is cancelled (as an index pass does) leaves nothing running."""

    follow_ups: list[asyncio.Task] = []

    async def pass_that_queues_a_follow_up() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            follow_ups.append(services.submit(asyncio.sleep(3600)))
            raise

    services.submit(pass_that_queues_a_follow_up())
    run(qtbot, asyncio.sleep(0))  # the pass starts and waits
    run(qtbot, services.shutdown())
    assert follow_ups and all(t.done() for t in follow_ups)
    assert all(t.done() for t in services.tasks())


def test_many_void_qt_calls_do_not_exhaust_none(qtbot) -> None:
    """PySide6 6.12 on CPython 3.11 drops a reference to None per void call (see ui/base/qtfix.py)."""
    import sys

    from PySide6.QtWidgets import QLabel

    label = QLabel()
    for _ in range(20_000):  # more than None's natural count at start-up
        label.setText("x")
    assert sys.getrefcount(None) > 1_000_000 or sys.version_info >= (3, 12)


def test_theme_follows_the_scheme_and_recolours_the_preview(qtbot, window) -> None:
    from suzent_desktop.ui.base import theme

    manager = theme.current()
    editor = open_page(qtbot, window, NOTES_PAGE)
    try:
        manager.apply(True)
        assert window.palette().base().color().lightness() < 80
        assert "#dcdcdc" in editor.last_html  # dark preview text colour
        manager.apply(False)
        assert window.palette().base().color().lightness() > 200
        assert "#1f2328" in editor.last_html
    finally:
        manager.apply(theme.system_is_dark())


def test_search_hit_opens_the_page_at_its_line_in_the_editor(qtbot, window) -> None:
    window.start_background(watch=False, serve=False, index=True)
    qtbot.waitUntil(lambda: not window.services.busy, timeout=WAIT_MS)
    window.actions_by_name["search"].trigger()
    pane = window.search_pane
    with qtbot.waitSignal(pane.searched, timeout=WAIT_MS):
        pane.set_query("lanterns colour glass shelf")
    rows = [i for i, hit in enumerate(pane.hits()) if Path(hit.path).name == "Lantern Index.md"]
    assert rows, [h.path for h in pane.hits()]
    hit = pane.hits()[rows[0]]
    pane.open_hit(rows[0])
    editor = window.editors.current_editor()
    assert editor.path == Path(hit.path)
    if hit.line:
        assert editor.source.textCursor().blockNumber() == hit.line - 1
    assert window.tree.selected_path() == editor.path


def test_lint_from_the_menu_lists_its_findings_in_the_dream_panel(qtbot, window) -> None:
    broken = page(window, "2_Wiki/Concepts/Kayaks.md")
    broken.write_text("# Kayaks\n\nSee [[Nowhere At All]].\n", encoding="utf-8")
    with qtbot.waitSignal(window.dream_panel.lint_finished, timeout=WAIT_MS):
        window.actions_by_name["lint"].trigger()
    assert window.docks["dream"].isVisible()
    rows = [window.dream_panel.findings.item(i).text() for i in range(window.dream_panel.findings.count())]
    assert any("broken_link" in row and "Kayaks.md" in row for row in rows)


def test_the_demos_first_automatic_dream_waits_until_the_backlog_was_seen(qtbot, window, monkeypatch) -> None:
    import suzent_desktop.ui.window.main_window as main_window

    monkeypatch.setattr(main_window, "DEMO_LOOK_SECONDS", 0.0)
    services = window.services
    pending = services.manager.dreaming.pending_dates()
    assert pending, "the demo starts with a backlog"
    with qtbot.waitSignal(services.bridge.status_message, timeout=WAIT_MS,
                          check_params_cb=lambda message: message.startswith("Demo: the backlog")):
        window.start_background(watch=False, serve=True, index=True)
    from suzent_desktop.core.engines.dream.runs.run_state import load_state

    assert load_state(services.runner.state_path)["history"] == [] and services.manager.dreaming.pending_dates() == pending
    with qtbot.waitSignal(services.bridge.dream_result, timeout=WAIT_MS * 4) as ran:
        window.show_dock("dream")
    assert ran.args[0].outcome == "productive", ran.args[0].reason


def test_an_unusable_embedding_model_shows_the_whole_error_and_the_index_state(qtbot, window, prompter,
                                                                             monkeypatch) -> None:
    import socket

    with socket.socket() as probe:  # a loopback port nobody listens on: the provider is unreachable
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("OPENAI_API_BASE", f"http://127.0.0.1:{port}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    services = window.services
    run(qtbot, services.reindex())
    old = services.manager.embedder.name
    dialog = window.show_settings()
    dialog.set_value("embedding_model", "openai/text-embedding-3-small")
    assert dialog.save()
    qtbot.waitUntil(lambda: bool(prompter.errors), timeout=WAIT_MS * 3)
    message = prompter.errors[0]
    assert "openai/text-embedding-3-small" in message and f"still uses {old}" in message
    assert len(message) > 80
    assert window.stale_label.text() == "Index: not rebuilt (embedding model failed)"
    window.bridge.index_stale.emit(0)
    assert window.stale_label.text() == "Index: not rebuilt (embedding model failed)"
    assert services.manager.embedder.name == old


def test_ctrl_f_and_ctrl_h_open_the_find_bar_of_the_open_note(qtbot, window) -> None:
    from PySide6.QtCore import Qt

    editor = window.editors.open(page(window, INDEX_PAGE))
    window.activateWindow()
    qtbot.keyClick(editor.source, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert editor.find_bar.isVisible() and not editor.find_bar.replace_input.isVisible()
    qtbot.keyClicks(editor.find_bar.find_input, "colour")
    assert editor.find_bar.count_label.text() == "1 of 2"
    qtbot.keyClick(editor.source, Qt.Key.Key_H, Qt.KeyboardModifier.ControlModifier)
    assert editor.find_bar.replace_input.isVisible()


def test_clicking_a_tag_in_the_tags_dock_runs_a_tag_search(qtbot, window) -> None:
    from PySide6.QtCore import Qt

    from suzent_desktop.core.files.events import ChangeSet

    trip = page(window, "0_Inbox/Lantern Trip.md")
    trip.write_text("# Trip\n\nLanterns of Kyoto #lanterns/kyoto\n", encoding="utf-8")
    window.show_dock("tags")
    window.services.bridge.changed.emit(ChangeSet(pages={trip}))  # what the watcher's batch sends
    qtbot.waitUntil(lambda: window.tags.item_for("lanterns") is not None, timeout=WAIT_MS)
    item = window.tags.item_for("lanterns")
    assert item.text(1) == "1"
    with qtbot.waitSignal(window.search_pane.searched, timeout=WAIT_MS):
        qtbot.mouseClick(window.tags.tree.viewport(), Qt.MouseButton.LeftButton,
                         pos=window.tags.tree.visualItemRect(item).center())
    assert window.docks["search"].isVisible() and window.search_pane.query_edit.text() == "tag:lanterns"


def test_the_settings_dialog_fills_in_the_local_cpu_model_profile(qtbot, window) -> None:
    from suzent_desktop.settings import LOCAL_CPU_PROFILE

    dialog = window.show_settings()
    qtbot.mouseClick(dialog.local_profile_button, Qt.MouseButton.LeftButton)
    assert dialog.value("llm_timeout_seconds") == LOCAL_CPU_PROFILE["llm_timeout_seconds"] > 60
    assert dialog.value("memory_consolidation_timeout_seconds") == 3600
    with qtbot.waitSignal(window.bridge.settings_changed, timeout=WAIT_MS):
        assert dialog.save()
    assert load_settings(window.services.layout.home, environ={}).memory_consolidation_max_days == 3


def test_a_page_is_shown_without_text_forgotten_on_another_device(qtbot, window) -> None:
    """The forget's tombstone arrived by sync; the page, written elsewhere, still holds the text."""
    path = page(window, NOTES_PAGE)
    path.write_text("# Lantern Notes\n\nThe safe's code is 8812.\n\nSee [[Lantern Index]].\n", encoding="utf-8")
    window.services.manager.tombstones.add("The safe's code is 8812.")
    editor = open_page(qtbot, window, NOTES_PAGE)
    assert "8812" not in editor.text() and "See [[Lantern Index]]." in editor.text()
    assert not editor.dirty and "8812" not in editor.last_html

    log = sorted(window.services.layout.archive_dir.glob("*.md"))[0]
    with log.open("a", encoding="utf-8") as handle:
        handle.write("- The safe's code is 8812.\n")  # a fact line written by hand, without a category
    window.bridge.open_path.emit(log, 1)
    assert "- The safe's code is 8812." in window.editors.current_editor().text()  # a log is shown as written
