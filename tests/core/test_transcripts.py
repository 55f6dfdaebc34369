"""Verbatim transcripts: kept whole, once, searchable, linked from facts, and reached by forget."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from process_support import run_in_processes

from suzent_desktop.core.doctor import run_doctor
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.records.log_grammar import parse_log
from suzent_desktop.core.files.records.transcripts import TranscriptError, Transcripts, turn_key
from suzent_desktop.core.index.ranking.filters import Filters
from suzent_desktop.core.manager import MemoryManager
from suzent_desktop.settings import load_settings


@pytest.fixture
def manager(home: Path, clock) -> MemoryManager:
    return MemoryManager.open(home, clock=clock)


def at(hour: int, minute: int = 0, day: int = 20) -> dt.datetime:
    return dt.datetime(2026, 7, day, hour, minute)


async def texts(manager: MemoryManager, query: str, source: str | None = None) -> list[str]:
    response = await manager.searching.search(query, limit=20, filters=Filters(source=source), record_recall=False)
    return [h.text for h in response.hits]


# -- keeping turns -----------------------------------------------------------------------------
async def test_capture_keeps_the_turn_verbatim_and_facts_point_at_it(manager: MemoryManager):
    user = "I love my greyhound named Biscuit.\n\n  It has `code`, *stars* and — dashes."
    facts, _ = await manager.process_conversation_turn_for_memories(user, "Lovely!", "sess-1", at(9, 30))
    kept = manager.transcripts.read("2026-07-20")
    assert kept.bad_lines == []
    [turn] = kept.turns
    assert (turn.user, turn.assistant, turn.session) == (user, "Lovely!", "sess-1")
    assert turn.ts.startswith("2026-07-20T09:30:00")
    assert facts and all(f.turn == turn.id for f in facts)
    parsed = parse_log(manager.archive.read_text("2026-07-20"))
    assert {line.fact.turn for line in parsed.facts} == {turn.id}


async def test_the_same_turn_captured_twice_is_kept_once(manager: MemoryManager):
    for _ in range(2):
        await manager.process_conversation_turn_for_memories("I play chess.", "Nice.", "s", at(10))
    await manager.process_conversation_turn_for_memories("I play chess.", "Nice.", "s", at(10, 1))
    assert len(manager.transcripts.read("2026-07-20").turns) == 2


async def test_a_retried_capture_writes_its_facts_once(manager: MemoryManager):
    first, _ = await manager.process_conversation_turn_for_memories("I play chess on Sundays.", "Nice.", "s", at(10))
    again, changes = await manager.process_conversation_turn_for_memories("I play chess on Sundays.", "Nice.", "s",
                                                                          at(10))
    log = manager.archive.path_for("2026-07-20")
    written = [f for f in parse_log(log.read_text(encoding="utf-8")).facts]
    assert first and [f.fact.content for f in written] == [f.content for f in first]
    assert again == first and "captured before" in changes.message
    assert changes.log_lines == [f.line for f in written] and changes.rows_added == 0


def test_an_append_of_a_turn_the_log_holds_writes_nothing(manager: MemoryManager):
    from suzent_desktop.core.files.records.log_grammar import Fact

    facts = [Fact("User plays chess", turn="abc123"), Fact("User likes tea", turn="abc123")]
    path, lines = manager.archive.append_turn(facts, session_id="s", when=at(10), turn="abc123")
    before = path.read_bytes()
    retry = manager.archive.append_turn(facts, session_id="s", when=at(10, 5), turn="abc123")  # a racing retry
    assert retry == (path, lines) and path.read_bytes() == before
    # Without a turn to check (a fact given back by an undo), an append is an append.
    assert manager.archive.append_turn(facts[:1], session_id="restored", when=at(11))[1] == [lines[-1] + 4]


def _capture_many(home: str, worker: int, count: int) -> None:
    layout = Layout.from_settings(Path(home), load_settings(Path(home)))
    transcripts = Transcripts(layout)
    for i in range(count):
        body = f"worker {worker} turn {i} " + "x" * (5000 * (i % 3))  # some turns larger than a pipe buffer
        transcripts.append(body, "ok", session_id=f"w{worker}", when=dt.datetime(2026, 7, 20, 12, 0, i))


def test_concurrent_captures_from_several_processes_each_land_once_and_whole(home: Path, layout: Layout):
    run_in_processes(_capture_many, [(str(home), w, 20) for w in range(4)])
    kept = Transcripts(layout).read("2026-07-20")
    assert kept.bad_lines == []
    seen = sorted(t.user.split(" x")[0].strip() for t in kept.turns)
    assert seen == sorted(f"worker {w} turn {i}" for w in range(4) for i in range(20))


async def test_a_line_cut_short_by_a_crash_is_kept_reported_and_not_joined(manager: MemoryManager, home: Path):
    path = manager.layout.transcript("2026-07-20")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"id": "aaa", "ts": "2026-07-20T08:00:00", "sess', encoding="utf-8")
    await manager.process_conversation_turn_for_memories("I swim on Tuesdays.", "", "s", at(11))
    raw = path.read_text(encoding="utf-8")
    assert raw.startswith('{"id": "aaa", "ts": "2026-07-20T08:00:00", "sess\n')
    kept = manager.transcripts.read("2026-07-20")
    assert [t.user for t in kept.turns] == ["I swim on Tuesdays."] and [n for n, _ in kept.bad_lines] == [1]
    problems = [p for p in run_doctor(home, check_index=False) if p.path == str(path)]
    assert problems and problems[0].line == 1 and "not indexed" in problems[0].message


async def test_turning_transcripts_off_keeps_no_raw_text(home: Path, clock):
    (home / "config.toml").write_text("memory_keep_transcripts = false\n", encoding="utf-8")
    manager = MemoryManager.open(home, clock=clock)
    facts, _ = await manager.process_conversation_turn_for_memories("I live in Porto.", "Nice", "s", at(9))
    assert facts and all(f.turn is None for f in facts)
    assert manager.transcripts.dates() == [] and manager.last_turn is None


async def test_status_reports_transcript_counts(manager: MemoryManager):
    await manager.process_conversation_turn_for_memories("I like tea.", "ok", "s", at(9))
    await manager.process_conversation_turn_for_memories("I like jazz.", "ok", "s", at(9, day=19))
    status = await manager.status()
    assert status["transcripts"] == {"days": 2, "turns": 2, "bad_lines": 0}
    assert status["index"]["by_source"]["transcript"] == 2


# -- bad input ---------------------------------------------------------------------------------
async def test_empty_sides(manager: MemoryManager):
    with pytest.raises(TranscriptError, match="both the user and the assistant text are empty"):
        await manager.process_conversation_turn_for_memories("  ", "\n", "s", at(9))
    assert manager.transcripts.dates() == []
    facts, _ = await manager.process_conversation_turn_for_memories("", "So you live in Lisbon now.", "s", at(9))
    assert facts == []  # the assistant's words are not the user's
    assert [t.assistant for t in manager.transcripts.read("2026-07-20").turns] == ["So you live in Lisbon now."]


async def test_a_one_megabyte_turn_is_kept_whole_and_indexed_in_pieces(manager: MemoryManager):
    sentence = "The quick brown fox jumps over the lazy dog near the riverbank. "
    user = "I keep a diary. " + sentence * (1_000_000 // len(sentence)) + "Final word: pomegranate."
    _, changes = await manager.process_conversation_turn_for_memories(user, "ok", "big", at(9))
    [turn] = manager.transcripts.read("2026-07-20").turns
    assert turn.user == user
    assert changes.rows_added > 500
    assert any("pomegranate" in t for t in await texts(manager, "pomegranate", "transcript"))


async def test_text_that_is_not_valid_unicode_is_kept_as_escapes(manager: MemoryManager):
    odd = "caf\udce9 ok"  # a lone surrogate: what undecodable bytes become with surrogateescape
    await manager.process_conversation_turn_for_memories(odd, "fine", "s", at(9))
    [turn] = manager.transcripts.read("2026-07-20").turns
    assert turn.user == odd
    assert "\\udce9" in manager.layout.transcript("2026-07-20").read_text(encoding="utf-8")


async def test_missing_and_future_timestamps_are_filed_now_and_noted(manager: MemoryManager):
    await manager.process_conversation_turn_for_memories("I hike.", "ok", "s", None)
    await manager.process_conversation_turn_for_memories("I bake.", "ok", "s", dt.datetime(2030, 1, 1, 9, 0))
    lines = [json.loads(x) for x in manager.layout.transcript("2026-07-20").read_text(encoding="utf-8").splitlines()]
    assert lines[0]["ts_note"] == "missing"
    assert lines[1]["ts_note"] == "future" and lines[1]["claimed_ts"] == "2030-01-01T09:00:00"
    assert all(x["ts"].startswith("2026-07-20") for x in lines)


@pytest.mark.parametrize("claimed", [dt.datetime(1, 1, 1, 9, 0), dt.datetime(1989, 12, 31, 23, 0)])
async def test_a_timestamp_before_1990_is_filed_now_and_noted(manager: MemoryManager, claimed):
    await manager.process_conversation_turn_for_memories("I love green tea every morning.", "ok", "s", claimed)
    assert not (manager.layout.transcripts_dir / f"{claimed.date().isoformat()}.jsonl").exists()
    [line] = [json.loads(x) for x in manager.layout.transcript("2026-07-20").read_text(encoding="utf-8").splitlines()]
    assert line["ts_note"] == "past" and line["claimed_ts"] == claimed.isoformat()
    assert manager.archive.dates() == ["2026-07-20"]


async def test_a_session_id_is_cleaned_like_facts(manager: MemoryManager):
    await manager.process_conversation_turn_for_memories("I love green tea every morning.", "ok", "ab\x00c\nd\re", at(9))
    log = manager.archive.path_for("2026-07-20").read_text(encoding="utf-8")
    assert "\x00" not in log and "## 09:00 — abc-d-e\n" in log
    assert manager.archive.read("2026-07-20").facts  # the block still parses
    [turn] = manager.transcripts.read("2026-07-20").turns
    assert "\x00" not in turn.session and "\n" not in turn.session


# -- search --------------------------------------------------------------------------------------
async def test_transcripts_are_searchable_incrementally_and_by_source(manager: MemoryManager):
    facts, first = await manager.process_conversation_turn_for_memories(
        "Honestly the marathon in Kyoto wrecked my calves", "Rest up!", "s", at(9)
    )
    _, second = await manager.process_conversation_turn_for_memories("Off to bed", "Good night", "s", at(22))
    assert first.rows_added == 1 + len(facts) and second.rows_added == 1  # a new turn embeds only its own row
    hits = await texts(manager, "Kyoto marathon", "transcript")
    assert hits and hits[0] == "User: Honestly the marathon in Kyoto wrecked my calves\nAssistant: Rest up!"
    response = await manager.searching.search("Kyoto marathon", record_recall=False)
    top = next(h for h in response.hits if h.source_type == "transcript")
    assert top.line == 1 and top.date == "2026-07-20" and top.path.endswith("2026-07-20.jsonl")


async def test_transcripts_of_consolidated_days_stay_searchable(manager: MemoryManager, today: dt.date):
    await manager.process_conversation_turn_for_memories(
        "We got a kayak from the flea market", "Fun", "s", at(9, day=10)
    )
    manager.notebook.append_ingest(today, "2026-07-15")
    await manager.indexing.reindex(full=True)
    assert await texts(manager, "kayak flea market", "transcript")


# -- forget ---------------------------------------------------------------------------------------
async def test_forgetting_a_fact_takes_its_turn_out_and_undo_brings_both_back(manager: MemoryManager):
    facts, _ = await manager.process_conversation_turn_for_memories(
        "I live in Porto with my partner Ana.", "Lovely city.", "s", at(9)
    )
    fact = facts[0].content
    assert await texts(manager, "Porto partner Ana", "transcript")
    await manager.forgetting.forget(fact)
    assert fact not in await texts(manager, "Porto Ana")
    assert not await texts(manager, "Porto partner Ana", "transcript")
    await manager.indexing.reindex(full=True)
    assert not [t for t in await texts(manager, "Porto partner Ana") if "Porto" in t]
    turn = manager.last_turn
    assert turn is not None and turn_key(turn.id) in manager.tombstones.contents()
    assert manager.transcripts.read("2026-07-20").turns[0].user.startswith("I live in Porto")  # the file keeps it

    await manager.forgetting.undo(fact)
    assert turn_key(turn.id) not in manager.tombstones.contents()
    back = await texts(manager, "Porto partner Ana")
    assert fact in back and any(t.startswith("User: I live in Porto") for t in back)


async def test_forgetting_a_transcript_hit_tombstones_its_whole_turn_and_the_facts_from_it(manager: MemoryManager):
    facts, _ = await manager.process_conversation_turn_for_memories("I lost my wallet at the zoo", "Oh no", "s", at(9))
    assert facts
    [hit] = await texts(manager, "wallet zoo", "transcript")
    changes = await manager.forgetting.forget(hit, source_type="transcript")
    assert changes.rows_removed >= 1
    await manager.indexing.reindex(full=True)
    assert not [t for t in await texts(manager, "wallet zoo") if "wallet" in t.lower()]
    await manager.forgetting.undo(hit)
    back = await texts(manager, "wallet zoo")
    assert any(t.startswith("User: I lost my wallet") for t in back) and facts[0].content in back



async def test_forgetting_a_page_fact_keeps_the_other_facts_of_its_turn_and_undo_restores_the_turn(
    manager: MemoryManager,
):
    facts, _ = await manager.process_conversation_turn_for_memories(
        "I adopted a beagle called Biscuit. My brother Tom works as a pilot for a cargo airline.",
        "Congratulations on Biscuit!", "s", at(9, day=10),
    )
    assert len(facts) >= 2
    page = manager.layout.notebook_dir / "3_Personal" / "Pets.md"  # as a dream files the fact
    page.write_text(
        "# Pets\n\n- User adopted a beagle called Biscuit (2026-07-10)\n- User feeds the goldfish daily (2026-07-01)\n",
        encoding="utf-8",
    )
    await manager.indexing.reindex()
    response = await manager.searching.search("beagle called Biscuit", limit=10, record_recall=False)
    hit = next(h for h in response.hits if "Biscuit" in h.text)
    assert hit.source_type != "transcript" and any(p.source_type == "transcript" for p in hit.places)
    assert not any(u.startswith("User: I adopted") for u in manager.forgetting.hit_units(hit))  # evidence, not a unit

    await manager.forgetting.forget(hit.text, hit=hit)
    assert not [t for t in await texts(manager, "beagle Biscuit") if "Biscuit" in t]
    assert any("pilot" in t for t in await texts(manager, "brother Tom pilot cargo airline"))  # same turn, kept

    await manager.forgetting.undo(hit.text)
    assert any("Biscuit" in t for t in await texts(manager, "beagle called Biscuit"))
    assert await texts(manager, "adopted a beagle called Biscuit", "transcript")
