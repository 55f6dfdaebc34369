"""Typing in Live Preview costs what the edited line costs: a keystroke lays out and repaints
that line, not the whole page or the whole window (a long page types as fast as a short one)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QObject, QRect, Qt
from PySide6.QtGui import QTextCursor
from ui_support import WAIT_MS

from suzent_desktop.ui.workspace.editor_area import EditorArea

LINE = "Some **bold** words, a [[Other|link]], #tag and `code` on line {n}.\n"


class PaintRecorder(QObject):
    """The areas the editor's viewport is asked to repaint."""

    def __init__(self) -> None:
        super().__init__()
        self.rects: list[QRect] = []

    def eventFilter(self, _watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Paint:
            self.rects.append(event.rect())
        return False


@pytest.fixture
def page(qtbot, loop, tmp_path: Path):
    root = tmp_path / "vault"
    root.mkdir()
    (root / "Long.md").write_text("# Long\n\n" + "".join(LINE.format(n=n) for n in range(400)), encoding="utf-8")
    area = EditorArea(root)
    area.resize(900, 700)
    area.show()
    qtbot.waitExposed(area)
    editor = area.open(root / "Long.md")
    editor.area = area
    block = editor.source.document().findBlockByNumber(200)
    cursor = QTextCursor(block)
    cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock)
    editor.source.setTextCursor(cursor)
    editor.source.centerCursor()
    editor.source.setFocus()
    qtbot.waitUntil(lambda: not editor.highlighter.deferred, timeout=WAIT_MS)
    yield editor
    editor.load()  # the typing dropped: the page goes away saved
    area.deleteLater()


@pytest.fixture
def heading_threads(monkeypatch) -> list[str]:
    """The threads the outline reads headings on, as it reads them."""
    import threading

    from suzent_desktop.ui.panes import outline as outline_module

    threads: list[str] = []
    real = outline_module.headings

    def spy(text: str):  # noqa: ANN202 - the grammar's own result
        threads.append(threading.current_thread().name)
        return real(text)

    monkeypatch.setattr(outline_module, "headings", spy)
    return threads


@pytest.mark.parametrize("view", ["live", "source"])
def test_a_keystroke_repaints_the_edited_line_not_the_page(qtbot, page, view: str) -> None:
    page.views.set_view(view)
    qtbot.waitUntil(lambda: not page.highlighter.deferred, timeout=WAIT_MS)  # the new look's restyling done
    viewport = page.source.viewport()
    recorder = PaintRecorder()
    viewport.installEventFilter(recorder)
    area = PaintRecorder()
    page.area.installEventFilter(area)
    qtbot.keyClick(page.source, Qt.Key.Key_Space)  # the page turns unsaved: its tab's title changes once
    # the tabs laid out again for the new title, and the area repainted for it (a later keystroke's
    # measure must not catch that repaint)
    qtbot.waitUntil(lambda: any(rect.height() >= page.area.height() for rect in area.rects), timeout=WAIT_MS)
    recorder.rects.clear()
    viewport.update()  # what is still to paint from opening the page, painted first
    qtbot.waitUntil(lambda: bool(recorder.rects), timeout=WAIT_MS)
    for key in (Qt.Key.Key_A, Qt.Key.Key_Space, Qt.Key.Key_B):
        recorder.rects.clear()
        qtbot.keyClick(page.source, key)
        qtbot.waitUntil(lambda: bool(recorder.rects), timeout=WAIT_MS)
        line = page.source.cursorRect().height()
        tallest = max(rect.height() for rect in recorder.rects)
        assert tallest <= 3 * line < viewport.height() / 4, (view, key, tallest, line)
    assert page.source.document().findBlockByNumber(200).text().endswith(" a b")


def test_the_outline_reads_typed_headings_off_the_window_thread(qtbot, page, heading_threads) -> None:
    import threading

    from suzent_desktop.ui.panes import outline as outline_module

    pane = outline_module.OutlinePane(page.area)
    threads = heading_threads
    page.source.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClicks(page.source, "# Typed")
    qtbot.waitUntil(lambda: pane.titles()[-1:] == [(0, "Typed")], timeout=WAIT_MS)
    assert threads and threading.main_thread().name not in threads
    pane.deleteLater()


