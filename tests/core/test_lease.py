"""One dream at a time across devices: the lease file, its renewal and expiry, a dead device's lease."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from dream_support import days_before, make_manager, write_log

from suzent_desktop.core.engines.dream.runs.lease import (
    REPLAN,
    DreamLease,
    for_home,
    moved_under,
    read_leases,
)


class FakeTime:
    def __init__(self) -> None:
        self.t = 1_000_000.0

    def __call__(self) -> float:
        return self.t


def _lease(folder: Path, device: str, clock: FakeTime, *, settle: float = 0.0) -> DreamLease:
    return DreamLease(folder, device, seconds=60, settle=settle, rivals_possible=lambda: True, now=clock)


def test_a_live_lease_makes_the_other_device_wait_and_release_frees_it(tmp_path: Path):
    clock = FakeTime()
    laptop, desktop = _lease(tmp_path, "laptop", clock), _lease(tmp_path, "desktop", clock)
    assert asyncio.run(laptop.take("2026-07-10")) == ""
    assert "laptop is consolidating" in asyncio.run(desktop.take("2026-07-10"))
    laptop.release("2026-07-12")
    on_disk = read_leases(tmp_path)["laptop"]
    assert on_disk.released and on_disk.watermark == "2026-07-12"
    # The desktop's log.md has not caught up yet: it waits for the sync, then goes.
    assert "waiting for the sync tool" in asyncio.run(desktop.take("2026-07-10"))
    assert asyncio.run(desktop.take("2026-07-12")) == ""


def test_renewal_pushes_the_expiry_and_an_unrenewed_lease_expires(tmp_path: Path):
    clock = FakeTime()
    laptop, desktop = _lease(tmp_path, "laptop", clock), _lease(tmp_path, "desktop", clock)
    assert asyncio.run(laptop.take(None)) == ""
    first_expiry = read_leases(tmp_path)["laptop"].expiry
    clock.t += 50
    laptop.renew()
    assert read_leases(tmp_path)["laptop"].expiry == first_expiry + 50
    clock.t += 50  # renewed: still live 100 s after it was taken
    assert asyncio.run(desktop.take(None)) != ""
    assert laptop.still_held()
    clock.t += 61  # no renewal for longer than the lease: expired
    assert not laptop.still_held()
    assert asyncio.run(desktop.take(None)) == ""


def test_a_dead_devices_stale_lease_expires(tmp_path: Path):
    clock = FakeTime()
    # A device killed mid-run left its lease: never released, expiry in the past.
    (tmp_path / "server.json").write_text(json.dumps(
        {"device": "server", "start": clock.t - 900, "expiry": clock.t - 600, "watermark": None, "released": False}))
    assert asyncio.run(_lease(tmp_path, "laptop", clock).take(None)) == ""


def test_of_two_leases_taken_at_once_the_earlier_wins(tmp_path: Path):
    clock = FakeTime()

    def laptop_lease_arrives() -> bool:
        # The laptop's lease, taken a moment earlier, arrives once the desktop has written its own.
        (tmp_path / "laptop.json").write_text(json.dumps(
            {"device": "laptop", "start": clock.t - 1, "expiry": clock.t + 59, "watermark": None, "released": False}))
        return True

    desktop = DreamLease(tmp_path, "desktop", seconds=60, settle=0.01, rivals_possible=laptop_lease_arrives, now=clock)
    why = asyncio.run(desktop.take(None))
    assert "laptop" in why
    assert read_leases(tmp_path)["desktop"].released


def test_a_moved_watermark_means_replan(tmp_path: Path):
    clock = FakeTime()
    laptop = _lease(tmp_path, "laptop", clock)
    asyncio.run(laptop.take("2026-07-10"))

    class Days:
        watermark = "2026-07-14"

    assert moved_under(laptop, "2026-07-10", Days).startswith(REPLAN)
    Days.watermark = "2026-07-10"
    assert moved_under(laptop, "2026-07-10", Days) == ""


async def _collide(folders: list[Path], clocks: list[FakeTime]) -> list[str]:
    """The laptop and the desktop take the lease at once, each in its own copy of the home; the sync
    tool carries both leases across once both are written, so neither saw the other's before."""
    import shutil

    written: list[str] = []

    def sync_once_both_wrote() -> bool:
        written.append("lease")
        if len(written) == 2:
            for source, target in (folders, folders[::-1]):
                for lease_file in source.glob("*.json"):
                    shutil.copy2(lease_file, target / lease_file.name)
        return True

    leases = [DreamLease(folder, name, seconds=60, settle=0.01, rivals_possible=sync_once_both_wrote, now=clock)
              for folder, name, clock in zip(folders, ("laptop", "desktop"), clocks, strict=True)]
    return list(await asyncio.gather(*(lease.take(None) for lease in leases)))


