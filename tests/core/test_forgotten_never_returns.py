"""Forgotten text cannot come back: not through a model's write, a promotion, the dream's prompt,
an agent's remember, nor written into a longer bullet."""

from __future__ import annotations

import json

import pytest
from dream_support import days_before, make_manager, notebook_text, write_log
from test_dream_agent import MODEL, ScriptedLLM, tool_reply

from suzent_desktop.core.engines.dream.tools import VaultTools
from suzent_desktop.core.engines.memory_md.promotion import promote
from suzent_desktop.core.files.records.tombstones import ForgottenTextError
from suzent_desktop.core.vault.forgotten import Forgotten

PIN = "User's PIN is 4417 for the bank"


def test_forgotten_text_is_found_inside_a_longer_text_by_the_forget_normalisation():
    stones = Forgotten({"user's pin is 4417 for the bank", "tea"})
    assert stones.stone_in("- **User's  PIN** is 4417 for the bank, and more (2026-07-01)") == (
        "user's pin is 4417 for the bank")
    assert stones.stone_in("User's PIN is 44170 for the bank") is None  # a word boundary, not a prefix
    assert stones.stone_in("the teapot") is None  # a short tombstone matches only a whole line
    assert stones.stone_in("- tea") == "tea"
    kept, taken = stones.take_out(f"# A\n\n- {PIN}, said twice (2026-07-01)\n- User likes oolong\n")
    assert taken == 1 and "4417" not in kept and "- User likes oolong" in kept


def test_a_model_write_never_lands_forgotten_text_and_is_counted(tmp_path):
    (tmp_path / "3_Personal").mkdir()
    tools = VaultTools(tmp_path, forgotten=frozenset({"user's pin is 4417 for the bank"}))
    tools.write("3_Personal/Bank.md", f"# Bank\n\n- Note: {PIN} (2026-07-01)\n- User banks online\n")
    text = (tmp_path / "3_Personal" / "Bank.md").read_text(encoding="utf-8")
    assert "4417" not in text and "User banks online" in text
    assert tools.forgotten_taken_out == 1


async def test_a_model_reading_a_page_never_sees_forgotten_text(tmp_path):
    (tmp_path / "3_Personal").mkdir()
    (tmp_path / "3_Personal" / "Bank.md").write_text(f"# Bank\n\n- {PIN}\n- User banks online\n", encoding="utf-8")
    tools = VaultTools(tmp_path, forgotten=frozenset({"user's pin is 4417 for the bank"}))
    reply = await tools.dispatch("read", {"path": "3_Personal/Bank.md"})
    assert "4417" not in reply and "banks online" in reply
    assert "4417" not in await tools.dispatch("search_notebook", {"query": "PIN bank 4417"})


async def test_the_dream_prompt_never_holds_forgotten_text(home, clock, today):
    manager = make_manager(home, clock, memory_consolidation_model=MODEL)
    await manager.forgetting.forget(PIN, force=True)
    (manager.layout.notebook_dir / "3_Personal" / "Bank.md").write_text(f"# Bank\n\n- {PIN}\n", encoding="utf-8")
    day = days_before(today, 1)[0]
    write_log(manager, day, [f"{PIN}, the user repeated", "User likes oolong"])
    script = ScriptedLLM(["done"])
    await manager.dreaming.runner(llm=script).run_once(force=True)
    prompt = json.dumps(script.seen[0])
    assert "4417" not in prompt and "oolong" in prompt


async def test_a_hostile_model_cannot_bring_forgotten_text_back_into_pages_or_memory(home, clock, today):
    manager = make_manager(home, clock, memory_consolidation_model=MODEL)
    write_log(manager, days_before(today, 2)[0], [PIN])
    await manager.forgetting.forget(PIN)
    write_log(manager, days_before(today, 1)[0], ["User likes oolong"])
    script = ScriptedLLM([
        tool_reply(("read", {"path": ".state/tombstones.jsonl"}), ("read", {"path": ".trash/Old.md"})),
        tool_reply(("write", {"path": "3_Personal/Prefs.md",
                              "content": f"# Prefs\n\n- User likes oolong; also {PIN} (2026-07-19)\n- User likes oolong\n"})),
        "done",
    ])
    result = await manager.dreaming.runner(llm=script).run_once(force=True)
    reads = [m["content"] for m in script.seen[1] if m["role"] == "tool"]
    assert all(r.startswith("error:") for r in reads)
    assert "4417" not in notebook_text(manager)
    assert "4417" not in manager.layout.memory_md.read_text(encoding="utf-8")
    assert result.outcome == "productive"


async def test_promotion_skips_a_bullet_holding_forgotten_text(home, clock):
    manager = make_manager(home, clock)
    await manager.forgetting.forget(PIN, force=True)
    (manager.layout.notebook_dir / "3_Personal" / "Bank.md").write_text(
        f"# Bank\n\n- Remember: {PIN} (2026-07-02)\n- User is allergic to peanuts (2026-07-02)\n", encoding="utf-8")
    await promote(manager.home)
    text = manager.layout.memory_md.read_text(encoding="utf-8")
    assert "peanuts" in text and "4417" not in text


async def test_remember_refuses_forgotten_text(home, clock):
    manager = make_manager(home, clock)
    await manager.forgetting.forget(PIN, force=True)
    with pytest.raises(ForgottenTextError, match="forgotten"):
        await manager.capturing.remember(f"Actually {PIN}")
    assert not any("4417" in p.read_text(encoding="utf-8") for p in manager.layout.archive_dir.glob("*.md"))



async def test_a_captured_turn_writes_no_fact_holding_forgotten_text(home, clock):
    manager = make_manager(home, clock)
    facts, _ = await manager.process_conversation_turn_for_memories("I love green tea every morning.", "", "s1")
    assert facts
    await manager.forgetting.forget(facts[0].content)
    again, changes = await manager.process_conversation_turn_for_memories(
        "I love green tea every morning. I work at Contoso.", "", "s2")
    assert all("green tea" not in f.content for f in again)
    assert any("forget" in e for e in changes.errors)
