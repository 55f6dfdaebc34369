"""Source: where the line under the editor's cursor, or the selected search hit, came from.

A click on a bullet (the cursor moving to its line) or on a search hit shows its provenance
card here: the turns behind it with the sentence highlighted, one turn either side, "Open in
transcript", and the other pages holding the same fact. MEMORY.md opened in the editor works
the same. The card is built off the GUI thread; a newer click cancels the older one.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QVBoxLayout, QWidget

from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.ui.page.provenance_view import CardBrowser, CardLoader
from suzent_desktop.ui.panes.common import Pane

if TYPE_CHECKING:
    from suzent_desktop.ui.base.services import AppServices

HINT = "Click a bullet in a page, a MEMORY.md line or a search hit to see the words it came from."


class SourcePane(Pane):
    """The provenance card of one line or hit."""

    card_shown = Signal()

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(services, parent)
        layout, manager = services.layout, services.manager
        self.card = CardBrowser(layout.notebook_dir, layout.memory_md,
                                lambda date: manager.reviewing.turns(date), self)
        self.card.open_page.connect(lambda path, line: services.bridge.open_path.emit(path, line))
        self.card.show_message(HINT)
        box = QVBoxLayout(self)
        box.setContentsMargins(4, 4, 4, 4)
        box.addWidget(self.card)
        self.target: tuple[Path | None, int | None, Any] | None = None
        self.loader = CardLoader(manager)

    def show_line(self, path: Path, line: int) -> None:
        if self.target != (path, line, None):
            self.target = (path, line, None)
            self.refresh()

    def show_hit(self, hit: Any) -> None:
        self.target = (None, None, hit)
        self.refresh()

    def wants(self, changes: ChangeSet) -> bool:
        touched = bool(changes.pages or changes.changed or changes.memory_md or changes.tombstones or changes.logs)
        if touched:
            self.loader.invalidate()
        return self.target is not None and touched

    async def load(self) -> None:
        if self.target is None:
            return
        path, line, hit = self.target
        try:
            card = await self.loader.card(path, line, hit=hit)
        except ValueError as exc:
            if self.alive():
                self.card.show_message(str(exc))
            return
        if self.alive():
            self.card.show_card(card)
            self.card_shown.emit()
