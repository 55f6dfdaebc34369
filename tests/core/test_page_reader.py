"""read_page streams its part (memory holds a chunk, not the page) and refuses binary pages."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest
from dream_support import make_manager

from suzent_desktop.core.files.records.mcp_activity import ActivityRecorder
from suzent_desktop.core.vault.page_reader import UnservablePage, read_part
from suzent_desktop.mcp_server import READ_LIMIT_CHARS, MemoryTools


@pytest.fixture
def tools(home, clock):
    manager = make_manager(home, clock)
    return MemoryTools(manager, read_only=True, activity=ActivityRecorder(Path("/nonexistent"), enabled=False))


async def test_a_part_of_a_long_page_is_read_without_holding_the_page(tools):
    page = tools.vault.root / "2_Wiki" / "Long.md"
    line = "- é line of a very long list\n"
    page.write_text(line * 1_000_000, encoding="utf-8")  # 30 MB, 29 M characters
    tracemalloc.start()
    try:
        result = await tools.read_page("2_Wiki/Long.md", offset=1_000_000)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 12_000_000, peak  # a chunk and the part, not 30 MB of bytes plus the text
    expected = (line * 1_000_000)[1_000_000 : 1_000_000 + READ_LIMIT_CHARS]
    assert result["text"] == expected and result["total_chars"] == len(line) * 1_000_000
    assert result["next_offset"] == 1_000_000 + READ_LIMIT_CHARS


async def test_a_binary_page_is_refused_at_once(tools):
    page = tools.vault.root / "2_Wiki" / "Sparse.md"
    with page.open("wb") as handle:
        handle.truncate(1 << 30)  # a 1 GB sparse file: zeros
    with pytest.raises(UnservablePage, match="binary"):
        await tools.read_page("2_Wiki/Sparse.md")


def test_text_that_is_not_utf8_is_refused_with_its_byte(tmp_path):
    page = tmp_path / "Latin.md"
    page.write_bytes(b"# Caf\xe9\n")
    with pytest.raises(UnservablePage, match="byte 5"):
        read_part(page, "Latin.md", 0, 100)
    page.write_bytes("\ufeff# Short\n".encode())
    assert read_part(page, "Short.md", 2, 100) == ("Short\n", 8)
