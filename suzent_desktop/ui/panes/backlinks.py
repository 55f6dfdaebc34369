"""Backlinks and related notes for the page open in the editor.

Backlinks are found by reading the vault's pages in a worker thread, once, then only the
pages change-sets name (a 5,000-page vault is not walked again on every edit). Every link form
of the one grammar counts (wikilinks, embeds, markdown links; nothing inside code), resolved
with the one resolver, so this pane, the editor and lint agree on what a link names.
"Related" asks the index for the rows nearest to the page's own chunks. "Unlinked mentions"
(Obsidian's section) lists where other pages write the open page's name or an alias without a
link; each has a Link button that turns that mention into a link (an atomic file edit, undone
with Undo link or Ctrl+Z in the pane).
"""

from __future__ import annotations

import asyncio
import html
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from suzent_desktop.core.events import ChangeSet
from suzent_desktop.core.links import VaultIndex
from suzent_desktop.core.markdown import Link, line_of, links
from suzent_desktop.core.operations import (
    LinkedMention,
    Mention,
    MentionError,
    canvas_markdown,
    is_canvas,
    is_link_source,
    link_mention,
    link_sources,
    mention_names,
    undo_link_mention,
    unlinked_mentions,
)
from suzent_desktop.ui.panes.common import EmptyHint, Pane, display_path, snippet

if TYPE_CHECKING:
    from suzent_desktop.ui.services import AppServices

TARGET_ROLE = Qt.ItemDataRole.UserRole + 1
RELATED_LIMIT = 8
RELATED_ROWS = 4 * RELATED_LIMIT  # rows asked of the index: a long file's chunks would fill the list alone
MENTIONS_LIMIT = 200  # a very common name (a page called "A") would list every page


@dataclass(frozen=True)
class PageLink:
    """One outgoing link of a page, with the line it stands on (for context)."""

    line: int
    text: str
    link: Link


@dataclass(frozen=True)
class Backlink:
    source: Path
    line: int
    context: str


def extract_links(text: str) -> list[PageLink]:
    """Every link of a page (outside code), with its line."""
    lines = text.splitlines()
    return [
        PageLink(number, lines[number - 1].strip() if number <= len(lines) else "", link)
        for link in links(text)
        if link.target
        for number in [line_of(text, link.start)]
    ]


class LinkCache:
    """Outgoing links of every page, read once and then kept current file by file.

    A full walk of the vault happens on first use and at most every ``FULL_RESCAN_S``;
    between walks, the pages a change-set names are re-read (when their mtime or size
    changed). Scans hold a lock so two never run at once in worker threads.
    """

    FULL_RESCAN_S = 300.0

    def __init__(self) -> None:
        self._entries: dict[Path, tuple[tuple[int, int], list[PageLink], str]] = {}
        self._walked_at: float | None = None
        self.lock = threading.Lock()

    def needs_walk(self) -> bool:
        return self._walked_at is None or time.monotonic() - self._walked_at > self.FULL_RESCAN_S

    def walk(self, pages: Iterable[Path]) -> None:
        """Bring the cache in line with the vault's page list (blocking)."""
        seen = set()
        for page in pages:
            seen.add(page)
            self.update(page)
        for gone in set(self._entries) - seen:
            del self._entries[gone]
        self._walked_at = time.monotonic()

    def update(self, page: Path) -> None:
        """Re-read one page if it changed; forget it if it is gone."""
        try:
            stat = page.stat()
        except OSError:
            self._entries.pop(page, None)
            return
        key = (stat.st_mtime_ns, stat.st_size)
        cached = self._entries.get(page)
        if cached is not None and cached[0] == key:
            return
        try:
            text = page.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            self._entries.pop(page, None)
            return
        self._entries[page] = (key, extract_links(canvas_markdown(text) if is_canvas(page) else text), text)

    def pages(self) -> list[Path]:
        return sorted(self._entries)

    def mentions(self, target: Path, names: list[str]) -> list[Mention]:
        """Unlinked mentions of ``names`` in every other page (boards have no prose to link in)."""
        found: list[Mention] = []
        for page in sorted(self._entries):
            if page != target and not is_canvas(page):
                found += unlinked_mentions(page, self._entries[page][2], names)
                if len(found) >= MENTIONS_LIMIT:
                    return found[:MENTIONS_LIMIT]
        return found

    def text_of(self, page: Path) -> str:
        entry = self._entries.get(page)
        if entry is not None:
            return entry[2]
        try:
            return page.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            return ""

    def index(self, target: Path, root: Path) -> VaultIndex:
        """The resolver over the cached pages (and ``target``)."""
        index = VaultIndex(root)
        for page in [*self._entries, target]:
            try:
                index.add(page)
            except ValueError:
                continue  # outside the vault (a read-only folder): links cannot name it by path
        return index

    def backlinks(self, target: Path, root: Path, index: VaultIndex | None = None) -> list[Backlink]:
        """Pages whose links resolve to ``target`` (the vault's pages as the cache knows them)."""
        index = index or self.index(target, root)
        found: list[Backlink] = []
        for page in sorted(self._entries):
            if page == target:
                continue
            for entry in self._entries[page][1]:
                if index.resolve_link(entry.link, page) == target:
                    # a board's lines are its JSON's, not the text nodes': open it at the top
                    found.append(Backlink(page, 1 if is_canvas(page) else entry.line, entry.text))
                    break
        return found


