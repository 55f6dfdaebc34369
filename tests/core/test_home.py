"""The composition root: one function opens a home; the manager reads every part from it."""

from __future__ import annotations

import dataclasses

import pytest

from suzent_desktop.core.files.paths.layout import LayoutError
from suzent_desktop.core.home import Home, open_home
from suzent_desktop.core.index.embedding import HashingEmbedder
from suzent_desktop.core.manager import MemoryManager


def test_open_home_builds_every_part_once_and_is_frozen(home, clock) -> None:
    opened = open_home(home, clock=clock, embedder=HashingEmbedder())
    assert isinstance(opened, Home) and opened.layout.memory_md.is_file() and opened.notebook.root.is_dir()
    assert opened.indexer.notebook is opened.notebook and opened.indexer.archive is opened.archive
    with pytest.raises(dataclasses.FrozenInstanceError):
        opened.clock = clock  # type: ignore[misc]


def test_the_manager_swaps_in_a_new_home_when_settings_or_the_embedder_change(home, clock) -> None:
    manager = MemoryManager.open(home, clock=clock, embedder=HashingEmbedder())
    first = manager.home
    manager.settings = manager.settings.replace(memory_consolidation_min_facts=7)
    assert manager.home is not first and manager.home.settings.memory_consolidation_min_facts == 7
    assert first.settings.memory_consolidation_min_facts != 7  # the old Home is unchanged
    assert manager.notebook is first.notebook and manager.indexer is first.indexer


def test_open_home_builds_the_services_each_on_the_stores_it_uses(home, clock) -> None:
    """Capture, Search and Forget share the home's stores; new settings reach capture (a turn kept or not)."""
    opened = open_home(home, clock=clock, embedder=HashingEmbedder())
    assert opened.capture.indexer is opened.search.indexer is opened.forget.indexer is opened.indexer
    assert opened.capture.tombstones is opened.forget.tombstones is opened.tombstones
    assert opened.capture.archive is opened.forget.archive is opened.archive
    assert opened.search.recall is opened.recall and opened.forget.vault is opened.vault


async def test_a_turn_follows_the_settings_saved_after_the_home_opened(home, clock, monkeypatch) -> None:
    from suzent_desktop.core.engines.capture import extraction

    async def no_facts(*_args, **_kwargs):
        return []

    monkeypatch.setattr(extraction, "extract_facts", no_facts)
    manager = MemoryManager.open(home, clock=clock, embedder=HashingEmbedder())
    await manager.process_conversation_turn_for_memories("I like tea", "Noted", "s1")
    assert manager.last_turn is not None
    manager.settings = manager.settings.replace(memory_keep_transcripts=False)
    await manager.process_conversation_turn_for_memories("I like coffee", "Noted", "s1")
    assert manager.last_turn is None  # not kept: the capture read the settings saved since


def test_a_home_that_is_a_file_is_refused_before_anything_is_written(tmp_path, clock) -> None:
    path = tmp_path / "home"
    path.write_text("not a folder")
    with pytest.raises(LayoutError, match="must be a folder"):
        open_home(path, clock=clock, embedder=HashingEmbedder())


async def test_promote_and_lint_are_services_that_follow_the_settings_and_the_embedder(home, clock) -> None:
    """Promote and Lint share the home's stores; saved settings reach promotion (approve MEMORY.md
    first or not) and a new model reaches lint, so neither works on a home that was replaced."""
    manager = MemoryManager.open(home, clock=clock, embedder=HashingEmbedder())
    opened = manager.home
    assert opened.promote.archive is opened.archive and opened.promote.recall is opened.recall
    assert opened.lint.notebook is opened.notebook and opened.lint.vault is opened.vault is opened.promote.vault
    manager.settings = manager.settings.replace(memory_md_needs_approval=True)
    assert manager.promoting.settings.memory_md_needs_approval and not opened.promote.settings.memory_md_needs_approval
    other = HashingEmbedder()
    manager.embedder = other
    assert manager.linting.embedder is other
    result = await manager.linting.run()
    assert result.ok and manager.notebook.last_entry("lint") is not None
