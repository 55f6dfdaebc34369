"""Small finishing touches to the main window's chrome that Qt does not do by itself."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMainWindow, QTabBar


def unclip_dock_tabs(window: QMainWindow) -> None:
    """Tabs of tabbed docks show their whole names ("Links", "Dream", "MEMORY.md"): Qt elides them
    to "L…", "Dr…" when the dock is narrow; scroll arrows appear instead when they do not fit."""
    for bar in window.findChildren(QTabBar):
        if bar.parent() is window:  # the dock areas' tab bars, not the editor's tabs
            bar.setElideMode(Qt.TextElideMode.ElideNone)
            bar.setUsesScrollButtons(True)
            bar.setExpanding(False)
