"""``[[`` autocomplete in the editor: page and file names, then headings after ``#``, and aliases.

What a link names and how it is written come from the core (the vault model's resolver and the
wikilink grammar of ``core.markdown``): the partial text after ``[[`` is parsed as a link, and the text
inserted is the shortest target that resolves to the chosen file from anywhere in the vault.

Typing never walks the vault nor reads a page's frontmatter: names and aliases come from the
editor area's snapshot of the vault model (the window hands it a new one after each change),
and the lists built from a snapshot are kept with it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtGui import QKeyEvent, QTextCursor
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QPlainTextEdit

from suzent_desktop.core.files.language import fuzzy
from suzent_desktop.core.files.language.markdown import headings, parse_wikilink
from suzent_desktop.core.vault.links import is_page

if TYPE_CHECKING:
    from suzent_desktop.core.vault.model import VaultSnapshot

LIMIT = 30


@dataclass(frozen=True)
class Suggestion:
    """One row of the popup and the link text (between the brackets) it inserts."""

    label: str
    detail: str
    insert: str


def link_names(snapshot: VaultSnapshot) -> list[tuple[str, Path, str]]:
    """(name shown, file, folder) of every vault file: page stems, attachments' file names; built
    once per snapshot of the vault model."""
    return snapshot.view("link names", _link_names)


def link_aliases(snapshot: VaultSnapshot) -> dict[Path, list[str]]:
    """Page -> its frontmatter aliases (empty until the snapshot holds the pages' contents); once per snapshot."""
    return snapshot.view("aliases", lambda snap: snap.all_aliases())


def _link_names(snapshot: VaultSnapshot) -> list[tuple[str, Path, str]]:
    index = snapshot.index
    names = []
    for path in index.files():
        folder = index.rel(path).rpartition("/")[0]
        names.append((path.stem if is_page(path) else path.name, path, folder))
    return names


def suggestions(snapshot: VaultSnapshot, partial: str, source: Path | None,
                source_text: Callable[[], str]) -> list[Suggestion]:
    """What to offer for the text typed after ``[[`` (empty list: nothing to offer)."""
    if "|" in partial:
        return []
    if "#" not in partial:
        return _file_suggestions(snapshot, partial)
    link = parse_wikilink(f"[[{partial}]]")
    if link is None or link.subpath is None or link.subpath.startswith("^"):
        return []
    index = snapshot.index
    page = index.resolve(link.target, source) if link.target else source
    if page is None or not is_page(page):
        return []
    if page == source:
        text, written = source_text(), ""
    else:
        try:
            text = page.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return []
        written = index.link_target_for(page)
    titles = [title for _line, _level, title in headings(text) if title]
    return [Suggestion(title, page.stem, f"{written}#{title}") for title in _ranked(link.subpath, titles)]


def _file_suggestions(snapshot: VaultSnapshot, query: str) -> list[Suggestion]:
    rows: list[tuple[str, Path, str, str | None]] = [(n, p, f, None) for n, p, f in link_names(snapshot)]
    for page, aliases in link_aliases(snapshot).items():
        rows.extend((alias, page, f"alias of {page.stem}", alias) for alias in aliases)
    found = fuzzy.matches(query, [name for name, _path, _detail, _alias in rows])
    scored = []
    for i, score in found.items():
        name, path, detail, alias = rows[i]
        scored.append((-score, not is_page(path), len(name), name.lower(), detail, name, path, alias))
    scored.sort(key=lambda row: row[:5])
    index = snapshot.index
    found_rows = []
    for *_key, detail, name, path, alias in scored[:LIMIT]:
        target = index.link_target_for(path)
        found_rows.append(Suggestion(name, detail, f"{target}|{alias}" if alias else target))
    return found_rows


def _ranked(query: str, labels: list[str]) -> list[str]:
    """Headings matching ``query`` (the one fuzzy rule), in page order when nothing is typed."""
    return fuzzy.rank(query, labels, limit=LIMIT)


class LinkCompleter(QObject):
    """Watches one source editor: ``[[`` opens a popup; Enter or Tab inserts, Esc closes."""

    def __init__(self, edit: QPlainTextEdit, snapshot: Callable[[], VaultSnapshot],
                 source: Callable[[], Path | None]) -> None:
        super().__init__(edit)
        self.edit = edit
        self.snapshot = snapshot  # the editor area's latest snapshot of the vault model
        self._source = source
        self.suggestions: list[Suggestion] = []
        self.popup = QListWidget()
        self.popup.setWindowFlags(Qt.WindowType.ToolTip | Qt.WindowType.FramelessWindowHint)
        self.popup.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
        self.popup.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.popup.setObjectName("linkCompleter")
        self.popup.itemClicked.connect(lambda item: self.accept(self.popup.row(item)))
        edit.installEventFilter(self)
        edit.destroyed.connect(self.popup.deleteLater)

    def visible(self) -> bool:
        return self.popup.isVisible()

    def labels(self) -> list[str]:
        return [s.label for s in self.suggestions]

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if watched is not self.edit:
            return False
        if event.type() == QEvent.Type.FocusOut:
            self.hide()
            return False
        if event.type() != QEvent.Type.KeyPress or not isinstance(event, QKeyEvent):
            return False
        if self.visible() and self._navigate(event.key()):
            return True
        if self.edit.isReadOnly():
            return False
        self.edit.event(event)  # type the key first, then look at what is before the cursor
        self.refresh()
        return True

    def _navigate(self, key: int) -> bool:
        if key in (Qt.Key.Key_Down, Qt.Key.Key_Up):
            step = 1 if key == Qt.Key.Key_Down else -1
            row = max(0, min(self.popup.count() - 1, self.popup.currentRow() + step))
            self.popup.setCurrentRow(row)
            return True
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Tab):
            self.accept(self.popup.currentRow())
            return True
        if key == Qt.Key.Key_Escape:
            self.hide()
            return True
        return False

    def _partial(self) -> tuple[int, str] | None:
        """(document offset of ``[[``, text typed after it) when the cursor is in an unclosed link."""
        cursor = self.edit.textCursor()
        if cursor.hasSelection():
            return None
        block = cursor.block()
        before = block.text()[: cursor.positionInBlock()]
        start = before.rfind("[[")
        if start < 0:
            return None
        partial = before[start + 2 :]
        if "]]" in partial or "[" in partial or "]" in partial:
            return None
        return block.position() + start, partial

    def refresh(self) -> None:
        """Show, update or hide the popup for the text before the cursor."""
        found = self._partial()
        self.suggestions = (
            suggestions(self.snapshot(), found[1], self._source(), self.edit.toPlainText) if found else []
        )
        if not self.suggestions:
            self.hide()
            return
        self.popup.clear()
        for suggestion in self.suggestions:
            text = f"{suggestion.label}    {suggestion.detail}" if suggestion.detail else suggestion.label
            item = QListWidgetItem(text)
            item.setToolTip(suggestion.insert)
            self.popup.addItem(item)
        self.popup.setCurrentRow(0)
        rect = self.edit.cursorRect()
        self.popup.move(self.edit.viewport().mapToGlobal(QPoint(rect.left(), rect.bottom() + 4)))
        self.popup.resize(420, min(260, 24 * len(self.suggestions) + 8))
        self.popup.show()

    def hide(self) -> None:
        self.popup.hide()
        self.suggestions = []

    def accept(self, row: int) -> None:
        """Replace ``[[partial`` (and a ``]]`` right after the cursor) by the whole link."""
        found = self._partial()
        if found is None or not 0 <= row < len(self.suggestions):
            self.hide()
            return
        start, _partial = found
        chosen = self.suggestions[row]
        cursor = self.edit.textCursor()
        end = cursor.position()
        if self.edit.toPlainText()[end : end + 2] == "]]":
            end += 2
        cursor.setPosition(start)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        cursor.insertText(f"[[{chosen.insert}]]")
        self.edit.setTextCursor(cursor)
        self.hide()
