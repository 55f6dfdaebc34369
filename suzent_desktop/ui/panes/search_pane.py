"""Search pane: as-you-type hybrid search over the index, with filters, open and forget.

The query runs ~200 ms after the last keystroke, on the loop, and a newer query cancels
the older one. While files wait to be indexed the pane says so instead of silently
showing stale results; a full-text fallback (no embedder) is reported as well.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import html
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QDate, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDateEdit,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.language.markdown import plain_text
from suzent_desktop.core.files.language.words import count
from suzent_desktop.core.index.ranking.filters import Filters
from suzent_desktop.ui.dialogs.forget_dialog import ForgetChoice, choose_units
from suzent_desktop.ui.panes.common import EmptyHint, Pane, display_path, highlight

if TYPE_CHECKING:
    from suzent_desktop.ui.base.services import AppServices

DEBOUNCE_MS = 200
RESULT_LIMIT = 30
SOURCES = (
    ("All sources", None),
    ("Daily logs", "archive"),
    ("Notebook", "notebook"),
    ("Core files", "core"),
    ("Transcripts", "transcript"),
)
HIT_ROLE = Qt.ItemDataRole.UserRole + 1
WORDS_ROLE = Qt.ItemDataRole.UserRole + 2  # the query words a row highlights
MUTED = "gray"  # metadata lines, off the selection
WARNING = "#a33"


class SearchPane(Pane):
    """Hybrid search with filters; activating a hit opens its file at the hit's line."""

    # Emitted after a query's results are on screen (tests wait on it).
    searched = Signal()
    # Emitted after a forget finished (argument: rows removed).
    forgotten = Signal(int)

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(services, parent)
        self.last_response: Any = None
        self.stale_count = 0
        # Asks which of a hit's lines to forget (and, for the person's own notes named, whether to
        # delete them there too); tests replace it to drive the dialog themselves.
        self.choose_units: Callable[[list[str], list[str]], ForgetChoice] = (
            lambda units, notes: choose_units(self, units, notes))
        self._build()
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self.search_now)
        services.bridge.index_stale.connect(self._on_index_stale)
        self.refresh()

    # -- widgets ---------------------------------------------------------------------
    def _build(self) -> None:
        self.query_edit = QLineEdit(self)
        self.query_edit.setPlaceholderText('Search memories and notes…  tag:x  path:folder  "phrase"  -word')
        self.query_edit.setToolTip(
            "Words are ranked by meaning and by keyword. Operators narrow the hits (combine them):\n"
            "  tag:trip      pages tagged #trip or #trip/…\n"
            "  path:Projects files whose path contains it\n"
            '  "exact phrase" hits holding the phrase\n'
            "  -word  -\"phrase\"  -tag:x  -path:x   leave those out\n"
            "Operators alone (tag:trip) list the matching pages."
        )
        self.query_edit.setClearButtonEnabled(True)
        self.query_edit.textChanged.connect(self._schedule)
        self.query_edit.returnPressed.connect(self.search_now)

        self.source_box = QComboBox(self)
        for label, value in SOURCES:
            self.source_box.addItem(label, value)
        self.zone_box = QComboBox(self)
        self.zone_box.addItem("All folders", None)  # the vault's top folders: show_folders()
        self.dates_check = QCheckBox("Dates", self)
        now = self.services.manager.clock.today()  # the app's clock (SUZENT_TODAY pins it)
        today = QDate(now.year, now.month, now.day)
        self.from_edit = QDateEdit(today.addDays(-30), self)
        self.to_edit = QDateEdit(today, self)
        for edit in (self.from_edit, self.to_edit):
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("yyyy-MM-dd")
            edit.setEnabled(False)
            edit.dateChanged.connect(self._schedule)
        self.dates_check.toggled.connect(self._dates_toggled)
        self.source_box.currentIndexChanged.connect(self._source_changed)
        self.zone_box.currentIndexChanged.connect(self._schedule)

        filters = QHBoxLayout()
        filters.addWidget(self.source_box)
        filters.addWidget(self.zone_box)
        dates = QHBoxLayout()
        dates.addWidget(self.dates_check)
        dates.addWidget(self.from_edit)
        dates.addWidget(QLabel("–", self))
        dates.addWidget(self.to_edit)

        self.stale_label = QLabel(self)
        self.stale_label.setWordWrap(True)
        self.stale_label.setStyleSheet("color:#8a5a00")
        self.stale_label.hide()
        self.warning_label = QLabel(self)
        self.warning_label.setWordWrap(True)
        self.warning_label.setStyleSheet("color:#a33")
        self.warning_label.hide()

        self.results = QListWidget(self)
        self.results.setAlternatingRowColors(True)
        self.results.setWordWrap(True)
        self.results.itemActivated.connect(self._item_activated)
        self.results.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.results.customContextMenuRequested.connect(self._context_menu)
        self.results.currentRowChanged.connect(self._selection_changed)
        self.hint = EmptyHint(self.results, "Type to search daily logs, pages and conversations. "
                              "Try words, \"a phrase\", tag:name or path:folder; -word leaves a word out.")
        self.empty_label = QLabel(self)
        self.empty_label.setStyleSheet("color:gray")

        self.forget_button = QPushButton("Forget…", self)
        self.forget_button.setToolTip("Forget the selected memory: it is removed from search for good")
        self.forget_button.setEnabled(False)
        self.forget_button.clicked.connect(self.forget_selected)
        buttons = QHBoxLayout()
        buttons.addWidget(self.empty_label, 1)
        buttons.addWidget(self.forget_button)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.query_edit)
        layout.addLayout(filters)
        layout.addLayout(dates)
        layout.addWidget(self.stale_label)
        layout.addWidget(self.warning_label)
        layout.addWidget(self.results, 1)
        layout.addLayout(buttons)

    # -- filters ---------------------------------------------------------------------
    def filters(self) -> Filters:
        date_from = date_to = None
        if self.dates_check.isChecked():
            date_from = self.from_edit.date().toString("yyyy-MM-dd")
            date_to = self.to_edit.date().toString("yyyy-MM-dd")
        return Filters(
            source=self.source_box.currentData(),
            zone=self.zone_box.currentData(),
            date_from=date_from,
            date_to=date_to,
        )

    def set_date_range(self, date_from: dt.date | None, date_to: dt.date | None) -> None:
        """Restrict hits to a date range (None, None lifts the restriction)."""
        self.dates_check.setChecked(date_from is not None or date_to is not None)
        if date_from is not None:
            self.from_edit.setDate(QDate(date_from.year, date_from.month, date_from.day))
        if date_to is not None:
            self.to_edit.setDate(QDate(date_to.year, date_to.month, date_to.day))

    def _dates_toggled(self, on: bool) -> None:
        self.from_edit.setEnabled(on)
        self.to_edit.setEnabled(on)
        self._schedule()

    def _source_changed(self) -> None:
        # Zones only exist in the notebook; offering them for daily logs would always give nothing.
        self.zone_box.setEnabled(self.source_box.currentData() in (None, "notebook"))
        self._schedule()

    def show_folders(self, names: list[str]) -> None:
        """The vault's top folders a search can be kept to (the window hands over what its tree shows,
        so the vault is not listed again for them); the one chosen stays chosen."""
        chosen = self.zone_box.currentData()
        self.zone_box.blockSignals(True)
        while self.zone_box.count() > 1:
            self.zone_box.removeItem(1)
        for name in names:
            self.zone_box.addItem(name, name)
        self.zone_box.setCurrentIndex(max(0, self.zone_box.findData(chosen)) if chosen is not None else 0)
        self.zone_box.blockSignals(False)

    # -- searching -------------------------------------------------------------------
    def focus_query(self) -> None:
        self.query_edit.setFocus()
        self.query_edit.selectAll()

    def set_query(self, text: str) -> None:
        """Type a query as a user would (the debounce timer then runs it)."""
        self.query_edit.setText(text)

    def search_tag(self, tag: str) -> None:
        """Run a ``tag:`` search at once (the tags pane's click)."""
        self.set_query(f"tag:{tag}")
        self.search_now()

    def _schedule(self, *_: object) -> None:
        self._debounce.start()

    def search_now(self) -> None:
        """Run the current query at once (Enter, or the debounce timer firing)."""
        self._debounce.stop()
        query = self.query_edit.text().strip()
        if not query:
            self.run_job("search", self._clear())
            return
        self.run_job("search", self._search(query, self.filters()))

    async def _clear(self) -> None:
        self.last_response = None
        self.results.clear()
        self.warning_label.hide()
        self.empty_label.setText("")
        self.forget_button.setEnabled(False)
        self.searched.emit()

    async def _search(self, query: str, filters: Filters) -> None:
        manager = self.services.manager
        response = await manager.searching.search(
            query,
            limit=RESULT_LIMIT,
            filters=filters,
            record_recall=True,
        )
        if not self.alive():
            return
        self._show(query, response)
        await self._check_stale()
        if self.alive():
            self.searched.emit()

    def _show(self, query: str, response: Any) -> None:
        self.last_response = response
        self.results.clear()
        if response.warning:
            self.warning_label.setText(response.warning)
            self.warning_label.show()
        else:
            self.warning_label.hide()
        words = response.words if response.words is not None else query  # operators are not words to highlight
        for hit in response.hits:
            self._add_hit(words, hit)
        found = count(len(response.hits), "page" if response.mode == "list" else "result")
        self.empty_label.setText(found if response.hits else "No results")
        if response.hits:
            self.results.setCurrentRow(0)
        self.forget_button.setEnabled(bool(response.hits))

    def _add_hit(self, query: str, hit: Any) -> None:
        label = QLabel(self._hit_html(query, hit, selected=False))
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setContentsMargins(4, 3, 4, 3)
        label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        item = QListWidgetItem(self.results)
        item.setData(HIT_ROLE, hit)
        item.setData(WORDS_ROLE, query)
        item.setToolTip(hit.text)
        item.setSizeHint(label.sizeHint())
        self.results.setItemWidget(item, label)

    def _hit_html(self, query: str, hit: Any, *, selected: bool) -> str:
        """A hit's rich text. On the selection colour its grey and red lines take the selected-text colour."""
        on_selection = self.results.palette().color(QPalette.ColorRole.HighlightedText).name()
        muted, warning = (on_selection, on_selection) if selected else (MUTED, WARNING)
        manager = self.services.manager
        where = display_path(hit.path, [manager.layout.notebook_dir, manager.layout.memory_dir])
        source = {"archive": "Daily log", "notebook": "Notebook", "core": "Core", "transcript": "Transcript"}.get(
            hit.source_type, hit.source_type
        )
        roots = [manager.layout.notebook_dir, manager.layout.memory_dir]
        meta = [source, hit.date or "", where + (f":{hit.line}" if hit.line else "")]
        if hit.heading:
            meta.append(f"§ {hit.heading}")
        header = " · ".join(m for m in meta if m)
        parts = [
            f'<div style="color:{muted};font-size:small">{html.escape(header)}</div>',
            f"<div>{highlight(plain_text(hit.text) or hit.text, query)}</div>",
        ]
        if hit.superseded:
            note = f"superseded on {hit.until}" if hit.until else "superseded"
            parts.append(f'<div style="color:{warning};font-size:small">({html.escape(note)})</div>')
        if hit.current is not None:
            parts.append(
                f'<div style="font-size:small">Now: {html.escape(hit.current.text)}'
                f' <span style="color:{muted}">· {html.escape(display_path(hit.current.path, roots))}'
                f":{hit.current.line or ''}</span></div>"
            )
        if hit.also:
            places = ", ".join(
                display_path(p.path, roots) + (f":{p.line}" if p.line else "") for p in hit.also
            )
            parts.append(f'<div style="color:{muted};font-size:small">Also in: {html.escape(places)}</div>')
        return "".join(parts)

    def _restyle_rows(self, selected_row: int) -> None:
        """Redraw each row's text for its state: the selected one in the selection's text colour."""
        for row in range(self.results.count()):
            item = self.results.item(row)
            label = self.results.itemWidget(item)
            if not isinstance(label, QLabel):
                continue
            selected = row == selected_row
            if (label.objectName() == "selectedHit") == selected:
                continue  # already drawn for this state
            label.setObjectName("selectedHit" if selected else "")
            label.setForegroundRole(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.WindowText)
            label.setText(self._hit_html(item.data(WORDS_ROLE), item.data(HIT_ROLE), selected=selected))

    def hits(self) -> list[Any]:
        """The hits on screen, in order."""
        return [self.results.item(i).data(HIT_ROLE) for i in range(self.results.count())]

    def hit_label(self, row: int) -> str:
        widget = self.results.itemWidget(self.results.item(row))
        return widget.text() if isinstance(widget, QLabel) else ""

    # -- stale notice ----------------------------------------------------------------
    def _on_index_stale(self, count: int) -> None:
        self._set_stale(count)

    def _set_stale(self, count: int) -> None:
        self.stale_count = count
        if self.services.index_paused:  # files never indexed: an empty answer says nothing about them
            self.stale_label.setText(f"Indexing is paused ({count} files waiting): search misses what they "
                                     "hold until it resumes (Resume indexing, in the status bar).")
            self.stale_label.show()
        elif count > 0:
            self.stale_label.setText(
                f"The index is behind the files ({count} waiting); results may be out of date."
            )
            self.stale_label.show()
        else:
            self.stale_label.hide()

    async def _check_stale(self) -> None:
        paths = await asyncio.to_thread(self.services.manager.indexing.stale_paths)
        if self.alive():
            self._set_stale(len(paths))

    async def load(self) -> None:
        await self._check_stale()

    def wants(self, changes: ChangeSet) -> bool:
        touched = changes.index or changes.rows_added or changes.rows_removed or changes.tombstones
        return bool(touched or changes.pages or changes.logs)

    def refresh(self) -> None:
        """Re-run the current query (results may differ) and re-check the index's lag."""
        super().refresh()
        if self.query_edit.text().strip():
            self.search_now()

    # -- open & forget ---------------------------------------------------------------
    def _selection_changed(self, row: int) -> None:
        self.forget_button.setEnabled(row >= 0)
        self._restyle_rows(row)

    def _item_activated(self, item: QListWidgetItem) -> None:
        self.open_hit(self.results.row(item))

    def open_hit(self, row: int) -> None:
        item = self.results.item(row)
        if item is None:
            return
        hit = item.data(HIT_ROLE)
        self.services.bridge.open_path.emit(Path(hit.path), hit.line)

    def open_current(self, row: int) -> None:
        """Open the page at the current value that superseded this hit."""
        item = self.results.item(row)
        current = item.data(HIT_ROLE).current if item is not None else None
        if current is not None:
            self.services.bridge.open_path.emit(Path(current.path), current.line)

    def _context_menu(self, pos: QPoint) -> None:
        item = self.results.itemAt(pos)
        if item is None:
            return
        row = self.results.row(item)
        menu = QMenu(self)
        menu.addAction("Open", lambda: self.open_hit(row))
        current = item.data(HIT_ROLE).current
        if current is not None:
            menu.addAction("Open the current value", lambda: self.open_current(row))
        menu.addAction("Forget…", lambda: self.forget_hit(row))
        menu.exec(self.results.viewport().mapToGlobal(pos))

    def forget_selected(self) -> None:
        self.forget_hit(self.results.currentRow())

    def forget_hit(self, row: int) -> asyncio.Task[Any] | None:
        """Show what the hit stands for, line by line; forget the lines the user keeps checked."""
        item = self.results.item(row)
        if item is None:
            return None
        hit = item.data(HIT_ROLE)
        manager = self.services.manager
        units = manager.forgetting.hit_units(hit)
        notes = manager.forgetting.notes_holding(units, [p.path for p in getattr(hit, "places", None) or [hit]])
        named = [display_path(p, [manager.layout.notebook_dir]) for p in notes]
        chosen = self.choose_units(units, named) if units else ForgetChoice()
        if not chosen:
            return None
        self.results.takeItem(row)  # gone at once; the refresh after the forget redraws the rest
        self.forget_button.setEnabled(self.results.currentRow() >= 0)
        return self.run_job("forget", self._forget(chosen.units, notes if chosen.from_notes else []), supersede=False)

    async def _forget(self, units: list[str], notes: list[Path]) -> None:
        changes = await self.services.manager.forgetting.forget("", units=units, from_notes=notes)
        pages = f", taken off {count(len(changes.pages), 'page')}" if changes.pages else ""
        self.report(f"Forgot {count(len(units), 'line')} ({count(changes.rows_removed, 'index row')} removed{pages})")
        if self.alive():
            self.forgotten.emit(changes.rows_removed)
        self.publish(changes)
        if self.alive():
            self.request_refresh()  # the forget may change other hits too: the query runs again
