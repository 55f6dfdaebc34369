"""Review: what the dream learned since the last look, unsure first; MEMORY.md waits for approval."""

from __future__ import annotations

import datetime as dt

import pytest
from dream_support import make_manager, page

from suzent_desktop.core.engines.memory_md import memory_approval
from suzent_desktop.core.files.records.log_grammar import Fact


async def say(manager, text: str, day: int, hour: int = 9) -> None:
    facts, _ = await manager.process_conversation_turn_for_memories(
        text, "Noted.", "sess-1", dt.datetime(2026, 7, day, hour, 0))
    assert facts, text


@pytest.fixture
def manager(home, clock):
    return make_manager(home, clock)


async def test_added_merged_superseded_and_keep(manager):
    await say(manager, "I work at Contoso.", 10)
    await say(manager, "I prefer dark mode in every editor.", 10, 10)
    await manager.dreaming.runner().run_once(force=True)
    listed = manager.reviewing.items()
    assert {(i.kind, i.text) for i in listed} >= {("added", "User works at Contoso"),
                                                  ("added", "User prefers dark mode in every editor")}
    manager.reviewing.keep([i.id for i in listed])
    assert manager.reviewing.items() == []
    await say(manager, "I work at Contoso!", 12)
    await manager.dreaming.runner().run_once(force=True)
    [merged] = [i for i in manager.reviewing.items() if i.kind != "memory_gained"]
    assert (merged.kind, merged.text, merged.sources, merged.page) == (
        "merged", "User works at Contoso", 2, "3_Personal/Work.md")
    await say(manager, "I now work at Microsoft.", 14)
    await manager.dreaming.runner().run_once(force=True)
    kinds = {(i.kind, i.text, i.date) for i in manager.reviewing.items()}
    assert ("superseded", "User works at Contoso", "2026-07-14") in kinds
    assert ("added", "User now works at Microsoft", "2026-07-14") in kinds


async def test_unsure_items_come_first(manager):
    manager.archive.append_turn([Fact("User likes jazz", "preference"),
                                 Fact("User maybe likes opera", "preference", importance=0.1)],
                                session_id="abc12345", when=dt.datetime(2026, 7, 10, 9))
    await manager.dreaming.runner().run_once(force=True)
    listed = manager.reviewing.items()
    assert listed[0].text == "User maybe likes opera" and "judge" in listed[0].unsure
    assert not listed[-1].unsure


async def test_two_current_values_on_one_subject_are_unsure(manager):
    await say(manager, "I live in Seattle.", 10)
    await manager.dreaming.runner().run_once(force=True)
    work = manager.layout.notebook_dir / "3_Personal" / "Places.md"
    rel = next(p for p in manager.layout.notebook_dir.rglob("*.md") if "Seattle" in p.read_text())
    text = rel.read_text().replace("- User lives in Seattle", "- User lives in Portland (2026-07-11)\n- User lives in Seattle")
    rel.write_text(text)
    [item] = [i for i in manager.reviewing.items() if i.kind == "added"]
    assert item.unsure.startswith("two current values on one subject") and work is not None


async def test_edit_keeps_sources_and_forget_tombstones(manager):
    await say(manager, "I work at Contoso.", 10)
    await say(manager, "I prefer dark mode in every editor.", 10, 10)
    await manager.dreaming.runner().run_once(force=True)
    item = next(i for i in manager.reviewing.items() if "Contoso" in i.text and i.kind == "added")
    changes = manager.reviewing.edit(item, "User works at Contoso (Redmond office)")
    [path] = changes.changed
    assert changes.refresh == {path} and changes.message == "Edited Work.md"
    assert "- User works at Contoso (Redmond office) (2026-07-10)" in path.read_text()
    assert not any("Contoso" in i.text and i.kind == "added" for i in manager.reviewing.items())
    assert (await manager.reviewing.why("User works at Contoso (Redmond office)")).reaches_turn
    dark = next(i for i in manager.reviewing.items() if "dark mode" in i.text and i.kind == "added")
    changes = await manager.reviewing.forget_item(dark)
    assert changes.tombstones
    assert manager.tombstones.is_tombstoned("User prefers dark mode in every editor")
    assert "dark mode" not in page(manager, "3_Personal/Preferences.md")


async def test_memory_md_waits_for_approval(home, clock):
    manager = make_manager(home, clock, memory_md_needs_approval=True)
    before = manager.layout.memory_md.read_text()
    await say(manager, "I work at Contoso as a data engineer.", 10)
    await manager.dreaming.runner().run_once(force=True)
    await manager.promoting.run()
    assert manager.layout.memory_md.read_text() == before, "the agent still reads the approved file"
    proposal = memory_approval.proposal(manager.layout)
    assert proposal is not None and "Contoso" in proposal
    gained = [i for i in manager.reviewing.items() if i.kind == "memory_gained"]
    assert [i.text for i in gained] == ["User works at Contoso as a data engineer"]
    accepted = manager.reviewing.accept_memory()
    assert accepted is not None and accepted.memory_md and accepted.changed == {manager.layout.memory_md}
    assert "Contoso" in manager.layout.memory_md.read_text()
    assert memory_approval.proposal(manager.layout) is None
    assert manager.reviewing.accept_memory() is None, "none waits now"
    assert not [i for i in manager.reviewing.items() if i.kind.startswith("memory")]


async def test_mark_all_reviewed_and_not_consolidated_items(manager):
    await say(manager, "I work at Contoso.", 10)
    await manager.dreaming.runner().run_once(force=True)
    assert manager.reviewing.mark_all() >= 1
    assert manager.reviewing.items() == []
    work = manager.layout.notebook_dir / "3_Personal" / "Work.md"
    work.write_text("# Work\n")  # a bullet deleted by hand: its fact is not consolidated again
    [item] = manager.reviewing.items()
    assert (item.kind, item.text) == ("not_consolidated", "User works at Contoso")


async def test_facts_a_dream_dropped_come_first_with_its_reason(manager):
    from suzent_desktop.core.index import dropped

    await say(manager, "I work at Contoso.", 10)
    await manager.dreaming.runner().run_once(force=True)
    dropped.record(manager.layout, [dropped.DroppedFact("2026-07-10", "User said hello", 5, "small talk", "2026-07-11")])
    first = manager.reviewing.items()[0]
    assert (first.kind, first.text, first.unsure) == ("dropped", "User said hello", "a dream dropped it: small talk")
    manager.reviewing.keep([first.id])
    assert "dropped" not in {i.kind for i in manager.reviewing.items()}