def test_headings_read_after_the_outline_closed_reach_no_deleted_pane(qtbot, page, monkeypatch) -> None:
    """The reader thread may finish after Qt deleted the pane (its dock closed): nothing is emitted on
    the deleted pane (that crashed the process), and a live pane still shows its own headings."""
    import threading

    import shiboken6

    from suzent_desktop.ui.panes import outline as outline_module

    gone = outline_module.OutlinePane(page.area)
    started, release = threading.Event(), threading.Event()
    real = outline_module.headings

    def slow(text: str):  # noqa: ANN202 - the grammar's own result
        started.set()
        release.wait(10)
        return real(text)

    monkeypatch.setattr(outline_module, "headings", slow)
    gone.refresh_soon()
    assert started.wait(10)
    shiboken6.delete(gone)  # the pane is deleted while its headings are being read
    release.set()
    monkeypatch.setattr(outline_module, "headings", real)
    alive = outline_module.OutlinePane(page.area)
    page.source.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClicks(page.source, "# After")
    qtbot.waitUntil(lambda: alive.titles()[-1:] == [(0, "After")], timeout=WAIT_MS)
    alive.deleteLater()


@pytest.mark.parametrize("view", ["live", "source"])
def test_a_long_page_is_styled_near_the_view_first_and_the_far_lines_after(qtbot, page, view: str) -> None:
    """Opening or switching a long page styles the screens in view at once; a far line gets its
    look in a later slice, so the window never waits for the whole page to be styled."""
    page.views.set_view(view)
    qtbot.waitUntil(lambda: not page.highlighter.deferred, timeout=WAIT_MS)
    page.source.moveCursor(QTextCursor.MoveOperation.Start)
    page.source.ensureCursorVisible()
    far = page.source.document().lastBlock().previous()
    page.load()  # opened again, in this view
    first = page.source.document().firstBlock().next().next()
    assert first.layout().formats(), "the lines in view are styled at once"
    assert not far.layout().formats() and page.highlighter.deferred, "the far lines wait for a later slice"
    qtbot.waitUntil(lambda: not page.highlighter.deferred, timeout=WAIT_MS)
    assert far.layout().formats(), "and are styled after"


def test_the_outline_of_a_long_page_opened_is_read_off_the_window_thread(qtbot, page, heading_threads) -> None:
    import threading

    from suzent_desktop.ui.panes import outline as outline_module

    threads = heading_threads
    pane = outline_module.OutlinePane(page.area)  # follows the open 400-line page from the start
    qtbot.waitUntil(lambda: pane.titles() == [(0, "Long")], timeout=WAIT_MS)
    assert threads and threading.main_thread().name not in threads
    pane.deleteLater()


@pytest.mark.parametrize("view", ["live", "source"])
def test_far_lines_styled_later_end_as_if_styled_at_once(qtbot, page, view: str) -> None:
    """Fences, front matter and callouts past the first screens carry the same block state to the
    lines after them when they are styled in slices as when the whole page is styled at once."""
    far = ("```\n# not a heading\n> not a quote\n```\n> [!tip] A tip\n> its body\n\n    ~~~\n    - in code\n    ~~~\n"
           "---\nafter a rule\n")
    page.path.write_text("---\ntitle: Long\n---\n" + LINE.format(n=0) * 300 + far + LINE.format(n=1) * 5,
                         encoding="utf-8")
    page.views.set_view(view)
    page.load()
    qtbot.waitUntil(lambda: not page.highlighter.deferred, timeout=WAIT_MS)

    def states() -> list[int]:
        block, out = page.source.document().firstBlock(), []
        while block.isValid():
            out.append(block.userState())
            block = block.next()
        return out

    sliced = states()
    page.highlighter.rehighlight()  # every line at once
    assert sliced == states()
