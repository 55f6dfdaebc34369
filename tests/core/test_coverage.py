"""Coverage before the watermark: no fact leaves search unless a page holds it (or the engine said why)."""

from __future__ import annotations

import asyncio
import datetime as dt
import json

import pytest
from dream_support import days_before, make_manager, page, write_log

from suzent_desktop.core.doctor import run_doctor
from suzent_desktop.core.engines.dream.guards.coverage import check_coverage
from suzent_desktop.core.engines.dream.model import Batch, BatchFact, EngineReport
from suzent_desktop.core.engines.dream.tools import Accounting, VaultTools
from suzent_desktop.core.engines.ledger import uncovered
from suzent_desktop.core.files.records.log_grammar import Fact
from suzent_desktop.core.index import dropped
from suzent_desktop.core.index.rows.planner import NOT_CONSOLIDATED

JASPER = "User collects jasper indigo near the xenon nimbus falcon"
KEPT = "User keeps a sourdough starter"  # the one fact the junk engine does write (a run covering none is no_change)


async def junk_engine(batch: Batch, tools: VaultTools) -> EngineReport:
    """A hostile model: one big page of junk instead of the batch's facts, and one fact of it."""
    tools.write("2_Wiki/Junk.md", "# Junk\n\n" + "lorem ipsum dolor sit amet\n" * 2000)
    tools.write("3_Personal/Kitchen.md", f"# Kitchen\n\n- {KEPT}\n")
    return EngineReport(summary="wrote a page")


async def faithful_engine(batch: Batch, tools: VaultTools) -> EngineReport:
    body = "".join(f"- {f.fact.content} ({f.date})\n" for f in batch.facts)
    old = tools.read("3_Personal/Facts.md") if tools.exists("3_Personal/Facts.md") else "# Facts\n\n"
    tools.write("3_Personal/Facts.md", old + body)
    return EngineReport(summary=f"wrote {len(batch.facts)} facts")


@pytest.fixture
def seeded(home, clock, today):
    manager = make_manager(home, clock)
    d1, d2 = days_before(today, 3)[:2]
    write_log(manager, d1, [JASPER, Fact("User works at Contoso", "work")])
    write_log(manager, d2, ["User prefers quiet trains over buses", KEPT])
    return manager, [d1, d2]


async def _hits(manager, text):
    return [h for h in (await manager.searching.search(text, limit=20, record_recall=False)).hits if h.text == text]


async def test_a_model_that_writes_junk_leaves_every_fact_searchable_and_listed(seeded, today):
    manager, dates = seeded
    await manager.indexing.reindex()
    result = await manager.dreaming.runner(engine=junk_engine).run_once()
    assert result.outcome == "productive" and manager.dreaming.watermark() == dates[-1]  # the run was productive
    assert {f["text"] for f in result.uncovered} == {JASPER, "User works at Contoso", "User prefers quiet trains over buses"}
    assert "3 facts not consolidated" in result.reason
    for fact in result.uncovered:
        hits = await _hits(manager, fact["text"])
        assert hits and hits[0].source_type == "archive" and hits[0].heading == NOT_CONSOLIDATED
    assert {f.text for f in uncovered.load(manager.layout)} == {f["text"] for f in result.uncovered}
    status = await manager.status()
    assert {f["text"] for f in status["not_consolidated"]} == {f["text"] for f in result.uncovered}
    problems = await asyncio.to_thread(run_doctor, manager.layout.home, clock=manager.clock)
    flagged = [p for p in problems if p.message.startswith("not consolidated")]
    assert {(p.path, p.line) for p in flagged} == {
        (str(manager.archive.path_for(f["date"])), f["line"]) for f in result.uncovered
    }
    history = manager.dreaming.runner().history()
    assert {f["text"] for f in history[0]["uncovered"]} == {f["text"] for f in result.uncovered}

    # The next run offers them again; once a page holds them they leave the record and the logs' rows go.
    write_log(manager, (today - dt.timedelta(days=1)).isoformat(), ["User grows basil"])
    second = await manager.dreaming.runner(engine=faithful_engine).run_once(force=True)
    assert second.outcome == "productive" and second.uncovered == []
    assert JASPER in page(manager, "3_Personal/Facts.md")
    assert uncovered.load(manager.layout) == []
    assert (await manager.status())["not_consolidated"] == []
    hits = [h for h in (await manager.searching.search(JASPER, limit=20, record_recall=False)).hits if JASPER in h.text]
    assert hits and all(h.source_type != "archive" for h in hits)
    assert (await manager.indexer.stats()).by_source.get("archive", 0) == 0


