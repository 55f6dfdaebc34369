"""Daily logs pane: every day's captured facts, newest first, with where consolidation stands.

Logs are append-only by design, so the pane is read-only: it renders turns and facts
(category chips, tags), shows the raw file one click away, and offers Forget on a fact,
which writes a tombstone (the line itself stays in the file, shown struck through).
"""

from __future__ import annotations

import asyncio
import html
import zlib
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from suzent_desktop.core import operations
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.language.words import count
from suzent_desktop.core.files.records.log_grammar import FactLine
from suzent_desktop.core.operations import DayLog
from suzent_desktop.core.vault.days import CONSOLIDATED, PENDING, SKIPPED, TODAY
from suzent_desktop.ui.panes.common import Pane

if TYPE_CHECKING:
    from suzent_desktop.ui.base.services import AppServices

STATUS_COLORS = {CONSOLIDATED: "#2e7d32", PENDING: "#b26a00", SKIPPED: "#c62828", TODAY: "#1565c0"}
STATUS_HINTS = {
    CONSOLIDATED: "consolidated into the notebook (on or before the watermark)",
    PENDING: "waiting for the next dream run",
    SKIPPED: "given up after repeated failed dream runs; still on disk",
    TODAY: "today's log is never consolidated until the day is over",
}
CHIP_COLORS = ("#e3f2fd", "#fce4ec", "#e8f5e9", "#fff3e0", "#ede7f6", "#e0f7fa", "#f9fbe7", "#efebe9")
DATE_ROLE = Qt.ItemDataRole.UserRole + 1
FACT_ROLE = Qt.ItemDataRole.UserRole + 2


@dataclass
class DaysSnapshot:
    today: str
    watermark: str | None
    statuses: dict[str, str] = field(default_factory=dict)  # date -> status, any order


def chip(category: str) -> str:
    color = CHIP_COLORS[zlib.crc32(category.encode()) % len(CHIP_COLORS)]
    return (
        f'<span style="background-color:{color};color:#222;border-radius:6px">'
        f"&nbsp;{html.escape(category)}&nbsp;</span>"
    )


def fact_html(entry: FactLine, forgotten: bool) -> str:
    fact = entry.fact
    text = html.escape(fact.content)
    if forgotten:
        text = f'<s style="color:gray">{text}</s> <i style="color:gray">(forgotten)</i>'
    tags = " ".join(f'<span style="color:#5c6bc0">#{html.escape(t.lstrip("#"))}</span>' for t in fact.tags)
    star = ' <span title="important" style="color:#e6a700">★</span>' if fact.is_important else ""
    return f"{chip(fact.category)} {text}{star} {tags}".rstrip()


