"""The vault tree: order, hidden folders, incremental updates, and the context-menu operations."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from ui_support import FakePrompter, run

from suzent_desktop.ui.window.vault_tree import VaultTree


@pytest.fixture
def tree(qtbot, small_services):
    prompter = FakePrompter()
    widget = VaultTree(small_services, prompter)
    widget.show()
    yield widget
    widget.deleteLater()


def notebook(tree: VaultTree) -> Path:
    return tree.root


def add_page(tree: VaultTree, relative: str, text: str) -> Path:
    page = tree.root / relative
    page.write_text(text, encoding="utf-8")
    tree.add_path(page)
    return page


def trigger(tree: VaultTree, path: Path | None, text: str) -> None:
    menu = tree.build_menu(path)
    action = next(a for a in menu.actions() if a.text().startswith(text))
    action.trigger()


def test_zones_first_then_root_files_and_hidden_folders_never_show(tree) -> None:
    root = notebook(tree)
    (root / ".obsidian").mkdir()
    (root / ".obsidian" / "app.json").write_text("{}")
    (root / "zzz_custom").mkdir()
    (root / "4_Assets" / "photo.png").write_bytes(b"\x89PNG")
    tree.reload()
    top = [tree.topLevelItem(i).text(0) for i in range(tree.topLevelItemCount())]
    assert top.index("5_Archives") < top.index("zzz_custom") < top.index("index")
    assert ".obsidian" not in top and ".state" not in top
    assert tree.item_for(root / "4_Assets" / "photo.png").text(0) == "photo.png"
    assert tree.item_for(root / "3_Personal" / "Work.md").text(0) == "Work"


def test_incremental_add_remove_and_new_folder_rescan(tree) -> None:
    root = notebook(tree)
    folder = root / "1_Projects" / "Garden" / "Beds"
    folder.mkdir(parents=True)
    (folder / "North.md").write_text("# North\n")
    tree.add_path(root / "1_Projects" / "Garden")  # only the folder event arrives
    assert tree.item_for(folder / "North.md") is not None
    (folder / "North.md").unlink()
    tree.on_deleted(folder / "North.md")
    assert tree.item_for(folder / "North.md") is None
    tree.add_path(root / ".trash" / "x.md")  # hidden paths are ignored
    assert tree.item_for(root / ".trash" / "x.md") is None


def test_new_page_from_context_menu(tree, qtbot) -> None:
    root = notebook(tree)
    tree.prompter.texts.append("Reading list")
    with qtbot.waitSignal(tree.page_activated) as blocker:
        trigger(tree, root / "0_Inbox", "New page")
    created = root / "0_Inbox" / "Reading list.md"
    assert blocker.args == [created]
    assert created.read_text(encoding="utf-8") == "# Reading list\n\n"
    assert tree.item_for(created) is not None
    tree.prompter.texts.append("Reading list")
    trigger(tree, root / "0_Inbox", "New page")
    assert "already exists" in tree.prompter.errors[-1]


def test_rename_rewrites_links_across_the_vault(tree) -> None:
    root = notebook(tree)
    target = root / "2_Wiki" / "Concepts" / "Vector Search.md"
    (root / "1_Projects" / "Plan.md").write_text(
        "[[Vector Search]] · [[2_Wiki/Concepts/Vector Search|path form]] · [md](../2_Wiki/Concepts/Vector%20Search.md)\n",
        encoding="utf-8",
    )
    tree.add_path(root / "1_Projects" / "Plan.md")
    tree.prompter.texts.append("Semantic Search")
    trigger(tree, target, "Rename")
    new = target.with_name("Semantic Search.md")
    assert new.is_file() and not target.exists()
    plan = (root / "1_Projects" / "Plan.md").read_text(encoding="utf-8")
    assert "[[Semantic Search]]" in plan
    assert "[[2_Wiki/Concepts/Semantic Search|path form]]" in plan
    assert "(../2_Wiki/Concepts/Semantic%20Search.md)" in plan
    work = (root / "3_Personal" / "Work.md").read_text(encoding="utf-8")
    assert "[[Semantic Search]] and [[Semantic Search#Options|options]]" in work
    assert tree.item_for(new) is not None and tree.item_for(target) is None


def test_rename_refuses_bad_names_and_existing_pages(tree) -> None:
    root = notebook(tree)
    work = root / "3_Personal" / "Work.md"
    (root / "3_Personal" / "Taken.md").write_text("# Taken\n")
    assert tree.rename(work, "a/b") is None
    assert tree.rename(work, "Taken") is None
    assert "already exists" in tree.prompter.errors[-1]
    assert work.is_file()


def test_move_page_to_another_folder_keeps_its_relative_links(tree) -> None:
    root = notebook(tree)
    page = add_page(tree, "3_Personal/Linker.md", "[w](Work.md) and [[Work]]\n")
    tree.prompter.choices.append("0_Inbox")
    trigger(tree, page, "Move to")
    moved = root / "0_Inbox" / "Linker.md"
    assert moved.read_text(encoding="utf-8") == "[w](../3_Personal/Work.md) and [[Work]]\n"
    assert tree.item_for(moved) is not None


def drop(tree: VaultTree, sources: list[Path], onto: Path | None, mime=None) -> bool:
    """Drop the items of ``sources`` onto ``onto``'s row (or empty space) as a mouse drag would."""
    from PySide6.QtCore import QPointF, Qt
    from PySide6.QtGui import QDropEvent

    items = [tree.item_for(p) for p in sources]
    tree.clearSelection()
    for item in items:
        item.setSelected(True)
    if onto is None:
        tree.setFixedHeight(2000)  # leave empty space below the rows
        point = QPointF(5, tree.viewport().height() - 5)
    else:
        target = tree.item_for(onto)
        tree.scrollToItem(target)
        point = QPointF(tree.visualItemRect(target).center())
    mime = mime or tree.mimeData(items)
    event = QDropEvent(point, Qt.DropAction.MoveAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    # Qt delivers a Drop only to the target of a live drag session, which a test cannot start,
    # so the event goes straight to the view's handler.
    tree.dropEvent(event)
    return event.isAccepted()


def test_dragging_pages_onto_a_folder_moves_them_and_rewrites_links(tree) -> None:
    root = notebook(tree)
    linker = add_page(tree, "3_Personal/Linker.md", "[w](Work.md)\n")
    drop(tree, [linker], root / "1_Projects")
    moved = root / "1_Projects" / "Linker.md"
    assert moved.read_text(encoding="utf-8") == "[w](../3_Personal/Work.md)\n"
    assert not linker.exists() and tree.item_for(moved) is not None and tree.item_for(linker) is None


def test_a_drop_on_a_page_lands_in_its_folder_and_a_folder_never_goes_inside_itself(tree) -> None:
    root = notebook(tree)
    concepts = root / "2_Wiki" / "Concepts"
    drop(tree, [root / "3_Personal" / "Work.md"], concepts / "Vector Search.md")
    assert (concepts / "Work.md").is_file()
    drop(tree, [root / "2_Wiki"], concepts)  # into its own child: nothing moves
    assert concepts.is_dir() and tree.item_for(concepts) is not None


def test_files_dragged_in_from_outside_are_refused(tree, tmp_path) -> None:
    from PySide6.QtCore import QMimeData, QUrl

    outside = tmp_path / "outside.md"
    outside.write_text("x", encoding="utf-8")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(outside))])
    root = notebook(tree)
    assert not drop(tree, [root / "3_Personal" / "Work.md"], root / "0_Inbox", mime)
    assert outside.is_file() and (root / "3_Personal" / "Work.md").is_file()


