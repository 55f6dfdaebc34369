"""Opening other vaults from the window: the title that names this one, and the recent list.

Each vault opens in a window (and process) of its own, as ``suzent-desktop open PATH``, so
this window's home, index and dream schedule are left alone.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QMenu

from suzent_desktop.core.files.paths.layout import ZONES
from suzent_desktop.core.files.paths.vaults import RecentVaults


def window_title(page: str | None, vault: str) -> str:
    """``Page — vault — Suzent``: it ends with the app's display name, which the platform then
    does not append a second time."""
    return f"{page} — {vault} — Suzent" if page else f"{vault} — Suzent"


def top_folders(root: Path) -> list[str]:
    """The vault's top-level folders, the app's zones first in their order (a search can be kept
    to one of them): in a vault of your own notes these are your folders and the app's one."""
    try:
        names = [e.name for e in os.scandir(root) if e.is_dir() and not e.name.startswith(".")]
    except OSError:
        return []
    rank = {zone: number for number, zone in enumerate(ZONES)}
    return sorted(names, key=lambda name: (rank.get(name, len(rank)), name.lower()))


def recent_vaults() -> list[Path]:
    """Folders opened as vaults, newest first (those still on disk)."""
    return [entry.vault for entry in RecentVaults().entries()]


def fill_recent_menu(menu: QMenu, open_vault: Callable[[Path], None]) -> None:
    """The recently opened vaults, newest first, each opening in its own window."""
    menu.clear()
    vaults = recent_vaults()
    for vault in vaults:
        action = menu.addAction(vault.name)
        action.setToolTip(str(vault))
        action.triggered.connect(lambda _=False, v=vault: open_vault(v))
    if not vaults:
        menu.addAction("No vault opened yet").setEnabled(False)
