"""Tags pane: every tag of the vault with the number of pages carrying it, nested tags as a tree.

Tags come from the one grammar (frontmatter ``tags`` and inline ``#tags`` outside code and
links). The vault is read once, in a worker thread, the first time the pane is shown; after
that only the pages a change-set names (file events, the app's own writes) are read again,
also in a worker thread, so the GUI thread never walks the vault. Clicking a tag (or Enter
on it) asks for a ``tag:`` search, which the window runs in the Search pane, as Obsidian does.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHeaderView, QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from suzent_desktop.core.events import ChangeSet
from suzent_desktop.core.operations import FileTags, content_pages, is_content_page, tag_tree
from suzent_desktop.core.words import count
from suzent_desktop.ui.panes.common import EmptyHint, Pane

if TYPE_CHECKING:
    from suzent_desktop.ui.services import AppServices

TAG_ROLE = Qt.ItemDataRole.UserRole + 1


class TagsPane(Pane):
    """The vault's tags as a tree with page counts; a click emits ``tag_chosen`` with the full tag."""

    # The full tag (``trip/japan``) the user clicked: the window runs ``tag:trip/japan`` in Search.
    tag_chosen = Signal(str)

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(services, parent)
        self._cache = FileTags()
        self._walked = False
        self._reading = threading.Lock()  # one read at a time: a superseded read finishes first
        self._changed_pages: set[Path] = set()  # named by change-sets since the last read
        self.nodes: list[Any] = []  # the tree as last drawn (``core.tags.TagNode``)
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
        nodes = await asyncio.to_thread(self._read, changed)
        if not self.alive():
            return
        self.nodes = nodes
        self._show()

    def _read(self, changed: set[Path]) -> list[Any]:
        """(worker thread) The whole vault the first time, then only the pages named since."""
        with self._reading:
            return self._read_locked(changed)

    def _read_locked(self, changed: set[Path]) -> list[Any]:
        manager = self.services.manager
        if not self._walked:
            pages = content_pages(manager)
            for page in pages:
                self._cache.update(page)
            self._cache.keep_only(pages)
            self._walked = True
        else:
            for path in changed:
                if path.is_dir():  # a folder event: what the cache knows inside it, and what is there now
                    inside = [p for p in self._cache.paths() if p.is_relative_to(path)]
                    for page in [*inside, *(p for p in path.rglob("*.md") if is_content_page(manager, p))]:
                        self._cache.update(page)
                elif not path.is_file() or is_content_page(manager, path):  # not a hidden folder's file
                    self._cache.update(path)
        return tag_tree(self._cache.snapshot().values())

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
        tagged = sum(1 for found in self._cache.snapshot().values() if found)
        self.summary.setText(f"{count(self._tag_count(self.nodes), 'tag')} on {count(tagged, 'page')}" if self.nodes
                             else "No tags yet: add #tags or a frontmatter tags list to a page")

    @staticmethod
    def _tag_count(nodes: list[Any]) -> int:
        return sum(1 + TagsPane._tag_count(node.children) for node in nodes)

    def _items(self) -> list[QTreeWidgetItem]:
        found: list[QTreeWidgetItem] = []
        stack = [self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount())]
        while stack:
            item = stack.pop()
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
