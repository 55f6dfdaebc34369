"""Ctrl+P: every window action by name, fuzzy-filtered (the one rule of ``core.fuzzy``), with its shortcut shown."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget

from suzent_desktop.ui.dialogs.quick_switcher import Entry, FuzzyDialog


class CommandPalette(FuzzyDialog):
    def __init__(self, actions: Iterable[QAction], parent: QWidget | None = None) -> None:
        super().__init__("Type a command…", parent)
        self._entries: list[Entry] = []
        self.hint.setText("↑↓ to move · Enter to run · Esc to close")
        seen: set[str] = set()
        for action in actions:
            label = str(action.property("paletteText") or action.text()).replace("&", "").rstrip("…").strip()
            if not label or label in seen or not action.isEnabled():
                continue
            seen.add(label)
            shortcut = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            self._entries.append(Entry(label, action, shortcut))
        self.refilter("")

    def entries(self) -> Sequence[Entry]:
        return self._entries

    def chosen(self, payload: object) -> None:
        if isinstance(payload, QAction):
            payload.trigger()
