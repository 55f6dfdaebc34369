"""A search that cannot read its index says so: exit 1 with the error and the way out
(``reindex``), and an MCP tool error; never an empty list that reads as "nothing known"."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from mcp.server.mcpserver.exceptions import ToolError
from test_cli import run

from suzent_desktop.core.files.records.mcp_activity import ActivityRecorder
from suzent_desktop.core.manager import MemoryManager
from suzent_desktop.mcp_server import MemoryTools, _guarded


def _damage_table(home: Path) -> None:
    """The table's files overwritten; the index state (which files are indexed) left as it was."""
    for file in (home / ".suzent" / "memory" / "rows.lance").rglob("*"):
        if file.is_file():
            file.write_bytes(os.urandom(64))


@pytest.fixture
def damaged(home: Path, capsys) -> Path:
    assert run(capsys, home, "remember", "User keeps a sourdough starter")[0] == 0
    _damage_table(home)
    return home


def test_search_on_an_unreadable_index_exits_1_and_offers_reindex(damaged: Path, capsys):
    code, out, err = run(capsys, damaged, "--json", "search", "sourdough")
    assert code == 1
    document = json.loads(out)
    assert "search index unavailable" in document["error"] and "reindex" in document["error"]
    code, _out, err = run(capsys, damaged, "search", "sourdough")
    assert code == 1 and "reindex" in err


async def test_mcp_search_on_an_unreadable_index_is_a_tool_error(damaged: Path):
    manager = MemoryManager.open(damaged)
    tools = MemoryTools(manager, read_only=True, activity=ActivityRecorder(Path("/nonexistent"), enabled=False))
    search = _guarded("search_memory", tools.search_memory, tools.activity)
    with pytest.raises(ToolError, match="reindex"):
        await search(query="sourdough")
