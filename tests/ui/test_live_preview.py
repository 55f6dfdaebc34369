"""Live Preview as an Obsidian user edits: one pane, markup shown only on the line being edited,
headings at their size, links as their text (Ctrl+click follows), checkboxes that toggle, tags
that search, callouts and embeds drawn in place; Source mode and Reading view one key away."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QTextCursor
from ui_support import WAIT_MS, open_at_end

PAGE = (
    "# Title\n"                                 # 0
    "\n"                                        # 1
    "Some **bold** and a [[Two|second page]] and #garden/beans.\n"  # 2
    "- [ ] water the beans\n"                   # 3
    "> [!tip] Mind the frost\n"                 # 4
    "> Cover them at night.\n"                  # 5
    "\n"                                        # 6
    "![[dot.png]]\n"                            # 7
    "\n"                                        # 8
    "![[Two]]\n"                                # 9
    "\n"                                        # 10
    "last line\n"                               # 11
)


def _png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + b"\x80\x20\x20" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "One.md").write_text(PAGE, encoding="utf-8")
    (root / "Two.md").write_text("# Two\n\nThe second page says hello.\n", encoding="utf-8")
    (root / "dot.png").write_bytes(_png(40, 120))
    return root


@pytest.fixture
def editor(qtbot, loop, vault: Path):
    page = open_at_end(qtbot, vault, vault / "One.md", (900, 900))
    yield page
    page.area.deleteLater()


def _block(editor, number: int):
    return editor.source.document().findBlockByNumber(number)


def _hidden(editor, number: int, column: int) -> bool:
    """Whether the character is drawn with no width (hidden markup)."""
    for fmt in _block(editor, number).layout().formats():
        if fmt.start <= column < fmt.start + fmt.length:
            return fmt.format.fontPointSize() == 0.5
    return False


def _point(editor, number: int, column: int) -> QPoint:
    cursor = QTextCursor(_block(editor, number))
    cursor.setPosition(_block(editor, number).position() + column)
    return editor.source.cursorRect(cursor).center()


def _put_cursor(editor, number: int) -> None:
    cursor = QTextCursor(_block(editor, number))
    editor.source.setTextCursor(cursor)


def test_pages_open_in_live_preview_in_one_pane(editor) -> None:
    assert editor.views.view == "live" and editor.views.stack.currentWidget() is editor.source
    assert not editor.preview.isVisible()


def _put_cursor_at(editor, number: int, column: int, anchor: int | None = None) -> None:
    block = _block(editor, number)
    cursor = QTextCursor(block)
    cursor.setPosition(block.position() + (column if anchor is None else anchor))
    cursor.setPosition(block.position() + column, QTextCursor.MoveMode.KeepAnchor)
    editor.source.setTextCursor(cursor)


def test_markup_shows_for_the_element_under_the_cursor_only(qtbot, editor) -> None:
    """As in Obsidian: the cursor in **bold** shows its stars, not the link's brackets further on."""
    text = _block(editor, 2).text()
    bold = text.index("**")
    link = text.index("[[")
    assert _hidden(editor, 2, bold) and not _hidden(editor, 2, bold + 2)
    assert _hidden(editor, 2, link) and _hidden(editor, 2, link + 2)  # "[[Two|" hidden, the alias shown
    assert not _hidden(editor, 2, text.index("second page"))
    assert _hidden(editor, 0, 0)  # the heading's '#'
    _put_cursor_at(editor, 2, 0)
    assert _hidden(editor, 2, bold) and _hidden(editor, 2, link)  # on the line, touching neither
    _put_cursor_at(editor, 2, bold + 3)
    assert not _hidden(editor, 2, bold) and not _hidden(editor, 2, bold + 6) and _hidden(editor, 2, link)
    _put_cursor_at(editor, 2, link + 4)
    assert _hidden(editor, 2, bold) and not _hidden(editor, 2, link)
    _put_cursor_at(editor, 2, text.index("bold"), anchor=link + 1)  # a selection over both shows both
    assert not _hidden(editor, 2, bold) and not _hidden(editor, 2, link)
    _put_cursor_at(editor, 0, 3)
    assert not _hidden(editor, 0, 0)  # a heading's marks show on its line
    assert _hidden(editor, 2, bold)


