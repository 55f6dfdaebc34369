"""The app-wide signal bus.

Panes never call each other: an operation reports what it changed on this bus and each
view decides whether it must redraw (the way Anki's Qt layer does). One instance lives on
:class:`~suzent_desktop.ui.base.services.AppServices` for the lifetime of the window.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal


class Bridge(QObject):
    """Signals shared by the main window and every pane."""

    # A ChangeSet after any engine operation; panes refresh only what it touches.
    changed = Signal(object)
    # (Path, line: int | None): ask the editor area to open a file, optionally at a 1-based line.
    open_path = Signal(object, object)
    # A short message for the status bar (errors included).
    status_message = Signal(str)
    # (label, done, total); total == 0 hides the progress bar.
    progress = Signal(str, int, int)
    # The dream runner's phase: "idle" | "running" | "finalizing".
    dream_phase = Signal(str)
    # A DreamResult after each run.
    dream_result = Signal(object)
    # Number of files waiting to be indexed (0 when the index is up to date).
    index_stale = Signal(int)
    # True when an index pass was stopped part-way (the files left wait for Resume or the next
    # start), False once a pass ran to its end.
    index_paused = Signal(bool)
    # The new Settings after the settings dialog saved them.
    settings_changed = Signal(object)
    # (model, full error): a newly chosen embedding model cannot be used; the index keeps the old one.
    embedding_failed = Signal(str, str)