def test_rename_folder_moves_its_pages(tree, qtbot) -> None:
    root = notebook(tree)
    with qtbot.waitSignal(tree.page_moved) as blocker:
        tree.rename(root / "2_Wiki" / "Concepts", "Ideas")
    assert blocker.args == [root / "2_Wiki" / "Concepts", root / "2_Wiki" / "Ideas"]
    assert (root / "2_Wiki" / "Ideas" / "Vector Search.md").is_file()
    assert not (root / "2_Wiki" / "Concepts").exists()
    assert tree.item_for(root / "2_Wiki" / "Ideas" / "Vector Search.md") is not None


def test_delete_goes_to_trash_and_undo_restores(tree) -> None:
    root = notebook(tree)
    work = root / "3_Personal" / "Work.md"
    tree.prompter.confirm_answer = False
    trigger(tree, work, "Delete")
    assert work.exists()
    tree.prompter.confirm_answer = True
    trigger(tree, work, "Delete")
    assert not work.exists() and (root / ".trash" / "3_Personal" / "Work.md").is_file()
    trigger(tree, None, "Undo delete")
    assert work.is_file() and tree.item_for(work) is not None
    assert not (root / ".trash" / "3_Personal" / "Work.md").exists()


def test_undo_refuses_to_overwrite_a_recreated_page(tree) -> None:
    root = notebook(tree)
    work = root / "3_Personal" / "Work.md"
    record = tree.delete(work, confirm=False)
    work.write_text("# New work page\n")
    assert tree.undo_delete() is None
    assert work.read_text() == "# New work page\n" and record.trashed.is_file()


