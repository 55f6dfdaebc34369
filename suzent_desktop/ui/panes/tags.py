"""Tags pane: every tag of the vault with the number of pages carrying it, nested tags as a tree.

Tags come from the vault model (``core/vault/model.py``: frontmatter ``tags`` and inline ``#tags``
outside code and links), asked in a worker thread: the vault is read once per window, then only
the pages a change-set names (file events, the app's own writes), so the GUI thread never walks it. Clicking a tag (or Enter
on it) asks for a ``tag:`` search, which the window runs in the Search pane, as Obsidian does.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHeaderView, QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.language.words import count
from suzent_desktop.core.operations import vault_snapshot
from suzent_desktop.ui.panes.common import EmptyHint, Pane

if TYPE_CHECKING:
    from suzent_desktop.ui.base.services import AppServices

TAG_ROLE = Qt.ItemDataRole.UserRole + 1


class TagsPane(Pane):
    """The vault's tags as a tree with page counts; a click emits ``tag_chosen`` with the full tag."""

    # The full tag (``trip/japan``) the user clicked: the window runs ``tag:trip/japan`` in Search.
    tag_chosen = Signal(str)

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(services, parent)
        self._changed_pages: set[Path] = set()  # named by change-sets since the last read
        self.nodes: list[Any] = []  # the tree as last drawn (``core.tags.TagNode``)
        self.tagged = 0  # pages carrying a tag, as last drawn
        self._build()
        self.request_refresh()

    def _build(self) -> None:
        self.summary = QLabel("Reading tags…", self)
        self.summary.setStyleSheet("color:gray")
        self.tree = QTreeWidget(self)
        self.tree.setHeaderLabels(["Tag", "Pages"])
        self.tree.setRootIsDecorated(True)
        self.tree.setUniformRowHeights(True)
        header = self.tree.header()  # the names take the width; the count column fits its numbers
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.itemClicked.connect(self._clicked)
        self.tree.itemActivated.connect(self._clicked)  # Enter on the keyboard
        self.hint = EmptyHint(self.tree, "No tags yet. Write #tag in a page, or list tags: in its properties.")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.summary)
        layout.addWidget(self.tree, 1)

    # -- keeping current ---------------------------------------------------------------
    def _on_changed(self, changes: object) -> None:
        if isinstance(changes, ChangeSet):
            self._changed_pages |= {p for p in changes.pages if p.suffix.lower() == ".md" or not p.suffix}
        super()._on_changed(changes)

    def wants(self, changes: ChangeSet) -> bool:
        return bool(changes.pages)

    async def load(self) -> None:
        changed, self._changed_pages = self._changed_pages, set()
        nodes, tagged = await asyncio.to_thread(self._read, changed)
        if not self.alive():
            return
        self.nodes, self.tagged = nodes, tagged
        self._show()

    def _read(self, changed: set[Path]) -> tuple[list[Any], int]:
        """(worker thread) The tag tree and the number of tagged pages, from the vault model."""
        snapshot = vault_snapshot(self.services.manager, changed)
        return snapshot.tag_tree(), len(snapshot.pages_tagged())

    # -- drawing -----------------------------------------------------------------------
    def _show(self) -> None:
        expanded = {item.data(0, TAG_ROLE) for item in self._items() if item.isExpanded()}
        self.tree.clear()

        def add(parent: QTreeWidget | QTreeWidgetItem, node: Any) -> None:
            item = QTreeWidgetItem(parent, [f"#{node.name}", str(node.count)])
            item.setData(0, TAG_ROLE, node.tag)
            item.setToolTip(0, f"Search tag:{node.tag}")
            item.setTextAlignment(1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            for child in node.children:
                add(item, child)
            item.setExpanded(node.tag in expanded)

        for node in self.nodes:
            add(self.tree, node)
        self.tree.resizeColumnToContents(1)
        self.summary.setText(f"{count(self._tag_count(self.nodes), 'tag')} on {count(self.tagged, 'page')}" if self.nodes
                             else "No tags yet: add #tags or a frontmatter tags list to a page")

    @staticmethod
    def _tag_count(nodes: list[Any]) -> int:
        return sum(1 + TagsPane._tag_count(node.children) for node in nodes)

    def _items(self) -> list[QTreeWidgetItem]:
        found: list[QTreeWidgetItem] = []
        stack = [self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount())]
        while stack:
            item = stack.pop()
            if item is not None:
                found.append(item)
                stack += [item.child(i) for i in range(item.childCount())]
        return found

    def item_for(self, tag: str) -> QTreeWidgetItem | None:
        """The row of a full tag (``trip/japan``), for the window and tests."""
        return next((item for item in self._items() if item.data(0, TAG_ROLE) == tag), None)

    def counts(self) -> dict[str, int]:
        """Full tag -> pages, as drawn."""
        return {item.data(0, TAG_ROLE): int(item.text(1)) for item in self._items()}

    def _clicked(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        tag = item.data(0, TAG_ROLE)
        if tag:
            self.tag_chosen.emit(tag)
