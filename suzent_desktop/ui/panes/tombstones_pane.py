"""Forgotten memories: review every tombstone and undo one.

Undo is the Forget service's ``undo``: an "undone" record (the tombstone file is history,
never rewritten), the page lines forgetting took off put back, and the index caught up.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.language.words import count
from suzent_desktop.core.files.records.tombstones import Tombstone, normalize
from suzent_desktop.core.operations import forgotten_list
from suzent_desktop.ui.panes.common import EmptyHint, Pane

if TYPE_CHECKING:
    from suzent_desktop.ui.base.services import AppServices

STONE_ROLE = Qt.ItemDataRole.UserRole + 1
TEXT_ROLE = Qt.ItemDataRole.UserRole + 2  # the text as the user wrote it (the tombstone is folded)


class TombstonesPane(Pane):
    """The list of tombstones, newest first, with Undo."""

    # Emitted after an undo finished and the files were reindexed (argument: the text).
    undone = Signal(str)

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(services, parent)
        self.stones: list[Tombstone] = []
        self.problems: list[Any] = []
        self._build()
        self.refresh()

    def _build(self) -> None:
        self.header = QLabel(self)
        self.header.setWordWrap(True)
        self.list = QListWidget(self)
        self.list.setWordWrap(True)
        self.hint = EmptyHint(self.list, "Nothing forgotten. Forget a search hit (its context menu) to keep it "
                              "out of search; it is listed here, with undo.")
        self.undo_button = QPushButton("Undo forget", self)
        self.list.currentItemChanged.connect(
            lambda *_: self.undo_button.setEnabled(self.list.currentItem() is not None)
        )
        self.undo_button.setToolTip("Bring this memory back to search")
        self.undo_button.setEnabled(False)
        self.undo_button.clicked.connect(self.undo_selected)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.undo_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.header)
        layout.addWidget(self.list, 1)
        layout.addLayout(row)

    def wants(self, changes: ChangeSet) -> bool:
        return changes.tombstones

    async def load(self) -> None:
        stones, problems = await asyncio.to_thread(forgotten_list, self.services.manager)
        if not self.alive():
            return
        self.stones, self.problems = stones, problems
        self.list.clear()
        seen: set[str] = set()
        for stone in reversed(stones):
            if stone.content in seen or stone.record.get("of"):  # a source turn comes back with its text
                continue
            seen.add(stone.content)
            when = str(stone.record.get("ts", ""))[:16].replace("T", " ")
            source = stone.record.get("source", "")
            reason = stone.record.get("reason", "")
            meta = " · ".join(x for x in (when, source, reason) if x)
            shown = str(stone.record.get("text") or stone.content)  # as written; older records keep only the folded text
            item = QListWidgetItem(f"{shown}\n    {meta}" if meta else shown, self.list)
            item.setData(STONE_ROLE, stone.content)
            item.setData(TEXT_ROLE, shown)
        self._show_header()

    def _show_header(self) -> None:
        """How many memories the list holds now (an undo takes its row off at once)."""
        shown = self.list.count()
        text = f"{shown} forgotten memor{'y' if shown == 1 else 'ies'}"
        if self.problems:
            text += (f" · {count(len(self.problems), 'unreadable line')} in "
                     f"{self.services.manager.layout.tombstones_file.name}")
        self.header.setText(text)
        self.undo_button.setEnabled(self.list.currentItem() is not None)

    def contents(self) -> list[str]:
        return [self.list.item(i).data(STONE_ROLE) for i in range(self.list.count())]

    def select(self, content: str) -> None:
        wanted = normalize(content)
        for i in range(self.list.count()):
            if self.list.item(i).data(STONE_ROLE) == wanted:
                self.list.setCurrentRow(i)
                return

    def undo_selected(self) -> asyncio.Task[Any] | None:
        item = self.list.currentItem()
        if item is None:
            return None
        content, written = item.data(STONE_ROLE), item.data(TEXT_ROLE) or item.data(STONE_ROLE)
        if not self.confirm("Undo forget?", f"“{written}”\n\nThis memory will be searchable again."):
            return None
        self.list.takeItem(self.list.row(item))
        self._show_header()
        return self.run_job("undo", self._undo(content, written), supersede=False)

    async def _undo(self, content: str, written: str) -> None:
        changes = await self.services.manager.forgetting.undo(content)
        where = f"; lines put back in {count(len(changes.pages), 'page')}" if changes.pages else ""
        self.report(f"Restored “{written[:60]}” ({count(changes.rows_added, 'row')} back in search{where})")
        if self.alive():
            self.undone.emit(content)
        self.publish(changes)
