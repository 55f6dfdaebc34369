"""The properties view edits keys as Obsidian does: a key is renamed in place, deleted from its
menu, a page without frontmatter gets one from "Add property" (Ctrl+;), and a map is shown but
edited only in Source mode; every write leaves the other YAML lines as they were."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from ui_support import WAIT_MS

from suzent_desktop.ui.workspace.editor_area import EditorArea

PAGE = "---\ntitle: Beans  # kept\ntags:\n  - garden\nplace:\n  bed: 3\n  row: 2\ndone: false\n---\n# Beans\n\nBody.\n"


@pytest.fixture
def area(qtbot, loop, tmp_path: Path):
    (tmp_path / "Beans.md").write_text(PAGE, encoding="utf-8")
    (tmp_path / "Plain.md").write_text("# Plain\n\nNo properties yet.\n", encoding="utf-8")
    area = EditorArea(tmp_path)
    area.resize(800, 700)
    area.show()
    qtbot.waitExposed(area)
    yield area
    for editor in area.editors():
        editor.load()
    area.deleteLater()


def _open(qtbot, area, tmp_path: Path, name: str):
    editor = area.open(tmp_path / name)
    if "---" in editor.text():
        qtbot.waitUntil(lambda: bool(editor.views.properties.fields), timeout=WAIT_MS)
    return editor


def test_a_key_is_renamed_in_place(qtbot, area, tmp_path: Path) -> None:
    editor = _open(qtbot, area, tmp_path, "Beans.md")
    view = editor.views.properties
    name = view.names["title"]
    name.setText("name")
    name.editingFinished.emit()
    assert editor.text() == PAGE.replace("title: Beans", "name: Beans")
    assert "name" in view.fields and "title" not in view.fields
    view.names["name"].setText("done")  # taken: nothing is written, the field says why
    view.names["name"].editingFinished.emit()
    assert editor.text() == PAGE.replace("title: Beans", "name: Beans")
    assert view.names["name"].text() == "name" and "already has" in view.names["name"].toolTip()


def test_a_key_is_deleted_from_its_menu_as_one_undoable_edit(qtbot, area, tmp_path: Path) -> None:
    editor = _open(qtbot, area, tmp_path, "Beans.md")
    view = editor.views.properties
    view.menus["tags"].actions()[-1].trigger()  # "Delete property"
    assert editor.text() == PAGE.replace("tags:\n  - garden\n", "")
    assert "tags" not in view.fields
    editor.source.undo()
    assert editor.text() == PAGE


def test_a_map_is_shown_read_only(qtbot, area, tmp_path: Path) -> None:
    editor = _open(qtbot, area, tmp_path, "Beans.md")
    view = editor.views.properties
    assert view.kinds["place"] == "map"
    field = view.fields["place"]
    assert field.isReadOnly() and "bed: 3" in field.text() and "Source mode" in field.toolTip()


def test_add_property_on_a_page_without_frontmatter_creates_it(qtbot, area, tmp_path: Path) -> None:
    editor = _open(qtbot, area, tmp_path, "Plain.md")
    view = editor.views.properties
    assert not view.isVisible()
    editor.source.setFocus()
    qtbot.keyClick(editor.source, Qt.Key.Key_Semicolon, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: view.isVisible() and view.new_key.hasFocus(), timeout=WAIT_MS)
    qtbot.keyClicks(view.new_key, "status")
    qtbot.keyClick(view.new_key, Qt.Key.Key_Return)
    assert editor.text() == "---\nstatus:\n---\n# Plain\n\nNo properties yet.\n"
    assert "status" in view.fields
    qtbot.waitUntil(lambda: view.fields["status"].hasFocus(), timeout=WAIT_MS)  # its value is typed next
