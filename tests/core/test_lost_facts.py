"""A page that loses a consolidated fact: the fact is searchable from its log again and the next dream puts it back."""

from __future__ import annotations

import os

import pytest
from dream_support import days_before, make_manager, notebook_text, page, write_log

from suzent_desktop.core.engines.ledger import lost_facts
from suzent_desktop.core.engines.ledger.lost_facts import LostFacts
from suzent_desktop.core.index.ranking.filters import Filters
from suzent_desktop.core.index.rows.planner import NOT_CONSOLIDATED

SUSHI, JAZZ = "User loves sushi", "User loves jazz"  # both tastes: one Preferences page
CELLO, LISBON = "User's sister Ana plays the cello", "User's sister Ana lives in Lisbon"
PREFERENCES = "3_Personal/Preferences.md"


@pytest.fixture
async def dreamt(home, clock, today):
    """Two dreams: the first puts SUSHI and CELLO on pages, the second JAZZ and LISBON on the same
    pages; returns the manager, the pages as the first dream left them, and the next free day."""
    manager = make_manager(home, clock, embedding_model="hashing")
    d1, d2, d3 = days_before(today, 3)
    write_log(manager, d1, [CELLO, SUSHI])
    assert (await manager.dreaming.runner().run_once(force=True)).outcome == "productive"
    root = manager.layout.notebook_dir
    older = {rel: ((root / rel).read_bytes(), (root / rel).stat().st_mtime_ns) for rel in (PREFERENCES, "3_Personal/Ana.md")}
    write_log(manager, d2, [LISBON, JAZZ])
    assert (await manager.dreaming.runner().run_once(force=True)).outcome == "productive"
    assert JAZZ in page(manager, PREFERENCES) and LISBON in page(manager, "3_Personal/Ana.md")
    await manager.indexing.reindex()
    return manager, older, d3


async def _archive_hits(manager, text: str):
    """Hits of ``text`` from the daily logs (MEMORY.md may hold it too, and would rank first)."""
    hits = (await manager.searching.search(text, limit=20, filters=Filters(source="archive"), record_recall=False)).hits
    return [h for h in hits if h.text == text and h.source_type == "archive"]


async def _not_consolidated(manager) -> set[str]:
    return {f["text"] for f in (await manager.status())["not_consolidated"]}


def _replace(manager, rel: str, data: bytes, mtime_ns: int | None = None) -> None:
    """What a sync tool does: a new file renamed over the page, with the other side's time."""
    path = manager.layout.notebook_dir / rel
    temp = path.with_name(".incoming.tmp")
    temp.write_bytes(data)
    if mtime_ns is not None:
        os.utime(temp, ns=(mtime_ns, mtime_ns))
    os.replace(temp, path)


async def test_a_page_overwritten_with_an_older_version_gives_the_fact_back_to_search_and_to_the_next_dream(dreamt):
    manager, older, next_day = dreamt
    assert not await _archive_hits(manager, JAZZ)  # consolidated: only the page holds it
    data, mtime = older[PREFERENCES]
    _replace(manager, PREFERENCES, data, mtime)  # the first dream's version, its time kept
    assert JAZZ not in page(manager, PREFERENCES)

    await manager.indexing.reindex()
    hits = await _archive_hits(manager, JAZZ)
    assert hits and hits[0].heading == NOT_CONSOLIDATED
    assert not await _archive_hits(manager, SUSHI)  # still on the older version: nothing changes for it
    assert await _not_consolidated(manager) == {JAZZ}

    write_log(manager, next_day, ["User bakes rye bread"])
    result = await manager.dreaming.runner().run_once(force=True)
    assert result.outcome == "productive" and result.uncovered == []
    assert JAZZ in notebook_text(manager)
    assert await _not_consolidated(manager) == set()
    assert LostFacts(manager.layout, manager.vault).lost(manager.dreaming.days()) == []
    assert not await _archive_hits(manager, JAZZ)
    assert (await manager.indexer.stats()).by_source.get("archive", 0) == 0


async def test_a_bullet_deleted_by_hand_comes_back_and_a_forgotten_fact_does_not(dreamt):
    manager, _older, next_day = dreamt
    text = page(manager, PREFERENCES)
    _replace(manager, PREFERENCES, "".join(line for line in text.splitlines(True) if JAZZ not in line).encode())
    await manager.forgetting.forget(LISBON)  # forget takes it off its page: a memory removed on purpose
    assert LISBON not in page(manager, "3_Personal/Ana.md")

    await manager.indexing.reindex()
    assert await _not_consolidated(manager) == {JAZZ}
    assert await _archive_hits(manager, JAZZ)
    assert not [h for h in (await manager.searching.search(LISBON, limit=20, record_recall=False)).hits if LISBON in h.text]

    write_log(manager, next_day, ["User bakes rye bread"])
    assert (await manager.dreaming.runner().run_once(force=True)).outcome == "productive"
    assert JAZZ in notebook_text(manager) and LISBON not in notebook_text(manager)
    assert await _not_consolidated(manager) == set()
    assert LostFacts(manager.layout, manager.vault).lost(manager.dreaming.days()) == []  # its entry stays, for an undo: never listed


