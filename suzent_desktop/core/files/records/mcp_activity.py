"""The MCP server's heartbeat file, so an open window can show that an agent is connected.

The server rewrites one small JSON file in the vault's ``.state/`` folder after each call
(atomically, at most a few times a second); the window's file watcher already sees that
folder, so no socket or polling is needed between the two processes. The file says which
process wrote it: a server that exits marks itself disconnected, and a reader treats a
dead writer as disconnected too (a killed server cannot say goodbye).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from suzent_desktop.core.files.disk.atomic import atomic_write_text
from suzent_desktop.core.files.disk.text_hygiene import loads_json

MIN_WRITE_INTERVAL = 0.5  # seconds: a burst of calls rewrites the file once, not per call


@dataclass(frozen=True)
class Activity:
    pid: int
    connected: bool
    started: str  # ISO date-time the server started
    last_call: str | None  # ISO date-time of the last tool call or resource read
    last_tool: str | None
    calls: int
    read_only: bool

    def alive(self) -> bool:
        """Connected, and the writing process still exists."""
        return self.connected and _pid_alive(self.pid)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def _now() -> str:
    return dt.datetime.now().astimezone().isoformat(timespec="seconds")


def read_activity(path: Path) -> Activity | None:
    """The last heartbeat, or None when there is none or it cannot be read (never an error)."""
    try:
        data = loads_json(path.read_text(encoding="utf-8"))
        return Activity(
            pid=int(data["pid"]),
            connected=bool(data["connected"]),
            started=str(data["started"]),
            last_call=data.get("last_call"),
            last_tool=data.get("last_tool"),
            calls=int(data.get("calls", 0)),
            read_only=bool(data.get("read_only", False)),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


class ActivityRecorder:
    """Writes the heartbeat for one server process; disabled (writes nothing) in read-only mode."""

    def __init__(self, path: Path, *, enabled: bool = True, read_only: bool = False) -> None:
        self.path = path
        self.enabled = enabled
        self.read_only = read_only
        self.started = _now()
        self.calls = 0
        self.last_call: str | None = None
        self.last_tool: str | None = None
        self._last_write = 0.0
        self._flush: asyncio.TimerHandle | None = None

    def _write(self, connected: bool) -> None:
        if not self.enabled:
            return
        doc = {
            "pid": os.getpid(),
            "connected": connected,
            "started": self.started,
            "last_call": self.last_call,
            "last_tool": self.last_tool,
            "calls": self.calls,
            "read_only": self.read_only,
        }
        try:
            atomic_write_text(self.path, json.dumps(doc, indent=1) + "\n")
        except OSError:
            self.enabled = False  # a heartbeat must never break a call; stop trying
        self._last_write = time.monotonic()

    def connected(self) -> None:
        self._write(True)

    def called(self, tool: str) -> None:
        """Note one call; a burst rewrites the file once, and the last call of a burst is never lost."""
        self.calls += 1
        self.last_call = _now()
        self.last_tool = tool
        if self._flush is not None:
            return  # a write is already scheduled and will carry this call
        delay = MIN_WRITE_INTERVAL - (time.monotonic() - self._last_write)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if delay <= 0 or loop is None:
            self._write(True)
        else:
            self._flush = loop.call_later(delay, self._flush_now)

    def _flush_now(self) -> None:
        self._flush = None
        self._write(True)

    def disconnected(self) -> None:
        """Mark this server gone, unless another server has written the file since."""
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
        current = read_activity(self.path)
        if current is not None and current.pid != os.getpid():
            return
        self._write(False)


def describe(activity: Activity | None) -> str:
    """The status-bar words for the last heartbeat: empty when no agent ever connected."""
    if activity is None:
        return ""
    when = _clock_time(activity.last_call or activity.started)
    mode = " (read-only)" if activity.read_only else ""
    if activity.alive():
        last = f", last call {when} {activity.last_tool}" if activity.last_call else ""
        return f"Agent: connected{mode}{last}"
    return f"Agent: last seen {when}"


def _clock_time(stamp: str) -> str:
    """HH:MM:SS of an ISO stamp in local time; a stamp that does not parse is shown as written."""
    try:
        return dt.datetime.fromisoformat(stamp).astimezone().strftime("%H:%M:%S")
    except (TypeError, ValueError):
        return stamp
