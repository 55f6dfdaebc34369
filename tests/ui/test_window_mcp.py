"""An agent writing through ``suzent-desktop mcp`` while the window is open on the same home."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from mcp_support import mcp_session
from ui_support import WAIT_MS

CAPTURE_WAIT_MS = max(WAIT_MS, 60_000)  # a server process starts, loads the engine and indexes


class AgentThread(threading.Thread):
    """Runs an MCP client on its own asyncio loop (the window's qasync loop stays free)."""

    def __init__(self, home: Path, user: str) -> None:
        super().__init__(daemon=True)
        self.home, self.user = home, user
        self.captured = threading.Event()
        self.release = threading.Event()
        self.result: dict | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            asyncio.run(self._drive())
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.error = exc
            self.captured.set()

    async def _drive(self) -> None:
        async with mcp_session(self.home) as session:
            result = await session.call_tool("capture_turn", {"user": self.user, "assistant": "Got it."})
            self.result = result.structured_content
            self.captured.set()
            await asyncio.to_thread(self.release.wait, 120)


def test_mcp_capture_appears_live_in_daily_logs_and_status_bar(qtbot, window, today) -> None:  # noqa: ANN001
    window.start_background(watch=True, serve=False, index=False)
    qtbot.waitUntil(lambda: window.watcher.ready, timeout=WAIT_MS)
    window.docks["logs"].show()
    window.docks["logs"].raise_()
    pane = window.daily_logs
    assert window.agent_label.text() == ""  # no agent has ever connected to this home

    agent = AgentThread(window.services.layout.home, "I prefer oolong tea in the afternoon")
    agent.start()
    try:
        qtbot.waitUntil(agent.captured.is_set, timeout=CAPTURE_WAIT_MS)
        assert agent.error is None, agent.error
        assert agent.result and agent.result["facts"], agent.result
        qtbot.waitUntil(lambda: today.isoformat() in pane.shown_dates(), timeout=WAIT_MS)
        pane.select_date(today.isoformat())
        qtbot.waitUntil(
            lambda: any("oolong" in fact.fact.content for _, fact, _ in pane.fact_rows()), timeout=WAIT_MS
        )
        qtbot.waitUntil(lambda: window.agent_label.text().startswith("Agent: connected"), timeout=WAIT_MS)
        assert "capture_turn" in window.agent_label.text()
    finally:
        agent.release.set()
        agent.join(timeout=60)
    qtbot.waitUntil(lambda: window.agent_label.text().startswith("Agent: last seen"), timeout=WAIT_MS)


class WriterThread(threading.Thread):
    """An agent that remembers facts through the MCP server as soon as it is told to go."""

    def __init__(self, home: Path, facts: list[str], probe: str) -> None:
        super().__init__(daemon=True)
        self.home, self.facts, self.probe = home, facts, probe
        self.ready = threading.Event()
        self.go = threading.Event()
        self.app_done = threading.Event()
        self.done = threading.Event()
        self.errors: list[str] = []
        self.probe_hits: list[str] = []

    def run(self) -> None:
        try:
            asyncio.run(self._drive())
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.errors.append(repr(exc))
        finally:
            self.ready.set()
            self.done.set()

    async def _drive(self) -> None:
        async with mcp_session(self.home) as session:
            await session.call_tool("memory_status", {})
            self.ready.set()
            await asyncio.to_thread(self.go.wait, 120)
            for text in self.facts:
                result = await session.call_tool("remember", {"text": text})
                if result.is_error:
                    self.errors.append(" ".join(c.text for c in result.content))
            await asyncio.to_thread(self.app_done.wait, 120)
            found = await session.call_tool("search_memory", {"query": self.probe, "limit": 5})
            self.probe_hits = [h["text"] for h in found.structured_content["hits"]]


def test_app_and_mcp_server_writing_at_once_lose_nothing(qtbot, small_services, today) -> None:  # noqa: ANN001
    from ui_support import run

    manager = small_services.manager
    count = 12
    agent_facts = [f"The agent noted item agentfact{i:02d} for the user" for i in range(count)]
    app_facts = [f"The user typed item appfact{i:02d} in the window" for i in range(count)]
    agent = WriterThread(manager.layout.home, agent_facts, probe="appfact00")

    async def app_writes() -> None:
        for text in app_facts:
            await manager.capturing.remember(text)

    agent.start()
    qtbot.waitUntil(agent.ready.is_set, timeout=CAPTURE_WAIT_MS)
    agent.go.set()
    run(qtbot, app_writes(), timeout=CAPTURE_WAIT_MS)
    agent.app_done.set()
    qtbot.waitUntil(agent.done.is_set, timeout=CAPTURE_WAIT_MS)
    agent.join(timeout=60)
    assert agent.errors == []
    assert any("appfact00" in text for text in agent.probe_hits)  # the server sees what the app wrote

    log = manager.archive.path_for(today.isoformat()).read_text(encoding="utf-8")
    for text in agent_facts + app_facts:
        assert log.count(text) == 1, text
    run(qtbot, manager.indexing.reindex())
    status = run(qtbot, manager.status())
    assert status["index"]["stale_files"] == [] and status["index"]["errors"] == []
    for text in agent_facts + app_facts:
        token = text.split()[4]
        response = run(qtbot, manager.searching.search(token, limit=3, record_recall=False))
        assert any(token in hit.text for hit in response.hits), token


def test_a_killed_server_stops_showing_as_connected(qtbot, window) -> None:  # noqa: ANN001
    import json

    path = window.services.layout.mcp_activity_file
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {"pid": 2**22 + 4321, "connected": True, "started": "2026-07-20T10:00:00+00:00",
           "last_call": "2026-07-20T10:05:00+00:00", "last_tool": "remember", "calls": 3}
    path.write_text(json.dumps(doc), encoding="utf-8")  # left behind by a server that was killed
    assert window.agent_label.text() == ""  # no watcher running: nothing has looked yet
    window._agent_timer.timeout.emit()  # what the periodic check runs, without waiting for it
    assert window.agent_label.text().startswith("Agent: last seen ")
    assert not window._agent_timer.isActive()
    window.start_background(watch=True, serve=False, index=False)
    assert window._agent_timer.isActive()  # checks run while the window watches the home