def test_two_devices_taking_the_lease_at_the_same_moment_exactly_one_dreams(tmp_path: Path):
    for offset in range(10):  # the same start, or one device a hair earlier, or the other
        folders = [tmp_path / f"try{offset}" / name for name in ("laptop", "desktop")]
        clocks = [FakeTime(), FakeTime()]
        clocks[1].t += (offset % 3 - 1) * 0.001
        reasons = asyncio.run(_collide(folders, clocks))
        winner = 1 if clocks[1].t <= clocks[0].t else 0  # the earlier start, then the smaller id (desktop)
        assert reasons[winner] == "" and reasons[1 - winner] != "", reasons
        assert ("laptop", "desktop")[winner] in reasons[1 - winner]
        assert read_leases(folders[1 - winner])[("laptop", "desktop")[1 - winner]].released


def test_a_device_that_believes_it_is_alone_still_writes_its_lease_without_waiting(tmp_path: Path):
    alone = DreamLease(tmp_path / "leases", "laptop", seconds=60, settle=3600, rivals_possible=lambda: False)
    assert asyncio.run(alone.take(None)) == ""  # no settle wait: a wait of an hour would hang this test
    assert alone.still_held() and read_leases(tmp_path / "leases")["laptop"].live(alone.now())
    # A device that joined by sync, whose registration the laptop has not seen yet, sees the laptop's lease.
    joiner = _lease(tmp_path / "leases", "desktop", FakeTime())
    joiner.now = alone.now
    assert "laptop is consolidating" in asyncio.run(joiner.take(None))
    alone.release(None)
    assert read_leases(tmp_path / "leases")["laptop"].released


def test_another_devices_lease_is_a_sign_of_a_rival_before_its_registration_arrives(home, clock):
    manager = make_manager(home, clock)
    lease = for_home(manager.layout, manager.settings)
    assert not lease.shared()  # alone: no settle wait
    manager.layout.lease_dir.mkdir(parents=True, exist_ok=True)
    (manager.layout.lease_dir / "desktop.json").write_text(json.dumps(
        {"device": "desktop", "start": 1.0, "expiry": 2.0, "watermark": None, "released": True}))
    assert lease.shared()


# -- the runner on a home two devices share ------------------------------------------------------
def _two_devices(home, clock, monkeypatch, **overrides):
    """The laptop's and the desktop's managers on one home (the laptop registered first)."""
    managers = []
    for device in ("laptop", "desktop"):
        monkeypatch.setenv("SUZENT_DEVICE", device)
        managers.append(make_manager(home, clock, memory_consolidation_lease_settle_seconds=0.0, **overrides))
    return managers


async def test_a_second_devices_dream_waits_for_the_live_lease_then_adds_nothing_twice(
    home, clock, today, monkeypatch
):
    laptop, desktop = _two_devices(home, clock, monkeypatch)
    day = days_before(today, 1)[0]
    write_log(laptop, day, ["User works at Contoso", "User likes green tea"])

    # The laptop holds a live lease (a run in progress): the desktop waits.
    held = DreamLease(laptop.layout.lease_dir, "laptop", seconds=600, settle=0, rivals_possible=lambda: True)
    assert await held.take(None) == ""
    waiting = await desktop.dreaming.runner().run_once(force=True)
    assert waiting.outcome == "gated" and "laptop is consolidating" in waiting.reason
    held.release(None)

    first = await laptop.dreaming.runner().run_once(force=True)
    assert first.outcome == "productive"
    pages = {p: p.read_text() for p in (laptop.layout.notebook_dir / "3_Personal").glob("*.md")}
    # The desktop, with the laptop's log.md in view, has nothing left to do for that day.
    second = await desktop.dreaming.runner().run_once(force=True)
    assert second.outcome == "nothing_pending"
    assert {p: p.read_text() for p in (laptop.layout.notebook_dir / "3_Personal").glob("*.md")} == pages
    assert read_leases(laptop.layout.lease_dir)["laptop"].watermark == day


async def test_a_batch_another_device_consolidated_is_not_written_twice(home, clock, today, monkeypatch):
    laptop, desktop = _two_devices(home, clock, monkeypatch)
    day = days_before(today, 1)[0]
    write_log(laptop, day, ["User works at Contoso", "User likes green tea"])
    assert (await laptop.dreaming.runner().run_once(force=True)).outcome == "productive"
    pages = {p: p.read_bytes() for p in (laptop.layout.notebook_dir / "3_Personal").glob("*.md")}
    # The laptop's log.md entry and lease never reached the desktop (lost in a sync conflict).
    log_md = laptop.layout.notebook_dir / "log.md"
    text = log_md.read_text()
    log_md.write_text(text[: text.rindex("## [")])
    (laptop.layout.lease_dir / "laptop.json").unlink()
    again = await desktop.dreaming.runner().run_once(force=True)
    assert again.outcome == "productive" and again.pages_changed == [] and "another device" in again.summary
    assert again.watermark == day
    assert {p: p.read_bytes() for p in (laptop.layout.notebook_dir / "3_Personal").glob("*.md")} == pages


