"""UI test fixtures: one qasync loop for the whole session, the demo home, a real main window.

Traps handled here (see notes/stack.md): ``loop.stop()`` would quit the QApplication and
freeze Qt timers for every later test, so one ``QEventLoop(already_running=True)`` serves the
whole session and is set as the running loop per test; tasks a test leaves behind are
cancelled after it; widgets are held by the fixture because qtbot keeps weak references.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from ui_support import WAIT_MS, FakePrompter, run  # noqa: E402,F401 - helpers shared with the tests


@pytest.fixture(scope="session")
def qloop(qapp):
    import qasync

    from suzent_desktop.ui.base import theme

    theme.install(qapp)
    loop = qasync.QEventLoop(qapp, already_running=True)
    yield loop
    executor = getattr(loop, "_QEventLoop__default_executor", None)
    if executor is not None:  # join the worker threads before Qt tears down
        executor.shutdown(wait=True)


@pytest.fixture
def loop(qloop, qtbot) -> Iterator[asyncio.AbstractEventLoop]:
    """The session loop, running for this test; leftover tasks are cancelled afterwards."""
    asyncio.events._set_running_loop(qloop)
    asyncio.set_event_loop(qloop)
    yield qloop
    leftovers = [t for t in asyncio.all_tasks(qloop) if not t.done()]
    for task in leftovers:
        task.cancel()
    if leftovers:
        qtbot.waitUntil(lambda: all(t.done() for t in leftovers), timeout=WAIT_MS)
    asyncio.events._set_running_loop(None)


@pytest.fixture
def theme_manager(qloop):
    """The application's theme manager; the test may change its mode, which is set back to "system"."""
    from suzent_desktop.ui.base import theme

    manager = theme.current()
    yield manager
    manager.set_mode("system")


@pytest.fixture
def small_home(home: Path) -> Path:
    """A tiny vault: two linked pages and a log, enough for the shell without the demo."""
    notebook = home / "notebook"
    (notebook / "3_Personal").mkdir(parents=True)
    (notebook / "2_Wiki" / "Concepts").mkdir(parents=True)
    (notebook / "3_Personal" / "Work.md").write_text(
        "# Work\n\nThe user works at Contoso.\n\nSee [[Vector Search]] and [[Vector Search#Options|options]].\n",
        encoding="utf-8",
    )
    (notebook / "2_Wiki" / "Concepts" / "Vector Search.md").write_text(
        "# Vector Search\n\nFinding text by meaning.\n\n## Options\n\nLanceDB.\n", encoding="utf-8"
    )
    return home


@pytest.fixture
def demo_home(home: Path, today: dt.date) -> Path:
    from suzent_desktop.core.demo import write_demo_home

    write_demo_home(home, today)
    return home


def _open_services(home: Path):
    from suzent_desktop.ui.base.services import AppServices

    return AppServices.open(home)


@pytest.fixture
def services(loop, qtbot, demo_home: Path):
    services = _open_services(demo_home)
    yield services
    run(qtbot, services.shutdown())


@pytest.fixture
def prompter() -> FakePrompter:
    return FakePrompter()


@pytest.fixture
def window(qtbot, services, prompter):
    """The real main window on the demo home (watcher and index started by tests that need them)."""
    from suzent_desktop.ui.window.main_window import MainWindow

    win = MainWindow(services, prompter=prompter)
    win.show()
    yield win
    run(qtbot, win.shutdown())
    win.close()
    win.deleteLater()


@pytest.fixture
def small_services(loop, qtbot, small_home: Path):
    services = _open_services(small_home)
    yield services
    run(qtbot, services.shutdown())
