"""The top of a page as in Obsidian: an inline title that renames, property pills, values shown
from their start, and a head that scrolls away with the note."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from ui_support import WAIT_MS, open_at_end

LONG = "A value long enough to need more room than any field has, " * 4 + "and its very end"
PAGE = ("---\ntags:\n  - garden\n  - summer\n  - beans\nnote: " + LONG + "\n---\n"
        "No heading here: the page starts with a paragraph.\n\n"
        + "".join(f"Line {n} of a long page.\n\n" for n in range(200)))


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "Beans.md").write_text(PAGE, encoding="utf-8")
    return root


@pytest.fixture
def editor(qtbot, loop, vault: Path):
    page = open_at_end(qtbot, vault, vault / "Beans.md", (900, 700))
    page.source.verticalScrollBar().setValue(0)
    qtbot.waitUntil(lambda: "note" in page.views.properties.fields, timeout=WAIT_MS)
    yield page
    page.area.deleteLater()


def _top(widget, page) -> int:
    return widget.mapTo(page, QPoint(0, 0)).y()


def test_the_page_starts_with_its_inline_title_above_the_first_line(editor) -> None:
    head = editor.views.head
    assert head.title.text() == "Beans" and head.isVisible()
    viewport = editor.source.viewport()
    assert _top(head.title, editor) < _top(editor.views.properties, editor) < _top(viewport, editor)
    assert _top(viewport, editor) >= _top(head, editor) + head.height()  # the first line is below the head


def test_the_head_scrolls_away_with_the_note_and_comes_back_at_the_top(qtbot, editor) -> None:
    properties = editor.views.properties
    before = _top(properties, editor)
    editor.source.verticalScrollBar().setValue(2)
    qtbot.waitUntil(lambda: not properties.isVisible() or _top(properties, editor) < before, timeout=WAIT_MS)
    editor.source.verticalScrollBar().setValue(60)
    qtbot.waitUntil(lambda: not editor.views.head.isVisible(), timeout=WAIT_MS)
    assert editor.source.viewport().geometry().top() <= editor.source.frameWidth()  # the page has the whole height
    editor.source.verticalScrollBar().setValue(0)
    qtbot.waitUntil(lambda: properties.isVisible() and _top(properties, editor) == before, timeout=WAIT_MS)


def test_the_head_is_above_reading_view_too(qtbot, editor) -> None:
    editor.views.set_view("reading")
    head = editor.views.head
    assert head.parent() is editor.preview and head.isVisible()
    qtbot.waitUntil(lambda: _first_text_top(editor) >= head.geometry().bottom(), timeout=WAIT_MS)


def _first_text_top(editor) -> int:
    """Where Reading view's first line of text is, in the preview's own coordinates."""
    preview = editor.preview
    return preview.viewport().mapTo(preview, preview.cursorRect(preview.document().find("No heading")).topLeft()).y()


def test_reading_view_text_moves_exactly_with_the_scroll_bar_and_its_end_is_reachable(qtbot, editor) -> None:
    editor.views.set_view("reading")
    preview, head = editor.preview, editor.views.head
    qtbot.waitUntil(lambda: preview.document().find("Line 199").position() >= 0, timeout=WAIT_MS)
    bar = preview.verticalScrollBar()
    start, head_top = _first_text_top(editor), head.geometry().top()
    for step in (10, 40, 90):  # while the head leaves: text and head move with the bar, never faster
        bar.setValue(step)
        assert _first_text_top(editor) == start - step and head.geometry().top() == head_top - min(step, head.height())

    def last_line_in_sight() -> bool:  # at the end of the range (laid out in steps, so asked again)
        bar.setValue(bar.maximum())
        last = preview.cursorRect(preview.document().find("Line 199"))
        return 0 <= last.top() and last.bottom() <= preview.viewport().height()

    qtbot.waitUntil(last_line_in_sight, timeout=WAIT_MS)


def test_a_long_value_shows_its_start_and_is_cut_at_its_end(editor) -> None:
    field = editor.views.properties.fields["note"]
    shown = field.shown_text()
    assert shown.startswith("A value long enough") and shown.endswith("…") and "its very end" not in shown
    assert field.toolTip() == LONG  # the whole value on hover


def test_a_list_shows_pills_that_wrap_and_a_tag_pill_searches_its_tag(qtbot, editor) -> None:
    field = editor.views.properties.fields["tags"]
    labels = [label for label, _rect in field.pills()]
    assert labels == ["garden", "summer", "beans"]
    rows = {rect.top() for _label, rect in field.pills(90)}
    assert len(rows) > 1 and field.heightForWidth(90) > field.heightForWidth(600)  # narrow: more rows
    _label, rect = field.pills()[1]
    with qtbot.waitSignal(editor.tag_activated, timeout=WAIT_MS) as blocker:
        qtbot.mouseClick(field, Qt.MouseButton.LeftButton, pos=rect.center())
    assert blocker.args == ["summer"]


def test_clicking_beside_the_pills_edits_the_list_as_text(qtbot, editor) -> None:
    field = editor.views.properties.fields["tags"]
    qtbot.mouseClick(field, Qt.MouseButton.LeftButton, pos=QPoint(field.width() - 5, field.height() // 2))
    qtbot.waitUntil(field.hasFocus, timeout=WAIT_MS)
    assert field.text() == "garden, summer, beans"


def test_renaming_from_the_inline_title_renames_the_file_and_its_links(qtbot, small_services, prompter) -> None:
    from ui_support import run

    from suzent_desktop.ui.window.main_window import MainWindow

    window = MainWindow(small_services, prompter=prompter)
    window.show()
    try:
        notebook = small_services.layout.notebook_dir
        editor = window.editors.open(notebook / "2_Wiki" / "Concepts" / "Vector Search.md")
        title = editor.views.head.title
        title.setText("Semantic Search")
        title.editingFinished.emit()
        renamed = notebook / "2_Wiki" / "Concepts" / "Semantic Search.md"
        qtbot.waitUntil(renamed.exists, timeout=WAIT_MS)
        assert not (notebook / "2_Wiki" / "Concepts" / "Vector Search.md").exists()
        assert "[[Semantic Search]]" in (notebook / "3_Personal" / "Work.md").read_text(encoding="utf-8")
        assert editor.path == renamed and title.text() == "Semantic Search"
        assert window.editors.tabText(window.editors.currentIndex()) == "Semantic Search"
    finally:
        run(qtbot, window.shutdown())
        window.close()
        window.deleteLater()


def test_a_refused_name_puts_the_title_back(qtbot, small_services, prompter) -> None:
    from ui_support import run

    from suzent_desktop.ui.window.main_window import MainWindow

    window = MainWindow(small_services, prompter=prompter)
    window.show()
    try:
        notebook = small_services.layout.notebook_dir
        editor = window.editors.open(notebook / "3_Personal" / "Work.md")
        title = editor.views.head.title
        title.setText("a/b")
        title.editingFinished.emit()
        assert (notebook / "3_Personal" / "Work.md").exists() and title.text() == "Work"
        assert prompter.errors
    finally:
        run(qtbot, window.shutdown())
        window.close()
        window.deleteLater()


@pytest.mark.parametrize("lines", [15, 17, 19])
def test_a_page_that_nearly_fits_can_be_scrolled_to_its_last_line(qtbot, loop, tmp_path: Path, lines: int) -> None:
    from PySide6.QtGui import QTextCursor

    root = tmp_path / "vault"
    root.mkdir()
    (root / "Near.md").write_text("---\ntags: [a]\nnote: b\n---\n" + "".join(
        f"Line {n}\n\n" for n in range(lines)), encoding="utf-8")
    page = open_at_end(qtbot, root, root / "Near.md", (900, 700))
    source, bar = page.source, page.source.verticalScrollBar()
    qtbot.waitUntil(lambda: "note" in page.views.properties.fields, timeout=WAIT_MS)

    def last_line_in_sight() -> bool:
        rect = source.cursorRect(QTextCursor(source.document().findBlockByNumber(source.blockCount() - 2)))
        return 0 <= rect.top() and rect.bottom() <= source.viewport().height()

    bar.setValue(0)
    for _ in range(3):  # scrolled to the end of the range, as far as it goes
        bar.setValue(bar.maximum())
    assert last_line_in_sight()
    bar.setValue(0)
    source.setFocus()
    qtbot.keyClick(source, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    assert last_line_in_sight()
    page.area.deleteLater()
