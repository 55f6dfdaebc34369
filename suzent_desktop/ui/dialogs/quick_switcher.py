"""Ctrl+O: jump to any page by typing a few letters of its name; create it when none matches.

Matching is the one fuzzy rule of ``core.fuzzy`` (every word, any order, typos forgiven).
Names come from the editor area's snapshot of the vault model (the same list ``[[`` completes
from, built once per snapshot), so opening the switcher never walks the vault. Aliases from frontmatter are rows of
their own that open their page, as in Obsidian.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QDialog, QLabel, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from suzent_desktop.core.files.language import fuzzy
from suzent_desktop.core.vault.canvas import is_canvas
from suzent_desktop.core.vault.links import is_page
from suzent_desktop.ui.editing.link_completer import link_aliases, link_names

if TYPE_CHECKING:
    from suzent_desktop.core.vault.model import VaultSnapshot

LIMIT = 50
NEW_PAGE_FOLDER = "0_Inbox"  # where a page made from a bare name goes (as for a missing link's page)


@dataclass(frozen=True)
class Entry:
    """One row: what is shown and matched (``label``), what choosing it does (``payload``)."""

    label: str
    payload: object
    detail: str = ""
    path: str = ""  # a second text to match when the label does not (a page's vault path)
    alias: bool = False  # a page's frontmatter alias (never among the recent pages listed first)


@dataclass(frozen=True)
class CreatePage:
    """The payload of the "Create page" row: a page to make, then open."""

    folder: Path
    name: str


def new_page_place(root: Path, query: str, inbox: Path | None = None) -> CreatePage | None:
    """Where a page typed into the switcher is created: ``a/b/Name`` in that folder, a bare name in the inbox.

    None when the text cannot be a page name inside the vault (empty, ``..``, a hidden folder).
    """
    parts = [p.strip() for p in PurePosixPath(query.strip().replace("\\", "/")).parts]
    if not parts or any(not p or p in (".", "..") or p.startswith(".") or p == "/" for p in parts):
        return None
    *folders, name = parts
    folder = root.joinpath(*folders) if folders else (inbox if inbox is not None else root / NEW_PAGE_FOLDER)
    return CreatePage(folder, name[:-3] if name.lower().endswith(".md") else name)


def page_entries(names: Sequence[tuple[str, Path, str]]) -> list[Entry]:
    """The switcher's rows for the pages and canvases among ``names`` (a name two files share shows
    its folder). Pure, so a worker thread can build them to warm the matcher."""
    pages = [(name, path, folder) for name, path, folder in names if is_page(path) or is_canvas(path)]
    counts: dict[str, int] = {}
    for name, _path, _folder in pages:
        counts[name] = counts.get(name, 0) + 1
    return [
        Entry(f"{name} ({folder})" if counts[name] > 1 and folder else name, str(path), folder,
              f"{folder}/{name}" if folder else "")
        for name, path, folder in pages
    ]


def switcher_rows(snapshot: VaultSnapshot) -> list[Entry]:
    """The switcher's rows (pages, boards, aliases), built once per snapshot of the vault model."""
    return snapshot.view("switcher", _switcher_rows)


def _switcher_rows(snapshot: VaultSnapshot) -> list[Entry]:
    entries = page_entries(link_names(snapshot))
    for page, aliases in link_aliases(snapshot).items():
        entries.extend(Entry(alias, str(page), f"→ {page.stem}", alias=True) for alias in aliases)
    return entries


def prepare_rows(snapshot: VaultSnapshot) -> VaultSnapshot:
    """(worker thread) Build what ``[[`` and the switcher list from a snapshot before the GUI thread
    asks: at 5,000 pages the list of every name costs tens of ms, once per snapshot."""
    switcher_rows(snapshot)
    return snapshot


def warm_matching(names: Sequence[tuple[str, Path, str]]) -> None:
    """Prepare every text the switcher and ``[[`` match for ``names`` (run it on a worker thread), so
    the first keystroke costs what later ones do."""
    entries = page_entries(names)
    fuzzy.warm(itertools.chain((e.label for e in entries), (e.path for e in entries if e.path),
                               (name for name, _path, _folder in names)))


class _Keys(QObject):
    """Up/Down/Enter typed in the search field drive the list; Shift+Enter creates (switcher)."""

    def __init__(self, dialog: FuzzyDialog) -> None:
        super().__init__(dialog)
        self.dialog = dialog

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            key = event.key()
            listing = self.dialog.list
            if key in (Qt.Key.Key_Down, Qt.Key.Key_Up):
                step = 1 if key == Qt.Key.Key_Down else -1
                row = max(0, min(listing.count() - 1, listing.currentRow() + step))
                listing.setCurrentRow(row)
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                if event.modifiers() & Qt.KeyboardModifier.ShiftModifier and self.dialog.choose_typed():
                    return True
                self.dialog.choose_current()
                return True
        return False


