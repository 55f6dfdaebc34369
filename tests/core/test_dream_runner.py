"""DreamRunner: pending dates, gates, watermark safety, rollback, retries, sprint, dry run."""

from __future__ import annotations

import asyncio
import dataclasses
import json

import pytest
from dream_support import (
    days_before,
    make_manager,
    notebook_text,
    page,
    pop_run_records,
    vault_files,
    write_log,
)

from suzent_desktop.core.engines.dream.model import Batch, EngineReport
from suzent_desktop.core.engines.dream.tools import VaultTools
from suzent_desktop.core.files.records.log_grammar import Fact


def ingest_entries(manager):
    return [e for e in manager.notebook.entries() if e.kind == "ingest"]


async def writing_engine(batch: Batch, tools: VaultTools) -> EngineReport:
    tools.write("3_Personal/Test.md", "# Test\n\n" + "".join(f"- {f.fact.content} ({f.date})\n" for f in batch.facts))
    return EngineReport(summary=f"wrote {len(batch.facts)} facts")


async def failing_engine(batch: Batch, tools: VaultTools) -> EngineReport:
    tools.write("3_Personal/Work.md", "half-written\n")
    tools.write("3_Personal/New Page.md", "also half-written\n")
    raise RuntimeError("model exploded")


async def idle_engine(batch: Batch, tools: VaultTools) -> EngineReport:
    return EngineReport(summary="looked around, changed nothing")


@pytest.fixture
def manager(home, clock):
    return make_manager(home, clock)


@pytest.fixture
def seeded(manager, today):
    """Two pending days and a page that a failed run must not damage."""
    d1, d2 = days_before(today, 3)[:2]
    write_log(manager, d1, [Fact("User works at Contoso", "work"), Fact("User likes tea", "preference")])
    write_log(manager, d2, [Fact("User now works at Microsoft", "work")])
    work = manager.layout.notebook_dir / "3_Personal" / "Work.md"
    work.write_text("# Work\n\nWritten by hand.\n", encoding="utf-8")
    return manager, [d1, d2]


# -- pending dates and gates -------------------------------------------------------------------
async def test_nothing_pending_and_todays_log_is_never_consolidated(manager, today):
    write_log(manager, today.isoformat(), ["User is writing tests today"])
    result = await manager.dreaming.runner().run_once(force=True)
    assert result.outcome == "nothing_pending"
    assert ingest_entries(manager) == []


async def test_gates_min_facts_min_hours_and_enabled(home, clock, today):
    manager = make_manager(home, clock, memory_consolidation_min_facts=5)
    write_log(manager, days_before(today, 1)[0], ["User likes tea", "User likes jazz"])
    runner = manager.dreaming.runner(engine=writing_engine)
    gated = await runner.run_once()
    assert gated.outcome == "gated" and "min_facts" in gated.reason
    status = runner.gate_status()
    assert not status.due and status.pending_facts == 2 and status.next_batch == days_before(today, 1)
    forced = await runner.run_once(force=True)
    assert forced.outcome == "productive"

    disabled = make_manager(home, clock, memory_consolidation_enabled=False)
    write_log(disabled, today.isoformat(), ["User is here"])  # today's log is never pending
    write_log(disabled, days_before(today, 1)[0], ["User likes coffee"])
    assert (await disabled.dreaming.runner(engine=writing_engine).run_once(force=True)).outcome in (
        "gated", "nothing_pending")


async def test_min_hours_backoff_survives_a_restart(home, clock, today):
    manager = make_manager(home, clock, memory_consolidation_min_hours=6.0)
    write_log(manager, days_before(today, 1)[0], ["User likes tea"])
    first = await manager.dreaming.runner(engine=idle_engine).run_once()
    assert first.outcome == "no_change"
    reopened = make_manager(home, clock, memory_consolidation_min_hours=6.0)
    again = await reopened.dreaming.runner(engine=writing_engine).run_once()
    assert again.outcome == "gated" and "min_hours" in again.reason
    assert reopened.dreaming.runner().gate_status().next_run_at is not None


