"""The MCP server's heartbeat file: what the window reads to say an agent is connected."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from suzent_desktop.core.files.records.mcp_activity import (
    MIN_WRITE_INTERVAL,
    ActivityRecorder,
    describe,
    read_activity,
)


def test_heartbeat_says_connected_then_last_seen(tmp_path: Path) -> None:
    path = tmp_path / ".state" / "mcp_activity.json"
    assert describe(read_activity(path)) == ""  # never connected: nothing to show
    recorder = ActivityRecorder(path)
    recorder.connected()
    assert describe(read_activity(path)) == "Agent: connected"
    recorder.called("search_memory")  # outside a loop: written at once
    text = describe(read_activity(path))
    assert text.startswith("Agent: connected, last call ") and text.endswith(" search_memory")
    recorder.disconnected()
    activity = read_activity(path)
    assert activity is not None and not activity.alive() and activity.calls == 1
    assert describe(activity).startswith("Agent: last seen ")


async def test_a_burst_of_calls_is_written_once_and_the_last_call_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "mcp_activity.json"
    recorder = ActivityRecorder(path)
    recorder.connected()
    writes = []
    original = recorder._write
    recorder._write = lambda connected: (writes.append(connected), original(connected))  # type: ignore[method-assign]
    for tool in ("search_memory", "remember", "capture_turn"):
        recorder.called(tool)
    assert writes == []  # inside the interval: one write is scheduled, none done yet
    scheduled = recorder._flush
    assert scheduled is not None and scheduled.when() <= asyncio.get_running_loop().time() + MIN_WRITE_INTERVAL
    scheduled.cancel()
    recorder._flush_now()  # what the timer runs, without waiting for it
    assert writes == [True]
    activity = read_activity(path)
    assert activity is not None and activity.calls == 3 and activity.last_tool == "capture_turn"


def test_dead_writer_or_other_server_and_garbage(tmp_path: Path) -> None:
    path = tmp_path / "mcp_activity.json"
    doc = {"pid": 2**22 + 12345, "connected": True, "started": "2026-07-20T10:00:00+00:00",
           "last_call": None, "last_tool": None, "calls": 0}
    path.write_text(json.dumps(doc), encoding="utf-8")
    activity = read_activity(path)
    assert activity is not None and not activity.alive()  # a killed server cannot say goodbye
    mine = ActivityRecorder(path)
    mine.disconnected()  # another server wrote last: its state is not ours to change
    assert json.loads(path.read_text(encoding="utf-8"))["pid"] == doc["pid"]
    path.write_text("{not json", encoding="utf-8")
    assert read_activity(path) is None
    off = ActivityRecorder(tmp_path / "read-only.json", enabled=False)
    off.connected()
    off.called("search_memory")
    assert not (tmp_path / "read-only.json").exists()
