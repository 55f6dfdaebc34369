"""The side panes of the main window: search, daily logs, dream, forgotten, backlinks, MEMORY.md.

Each pane is a QWidget built from the shared :class:`~suzent_desktop.ui.services.AppServices`;
it listens on the bridge for change-sets and redraws only when one touches what it shows.
Imports are lazy so importing one pane does not pull in the others.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_PANES = {
    "SearchPane": "search_pane",
    "DailyLogsPane": "daily_logs",
    "DreamPanel": "dream_panel",
    "TombstonesPane": "tombstones_pane",
    "BacklinksPane": "backlinks",
    "MemoryView": "memory_view",
    "DiffView": "diff_view",
}

__all__ = list(_PANES)


def __getattr__(name: str) -> Any:
    module = _PANES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{module}"), name)