# -- productive runs -------------------------------------------------------------------------------
async def test_productive_run_advances_watermark_once_promotes_and_reindexes(seeded, today):
    manager, dates = seeded
    await manager.indexing.reindex()
    assert (await manager.indexer.stats()).by_source.get("archive", 0) == 3
    phases: list[str] = []
    results = []
    runner = manager.dreaming.runner(on_phase=phases.append, on_result=results.append)
    result = await runner.run_once()
    assert result.outcome == "productive"
    assert result.batch == dates and result.watermark == dates[-1]
    assert manager.dreaming.watermark() == dates[-1]
    assert [e.watermark for e in ingest_entries(manager)] == [dates[-1]]
    assert "3_Personal/Work.md" in result.pages_changed
    assert "User now works at Microsoft" in page(manager, "3_Personal/Work.md")
    assert "Microsoft" in manager.layout.memory_md.read_text(encoding="utf-8")
    assert result.changes.memory_md and result.changes.watermark == dates[-1]
    assert (await manager.indexer.stats()).by_source.get("archive", 0) == 0
    assert phases == ["running", "finalizing", "idle"] and results == [result]
    assert runner.phase == "idle"
    # A second run has nothing to do and writes no second entry.
    assert (await runner.run_once(force=True)).outcome == "nothing_pending"
    assert len(ingest_entries(manager)) == 1
    history = runner.history()
    assert history[0]["outcome"] == "productive" and history[0]["watermark"] == dates[-1]


# -- failures: watermark held, pages restored ----------------------------------------------------------
async def test_engine_failure_holds_watermark_and_restores_pages(seeded):
    manager, dates = seeded
    before = vault_files(manager)
    result = await manager.dreaming.runner(engine=failing_engine).run_once()
    assert result.outcome == "failed" and "model exploded" in result.reason
    assert manager.dreaming.watermark() is None and ingest_entries(manager) == []
    after = vault_files(manager)
    state = pop_run_records(after)
    assert after == before
    assert state["retries"] == {dates[0]: 1}


async def test_timeout_holds_watermark_and_restores_pages(home, clock, today):
    manager = make_manager(home, clock, memory_consolidation_timeout_seconds=0.2)
    write_log(manager, days_before(today, 1)[0], ["User likes tea"])
    before = {k: v for k, v in vault_files(manager).items()}
    never = asyncio.Event()

    async def hanging_engine(batch, tools):
        tools.write("3_Personal/Tea.md", "# Tea\n\n- partial\n")
        await never.wait()
        return EngineReport("unreachable")

    result = await manager.dreaming.runner(engine=hanging_engine).run_once()
    assert result.outcome == "failed" and "timed out" in result.reason
    assert manager.dreaming.watermark() is None
    after = vault_files(manager)
    pop_run_records(after)
    assert after == before


async def test_cancel_rolls_back_and_counts_as_failure(seeded):
    manager, dates = seeded
    before = vault_files(manager)
    started, never = asyncio.Event(), asyncio.Event()

    async def slow_engine(batch, tools):
        tools.write("3_Personal/Work.md", "# Work\n\n- in progress\n")
        started.set()
        await never.wait()
        return EngineReport("unreachable")

    runner = manager.dreaming.runner(engine=slow_engine)
    task = asyncio.ensure_future(runner.run_once())
    await started.wait()
    runner.cancel()
    result = await task
    assert result.outcome == "failed" and result.reason.startswith("cancelled")
    after = vault_files(manager)
    state = pop_run_records(after)
    assert after == before and state["retries"][dates[0]] == 1


async def test_no_change_when_only_index_or_identical_bytes_are_written(seeded):
    manager, _dates = seeded
    work_before = page(manager, "3_Personal/Work.md")
    index_before = manager.layout.index_md.read_bytes()

    async def cosmetic_engine(batch, tools):
        tools.write("3_Personal/Work.md", work_before)  # same bytes: a touch, not work
        tools.write_index("# Index\n\nrewritten\n")
        return EngineReport("touched things")

    result = await manager.dreaming.runner(engine=cosmetic_engine).run_once()
    assert result.outcome == "no_change" and manager.dreaming.watermark() is None
    assert manager.layout.index_md.read_bytes() == index_before


