"""The Dream service: built by open_home on the home's parts, it runs a dream with no front door."""

from __future__ import annotations

import pytest
from dream_support import FAST, days_before, write_log

from suzent_desktop.core.home import open_home
from suzent_desktop.core.index.embedding import HashingEmbedder
from suzent_desktop.core.manager import MemoryManager
from suzent_desktop.settings import load_settings


@pytest.fixture
def opened(home, clock):
    """A home as open_home builds it, and no MemoryManager may be made while a test uses it."""
    def refuse(*_args, **_kwargs):
        raise AssertionError("the dream opened a MemoryManager")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(MemoryManager, "__init__", refuse)
        yield open_home(home, settings=load_settings(home).replace(**FAST), clock=clock, embedder=HashingEmbedder())


async def test_the_dream_service_runs_a_cycle_on_a_home_with_no_manager(opened, today) -> None:
    day = days_before(today, 1)[0]
    write_log(opened, day, ["User works at Contoso", "User likes green tea"])
    dream = opened.dream
    assert dream.pending_dates() == [day] and dream.gate_status().due and dream.never_ran()

    cycle = await dream.cycle()

    assert [r.outcome for r in cycle.results] == ["productive"], cycle.results[0].reason
    assert dream.watermark() == day and dream.pending_dates() == [] and not dream.never_ran()
    assert dream.status()["last_dream"] == today.isoformat() and dream.last_run_note() == ""
    hits = (await opened.search.search("Contoso", record_recall=False)).hits
    assert any(h.source_type != "archive" for h in hits)  # the page the dream wrote is indexed


async def test_a_runner_that_follows_the_home_reads_settings_saved_after_it_was_made(opened, today) -> None:
    write_log(opened, days_before(today, 1)[0], ["User likes green tea"])
    current = [opened]
    runner = opened.dream.runner(follow=lambda: current[0].dream)
    current[0] = opened.with_settings(opened.settings.replace(memory_consolidation_enabled=False))

    result = await runner.run_once()

    assert result.outcome == "gated" and "memory_consolidation_enabled is false" in result.reason
    assert opened.dream.gate_status().due  # the home it was made on is unchanged


def test_a_home_swapped_for_settings_or_a_model_hands_the_dream_its_new_parts(opened) -> None:
    saved = opened.with_settings(opened.settings.replace(memory_consolidation_max_days=3))
    assert saved.dream.settings.memory_consolidation_max_days == 3 and saved.dream.promote is saved.promote
    assert saved.dream.archive is opened.archive and saved.dream.indexer is opened.indexer
    other = HashingEmbedder()
    switched = opened.with_embedder(other)
    assert switched.dream.embedder is other and switched.dream.lint is switched.lint
