"""Backlinks and related notes for the page open in the editor.

Backlinks and unlinked mentions are asked of the vault model (``core/vault/model.py``), in a worker
thread: it reads the vault once per window and then only what change-sets name. Every link form
of the one grammar counts (wikilinks, embeds, markdown links; nothing inside code), resolved
with the one resolver, so this pane, the editor, lint, the command line and MCP agree.
"Related" asks the index for the rows nearest to the page's own chunks. "Unlinked mentions"
(Obsidian's section) lists where other pages write the open page's name or an alias without a
link; each has a Link button that turns that mention into a link (an atomic file edit, undone
with Undo link or Ctrl+Z in the pane).
"""

from __future__ import annotations

import asyncio
import html
from collections.abc import Iterable
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

from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.operations import vault_snapshot
from suzent_desktop.core.vault.canvas import is_canvas
from suzent_desktop.core.vault.mentions import (
    LinkedMention,
    Mention,
    MentionError,
    link_mention,
    undo_link_mention,
)
from suzent_desktop.ui.panes.common import EmptyHint, Pane, display_path, snippet

if TYPE_CHECKING:
    from suzent_desktop.core.vault.model import Backlink
    from suzent_desktop.ui.base.services import AppServices

TARGET_ROLE = Qt.ItemDataRole.UserRole + 1
RELATED_LIMIT = 8
RELATED_ROWS = 4 * RELATED_LIMIT  # rows asked of the index: a long file's chunks would fill the list alone
MENTIONS_LIMIT = 200  # a very common name (a page called "A") would list every page


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
            related = one_per_file(await manager.searching.related(page, limit=RELATED_ROWS))[:RELATED_LIMIT]
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
        snapshot = vault_snapshot(self.services.manager, changed)  # the one model: walked once per window
        try:
            target = snapshot.link_target_for(page)
        except ValueError:
            target = page.stem  # outside the vault: its name is the best a link can say
        return snapshot.backlinks(page), snapshot.unlinked_mentions(page, MENTIONS_LIMIT), target

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
            done = link_mention(self.mentions[row], self.link_target, initiator=self.initiator)
        except MentionError as exc:
            self.report(f"Error: {exc}")
            self._changed_pages.add(self.mentions[row].path)  # the page changed: list its mentions as they are now
            self.request_refresh()
            return
        self._linked.append(done)
        self.undo_button.setEnabled(True)
        self._applied(done.changes)
        self.mention_linked.emit()

    def undo_link(self) -> None:
        """Take back the last Link, unless its page was edited since (then say so and keep the edit)."""
        if not self._linked:
            return
        done = self._linked.pop()
        self.undo_button.setEnabled(bool(self._linked))
        try:
            changes = undo_link_mention(done, initiator=self.initiator)
        except MentionError as exc:
            self.report(f"Error: {exc}")
            return
        self._applied(changes)
        self.mention_linked.emit()

    def _applied(self, changes: ChangeSet) -> None:
        """Tell every view (this one ignores the echo: it refreshes itself, with the page it changed)."""
        self.services.apply(changes)
        self._changed_pages |= set(changes.changed)
        self.request_refresh()

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
