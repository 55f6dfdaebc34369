"""Several devices on one home: device ids, the per-device layout and the readers that merge it."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from pathlib import Path

import pytest

from suzent_desktop.core.files.records.archive import Archive
from suzent_desktop.core.files.records.log_grammar import Fact
from suzent_desktop.core.files.records.tombstones import Tombstones
from suzent_desktop.core.files.records.transcripts import Transcripts
from suzent_desktop.core.files.sync import devices, streams
from suzent_desktop.core.home import open_home


def _open(home: Path, device: str, monkeypatch: pytest.MonkeyPatch, clock):
    monkeypatch.setenv("SUZENT_DEVICE", device)
    from suzent_desktop.core.index.embedding import HashingEmbedder

    return open_home(home, clock=clock, embedder=HashingEmbedder())


def test_device_id_is_made_once_and_kept_in_local_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    config = tmp_path / "local" / "device.toml"
    monkeypatch.setenv("SUZENT_LOCAL_CONFIG", str(config))
    monkeypatch.delenv("SUZENT_DEVICE", raising=False)
    first = devices.device_id()
    assert devices.valid_id(first) and config.is_file()
    assert devices.device_id() == first
    monkeypatch.setenv("SUZENT_DEVICE", "Bad Name")
    with pytest.raises(devices.DeviceError, match="SUZENT_DEVICE"):
        devices.device_id()


def test_first_device_keeps_plain_names_and_a_second_writes_its_own(home: Path, monkeypatch, clock):
    laptop = _open(home, "laptop", monkeypatch, clock)
    when = dt.datetime(2026, 7, 19, 9, 30)
    laptop.archive.append_turn([Fact("User lives in Oslo")], session_id="s1", when=when)
    assert (laptop.layout.archive_dir / "2026-07-19.md").is_file()

    desktop = _open(home, "desktop", monkeypatch, clock)
    assert desktop.layout.device_suffix == "@desktop"
    desktop.archive.append_turn([Fact("User drinks green tea")], session_id="s2", when=when.replace(hour=8))
    desktop.archive.append_turn([Fact("User plays chess")], session_id="s3", when=when.replace(hour=11))
    assert (desktop.layout.archive_dir / "2026-07-19@desktop.md").is_file()

    # Readers on either device see the day merged, turn blocks in time order.
    for opened in (laptop, desktop):
        assert opened.archive.dates() == ["2026-07-19"]
        facts = [f.fact.content for f in opened.archive.read("2026-07-19").facts]
        assert facts == ["User drinks green tea", "User lives in Oslo", "User plays chess"]


def test_a_single_device_log_reads_byte_for_byte(layout):
    archive = Archive(layout)
    archive.append_turn([Fact("User likes tea")], session_id="abc", when=dt.datetime(2026, 7, 1, 14, 5))
    assert archive.read_text("2026-07-01") == (layout.archive_dir / "2026-07-01.md").read_text()


def test_conflict_copy_of_a_daily_log_is_merged_not_doubled(layout):
    archive = Archive(layout)
    archive.append_turn([Fact("User likes tea")], session_id="abc", when=dt.datetime(2026, 7, 1, 14, 5))
    original = layout.archive_dir / "2026-07-01.md"
    copy = layout.archive_dir / "2026-07-01.sync-conflict-20260701-150000-ABCDEFG.md"
    copy.write_text(original.read_text() + "\n## 15:00 — other123\n\n- [work] User started at Acme\n")
    rclone = layout.archive_dir / "2026-07-01.md.conflict1"
    rclone.write_text(original.read_text())
    facts = [f.fact.content for f in archive.read("2026-07-01").facts]
    assert facts == ["User likes tea", "User started at Acme"]
    assert archive.dates() == ["2026-07-01"]
    assert not archive.invalid_files()


def test_transcripts_merge_every_device_by_time(home: Path, monkeypatch, clock):
    first = _open(home, "laptop", monkeypatch, clock)
    first.transcripts.append("I moved to Oslo", "", session_id="a", when=dt.datetime(2026, 7, 19, 10, 0).astimezone())
    second = _open(home, "desktop", monkeypatch, clock)
    second.transcripts.append("I like tea", "", session_id="b", when=dt.datetime(2026, 7, 19, 9, 0).astimezone())
    turns = Transcripts(second.layout).read("2026-07-19").turns
    assert [t.user for t in turns] == ["I like tea", "I moved to Oslo"]
    assert Transcripts(first.layout).dates() == ["2026-07-19"]


def test_forget_on_one_device_holds_on_the_other_and_undo_lifts_it(home: Path, monkeypatch, clock):
    laptop = _open(home, "laptop", monkeypatch, clock)
    desktop = _open(home, "desktop", monkeypatch, clock)
    Tombstones(laptop.layout).add("User lives in Oslo")
    assert Tombstones(desktop.layout).is_tombstoned("user lives in oslo")
    assert laptop.layout.tombstones_file.name == "tombstones.jsonl"
    assert desktop.layout.tombstones_file.name == "tombstones@desktop.jsonl"
    # The undo is written on the other device, later: it wins on both.
    record = {"content": "user lives in oslo", "undone": True, "ts": "2099-01-01T00:00:00+00:00"}
    desktop.layout.tombstones_file.write_text(json.dumps(record) + "\n")
    assert not Tombstones(laptop.layout).is_tombstoned("User lives in Oslo")


def test_two_devices_claiming_plain_names_settle_on_the_first(tmp_path: Path):
    state = tmp_path / ".state"
    state.mkdir()
    assert devices.register(state, "bbb")  # alone: claims the plain names
    # A device that registered earlier (it had not synced yet) also claimed them.
    (state / "devices" / "aaa.json").write_text(json.dumps(
        {"device": "aaa", "first_seen": "2000-01-01T00:00:00+00:00", "plain_names": True}))
    assert not devices.register(state, "bbb")
    assert devices.register(state, "aaa")


def test_full_reindex_on_the_second_device_keeps_forgotten_facts_out(home: Path, monkeypatch, clock):
    laptop = _open(home, "laptop", monkeypatch, clock)
    desktop = _open(home, "desktop", monkeypatch, clock)
    when = dt.datetime(2026, 7, 20, 9, 0)
    laptop.archive.append_turn([Fact("User owns a red bicycle")], session_id="s", when=when)
    desktop.archive.append_turn([Fact("User owns a red bicycle"), Fact("User likes jazz")], session_id="t", when=when)
    Tombstones(laptop.layout).add("User owns a red bicycle")

    async def texts() -> list[str]:
        await desktop.indexer.sync(full=True)
        response = await desktop.indexer.search("bicycle jazz", limit=10)
        return [h.text for h in response.hits]

    found = asyncio.run(texts())
    assert "User likes jazz" in found and "User owns a red bicycle" not in found


def test_stream_part_names():
    assert streams.parse_part("2026-07-01@desk-1.md", ".md").device == "desk-1"
    part = streams.parse_part("2026-07-01 (Laptop's conflicted copy 2026-07-02).md", ".md")
    assert part is not None and part.base == "2026-07-01" and part.conflict == "Dropbox"
    assert streams.parse_part("2026-07-01.jsonl", ".md") is None
    assert streams.parse_part("notes.txt", ".md") is None


async def test_another_devices_log_arriving_after_its_day_was_consolidated_is_not_lost(home, clock, today,
                                                                                         monkeypatch):
    from dream_support import days_before, make_manager, write_log


    monkeypatch.setenv("SUZENT_DEVICE", "laptop")
    laptop = make_manager(home, clock)
    day = days_before(today, 1)[0]
    write_log(laptop, day, ["User works at Contoso"])
    assert (await laptop.dreaming.runner().run_once(force=True)).outcome == "productive"

    # The desktop's part of that day arrives only now, through the sync tool.
    late = laptop.layout.archive_dir / f"{day}@desktop.md"
    late.write_text(f"# Daily Log - {day}\n\n## 18:00 — desk0001\n\n- [hobby] User restores old radios\n")
    await laptop.indexer.sync()
    hits = (await laptop.searching.search("restores old radios", limit=5)).hits
    assert hits and hits[0].text == "User restores old radios" and hits[0].source_type == "archive"
    assert any(f["text"] == "User restores old radios" for f in laptop.dreaming.runner().not_consolidated())

    # The next day's dream offers it to the engine with its own batch: it lands on a page, once.
    write_log(laptop, today.isoformat(), ["User is writing tests today"])
    from suzent_desktop.core.files.clock import Clock

    tomorrow = make_manager(home, Clock(fixed_today=today + dt.timedelta(days=1)))
    assert (await tomorrow.dreaming.runner().run_once(force=True)).outcome == "productive"
    pages = "".join(p.read_text() for p in (tomorrow.layout.notebook_dir / "3_Personal").glob("*.md"))
    assert pages.count("User restores old radios") == 1
    assert tomorrow.dreaming.runner().not_consolidated() == []


async def test_an_undo_that_arrives_after_the_dream_left_the_fact_out_brings_it_back(home, clock, today,
                                                                                     monkeypatch):
    from dream_support import days_before, make_manager, write_log


    monkeypatch.setenv("SUZENT_DEVICE", "laptop")
    laptop = make_manager(home, clock, memory_consolidation_lease_settle_seconds=0.0)
    monkeypatch.setenv("SUZENT_DEVICE", "desktop")
    make_manager(home, clock)  # the desktop has opened this home too
    day = days_before(today, 1)[0]
    write_log(laptop, day, ["User works at Contoso", "User keeps bees on the roof"])
    Tombstones(laptop.layout).add("User keeps bees on the roof")
    assert (await laptop.dreaming.runner().run_once(force=True)).outcome == "productive"
    pages = "".join(p.read_text() for p in (laptop.layout.notebook_dir / "3_Personal").glob("*.md"))
    assert "bees" not in pages

    # The desktop had undone that forget before the dream, but its record arrives only now.
    undo = {"content": "user keeps bees on the roof", "undone": True, "ts": "2099-01-01T00:00:00+00:00"}
    (laptop.layout.state_dir / "tombstones@desktop.jsonl").write_text(json.dumps(undo) + "\n")
    await laptop.indexer.sync()
    hits = (await laptop.searching.search("bees on the roof", limit=5)).hits
    assert hits and hits[0].text == "User keeps bees on the roof"
    assert any(f["text"] == "User keeps bees on the roof" for f in laptop.dreaming.runner().not_consolidated())


async def test_status_and_doctor_name_the_file_and_line_of_another_devices_late_fact(home, clock, today,
                                                                                       monkeypatch):
    from dream_support import days_before, make_manager, write_log

    from suzent_desktop.core.doctor import run_doctor

    monkeypatch.setenv("SUZENT_DEVICE", "laptop")
    laptop = make_manager(home, clock)
    day = days_before(today, 1)[0]
    write_log(laptop, day, ["User works at Contoso", "User likes green tea", "User swims on Tuesdays"])
    assert (await laptop.dreaming.runner().run_once(force=True)).outcome == "productive"
    late = laptop.layout.archive_dir / f"{day}@desktop.md"
    late.write_text(f"# Daily Log - {day}\n\n## 18:00 — desk0001\n\n- [work] User met Jonas\n"
                    "- [hobby] User restores old radios\n", encoding="utf-8")

    listed = {f["text"]: f for f in (await laptop.status())["not_consolidated"]}
    assert (listed["User restores old radios"]["path"], listed["User restores old radios"]["line"]) == (str(late), 6)
    found = [p for p in run_doctor(home, clock=clock, check_index=False) if "restores old radios" in p.message]
    assert [(p.path, p.line) for p in found] == [(str(late), 6)]
    assert late.read_text(encoding="utf-8").splitlines()[5] == "- [hobby] User restores old radios"


async def test_doctor_names_the_file_and_line_of_another_devices_dropped_fact(home, clock, today, monkeypatch):
    from dream_support import days_before, make_manager, write_log

    from suzent_desktop.core.doctor import run_doctor
    from suzent_desktop.core.engines.dream.model import Batch, EngineReport
    from suzent_desktop.core.engines.dream.tools import Accounting

    monkeypatch.setenv("SUZENT_DEVICE", "laptop")
    laptop = make_manager(home, clock)
    day = days_before(today, 1)[0]
    write_log(laptop, day, ["User works at Contoso", "User likes green tea"])
    theirs = laptop.layout.archive_dir / f"{day}@desktop.md"
    theirs.write_text(f"# Daily Log - {day}\n\n## 18:00 — desk0001\n\n- [chat] User said hello to the cat\n",
                      encoding="utf-8")

    async def dropping(batch: Batch, tools) -> EngineReport:
        kept = "".join(f"- {f.fact.content} ({f.date})\n" for f in batch.facts if "cat" not in f.fact.content)
        tools.write("3_Personal/Facts.md", "# Facts\n\n" + kept)
        tools.account(Accounting("User said hello to the cat", "dropped", reason="small talk with the cat"))
        return EngineReport(summary="dropped one")

    assert (await laptop.dreaming.runner(engine=dropping).run_once(force=True)).outcome == "productive"
    found = [p for p in run_doctor(home, clock=clock, check_index=False) if "hello to the cat" in p.message]
    assert [(p.path, p.line) for p in found] == [(str(theirs), 5)]
