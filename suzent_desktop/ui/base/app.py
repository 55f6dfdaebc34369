"""Application entry: one QApplication, one asyncio loop on Qt (qasync), one main window.

The window is shown before any index work: the initial incremental sync and the dream
runner's schedule start as background tasks on the loop once the window is up. Closing the
window stops both cleanly (the runner rolls back a run in progress) before the loop ends.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import sys
import threading
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

GIL_TURN_SECONDS = 0.001  # while the window is up (CPython's default is 0.005)

# Imported by the engine on first use (the first dream, the first page rendered from a dream's
# diff): imported here on a worker once the window is up, so no first use imports on the GUI thread.
WARM_MODULES = (
    "suzent_desktop.core.engines.dream.offline",
    "suzent_desktop.core.engines.dream.agent",
    "suzent_desktop.core.engines.dream.lint",
)


def warm_imports(modules: tuple[str, ...] = WARM_MODULES) -> threading.Thread:
    """Import ``modules`` on a daemon thread (a failure is logged: the real use reports it)."""

    def run() -> None:
        for name in modules:
            try:
                importlib.import_module(name)
            except Exception:
                log.debug("warming %s failed", name, exc_info=True)

    thread = threading.Thread(target=run, name="warm-imports", daemon=True)
    thread.start()
    return thread


def _application():  # noqa: ANN202 - QApplication
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
    app.setApplicationName("Suzent")
    app.setApplicationDisplayName("Suzent")
    app.setOrganizationName("suzent")
    app.setDesktopFileName("suzent-desktop")
    return app


def open_window(services: Any, prompter: Any = None) -> Any:
    """The main window of a session whose watcher starts at once (``start_background`` follows): the
    vault model's first walk is held for the watcher before the window is built, so the vault tree
    fills from that one walk instead of listing the vault on its own first."""
    from suzent_desktop.core import operations
    from suzent_desktop.ui.window.main_window import MainWindow

    operations.hold_vault_walks(services.manager)
    return MainWindow(services, prompter=prompter)


def show_window(services: Any) -> Any:
    """Show the main window on ``services`` and settle the process for interactive use.

    From here on no full garbage collection runs on its own (see :mod:`gc_policy`), and the
    modules the first dream or search would import are imported on a worker thread, so that
    first use does not import them on the GUI thread.
    """
    from suzent_desktop.ui.base import gc_policy
    from suzent_desktop.ui.window.main_window import app_icon

    window = open_window(services)
    window.setWindowIcon(app_icon())
    window.show()
    gc_policy.install()
    # Worker threads (embedding, pane scans) take turns on the GIL every 5 ms by default, and a
    # waiting GUI thread competes with every other waiting worker: with three busy workers it lost
    # the draw often enough to wait 150-200 ms. Shorter turns keep its waits short.
    sys.setswitchinterval(GIL_TURN_SECONDS)
    warm_imports()
    return window


def hand_over(home: Path) -> str | None:
    """The line to print when a window is already open on ``home`` (brought to the front), else None."""
    from suzent_desktop.ui.base.single_window import ALREADY_OPEN
    from suzent_desktop.ui.base.single_window import hand_over as ask_window

    return ALREADY_OPEN.format(home=home) if ask_window(home) else None


async def _run_window(home: Path, settings: Any = None, prepared: Any = None) -> int:
    from suzent_desktop.ui.base.services import AppServices
    from suzent_desktop.ui.base.single_window import ALREADY_OPEN, HomeServer, bring_to_front

    claim = HomeServer(home)
    if not claim.claim():  # another process has the home: its window comes forward, this one ends
        print(ALREADY_OPEN.format(home=home), file=sys.stderr)
        return 0
    opened: dict[str, Any] = {}
    if settings is not None:  # chosen in the settings-error dialog
        opened["settings"] = settings
    elif prepared is not None:
        opened["prepared"] = prepared
    services = AppServices.open(home, **opened)
    window = show_window(services)
    claim.raise_requested.connect(lambda: bring_to_front(window))
    closed = asyncio.Event()
    window.closed.connect(closed.set)
    window.start_background()
    quit_after = os.environ.get("SUZENT_QUIT_AFTER_START", "").strip()
    if quit_after:  # smoke test of a packaged build: open, run a few seconds, close cleanly
        window.ask_before_closing = False
        asyncio.get_running_loop().call_later(float(quit_after), window.close)
    await closed.wait()
    await window.shutdown()
    claim.close()
    return 0


def run_app(home: Path, *, problem: Exception | None = None, prepared: Any = None) -> int:
    """Open the window on ``home`` and run until it closes; returns the process exit code.

    ``problem`` is what the command line found before opening (the desktop entry has no
    terminal to print it on): a settings error gets a dialog that can open the file or start
    with defaults; anything else is shown and the app does not start. ``prepared``: the home as
    the command line prepared it (``core/home.prepare``): opened without preparing it again.
    """
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import qasync

    from suzent_desktop.ui.base import theme
    from suzent_desktop.ui.window.main_window import app_icon

    app = _application()
    app.setWindowIcon(app_icon())
    theme.install(app)
    app.setQuitOnLastWindowClosed(False)  # the loop ends when the window's shutdown is done
    settings = None
    if problem is not None:
        from PySide6.QtWidgets import QMessageBox

        from suzent_desktop.settings import SettingsError
        from suzent_desktop.ui.dialogs.config_error import resolve_settings

        if not isinstance(problem, SettingsError):
            QMessageBox.critical(None, "Suzent", f"Suzent could not start:\n\n{problem}")
            return 1
        settings = resolve_settings(Path(home), problem)
        if settings is None:
            return 1
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    try:
        with loop:
            return loop.run_until_complete(_run_window(Path(home), settings, prepared))
    except Exception as exc:  # a startup failure (bad config, unusable folder) is shown, not swallowed
        log.exception("the app stopped")
        from PySide6.QtWidgets import QMessageBox

        QMessageBox.critical(None, "Suzent", f"Suzent could not start:\n\n{exc}")
        return 1