async def test_the_offline_engine_covers_duplicates_rewordings_and_superseded_values(home, clock, today):
    manager = make_manager(home, clock)
    d1, d2, d3 = days_before(today, 3)
    write_log(manager, d1, [Fact("User works at Contoso as a data engineer", "work"), "User likes green tea"])
    write_log(manager, d2, [Fact("User works at Contoso", "work"), "User likes green tea."])
    write_log(manager, d3, [Fact("User now works at Microsoft", "work")])
    result = await manager.dreaming.runner().run_once()
    assert result.outcome == "productive" and result.uncovered == [] and result.dropped == []
    assert (await manager.indexer.stats()).by_source.get("archive", 0) == 0


async def test_engine_accounts_are_checked_against_the_vault(seeded):
    manager, dates = seeded

    async def accounting_engine(batch: Batch, tools: VaultTools) -> EngineReport:
        tools.write("3_Personal/Work.md", "# Work\n\n- Works at Contoso as a data engineer (2026-07-17)\n")
        tools.account(Accounting("User works at Contoso", "merged", "3_Personal/Work.md",
                                 "Works at Contoso as a data engineer"))
        tools.account(Accounting("User prefers quiet trains over buses", "dropped", reason="small talk"))
        tools.account(Accounting(JASPER, "merged", "3_Personal/Hobbies.md", "User collects stones"))  # no such page
        return EngineReport(summary="accounted")

    result = await manager.dreaming.runner(engine=accounting_engine).run_once()
    assert result.outcome == "productive"
    assert [f["text"] for f in result.uncovered] == [JASPER, KEPT]
    assert [(f["text"], f["reason"]) for f in result.dropped] == [("User prefers quiet trains over buses", "small talk")]
    assert manager.dreaming.runner().history()[0]["dropped"][0]["reason"] == "small talk"
    assert await _hits(manager, JASPER)
    assert await _hits(manager, "User prefers quiet trains over buses")  # until a person confirms the drop


async def test_forgotten_facts_are_not_uncovered_and_leave_the_record(seeded, today):
    manager, dates = seeded
    await manager.dreaming.runner(engine=junk_engine).run_once()
    await manager.forgetting.forget(JASPER)
    assert JASPER not in {f["text"] for f in (await manager.status())["not_consolidated"]}
    write_log(manager, (today - dt.timedelta(days=1)).isoformat(), ["User grows basil"])
    seen: list[str] = []

    async def watching_engine(batch: Batch, tools: VaultTools) -> EngineReport:
        seen.extend(f.fact.content for f in batch.facts)
        return await faithful_engine(batch, tools)

    await manager.dreaming.runner(engine=watching_engine).run_once(force=True)
    assert JASPER not in seen and "User works at Contoso" in seen
    assert uncovered.load(manager.layout) == []
    assert not await _hits(manager, JASPER)


def test_coverage_rules_are_the_consolidators(tmp_path):
    root = tmp_path / "vault"
    (root / "3_Personal").mkdir(parents=True)
    (root / "3_Personal" / "Work.md").write_text(
        "# Work\n\n- User works at Contoso as a data engineer (2026-07-01)\n\n## History\n\n"
        "- ~~User lived in Berlin~~ (2026-06-01, until 2026-07-01)\n", encoding="utf-8")
    (root / "2_Wiki").mkdir()
    (root / "2_Wiki" / "Notes.md").write_text("Some intro. The user enjoys hiking in the Alps! More.\n", encoding="utf-8")
    tools = VaultTools(root)

    def fact(text: str) -> BatchFact:
        return BatchFact("2026-07-02", Fact(text), 5)

    facts = [fact("User works at Contoso"), fact("user lived in berlin."), fact("The user enjoys hiking in the Alps"),
             fact("User works at Fabrikam"), fact("User likes tea")]
    report = check_coverage(facts, tools)
    assert [f.fact.content for f in report.on_pages] == [
        "User works at Contoso", "user lived in berlin.", "The user enjoys hiking in the Alps"]
    assert [f.fact.content for f in report.uncovered] == ["User works at Fabrikam", "User likes tea"]


async def test_a_tool_call_larger_than_the_limit_is_refused_with_an_error_the_model_sees(tmp_path):
    root = tmp_path / "vault"
    root.mkdir()
    tools = VaultTools(root, max_call_kb=256)
    reply = await tools.dispatch("write", json.dumps({"path": "Big.md", "content": "x" * 300_000}))
    assert reply.startswith("error:") and "256 KB" in reply and "memory_consolidation_max_write_kb" in reply
    assert not (root / "Big.md").exists()
    assert (await tools.dispatch("write", json.dumps({"path": "Small.md", "content": "fine\n"}))).startswith("ok")