async def test_users_concurrent_edit_is_not_proof_of_work_and_is_kept(seeded):
    manager, _dates = seeded
    other = manager.layout.notebook_dir / "1_Projects" / "Garden.md"

    async def bystander_engine(batch, tools):
        other.write_text("# Garden\n\nEdited by the user meanwhile.\n", encoding="utf-8")
        return EngineReport("nothing")

    result = await manager.dreaming.runner(engine=bystander_engine).run_once()
    assert result.outcome == "no_change" and manager.dreaming.watermark() is None
    assert other.read_text(encoding="utf-8").endswith("meanwhile.\n")


async def test_skip_after_retry_limit_keeps_facts_searchable(home, clock, today):
    manager = make_manager(home, clock, memory_consolidation_max_retries=2)
    d1, d2 = days_before(today, 2)
    write_log(manager, d1, ["User collects antique typewriters"])
    write_log(manager, d2, ["User plays the cello"])
    await manager.indexing.reindex()
    runner = manager.dreaming.runner(engine=failing_engine)
    first = await runner.run_once()
    assert first.outcome == "failed" and manager.dreaming.watermark() is None
    # A restart in between: the count lives in .state/, not in memory.
    reopened = make_manager(home, clock, memory_consolidation_max_retries=2)
    second = await reopened.dreaming.runner(engine=failing_engine).run_once()
    assert second.outcome == "skipped" and second.watermark == d2
    assert reopened.dreaming.watermark() == d2
    assert reopened.notebook.skipped_dates() == [d1, d2]
    hits = (await reopened.searching.search("antique typewriters", record_recall=False)).hits
    assert any("typewriters" in h.text and h.source_type == "archive" for h in hits)
    assert reopened.dreaming.runner().history()[0]["outcome"] == "skipped"


async def test_batch_of_only_forgotten_facts_is_skipped_at_once(manager, today):
    date = days_before(today, 1)[0]
    write_log(manager, date, ["User's password hint is Rex"])
    await manager.forgetting.forget("User's password hint is Rex")
    result = await manager.dreaming.runner(engine=writing_engine).run_once(force=True)
    assert result.outcome == "skipped" and manager.dreaming.watermark() == date


# -- tombstones, summaries ------------------------------------------------------------------------------
async def test_forgotten_fact_is_not_consolidated(manager, today):
    date = days_before(today, 1)[0]
    write_log(manager, date, [Fact("User's ex is called Sam", "people"), Fact("User likes tea", "preference")])
    await manager.forgetting.forget("user's ex is  called sam")
    seen: list[str] = []

    async def spying_offline(batch, tools):
        seen.extend(f.fact.content for f in batch.facts)
        from suzent_desktop.core.engines.dream.offline import consolidate

        return await asyncio.to_thread(consolidate, batch, tools, manager.embedder.embed)

    result = await manager.dreaming.runner(engine=spying_offline).run_once()
    assert result.outcome == "productive"
    assert seen == ["User likes tea"]
    text = notebook_text(manager) + manager.layout.memory_md.read_text(encoding="utf-8")
    assert "Sam" not in text and "User likes tea" in text


async def test_watermark_token_in_summary_never_moves_the_watermark(seeded, today):
    manager, dates = seeded

    async def sneaky_engine(batch, tools):
        await writing_engine(batch, tools)
        return EngineReport(f"## [{today}] ingest | daily logs  watermark={today}\n```\nwatermark=2099-01-01\n```")

    result = await manager.dreaming.runner(engine=sneaky_engine).run_once()
    assert result.outcome == "productive"
    assert manager.notebook.raw_watermark() == dates[-1]
    assert [e.watermark for e in ingest_entries(manager)] == [dates[-1]]


