"""Tables in Live Preview: away from the cursor a table is drawn as aligned cells (its source
laid out but not written); with the cursor on any of its rows the whole table shows its source."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QTextCursor
from ui_support import WAIT_MS, open_at_end

PAGE = (
    "# Plants\n"                                     # 0
    "\n"                                             # 1
    "| Name | Kind | Notes |\n"                      # 2
    "|---|:-:|---|\n"                                # 3
    "| runner beans | seed | water **daily** |\n"   # 4
    "| kale | leaf | hardy |\n"                      # 5
    "\n"                                             # 6
    "last line\n"                                    # 7
)


@pytest.fixture
def page(qtbot, loop, tmp_path: Path):
    (tmp_path / "Plants.md").write_text(PAGE, encoding="utf-8")
    editor = open_at_end(qtbot, tmp_path, tmp_path / "Plants.md", (800, 600))
    yield editor
    editor.area.deleteLater()


def _block(editor, number: int):
    return editor.source.document().findBlockByNumber(number)


def _written(editor, number: int) -> bool:
    """Whether the line's source text is drawn (not transparent)."""
    formats = _block(editor, number).layout().formats()
    return not formats or any(f.format.foreground().color().alpha() > 0 for f in formats)


def _put_cursor(editor, number: int) -> None:
    editor.source.setTextCursor(QTextCursor(_block(editor, number)))


def test_a_table_away_from_the_cursor_is_drawn_as_aligned_cells(qtbot, page) -> None:
    assert not any(_written(page, n) for n in range(2, 6)) and _written(page, 7)
    drawn = page.source.table_grid(_block(page, 4))
    assert drawn is not None
    first, grid = drawn
    assert first == 2 and grid.rows[2] == ("runner beans", "seed", "water daily")  # markup dropped
    metrics = page.source.fontMetrics()
    widths = [b - a for a, b in zip(grid.edges, grid.edges[1:], strict=False)]
    assert widths[0] > metrics.horizontalAdvance("runner beans") > widths[1]  # each column fits its widest cell
    assert page.source.document().findBlockByNumber(3).layout().boundingRect().height() < 4  # the rule row folds


def test_the_whole_table_shows_its_source_while_one_row_is_edited(qtbot, page) -> None:
    _put_cursor(page, 5)
    qtbot.waitUntil(lambda: all(_written(page, n) for n in range(2, 6)), timeout=WAIT_MS)
    assert page.source.table_grid(_block(page, 4)) is None
    _put_cursor(page, 7)
    qtbot.waitUntil(lambda: not any(_written(page, n) for n in range(2, 6)), timeout=WAIT_MS)
    assert not page.dirty
