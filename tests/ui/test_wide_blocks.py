"""Wide blocks in Reading view stay inside the pane: a table wider than the pane is held to its
width (its cells wrap), code wraps inside its band; the page itself never scrolls sideways. A
narrow table keeps its own width."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QTextTable
from ui_support import WAIT_MS

from suzent_desktop.ui.workspace.editor_area import EditorArea

WIDE = ("| " + " | ".join(f"Column header {i}" for i in range(12)) + " |\n|" + "---|" * 12 + "\n| "
        + " | ".join(f"value number {i} with words" for i in range(12)) + " |\n")
NARROW = "| Name | Kind |\n|---|---|\n| beans | seed |\n"


def _tables(document) -> list[QTextTable]:
    found, frames = [], [document.rootFrame()]
    while frames:
        frame = frames.pop()
        if isinstance(frame, QTextTable):
            found.append(frame)
        frames.extend(frame.childFrames())
    return found


def test_a_wide_table_stays_inside_the_pane_and_a_narrow_one_keeps_its_width(qtbot, loop, tmp_path: Path) -> None:
    (tmp_path / "Tables.md").write_text(f"# Tables\n\n{NARROW}\n\n{WIDE}\n\nAfter.\n", encoding="utf-8")
    area = EditorArea(tmp_path)
    area.resize(700, 600)
    area.show()
    qtbot.waitExposed(area)
    editor = area.open(tmp_path / "Tables.md")
    editor.views.set_view("reading")
    qtbot.waitUntil(lambda: "After." in editor.preview.toPlainText(), timeout=WAIT_MS)
    preview = editor.preview
    assert preview.horizontalScrollBar().maximum() == 0
    layout = preview.document().documentLayout()
    narrow, wide = sorted(_tables(preview.document()), key=lambda t: t.columns())
    assert layout.frameBoundingRect(wide).width() <= preview.viewport().width()
    assert layout.frameBoundingRect(narrow).width() < preview.viewport().width() / 2
    area.close()