class HugePageLLM:
    """A hostile model: asks to write one 5 MB page again and again, then gives up."""

    def __init__(self) -> None:
        self.requests: list[int] = []

    async def chat(self, model, messages, tools, timeout):
        from suzent_desktop.core.llm import ChatReply, ToolCall

        self.requests.append(sum(len(json.dumps(m)) for m in messages))
        if len(self.requests) > 3:
            return ChatReply("done")
        body = json.dumps({"path": "2_Wiki/Huge.md", "content": "junk " * 1_000_000})
        return ChatReply(None, [ToolCall(f"c{len(self.requests)}", "write", body)], "tool_calls")


async def test_a_huge_tool_call_is_refused_and_never_resent_and_the_run_stays_in_time(home, clock, today):
    import time

    manager = make_manager(home, clock, memory_consolidation_model="fake", memory_consolidation_timeout_seconds=5.0)
    write_log(manager, days_before(today, 1)[0], [JASPER])
    model = HugePageLLM()
    from suzent_desktop.core import llm

    await asyncio.to_thread(llm.load)  # the runner loads the library before its clock starts too
    started = time.monotonic()
    result = await manager.dreaming.runner(llm=model).run_once()
    elapsed = time.monotonic() - started
    assert not (manager.layout.notebook_dir / "2_Wiki" / "Huge.md").exists()
    assert result.outcome in ("failed", "no_change") and manager.dreaming.watermark() is None
    assert max(model.requests) < 200_000, "a refused call's megabytes are not sent back to the model"
    assert elapsed < 5.0 + 3.0


async def test_record_entries_of_days_still_pending_mean_nothing_and_are_replaced(seeded):
    """A run killed between writing the record and its ingest entry leaves entries for pending days."""
    manager, dates = seeded
    uncovered.save(manager.layout, [uncovered.UncoveredFact(dates[0], JASPER, 5, "2026-07-19")])
    assert (await manager.status())["not_consolidated"] == []
    problems = await asyncio.to_thread(run_doctor, manager.layout.home, clock=manager.clock)
    assert not [p for p in problems if p.message.startswith("not consolidated")]
    result = await manager.dreaming.runner(engine=faithful_engine).run_once()
    assert result.outcome == "productive" and result.uncovered == []
    assert uncovered.load(manager.layout) == []


async def test_a_dry_run_names_the_facts_a_real_run_would_leave_unconsolidated(seeded):
    manager, dates = seeded
    before = uncovered.load(manager.layout)
    result = await manager.dreaming.runner(engine=junk_engine).run_once(dry_run=True)
    assert result.outcome == "productive" and len(result.uncovered) == 3
    assert uncovered.load(manager.layout) == before and manager.dreaming.watermark() is None


class SlowEmbedder:
    """The manager's embedder, half a second per call: a big model on a busy machine."""

    def __init__(self, inner) -> None:
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.calls = 0

    def embed(self, texts):
        import time

        self.calls += 1
        time.sleep(0.5)
        return self.inner.embed(texts)


async def long_page_engine(batch: Batch, tools: VaultTools) -> EngineReport:
    """Writes a page of 3,000 facts and one of the batch's: every line is a near-duplicate candidate."""
    tools.write("3_Personal/Long.md", "# Long\n\n" + "".join(f"- User noted item {i} of a list\n" for i in range(3000))
                + f"- {KEPT}\n")
    return EngineReport(summary="wrote a long page")


async def test_the_coverage_check_gets_only_the_time_the_run_has_left(home, clock, today):
    manager = make_manager(home, clock, memory_consolidation_timeout_seconds=2.0)
    write_log(manager, days_before(today, 1)[0], [JASPER, KEPT])
    await manager.indexing.reindex()  # as capture does: the facts are in search before the dream starts
    manager.embedder = slow = SlowEmbedder(manager.embedder)  # what the runner embeds with; the index keeps its own
    result = await manager.dreaming.runner(engine=long_page_engine).run_once()
    # each call takes at least half a second, so a run that stops at its 2 s limit makes at most
    # five; the page's 3,000 lines would take 47 (counted, not timed: a busy machine only makes fewer)
    assert 1 <= slow.calls <= 5, f"the coverage check embedded {slow.calls} slices against a 2 s limit"
    assert result.outcome == "productive" and [f["text"] for f in result.uncovered] == [JASPER]
    assert "near-duplicate check ran out of time" in result.reason
    hits = await _hits(manager, JASPER)
    assert hits and hits[0].source_type == "archive"  # the fact stays in search, from its log
    # The run's index update has a short grace once its time is used up; on a busy machine the
    # next pass is the one that labels the log's row as not consolidated.
    await manager.indexing.reindex()
    hits = await _hits(manager, JASPER)
    assert hits and hits[0].source_type == "archive" and hits[0].heading == NOT_CONSOLIDATED


