"""MEMORY.md, rendered, with its size against the bound the settings set.

MEMORY.md is the always-visible summary an agent reads first; promotion keeps it under
``memory_md_max_lines`` / ``memory_md_max_chars``. The view shows how close it is, and
turns the gauge red when a hand edit pushed it over.
"""

from __future__ import annotations

import asyncio
import html
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QUrl
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from suzent_desktop.core import operations
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.vault.links import in_vault_walk
from suzent_desktop.ui.panes.common import Pane

if TYPE_CHECKING:
    from suzent_desktop.core.manager import MemoryManager
    from suzent_desktop.ui.base.services import AppServices

BAR_PADDING = 24  # room around a gauge's label, so the style never wraps or cuts it
OVER_STYLE = "QProgressBar::chunk { background-color: #c62828; }"


@dataclass(frozen=True)
class MemorySize:
    lines: int
    chars: int
    max_lines: int
    max_chars: int

    @property
    def over(self) -> bool:
        return self.lines > self.max_lines or self.chars > self.max_chars


def measure(text: str, max_lines: int, max_chars: int) -> MemorySize:
    """Lines as an editor counts them (a trailing newline does not start a new line)."""
    return MemorySize(len(text.splitlines()), len(text), max_lines, max_chars)


def render_markdown(text: str) -> str:
    from suzent_desktop.ui.reading.markdown_render import render

    return render(text)


class MemoryView(Pane):
    """MEMORY.md rendered, a lines/characters gauge, and a button to edit it."""

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(services, parent)
        self.text = ""
        self.measured: MemorySize | None = None
        self._build()
        self.refresh()

    def _build(self) -> None:
        self.lines_bar = QProgressBar(self)
        self.chars_bar = QProgressBar(self)
        self.state_label = QLabel(self)
        self.edit_button = QPushButton("Edit", self)
        self.edit_button.setToolTip("Open MEMORY.md in the editor")
        self.edit_button.clicked.connect(self._open)
        bars = QVBoxLayout()  # one above the other: side by side, a narrow dock cut their labels
        bars.setSpacing(2)
        bars.addWidget(self.lines_bar)
        bars.addWidget(self.chars_bar)
        gauges = QHBoxLayout()
        gauges.addLayout(bars, 1)
        gauges.addWidget(self.edit_button, 0, Qt.AlignmentFlag.AlignTop)
        self.browser = QTextBrowser(self)
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self._link)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(gauges)
        layout.addWidget(self.state_label)
        layout.addWidget(self.browser, 1)

    def wants(self, changes: ChangeSet) -> bool:
        path = self.services.manager.layout.memory_md
        return changes.memory_md or path in changes.pages

    async def load(self) -> None:
        text, html = await asyncio.to_thread(self._read, self.services.manager)
        if not self.alive():
            return
        settings = self.services.manager.settings
        self.text = text
        self.measured = measure(text, settings.memory_md_max_lines, settings.memory_md_max_chars)
        self.browser.setHtml(html)
        self._show_size(self.measured)

    @staticmethod
    def _read(manager: MemoryManager) -> tuple[str, str]:
        try:
            text = operations.read_memory_md(manager)
        except OSError as exc:  # a FIFO or socket named MEMORY.md: named, never opened
            return "", f"<p><i>{html.escape(str(exc))}</i></p>"
        if text is None:
            return "", "<p><i>MEMORY.md does not exist yet; the first dream run writes it.</i></p>"
        return text, render_markdown(text)

    def _show_size(self, size: MemorySize) -> None:
        for bar, value, limit, unit in (
            (self.lines_bar, size.lines, size.max_lines, "lines"),
            (self.chars_bar, size.chars, size.max_chars, "characters"),
        ):
            bar.setRange(0, max(limit, 1))
            bar.setValue(min(value, max(limit, 1)))
            bar.setFormat(f"{value} / {limit} {unit}")
            bar.setStyleSheet(OVER_STYLE if value > limit else "")
            bar.setMinimumWidth(bar.fontMetrics().horizontalAdvance(bar.text()) + BAR_PADDING)
        if size.over:
            self.state_label.setText(
                '<span style="color:#c62828">Over the bound: the next promotion will shorten it.</span>'
            )
        else:
            self.state_label.setText("Within the bound.")

    def _open(self) -> None:
        self.services.bridge.open_path.emit(self.services.manager.layout.memory_md, None)

    def _link(self, url: QUrl) -> None:
        if url.scheme() in ("http", "https", "mailto"):
            from PySide6.QtGui import QDesktopServices

            QDesktopServices.openUrl(url)
            return
        if url.scheme() in ("", "file"):
            target = self._local_target(url)
            if target is None:
                self.services.bridge.status_message.emit(
                    f"Not opened: {url.toString()} is outside the memory folder and the vault")
                return
            self.services.bridge.open_path.emit(target, None)

    def _local_target(self, url: QUrl) -> Path | None:
        """The file a link in MEMORY.md names, or None when it leads out of the memory folder and the
        vault: the file is written by an agent, and what a link names opens in an editable tab.

        ``..`` is folded before the check, and the folded path is the one opened, so a symlinked
        folder cannot turn ``link/..`` into somewhere else.
        """
        layout = self.services.manager.layout
        target = Path(os.path.normpath(layout.memory_dir / (url.toLocalFile() or url.path())))
        return target if any(in_vault_walk(root, target) for root in (layout.memory_dir, layout.notebook_dir)) else None
