"""Ctrl+O: jump to any page by typing a few letters of its name (fuzzy, subsequence match)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QDialog, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from suzent_desktop.core.operations import markdown_files


def fuzzy_score(query: str, candidate: str) -> float | None:
    """Score a subsequence match: None if the letters of ``query`` are not all in order in ``candidate``.

    Consecutive letters, matches at word starts and a short candidate score higher, so
    "mlp" prefers "Machine Learning Projects" over "example lamp".
    """
    query = query.strip().lower()
    if not query:
        return 0.0
    text = candidate.lower()
    score = 0.0
    pos = 0
    previous = -2
    for char in query:
        if char == " ":
            continue
        found = text.find(char, pos)
        if found < 0:
            return None
        score += 1.0
        if found == previous + 1:
            score += 2.0
        if found == 0 or not text[found - 1].isalnum():
            score += 3.0
        elif candidate[found].isupper() and candidate[found - 1].islower():
            score += 2.0
        previous = found
        pos = found + 1
    if query in text:
        score += 5.0
    return score - 0.05 * len(candidate)


def rank(query: str, candidates: Iterable[str], limit: int = 50) -> list[str]:
    scored = [(s, c) for c in candidates if (s := fuzzy_score(query, c)) is not None]
    scored.sort(key=lambda pair: (-pair[0], pair[1].lower()))
    return [c for _, c in scored[:limit]]


class _Keys(QObject):
    """Up/Down/Enter typed in the search field drive the list."""

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
        layout.addWidget(self.input)
        layout.addWidget(self.list)
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

    def entries(self) -> Sequence[tuple[str, object, str]]:
        """(label, payload, detail) rows; subclasses provide them."""
        return []

    def refilter(self, query: str = "") -> None:
        rows = {label: (payload, detail) for label, payload, detail in self.entries()}
        self.list.clear()
        for label in rank(query, rows):
            payload, detail = rows[label]
            item = QListWidgetItem(f"{label}    {detail}" if detail else label)
            item.setData(Qt.ItemDataRole.UserRole, payload)
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

    def chosen(self, payload: object) -> None:
        raise NotImplementedError


class QuickSwitcher(FuzzyDialog):
    page_chosen = Signal(object)  # Path

    def __init__(self, root: Path, parent: QWidget | None = None) -> None:
        super().__init__("Go to page…", parent)
        self.root = Path(root)
        self._entries: list[tuple[str, object, str]] = []
        for path in markdown_files(self.root):
            rel = path.relative_to(self.root)
            folder = rel.parent.as_posix()
            self._entries.append((path.stem, str(path), "" if folder == "." else folder))
        # Same-named pages in several folders need a distinguishing label.
        counts: dict[str, int] = {}
        for label, _p, _d in self._entries:
            counts[label] = counts.get(label, 0) + 1
        self._entries = [
            (f"{label} ({detail})" if counts[label] > 1 else label, payload, detail)
            for label, payload, detail in self._entries
        ]
        self.refilter("")

    def entries(self) -> Sequence[tuple[str, object, str]]:
        return self._entries

    def chosen(self, payload: object) -> None:
        self.page_chosen.emit(Path(str(payload)))
