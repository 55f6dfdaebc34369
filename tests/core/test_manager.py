"""MemoryManager: open/bootstrap, capture, search with recall, forget, status."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from pathlib import Path

import pytest

from suzent_desktop.core.engines.capture import extraction
from suzent_desktop.core.engines.forget_match import ForgetRefused
from suzent_desktop.core.files.paths.layout import LayoutError
from suzent_desktop.core.files.records.log_grammar import Fact
from suzent_desktop.core.manager import MemoryManager
from suzent_desktop.settings import SettingsError


@pytest.fixture
def manager(home: Path, clock) -> MemoryManager:
    return MemoryManager.open(home, clock=clock)


def log_text(manager: MemoryManager) -> str:
    return manager.archive.path_for(manager.clock.today().isoformat()).read_text(encoding="utf-8")


# -- open ------------------------------------------------------------------------------
def test_open_bootstraps_a_new_home(tmp_path: Path, clock):
    home = tmp_path / "new"
    manager = MemoryManager.open(home, clock=clock)
    layout = manager.layout
    assert layout.schema_md.is_file() and layout.log_md.is_file() and layout.index_md.is_file()
    assert (layout.notebook_dir / "2_Wiki" / "Entities").is_dir()
    assert layout.archive_dir.is_dir()
    assert layout.memory_md.read_text(encoding="utf-8") == "# Memory\n"
    assert manager.embedder.name.startswith("hashing")


def test_open_never_overwrites(home: Path, clock):
    (home / "memory").mkdir()
    (home / "memory" / "MEMORY.md").write_text("my memory\n", encoding="utf-8")
    (home / "notebook").mkdir()
    (home / "notebook" / "log.md").write_text("# my log\n", encoding="utf-8")
    MemoryManager.open(home, clock=clock)
    MemoryManager.open(home, clock=clock)
    assert (home / "memory" / "MEMORY.md").read_text(encoding="utf-8") == "my memory\n"
    assert (home / "notebook" / "log.md").read_text(encoding="utf-8") == "# my log\n"


def test_open_with_bad_setting_names_it_and_writes_nothing(home: Path, clock):
    (home / "config.toml").write_text("memory_consolidation_min_facts = 'lots'\n", encoding="utf-8")
    with pytest.raises(SettingsError, match="memory_consolidation_min_facts"):
        MemoryManager.open(home, clock=clock)
    assert [p.name for p in home.iterdir()] == ["config.toml"]


def test_open_with_vault_that_is_a_file(home: Path, clock, tmp_path: Path):
    vault = tmp_path / "vault.txt"
    vault.write_text("x", encoding="utf-8")
    (home / "config.toml").write_text(f'notebook_path = "{vault}"\n', encoding="utf-8")
    with pytest.raises(LayoutError, match="notebook_path"):
        MemoryManager.open(home, clock=clock)
    assert vault.read_text(encoding="utf-8") == "x"
    assert [p.name for p in home.iterdir()] == ["config.toml"]


def test_open_honours_a_custom_vault_path(home: Path, clock, tmp_path: Path):
    vault = tmp_path / "Obsidian Vault"
    (vault / ".obsidian").mkdir(parents=True)
    (home / "config.toml").write_text(f'notebook_path = "{vault}"\n', encoding="utf-8")
    manager = MemoryManager.open(home, clock=clock)
    assert manager.layout.notebook_dir == vault
    assert (vault / "3_Personal").is_dir() and (vault / ".obsidian").is_dir()
    assert not (home / "notebook").exists()


# -- remember / capture ---------------------------------------------------------------------
async def test_remember_appends_and_indexes(manager: MemoryManager, today: dt.date):
    changes = await manager.capturing.remember("User prefers dark mode", category="Preference", tags=("ui",), importance=0.9)
    assert changes.logs == {today.isoformat()}
    assert changes.rows_added >= 1
    assert "- [preference] User prefers dark mode `ui importance:0.9`" in log_text(manager)
    response = await manager.searching.search("dark mode")
    assert response.hits[0].text == "User prefers dark mode"
    assert response.hits[0].source_type == "archive" and response.hits[0].date == today.isoformat()


async def test_concurrent_remembers_are_all_kept_and_indexed(manager: MemoryManager):
    await manager.capturing.remember("warm up")
    for round_ in range(3):  # passes let in between embedding slices meet the file at every stage
        texts = [f"User fact number {round_}-{n}" for n in range(8)]
        results = await asyncio.gather(*(manager.capturing.remember(t, session_id=f"s{n}") for n, t in enumerate(texts)))
        assert sum(r.rows_added for r in results) == 8
        content = log_text(manager)
        for text in texts:
            assert f"- [general] {text}" in content
        stats = await manager.indexer.stats()
        assert stats.by_source.get("archive") == 9 + 8 * round_


async def test_remember_rejects_empty_text(manager: MemoryManager):
    with pytest.raises(ValueError, match="empty"):
        await manager.capturing.remember("  \n ")


async def test_turn_capture_appends_one_block_and_indexes_only_new_rows(
    manager: MemoryManager, monkeypatch: pytest.MonkeyPatch
):
    seen: list[str] = []

    async def fake_extract(turn_text: str, settings, **_) -> list[Fact]:
        seen.append(turn_text)
        return [Fact("User lives in Redmond", "place", ("home",)), Fact("User cycles to work", "routine")]

    monkeypatch.setattr(extraction, "extract_facts", fake_extract)
    await manager.capturing.remember("earlier fact")
    when = dt.datetime(2026, 7, 20, 14, 5)
    facts, changes = await manager.process_conversation_turn_for_memories("I moved to Redmond", "Great", "session-xyz", when)
    assert [f.content for f in facts] == ["User lives in Redmond", "User cycles to work"]
    assert seen and "I moved to Redmond" in seen[0]
    assert changes.rows_added == 3 and changes.logs == {"2026-07-20"}  # two facts and the turn
    turn = manager.last_turn
    assert turn is not None and all(f.turn == turn.id for f in facts)
    text = log_text(manager)
    assert (
        f"\n## 14:05 — session-\n\n- [place] User lives in Redmond `home turn:{turn.id}`\n"
        f"- [routine] User cycles to work `turn:{turn.id}`\n"
    ) in text


async def test_turn_with_no_facts_writes_nothing(manager: MemoryManager, monkeypatch: pytest.MonkeyPatch):
    async def nothing(turn_text: str, settings, **_) -> list[Fact]:
        return []

    monkeypatch.setattr(extraction, "extract_facts", nothing)
    facts, changes = await manager.process_conversation_turn_for_memories("hi", "hello", "s")
    assert facts == [] and not changes.logs
    assert not manager.archive.path_for(manager.clock.today().isoformat()).exists()
    # the turn itself is still kept, verbatim, and searchable
    kept = manager.transcripts.read(manager.clock.today().isoformat()).turns
    assert [(t.user, t.assistant) for t in kept] == [("hi", "hello")]
    assert changes.rows_added == 1


async def test_important_fact_refreshes_memory_md(manager: MemoryManager, monkeypatch: pytest.MonkeyPatch):
    pytest.importorskip("suzent_desktop.core.engines.memory_md.promotion")

    async def important(turn_text: str, settings, **_) -> list[Fact]:
        return [Fact("User is allergic to peanuts", "health", ("allergy",), 0.95)]

    monkeypatch.setattr(extraction, "extract_facts", important)
    _, changes = await manager.process_conversation_turn_for_memories("I'm allergic to peanuts", "Noted", "s")
    assert changes.memory_md
    assert "peanuts" in manager.layout.memory_md.read_text(encoding="utf-8")


async def test_offline_capture_end_to_end(manager: MemoryManager):
    facts, changes = await manager.process_conversation_turn_for_memories(
        "I prefer dark mode. I work at Contoso.", "Noted.", "offline-1"
    )
    if facts:  # what the offline extractor catches is its own business; what it returns must be stored
        text = log_text(manager)
        assert all(f.content in text for f in facts)
        assert changes.rows_added == len(facts) + 1  # the facts and the verbatim turn


# -- search / forget -------------------------------------------------------------------------------
async def test_search_records_recall_unless_told_not_to(manager: MemoryManager):
    await manager.capturing.remember("User plays chess on Sundays")
    await manager.searching.search("chess", record_recall=False)
    assert not manager.layout.recall_log.exists()
    response = await manager.searching.search("chess")
    records = [json.loads(line) for line in manager.layout.recall_log.read_text(encoding="utf-8").splitlines()]
    assert len(records) == len(response.hits) >= 1
    assert records[0]["snippet"] == response.hits[0].text[:160]
    assert records[0]["source_type"] == response.hits[0].source_type


async def test_forget_removes_rows_and_blocks_reindex(manager: MemoryManager):
    await manager.capturing.remember("User's door code is 4417")
    await manager.capturing.remember("User likes jazz")
    changes = await manager.forgetting.forget("USER'S door code is 4417 ")
    assert changes.tombstones and changes.rows_removed == 1
    assert manager.tombstones.is_tombstoned("user's door code is 4417")
    for full in (False, True):
        await manager.indexing.reindex(full=full)
        texts = [h.text for h in (await manager.searching.search("door code", record_recall=False)).hits]
        assert "User's door code is 4417" not in texts
    assert "User's door code is 4417" in log_text(manager)  # the raw log is never rewritten


async def test_forget_nothing_matched(manager: MemoryManager):
    with pytest.raises(ForgetRefused, match="nothing was recorded"):
        await manager.forgetting.forget("never said this")
    assert not manager.layout.tombstones_file.exists() or "never said" not in manager.layout.tombstones_file.read_text()
    changes = await manager.forgetting.forget("never said this", force=True)  # text not captured yet, kept out of the index
    assert changes.rows_removed == 0 and changes.tombstones


async def test_forget_matches_a_notebook_paragraph(manager: MemoryManager):
    page = manager.layout.notebook_dir / "3_Personal" / "Secrets.md"
    page.write_text("# Secrets\n\nThe safe combination is 12-34-56.\n\nUser likes tea.\n", encoding="utf-8")
    await manager.indexing.reindex()
    changes = await manager.forgetting.forget("The safe combination is 12-34-56.")
    assert changes.rows_removed >= 1
    await manager.indexing.reindex(full=True)
    texts = " ".join(h.text for h in (await manager.searching.search("safe combination", record_recall=False)).hits)
    assert "12-34-56" not in texts


# -- the index ----------------------------------------------------------------------------------------
async def test_the_index_service_keeps_the_index_in_line_with_what_a_watcher_reports(manager):
    """The window's watcher and the MCP server's catch-up reach the index through ``manager.indexing``."""
    await manager.indexing.reindex()
    indexing = manager.indexing
    assert indexing.stale_paths() == []
    indexing.watch(True)  # from now on the watcher's word is trusted, no walk
    page = manager.layout.notebook_dir / "Ideas.md"
    page.write_text("# Ideas\n\nA lighthouse keeper's logbook app.\n", encoding="utf-8")
    indexing.note_changed([page])  # what the watcher saw counts as behind until a pass takes it
    assert indexing.stale_paths() == [page]
    await indexing.sync_paths([page])
    assert indexing.stale_paths() == []
    assert (await indexing.stats()).by_source.get("notebook", 0) >= 1
    hits = (await manager.searching.search("lighthouse logbook")).hits
    assert hits and hits[0].path == str(page)


# -- status ---------------------------------------------------------------------------------------------
def write_log(manager: MemoryManager, date: str, n: int) -> None:
    path = manager.archive.path_for(date)
    path.parent.mkdir(parents=True, exist_ok=True)
    body = "".join(f"- [work] fact {i} of {date}\n" for i in range(n))
    path.write_text(f"# Daily Log - {date}\n\n## 09:00 — abcd1234\n\n{body}", encoding="utf-8")


async def test_pending_dates_and_status(manager: MemoryManager, today: dt.date):
    days = [(today - dt.timedelta(days=d)).isoformat() for d in (5, 4, 3, 2, 1, 0)]
    for day in days:
        write_log(manager, day, 3)
    assert manager.dreaming.pending_dates() == days[:-1]
    manager.notebook.append_ingest(today, days[1])
    assert manager.dreaming.pending_dates() == days[2:-1]
    manager.tombstones.add(f"fact 0 of {days[2]}")
    await manager.indexing.reindex()
    status = await manager.status()
    assert status["today"] == today.isoformat()
    assert status["watermark"] == days[1]
    assert status["pending_dates"] == days[2:-1]
    assert status["pending_facts"] in (8, 9)  # tombstoned facts may or may not be counted by the gate
    assert status["next_batch"] == days[2:-1]
    assert status["last_dream"] == today.isoformat()
    assert status["last_lint"] is None
    assert status["index"]["rows"] >= 11
    assert status["index"]["stale_files"] == [] and status["index"]["errors"] == []
    json.dumps(status)


async def test_watermark_in_the_future_is_refused_naming_the_line(manager: MemoryManager, today: dt.date):
    yesterday = (today - dt.timedelta(days=1)).isoformat()
    earlier = (today - dt.timedelta(days=5)).isoformat()
    write_log(manager, yesterday, 1)
    write_log(manager, today.isoformat(), 1)
    manager.notebook.append_ingest(today, earlier)
    manager.notebook.append_ingest(today, "2030-01-01")
    line = manager.notebook.entries()[-1].line
    assert manager.dreaming.watermark() == earlier  # the future entry is not honoured
    assert manager.dreaming.pending_dates() == [yesterday]
    error = manager.notebook.watermark_error(today)
    assert f"log.md:{line}" in error and "watermark=2030-01-01" in error
    await manager.indexing.reindex()
    for date in (yesterday, today.isoformat()):  # pending facts stay in search
        texts = [h.text for h in (await manager.searching.search(f"fact 0 of {date}", record_recall=False)).hits]
        assert f"fact 0 of {date}" in texts


async def test_watermark_on_today_counts_as_yesterday(manager: MemoryManager, today: dt.date):
    yesterday = (today - dt.timedelta(days=1)).isoformat()
    manager.notebook.append_ingest(today, today.isoformat())
    assert manager.dreaming.watermark() == yesterday and manager.notebook.watermark_error(today) is None


async def test_status_reports_stale_files(manager: MemoryManager):
    await manager.indexing.reindex()
    page = manager.layout.notebook_dir / "0_Inbox" / "New.md"
    page.write_text("# New\n\nFresh page.\n", encoding="utf-8")
    status = await manager.status()
    assert any(Path(p).name == "New.md" for p in status["index"]["stale_files"])


async def test_turn_dated_in_a_consolidated_day_goes_to_today(
    manager: MemoryManager, monkeypatch: pytest.MonkeyPatch, today: dt.date
):
    async def one(turn_text: str, settings, **_) -> list[Fact]:
        return [Fact("User bought a kayak", "general")]

    monkeypatch.setattr(extraction, "extract_facts", one)
    manager.notebook.append_ingest(today, (today - dt.timedelta(days=2)).isoformat())
    old = dt.datetime.combine(today - dt.timedelta(days=3), dt.time(10, 0))
    _, changes = await manager.process_conversation_turn_for_memories("I bought a kayak", "Fun", "s", old)
    assert changes.logs == {today.isoformat()}
    recent = dt.datetime.combine(today - dt.timedelta(days=1), dt.time(11, 30))
    _, changes = await manager.process_conversation_turn_for_memories("I bought a kayak", "Fun", "s", recent)
    assert changes.logs == {recent.date().isoformat()}
    assert "## 11:30 — s" in manager.archive.path_for(recent.date()).read_text(encoding="utf-8")


async def test_remember_reports_the_line_its_fact_landed_on(manager: MemoryManager):
    first = await manager.capturing.remember("User likes tea")
    second = await manager.capturing.remember("User owns a bicycle")
    lines = manager.archive.path_for(manager.clock.today().isoformat()).read_text(encoding="utf-8").splitlines()
    assert "User likes tea" in lines[first.log_lines[0] - 1]
    assert "User owns a bicycle" in lines[second.log_lines[0] - 1]


async def test_daily_logs_kept_inside_the_vault_are_indexed_once_as_logs(home: Path, clock):
    (home / "config.toml").write_text('memory_path = "notebook/memory"\n', encoding="utf-8")
    manager = MemoryManager.open(home, clock=clock)
    assert manager.layout.memory_dir.is_relative_to(manager.layout.notebook_dir)
    await manager.capturing.remember("User likes tea")
    await manager.indexing.reindex()
    stats = await manager.indexer.stats()
    assert stats.by_source.get("archive") == 1 and stats.by_source.get("notebook", 0) == 0
    assert not any(p.is_relative_to(manager.layout.memory_dir) for p in manager.notebook.content_pages())
