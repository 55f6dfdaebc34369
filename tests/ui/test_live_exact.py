"""Live Preview draws exactly what is in the file: the text a line shows is its text less its
markup, no character drawn over another, nothing left painted from before, headings at their size
whatever the theme, embeds drawn in callouts too."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QTextCursor
from test_live_preview import _png
from ui_support import WAIT_MS, open_at_end

# (line as in the file, the text Live Preview shows for it while the cursor is elsewhere)
CORPUS = [
    ("Some **bold** and *italic* and __strong__ words", "Some bold and italic and strong words"),
    ("natively on [[Obsidian Publish and a rather long page name|Obsidian Publish]] ok",
     "natively on Obsidian Publish ok"),
    ("see [[Page]] and [[Page#Heading|an alias]] and [[Page#Heading]]", "see Page and an alias and Page#Heading"),
    ("`code` and ~~gone~~ and ==marked== text", "code and gone and marked text"),
    ("a [web link](https://example.com/a/very/long/path/to/somewhere/far) end", "a web link end"),
    ("[[A]][[B|bee]]**x**`y`", "AbeexY".replace("Y", "y")),
    ("# Heading one", "Heading one"),
    ("### Third *level*", "Third level"),
    ("> quoted **words** here", "quoted words here"),
    ("- item with [[Target page|the alias]]", "item with the alias"),
    ("- [ ] a task **now**", "a task now"),
    ("1. first [[Page|numbered]] item", "1. first numbered item"),
    ("> [!tip] Mind the frost", "Mind the frost"),
    ("A line with a block id ^abc-1", "A line with a block id"),
    ("%%a comment%% and #tag/sub here", "%%a comment%% and #tag/sub here"),
    ("plain words, nothing to hide", "plain words, nothing to hide"),
]


def _screen_text(block) -> tuple[str, list[str]]:
    """The characters a line draws, in order (those taking room and written in a visible colour),
    and the places where one is drawn over the one before it."""
    layout = block.layout()
    text = block.text()
    formats = layout.formats()
    shown, overlaps = [], []
    right = None
    for i, char in enumerate(text):
        line = layout.lineForTextPosition(i)
        x1, x2 = line.cursorToX(i)[0], line.cursorToX(i + 1)[0]
        if x2 - x1 < -0.01:
            overlaps.append(f"{char!r} at {i} goes back {x1 - x2:.1f} px")
        fmt = next((f.format for f in formats if f.start <= i < f.start + f.length), None)
        visible = fmt is None or fmt.foreground().color().alpha() > 0
        if x2 - x1 > 1.0 and visible:
            if right is not None and x1 < right - 0.01:
                overlaps.append(f"{char!r} at {i} drawn over the character before it")
            shown.append(char)
            right = x2
    return "".join(shown).strip(), overlaps


@pytest.fixture
def corpus_page(qtbot, loop, tmp_path: Path):
    root = tmp_path / "vault"
    root.mkdir()
    (root / "Corpus.md").write_text("\n\n".join(line for line, _ in CORPUS) + "\n\nend\n", encoding="utf-8")
    page = open_at_end(qtbot, root, root / "Corpus.md", (1400, 900))
    yield page
    page.area.deleteLater()


def test_each_line_shows_its_text_less_its_markup_and_no_character_over_another(corpus_page) -> None:
    document = corpus_page.source.document()
    for number, (line, expected) in enumerate(CORPUS):
        block = document.findBlockByNumber(2 * number)
        assert block.text() == line
        shown, overlaps = _screen_text(block)
        assert shown == expected, line
        assert overlaps == [], line


def _settled_screen_matches_a_fresh_paint(qtbot, page) -> None:
    """What is on screen (the window's backing store) is what painting the editor anew draws: no
    line left where it was painted before."""
    viewport = page.source.viewport()
    window = viewport.window()
    top = viewport.mapTo(window, QPoint(0, 0))

    def same() -> bool:
        screen = window.screen().grabWindow(window.winId(), top.x(), top.y(), viewport.width(),
                                            viewport.height()).toImage()
        fresh = viewport.grab().toImage().convertToFormat(screen.format())
        return screen == fresh

    qtbot.waitUntil(same, timeout=3000)


@pytest.fixture
def table_page(qtbot, loop, tmp_path: Path):
    root = tmp_path / "vault"
    root.mkdir()
    (root / "T.md").write_text("intro\n\n## A heading to push\n\ntext\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
                               "| 3 | 4 |\n\nafter\n", encoding="utf-8")
    page = open_at_end(qtbot, root, root / "T.md", (800, 600))
    page.source.setCursorWidth(0)  # a blinking cursor is no stale paint: not drawn here
    yield page
    page.area.deleteLater()


def _cursor_to(page, number: int, column: int = 0) -> None:
    block = page.source.document().findBlockByNumber(number)
    cursor = QTextCursor(block)
    cursor.setPosition(block.position() + column)
    page.source.setTextCursor(cursor)


def test_a_table_left_by_the_cursor_leaves_no_source_row_painted(qtbot, table_page) -> None:
    _settled_screen_matches_a_fresh_paint(qtbot, table_page)
    _cursor_to(table_page, 9)  # into the table: its source shows
    _settled_screen_matches_a_fresh_paint(qtbot, table_page)
    _cursor_to(table_page, 11)  # out of it: the grid again, no source row left behind
    _settled_screen_matches_a_fresh_paint(qtbot, table_page)


def test_enter_before_a_heading_leaves_no_old_heading_painted(qtbot, table_page) -> None:
    _cursor_to(table_page, 2)
    _settled_screen_matches_a_fresh_paint(qtbot, table_page)
    qtbot.keyClick(table_page.source, Qt.Key.Key_Return)
    assert table_page.source.document().findBlockByNumber(3).text() == "## A heading to push"
    _settled_screen_matches_a_fresh_paint(qtbot, table_page)
    _cursor_to(table_page, 11)
    _settled_screen_matches_a_fresh_paint(qtbot, table_page)


def test_headings_keep_their_size_across_theme_switches(qtbot, table_page, theme_manager) -> None:
    from suzent_desktop.ui.live.live_syntax import HEADING_SCALE
    from suzent_desktop.ui.page.views import live_font

    document = table_page.source.document()
    theme_manager.theme_changed.connect(table_page.area.refresh_theme)

    def heading_size() -> float:
        block = document.findBlockByNumber(2)
        sizes = {f.format.fontPointSize() for f in block.layout().formats() if f.format.fontPointSize() > 1}
        return max(sizes)

    expected = live_font().pointSizeF() * HEADING_SCALE[2]
    assert heading_size() == pytest.approx(expected)
    for mode in ("dark", "light", "dark"):
        theme_manager.set_mode(mode)
        assert table_page.source.font().pointSizeF() == live_font().pointSizeF()
        assert heading_size() == pytest.approx(expected)


def test_an_image_embed_in_a_callout_is_drawn_in_place(qtbot, loop, tmp_path: Path) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "dot.png").write_bytes(_png(40, 120))
    (root / "C.md").write_text("> [!note] A picture\n> ![[dot.png]]\n> below it\n\nend\n", encoding="utf-8")
    page = open_at_end(qtbot, root, root / "C.md", (800, 600))
    try:
        block = page.source.document().findBlockByNumber(1)
        qtbot.waitUntil(lambda: block.layout().boundingRect().height() >= 120, timeout=WAIT_MS)
        _, overlaps = _screen_text(block)
        assert _screen_text(block)[0] == "" and overlaps == []  # the embed's source is not written
    finally:
        page.area.deleteLater()
