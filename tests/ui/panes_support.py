"""Helpers shared by the pane tests: a seeded home, running coroutines on the Qt loop."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import pytest

from suzent_desktop.core.files.records.log_grammar import Fact

WAIT_MS = 20_000


def run(qtbot: Any, coro: Coroutine[Any, Any, Any], timeout: int = WAIT_MS) -> Any:
    """Run a coroutine on the (qasync) loop while Qt keeps processing events; return its result."""
    task = asyncio.ensure_future(coro)
    qtbot.waitUntil(task.done, timeout=timeout)
    return task.result()


def wait_task(qtbot: Any, task: asyncio.Task[Any] | None, timeout: int = WAIT_MS) -> Any:
    assert task is not None
    qtbot.waitUntil(task.done, timeout=timeout)
    return task.result()


def write_log(
    manager: Any, date: str, facts: list[tuple[str, str, tuple[str, ...]]], *, hour: int = 9
) -> Path:
    """Append one turn to ``date``'s daily log through the archive (the one writer of logs)."""
    when = dt.datetime.fromisoformat(f"{date}T{hour:02d}:15:00")
    path, _ = manager.archive.append_turn(
        [Fact(content=text, category=cat, tags=tags) for cat, text, tags in facts],
        session_id=f"sess{date[-2:]}xyz",
        when=when,
    )
    return path


def write_page(manager: Any, relative: str, text: str) -> Path:
    path = manager.layout.notebook_dir / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def seed(manager: Any) -> dict[str, Path]:
    """A small home: four days of logs before today, today's log and two linked pages."""
    paths = {
        "log15": write_log(
            manager,
            "2026-07-15",
            [
                ("preference", "User prefers compact dashboards", ("ui", "product")),
                ("work", "User now works at Microsoft", ("career",)),
            ],
        ),
        "log17": write_log(
            manager, "2026-07-17", [("people", "Anna is the sister of the user", ("family",))]
        ),
        "log18": write_log(manager, "2026-07-18", [("health", "User runs five kilometres on Sundays", ())]),
        "log19": write_log(
            manager, "2026-07-19", [("place", "User moved to Redmond last spring", ("home",))]
        ),
        "log20": write_log(manager, "2026-07-20", [("preference", "User drinks oat milk flat whites", ())]),
        "work": write_page(
            manager,
            "3_Personal/Work.md",
            "# Work\n\nThe user works at Microsoft on cloud dashboards.\n\nSee also [[Home]].\n",
        ),
        "home": write_page(
            manager,
            "3_Personal/Home.md",
            "# Home\n\nThe user lives in Redmond with a cat named Pixel.\n",
        ),
    }
    return paths


# -- fixtures (imported by the pane test modules) ---------------------------------------

@pytest.fixture
def pane_services(loop, qtbot, home):
    """AppServices over a fresh home, on the session's qasync loop (``loop`` from tests/ui/conftest.py)."""
    from suzent_desktop.ui.base.services import AppServices

    services = AppServices.open(home)
    yield services
    run(qtbot, services.shutdown())
