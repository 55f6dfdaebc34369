"""Opening the window from the command line prepares the home once: the command line's check
(settings read, folders checked, the home bootstrapped, stale temp files swept) is what the
window opens on, not done a second time by the window's own open."""

from __future__ import annotations

from pathlib import Path

from ui_support import WAIT_MS, run

from suzent_desktop import cli_window
from suzent_desktop.core import home as home_module
from suzent_desktop.ui.base import app


class _Closed:
    def __init__(self) -> None:
        self.slots: list = []

    def connect(self, slot) -> None:  # noqa: ANN001
        self.slots.append(slot)


class _ClosesAtOnce:
    """Stands in for the main window: opened on the services, closed as soon as it starts."""

    def __init__(self, services) -> None:  # noqa: ANN001
        self.services = services
        self.closed = _Closed()

    def start_background(self) -> None:
        for slot in self.closed.slots:
            slot()

    async def shutdown(self) -> None:
        await self.services.shutdown()


def test_the_window_opens_on_the_home_the_command_line_prepared(qtbot, loop, small_home: Path, monkeypatch) -> None:
    prepared_homes: list[Path] = []
    real = home_module.prepare_home
    monkeypatch.setattr(home_module, "prepare_home", lambda home, *a, **kw: prepared_homes.append(home) or real(home, *a, **kw))
    swept: list[object] = []
    real_sweep = home_module.remove_stale_temp_files
    monkeypatch.setattr(home_module, "remove_stale_temp_files", lambda layout: swept.append(layout) or real_sweep(layout))
    opened: list = []
    monkeypatch.setattr(app, "show_window", lambda services: opened.append(services) or _ClosesAtOnce(services))

    prepared = cli_window._preflight(small_home)
    assert run(qtbot, app._run_window(small_home, None, prepared), timeout=WAIT_MS) == 0

    assert len(opened) == 1 and opened[0].manager.layout is prepared.layout
    assert prepared_homes == [small_home] and len(swept) == 1  # once, by the command line's check
