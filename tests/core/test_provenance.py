"""Provenance: a page bullet or MEMORY.md line leads to its log facts and the turns they came from."""

from __future__ import annotations

import datetime as dt
import os
import shutil

import pytest
from dream_support import make_manager, page

from suzent_desktop.core.engines.provenance import (
    Provenance,
    ProvenanceError,
    card_for,
    line_keys,
    load_record,
)


@pytest.fixture
def manager(home, clock):
    return make_manager(home, clock)


async def say(manager, text: str, day: int, hour: int = 9) -> str:
    facts, _ = await manager.process_conversation_turn_for_memories(
        text, "Noted.", "sess-1", dt.datetime(2026, 7, day, hour, 0))
    assert facts, text
    return facts[0].turn


def line_of(manager, rel: str, words: str) -> tuple[int, str]:
    for number, line in enumerate(page(manager, rel).splitlines(), start=1):
        if words in line:
            return number, line
    raise AssertionError(f"{words!r} not on {rel}")


def test_line_identity_ignores_dates_strike_through_and_bookkeeping():
    assert line_keys("- User works at Contoso (2026-07-01)") == line_keys("- ~~User works at Contoso~~ (2026-07-01, until 2026-07-05)")
    assert line_keys("- User works at Contoso (recalled 3x)") == line_keys("User works at Contoso.")


async def test_a_dreamed_bullet_leads_to_its_turn_with_the_sentence_and_context(manager):
    await say(manager, "Morning! I have a greyhound named Biscuit. He is three.", 10, 8)
    turn = await say(manager, "By the way, I work at Contoso as a data engineer.", 10, 9)
    await say(manager, "I also like oat-milk flat whites.", 10, 10)
    await manager.dreaming.runner().run_once(force=True)
    assert load_record(manager.layout).sources, "the dream records which facts each line stands for"
    number, line = line_of(manager, "3_Personal/Work.md", "Contoso")
    card = Provenance(manager.home).card_at("3_Personal/Work.md", number)
    assert card.recorded and card.reaches_turn and card.typed_by_hand is None
    [source] = card.sources
    assert source.turn.id == turn and source.turn.speaker == "user"
    assert source.turn.sentence == "By the way, I work at Contoso as a data engineer."
    assert "greyhound" in source.turn.before.user and "oat-milk" in source.turn.after.user
    assert source.turn.ts.startswith("2026-07-10T09:00")


async def test_merge_supersede_rename_and_forget_undo_keep_every_source(manager):
    first = await say(manager, "I work at Contoso.", 10)
    await manager.dreaming.runner().run_once(force=True)
    again = await say(manager, "I work at Contoso!", 12)
    await manager.dreaming.runner().run_once(force=True)
    number, line = line_of(manager, "3_Personal/Work.md", "Contoso")
    card = Provenance(manager.home).card_at("3_Personal/Work.md", number)
    assert {s.turn.id for s in card.sources} == {first, again}, "a merged bullet keeps every source"
    newer = await say(manager, "I now work at Microsoft.", 14)
    await manager.dreaming.runner().run_once(force=True)
    number, line = line_of(manager, "3_Personal/Work.md", "~~")
    card = Provenance(manager.home).card_at("3_Personal/Work.md", number)
    assert {s.turn.id for s in card.sources} == {first, again}, "History keeps the sources"
    notebook = manager.layout.notebook_dir
    os.makedirs(notebook / "2_Wiki", exist_ok=True)
    shutil.move(notebook / "3_Personal/Work.md", notebook / "2_Wiki/Career.md")
    number, _ = line_of(manager, "2_Wiki/Career.md", "Microsoft")
    card = Provenance(manager.home).card_at("2_Wiki/Career.md", number)
    assert [s.turn.id for s in card.sources] == [newer]
    await manager.forgetting.forget("User now works at Microsoft")
    with pytest.raises(ProvenanceError):  # forgotten words never show
        Provenance(manager.home).find("User now works at Microsoft")
    await manager.forgetting.undo("User now works at Microsoft")
    card = card_for(manager.home, "User now works at Microsoft")
    assert [s.turn.id for s in card.sources] == [newer]


async def test_typed_by_hand_lines_say_so(manager):
    await manager.capturing.remember("User's locker code is 4711")
    card = Provenance(manager.home).find("User's locker code is 4711")
    assert card.kind == "log" and card.sources[0].typed_by_hand == "remember" and not card.reaches_turn
    note = manager.layout.notebook_dir / "0_Inbox" / "Mine.md"
    note.parent.mkdir(parents=True, exist_ok=True)
    note.write_text("# Mine\n\n- I wrote this line myself\n", encoding="utf-8")
    card = card_for(manager.home, "0_Inbox/Mine.md:3")
    assert card.typed_by_hand == "editor" and card.sources == []


async def test_a_memory_md_line_and_other_pages_holding_the_fact(manager):
    turn = await say(manager, "I work at Contoso as a data engineer.", 10)
    await manager.dreaming.runner().run_once(force=True)
    await manager.promoting.run()
    memory = manager.layout.memory_md.read_text(encoding="utf-8").splitlines()
    number = next(i for i, line in enumerate(memory, start=1) if "Contoso" in line)
    other = manager.layout.notebook_dir / "2_Wiki" / "Jobs.md"
    other.parent.mkdir(parents=True, exist_ok=True)
    other.write_text("# Jobs\n\n- User works at Contoso as a data engineer (2026-07-10)\n", encoding="utf-8")
    card = card_for(manager.home, f"{manager.layout.memory_md}:{number}")
    assert card.kind == "memory" and [s.turn.id for s in card.sources] == [turn]
    assert "2_Wiki/Jobs.md" in {p.page for p in card.other_pages}
    assert "3_Personal/Work.md" in {p.page for p in card.other_pages}


async def test_each_device_appends_its_own_record_and_reads_every_one(manager):
    import dataclasses

    turn = await say(manager, "I work at Contoso as a data engineer.", 10)
    await manager.dreaming.runner().run_once(force=True)
    plain = manager.layout.state_dir / "provenance.jsonl"
    assert plain.is_file()
    other = dataclasses.replace(manager.layout, device_suffix="@laptop-1a2b")
    from suzent_desktop.core.engines.provenance import record_alias

    record_alias(other, "User works at Contoso as a senior data engineer", "User works at Contoso as a data engineer")
    assert (manager.layout.state_dir / "provenance@laptop-1a2b.jsonl").is_file()
    number, _line = line_of(manager, "3_Personal/Work.md", "Contoso")
    work = manager.layout.notebook_dir / "3_Personal/Work.md"
    work.write_text(work.read_text().replace("as a data engineer", "as a senior data engineer"))
    card = Provenance(manager.home).card_at("3_Personal/Work.md", number)
    assert card.recorded and [s.turn.id for s in card.sources] == [turn]


async def test_a_forgotten_turn_never_shows_as_context(manager):
    facts, _ = await manager.process_conversation_turn_for_memories(
        "My door code is 4417.", "Noted.", "sess-1", dt.datetime(2026, 7, 10, 8, 0))
    await say(manager, "I work at Contoso as a data engineer.", 10, 9)
    await manager.forgetting.forget(facts[0].content)  # its turn is forgotten with it
    await manager.dreaming.runner().run_once(force=True)
    card = Provenance(manager.home).find("User works at Contoso as a data engineer")
    assert card.sources[0].turn.before is None
    assert "4417" not in str(card.as_json())