# -- sprint and dry run ----------------------------------------------------------------------------------
async def test_sprint_over_a_40_day_backlog(home, clock, today):
    manager = make_manager(home, clock, memory_consolidation_max_days=14, memory_consolidation_min_hours=24.0)
    dates = days_before(today, 40)
    for index, date in enumerate(dates):
        write_log(manager, date, [Fact(f"User visited museum number {index}", "plan")])
    results = await manager.dreaming.runner().run_cycle()
    assert [r.outcome for r in results] == ["productive"] * 3
    assert [len(r.batch) for r in results] == [14, 14, 12]
    assert manager.dreaming.watermark() == dates[-1] and manager.dreaming.pending_dates() == []
    assert [e.watermark for e in ingest_entries(manager)] == [dates[13], dates[27], dates[39]]
    text = notebook_text(manager)
    assert all(f"museum number {i} " in text for i in range(40))


async def test_dry_run_leaves_the_vault_byte_identical(seeded):
    manager, dates = seeded
    before = vault_files(manager)
    result = await manager.dreaming.runner().run_once(dry_run=True)
    assert result.outcome == "productive" and result.batch == dates
    assert vault_files(manager) == before
    assert manager.dreaming.watermark() is None
    assert "3_Personal/Work.md" in result.diffs
    assert "+- User now works at Microsoft" in result.diffs["3_Personal/Work.md"]


async def test_run_cycle_lints_when_caught_up_and_due(home, clock, today):
    manager = make_manager(home, clock, memory_lint_enabled=True, memory_lint_min_days=7)
    write_log(manager, days_before(today, 1)[0], ["User likes tea"])
    runner = manager.dreaming.runner()
    assert runner.gate_status().lint_due
    results = await runner.run_cycle()
    assert [r.outcome for r in results] == ["productive"]
    assert manager.notebook.last_entry("lint").date == today.isoformat()
    assert runner.last_lint.ok and not runner.gate_status().lint_due


async def test_serve_runs_a_cycle_and_stops(home, clock, today):
    manager = make_manager(home, clock)
    write_log(manager, days_before(today, 1)[0], ["User likes tea"])
    stop = asyncio.Event()
    results = []

    def on_result(result):
        results.append(result)
        stop.set()

    await asyncio.wait_for(manager.dreaming.runner(on_result=on_result).serve(stop), timeout=30)
    assert results[0].outcome == "productive"


async def test_enabling_consolidation_wakes_the_schedule_without_waiting_for_the_interval(home, clock, today):
    manager = make_manager(home, clock)
    write_log(manager, days_before(today, 1)[0], ["User likes tea"])
    manager.settings = dataclasses.replace(
        manager.settings, memory_consolidation_enabled=False, memory_consolidation_interval_seconds=3600)
    stop = asyncio.Event()
    results = []
    gated = asyncio.Event()

    def on_result(result):
        results.append(result)
        if result.outcome == "gated":
            gated.set()
        else:
            stop.set()

    runner = manager.dreaming.runner(on_result=on_result, follow=lambda: manager.dreaming)
    serving = asyncio.ensure_future(runner.serve(stop))
    await asyncio.wait_for(gated.wait(), timeout=30)
    assert "enabled is false" in results[0].reason
    manager.settings = dataclasses.replace(manager.settings, memory_consolidation_enabled=True)
    runner.wake()  # what saving the settings does; the hour-long interval is not waited out
    await asyncio.wait_for(serving, timeout=30)
    assert results[-1].outcome == "productive"


async def test_a_watermark_after_today_is_refused_and_never_rewritten(manager, today):
    write_log(manager, days_before(today, 1)[0], ["User likes tea"])
    write_log(manager, today.isoformat(), ["User is here today"])
    manager.notebook._append_log(f"## [{today}] ingest | by hand  watermark=2099-01-01\n")
    log_before = manager.layout.log_md.read_bytes()
    result = await manager.dreaming.runner(engine=writing_engine).run_once(force=True)
    assert result.outcome == "failed" and "watermark=2099-01-01" in result.reason
    assert manager.dreaming.watermark() is None and manager.dreaming.pending_dates() == [days_before(today, 1)[0]]
    assert manager.layout.log_md.read_bytes() == log_before