class SlowIndexEmbedder(SlowEmbedder):
    """Slow only once armed: the index of the run's pages, not the build before it."""

    armed = False

    def embed(self, texts):
        return SlowEmbedder.embed(self, texts) if self.armed else self.inner.embed(texts)


async def test_indexing_a_runs_pages_gets_only_the_time_left_and_no_fact_leaves_search(home, clock, today):
    import time

    manager = make_manager(home, clock, memory_consolidation_timeout_seconds=3.0)
    write_log(manager, days_before(today, 1)[0], [JASPER])
    slow = SlowIndexEmbedder(manager.indexer.embedder)
    manager.indexer.embedder = slow
    await manager.indexing.reindex()
    slow.armed = True
    import lancedb  # noqa: F401 - loaded before the run's clock, as the runner does

    async def big_engine(batch: Batch, tools: VaultTools) -> EngineReport:
        lines = "".join(f"- User keeps note {i} about a long list of things\n\n" for i in range(4000))
        tools.write("2_Wiki/Big.md", "# Big\n\n" + lines)
        tools.write("3_Personal/Hobbies.md", f"# Hobbies\n\n- {JASPER} ({days_before(today, 1)[0]})\n")
        return EngineReport(summary="wrote a big page and the fact")

    started = time.monotonic()
    result = await manager.dreaming.runner(engine=big_engine).run_once()
    elapsed = time.monotonic() - started
    assert result.outcome == "productive"
    assert elapsed < 3.0 + 4.0, f"the run took {elapsed:.1f} s against a 3 s limit"
    assert any("time was up before everything it wrote was indexed" in e for e in result.changes.errors)
    slow.armed = False
    assert await _hits(manager, JASPER)  # findable all along: from the log, or from the page once indexed
    await manager.indexing.reindex()
    hits = await _hits(manager, JASPER)
    assert hits and any(h.path.endswith("Hobbies.md") for h in hits)


HOSTILE_PAGE = f"# Misc\n\n- User likes things (2026-07-17)\n- {KEPT} (2026-07-18)\n\n## History\n"


async def hostile_accounts(batch: Batch, tools: VaultTools) -> EngineReport:
    """A model (or a prompt injected through a captured turn) that accounts for every fact of the
    batch without keeping any: an unrelated bullet, an empty History, a reason of three letters."""
    tools.write("3_Personal/Misc.md", HOSTILE_PAGE)
    for index, fact in enumerate(f for f in batch.facts if f.fact.content != KEPT):
        how = ("merged", "superseded", "dropped")[index % 3]
        tools.accounted.append(Accounting(fact.fact.content, how, "3_Personal/Misc.md",
                                          "User likes things" if how == "merged" else "", "xyz"))
    return EngineReport(summary="accounted for everything")


async def test_accounts_a_page_does_not_bear_out_leave_no_fact_out_of_search(seeded):
    manager, dates = seeded
    await manager.indexing.reindex()
    result = await manager.dreaming.runner(engine=hostile_accounts).run_once()
    assert result.outcome == "productive" and result.dropped == []
    facts = [JASPER, "User works at Contoso", "User prefers quiet trains over buses"]
    assert sorted(f["text"] for f in result.uncovered) == sorted(facts)
    for text in facts:
        assert await _hits(manager, text), text


