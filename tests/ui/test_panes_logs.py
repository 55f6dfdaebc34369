"""Daily logs, forgotten list, backlinks and MEMORY.md panes."""

from __future__ import annotations

import os

import panes_support
from panes_support import WAIT_MS, run, seed, wait_task, write_page
from PySide6.QtCore import QUrl

from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.ui.panes.backlinks import BacklinksPane
from suzent_desktop.ui.panes.daily_logs import DailyLogsPane
from suzent_desktop.ui.panes.memory_view import MemoryView
from suzent_desktop.ui.panes.tombstones_pane import TombstonesPane

# fixtures shared by the pane tests
pane_services = panes_support.pane_services


def test_daily_logs_statuses_rendering_raw_and_forget(qtbot, pane_services, today) -> None:
    services = pane_services
    manager = services.manager
    seed(manager)
    # a batch given up (skipped 2026-07-15) and then a productive run up to 2026-07-17
    manager.notebook.append_skip(today, ["2026-07-15"], 3)
    manager.notebook.append_ingest(today, "2026-07-17", "consolidated work and family")
    pane = DailyLogsPane(services)
    qtbot.addWidget(pane)
    pane.show()
    qtbot.waitUntil(lambda: pane.refresh_count > 0, timeout=WAIT_MS)

    assert pane.shown_dates() == ["2026-07-20", "2026-07-19", "2026-07-18", "2026-07-17", "2026-07-15"]
    assert pane.statuses() == {
        "2026-07-20": "today",
        "2026-07-19": "pending",
        "2026-07-18": "pending",
        "2026-07-17": "consolidated",
        "2026-07-15": "skipped",
    }
    assert "2026-07-17" in pane.summary_label.text()

    with qtbot.waitSignal(pane.day_shown, timeout=WAIT_MS):
        pane.select_date("2026-07-15")
    rows = pane.fact_rows()
    assert [f.fact.content for _, f, _ in rows] == [
        "User prefers compact dashboards",
        "User now works at Microsoft",
    ]
    first_row = rows[0][0]
    label = pane.fact_label(first_row)
    assert "preference" in label and "#ui" in label and "#product" in label  # category chip and tags
    assert "skipped" in pane.day_label.text()

    with qtbot.waitSignal(services.bridge.open_path, timeout=WAIT_MS) as opened:
        pane.facts.itemActivated.emit(pane.facts.item(first_row))
    assert opened.args == [manager.archive.path_for("2026-07-15"), rows[0][1].line]

    pane.show_raw(True)
    assert pane.stack.currentWidget() is pane.raw_view
    assert pane.raw_view.toPlainText() == manager.archive.read_text("2026-07-15")
    assert pane.raw_view.isReadOnly()
    pane.show_raw(False)

    pane.facts.setCurrentRow(first_row)
    pane.confirm = lambda *_: True
    task = pane.forget_selected()
    assert "forgotten" in pane.fact_label(first_row)  # marked at once
    wait_task(qtbot, task)
    assert manager.tombstones.is_tombstoned("User prefers compact dashboards")
    # the pane marked it itself and ignores the echo of its own forget; the row stays marked
    qtbot.waitUntil(lambda: "forgotten" in pane.fact_label(pane.fact_rows()[0][0]), timeout=WAIT_MS)


def test_daily_logs_follow_a_new_day(qtbot, pane_services) -> None:
    services = pane_services
    seed(services.manager)
    pane = DailyLogsPane(services)
    qtbot.addWidget(pane)
    pane.show()
    qtbot.waitUntil(lambda: pane.refresh_count > 0, timeout=WAIT_MS)
    from panes_support import write_log

    write_log(services.manager, "2026-07-16", [("general", "A new fact from another process", ())])
    with qtbot.waitSignal(pane.refreshed, timeout=WAIT_MS):
        services.bridge.changed.emit(ChangeSet(logs={"2026-07-16"}))
    assert "2026-07-16" in pane.shown_dates()


