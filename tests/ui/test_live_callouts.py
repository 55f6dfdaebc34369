"""Callouts in Live Preview as in Obsidian: the family's icon (from the app's icon set) before the
title, ``-`` folded and ``+`` open, and a click on the chevron folds or unfolds the callout in the
view without touching the file."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor
from ui_support import WAIT_MS, open_at_end

from suzent_desktop.ui.live.live_preview import _family_colours

PAGE = (
    "# Callouts\n"               # 0
    "\n"                         # 1
    "> [!warning] Frost\n"       # 2
    "> Cover the beans.\n"       # 3
    "\n"                         # 4
    "> [!tip]- Folded tip\n"     # 5
    "> Hidden line one.\n"       # 6
    "> Hidden line two.\n"       # 7
    "\n"                         # 8
    "> [!note]+ Open note\n"     # 9
    "> Shown line.\n"            # 10
    "\n"                         # 11
    "last line\n"                # 12
)


@pytest.fixture
def page(qtbot, loop, tmp_path: Path):
    (tmp_path / "Callouts.md").write_text(PAGE, encoding="utf-8")
    editor = open_at_end(qtbot, tmp_path, tmp_path / "Callouts.md")
    yield editor
    editor.area.deleteLater()


def _block(editor, number: int):
    return editor.source.document().findBlockByNumber(number)


def _visible(editor, number: int) -> bool:
    return _block(editor, number).isVisible()


def _chevron_point(editor, number: int) -> QPoint:
    block = _block(editor, number)
    rect = editor.source.blockBoundingGeometry(block).translated(editor.source.contentOffset())
    return editor.source._chevron_rect(block, rect).center().toPoint()


def test_a_folded_callout_hides_its_body_and_an_open_one_shows_it(qtbot, page) -> None:
    qtbot.waitUntil(lambda: not _visible(page, 6), timeout=WAIT_MS)
    assert not _visible(page, 7)
    assert _visible(page, 3) and _visible(page, 10) and _visible(page, 12)
    page.views.set_view("source")
    assert all(_visible(page, n) for n in range(13))
    page.views.set_view("live")
    qtbot.waitUntil(lambda: not _visible(page, 6), timeout=WAIT_MS)


def test_a_click_on_the_chevron_folds_and_unfolds_without_an_edit(qtbot, page) -> None:
    qtbot.waitUntil(lambda: not _visible(page, 6), timeout=WAIT_MS)
    qtbot.mouseClick(page.source.viewport(), Qt.MouseButton.LeftButton, pos=_chevron_point(page, 5))
    qtbot.waitUntil(lambda: _visible(page, 6) and _visible(page, 7), timeout=WAIT_MS)
    qtbot.mouseClick(page.source.viewport(), Qt.MouseButton.LeftButton, pos=_chevron_point(page, 9))
    qtbot.waitUntil(lambda: not _visible(page, 10), timeout=WAIT_MS)
    assert page.text() == PAGE and not page.dirty
    assert page.source.textCursor().blockNumber() == page.source.blockCount() - 1  # the cursor stayed


def test_each_callout_shows_its_familys_icon_before_the_title(qtbot, page) -> None:
    block = _block(page, 2)
    source = page.source
    rect = source.blockBoundingGeometry(block).translated(source.contentOffset())
    room = source._column_rect(block, rect, 2, 3)  # the "[" of "> [!warning]", widened for the icon
    assert room.width() >= 14
    image = source.viewport().grab().toImage()
    accent = _family_colours(7, False)[0]  # the warning family's colour

    def near(colour: QColor) -> bool:
        return abs(colour.red() - accent.red()) + abs(colour.green() - accent.green()) + abs(colour.blue() - accent.blue()) < 90

    pixels = [image.pixelColor(x, y) for x in range(int(room.left()), int(room.right()))
              for y in range(int(room.top()), int(room.bottom()))]
    assert sum(near(colour) for colour in pixels) >= 8
