"""The index's write lock is taken in order of arrival, and a waiter is told "busy, N s" past
its bound instead of hanging."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from dream_support import make_manager
from filelock import FileLock

from suzent_desktop.core.index.storage.fair_lock import FairLock, IndexBusy


async def test_waiters_take_the_lock_in_order_of_arrival(tmp_path: Path):
    path = tmp_path / "write.lock"
    holder = FileLock(str(path))
    holder.acquire()
    order: list[str] = []

    async def writer(name: str) -> None:
        lock = FairLock(path, max_wait=30)
        await lock.acquire()
        order.append(name)
        await asyncio.sleep(0.02)
        lock.release()

    first = asyncio.ensure_future(writer("first"))
    await asyncio.sleep(0.2)  # its ticket is in the queue
    later = [asyncio.ensure_future(writer(f"later{i}")) for i in range(3)]
    await asyncio.sleep(0.2)
    holder.release()
    await asyncio.gather(first, *later)
    assert order[0] == "first" and sorted(order[1:]) == ["later0", "later1", "later2"]


async def test_a_ticket_left_by_a_dead_process_does_not_block_the_queue(tmp_path: Path):
    path = tmp_path / "write.lock"
    queue = Path(f"{path}.queue")
    queue.mkdir()
    (queue / "00000000000000000001-99999-deadbeef").write_text("")  # no process holds it
    held = FileLock(str(path))
    held.acquire()  # held by another handle: this process must queue
    lock = FairLock(path, max_wait=0.5)
    with pytest.raises(IndexBusy):
        await lock.acquire()
    assert not (queue / "00000000000000000001-99999-deadbeef").exists()


async def test_a_writer_past_the_bound_is_told_busy_and_the_fact_stays_in_the_log(home, clock):
    manager = make_manager(home, clock)
    manager.indexer.table.fair_lock.max_wait = 0.3
    held = FileLock(str(manager.layout.index_dir / "write.lock"))
    manager.layout.index_dir.mkdir(parents=True, exist_ok=True)
    held.acquire()
    try:
        changes = await asyncio.wait_for(manager.capturing.remember("User plays the oboe"), timeout=30)
    finally:
        held.release()
    assert any("busy" in e and "s (" in e for e in changes.errors)
    assert "User plays the oboe" in manager.archive.path_for(clock.today().isoformat()).read_text(encoding="utf-8")
    await manager.indexing.reindex()
    assert any(h.text == "User plays the oboe" for h in (await manager.searching.search("oboe", record_recall=False)).hits)


async def test_a_writer_that_takes_the_lock_again_at_once_cannot_starve_a_waiter(tmp_path: Path):
    """A reindex loop releases and takes the lock again in one breath; a waiting remember still gets its turn."""
    path = tmp_path / "write.lock"
    hog, waiter = FairLock(path, max_wait=30), FairLock(path, max_wait=30)
    rounds: list[int] = []
    got_it_after: list[int] = []

    async def hogging() -> None:
        await hog.acquire()
        for round_ in range(40):
            await asyncio.sleep(0.02)  # writing
            rounds.append(round_)
            hog.release()
            await hog.acquire()  # at once: no pause for anyone polling
        hog.release()

    async def waiting() -> None:
        await asyncio.sleep(0.1)
        await waiter.acquire()
        got_it_after.append(len(rounds))
        waiter.release()

    await asyncio.gather(hogging(), waiting())
    assert got_it_after and got_it_after[0] < 10, got_it_after
