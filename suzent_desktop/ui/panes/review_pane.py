"""Review: what the memory learned since the last look, one item at a time, from the keyboard.

The list comes from the engine (``manager.reviewing``, off the GUI thread): bullets the
dream added, merged or superseded, MEMORY.md lines gained or lost (or waiting for approval),
facts no page holds; items the engine is unsure of first, their reason in red. The selected
item's provenance card shows below. Keys on the list: N or J next, P previous, K keep (mark
reviewed), F forget, E edit the bullet in place, O open its page. "Mark all reviewed" settles
the list, "Accept MEMORY.md" gives the agent the proposed MEMORY.md. The Source pane shows the
same card for the editor's line and a search hit.
"""

from __future__ import annotations

import asyncio
import html
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QKeyEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from suzent_desktop.core.engines.memory_md import memory_approval
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.language.words import count
from suzent_desktop.ui.page.provenance_view import CardBrowser, CardLoader
from suzent_desktop.ui.panes.common import EmptyHint, Pane

if TYPE_CHECKING:
    from suzent_desktop.ui.base.services import AppServices

ITEM_ROLE = Qt.ItemDataRole.UserRole + 1
CARD_DELAY_MS = 120  # keys held down step through many items: load the card of the one that stays
COUNT_DELAY_MS = 400  # change-sets come in bursts during a dream: count once they settle
KIND_TEXT = {
    "added": "added",
    "merged": "merged",
    "superseded": "superseded",
    "memory_gained": "MEMORY.md +",
    "memory_lost": "MEMORY.md −",
    "not_consolidated": "not consolidated",
    "dropped": "dropped by a dream",
}
UNSURE_COLOR = "#c62828"
PAGE_KINDS = ("added", "merged", "superseded")