async def test_a_watermark_on_today_counts_as_yesterday_and_is_never_rewritten(manager, today):
    write_log(manager, days_before(today, 1)[0], ["User likes tea"])
    manager.notebook._append_log(f"## [{today}] ingest | by hand  watermark={today}\n")
    log_before = manager.layout.log_md.read_bytes()
    result = await manager.dreaming.runner(engine=writing_engine).run_once(force=True)
    assert result.outcome == "nothing_pending"
    assert manager.dreaming.watermark() == days_before(today, 1)[0]
    assert manager.layout.log_md.read_bytes() == log_before


async def test_unreadable_state_file_starts_fresh_and_history_reads_log_md(manager, today):
    manager.layout.runner_state_file.write_text("{not json", encoding="utf-8")
    manager.notebook.append_ingest(today, days_before(today, 5)[0], "migrated by hand")
    runner = manager.dreaming.runner(engine=writing_engine)
    write_log(manager, days_before(today, 1)[0], ["User likes tea"])
    assert runner.gate_status().due
    result = await runner.run_once()
    assert result.outcome == "productive"
    history = runner.history()
    assert [h["outcome"] for h in history] == ["productive", "productive"]
    assert history[1]["summary"] == "migrated by hand"
    assert history[0]["pages_changed"] == ["3_Personal/Test.md"]
    assert history[1]["pages_changed"] is None  # not recorded, which is not "no pages"
    assert json.loads(manager.layout.runner_state_file.read_text(encoding="utf-8"))["history"][0]["outcome"] == (
        "productive")


def test_a_run_known_only_from_log_md_covers_the_logged_days_up_to_its_watermark(manager, today):
    d1, d2, d3, d4 = days_before(today, 5)[:4]
    for day in (d1, d2, d4):
        write_log(manager, day, [f"User noted something on {day}"])
    manager.notebook.append_ingest(today, d1, "first")
    manager.notebook.append_ingest(today, d3, "second")
    history = {h["summary"]: h for h in manager.dreaming.runner().history()}
    assert history["first"]["batch"] == [d1]
    assert history["second"]["batch"] == [d2]  # d3 has no log; d4 is past the watermark
    assert history["second"]["pages_changed"] is None


async def test_the_engines_memory_searches_are_not_recalls(seeded):
    manager, _dates = seeded
    await manager.indexing.reindex()

    async def searching_engine(batch, tools):
        found = await tools.dispatch("search_memory", {"query": "Microsoft"})
        assert "Microsoft" in found
        return await writing_engine(batch, tools)

    assert (await manager.dreaming.runner(engine=searching_engine).run_once()).outcome == "productive"
    assert sum(manager.recall.counts().values()) == 0


async def test_productive_result_carries_page_diffs(seeded):
    manager, _dates = seeded
    result = await manager.dreaming.runner().run_once()
    assert result.outcome == "productive"
    assert "-Written by hand." not in result.diffs["3_Personal/Work.md"]
    assert "+- User now works at Microsoft" in result.diffs["3_Personal/Work.md"]
    assert result.diffs["3_Personal/Preferences.md"].startswith("--- /dev/null")


async def test_cancelling_the_task_from_outside_rolls_back_and_counts(seeded):
    manager, dates = seeded
    before = vault_files(manager)
    started, never = asyncio.Event(), asyncio.Event()

    async def slow_engine(batch, tools):
        tools.write("3_Personal/Work.md", "# Work\n\n- in progress\n")
        started.set()
        await never.wait()
        return EngineReport("unreachable")

    task = asyncio.ensure_future(manager.dreaming.runner(engine=slow_engine).run_once())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    after = vault_files(manager)
    state = pop_run_records(after)
    assert after == before and state["retries"][dates[0]] == 1


async def test_a_log_written_to_during_the_run_is_not_covered_by_the_watermark(seeded):
    manager, (d1, d2) = seeded

    async def engine_while_a_capture_lands(batch: Batch, tools: VaultTools) -> EngineReport:
        write_log(manager, d2, ["User adopted a cat named Zephyrine"])  # a capture dated d2, mid-run
        return await writing_engine(batch, tools)

    result = await manager.dreaming.runner(engine=engine_while_a_capture_lands).run_once(force=True)
    assert result.outcome == "productive" and result.watermark == d1
    assert d2 in result.reason and [e.watermark for e in ingest_entries(manager)] == [d1]
    assert manager.dreaming.pending_dates()[0] == d2
    response = await manager.searching.search("Zephyrine")
    assert [h.text for h in response.hits] == ["User adopted a cat named Zephyrine"]
    again = await manager.dreaming.runner(engine=writing_engine).run_once(force=True)
    assert again.watermark == d2 and "Zephyrine" in page(manager, "3_Personal/Test.md")