def test_a_task_keeps_its_checkbox_while_its_words_are_edited(qtbot, editor) -> None:
    """As in Obsidian: the checkbox is drawn and clickable with the cursor in the task's words; the
    cursor in its marker shows "- [ ]"."""
    def drawn() -> bool:  # the "[ ]" is room for the checkbox drawn over it, not written
        block = _block(editor, 3)
        return any(f.start <= 2 < f.start + f.length and f.format.foreground().color().alpha() == 0
                   for f in block.layout().formats())

    text = _block(editor, 3).text()
    _put_cursor_at(editor, 3, len(text))
    assert drawn() and _hidden(editor, 3, 0)
    qtbot.mouseClick(editor.source.viewport(), Qt.MouseButton.LeftButton, pos=_point(editor, 3, 3))
    assert _block(editor, 3).text() == "- [x] water the beans"
    _put_cursor_at(editor, 3, 1)
    assert not drawn() and not _hidden(editor, 3, 0)


def test_headings_are_sized_and_callouts_banded(editor) -> None:
    from suzent_desktop.ui.live.highlighter import CALLOUT_SHIFT

    heading = _block(editor, 0).layout().boundingRect().height()
    body = _block(editor, 11).layout().boundingRect().height()
    assert heading > body * 1.4
    assert _block(editor, 4).userState() >= CALLOUT_SHIFT and _block(editor, 5).userState() >= CALLOUT_SHIFT
    assert _block(editor, 6).userState() < CALLOUT_SHIFT
    assert _hidden(editor, 4, 0) and _hidden(editor, 4, 3)  # "> [!tip]" hidden, the title shown


def test_images_and_note_embeds_take_room_in_place(qtbot, editor) -> None:
    qtbot.waitUntil(lambda: _block(editor, 9).layout().boundingRect().height() > 60, timeout=WAIT_MS)
    assert _block(editor, 7).layout().boundingRect().height() >= 120  # the picture's own height
    _put_cursor(editor, 7)
    assert _block(editor, 7).layout().boundingRect().height() < 60  # edited: the markup, one line


def test_a_click_and_a_ctrl_click_follow_a_link(qtbot, editor) -> None:
    column = _block(editor, 2).text().index("second page") + 2
    with qtbot.waitSignal(editor.link_activated, timeout=WAIT_MS) as signal:
        qtbot.mouseClick(editor.source.viewport(), Qt.MouseButton.LeftButton,
                         Qt.KeyboardModifier.ControlModifier, _point(editor, 2, column))
    assert signal.args[0] == "Two"
    with qtbot.waitSignal(editor.link_activated, timeout=WAIT_MS) as signal:
        qtbot.mouseClick(editor.source.viewport(), Qt.MouseButton.LeftButton, pos=_point(editor, 2, column))
    assert signal.args[0] == "Two"


def test_a_task_checkbox_toggles_as_one_undoable_edit(qtbot, editor) -> None:
    column = _block(editor, 3).text().index("[") + 1
    qtbot.mouseClick(editor.source.viewport(), Qt.MouseButton.LeftButton, pos=_point(editor, 3, column))
    assert _block(editor, 3).text() == "- [x] water the beans"
    assert editor.source.textCursor().blockNumber() == 12  # the cursor stayed where it was (the end)
    assert editor.dirty
    editor.source.undo()
    assert _block(editor, 3).text() == "- [ ] water the beans"


def test_a_click_on_a_tag_asks_for_its_search(qtbot, editor) -> None:
    column = _block(editor, 2).text().index("#garden") + 3
    with qtbot.waitSignal(editor.tag_activated, timeout=WAIT_MS) as signal:
        qtbot.mouseClick(editor.source.viewport(), Qt.MouseButton.LeftButton, pos=_point(editor, 2, column))
    assert signal.args == ["garden/beans"]


