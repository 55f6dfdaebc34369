"""The index's ``write.lock`` taken in order of arrival, with a bounded wait.

Polling a lock file alone is a lottery: with a dozen writers and a dream and a reindex
looping, one ``remember`` waited more than five minutes, and an MCP call waiting like that
hangs the agent. So each waiter first takes a *ticket*: a file in ``write.lock.queue/``
named by its arrival time, held open with an exclusive lock (``filelock``'s, on every platform) while it waits. A waiter may
take the lock only when no older live ticket exists; a ticket whose owner died (its flock
can be taken) is removed by whoever finds it. The wait is bounded: past ``max_wait`` seconds
the caller gets :class:`IndexBusy` saying how long it waited, instead of hanging.
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from filelock import FileLock, Timeout, lock_descriptor

POLL_SECONDS = 0.05


class IndexBusy(OSError):
    """The write lock could not be had within the bound; nothing was written to the index."""


class _Ticket:
    def __init__(self, queue: Path) -> None:
        queue.mkdir(parents=True, exist_ok=True)
        self.path = queue / f"{time.time_ns():020d}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self._fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o644)
        lock_descriptor(self._fd)  # alive while held: others can tell a dead ticket

    def leave(self) -> None:
        os.close(self._fd)  # first: Windows removes no file that is still open
        self.path.unlink(missing_ok=True)


def _alive(path: Path) -> bool:
    """A ticket whose owner still holds it; a dead one (its process gone) is removed."""
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        if not lock_descriptor(fd, blocking=False):
            return True
    finally:
        os.close(fd)  # closing drops a lock taken just above
    path.unlink(missing_ok=True)
    return False


class FairLock:
    """``write.lock`` (a :class:`filelock.FileLock`) behind a queue of tickets."""

    def __init__(self, lock_path: Path, *, max_wait: float | None = 60.0) -> None:
        self.lock = FileLock(str(lock_path), thread_local=False)
        self.queue = Path(f"{lock_path}.queue")
        self.max_wait = max_wait

    def _first(self, ticket: _Ticket) -> bool:
        try:
            names = sorted(p.name for p in self.queue.iterdir())
        except OSError:
            return True
        for name in names:
            if name == ticket.path.name:
                return True
            if _alive(self.queue / name):
                return False
        return True

    async def acquire(self, on_wait: Callable[[], None] | None = None) -> None:
        """Wait for our turn, then the lock; :class:`IndexBusy` past ``max_wait`` seconds."""
        if self._queue_empty() and self._take_now():  # nobody waiting: no ticket needed
            return
        ticket = await asyncio.to_thread(_Ticket, self.queue)
        started = time.monotonic()
        if on_wait is not None:
            on_wait()
        try:
            while not (await asyncio.to_thread(self._first, ticket) and self._take_now()):
                waited = time.monotonic() - started
                if self.max_wait is not None and waited >= self.max_wait:
                    raise IndexBusy(f"the index is busy: another process has been writing to it for "
                                    f"{waited:.0f} s ({self.lock.lock_file}); try again in a moment")
                await asyncio.sleep(POLL_SECONDS)
        finally:
            await asyncio.to_thread(ticket.leave)

    def _queue_empty(self) -> bool:
        try:
            return not any(self.queue.iterdir())
        except OSError:
            return True

    def _take_now(self) -> bool:
        try:
            self.lock.acquire(timeout=0)
        except Timeout:
            return False
        return True

    def release(self) -> None:
        self.lock.release()