async def test_when_the_first_day_changed_the_pages_stand_and_the_watermark_waits(seeded):
    manager, (d1, _d2) = seeded

    async def engine_while_day_one_grows(batch: Batch, tools: VaultTools) -> EngineReport:
        write_log(manager, d1, ["User adopted a cat named Zephyrine"])
        return await writing_engine(batch, tools)

    result = await manager.dreaming.runner(engine=engine_while_day_one_grows).run_once(force=True)
    assert result.outcome == "productive" and result.watermark is None and ingest_entries(manager) == []
    assert "User likes tea" in page(manager, "3_Personal/Test.md")
    assert manager.dreaming.pending_dates()[0] == d1


async def test_an_unreadable_log_ends_the_batch_and_only_its_own_day_is_skipped(manager, today):
    d1, d2, d3 = days_before(today, 3)
    for day in (d1, d2, d3):
        write_log(manager, day, [f"User noted something on {day}"])
    bad = manager.archive.path_for(d2)
    bad.write_bytes(bad.read_bytes() + b"- [general] caf\xe9\n")
    runner = manager.dreaming.runner(engine=writing_engine)
    first = await runner.run_once(force=True)
    assert (first.outcome, first.batch, first.watermark) == ("productive", [d1], d1)
    outcomes = [await runner.run_once(force=True) for _ in range(manager.settings.memory_consolidation_max_retries)]
    assert [r.outcome for r in outcomes][-1] == "skipped" and outcomes[-1].batch == [d2]
    last = await runner.run_once(force=True)
    assert (last.outcome, last.batch) == ("productive", [d3])
    assert f"User noted something on {d3}" in page(manager, "3_Personal/Test.md")


async def test_a_future_watermark_stops_the_dream_with_the_line_named(home, clock, today):
    manager = make_manager(home, clock)
    write_log(manager, days_before(today, 2)[0], ["User likes tea"])
    manager.notebook.append_ingest(today, "2030-01-01")
    line = manager.notebook.entries()[-1].line
    before = manager.layout.log_md.read_bytes()
    result = await manager.dreaming.runner().run_once(force=True)
    assert result.outcome == "failed" and f"log.md:{line}" in result.reason and "2030-01-01" in result.reason
    assert manager.layout.log_md.read_bytes() == before


async def test_a_watched_index_finds_a_dreams_pages_before_any_watcher_event(manager, today):
    """In the window the index reads only what the watcher names; the dream names its pages itself."""
    d1 = days_before(today, 1)[0]
    write_log(manager, d1, [Fact("User restores wooden sailboats", "hobby")])
    manager.indexer.watch(True)
    await manager.indexing.reindex()
    result = await manager.dreaming.runner(engine=writing_engine).run_once(force=True)
    assert result.outcome == "productive"
    hits = (await manager.searching.search("wooden sailboats", record_recall=False)).hits
    assert hits and hits[0].source_type == "notebook" and hits[0].path.endswith("Test.md")
    assert manager.indexer.stale_paths() == []


def test_history_of_hand_written_lines_never_claims_today_or_a_day_after_a_future_watermark(manager, today):
    d1, d2 = days_before(today, 2)
    for day in (d1, d2, today.isoformat()):
        write_log(manager, day, [f"User noted something on {day}"])
    manager.notebook.append_ingest(today, "2099-01-01", "typo")  # refused: no day is consolidated by it
    manager.notebook.append_ingest(today, today.isoformat(), "on today")  # counts as yesterday
    history = {h["summary"]: h for h in manager.dreaming.runner().history()}
    assert history["typo"]["batch"] == []
    assert history["on today"]["batch"] == [d1, d2]
