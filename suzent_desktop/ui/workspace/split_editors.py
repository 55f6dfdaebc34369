"""The editor area split into panes, as in Obsidian: each pane has its own tabs and history.

"Split right" and "Split down" (a tab's menu, the View menu, the palette) open the page beside
or below; Ctrl+Alt+click on a link opens it to the right. A tab dragged out of its bar drops into
another pane, or beside or below it when dropped near that pane's right or bottom edge. The pane
last focused is the one links, the switcher and the tree open pages in. The panes and their tabs
are saved in the home's app state (``workspace.json``, never in the vault) and opened again at
the next start.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QEvent, QMimeData, QObject, QPoint, QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QDrag, QDropEvent, QMouseEvent
from PySide6.QtWidgets import QApplication, QSplitter, QVBoxLayout, QWidget

from suzent_desktop.ui.page.editor import PageEditor
from suzent_desktop.ui.workspace.editor_area import EditorArea

TAB_MIME = "application/x-suzent-tab"
RIGHT, DOWN = "right", "down"
EDGE = 0.25  # a drop within this share of a pane's right or bottom edge splits it
DRAG_OUT_PX = 24  # how far below (or above) the tab bar a tab is pulled before it leaves its pane
ORIENTATIONS = {RIGHT: Qt.Orientation.Horizontal, DOWN: Qt.Orientation.Vertical}


class SplitEditors(QWidget):
    """Panes of tabs (:class:`EditorArea`) in splitters; speaks for the focused pane."""

    current_page_changed = Signal(object)  # Path | None: the focused pane's page
    page_saved = Signal(object, str)  # (Path, initiator of the editor that saved)
    forget_requested = Signal(str)
    missing_link = Signal(str)
    missing_attachment = Signal(str)
    outside_vault = Signal(str)
    reveal_requested = Signal(object)
    tag_activated = Signal(str)
    rename_requested = Signal(object, str)
    line_clicked = Signal(object, int)

    RELAYED = ("page_saved", "forget_requested", "missing_link", "missing_attachment", "outside_vault",
               "reveal_requested", "tag_activated", "rename_requested", "line_clicked")

    def __init__(self, root: Path, read_only_dirs: tuple[Path, ...] = (), parent: QWidget | None = None,
                 confinement: object = None, *, shared_model: bool = False) -> None:
        super().__init__(parent)
        self._make: Callable[[], EditorArea] = lambda: EditorArea(
            root, read_only_dirs=read_only_dirs, confinement=confinement, shared_model=shared_model)
        self.root = Path(root)
        self._editor_mode = "live"
        self._shown: Callable[[str], str] | None = None
        self._as_written: Callable[[Path], bool] = lambda _path: False
        self.panes: list[EditorArea] = []
        self._retired: list[EditorArea] = []  # panes emptied by moving their tabs out (see _drop_pane)
        self.top = QSplitter(Qt.Orientation.Horizontal)
        self.top.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.top)
        self.focused = self._new_pane()
        self.top.addWidget(self.focused)
        self._drag: tuple[EditorArea, int] | None = None  # a tab pressed in its bar, perhaps pulled out next
        QApplication.instance().focusChanged.connect(self._focus_changed)

    # -- panes -------------------------------------------------------------------------------------
    def _new_pane(self) -> EditorArea:
        pane = self._make()
        pane.editor_mode = self._editor_mode
        pane.shown = self._shown
        pane.as_written = self._as_written
        if self.panes:
            first = self.panes[0]
            pane.open_externally = first.open_externally
            if first._shared:
                pane.use_snapshot(first.snapshot())
        for name in self.RELAYED:
            getattr(pane, name).connect(getattr(self, name).emit)
        pane.current_page_changed.connect(lambda path, p=pane: self._pane_page(p, path))
        pane.split_requested.connect(lambda path, where, p=pane: self.split(where, path, pane=p))
        pane.open_beside.connect(lambda path, heading, p=pane: self._open_beside(p, path, heading))
        pane.tabBar().installEventFilter(self)
        pane.tabBar().tabBarClicked.connect(lambda _index, p=pane: self.focus_pane(p))
        pane.can_split = True
        pane.setAcceptDrops(True)
        pane.installEventFilter(self)
        self.panes.append(pane)
        return pane

    def _pane_page(self, pane: EditorArea, path: Path | None) -> None:
        if pane.count() == 0 and len(self.panes) > 1:
            QTimer.singleShot(0, lambda: self._drop_pane(pane))  # its last tab closed: the pane goes
            return
        if pane is self.focused:
            self.current_page_changed.emit(path)

    def _focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        pane = self.pane_of(new)
        if pane is not None and pane is not self.focused:
            self.focus_pane(pane)

    def pane_of(self, widget: QWidget | None) -> EditorArea | None:
        while widget is not None:
            if widget in self.panes:
                return widget  # type: ignore[return-value]
            widget = widget.parentWidget()
        return None

    def focus_pane(self, pane: EditorArea) -> None:
        """Links, the switcher and the tree open pages in ``pane`` from now on."""
        self.focused = pane
        editor = pane.current_editor()
        self.current_page_changed.emit(editor.path if editor is not None else None)

    def split(self, where: str = RIGHT, path: Path | None = None, *, pane: EditorArea | None = None,
              heading: str | None = None) -> PageEditor | None:
        """A new pane beside (``RIGHT``) or below (``DOWN``) ``pane`` showing ``path`` (default: that
        pane's page, as Obsidian's Split right does); it takes the focus."""
        pane = pane or self.focused
        if path is None:
            current = pane.current_editor()
            if current is None:
                return None  # no page to show beside: an empty pane could not be closed
            path = current.path
        new = self._pane_beside(where, pane)
        editor = new.open(path, heading=heading)
        if editor is not None:
            editor.source.setFocus()
        return editor

    def _pane_beside(self, where: str, pane: EditorArea) -> EditorArea:
        """A new, empty pane beside or below ``pane``; it takes the focus."""
        new = self._new_pane()
        orientation = ORIENTATIONS[where]
        holder = pane.parentWidget()
        assert isinstance(holder, QSplitter)
        at = holder.indexOf(pane)
        if holder.orientation() == orientation or holder.count() == 1:
            sizes = holder.sizes()
            holder.setOrientation(orientation)
            holder.insertWidget(at + 1, new)
            half = max(sizes[at] // 2, 1) if sizes and sum(sizes) else 1
            holder.setSizes([*sizes[:at], half, half, *sizes[at + 1:]] if sizes and sum(sizes) else [1] * holder.count())
        else:
            sizes = holder.sizes()
            inner = QSplitter(orientation)
            inner.setChildrenCollapsible(False)
            holder.insertWidget(at, inner)
            inner.addWidget(pane)
            inner.addWidget(new)
            holder.setSizes(sizes)  # the new splitter takes the pane's place at its size
            inner.setSizes([1000, 1000])  # the pane split in two halves
        self.focused = new
        return new

    def _open_beside(self, pane: EditorArea, path: Path, heading: str | None) -> None:
        self.split(RIGHT, path, pane=pane, heading=heading)

    def _drop_pane(self, pane: EditorArea) -> None:
        if pane not in self.panes or pane.count() or len(self.panes) == 1:
            return
        holder = pane.parentWidget()
        self.panes.remove(pane)
        pane.hide()
        pane.setParent(None)
        self._retired.append(pane)  # kept: an editor moved out of it resolves links with its model
        while isinstance(holder, QSplitter) and holder is not self.top and holder.count() == 1:
            only, outer = holder.widget(0), holder.parentWidget()
            assert isinstance(outer, QSplitter)
            outer.insertWidget(outer.indexOf(holder), only)
            holder.setParent(None)
            holder.deleteLater()
            holder = outer
        if self.top.count() == 1 and isinstance(self.top.widget(0), QSplitter):
            inner = self.top.widget(0)
            self.top.setOrientation(inner.orientation())
            while inner.count():
                self.top.addWidget(inner.widget(0))
            inner.setParent(None)
            inner.deleteLater()
        if self.focused is pane:
            self.focus_pane(self.panes[-1])

    # -- moving tabs -------------------------------------------------------------------------------
    def move_tab(self, source: EditorArea, index: int, target: EditorArea, where: str | None = None) -> PageEditor | None:
        """The tab at ``index`` of ``source`` into ``target`` (or a new pane beside or below it): the
        editor itself moves, with its view, cursor, unsaved text, undo history and a pending conflict
        (its Reload / Keep mine / Compare bar); the move itself saves and reloads nothing."""
        editor = source.widget(index)
        if not isinstance(editor, PageEditor) or (target is source and where is None):
            return None
        if where is not None and target is source and source.count() == 1:
            return None  # a pane's only tab split off itself: nothing would change
        twin = target.editor_for(editor.path) if where is None else None
        if twin is not None and editor.conflict is None:  # the page is open there already: that tab
            source.close_tab(index)  # shows it, this one closes (saved first)
            target.setCurrentWidget(twin)
            self.focus_pane(target)
            return twin
        into = self._pane_beside(where, target) if where else target
        source.release(index)
        # A conflict cannot be saved: it moves in, in the place of a twin that holds only the disk text
        # (a twin still holding unsaved words, a conflict of its own, stays beside it: closing it would
        # lose them).
        into.adopt(editor, at=into.indexOf(twin) + 1 if twin is not None else -1)
        if twin is not None and not twin.dirty:
            into.close_tab(into.indexOf(twin))
        editor.source.setFocus()
        self.focus_pane(into)
        return editor

    def drop_place(self, pane: EditorArea, pos: QPoint) -> str | None:
        """Where a tab dropped at ``pos`` in ``pane`` goes: a new pane to the right, below, or into it."""
        if pos.x() > pane.width() * (1 - EDGE):
            return RIGHT
        if pos.y() > pane.height() * (1 - EDGE):
            return DOWN
        return None

    def _start_drag(self, pane: EditorArea, index: int) -> None:
        data = QMimeData()
        data.setData(TAB_MIME, QByteArray(str(self.panes.index(pane)).encode() + b":" + str(index).encode()))
        drag = QDrag(pane.tabBar())
        drag.setMimeData(data)
        bar = pane.tabBar()
        drag.setPixmap(bar.grab(bar.tabRect(index)))
        drag.exec(Qt.DropAction.MoveAction)
        # The drag took the mouse from the bar mid-move: a release puts its tabs back in their places.
        at = QPointF(bar.tabRect(index).center())
        QApplication.sendEvent(bar, QMouseEvent(QEvent.Type.MouseButtonRelease, at, bar.mapToGlobal(at),
                                                Qt.MouseButton.LeftButton, Qt.MouseButton.NoButton,
                                                Qt.KeyboardModifier.NoModifier))

    def _dropped(self, target: EditorArea, event: QDropEvent) -> bool:
        raw = bytes(event.mimeData().data(TAB_MIME).data()).decode()
        pane_number, _, index = raw.partition(":")
        if not pane_number.isdigit() or not index.isdigit() or int(pane_number) >= len(self.panes):
            return False
        source = self.panes[int(pane_number)]
        where = self.drop_place(target, event.position().toPoint())
        if source is target and where is None:
            return False
        event.acceptProposedAction()
        QTimer.singleShot(0, lambda: self.move_tab(source, int(index), target, where))  # after the drag ends
        return True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        kind = event.type()
        if watched in self.panes:
            if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove) and event.mimeData().hasFormat(TAB_MIME):
                event.acceptProposedAction()
                return True
            if kind == QEvent.Type.Drop and event.mimeData().hasFormat(TAB_MIME):
                return self._dropped(watched, event)  # type: ignore[arg-type]
            return False
        pane = next((p for p in self.panes if p.tabBar() is watched), None)
        if pane is None:
            return False
        if kind == QEvent.Type.MouseButtonPress and event.button() == Qt.MouseButton.LeftButton:
            self._drag = (pane, pane.tabBar().tabAt(event.position().toPoint()))
        elif kind == QEvent.Type.MouseButtonRelease:
            self._drag = None
        elif kind == QEvent.Type.MouseMove and self._drag is not None and self._drag[1] >= 0:
            y = event.position().toPoint().y()
            if y > pane.tabBar().height() + DRAG_OUT_PX or y < -DRAG_OUT_PX:  # pulled out of the bar
                source, index = self._drag
                self._drag = None
                self._start_drag(source, index)
                return True
        return False

    # -- the focused pane ------------------------------------------------------------------------------
    @property
    def editor_mode(self) -> str:
        return self._editor_mode

    @editor_mode.setter
    def editor_mode(self, mode: str) -> None:
        self._editor_mode = mode
        for pane in self.panes:
            pane.editor_mode = mode

    @property
    def shown(self) -> Callable[[str], str] | None:
        return self._shown

    @shown.setter
    def shown(self, shown: Callable[[str], str] | None) -> None:
        self._shown = shown
        for pane in self.panes:
            pane.shown = shown

    @property
    def as_written(self) -> Callable[[Path], bool]:
        return self._as_written

    @as_written.setter
    def as_written(self, as_written: Callable[[Path], bool]) -> None:
        """Pages shown as written, forgotten text included (a note the person wrote), in every pane."""
        self._as_written = as_written
        for pane in self.panes:
            pane.as_written = as_written

    @property
    def open_externally(self) -> Callable[[Path], object]:
        return self.panes[0].open_externally

    @open_externally.setter
    def open_externally(self, opener: Callable[[Path], object]) -> None:
        for pane in self.panes:
            pane.open_externally = opener

    @property
    def history(self) -> list[Path]:
        return self.focused.history

    def open(self, path: Path, line: int | None = None, heading: str | None = None) -> PageEditor | None:
        return self.focused.open(path, line, heading)

    def current_editor(self) -> PageEditor | None:
        return self.focused.current_editor()

    def editors(self) -> list[PageEditor]:
        return [editor for pane in self.panes for editor in pane.editors()]

    def editor_for(self, path: Path) -> PageEditor | None:
        """The focused pane's editor of ``path``, else another pane's."""
        for pane in [self.focused, *(p for p in self.panes if p is not self.focused)]:
            editor = pane.editor_for(path)
            if editor is not None:
                return editor
        return None

    def count(self) -> int:
        """Tabs open in all panes."""
        return sum(pane.count() for pane in self.panes)

    def currentIndex(self) -> int:  # noqa: N802 - as QTabWidget names it
        return self.focused.currentIndex()

    def tabText(self, index: int) -> str:  # noqa: N802 - as QTabWidget names it
        return self.focused.tabText(index)

    def close_tab(self, index: int) -> None:
        self.focused.close_tab(index)

    def tab_menu(self, index: int) -> Any:
        return self.focused.tab_menu(index)

    def resolve(self, target: str, source: Path | None = None) -> Path | None:
        return self.focused.resolve(target, source)

    def snapshot(self) -> Any:
        return self.focused.snapshot()

    def use_snapshot(self, snapshot: Any) -> None:
        for pane in [*self.panes, *self._retired]:  # a moved editor still asks the pane that made it
            pane.use_snapshot(snapshot)

    def set_view(self, view: str) -> None:
        self.focused.set_view(view)

    def show_find(self, *, replace: bool = False) -> None:
        self.focused.show_find(replace=replace)

    def save_current(self) -> bool:
        return self.focused.save_current()

    def save_all(self) -> list[Path]:
        return [path for pane in self.panes for path in pane.save_all()]

    def go_back(self) -> None:
        self.focused.go_back()

    def go_forward(self) -> None:
        self.focused.go_forward()

    # -- every pane ------------------------------------------------------------------------------------
    def on_file_added(self, path: Path) -> None:
        for pane in self.panes:
            pane.on_file_added(path)

    def on_file_changed(self, path: Path, initiator: str = "") -> None:
        for pane in self.panes:
            pane.on_file_changed(path, initiator)

    def on_file_deleted(self, path: Path) -> None:
        for pane in list(self.panes):
            pane.on_file_deleted(path)

    def on_moved(self, old: Path, new: Path) -> None:
        for pane in self.panes:
            pane.on_moved(old, new)

    def on_trashed(self, path: Path) -> None:
        for pane in list(self.panes):
            pane.on_trashed(path)

    def refresh_theme(self, dark: bool | None = None) -> None:
        for pane in self.panes:
            pane.refresh_theme(dark)

    # -- layout, kept between starts ----------------------------------------------------------------------
    def layout_state(self) -> dict[str, Any]:
        """The panes, their tabs (vault-relative paths) and which is focused, as plain data."""
        return {"version": 1, "root": self._state_of(self.top), "focused": self._pane_order().index(self.focused)}

    def _pane_order(self) -> list[EditorArea]:
        order: list[EditorArea] = []

        def walk(widget: QWidget) -> None:
            if isinstance(widget, QSplitter):
                for i in range(widget.count()):
                    walk(widget.widget(i))
            elif widget in self.panes:
                order.append(widget)  # type: ignore[arg-type]

        walk(self.top)
        return order

    def _state_of(self, widget: QWidget) -> dict[str, Any]:
        if isinstance(widget, QSplitter):
            where = RIGHT if widget.orientation() == Qt.Orientation.Horizontal else DOWN
            return {"split": where, "sizes": widget.sizes(),
                    "children": [self._state_of(widget.widget(i)) for i in range(widget.count())]}
        pane = widget
        assert isinstance(pane, EditorArea)
        # A page open twice in the pane (a conflicted tab moved beside its twin) opens once again.
        tabs = list(dict.fromkeys(rel for editor in pane.editors() if (rel := self._rel(editor.path)) is not None))
        current = pane.current_editor()
        shown = self._rel(current.path) if current is not None else None
        return {"tabs": tabs, "current": tabs.index(shown) if shown in tabs else 0}

    def _rel(self, path: Path) -> str | None:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return None

    def restore(self, state: dict[str, Any]) -> None:
        """Open the panes and tabs of ``state`` (files gone since are left out, and a pane left empty)."""
        root = state.get("root") if isinstance(state, dict) else None
        if not isinstance(root, dict) or self.count() or not self._has_files(root):
            return
        first = self.focused
        if "children" in root:
            self.top.setOrientation(ORIENTATIONS.get(root.get("split"), Qt.Orientation.Horizontal))
            built = [self._build(child) for child in root["children"] if isinstance(child, dict) and self._has_files(child)]
            for widget in built:
                self.top.addWidget(widget)
            self._set_sizes(self.top, root)
            self.panes.remove(first)  # the empty pane the area started with
            first.setParent(None)
            first.deleteLater()
        else:
            self._fill(first, root)
        order = self._pane_order()
        focused = state.get("focused", 0)
        self.focus_pane(order[focused] if isinstance(focused, int) and 0 <= focused < len(order) else order[0])

    def _build(self, node: dict[str, Any]) -> QWidget:
        if "children" not in node:
            return self._fill(self._new_pane(), node)
        splitter = QSplitter(ORIENTATIONS.get(node.get("split"), Qt.Orientation.Horizontal))
        splitter.setChildrenCollapsible(False)
        for child in node["children"]:
            if isinstance(child, dict) and self._has_files(child):
                splitter.addWidget(self._build(child))
        self._set_sizes(splitter, node)
        return splitter

    def _fill(self, pane: EditorArea, node: dict[str, Any]) -> EditorArea:
        for rel in node.get("tabs", []):
            if isinstance(rel, str) and (self.root / rel).is_file():
                pane.open(self.root / rel)
        current = node.get("current", 0)
        if isinstance(current, int) and 0 <= current < pane.count():
            pane.setCurrentIndex(current)
        return pane

    @staticmethod
    def _set_sizes(splitter: QSplitter, node: dict[str, Any]) -> None:
        sizes = node.get("sizes")
        if isinstance(sizes, list) and len(sizes) == splitter.count() and all(isinstance(n, int) for n in sizes):
            splitter.setSizes(sizes)

    def _has_files(self, node: dict[str, Any]) -> bool:
        if "children" in node:
            return any(self._has_files(c) for c in node.get("children", []) if isinstance(c, dict))
        return any(isinstance(rel, str) and (self.root / rel).is_file() for rel in node.get("tabs", []))