def test_an_account_names_the_bullet_that_holds_the_fact(tmp_path):
    root = tmp_path / "vault"
    (root / "3_Personal").mkdir(parents=True)
    (root / "3_Personal" / "Work.md").write_text(
        "# Work\n\n- Works at Contoso as a data engineer (2026-07-01)\n- User likes things\n\n## History\n\n"
        "- ~~User was a junior analyst at Fabrikam in Leeds~~ (2026-01-01, until 2026-07-01)\n", encoding="utf-8")
    (root / "3_Personal" / "Empty.md").write_text("# Empty\n\n- User likes things\n\n## History\n", encoding="utf-8")
    tools = VaultTools(root)
    fact = lambda text: BatchFact("2026-07-02", Fact(text), 5)  # noqa: E731
    merged, unrelated = "User works at Contoso", "User's sister Ana lives in Porto"
    superseded, empty = "User was an analyst at Fabrikam, Leeds", "User drove a red Fiat"
    dropped_ok, dropped_bad = "User said hello", "User said goodbye"
    wrong_number = "User runs 10 km"
    for account in [
        Accounting(merged, "merged", "3_Personal/Work.md", "Works at Contoso as a data engineer"),
        Accounting(unrelated, "merged", "3_Personal/Work.md", "User likes things"),
        Accounting(wrong_number, "merged", "3_Personal/Work.md", "User likes things"),
        Accounting(superseded, "superseded", "3_Personal/Work.md"),
        Accounting(empty, "superseded", "3_Personal/Empty.md"),
        Accounting(dropped_ok, "dropped", reason="a greeting, nothing to keep"),
        Accounting(dropped_bad, "dropped", reason="n/a"),
    ]:
        tools.accounted.append(account)
    facts = [fact(t) for t in (merged, unrelated, wrong_number, superseded, empty, dropped_ok, dropped_bad)]
    report = check_coverage(facts, tools)
    assert [f.fact.content for f, _a in report.accounted] == [merged, superseded, dropped_ok]
    assert [f.fact.content for f in report.uncovered] == [unrelated, wrong_number, empty, dropped_bad]
    assert report.held[("2026-07-02", "user was an analyst at fabrikam, leeds")] == (
        "3_Personal/Work.md", "User was a junior analyst at Fabrikam in Leeds")


def test_the_tool_refuses_a_drop_without_a_readable_reason(tmp_path):
    tools = VaultTools(tmp_path)
    with pytest.raises(ValueError, match="reason a person can read"):
        tools.account(Accounting("User said hello", "dropped", reason="xyz"))
    assert tools.account(Accounting("User said hello", "dropped", reason="a greeting only")) == "ok: dropped"


async def test_a_dropped_fact_stays_in_search_until_a_person_confirms(seeded):
    manager, dates = seeded
    trains = "User prefers quiet trains over buses"

    async def dropping_engine(batch: Batch, tools: VaultTools) -> EngineReport:
        await faithful_engine(Batch(batch.dates, [f for f in batch.facts if f.fact.content != trains]), tools)
        tools.account(Accounting(trains, "dropped", reason="small talk about travel"))
        return EngineReport(summary="dropped one")

    result = await manager.dreaming.runner(engine=dropping_engine).run_once()
    assert result.outcome == "productive" and manager.dreaming.watermark() == dates[-1]
    assert [(f["text"], f["reason"]) for f in result.dropped] == [(trains, "small talk about travel")]
    assert (await manager.indexer.stats()).by_source.get("archive", 0) == 1
    hits = await _hits(manager, trains)
    assert hits and hits[0].source_type == "archive"
    pending = manager.dreaming.pending_dropped()
    assert [(f.text, f.reason, f.date) for f in pending] == [(trains, "small talk about travel", dates[1])]
    with pytest.raises(dropped.UnknownDropped, match="nosuchid"):
        await manager.dreaming.confirm_dropped(["nosuchid"])
    assert manager.dreaming.pending_dropped() == pending
    confirmed, _changes = await manager.dreaming.confirm_dropped([pending[0].id])
    assert [f.text for f in confirmed] == [trains]
    assert manager.dreaming.pending_dropped() == [] and not await _hits(manager, trains)
    assert trains in manager.archive.read_text(dates[1])  # the log keeps it as written


async def test_a_remembered_fact_keeps_a_place_in_search_whatever_the_model_says(home, today):
    from suzent_desktop.core.files.clock import Clock

    passport = "User's passport expires in March 2031"
    await make_manager(home, Clock(fixed_today=today - dt.timedelta(days=1))).capturing.remember(passport)
    manager = make_manager(home, Clock(fixed_today=today))

    async def talked_into_it(batch: Batch, tools: VaultTools) -> EngineReport:
        page = HOSTILE_PAGE.replace(f"- {KEPT}", f"- {KEPT}\n- User likes lists")
        for date in ("2026-07-17", "2026-07-18"):  # a bullet carries the batch's days (dream/guards/bullet_dates.py)
            page = page.replace(date, batch.dates[0])
        tools.write("3_Personal/Misc.md", page)
        for how in ("merged", "superseded", "dropped"):
            tools.accounted.append(Accounting(passport, how, "3_Personal/Misc.md", "User likes things",
                                              "not needed any more"))
        return EngineReport(summary="accounted")

    write_log(manager, (today - dt.timedelta(days=1)).isoformat(), [KEPT])
    result = await manager.dreaming.runner(engine=talked_into_it).run_once(force=True)
    assert result.outcome == "productive" and manager.dreaming.watermark() == (today - dt.timedelta(days=1)).isoformat()
    hits = await _hits(manager, passport)
    assert hits and hits[0].source_type == "archive"