class DailyLogsPane(Pane):
    """Dates newest first with their status; a selected day rendered or raw; Forget on a fact."""

    # Emitted once a selected day is on screen (argument: the date).
    day_shown = Signal(str)

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(services, parent)
        self.snapshot: DaysSnapshot | None = None
        self.day: DayLog | None = None
        self._day_key: tuple | None = None
        self._build()
        self.refresh()

    def _build(self) -> None:
        self.summary_label = QLabel(self)
        self.summary_label.setWordWrap(True)
        self.dates = QListWidget(self)
        self.dates.currentItemChanged.connect(self._date_selected)

        self.day_label = QLabel(self)
        self.day_label.setWordWrap(True)
        self.raw_button = QPushButton("Raw", self)
        self.raw_button.setCheckable(True)
        self.raw_button.setToolTip("Show the file exactly as it is on disk")
        self.raw_button.toggled.connect(self._toggle_raw)
        self.forget_button = QPushButton("Forget…", self)
        self.forget_button.setEnabled(False)
        self.forget_button.clicked.connect(self.forget_selected)
        head = QHBoxLayout()
        head.addWidget(self.day_label, 1)
        head.addWidget(self.raw_button)
        head.addWidget(self.forget_button)

        self.facts = QListWidget(self)
        self.facts.setWordWrap(True)
        self.facts.currentItemChanged.connect(self._fact_selected)
        self.facts.itemActivated.connect(self._fact_activated)
        self.raw_view = QPlainTextEdit(self)
        self.raw_view.setReadOnly(True)
        self.raw_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.raw_view.setFont(QFont("monospace"))
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.facts)
        self.stack.addWidget(self.raw_view)

        day_box = QWidget(self)
        day_layout = QVBoxLayout(day_box)
        day_layout.setContentsMargins(0, 0, 0, 0)
        day_layout.addLayout(head)
        day_layout.addWidget(self.stack, 1)

        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self.dates)
        splitter.addWidget(day_box)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.summary_label)
        layout.addWidget(splitter, 1)

    # -- dates ---------------------------------------------------------------------------
    def wants(self, changes: ChangeSet) -> bool:
        return bool(changes.logs or changes.watermark or changes.tombstones)

    async def load(self) -> None:
        snapshot = await asyncio.to_thread(self._read_days)
        if not self.alive():
            return
        kept = self._show_days(snapshot)
        if kept is not None:
            await self._load_day(kept)

    def _read_days(self) -> DaysSnapshot:
        manager = self.services.manager
        days = manager.dreaming.days()
        snap = DaysSnapshot(today=days.today, watermark=days.watermark)
        for date in operations.log_dates(manager):
            snap.statuses[date] = days.status(date)
        return snap

    def _show_days(self, snap: DaysSnapshot) -> str | None:
        """Redraw the list; returns the date that stayed selected (its view must be reloaded)."""
        if snap == self.snapshot and self.dates.count() == len(snap.statuses):
            return self.current_date()  # nothing moved: keep the list (and its scroll position)
        self.snapshot = snap
        keep = self.current_date()
        counts = {s: 0 for s in (TODAY, PENDING, SKIPPED, CONSOLIDATED)}
        self.dates.blockSignals(True)
        self.dates.clear()
        for date in sorted(snap.statuses, reverse=True):
            status = snap.statuses[date]
            counts[status] += 1
            item = QListWidgetItem(f"{date}    {status}", self.dates)
            item.setData(DATE_ROLE, date)
            item.setForeground(QBrush(QColor(STATUS_COLORS[status])))
            item.setToolTip(STATUS_HINTS[status])
            if date == keep:
                self.dates.setCurrentItem(item)
        self.dates.blockSignals(False)
        mark = snap.watermark or "none yet"
        self.summary_label.setText(
            f"Watermark: <b>{html.escape(mark)}</b> · {counts[PENDING]} pending · "
            f"{counts[CONSOLIDATED]} consolidated · {counts[SKIPPED]} skipped"
        )
        kept = self.current_date()
        if kept is None:
            self._clear_day()
            if self.dates.count():
                self.dates.setCurrentRow(0)  # the newest day, loaded by the selection slot
        return kept

    def statuses(self) -> dict[str, str]:
        """Date → status as shown."""
        return dict(self.snapshot.statuses) if self.snapshot else {}

    def shown_dates(self) -> list[str]:
        return [self.dates.item(i).data(DATE_ROLE) for i in range(self.dates.count())]

    def current_date(self) -> str | None:
        item = self.dates.currentItem()
        return item.data(DATE_ROLE) if item is not None else None

    def select_date(self, date: str) -> None:
        for i in range(self.dates.count()):
            if self.dates.item(i).data(DATE_ROLE) == date:
                self.dates.setCurrentRow(i)
                return

    def _date_selected(self, current: QListWidgetItem | None, _previous: object = None) -> None:
        if current is None:
            self._clear_day()
            return
        self.run_job("day", self._load_day(current.data(DATE_ROLE)))

    # -- one day ---------------------------------------------------------------------------
    async def _load_day(self, date: str) -> None:
        view = await asyncio.to_thread(self._read_day, date)
        if self.alive() and self.current_date() == date:
            self._show_day(view)
            self.day_shown.emit(date)

    def _read_day(self, date: str) -> DayLog:
        return operations.read_day(self.services.manager, date)

    def _clear_day(self) -> None:
        self.day = None
        self._day_key = None
        self.day_label.setText("Select a day")
        self.facts.clear()
        self.raw_view.clear()
        self.forget_button.setEnabled(False)

    def _show_day(self, view: DayLog) -> None:
        status = self.snapshot.statuses.get(view.date, PENDING) if self.snapshot else PENDING
        key = (view.date, view.raw, frozenset(view.forgotten), view.error, status)
        if key == self._day_key:
            return  # the same day, unchanged: rebuilding the rows would only cost GUI time
        self._day_key = key
        self.day = view
        color = STATUS_COLORS[status]
        self.facts.clear()
        self.raw_view.setPlainText(view.raw)
        if view.error or view.parsed is None:
            self.day_label.setText(f"<b>{view.date}</b> — cannot be read: {html.escape(view.error or '')}")
            self.forget_button.setEnabled(False)
            return
        parsed = view.parsed
        self.day_label.setText(
            f'<b>{view.date}</b> <span style="color:{color}">{status}</span> · '
            f"{count(len(parsed.turns), 'turn')}, {count(len(parsed.facts), 'fact')}"
        )
        loose = [f for f in parsed.facts if f.time is None]
        if loose:
            self._add_heading("(before any turn)")
            for entry in loose:
                self._add_fact(entry, view.forgotten)
        for turn in parsed.turns:
            self._add_heading(f"{turn.time} — session {turn.session}")
            for entry in turn.facts:
                self._add_fact(entry, view.forgotten)
        for number, text in parsed.malformed:
            item = QListWidgetItem(f"line {number}: {text}", self.facts)
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            item.setToolTip("Not a fact line: kept in the file, ignored by search")
        self.forget_button.setEnabled(self.selected_fact() is not None)

    def _add_heading(self, text: str) -> None:
        item = QListWidgetItem(text, self.facts)
        font = item.font()
        font.setBold(True)
        item.setFont(font)
        item.setFlags(Qt.ItemFlag.ItemIsEnabled)

    def _add_fact(self, entry: FactLine, forgotten: AbstractSet[str]) -> None:
        is_gone = operations.is_forgotten(entry, forgotten)
        label = QLabel(fact_html(entry, is_gone))
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setWordWrap(True)
        label.setContentsMargins(12, 2, 4, 2)
        label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        item = QListWidgetItem(self.facts)
        item.setData(FACT_ROLE, (entry, is_gone))
        item.setToolTip(f"line {entry.line}: {entry.raw}")
        item.setSizeHint(label.sizeHint())
        self.facts.setItemWidget(item, label)

    def fact_rows(self) -> list[tuple[int, FactLine, bool]]:
        """(row, fact line, forgotten) for every fact shown."""
        rows = []
        for i in range(self.facts.count()):
            data = self.facts.item(i).data(FACT_ROLE)
            if data is not None:
                rows.append((i, data[0], data[1]))
        return rows

    def fact_label(self, row: int) -> str:
        widget = self.facts.itemWidget(self.facts.item(row))
        return widget.text() if isinstance(widget, QLabel) else ""

    def selected_fact(self) -> FactLine | None:
        item = self.facts.currentItem()
        data = item.data(FACT_ROLE) if item is not None else None
        return data[0] if data is not None and not data[1] else None

    def _fact_selected(self, *_: object) -> None:
        self.forget_button.setEnabled(self.selected_fact() is not None)

    def _fact_activated(self, item: QListWidgetItem) -> None:
        """Open the log at the fact's line (the editor shows logs read-only)."""
        data = item.data(FACT_ROLE)
        if data is not None and self.day is not None:
            path = self.services.manager.log_path(self.day.date)
            self.services.bridge.open_path.emit(path, data[0].line)

    def _toggle_raw(self, raw: bool) -> None:
        self.stack.setCurrentWidget(self.raw_view if raw else self.facts)

    def show_raw(self, raw: bool = True) -> None:
        self.raw_button.setChecked(raw)

    # -- forget ------------------------------------------------------------------------------
    def forget_selected(self) -> asyncio.Task[Any] | None:
        """Ask, then tombstone the selected fact; it shows as forgotten at once."""
        entry = self.selected_fact()
        if entry is None:
            return None
        if not self.confirm(
            "Forget this fact?",
            f"“{entry.fact.content}”\n\nThe daily log keeps the line (logs are append-only), but it is "
            "removed from search and never consolidated or indexed again.",
        ):
            return None
        item = self.facts.currentItem()
        label = self.facts.itemWidget(item)
        if isinstance(label, QLabel):
            label.setText(fact_html(entry, True))
        item.setData(FACT_ROLE, (entry, True))
        self._day_key = None  # the rows changed by hand; the next reload redraws them
        self.forget_button.setEnabled(False)
        return self.run_job("forget", self._forget(entry.fact.content), supersede=False)

    async def _forget(self, text: str) -> None:
        changes = await self.services.manager.forgetting.forget(text)
        self.report(f"Forgot it ({count(changes.rows_removed, 'index row')} removed)")
        self.publish(changes)