async def test_a_page_edit_that_keeps_every_fact_changes_nothing(dreamt, monkeypatch):
    manager, _older, _next_day = dreamt
    check = LostFacts(manager.layout, manager.vault)
    assert check.lost(manager.dreaming.days()) == []
    text = page(manager, PREFERENCES)
    _replace(manager, PREFERENCES, (text + "\nA note of my own about music and walks.\n").encode())
    real = lost_facts._lines_of
    monkeypatch.setattr(lost_facts, "_lines_of", lambda *args: pytest.fail("no fact left its page"))
    assert check.lost(manager.dreaming.days()) == []  # the changed page alone was read
    monkeypatch.setattr(lost_facts, "_lines_of", real)
    ana = page(manager, "3_Personal/Ana.md")  # a bullet moved by hand to a page of its own
    _replace(manager, "3_Personal/Ana.md", "".join(line for line in ana.splitlines(True) if LISBON not in line).encode())
    (manager.layout.notebook_dir / "3_Personal/Lisbon.md").write_text(f"# Lisbon\n\n- {LISBON}\n", encoding="utf-8")

    assert check.lost(manager.dreaming.days()) == []
    stale = {p.name for p in manager.indexer.stale_paths(refresh=True)}
    assert stale == {"Preferences.md", "Ana.md", "Lisbon.md"}  # the pages alone: no daily log is behind
    await manager.indexing.reindex()
    assert await _not_consolidated(manager) == set()
    assert (await manager.indexer.stats()).by_source.get("archive", 0) == 0


async def test_values_a_later_dream_moves_to_history_stay_held(home, clock, today):
    manager = make_manager(home, clock, embedding_model="hashing")
    d1, d2 = days_before(today, 2)
    write_log(manager, d1, ["User lives in Paris", "User likes green tea"])
    await manager.dreaming.runner().run_once(force=True)
    write_log(manager, d2, ["User moved to Berlin", "User likes green tea."])
    assert (await manager.dreaming.runner().run_once(force=True)).outcome == "productive"
    assert "~~User lives in Paris~~" in page(manager, "3_Personal/Places.md")
    assert "User lives in Paris" in {f.text for f in lost_facts.load(manager.layout)}
    assert LostFacts(manager.layout, manager.vault).lost(manager.dreaming.days()) == []


async def test_a_fact_forgotten_during_a_dream_and_undone_comes_back_when_its_page_loses_it(dreamt):
    """Undo makes a fact a memory again: when the page it went back to is then replaced by a version
    written while it was forgotten (another device's copy, carried by a sync tool), it is given back."""
    manager, _older, next_day = dreamt
    await manager.forgetting.forget(JAZZ)  # taken off its page
    write_log(manager, next_day, ["User bakes rye bread"])
    assert (await manager.dreaming.runner().run_once(force=True)).outcome == "productive"  # a dream while forgotten
    without = (manager.layout.notebook_dir / PREFERENCES).read_bytes()
    await manager.forgetting.undo(JAZZ)
    assert JAZZ in page(manager, PREFERENCES)  # put back where it stood
    _replace(manager, PREFERENCES, without)  # the version written while it was forgotten arrives
    assert JAZZ not in notebook_text(manager)

    await manager.indexing.reindex()
    assert await _not_consolidated(manager) == {JAZZ}
    assert [h for h in (await manager.searching.search(JAZZ, limit=20, record_recall=False)).hits if JAZZ in h.text]


async def test_dream_force_with_nothing_pending_consolidates_the_facts_given_back(dreamt):
    manager, older, _next_day = dreamt
    data, mtime = older[PREFERENCES]
    _replace(manager, PREFERENCES, data, mtime)  # a sync brings the first dream's version back: JAZZ leaves it
    await manager.indexing.reindex()
    assert await _not_consolidated(manager) == {JAZZ} and manager.dreaming.pending_dates() == []
    watermark, log_md = manager.dreaming.watermark(), manager.layout.log_md.read_bytes()

    result = await manager.dreaming.runner().run_once(force=True)  # `dream --force`: no daily log waits

    assert result.outcome == "productive" and result.uncovered == [] and result.batch == [], result.reason
    assert JAZZ in notebook_text(manager)
    assert await _not_consolidated(manager) == set()
    assert manager.dreaming.watermark() == watermark and manager.layout.log_md.read_bytes() == log_md
    assert not await _archive_hits(manager, JAZZ)
    # Without --force the schedule leaves them for the next day's batch, as before.
    assert (await manager.dreaming.runner().run_once()).outcome == "nothing_pending"


async def test_a_fact_moved_by_hand_is_found_on_its_new_page_through_the_watched_vault_model(dreamt):
    manager, _older, _next_day = dreamt
    vault = manager.vault
    vault.watch(True)  # as the window's watcher: the model is kept current, the disk is not walked again
    vault.snapshot()
    ana = manager.layout.notebook_dir / "3_Personal/Ana.md"
    moved = manager.layout.notebook_dir / "3_Personal/Lisbon.md"
    _replace(manager, "3_Personal/Ana.md",
             "".join(line for line in page(manager, "3_Personal/Ana.md").splitlines(True) if LISBON not in line).encode())
    moved.write_text(f"# Lisbon\n\n- {LISBON}\n", encoding="utf-8")
    vault.apply([ana, moved])
    walks = vault.walks
    check = LostFacts(manager.layout, vault)
    assert check.lost(manager.dreaming.days()) == []  # held by the page the model was told about
    assert vault.walks == walks
    moved.unlink()
    vault.apply([moved])
    assert [text for _date, text, _line in check.lost(manager.dreaming.days())] == [LISBON]  # on no page now
    assert vault.walks == walks