def one_per_file(hits: Iterable[Any]) -> list[Any]:
    """The best row of each file (hits come best first): a file is one entry of a "see also" list."""
    seen: set[str] = set()
    kept = []
    for hit in hits:
        if str(hit.path) not in seen:
            seen.add(str(hit.path))
            kept.append(hit)
    return kept


class BacklinksPane(Pane):
    """Pages linking to the open page, pages naming it without a link, and the index's nearest rows."""

    # Emitted after a mention was linked or a link undone (tests wait on it).
    mention_linked = Signal()

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(services, parent)
        self.page: Path | None = None
        self.backlinks: list[Backlink] = []
        self.mentions: list[Mention] = []
        self.link_target = ""  # what a mention's link names: the shortest target for the open page
        self.related: list[Any] = []
        self._linked: list[LinkedMention] = []  # newest last: what Undo link takes back
        self._cache = LinkCache()
        self._changed_pages: set[Path] = set()  # named by change-sets since the last scan
        self._build()
        self._show_nothing()

    def _build(self) -> None:
        self.title = QLabel(self)
        self.title.setWordWrap(True)
        self.backlinks_label = QLabel("Linked from", self)
        self.backlinks_list = QListWidget(self)
        self.backlinks_list.setWordWrap(True)
        self.backlinks_list.itemActivated.connect(self._activated)
        self.mentions_label = QLabel("Unlinked mentions", self)
        self.mentions_list = QListWidget(self)
        self.mentions_list.itemActivated.connect(self._activated)
        self.undo_button = QPushButton("Undo link", self)
        self.undo_button.setToolTip("Put back the page the last Link changed (Ctrl+Z)")
        self.undo_button.setEnabled(False)
        self.undo_button.clicked.connect(self.undo_link)
        undo = QShortcut(QKeySequence.StandardKey.Undo, self)
        undo.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        undo.activated.connect(self.undo_link)
        mentions_bar = QHBoxLayout()
        mentions_bar.addWidget(self.mentions_label, 1)
        mentions_bar.addWidget(self.undo_button)
        self.related_label = QLabel("Related", self)
        self.related_list = QListWidget(self)
        self.related_list.setWordWrap(True)
        self.related_list.itemActivated.connect(self._activated)
        self.hints = {
            "backlinks": EmptyHint(self.backlinks_list, "No other page links here yet. Write [[ and this page's "
                                   "name in another page to link it."),
            "mentions": EmptyHint(self.mentions_list, "No other page names this page without linking it."),
            "related": EmptyHint(self.related_list, "Memories and pages about the same things appear here "
                                 "once the page is indexed."),
        }
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.title)
        layout.addWidget(self.backlinks_label)
        layout.addWidget(self.backlinks_list, 1)
        layout.addLayout(mentions_bar)
        layout.addWidget(self.mentions_list, 1)
        layout.addWidget(self.related_label)
        layout.addWidget(self.related_list, 1)

    def set_page(self, path: Path | None) -> None:
        """Follow the editor: show what links to ``path`` (None clears the pane)."""
        self.page = Path(path) if path is not None else None
        if self.page is None:
            self.run_job("refresh", _noop())
            self._show_nothing()
            return
        self.title.setText(f"<b>{self.page.stem}</b>")
        self.request_refresh()  # behind another tab: scanned when shown

    def _on_changed(self, changes: object) -> None:
        if isinstance(changes, ChangeSet):
            self._changed_pages |= {p for p in changes.pages if p.suffix.lower() == ".md" or is_canvas(p)}
        super()._on_changed(changes)

    def wants(self, changes: ChangeSet) -> bool:
        return self.page is not None and bool(changes.pages or changes.index or changes.rows_removed)

    async def load(self) -> None:
        page = self.page
        if page is None:
            return
        manager = self.services.manager
        root = manager.layout.notebook_dir
        changed, self._changed_pages = self._changed_pages, set()
        backlinks, mentions, target = await asyncio.to_thread(self._scan, page, root, changed)
        if not self.alive() or self.page != page:
            return
        self.backlinks, self.mentions, self.link_target = backlinks, mentions, target
        self._show_backlinks(root)
        self._show_mentions(root)
        try:
            related = one_per_file(await manager.related(page, limit=RELATED_ROWS))[:RELATED_LIMIT]
        except Exception as exc:  # the index may be missing or rebuilding: links still work
            related = []
            self.related_label.setText(f"Related (unavailable: {exc})")
        else:
            self.related_label.setText(f"Related ({len(related)})")
        if not self.alive() or self.page != page:
            return
        self.related = list(related)
        self._show_related()

    def _scan(self, page: Path, root: Path, changed: set[Path]) -> tuple[list[Backlink], list[Mention], str]:
        """(worker thread) Backlinks, unlinked mentions of the page's name and aliases, its link target."""
        manager = self.services.manager
        with self._cache.lock:
            if self._cache.needs_walk():
                self._cache.walk(link_sources(manager))
            else:
                for path in changed:
                    if is_link_source(manager, path):
                        self._cache.update(path)
            index = self._cache.index(page, root)
            try:
                target = index.link_target_for(page)
            except ValueError:
                target = page.stem  # outside the vault: its name is the best a link can say
            names = mention_names(page, self._cache.text_of(page)) if not is_canvas(page) else [page.stem]
            return self._cache.backlinks(page, root, index), self._cache.mentions(page, names), target

    def _show_nothing(self) -> None:
        self.title.setText("No page open")
        self.backlinks, self.related, self.mentions = [], [], []
        self.backlinks_list.clear()
        self.related_list.clear()
        self.mentions_list.clear()
        self.mentions_label.setText("Unlinked mentions")
        self.backlinks_label.setText("Linked from")
        self.related_label.setText("Related")

    def _show_backlinks(self, root: Path) -> None:
        self.backlinks_list.clear()
        self.backlinks_label.setText(f"Linked from ({len(self.backlinks)})")
        for link in self.backlinks:
            item = QListWidgetItem(
                f"{display_path(link.source, [root])}\n    {snippet(link.context)}", self.backlinks_list
            )
            item.setData(TARGET_ROLE, (link.source, link.line))

    def _show_mentions(self, root: Path) -> None:
        self.mentions_list.clear()
        more = "+" if len(self.mentions) >= MENTIONS_LIMIT else ""
        self.mentions_label.setText(f"Unlinked mentions ({len(self.mentions)}{more})")
        for row, mention in enumerate(self.mentions):
            item = QListWidgetItem(self.mentions_list)
            item.setData(TARGET_ROLE, (mention.path, mention.line))
            widget = QWidget()
            label = QLabel(f"<span style='color:gray'>{html.escape(display_path(mention.path, [root]))}:"
                           f"{mention.line}</span><br>{_marked(mention)}", widget)
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.RichText)
            label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
            button = QPushButton("Link", widget)
            button.setToolTip(f"Make this mention a link to [[{self.link_target}]]")
            button.clicked.connect(lambda _checked=False, r=row: self.link_mention(r))
            box = QHBoxLayout(widget)
            box.setContentsMargins(4, 2, 4, 2)
            box.addWidget(label, 1)
            box.addWidget(button)
            item.setSizeHint(widget.sizeHint())
            self.mentions_list.setItemWidget(item, widget)

    def link_button(self, row: int) -> QPushButton | None:
        """The Link button of a mention's row (tests click it)."""
        item = self.mentions_list.item(row)
        widget = self.mentions_list.itemWidget(item) if item is not None else None
        return widget.findChild(QPushButton) if widget is not None else None

    def link_mention(self, row: int) -> None:
        """Turn one mention into a link (an atomic write of that page), then refresh every view."""
        if not 0 <= row < len(self.mentions) or not self.link_target:
            return
        try:
            done = link_mention(self.mentions[row], self.link_target)
        except MentionError as exc:
            self.report(f"Error: {exc}")
            self._changed_pages.add(self.mentions[row].path)  # the page changed: list its mentions as they are now
            self.request_refresh()
            return
        self._linked.append(done)
        self.undo_button.setEnabled(True)
        self.services.apply(done.changes)
        self.mention_linked.emit()

    def undo_link(self) -> None:
        """Take back the last Link, unless its page was edited since (then say so and keep the edit)."""
        if not self._linked:
            return
        done = self._linked.pop()
        self.undo_button.setEnabled(bool(self._linked))
        try:
            changes = undo_link_mention(done)
        except MentionError as exc:
            self.report(f"Error: {exc}")
            return
        self.services.apply(changes)
        self.mention_linked.emit()

    def _show_related(self) -> None:
        layout = self.services.manager.layout
        self.related_list.clear()
        for hit in self.related:
            where = display_path(hit.path, [layout.notebook_dir, layout.memory_dir])
            item = QListWidgetItem(
                f"{where}{' · ' + hit.date if hit.date else ''}\n    {snippet(hit.text)}", self.related_list
            )
            item.setData(TARGET_ROLE, (Path(hit.path), hit.line))

    def backlink_sources(self) -> list[Path]:
        return [b.source for b in self.backlinks]

    def _activated(self, item: QListWidgetItem) -> None:
        target = item.data(TARGET_ROLE)
        if target is not None:
            self.services.bridge.open_path.emit(target[0], target[1])


def _marked(mention: Mention) -> str:
    """The mention's line as HTML, the mention in bold."""
    line = mention.context
    at = line.lower().find(mention.text.lower())
    if at < 0:
        return html.escape(line[:160])
    return (html.escape(line[:at]) + f"<b>{html.escape(line[at : at + len(mention.text)])}</b>"
            + html.escape(line[at + len(mention.text) :][:160]))


async def _noop() -> None:
    """Cancels a pending refresh when the page is closed."""
