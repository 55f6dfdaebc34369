"""Sync conflicts: the conflict copies a sync tool left, and pages with git's markers, each one click
from a comparison with the file it belongs to (the dream panel's diff view).

A copy of a daily log or a transcript is already merged by the readers; the list says so. A
copy of a page waits for the person to keep what they want; double-clicking opens it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.operations import sync_conflicts
from suzent_desktop.ui.panes.common import Pane
from suzent_desktop.ui.panes.diff_view import PAGE_ROLE, DiffView

if TYPE_CHECKING:
    from suzent_desktop.ui.base.services import AppServices

NONE_FOUND = "No sync conflicts: no conflict copies and no pages with git conflict markers."


class SyncConflictsPane(Pane):
    """The list of conflict files; selecting one shows its diff against the original."""

    # An absolute path the user wants to open (a page's copy, to resolve it by hand).
    open_requested = Signal(Path)

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(services, parent)
        self.paths: dict[str, Path] = {}
        self.notes: dict[str, str] = {}
        self.header = QLabel(self)
        self.header.setWordWrap(True)
        self.note = QLabel(self)  # what the selected file is, and what to do about it
        self.note.setWordWrap(True)
        self.diffs = DiffView(self)
        self.diffs.pages.currentItemChanged.connect(self._selected)
        self.diffs.open_requested.connect(self._open_label)
        refresh = QPushButton("Look again", self)
        refresh.setToolTip("Look for conflict copies again (after the sync tool ran)")
        refresh.clicked.connect(self.refresh)
        row = QHBoxLayout()
        row.addWidget(self.header, 1)
        row.addWidget(refresh)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(row)
        layout.addWidget(self.note)
        layout.addWidget(self.diffs, 1)
        self.refresh()

    def _open_label(self, label: str) -> None:
        if label in self.paths:
            self.open_requested.emit(self.paths[label])

    def wants(self, changes: ChangeSet) -> bool:
        return bool(changes.pages)

    async def load(self) -> None:
        entries = await asyncio.to_thread(sync_conflicts, self.services.manager)
        if not self.alive():
            return
        self.paths = {e.label: e.path for e in entries}
        self.notes = {e.label: e.note for e in entries}
        self.diffs.set_pages([e.label for e in entries], {e.label: e.diff for e in entries}, empty=NONE_FOUND)
        self._selected()
        count = len(entries)
        self.header.setText(f"{count} sync conflict{'' if count == 1 else 's'}" if count else NONE_FOUND)

    def labels(self) -> list[str]:
        return self.diffs.page_names()

    def _selected(self, *_: object) -> None:
        item = self.diffs.pages.currentItem()
        self.note.setText(self.notes.get(item.data(PAGE_ROLE), "") if item is not None else "")
