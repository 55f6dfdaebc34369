"""``[[`` autocomplete in the editor: page and file names, then headings after ``#``, and aliases.

What a link names and how it is written come from the core (``VaultIndex`` and the wikilink
grammar of ``core.markdown``): the partial text after ``[[`` is parsed as a link, and the text
inserted is the shortest target that resolves to the chosen file from anywhere in the vault.

Typing never walks the vault: names come from the editor area's ``VaultIndex`` (kept current by
the watcher's events) and are cached until it changes; aliases need each page's frontmatter,
so they are read once on a worker thread and then updated one page at a time as pages change.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtGui import QKeyEvent, QTextCursor
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QPlainTextEdit

from suzent_desktop.core import fuzzy
from suzent_desktop.core.links import VaultIndex, is_page
from suzent_desktop.core.markdown import frontmatter, headings, meta_list, parse_wikilink

LIMIT = 30
T = TypeVar("T")


@dataclass(frozen=True)
class Suggestion:
    """One row of the popup and the link text (between the brackets) it inserts."""

    label: str
    detail: str
    insert: str


def _read_aliases(pages: list[Path]) -> dict[Path, list[str]]:
    """Aliases of every page (worker thread: only reads files)."""
    return {page: found for page in pages if (found := _aliases_of(page))}


def _aliases_of(page: Path) -> list[str]:
    try:
        text = page.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    return meta_list(frontmatter(text), "aliases")


class LinkCatalog:
    """The names a ``[[`` link can take, cached from the editor area's ``VaultIndex``."""

    _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="aliases")

    def __init__(self, index: Callable[[], VaultIndex]) -> None:
        self._index = index
        self._names: list[tuple[str, Path, str]] | None = None
        self._aliases: dict[Path, list[str]] | None = None
        self._loading: Future[dict[Path, list[str]]] | None = None
        self._stale: set[Path] = set()
        self.version = 0  # goes up whenever the names or the aliases change
        self._derived: dict[str, tuple[int, Any]] = {}
        # Reads every page's aliases on the catalog's worker; the window gives the vault model's instead.
        self.alias_reader: Callable[[list[Path]], dict[Path, list[str]]] = _read_aliases

    # -- keeping current ----------------------------------------------------------------------------
    def invalidate(self) -> None:
        """Files were added, removed or moved: names are rebuilt on the next ``[[``."""
        self._names = None
        self.version += 1

    def page_changed(self, path: Path) -> None:
        """A page's text changed: its aliases may have too."""
        if not is_page(path):
            return
        if self._aliases is None:
            self._stale.add(path)
            return
        found = _aliases_of(path) if path.exists() else []
        if found == self._aliases.get(path, []):
            return
        self.version += 1
        if found:
            self._aliases[path] = found
        else:
            self._aliases.pop(path, None)

    @property
    def loading(self) -> Future[dict[Path, list[str]]] | None:
        """The first read of every page's aliases, once started (the window warms the matcher with them)."""
        return self._loading

    @property
    def aliases_ready(self) -> bool:
        return self._aliases is not None or (self._loading is not None and self._loading.done())

    def start_loading(self) -> None:
        """Read aliases in the background (idempotent)."""
        if self._loading is None and self._aliases is None:
            self._loading = self._executor.submit(self.alias_reader, self._index().pages())

    def aliases(self) -> dict[Path, list[str]]:
        """Page → its frontmatter aliases, as far as they are read (empty until the first read is done)."""
        self.start_loading()
        if self._aliases is None and self._loading is not None and self._loading.done():
            self._aliases = self._loading.result()
            self.version += 1
            for path in self._stale:
                self.page_changed(path)
            self._stale.clear()
        return self._aliases or {}

    def derived(self, key: str, build: Callable[[LinkCatalog], T]) -> T:
        """A value built from the names and aliases (the switcher's rows), kept until either changes."""
        self.aliases()  # the first read may have just finished
        cached = self._derived.get(key)
        if cached is None or cached[0] != self.version:
            cached = (self.version, build(self))
            self._derived[key] = cached
        return cached[1]

    def names(self) -> list[tuple[str, Path, str]]:
        """(name shown, file, folder) of every vault file: page stems, attachments' file names."""
        if self._names is None:
            index = self._index()
            names = []
            for path in index.files():
                rel = index.rel(path)
                folder = rel.rpartition("/")[0]
                names.append((path.stem if is_page(path) else path.name, path, folder))
            self._names = names
        return self._names

    # -- suggestions --------------------------------------------------------------------------------
    def suggestions(self, partial: str, source: Path | None, source_text: Callable[[], str]) -> list[Suggestion]:
        """What to offer for the text typed after ``[[`` (empty list: nothing to offer)."""
        if "|" in partial:
            return []
        if "#" not in partial:
            return self._file_suggestions(partial)
        link = parse_wikilink(f"[[{partial}]]")
        if link is None or link.subpath is None or link.subpath.startswith("^"):
            return []
        index = self._index()
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

    def _file_suggestions(self, query: str) -> list[Suggestion]:
        rows: list[tuple[str, Path, str, str | None]] = [(n, p, f, None) for n, p, f in self.names()]
        for page, aliases in self.aliases().items():
            rows.extend((alias, page, f"alias of {page.stem}", alias) for alias in aliases)
        found = fuzzy.matches(query, [name for name, _path, _detail, _alias in rows])
        scored = []
        for i, score in found.items():
            name, path, detail, alias = rows[i]
            scored.append((-score, not is_page(path), len(name), name.lower(), detail, name, path, alias))
        scored.sort(key=lambda row: row[:5])
        index = self._index()
        suggestions = []
        for *_key, detail, name, path, alias in scored[:LIMIT]:
            target = index.link_target_for(path)
            suggestions.append(Suggestion(name, detail, f"{target}|{alias}" if alias else target))
        return suggestions


def _ranked(query: str, labels: list[str]) -> list[str]:
    """Headings matching ``query`` (the one fuzzy rule), in page order when nothing is typed."""
    return fuzzy.rank(query, labels, limit=LIMIT)


class LinkCompleter(QObject):
    """Watches one source editor: ``[[`` opens a popup; Enter or Tab inserts, Esc closes."""

    def __init__(self, edit: QPlainTextEdit, catalog: LinkCatalog, source: Callable[[], Path | None]) -> None:
        super().__init__(edit)
        self.edit = edit
        self.catalog = catalog
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
            self.catalog.suggestions(found[1], self._source(), self.edit.toPlainText) if found else []
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