async def test_a_run_whose_watermark_moves_under_it_rolls_back_and_plans_again(home, clock, today, monkeypatch):
    from suzent_desktop.core.engines.dream.model import EngineReport

    manager = make_manager(home, clock)
    day = days_before(today, 1)[0]
    write_log(manager, day, ["User works at Contoso"])

    async def engine_while_a_sync_arrives(batch, tools):
        tools.write("3_Personal/Work.md", "# Work\n\n- User works at Contoso\n")
        # Another device's consolidation of the same day arrives through the sync tool meanwhile.
        log_md = manager.layout.notebook_dir / "log.md"
        log_md.write_text(log_md.read_text() + f"\n## [{today.isoformat()}] ingest | daily logs  watermark={day}\n")
        return EngineReport(summary="wrote it")

    result = await manager.dreaming.runner(engine=engine_while_a_sync_arrives).run_once(force=True)
    assert result.outcome == "nothing_pending"  # planned again: the other device's entry covers the day
    assert not (manager.layout.notebook_dir / "3_Personal" / "Work.md").exists()  # this run's page rolled back
    assert manager.dreaming.watermark() == day


async def test_a_device_joining_by_sync_whose_registration_has_not_arrived_cannot_dream_alongside(
    home, clock, today, monkeypatch
):
    from suzent_desktop.core.engines.dream.model import EngineReport

    laptop, desktop = _two_devices(home, clock, monkeypatch)
    # The desktop registered in its own copy of the home; the laptop has not received that file yet.
    (laptop.layout.state_dir / "devices" / "desktop.json").unlink()
    day = days_before(today, 1)[0]
    write_log(laptop, day, ["User works at Contoso", "User likes green tea"])
    seen: list = []

    async def laptop_engine(batch, tools):
        tools.write("3_Personal/Work.md", "# Work\n\n- User works at Contoso\n- User likes green tea\n")
        seen.append(await desktop.dreaming.runner().run_once(force=True))  # the desktop starts meanwhile
        return EngineReport(summary="wrote it")

    first = await laptop.dreaming.runner(engine=laptop_engine).run_once(force=True)
    assert seen[0].outcome == "gated" and "laptop is consolidating" in seen[0].reason
    assert first.outcome == "productive" and first.watermark == day
    assert (laptop.layout.notebook_dir / "3_Personal" / "Work.md").read_text().count("Contoso") == 1


# -- dream state per device ----------------------------------------------------------------------------
async def test_each_device_keeps_its_own_dream_state(home, clock, today, monkeypatch):
    laptop, desktop = _two_devices(home, clock, monkeypatch)
    write_log(laptop, days_before(today, 1)[0], ["User works at Contoso"])
    laptop_state = laptop.layout.runner_state_file
    assert (await laptop.dreaming.runner(engine=_failing).run_once(force=True)).outcome == "failed"
    before = laptop_state.read_bytes()
    assert (await desktop.dreaming.runner(engine=_failing).run_once(force=True)).outcome == "failed"
    # The desktop's attempt is in a file of its own; the laptop's file is as the laptop left it.
    assert laptop_state.read_bytes() == before
    mine = json.loads(desktop.layout.runner_state_file.read_text())
    assert desktop.layout.runner_state_file.name == "dream_state@desktop.json" and len(mine["history"]) == 1
    # Either device's history shows both runs.
    assert [r["outcome"] for r in laptop.dreaming.runner().history()] == ["failed", "failed"]


async def test_the_shared_state_file_and_its_conflict_copies_are_migrated_with_their_retry_counts(
    home, clock, today, monkeypatch
):
    laptop, desktop = _two_devices(home, clock, monkeypatch, memory_consolidation_max_retries=5)
    first, second = days_before(today, 2)
    write_log(laptop, first, ["User works at Contoso"])
    state_dir = laptop.layout.state_dir
    # An earlier version: both devices wrote .state/dream_state.json, and the sync tool left a copy.
    shared = {"version": 1, "last_attempt": 1.0, "last_success": None, "retries": {second: 1}, "history": []}
    (state_dir / "dream_state.json").write_text(json.dumps(shared))
    copy = {**shared, "retries": {first: 2}}
    (state_dir / "dream_state.sync-conflict-20260719-101500-ABCDEFG.json").write_text(json.dumps(copy))

    result = await desktop.dreaming.runner(engine=_failing).run_once(force=True)

    assert "attempt 3 of" in result.reason  # the copy's two attempts were kept
    mine = json.loads(desktop.layout.runner_state_file.read_text())
    assert mine["retries"] == {first: 3, second: 1}
    # The laptop, the plain file's owner, folds the copy into its own file and removes it.
    result = await laptop.dreaming.runner(engine=_failing).run_once(force=True)
    assert "attempt 3 of" in result.reason
    assert json.loads(laptop.layout.runner_state_file.read_text())["retries"] == {first: 3, second: 1}
    assert not list(state_dir.glob("dream_state.sync-conflict-*"))


async def _failing(batch, tools):
    raise RuntimeError("model exploded")