def seeded_tombstones_pane(qtbot, services) -> TombstonesPane:
    """The Forgotten list over the seeded home, indexed, shown once."""
    seed(services.manager)
    run(qtbot, services.manager.indexing.reindex())
    pane = TombstonesPane(services)
    qtbot.addWidget(pane)
    pane.show()
    qtbot.waitUntil(lambda: pane.refresh_count > 0, timeout=WAIT_MS)
    return pane


def test_tombstones_list_and_undo(qtbot, pane_services) -> None:
    services = pane_services
    manager = services.manager
    pane = seeded_tombstones_pane(qtbot, services)
    assert pane.contents() == []

    with qtbot.waitSignal(pane.refreshed, timeout=WAIT_MS):
        wait_task(qtbot, services.forget("User runs five kilometres on Sundays"))
    assert pane.contents() == ["user runs five kilometres on sundays"]
    gone = run(qtbot, manager.searching.search("five kilometres Sundays", record_recall=False))
    assert all("five kilometres" not in h.text for h in gone.hits)

    pane.select("User runs five kilometres on Sundays")
    pane.confirm = lambda *_: True
    with qtbot.waitSignal(pane.undone, timeout=WAIT_MS):
        pane.undo_selected()
    assert not manager.tombstones.is_tombstoned("User runs five kilometres on Sundays")
    qtbot.waitUntil(lambda: pane.contents() == [], timeout=WAIT_MS)
    back = run(qtbot, manager.searching.search("five kilometres Sundays", record_recall=False))
    assert any("five kilometres" in h.text for h in back.hits)


def test_undo_quotes_the_text_as_written_and_the_count_follows(qtbot, pane_services) -> None:
    services = pane_services
    pane = seeded_tombstones_pane(qtbot, services)
    for text in ("User runs five kilometres on Sundays", "User now works at Microsoft"):
        with qtbot.waitSignal(pane.refreshed, timeout=WAIT_MS):
            wait_task(qtbot, services.forget(text))
    assert pane.header.text() == "2 forgotten memories"
    assert "User runs five kilometres on Sundays" in [pane.list.item(i).text().split("\n")[0] for i in range(2)]

    asked: list[str] = []
    pane.confirm = lambda _title, text: asked.append(text) or True
    reports: list[str] = []
    services.bridge.status_message.connect(reports.append)
    pane.select("User runs five kilometres on Sundays")
    with qtbot.waitSignal(pane.undone, timeout=WAIT_MS):
        pane.undo_selected()
    assert asked[0].startswith("“User runs five kilometres on Sundays”")
    assert pane.header.text() == "1 forgotten memory"
    qtbot.waitUntil(lambda: any(m.startswith("Restored") for m in reports), timeout=WAIT_MS)
    assert any("“User runs five kilometres on Sundays”" in m for m in reports), reports


def test_backlinks_and_related(qtbot, pane_services) -> None:
    services = pane_services
    manager = services.manager
    paths = seed(manager)
    linker = write_page(
        manager, "1_Projects/Move.md", "# Move\n\nWe moved, see [the house](../3_Personal/Home.md).\n"
    )
    write_page(manager, "0_Inbox/Unrelated.md", "# Unrelated\n\nNothing links here.\n")
    run(qtbot, manager.indexing.reindex())
    pane = BacklinksPane(services)
    qtbot.addWidget(pane)
    pane.show()
    with qtbot.waitSignal(pane.refreshed, timeout=WAIT_MS):
        pane.set_page(paths["home"])
    assert sorted(pane.backlink_sources()) == sorted([paths["work"], linker])
    assert all(str(paths["home"]) != hit.path for hit in pane.related)

    with qtbot.waitSignal(services.bridge.open_path, timeout=WAIT_MS) as opened:
        pane.backlinks_list.itemActivated.emit(pane.backlinks_list.item(0))
    assert opened.args[0] in (paths["work"], linker)

    # a page written later and announced by a change-set joins the backlinks (no vault walk needed)
    later = write_page(manager, "0_Inbox/Later.md", "# Later\n\nBack at [[3_Personal/Home|home]].\n")
    with qtbot.waitSignal(pane.refreshed, timeout=WAIT_MS):
        services.bridge.changed.emit(ChangeSet(pages={later}))
    assert later in pane.backlink_sources()

    pane.set_page(None)
    assert pane.backlinks_list.count() == 0


