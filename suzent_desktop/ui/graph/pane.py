"""Graph pane: the vault's notes and links as a graph, the whole vault or the open page's neighbourhood.

As in Obsidian: the global graph shows every note, the local graph the open page and the notes
within a chosen number of links of it. Filters narrow either to a folder or a tag, and hide
orphans (notes without a link) or show attachments. A click opens a page, hovering lights a
node's neighbours, a drag pans and the wheel zooms (``ui/graph/canvas.py`` draws, on its own
worker thread).

The graph comes from the vault model (``core/vault/graph.py``, built once per snapshot of it) in a
worker thread, and so does its force-directed layout, in short rounds: the canvas shows the graph
settling, and the GUI thread never waits for more than one round. A refreshed graph starts
from the places its notes had, so it keeps its shape when a page changes.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QSpinBox, QVBoxLayout, QWidget

from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.language.words import count
from suzent_desktop.core.operations import vault_graph
from suzent_desktop.core.vault.graph import Graph, GraphFilter, filtered, layout_rounds, local
from suzent_desktop.ui.graph.canvas import GraphCanvas
from suzent_desktop.ui.panes.common import Pane

if TYPE_CHECKING:
    from collections.abc import Iterator

    from suzent_desktop.ui.base.services import AppServices

ALL_FOLDERS = "All folders"
ALL_TAGS = "All tags"
MAX_DEPTH = 5
SHOWN_EVERY_S = 0.05  # the settling layout is shown this often


class GraphPane(Pane):
    """The graph view: mode (global or local, with its depth), filters, and the canvas."""

    page_chosen = Signal(object)  # the Path of a clicked node: the window opens it
    laid_out = Signal()  # the layout's last round is drawn (in the canvas's picture)

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(services, parent)
        self.page: Path | None = None  # the open page: the local graph's centre
        self.graph = Graph()  # what the canvas shows
        self.layout_threads: set[int] = set()  # the threads that laid the graph out (never the GUI's)
        self._changed: set[Path] = set()  # named by change-sets since the last read
        self._places: dict[str, tuple[float, float]] = {}  # each note's last place, to start the next layout from
        self._settling = False  # the layout is done: laid_out waits for the canvas's picture of it
        self._build()
        self.request_refresh()  # read when first shown

    def _build(self) -> None:
        self.mode = QComboBox(self)
        self.mode.addItems(["Global graph", "Local graph"])
        self.mode.setToolTip("The whole vault, or the open page and the notes linked to it")
        self.depth_box = QSpinBox(self)
        self.depth_box.setRange(1, MAX_DEPTH)
        self.depth_box.setPrefix("Depth ")
        self.depth_box.setToolTip("How many links away from the open page the local graph reaches")
        self.folder = QComboBox(self)
        self.folder.addItem(ALL_FOLDERS)
        self.folder.setToolTip("Show only the notes in this folder (and its subfolders)")
        self.tag = QComboBox(self)
        self.tag.addItem(ALL_TAGS)
        self.tag.setToolTip("Show only the notes carrying this tag (or one nested under it)")
        self.orphans = QCheckBox("Orphans", self)
        self.orphans.setChecked(True)
        self.orphans.setToolTip("Show notes that link nowhere and that nothing links to")
        self.attachments = QCheckBox("Attachments", self)
        self.attachments.setToolTip("Show images, PDFs and other files that notes link to or embed")
        self.summary = QLabel("", self)
        self.summary.setStyleSheet("color: palette(placeholder-text);")
        self.canvas = GraphCanvas(self)
        self.canvas.node_clicked.connect(self.page_chosen)
        self.canvas.rendered.connect(self._on_picture)
        for box in (self.mode, self.folder, self.tag):
            box.currentIndexChanged.connect(self._on_options)
        self.depth_box.valueChanged.connect(self._on_options)
        self.orphans.toggled.connect(self._on_options)
        self.attachments.toggled.connect(self._on_options)
        first = QHBoxLayout()
        for widget in (self.mode, self.depth_box, self.summary):
            first.addWidget(widget)
        first.addStretch(1)
        second = QHBoxLayout()
        for option in (self.folder, self.tag, self.orphans, self.attachments):
            second.addWidget(option)
        second.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(first)
        layout.addLayout(second)
        layout.addWidget(self.canvas, 1)
        self._show_depth()

    # -- what to show ----------------------------------------------------------------------
    @property
    def local_mode(self) -> bool:
        return self.mode.currentIndex() == 1

    def show_global(self) -> None:
        self.mode.setCurrentIndex(0)

    def show_local(self, depth: int | None = None) -> None:
        if depth is not None:
            self.depth_box.setValue(depth)
        self.mode.setCurrentIndex(1)

    def set_page(self, path: Path | None) -> None:
        """The open page changed: the local graph follows it."""
        self.page = Path(path) if path is not None else None
        if self.local_mode:
            self.request_refresh()

    def rule(self) -> GraphFilter:
        folder, tag = self.folder.currentText(), self.tag.currentText()
        return GraphFilter(folder="" if folder == ALL_FOLDERS else folder, tag="" if tag == ALL_TAGS else tag,
                           orphans=self.orphans.isChecked(), attachments=self.attachments.isChecked())

    def _on_options(self, *_: object) -> None:
        self._show_depth()
        self.request_refresh()

    def _show_depth(self) -> None:
        self.depth_box.setVisible(self.local_mode)

    # -- keeping current -------------------------------------------------------------------
    def request_refresh(self) -> None:
        """Read only when on screen: Qt keeps a dock behind another tab visible (moved off screen), and
        building and laying out a large vault's graph that nobody sees costs seconds of a core."""
        if self._behind():
            self._needs_refresh = True
            return
        super().request_refresh()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        if self._behind():  # shown with the window, behind another tab: read when the tab is chosen
            QWidget.showEvent(self, event)
            return
        super().showEvent(event)

    def _behind(self) -> bool:
        return self.isVisible() and self.visibleRegion().isEmpty()

    def dock_shown(self, shown: bool) -> None:
        """The dock came to the front (its tab chosen, or shown): read what changed while it was not."""
        if shown and self._needs_refresh:
            self._needs_refresh = False
            self.refresh()

    def _on_changed(self, changes: object) -> None:
        if isinstance(changes, ChangeSet):
            self._changed |= set(changes.pages) | set(changes.added) | set(changes.removed)
        super()._on_changed(changes)

    def wants(self, changes: ChangeSet) -> bool:
        return bool(changes.pages or changes.added or changes.removed or changes.moved)

    async def load(self) -> None:
        changed, self._changed = self._changed, set()
        self._settling = False
        whole = await asyncio.to_thread(vault_graph, self.services.manager, changed)
        if not self.alive():
            return
        self._fill_choices(whole)
        rule, page, local_mode, depth = self.rule(), self.page, self.local_mode, self.depth_box.value()
        shown = await asyncio.to_thread(self._shown, whole, rule, page if local_mode else None, depth)
        if not self.alive():
            return
        self.graph = shown
        self.canvas.set_graph(shown, centre=0 if local_mode and shown.nodes else None)
        self._say(shown, local_mode)
        await self._lay_out(shown)

    @staticmethod
    def _shown(whole: Graph, rule: GraphFilter, page: Path | None, depth: int) -> Graph:
        """(worker thread) The graph a filter and the mode show; the local graph keeps its lone page."""
        if page is None:
            return filtered(whole, rule)
        return local(filtered(whole, replace(rule, orphans=True)), page, depth)

    async def _lay_out(self, shown: Graph) -> None:
        """Lay the graph out in a worker thread, in rounds, drawing the latest about every :data:`SHOWN_EVERY_S`."""
        rounds = layout_rounds(shown, self._places)
        while True:
            positions = await asyncio.to_thread(self._next_round, rounds)
            if positions is None or not self.alive():
                break
            self.canvas.set_positions(positions)
            self._places.update((node.key, place) for node, place in zip(shown.nodes, positions, strict=True))
        if self.alive():
            self._settling = True
            self._on_picture()

    def _on_picture(self) -> None:
        """A picture came from the canvas: once the layout is done and in it, say it is laid out."""
        if self._settling and self.canvas.current():
            self._settling = False
            self.laid_out.emit()

    def _next_round(self, rounds: Iterator[list[tuple[float, float]]]) -> list[tuple[float, float]] | None:
        """(worker thread) Rounds of the layout for about :data:`SHOWN_EVERY_S`, the last one's positions
        (None when it is done): a hop to the GUI thread and back for each short round would take
        longer than the rounds, and the GIL is free between them."""
        self.layout_threads.add(threading.get_ident())
        start, last = time.perf_counter(), None
        for positions in rounds:
            last = positions
            if time.perf_counter() - start >= SHOWN_EVERY_S:
                break
            time.sleep(0.001)  # the GIL to the window between rounds, not only to the drawing worker
        return last

    # -- drawing ---------------------------------------------------------------------------
    def _fill_choices(self, whole: Graph) -> None:
        """The folders and tags of the vault's notes, in the filter boxes (the choice kept)."""
        folders: set[str] = set()
        tags: dict[str, str] = {}
        for node in whole.nodes:
            parts = node.folder.split("/") if node.folder else []
            folders.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
            for tag in node.tags:
                bits = tag.split("/")
                for i in range(1, len(bits) + 1):
                    tags.setdefault("/".join(bits[:i]).lower(), "/".join(bits[:i]))
        self._refill(self.folder, ALL_FOLDERS, sorted(folders, key=str.lower))
        self._refill(self.tag, ALL_TAGS, [tags[key] for key in sorted(tags)])

    @staticmethod
    def _refill(box: QComboBox, first: str, items: list[str]) -> None:
        current = box.currentText()
        if [box.itemText(i) for i in range(1, box.count())] == items:
            return
        box.blockSignals(True)
        box.clear()
        box.addItems([first, *items])
        box.setCurrentIndex(max(0, box.findText(current)))
        box.blockSignals(False)

    def _say(self, shown: Graph, local_mode: bool) -> None:
        if local_mode and self.page is None:
            self.summary.setText("Open a page to see its local graph")
        elif local_mode and not shown.nodes:
            self.summary.setText(f"{self.page.name if self.page else 'This file'} is not a note of the graph")
        else:
            self.summary.setText(f"{count(len(shown.nodes), 'note')} · {count(len(shown.edges), 'link')}")

    def titles(self) -> set[str]:
        """The names of the nodes shown (for tests)."""
        return {node.title for node in self.graph.nodes}