class ReviewPane(Pane):
    """The review list, its card, and the actions that settle items."""

    count_changed = Signal(int)
    card_shown = Signal()

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(services, parent)
        self.items: list[Any] = []
        self.proposal = False
        self._editing: QTreeWidgetItem | None = None
        self._count_timer = QTimer(self)
        self._count_timer.setSingleShot(True)
        self._count_timer.setInterval(COUNT_DELAY_MS)
        self._count_timer.timeout.connect(self.refresh)
        self.loader = CardLoader(services.manager)
        self._card_timer = QTimer(self)
        self._card_timer.setSingleShot(True)
        self._card_timer.setInterval(CARD_DELAY_MS)
        self._card_timer.timeout.connect(self._load_current_card)
        self._build()
        self.refresh()

    def _build(self) -> None:
        layout = self.services.layout
        manager = self.services.manager
        self.list = QTreeWidget(self)
        self.list.setHeaderLabels(["Memory", "Change", "Where", "Date"])
        self.list.setRootIsDecorated(False)
        self.list.setUniformRowHeights(True)
        self.list.currentItemChanged.connect(lambda _item, _old: self._card_timer.start())
        self.list.itemChanged.connect(self._edited)
        self.list.installEventFilter(self)
        self.hint = EmptyHint(self.list, "Nothing to review: what the next dream learns appears here.")
        self.card = CardBrowser(layout.notebook_dir, layout.memory_md,
                                lambda date: manager.reviewing.turns(date), self)
        self.card.open_page.connect(lambda path, line: self.services.bridge.open_path.emit(path, line))
        self.summary = QLabel(self)
        self.keep_button = QPushButton("Keep", self)
        self.edit_button = QPushButton("Edit", self)
        self.forget_button = QPushButton("Forget", self)
        self.open_button = QPushButton("Open source", self)
        self.all_button = QPushButton("Mark all reviewed", self)
        self.accept_button = QPushButton("Accept MEMORY.md", self)
        self.accept_button.setToolTip("The agent reads the proposed MEMORY.md from now on")
        for button, slot, tip in (
            (self.keep_button, self.keep, "K"), (self.edit_button, self.edit, "E"),
            (self.forget_button, self.forget, "F"), (self.open_button, self.open_source, "O"),
            (self.all_button, self.mark_all, ""), (self.accept_button, self.accept_memory, ""),
        ):
            button.clicked.connect(lambda _checked=False, slot=slot: slot())
            if tip:
                button.setToolTip(f"{button.text()} ({tip})")
        buttons = QHBoxLayout()
        for button in (self.keep_button, self.edit_button, self.forget_button, self.open_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.accept_button)
        buttons.addWidget(self.all_button)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.list)
        split.addWidget(self.card)
        box = QVBoxLayout(self)
        box.setContentsMargins(4, 4, 4, 4)
        box.addWidget(self.summary)
        box.addLayout(buttons)
        box.addWidget(split, 1)
        self.accept_button.hide()

    # -- loading ----------------------------------------------------------------------------------
    def wants(self, changes: ChangeSet) -> bool:
        return bool(changes.pages or changes.changed or changes.memory_md or changes.tombstones or changes.added)

    def request_refresh(self) -> None:
        """The count in the status bar is kept current even while the pane is hidden."""
        self._count_timer.start()

    async def load(self) -> None:
        manager = self.services.manager

        def read() -> tuple[list[Any], bool]:
            return manager.reviewing.items(), memory_approval.proposal(manager.layout) is not None

        items, proposal = await asyncio.to_thread(read)
        if self.alive():
            self.show_items(items, proposal)

    def show_items(self, items: list[Any], proposal: bool) -> None:
        current = self.current()
        self.loader.invalidate()  # the files changed: cards are built from them again
        self.items, self.proposal = items, proposal
        self.list.blockSignals(True)
        self.list.setUpdatesEnabled(False)
        self.list.clear()
        rows = [self._row(item) for item in items]
        self.list.addTopLevelItems(rows)
        self.list.setUpdatesEnabled(True)
        self.list.blockSignals(False)
        keep = next((r for r in rows if current is not None and r.data(0, ITEM_ROLE).id == current.id), None)
        if rows:
            self.list.setCurrentItem(keep or rows[0])
        self.accept_button.setVisible(proposal)
        unsure = sum(1 for i in items if i.unsure)
        self.summary.setText(f"{count(len(items), 'item')} to review" + (f", {unsure} unsure" if unsure else "")
                             + (" · a proposed MEMORY.md waits for approval" if proposal else ""))
        self.count_changed.emit(len(items))

    @staticmethod
    def _row(item: Any) -> QTreeWidgetItem:
        where = f"{item.page}:{item.line}" if item.page and item.line else item.page or ""
        row = QTreeWidgetItem([item.text, KIND_TEXT.get(item.kind, item.kind.replace("_", " ")), where,
                               item.date or ""])
        row.setData(0, ITEM_ROLE, item)
        if item.unsure:
            row.setForeground(0, QBrush(QColor(UNSURE_COLOR)))
            row.setToolTip(0, f"Unsure: {item.unsure}")
        if item.kind in PAGE_KINDS:
            row.setFlags(row.flags() | Qt.ItemFlag.ItemIsEditable)
        return row

    def current(self) -> Any:
        row = self.list.currentItem()
        return row.data(0, ITEM_ROLE) if row is not None else None

    def _load_current_card(self) -> None:
        item = self.current()
        if item is None:
            self.card.show_message("")
            return
        self.run_job("card", self._load_card(item))

    async def _load_card(self, item: Any) -> None:
        layout = self.services.layout
        path = layout.notebook_dir / item.page if item.kind in PAGE_KINDS and item.page else None
        try:
            card = await self.loader.card(path, item.line if path else None, item.text)
        except ValueError as exc:
            if self.alive():
                self.card.show_message(str(exc))
            return
        if self.alive() and self.current() is item:
            self.card.show_card(card)
            if item.unsure:
                self.card.append(f'<p style="color:{UNSURE_COLOR}">Unsure: {html.escape(item.unsure)}</p>')
            self.card_shown.emit()

    # -- keys -------------------------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if watched is self.list and isinstance(event, QKeyEvent) and event.type() == QEvent.Type.KeyPress and self.list.state() != \
                QTreeWidget.State.EditingState:
            action = {Qt.Key.Key_N: self.next, Qt.Key.Key_J: self.next, Qt.Key.Key_P: self.previous,
                      Qt.Key.Key_K: self.keep, Qt.Key.Key_F: self.forget, Qt.Key.Key_E: self.edit,
                      Qt.Key.Key_O: self.open_source}.get(Qt.Key(event.key()))
            if action is not None and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
                action()
                return True
        return super().eventFilter(watched, event)

    def next(self) -> None:
        self._step(1)

    def previous(self) -> None:
        self._step(-1)

    def _step(self, by: int) -> None:
        current = self.list.currentItem()
        row = self.list.indexOfTopLevelItem(current) if current is not None else -1
        target = self.list.topLevelItem(max(0, min(self.list.topLevelItemCount() - 1, row + by)))
        if target is not None:
            self.list.setCurrentItem(target)

    # -- actions ----------------------------------------------------------------------------------
    def _drop_current(self) -> None:
        row = self.list.currentItem()
        if row is None:
            return
        index = self.list.indexOfTopLevelItem(row)
        self.items = [i for i in self.items if i is not row.data(0, ITEM_ROLE)]
        self.list.takeTopLevelItem(index)
        following = self.list.topLevelItem(min(index, self.list.topLevelItemCount() - 1))
        if following is not None:
            self.list.setCurrentItem(following)
        self.count_changed.emit(len(self.items))

    def keep(self) -> None:
        item = self.current()
        if item is None:
            return
        self._drop_current()
        self.run_job("keep", asyncio.to_thread(self.services.manager.reviewing.keep, [item.id]),
                     supersede=False)

    def forget(self) -> None:
        item = self.current()
        if item is None or not self.confirm("Forget", f"Forget this memory?\n\n{item.text}"):
            return
        self._drop_current()
        self.run_job("forget", self._forget(item), supersede=False, label="Forget")

    async def _forget(self, item: Any) -> None:
        changes = await self.services.manager.reviewing.forget_item(item)
        self.publish(changes)

    def edit(self) -> None:
        row = self.list.currentItem()
        if row is not None and row.data(0, ITEM_ROLE).kind in PAGE_KINDS:
            self._editing = row
            self.list.editItem(row, 0)

    def _edited(self, row: QTreeWidgetItem, column: int) -> None:
        item = row.data(0, ITEM_ROLE)
        if column != 0 or item is None or row.text(0) == item.text:
            return
        self._editing = None
        words = row.text(0)
        self.run_job("edit", self._edit(item, words), supersede=False, label="Edit")

    async def _edit(self, item: Any, words: str) -> None:
        try:
            changes = await asyncio.to_thread(self.services.manager.reviewing.edit, item, words)
        except ValueError as exc:
            self.report(str(exc))
            self.refresh()
            return
        self.publish(changes)
        self.refresh()

    def open_source(self) -> None:
        item = self.current()
        if item is None:
            return
        if item.kind in PAGE_KINDS and item.page:
            self.services.bridge.open_path.emit(self.services.layout.notebook_dir / item.page, item.line)
        elif item.page and item.page.startswith("MEMORY.md"):
            self.services.bridge.open_path.emit(self.services.layout.memory_md, item.line)
        elif self.card.card is not None and self.card.card.reaches_turn:
            self.card.open_transcript(0)

    def mark_all(self) -> None:
        self.items = []
        self.list.clear()
        self.count_changed.emit(0)
        self.run_job("all", self._mark_all(), supersede=False)

    async def _mark_all(self) -> None:
        await asyncio.to_thread(self.services.manager.reviewing.mark_all)
        self.refresh()

    def accept_memory(self) -> None:
        self.run_job("accept", self._accept(), supersede=False, label="Accept MEMORY.md")

    async def _accept(self) -> None:
        changes = await asyncio.to_thread(self.services.manager.reviewing.accept_memory)
        if changes is not None:
            self.services.bridge.changed.emit(changes)  # the MEMORY.md view and the index take it in
        self.refresh()