def test_ctrl_e_toggles_reading_view_and_source_mode_shows_all_markup(qtbot, editor) -> None:
    editor.source.setFocus()
    qtbot.waitUntil(editor.source.hasFocus, timeout=WAIT_MS)
    qtbot.keyClick(editor.source, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    assert editor.views.view == "reading" and editor.preview.isVisible()
    qtbot.waitUntil(lambda: "second page" in editor.preview.toPlainText(), timeout=WAIT_MS)
    qtbot.keyClick(editor.preview, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    assert editor.views.view == "live" and editor.source.isVisible()
    editor.views.set_view("source")
    assert not any(_hidden(editor, n, 0) for n in range(12))
    assert editor.source.font().fixedPitch() or "mono" in editor.source.font().family().lower()
    qtbot.keyClick(editor.source, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(editor.preview, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    assert editor.views.view == "source"  # back to the editing view last used


PROPS_PAGE = "---\ntitle: Beans\ntags:\n  - garden\nrating: 4\ndone: false\nplanted: 2026-04-01\n---\n# Beans\n\nBody.\n"


def test_frontmatter_shows_as_typed_properties_that_write_back(qtbot, editor, vault) -> None:
    from PySide6.QtWidgets import QCheckBox, QDateEdit, QLineEdit

    editor.set_text(PROPS_PAGE)
    view = editor.views.properties
    qtbot.waitUntil(lambda: view.isVisible() and "done" in view.fields, timeout=WAIT_MS)
    assert view.kinds == {"title": "text", "tags": "list", "rating": "number", "done": "checkbox",
                          "planted": "date"}
    assert isinstance(view.fields["done"], QCheckBox) and isinstance(view.fields["planted"], QDateEdit)
    assert not _block(editor, 1).isVisible() and _block(editor, 8).isVisible()  # the YAML is folded away
    view.fields["done"].setChecked(True)
    assert editor.text() == PROPS_PAGE.replace("done: false", "done: true")
    tags = view.fields["tags"]
    assert isinstance(tags, QLineEdit) and tags.text() == "garden"
    tags.setText("garden, summer")
    tags.editingFinished.emit()
    assert editor.text() == PROPS_PAGE.replace("done: false", "done: true").replace(
        "  - garden\n", "  - garden\n  - summer\n")
    editor.source.undo()
    assert "summer" not in editor.text()
    editor.views.set_view("source")
    assert not view.isVisible() and _block(editor, 1).isVisible()


def test_moving_the_cursor_or_switching_views_leaves_the_page_saved(qtbot, editor) -> None:
    editor.set_text(PROPS_PAGE)
    assert editor.save() and not editor.dirty
    qtbot.waitUntil(lambda: "done" in editor.views.properties.fields, timeout=WAIT_MS)
    for number in (8, 10, 9):
        _put_cursor(editor, number)
    for view in ("source", "reading", "live"):
        editor.views.set_view(view)
    assert not editor.dirty


def test_the_view_menu_and_palette_switch_the_open_pages_view(qtbot, window) -> None:
    editor = window.editors.open(window.services.layout.notebook_dir / "3_Personal" / "About Me.md")
    assert editor.views.view == "live"
    window.actions_by_name["view_reading"].trigger()
    assert editor.views.view == "reading"
    window.actions_by_name["view_source"].trigger()
    assert editor.views.view == "source"
    window.actions_by_name["view_reading"].trigger()
    window.actions_by_name["view_reading"].trigger()
    assert editor.views.view == "source"


def test_the_pointer_is_a_hand_over_what_a_click_acts_on(qtbot, editor) -> None:
    viewport = editor.source.viewport()
    box = _point(editor, 3, _block(editor, 3).text().index("[") + 1)
    qtbot.mouseMove(viewport, box)
    qtbot.waitUntil(lambda: viewport.cursor().shape() == Qt.CursorShape.PointingHandCursor, timeout=WAIT_MS)
    qtbot.mouseMove(viewport, _point(editor, 11, 2))
    qtbot.waitUntil(lambda: viewport.cursor().shape() == Qt.CursorShape.IBeamCursor, timeout=WAIT_MS)


def test_a_long_page_opens_styled_near_the_view_first_and_everywhere_soon(qtbot, editor, vault) -> None:
    lines = [f"Line {n} has **bold** words." for n in range(600)]
    (vault / "Long.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    page = editor.area.open(vault / "Long.md")
    assert _hidden(page, 3, lines[3].index("**"))  # the first screens at once
    far = lines[550].index("**")
    qtbot.waitUntil(lambda: _hidden(page, 550, far), timeout=WAIT_MS)  # the rest right after
    assert not page.dirty


def test_a_property_can_be_added_from_the_view(qtbot, editor) -> None:
    editor.set_text(PROPS_PAGE)
    view = editor.views.properties
    qtbot.waitUntil(lambda: "done" in view.fields, timeout=WAIT_MS)
    view.new_key.setText("status")
    view.new_key.returnPressed.emit()
    assert "status" in view.fields and view.kinds["status"] == "text"
    assert editor.text() == PROPS_PAGE.replace("planted: 2026-04-01\n", "planted: 2026-04-01\nstatus:\n")
    assert view.new_key.text() == ""
