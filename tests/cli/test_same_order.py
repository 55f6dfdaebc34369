"""The same question gets the same answers in the same order at every front door, whatever limit
each asks: the window asks for 30 hits, the command line for 10, an agent often for 5."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from pathlib import Path

import pytest
from mcp_support import mcp_session
from test_cli import run_json

from suzent_desktop.core.demo import write_demo_home
from suzent_desktop.ui.panes.search_pane import RESULT_LIMIT

TODAY = dt.date(2026, 7, 20)
QUESTION = "where does the user work"


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SUZENT_TODAY", TODAY.isoformat())
    write_demo_home(tmp_path / "demo", TODAY)
    return tmp_path / "demo"


async def _agent_asks(home: Path, limit: int) -> list[str]:
    async with mcp_session(home) as session:
        result = await session.call_tool("search_memory", {"query": QUESTION, "limit": limit})
    return [h["text"] for h in json.loads(result.content[0].text)["hits"]]


def test_window_command_line_and_mcp_rank_a_question_alike(demo: Path, capsys) -> None:  # noqa: ANN001
    window = [h["text"] for h in run_json(capsys, demo, "search", QUESTION, "--limit", str(RESULT_LIMIT))]
    command_line = [h["text"] for h in run_json(capsys, demo, "search", QUESTION)]
    agent = asyncio.run(_agent_asks(demo, 5))
    assert len(window) > len(command_line) > len(agent) == 5
    assert window[: len(command_line)] == command_line
    assert command_line[: len(agent)] == agent
    assert any("Microsoft" in text for text in window[:2]), window[:8]  # the current employer, before any dream
