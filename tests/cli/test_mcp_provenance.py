"""An agent cites its memory (``memory_source``) and settles review items over MCP."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp_support import mcp_session

from suzent_desktop.cli import main


def _doc(result) -> dict:  # noqa: ANN001
    assert not result.is_error, result.content
    return result.structured_content


@pytest.fixture
def dreamed(home: Path) -> Path:
    (home / "config.toml").write_text("memory_md_needs_approval = true\n")
    turn = home / "turn.json"
    turn.write_text(json.dumps({"user": "I work at Contoso as a data engineer.", "assistant": "Noted.",
                                "session_id": "s1", "timestamp": "2026-07-10T09:00:00"}))
    assert main(["--home", str(home), "capture", str(turn)]) == 0
    assert main(["--home", str(home), "dream", "--force"]) == 0
    return home


async def test_memory_source_and_review_over_mcp(dreamed: Path) -> None:
    async with mcp_session(dreamed) as session:
        found = _doc(await session.call_tool("search_memory", {"query": "Contoso data engineer", "source": "notebook"}))
        hit = next(h for h in found["hits"] if "Contoso" in h["text"])
        card = _doc(await session.call_tool("memory_source", {"what": hit["id"]}))
        assert card["reaches_turn"] and card["sources"][0]["turn"]["sentence"] == "I work at Contoso as a data engineer."
        by_words = _doc(await session.call_tool("memory_source", {"what": "User works at Contoso"}))
        assert by_words["sources"] == card["sources"]
        core = _doc(await session.call_tool("core_memory", {}))
        assert "Contoso" not in core["MEMORY.md"], "the agent reads the approved MEMORY.md"
        listed = _doc(await session.call_tool("review_memory", {}))
        assert listed["memory_proposal"] is True
        added = [i for i in listed["items"] if i["kind"] == "added"]
        kept = _doc(await session.call_tool("settle_review", {"action": "keep", "ids": [added[0]["id"]]}))
        assert kept["done"] == "keep: 1 item"
        accepted = _doc(await session.call_tool("settle_review", {"action": "accept_memory"}))
        assert accepted["done"].startswith("accepted")
        core = _doc(await session.call_tool("core_memory", {}))
        assert "Contoso" in core["MEMORY.md"]
        again = _doc(await session.call_tool("review_memory", {}))
        assert added[0]["id"] not in {i["id"] for i in again["items"]} and again["memory_proposal"] is False
