"""Forgotten text leaves every door of a page at once, even when a sync put it back on the page."""

from __future__ import annotations

from pathlib import Path

import pytest
from dream_support import make_manager

from suzent_desktop.core.files.records.mcp_activity import ActivityRecorder
from suzent_desktop.core.operations import read_memory_md
from suzent_desktop.mcp_server import MemoryTools

SECRET = "User's locker code at the gym is 5521"
PAGE = f"# Gym\n\n- User trains on Tuesdays (2026-07-01)\n- {SECRET} (2026-07-01)\n\nNotes of my own.\n"


@pytest.fixture
def manager(home: Path, clock):
    manager = make_manager(home, clock)
    path = manager.layout.notebook_dir / "3_Personal" / "Gym.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(PAGE, encoding="utf-8")
    manager.layout.memory_md.write_text(f"# Memory\n\n- {SECRET}\n", encoding="utf-8")
    return manager


def _tools(manager) -> MemoryTools:
    return MemoryTools(manager, read_only=True, activity=ActivityRecorder(manager.layout.mcp_activity_file, enabled=False))


async def test_a_forget_synced_in_is_off_every_door_before_any_pass(manager):
    """Another device forgot the fact; its tombstone arrived here, the page still holds it."""
    await manager.indexing.reindex()
    manager.tombstones.add(SECRET)  # the synced tombstone file: nothing has touched the page yet
    page = manager.layout.notebook_dir / "3_Personal" / "Gym.md"
    assert SECRET in page.read_text(encoding="utf-8")
    tools = _tools(manager)
    read = await tools.read_page("3_Personal/Gym.md")
    assert "5521" not in read["text"] and "User trains on Tuesdays" in read["text"] and "Notes of my own" in read["text"]
    assert read["total_chars"] == len(PAGE)  # offsets stay the file's
    assert "5521" not in tools.page_text("3_Personal/Gym.md")
    assert "5521" not in tools.core_text("MEMORY.md")
    assert "5521" not in (await tools.core_memory())["MEMORY.md"]
    assert "5521" not in (read_memory_md(manager) or "")


async def test_the_next_index_pass_takes_synced_back_text_off_the_page(manager):
    page = manager.layout.notebook_dir / "3_Personal" / "Gym.md"
    await manager.indexing.reindex()
    await manager.forgetting.forget(SECRET)
    assert "5521" not in page.read_text(encoding="utf-8")
    page.write_text(PAGE, encoding="utf-8")  # another device's version, written before the forget reached it
    changes = await manager.indexing.sync_paths([page])  # the watcher's pass
    assert "5521" not in page.read_text(encoding="utf-8") and "Notes of my own" in page.read_text(encoding="utf-8")
    assert page in changes.pages
    await manager.forgetting.undo(SECRET)  # journalled like a forget: undo puts the line back
    assert SECRET in page.read_text(encoding="utf-8")


async def test_a_tombstone_synced_in_is_applied_to_pages_by_the_next_pass(manager):
    page = manager.layout.notebook_dir / "3_Personal" / "Gym.md"
    await manager.indexing.reindex()
    manager.tombstones.add(SECRET)
    await manager.indexing.sync_paths([manager.tombstones.path])  # the watcher saw the tombstone file change
    assert "5521" not in page.read_text(encoding="utf-8")
    assert "5521" not in manager.layout.memory_md.read_text(encoding="utf-8")


async def test_a_long_page_reads_on_from_the_files_offsets(manager):
    from suzent_desktop.mcp_server import READ_LIMIT_CHARS

    path = manager.layout.notebook_dir / "3_Personal" / "Gym.md"
    filler = "".join(f"Paragraph {i} of my training diary, kept as written.\n\n" for i in range(2000))
    path.write_text(PAGE + "\n" + filler, encoding="utf-8")
    manager.tombstones.add(SECRET)
    tools = _tools(manager)
    first = await tools.read_page("3_Personal/Gym.md")
    assert "5521" not in first["text"] and first["next_offset"] == READ_LIMIT_CHARS
    rest = await tools.read_page("3_Personal/Gym.md", offset=first["next_offset"])
    whole = path.read_text(encoding="utf-8")
    assert rest["text"] == whole[READ_LIMIT_CHARS:2 * READ_LIMIT_CHARS]  # nothing skipped, nothing read twice