class FuzzyDialog(QDialog):
    """A frameless filter-as-you-type list shared by the switcher and the command palette."""

    def __init__(self, placeholder: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowFlag(Qt.WindowType.FramelessWindowHint, True)
        self.setModal(True)
        self.resize(560, 380)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        self.input = QLineEdit()
        self.input.setObjectName("paletteInput")
        self.input.setPlaceholderText(placeholder)
        self.list = QListWidget()
        self.hint = QLabel()
        self.hint.setObjectName("paletteHint")
        self.hint.setEnabled(False)  # drawn in the muted colour
        layout.addWidget(self.input)
        layout.addWidget(self.list)
        layout.addWidget(self.hint)
        self.input.textChanged.connect(self.refilter)
        self.input.installEventFilter(_Keys(self))
        self.list.itemActivated.connect(lambda _item: self.choose_current())

    def showEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        super().showEvent(event)
        parent = self.parentWidget()
        if parent is not None:
            geo = parent.geometry()
            self.move(geo.x() + (geo.width() - self.width()) // 2, geo.y() + 80)
        self.input.setFocus()

    def entries(self) -> Sequence[Entry]:
        """The rows to filter; subclasses provide them."""
        return []

    def no_match(self, query: str) -> list[Entry]:
        """Rows offered when nothing matches ``query`` (the switcher offers to create the page)."""
        return []

    def refilter(self, query: str = "") -> None:
        found = fuzzy.rank(query, self.entries(), key=lambda e: e.label, limit=LIMIT, alt=lambda e: e.path)
        if not found and query.strip():
            found = self.no_match(query)
        self.list.clear()
        for entry in found:
            item = QListWidgetItem(f"{entry.label}    {entry.detail}" if entry.detail else entry.label)
            item.setData(Qt.ItemDataRole.UserRole, entry.payload)
            self.list.addItem(item)
        if self.list.count():
            self.list.setCurrentRow(0)

    def labels(self) -> list[str]:
        return [self.list.item(i).text() for i in range(self.list.count())]

    def choose_current(self) -> None:
        item = self.list.currentItem()
        if item is None:
            return
        payload = item.data(Qt.ItemDataRole.UserRole)
        self.accept()
        self.chosen(payload)

    def choose_typed(self) -> bool:
        """Shift+Enter: act on the typed text itself; False when the dialog has no such action."""
        return False

    def chosen(self, payload: object) -> None:
        raise NotImplementedError


class QuickSwitcher(FuzzyDialog):
    """Pages and their aliases; Enter opens, and with no match Enter creates the typed page."""

    page_chosen = Signal(object)  # Path
    create_requested = Signal(object, str)  # folder Path, page name

    def __init__(self, snapshot: VaultSnapshot, root: Path, parent: QWidget | None = None,
                 recent: Sequence[Path] = (), inbox: Path | None = None) -> None:
        super().__init__("Find or create a page…", parent)
        self.root = Path(root)
        self.inbox = inbox  # where a bare name is created (the inbox zone, or the top of someone's own vault)
        self.hint.setText("↑↓ to move · Enter to open · Shift+Enter to create · Esc to close")
        self._entries = self._recent_first(switcher_rows(snapshot), recent)  # once per snapshot
        self.refilter("")

    @staticmethod
    def _recent_first(entries: list[Entry], recent: Sequence[Path]) -> list[Entry]:
        """Before anything is typed, the pages visited last come first (Ctrl+O, Enter: back to the last page)."""
        order = {str(path): rank for rank, path in enumerate(recent)}
        return sorted(entries, key=lambda e: len(order) if e.alias else order.get(str(e.payload), len(order)))

    def entries(self) -> Sequence[Entry]:
        return self._entries

    def no_match(self, query: str) -> list[Entry]:
        place = new_page_place(self.root, query, self.inbox)
        if place is None:
            return []
        where = place.folder.relative_to(self.root).as_posix()
        return [Entry(f"Create page “{place.name}”", place, "at the top of the vault" if where == "." else f"in {where}")]

    def choose_typed(self) -> bool:
        place = new_page_place(self.root, self.input.text(), self.inbox)
        if place is None:
            return False
        self.accept()
        self.chosen(place)
        return True

    def chosen(self, payload: object) -> None:
        if isinstance(payload, CreatePage):
            self.create_requested.emit(payload.folder, payload.name)
        else:
            self.page_chosen.emit(Path(str(payload)))
