"""Outline of the open page: its headings as a tree, a click puts the editor's cursor on one.

Headings come from the notebook grammar (:func:`suzent_desktop.core.files.language.markdown.headings`), so a
``#`` line inside a code fence or the frontmatter is not a heading, as everywhere else. The
outline follows the unsaved text: it is rebuilt a moment after the user stops typing, from
headings read on a worker thread (a long page takes tens of milliseconds to read), and shown only
if the text is still the one read.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from suzent_desktop.core.files.language.markdown import headings
from suzent_desktop.ui.page.editor import PageEditor
from suzent_desktop.ui.workspace.editor_area import EditorArea

if TYPE_CHECKING:
    from suzent_desktop.ui.workspace.split_editors import SplitEditors
from suzent_desktop.ui.panes.common import EmptyHint

OUTLINE_DELAY_MS = 300
READ_NOW_LINES = 300  # a page this long or shorter shows its outline at once; a longer one a moment later
_READER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="outline")
LINE_ROLE = Qt.ItemDataRole.UserRole


class _Carrier(QObject):
    """Brings headings from the reader thread to the GUI thread. It lives as long as the process: a
    signal of the pane itself could be emitted by the reader after Qt deleted the pane, which crashes."""

    read = Signal(object, object, str, object)  # (pane, editor, text read, its headings)


_CARRIER: _Carrier | None = None


def _carrier() -> _Carrier:
    global _CARRIER
    if _CARRIER is None:
        _CARRIER = _Carrier()
    return _CARRIER


class OutlinePane(QWidget):
    """Headings of the current editor, nested by level."""

    def __init__(self, editors: EditorArea | SplitEditors, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.editors = editors
        self.editor: PageEditor | None = None
        self.tree = QTreeWidget(self)
        self.tree.setHeaderHidden(True)
        self.tree.setUniformRowHeights(True)
        self.tree.itemClicked.connect(self._jump)
        self.tree.itemActivated.connect(self._jump)
        self.hint = EmptyHint(self.tree, "The headings of the open page appear here. Start a line with # to "
                              "make a heading.")
        self.empty = QLabel("No headings in this page", self)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setEnabled(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.empty, 1)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(OUTLINE_DELAY_MS)
        self._timer.timeout.connect(self.refresh_soon)
        _carrier().read.connect(self._headings_read)  # dropped by Qt when the pane is deleted
        editors.current_page_changed.connect(lambda _path: self.follow(editors.current_editor()))
        self.follow(editors.current_editor())

    def follow(self, editor: PageEditor | None) -> None:
        """Show ``editor``'s headings and keep up with its text."""
        if editor is self.editor:
            return
        if self.editor is not None:
            try:
                self.editor.source.textChanged.disconnect(self._timer.start)
            except (RuntimeError, TypeError):
                pass  # the editor's widgets are already gone
        self.editor = editor
        if editor is not None:
            editor.source.textChanged.connect(self._timer.start)
            editor.destroyed.connect(self._editor_destroyed)
            if editor.source.document().blockCount() > READ_NOW_LINES:  # a long page: read off the GUI thread
                self._show([])
                self.refresh_soon()
                return
        self.refresh()

    def _editor_destroyed(self, *_args: object) -> None:
        """The followed editor is gone (its tab closed): forget it, unless this pane is going too."""
        if shiboken6.isValid(self) and self.editor is not None and not shiboken6.isValid(self.editor):
            self.editor = None
            self.refresh()

    def refresh_soon(self) -> None:
        """After typing: read the headings on the reader thread, show them when they are in."""
        editor = self.editor
        if editor is None:
            self.refresh()
            return
        text = editor.text()

        carrier = _carrier()

        def work() -> None:
            carrier.read.emit(self, editor, text, headings(text))

        _READER.submit(work)

    def _headings_read(self, pane: OutlinePane, editor: PageEditor, text: str, found: list) -> None:
        if pane is not self or not shiboken6.isValid(self):
            return
        if editor is self.editor and shiboken6.isValid(editor) and editor.text() == text:
            self._show(found)

    def refresh(self) -> None:
        self._show(headings(self.editor.text()) if self.editor is not None else [])

    def _show(self, found: list) -> None:
        self._timer.stop()
        self.tree.clear()
        parents: list[tuple[int, QTreeWidgetItem]] = []  # (level, item) of the open ancestors
        for line, level, title in found:
            while parents and parents[-1][0] >= level:
                parents.pop()
            item = QTreeWidgetItem([title or "(untitled)"])
            item.setData(0, LINE_ROLE, line)
            item.setToolTip(0, f"Line {line}")
            if parents:
                parents[-1][1].addChild(item)
            else:
                self.tree.addTopLevelItem(item)
            parents.append((level, item))
        self.tree.expandAll()
        self.tree.setVisible(bool(found))
        self.empty.setVisible(not found)
        self.empty.setText("No headings in this page" if self.editor is not None else "No page open")

    def titles(self) -> list[tuple[int, str]]:
        """(depth, title) of every row, in order (what a reader sees)."""
        rows: list[tuple[int, str]] = []

        def walk(item: QTreeWidgetItem | None, depth: int) -> None:
            if item is None:
                return
            rows.append((depth, item.text(0)))
            for index in range(item.childCount()):
                walk(item.child(index), depth + 1)

        for index in range(self.tree.topLevelItemCount()):
            walk(self.tree.topLevelItem(index), 0)
        return rows

    def _jump(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        if self.editor is None:
            return
        self.editor.goto_line(int(item.data(0, LINE_ROLE)))
        self.editor.source.setFocus()
