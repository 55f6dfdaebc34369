"""Forget is exact or refuses: cut-short or ambiguous text lists the candidates, text that
matches nothing records nothing (unless forced), a pasted log line or a trailing full stop
names the fact as logged."""

from __future__ import annotations

import pytest
from dream_support import make_manager

from suzent_desktop.core.engines.forget_match import ForgetRefused
from suzent_desktop.core.files.records.log_grammar import Fact

FACTS = [f"User owns {n} bicycles" for n in range(12)] + ["User lives in Oslo", "User prefers compact dashboards"]


@pytest.fixture
async def manager(home, clock):
    manager = make_manager(home, clock)
    for text in FACTS:
        await manager.capturing.remember(text, category="preference")
    return manager


def _stones(manager) -> bytes:
    path = manager.layout.tombstones_file
    return path.read_bytes() if path.exists() else b""


async def _found(manager, text: str) -> bool:
    hits = (await manager.searching.search(text, limit=20, record_recall=False)).hits
    return any(h.text == text for h in hits)


async def test_cut_short_text_that_begins_several_memories_is_refused_with_them_listed(manager):
    before = _stones(manager)
    with pytest.raises(ForgetRefused) as refused:
        await manager.forgetting.forget("User …")
    assert len(refused.value.candidates) >= 3 and "User lives in Oslo" in refused.value.candidates
    assert "could mean" in str(refused.value)
    assert _stones(manager) == before
    assert all([await _found(manager, text) for text in ("User lives in Oslo", "User owns 3 bicycles")])


async def test_cut_short_text_that_begins_one_memory_forgets_it(manager):
    changes = await manager.forgetting.forget("User lives in Os…")
    assert changes.forgotten == ["user lives in oslo"] and not await _found(manager, "User lives in Oslo")


async def test_text_that_matches_nothing_records_nothing_unless_forced(manager):
    before = _stones(manager)
    with pytest.raises(ForgetRefused, match="nothing was recorded"):
        await manager.forgetting.forget("User keeps bees on the roof")
    assert _stones(manager) == before
    changes = await manager.forgetting.forget("User keeps bees on the roof", force=True)
    assert changes.forgotten == ["user keeps bees on the roof"]


@pytest.mark.parametrize("typed", ["- [preference] User prefers compact dashboards `ui`",
                                   "[preference] User prefers compact dashboards",
                                   "User prefers compact dashboards."])
async def test_a_pasted_log_line_or_a_full_stop_names_the_fact_as_logged(manager, typed):
    changes = await manager.forgetting.forget(typed)
    assert changes.forgotten == ["user prefers compact dashboards"]
    assert changes.rows_removed >= 1 and not await _found(manager, "User prefers compact dashboards")


async def test_a_fact_not_indexed_yet_but_in_a_log_is_forgotten(home, clock):
    manager = make_manager(home, clock)
    manager.archive.append_turn([Fact("User sails on Sundays")], session_id="s", when=clock.now())
    changes = await manager.forgetting.forget("User sails on Sundays.")
    assert changes.forgotten == ["user sails on sundays"]