def test_a_rename_reaches_the_views_once_and_the_index_follows(tree, qtbot, small_services) -> None:
    root = notebook(tree)
    old, new = root / "3_Personal" / "Work.md", root / "3_Personal" / "Job.md"
    applied, announced = [], []
    small_services.files_changed.connect(applied.append)
    small_services.bridge.changed.connect(announced.append)
    run(qtbot, small_services.manager.indexing.sync_paths([old]))

    assert tree.rename(old, "Job") == new

    assert [c.moved for c in applied] == [((old, new),)]
    assert len(announced) == 1 and {old, new} <= announced[0].pages
    assert tree.item_for(new) is not None and tree.item_for(old) is None
    run(qtbot, asyncio.gather(*small_services.tasks()))  # the sync the change asked for
    hits = run(qtbot, small_services.manager.searching.search("Contoso", limit=5)).hits
    assert {Path(h.path).name for h in hits if h.source_type == "notebook"} == {"Job.md"}


def test_a_tree_waiting_for_the_models_walk_shows_it_and_what_events_said_meanwhile(qtbot, small_services) -> None:
    """While the vault model's first walk waits for a watcher the tree lists nothing itself; the walk's
    snapshot fills it (empty folders too) and the file events that came meanwhile are taken in after."""
    from suzent_desktop.core import operations

    root = small_services.layout.notebook_dir
    (root / "1_Projects" / "Empty").mkdir(parents=True)
    operations.hold_vault_walks(small_services.manager)
    widget = VaultTree(small_services, FakePrompter())
    try:
        assert widget.waiting and widget.topLevelItemCount() == 0
        operations.release_vault_walks(small_services.manager)
        snapshot = operations.vault_snapshot(small_services.manager, parsed=False)
        work = root / "3_Personal" / "Work.md"
        later = root / "0_Inbox" / "Later.md"
        later.write_text("# Later\n", encoding="utf-8")  # after the walk: only its event tells
        widget.add_path(later)
        work.unlink()
        widget.on_deleted(work)
        widget.fill(snapshot)
        assert not widget.waiting
        assert widget.item_for(root / "1_Projects" / "Empty") is not None
        assert widget.item_for(root / "2_Wiki" / "Concepts" / "Vector Search.md").text(0) == "Vector Search"
        assert widget.item_for(later) is not None and widget.item_for(work) is None
        top = widget.top_folders()
        assert top[:4] == ["0_Inbox", "1_Projects", "2_Wiki", "3_Personal"]
    finally:
        widget.deleteLater()
