"""What every pane shares: running engine coroutines on the loop, confirmation, snippets.

Panes never block the GUI thread: each engine call is a coroutine handed to
``AppServices.submit`` and the widgets are updated when it finishes. A refresh that is
overtaken by a newer one is cancelled, so typing fast never queues up stale work.
"""

from __future__ import annotations

import asyncio
import html
import textwrap
from collections.abc import Callable, Coroutine
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QAbstractItemView, QLabel, QMessageBox, QWidget

from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.language.markdown import plain_text
from suzent_desktop.core.index.ranking.terms import match_spans

if TYPE_CHECKING:
    from suzent_desktop.ui.base.services import AppServices

ConfirmFn = Callable[[str, str], bool]

HIGHLIGHT_STYLE = "background-color:#ffe066;color:#000000;font-weight:bold"


def ask_user(parent: QWidget | None) -> ConfirmFn:
    """A yes/no question in a message box; panes keep it as an attribute so tests can replace it."""

    def confirm(title: str, text: str) -> bool:
        answer = QMessageBox.question(
            parent,
            title,
            text,
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    return confirm


class Pane(QWidget):
    """Base of the panes: owns the services, runs jobs, and reacts to change-sets it cares about."""

    # Emitted after the pane redrew itself from engine data; tests and the window wait on it.
    refreshed = Signal()

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.refresh_count = 0
        self.confirm: ConfirmFn = ask_user(self)
        self._jobs: dict[str, asyncio.Task[Any]] = {}
        self._needs_refresh = False
        self.initiator = f"pane:{id(self)}"  # on the changes this pane makes: it ignores their echo
        services.bridge.changed.connect(self._on_changed)

    # -- jobs ------------------------------------------------------------------------
    def run_job(
        self,
        key: str,
        coro: Coroutine[Any, Any, Any],
        *,
        label: str | None = None,
        supersede: bool = True,
        on_cancel: Callable[[], None] | None = None,
    ) -> asyncio.Task[Any]:
        """Schedule ``coro`` through the services; a newer job with the same key cancels the older one.

        Only read-only work (refreshes, searches) should supersede: cancelling a write half-way is
        left to the engine's own cancel paths.
        """
        old = self._jobs.get(key)
        if supersede and old is not None and not old.done():
            old.cancel()
        if on_cancel is None:
            task = self.services.submit(coro, label=label)
        else:
            task = self.services.submit(coro, label=label, on_cancel=on_cancel)
        self._jobs[key] = task
        return task

    def job(self, key: str) -> asyncio.Task[Any] | None:
        return self._jobs.get(key)

    def alive(self) -> bool:
        """False once Qt deleted the widget (a coroutine may finish after its pane closed)."""
        return shiboken6.isValid(self)

    def report(self, message: str) -> None:
        self.services.bridge.status_message.emit(message)

    def publish(self, changes: ChangeSet | None) -> None:
        """Tell every view what an operation of this pane changed, naming the pane as its initiator:
        the pane has shown the change itself and ignores the echo (a pane that must reload after its
        own change asks for it)."""
        if changes is not None and not changes.empty:
            self.services.bridge.changed.emit(replace(changes, initiator=changes.initiator or self.initiator))

    # -- refresh ---------------------------------------------------------------------
    def _on_changed(self, changes: object) -> None:
        if not self.alive():
            return
        if isinstance(changes, ChangeSet) and changes.initiator != self.initiator and self.wants(changes):
            self.request_refresh()

    def request_refresh(self) -> None:
        """Refresh now if the pane is on screen; a hidden pane (a tab behind another) waits until shown.

        During a dream or a full reindex every change-set would otherwise make all panes reload
        at once, each one competing with the engine for the GUI thread.
        """
        if self.isVisible():
            self._needs_refresh = False
            self.refresh()
        else:
            self._needs_refresh = True

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if self._needs_refresh:
            self._needs_refresh = False
            self.refresh()

    def wants(self, changes: ChangeSet) -> bool:
        """Whether a change-set touches what this pane shows. Panes override."""
        return False

    def refresh(self) -> None:
        """Reload from the engine without blocking; panes override ``load``."""
        self.run_job("refresh", self._refresh())

    async def _refresh(self) -> None:
        await self.load()
        if self.alive():
            self.refresh_count += 1
            self.refreshed.emit()

    async def load(self) -> None:
        """Fetch data (off the GUI thread) and redraw. Panes override."""


# -- text helpers ----------------------------------------------------------------------
def highlight(text: str, query: str, *, width: int = 220) -> str:
    """An HTML snippet of ``text`` around the first match of the query, matches highlighted.

    Matches are the query's words that matter, by stem (see ``core.terms``), as the index finds them.
    """
    flat = " ".join(text.split())
    spans = match_spans(flat, query)
    start = 0
    if spans and len(flat) > width and spans[0][0] > width // 3:
        start = spans[0][0] - width // 3
    end = start + width
    prefix = "…" if start > 0 else ""
    suffix = "…" if end < len(flat) else ""
    out: list[str] = []
    last = start
    for s, e in spans:
        if e <= start or s >= end:
            continue
        s, e = max(s, start), min(e, end)
        out.append(html.escape(flat[last:s]))
        out.append(f'<span style="{HIGHLIGHT_STYLE}">{html.escape(flat[s:e])}</span>')
        last = e
    out.append(html.escape(flat[last:end]))
    return prefix + "".join(out) + suffix


def snippet(markdown: str, width: int = 160) -> str:
    """The first words of a passage as a reader sees them: no markup, cut between words with " …"."""
    text = plain_text(markdown)
    short = textwrap.shorten(text, width=width, placeholder=" …")
    if short == "…" or short == " …":  # one word longer than the width: cut it
        return text[: width - 2] + " …"
    return short


def display_path(path: Path | str, roots: list[Path]) -> str:
    """A path relative to the first root that contains it (vault or memory folder), else as is."""
    candidate = Path(path)
    for root in roots:
        try:
            return candidate.relative_to(root).as_posix()
        except ValueError:
            continue
    return candidate.as_posix()


class EmptyHint(QLabel):
    """Words over an empty list saying what would appear there and how to get it; hidden while
    the list has rows (the list's own rows and counts are not touched)."""

    def __init__(self, view: QAbstractItemView, text: str) -> None:
        super().__init__(text, view.viewport())
        self.view = view
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setStyleSheet("color: palette(placeholder-text); padding: 12px;")
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        model = view.model()
        for signal in (model.rowsInserted, model.rowsRemoved, model.modelReset, model.layoutChanged):
            signal.connect(self.update_shown)
        view.viewport().installEventFilter(self)
        self.update_shown()

    def set_hint(self, text: str) -> None:
        self.setText(text)
        self.update_shown()

    def update_shown(self, *_: object) -> None:
        self.setVisible(self.view.model().rowCount() == 0 and bool(self.text()))
        self.setGeometry(self.view.viewport().rect())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Resize:
            self.setGeometry(self.view.viewport().rect())
        return super().eventFilter(watched, event)