def test_memory_view_size_against_the_bound(qtbot, pane_services) -> None:
    services = pane_services
    manager = services.manager
    view = MemoryView(services)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitUntil(lambda: view.refresh_count > 0, timeout=WAIT_MS)
    assert view.measured is not None and not view.measured.over
    assert f"/ {manager.settings.memory_md_max_lines} lines" in view.lines_bar.format()

    body = "# Memory\n\n" + "".join(
        f"- fact number {i}\n" for i in range(manager.settings.memory_md_max_lines + 5)
    )
    manager.layout.memory_md.write_text(body, encoding="utf-8")
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        services.bridge.changed.emit(ChangeSet(memory_md=True))
    assert view.measured.over and view.measured.lines == len(body.splitlines())
    assert "Over the bound" in view.state_label.text()
    assert "fact number 3" in view.browser.toPlainText()


def test_a_hidden_pane_refreshes_when_shown(qtbot, pane_services) -> None:
    services = pane_services
    view = MemoryView(services)
    qtbot.addWidget(view)
    qtbot.waitUntil(lambda: view.refresh_count > 0, timeout=WAIT_MS)
    services.manager.layout.memory_md.write_text("# Memory\n\n- the user likes tea\n", encoding="utf-8")
    services.bridge.changed.emit(ChangeSet(memory_md=True))
    assert view.refresh_count == 1 and "likes tea" not in view.browser.toPlainText()  # hidden: deferred
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        view.show()
    assert "likes tea" in view.browser.toPlainText()


def test_undo_in_the_forgotten_list_puts_page_lines_back(qtbot, pane_services) -> None:
    services = pane_services
    manager = services.manager
    paths = seed(manager)
    before = paths["home"].read_bytes()
    run(qtbot, manager.indexing.reindex())
    pane = TombstonesPane(services)
    qtbot.addWidget(pane)
    pane.show()
    qtbot.waitUntil(lambda: pane.refresh_count > 0, timeout=WAIT_MS)

    with qtbot.waitSignal(pane.refreshed, timeout=WAIT_MS):
        wait_task(qtbot, services.forget("The user lives in Redmond with a cat named Pixel."))
    assert b"Pixel" not in paths["home"].read_bytes()  # off the page

    pane.select("The user lives in Redmond with a cat named Pixel.")
    pane.confirm = lambda *_: True
    with qtbot.waitSignal(pane.undone, timeout=WAIT_MS):
        pane.undo_selected()
    assert paths["home"].read_bytes() == before
    back = run(qtbot, manager.searching.search("cat named Pixel", record_recall=False))
    assert any("Pixel" in h.text for h in back.hits)


def test_a_memory_link_leading_out_of_the_memory_folder_and_the_vault_opens_nothing(qtbot, pane_services) -> None:
    services = pane_services
    layout = services.manager.layout
    kept = write_page(services.manager, "0_Inbox/Kept.md", "# Kept\n")
    to_kept = os.path.relpath(kept, layout.memory_dir).replace(os.sep, "/")
    escape = "../" * len(layout.memory_dir.parts) + "etc/hostname"
    layout.memory_md.write_text(f"# Memory\n\n[hosts]({escape}) and [kept]({to_kept})\n", encoding="utf-8")
    view = MemoryView(services)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitUntil(lambda: "hosts" in view.browser.toPlainText(), timeout=WAIT_MS)
    opened: list = []
    services.bridge.open_path.connect(lambda path, _line: opened.append(path))
    for href in (escape, "file:///etc/hostname"):
        with qtbot.waitSignal(services.bridge.status_message, timeout=WAIT_MS) as said:
            view.browser.anchorClicked.emit(QUrl(href))
        assert "outside the memory folder and the vault" in said.args[0]
    assert opened == []
    with qtbot.waitSignal(services.bridge.open_path, timeout=WAIT_MS):
        view.browser.anchorClicked.emit(QUrl(to_kept))
    assert opened == [kept]
