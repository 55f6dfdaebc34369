"""Loops stop early and outcomes are honest (core/engines/dream/guards/loop_guard.py, core/engines/dream/runs/outcome.py)."""

from __future__ import annotations

from dream_support import days_before, make_manager, page, write_log
from test_dream_agent import MODEL, ScriptedLLM, tool_reply

from suzent_desktop.core.engines.dream.model import Batch, EngineReport
from suzent_desktop.core.engines.dream.tools import VaultTools


def _setup(home, clock, today, facts):
    manager = make_manager(home, clock, memory_consolidation_model=MODEL)
    d1 = days_before(today, 1)[0]
    write_log(manager, d1, facts)
    return manager, d1


async def test_the_same_successful_write_twice_ends_the_run_and_says_so(home, clock, today):
    manager, d1 = _setup(home, clock, today, ["User likes green tea"])
    write = ("write", {"path": "3_Personal/Tea.md", "content": f"# Tea\n\n- User likes green tea ({d1})\n"})
    script = ScriptedLLM([tool_reply(write)] * 40)
    result = await manager.dreaming.runner(llm=script).run_once()
    assert len(script.seen) == 2  # the repeat is caught before it runs, on the second step
    assert result.outcome == "productive" and "repeated a successful call: write" in result.reason
    assert "User likes green tea" in page(manager, "3_Personal/Tea.md")
    assert result.summary.startswith("(no closing summary from the model)")


async def test_a_repeating_model_that_covered_nothing_is_a_failed_attempt(home, clock, today):
    manager, _d1 = _setup(home, clock, today, ["User likes green tea"])
    write = ("write", {"path": "2_Wiki/Junk.md", "content": "# Junk\n\nlorem ipsum\n"})
    script = ScriptedLLM([tool_reply(write)] * 40)
    result = await manager.dreaming.runner(llm=script).run_once()
    assert len(script.seen) == 2
    assert result.outcome == "no_change" and result.failed_attempt
    assert "repeated a successful call: write" in result.reason and "User likes green tea" in result.reason
    assert "attempt 1 of" in result.reason
    assert not (manager.layout.notebook_dir / "2_Wiki" / "Junk.md").exists() and manager.dreaming.watermark() is None


async def test_three_replies_that_change_nothing_end_the_run(home, clock, today):
    manager, _d1 = _setup(home, clock, today, ["User likes green tea"])
    script = ScriptedLLM([tool_reply(("read", {"path": f"3_Personal/Missing{i}.md"})) for i in range(40)])
    result = await manager.dreaming.runner(llm=script).run_once()
    assert len(script.seen) <= 4
    assert result.outcome == "no_change" and "3 replies in a row changed nothing" in result.reason


async def test_reading_a_page_again_after_changing_it_is_not_a_repeat(home, clock, today):
    manager, d1 = _setup(home, clock, today, ["User likes green tea", "User likes oolong"])
    read = ("read", {"path": "3_Personal/Tea.md"})
    script = ScriptedLLM([
        tool_reply(("create_page", {"path": "3_Personal/Tea.md", "content": f"# Tea\n\n- User likes green tea ({d1})\n"})),
        tool_reply(read),
        tool_reply(("add_bullet", {"path": "3_Personal/Tea.md", "text": "User likes oolong", "dates": [d1]})),
        tool_reply(read),
        "Filed both teas.",
    ])
    result = await manager.dreaming.runner(llm=script).run_once()
    assert result.outcome == "productive" and result.summary == "Filed both teas." and not result.uncovered


async def test_a_closing_tool_call_is_never_the_summary(home, clock, today):
    manager, d1 = _setup(home, clock, today, ["User likes green tea"])
    unreadable = '<tool_call>{"name": "add_bullet", "arguments": {"path": "3_Personal/Tea.md", "text": </tool_call>'
    script = ScriptedLLM([
        tool_reply(("create_page", {"path": "3_Personal/Tea.md", "content": f"# Tea\n\n- User likes green tea ({d1})\n"})),
        unreadable, unreadable, unreadable,
    ])
    result = await manager.dreaming.runner(llm=script).run_once()
    assert result.outcome == "productive", result.reason
    assert "tool_call" not in result.summary and "add_bullet" not in result.summary
    assert "tool_call" not in manager.layout.log_md.read_text(encoding="utf-8")
    assert any("could not be read" in m["content"] for m in script.seen[2] if m["role"] == "user")


async def junk_engine(batch: Batch, tools: VaultTools) -> EngineReport:
    tools.write("2_Wiki/Junk.md", "# Junk\n\nlorem ipsum\n")
    return EngineReport(summary="Consolidated everything.")


async def test_pages_changed_with_no_batch_fact_on_them_is_no_change_naming_the_facts(home, clock, today):
    manager, _d1 = _setup(home, clock, today, ["User likes green tea", "User plays chess"])
    dry = await manager.dreaming.runner(engine=junk_engine).run_once(dry_run=True)
    assert dry.outcome == "no_change" and "User plays chess" in dry.reason
    result = await manager.dreaming.runner(engine=junk_engine).run_once()
    assert result.outcome == "no_change" and result.failed_attempt
    assert "2 uncovered" in result.reason and "User likes green tea" in result.reason
    assert not (manager.layout.notebook_dir / "2_Wiki" / "Junk.md").exists() and manager.dreaming.watermark() is None
