"""``suzent-desktop mcp`` driven by the SDK's own stdio client, as an agent would use it."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
from pathlib import Path

import pytest
from mcp import ClientSession, MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp_support import mcp_session, server_params, tree_snapshot

WRITE_TOOLS = {"capture_turn", "remember", "forget", "settle_review"}
READ_TOOLS = {"search_memory", "memory_status", "core_memory", "read_page", "list_pages", "backlinks", "list_tags",
              "memory_source", "review_memory"}
ACTIVITY = "mcp_activity.json"


def _doc(result) -> dict:  # noqa: ANN001
    assert not result.is_error, result.content
    return result.structured_content


def _error(result) -> str:  # noqa: ANN001
    assert result.is_error, result.structured_content
    return " ".join(c.text for c in result.content)


@pytest.fixture
def vault_home(home: Path) -> Path:
    page = home / "notebook" / "2_Wiki" / "Concepts" / "Espresso.md"
    page.parent.mkdir(parents=True)
    page.write_text("# Espresso\n\nA short strong coffee; the user drinks one after lunch.\n", encoding="utf-8")
    (home / "memory").mkdir()
    (home / "memory" / "user.md").write_text("# User\n\nName: Sam.\n", encoding="utf-8")
    return home


async def test_lists_tools_and_resources_and_reads_them(vault_home: Path) -> None:
    async with mcp_session(vault_home) as session:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert set(tools) == READ_TOOLS | WRITE_TOOLS  # dream and lint stay off without the setting
        for name in WRITE_TOOLS:
            assert "secret" in tools[name].description.lower() or name in ("forget", "settle_review")
            assert tools[name].annotations.read_only_hint is False
        assert tools["search_memory"].annotations.read_only_hint is True
        assert tools["capture_turn"].input_schema["properties"]["user"]["maxLength"] > 0

        uris = {str(r.uri) for r in (await session.list_resources()).resources}
        assert {"memory://MEMORY.md", "memory://persona.md", "memory://user.md"} <= uris
        assert "memory://notebook/2_Wiki/Concepts/Espresso.md" in uris
        user = await session.read_resource("memory://user.md")
        assert user.contents[0].text == "# User\n\nName: Sam.\n"
        page = await session.read_resource("memory://notebook/2_Wiki/Concepts/Espresso.md")
        assert "drinks one after lunch" in page.contents[0].text
        persona = await session.read_resource("memory://persona.md")
        assert persona.contents[0].text == ""  # not written yet: empty, not an error
        core = _doc(await session.call_tool("core_memory", {}))
        assert core == {"MEMORY.md": "# Memory\n", "user.md": "# User\n\nName: Sam.\n", "persona.md": ""}

        listed = _doc(await session.call_tool("list_pages", {"folder": "2_Wiki"}))
        assert "2_Wiki/Concepts/Espresso.md" in listed["pages"]
        read = _doc(await session.call_tool("read_page", {"path": "2_Wiki/Concepts/Espresso.md"}))
        assert read["text"].startswith("# Espresso") and read["next_offset"] is None

        hand = vault_home / "notebook" / "0_Inbox" / "Tea.md"
        hand.parent.mkdir(exist_ok=True)
        hand.write_text("# Tea\n\nJasmine tea is the user's evening drink.\n", encoding="utf-8")  # an edit elsewhere
        by_hand = _doc(await session.call_tool("search_memory", {"query": "jasmine evening drink"}))
        assert any(h.get("page") == "0_Inbox/Tea.md" for h in by_hand["hits"])

        found = _doc(await session.call_tool("search_memory", {"query": "strong coffee after lunch", "source": "notebook"}))
        hit = next(h for h in found["hits"] if "after lunch" in h["text"])
        assert hit["page"] == "2_Wiki/Concepts/Espresso.md" and hit["line"] is None or hit["line"] >= 1
        gone = _doc(await session.call_tool("forget", {"hit_id": hit["id"]}))
        assert gone["matched"]
        reread = _doc(await session.call_tool("read_page", {"path": hit["page"]}))
        assert "after lunch" not in reread["text"] and reread["text"].startswith("# Espresso")


async def test_a_retried_capture_turn_writes_its_facts_once(home: Path) -> None:
    turn = {"user": "I moved to Lisbon last month", "assistant": "Nice", "session_id": "chat-7",
            "timestamp": "2026-07-19T09:00:00"}
    async with mcp_session(home) as session:
        first = _doc(await session.call_tool("capture_turn", turn))
        log = Path(first["path"])
        before = log.read_bytes()
        again = _doc(await session.call_tool("capture_turn", turn))
    assert first["facts"] and again["facts"] == first["facts"] and again["lines"] == first["lines"]
    assert "captured before" in again["message"] and log.read_bytes() == before


async def test_capture_search_forget_round_trip_on_disk(home: Path, today) -> None:  # noqa: ANN001
    async with mcp_session(home) as session:
        captured = _doc(
            await session.call_tool(
                "capture_turn",
                {
                    "user": "I moved to Lisbon last month and I prefer green tea over coffee",
                    "assistant": "Noted, enjoy Lisbon!",
                    "session_id": "chat-42",
                },
            )
        )
        assert captured["facts"] and captured["date"] == today.isoformat()
        log = Path(captured["path"])
        assert log == home / "memory" / "archive" / f"{today.isoformat()}.md"
        lines = log.read_text(encoding="utf-8").splitlines()
        assert "chat-42" in "\n".join(lines)
        tea_line = next(n for n in captured["lines"] if "green tea" in lines[n - 1])
        assert "enjoy Lisbon" not in log.read_text(encoding="utf-8")  # the reply is never a fact
        kept = Path(captured["turn"]["path"]).read_text(encoding="utf-8").splitlines()[captured["turn"]["line"] - 1]
        assert "prefer green tea" in kept and "enjoy Lisbon" in kept  # the turn itself, word for word

        remembered = _doc(
            await session.call_tool(
                "remember", {"text": "The user's daughter Mia starts school in September", "category": "family",
                             "tags": ["mia"], "importance": 0.4}
            )
        )
        assert "Mia starts school" in log.read_text(encoding="utf-8").splitlines()[remembered["line"] - 1]

        found = _doc(await session.call_tool("search_memory", {"query": "green tea", "limit": 5}))
        hit = next(h for h in found["hits"] if "green tea" in h["text"])
        assert hit["source"] == "archive" and hit["path"] == str(log)
        assert hit["line"] == tea_line and hit["date"] == today.isoformat() and hit["score"] > 0
        dated = _doc(await session.call_tool(
            "search_memory", {"query": "green tea", "date_from": "2020-01-01", "date_to": "2020-12-31"}
        ))
        assert dated["hits"] == []

        gone = _doc(await session.call_tool("forget", {"hit_id": hit["id"]}))
        assert gone["matched"] and gone["rows_removed"] >= 1
        assert any("green tea" in stone for stone in gone["forgotten"])
        again = _doc(await session.call_tool("search_memory", {"query": "green tea", "limit": 5}))
        assert all("green tea" not in h["text"] for h in again["hits"])
        status = _doc(await session.call_tool("memory_status", {}))
        assert status["today"] == today.isoformat() and status["server"]["read_only"] is False

    stones = (home / "notebook" / ".state" / "tombstones.jsonl").read_text(encoding="utf-8")
    assert "green tea" in stones
    assert "green tea" in log.read_text(encoding="utf-8")  # the user's log is never rewritten
    activity = json.loads((home / "notebook" / ".state" / ACTIVITY).read_text(encoding="utf-8"))
    assert activity["connected"] is False and activity["calls"] >= 6


async def test_bad_inputs_get_errors_and_change_nothing(vault_home: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.md"
    outside.write_text("# outside the vault\n", encoding="utf-8")
    (vault_home / "notebook" / "escape.md").symlink_to(outside)
    async with mcp_session(vault_home) as session:
        _doc(await session.call_tool("memory_status", {}))  # the server is up; the home is bootstrapped
        before = tree_snapshot(vault_home, skip=(ACTIVITY,))
        huge = "x" * (2 * 1024 * 1024)
        assert "Unknown tool" in _error(await session.call_tool("drop_everything", {}))
        for name, args, says in [
            ("search_memory", {"query": 3}, "query"),
            ("search_memory", {"query": "tea", "limit": "many"}, "limit"),
            ("search_memory", {"query": "tea", "limit": 10_000}, "limit"),
            ("search_memory", {"query": "tea", "source": "email"}, "source"),
            ("search_memory", {"query": "tea", "date_from": "last week"}, "date_from"),
            ("search_memory", {"query": "tea", "date_from": "2026-02-31"}, "date_from"),
            ("remember", {"text": "fact", "tags": "not-a-list"}, "tags"),
            ("remember", {"text": "fact", "importance": 7}, "importance"),
            ("remember", {"text": "   "}, "empty"),
            ("capture_turn", {"user": "hello", "timestamp": "yesterday-ish"}, "timestamp"),
            ("capture_turn", {"assistant": "no user"}, "user"),
            ("forget", {}, "exactly one"),
            ("forget", {"hit_id": "not-a-hit"}, "search again"),
            ("read_page", {"path": "../config.toml"}, ".."),
            ("read_page", {"path": "2_Wiki/../../config.toml"}, ".."),
            ("read_page", {"path": str(outside)}, "absolute"),
            ("read_page", {"path": "escape.md"}, "outside the vault"),
            ("read_page", {"path": ".state/tombstones.jsonl"}, "hidden"),
            ("read_page", {"path": "2_Wiki/Concepts/Missing.md"}, "no such page"),
            ("list_pages", {"folder": "../memory"}, ".."),
            ("capture_turn", {"user": huge, "assistant": ""}, "at most"),
            ("remember", {"text": huge}, "at most"),
            ("search_memory", {"query": huge}, "at most"),
            ("forget", {"text": huge}, "at most"),
        ]:
            message = _error(await session.call_tool(name, args))
            assert says in message, (name, args, message)
            assert huge not in message  # an error never echoes a large argument back
        for uri in ("memory://notebook/../config.toml", "memory://notebook/escape.md", "memory://nothing.md"):
            with pytest.raises(MCPError):
                await session.read_resource(uri)
        assert tree_snapshot(vault_home, skip=(ACTIVITY,)) == before
        _doc(await session.call_tool("search_memory", {"query": "espresso"}))  # still serving after all that


async def test_backlinks_and_tags_from_the_vault_model(vault_home: Path) -> None:
    page = vault_home / "notebook" / "0_Inbox" / "Cafe.md"
    page.parent.mkdir(exist_ok=True)
    page.write_text("---\ntags: [drinks]\n---\nOrdered an [[Espresso]]. #drinks/coffee\n\nespresso again\n", encoding="utf-8")
    async with mcp_session(vault_home, "--read-only") as session:
        found = _doc(await session.call_tool("backlinks", {"page": "Espresso"}))
        assert found["page"] == "2_Wiki/Concepts/Espresso.md"
        assert found["backlinks"] == [{"path": "0_Inbox/Cafe.md", "line": 4, "context": "Ordered an [[Espresso]]. #drinks/coffee"}]
        assert [(m["path"], m["line"], m["text"]) for m in found["unlinked_mentions"]] == [("0_Inbox/Cafe.md", 6, "espresso")]
        tags = _doc(await session.call_tool("list_tags", {}))
        assert tags == {"tags": [{"tag": "drinks", "count": 1}, {"tag": "drinks/coffee", "count": 1}]}
        assert "no page or file" in _error(await session.call_tool("backlinks", {"page": "Nowhere"}))


async def test_read_only_serves_reads_and_writes_nothing(vault_home: Path) -> None:
    async with mcp_session(vault_home) as session:  # a first, writing run bootstraps the home and the index
        _doc(await session.call_tool("remember", {"text": "The user likes espresso after lunch"}))
    before = tree_snapshot(vault_home)
    async with mcp_session(vault_home, "--read-only") as session:
        tools = {t.name for t in (await session.list_tools()).tools}
        assert tools == READ_TOOLS
        assert "Unknown tool" in _error(await session.call_tool("remember", {"text": "sneaky"}))
        found = _doc(await session.call_tool("search_memory", {"query": "espresso after lunch"}))
        assert any("espresso" in h["text"] for h in found["hits"])
        assert _doc(await session.call_tool("memory_status", {}))["server"]["read_only"] is True
        await session.read_resource("memory://MEMORY.md")
    assert tree_snapshot(vault_home) == before  # no recall log, no heartbeat, no index catch-up


async def test_maintenance_tools_only_with_the_setting(home: Path) -> None:
    (home / "config.toml").write_text("mcp_allow_maintenance = true\n", encoding="utf-8")
    async with mcp_session(home) as session:
        tools = {t.name for t in (await session.list_tools()).tools}
        assert {"dream", "lint"} <= tools
        dream = _doc(await session.call_tool("dream", {"dry_run": True}))
        assert dream["dry_run"] is True and dream["outcome"]
        lint = _doc(await session.call_tool("lint", {}))
        assert lint["ok"] is True
    assert "lint" in (home / "notebook" / "log.md").read_text(encoding="utf-8")
    async with mcp_session(home, "--read-only") as session:
        assert not {"dream", "lint"} & {t.name for t in (await session.list_tools()).tools}


async def test_http_transport_on_localhost(home: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    params = server_params(home, "--http", str(port))
    env = {**os.environ, **params.env}
    proc = subprocess.Popen([params.command, *params.args], env=env, stderr=subprocess.PIPE)
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 60
        while True:  # the server process is up once its port accepts a connection
            assert proc.poll() is None, proc.stderr.read().decode()
            try:
                _reader, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.close()
                break
            except OSError:
                assert loop.time() < deadline, "the HTTP server did not start"
                await asyncio.sleep(0.1)
        async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write, *_):
            async with ClientSession(read, write) as session:
                await session.initialize()
                kept = _doc(await session.call_tool("remember", {"text": "The user reads science fiction on trains"}))
                found = _doc(await session.call_tool("search_memory", {"query": "science fiction trains"}))
                assert any("science fiction" in h["text"] for h in found["hits"])
                # a client of the HTTP server may be on another machine: no path of this one reaches it
                assert kept["path"].startswith("memory/archive/") and str(home) not in json.dumps([kept, found])
                assert any(h["path"].startswith("memory/archive/") for h in found["hits"])
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert "science fiction" in "".join(p.read_text() for p in (home / "memory" / "archive").glob("*.md"))


async def test_search_memory_reads_the_search_operators(vault_home: Path) -> None:
    tagged = vault_home / "notebook" / "2_Wiki" / "Ristretto.md"
    tagged.write_text("---\ntags: coffee/short\n---\n# Ristretto\n\nAn even shorter coffee.\n", encoding="utf-8")
    async with mcp_session(vault_home) as session:
        found = _doc(await session.call_tool("search_memory", {"query": "short coffee tag:coffee"}))
        assert [h["page"] for h in found["hits"]] == ["2_Wiki/Ristretto.md"]
        listed = _doc(await session.call_tool("search_memory", {"query": "tag:coffee/short"}))
        assert listed["mode"] == "list" and [h["page"] for h in listed["hits"]] == ["2_Wiki/Ristretto.md"]
        found = _doc(await session.call_tool("search_memory", {"query": 'coffee -"even shorter"'}))
        assert found["hits"] and all("even shorter" not in h["text"] for h in found["hits"])


async def test_a_hit_id_outlives_the_connection_and_forget_is_exact_or_refused(home: Path) -> None:
    """Frameworks start a server per run: search in one, forget in the next, by the hit's id."""
    async with mcp_session(home) as session:
        for text in ("User lives in Oslo", "User owns a red kayak", "User owns a blue bicycle"):
            _doc(await session.call_tool("remember", {"text": text}))
        found = _doc(await session.call_tool("search_memory", {"query": "red kayak", "limit": 3}))
        hit = next(h for h in found["hits"] if h["text"] == "User owns a red kayak")
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert tools["forget"].input_schema["anyOf"] == [{"required": ["hit_id"]}, {"required": ["text"]}]
    stones = home / "notebook" / ".state" / "tombstones.jsonl"
    async with mcp_session(home) as session:  # a new server process: the id still names the memory
        gone = _doc(await session.call_tool("forget", {"hit_id": hit["id"]}))
        assert gone["forgotten"] == ["user owns a red kayak"]
        before = stones.read_bytes()
        ambiguous = _error(await session.call_tool("forget", {"text": "User …"}))
        assert "could mean" in ambiguous and "User owns a blue bicycle" in ambiguous
        assert "nothing was recorded" in _error(await session.call_tool("forget", {"text": "User keeps bees"}))
        assert stones.read_bytes() == before
        left = _doc(await session.call_tool("search_memory", {"query": "Oslo bicycle", "limit": 5}))
        assert {"User lives in Oslo", "User owns a blue bicycle"} <= {h["text"] for h in left["hits"]}


async def test_forget_never_edits_a_note_the_person_wrote(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In a vault the app was opened on, an agent's forget changes what it remembers, never the person's note."""
    from suzent_desktop.core.files.paths.vaults import vault_home

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    vault = tmp_path / "vault"
    (vault / "Plugins").mkdir(parents=True)
    note = vault / "Plugins" / "Graph view.md"
    note.write_text("# Graph view\n\nThe graph view shows how your notes link to one another.\n", encoding="utf-8")
    before = note.read_bytes()
    async with mcp_session(vault_home(vault)) as session:
        found = _doc(await session.call_tool("search_memory", {"query": "graph view notes link", "limit": 5}))
        hit = next(h for h in found["hits"] if "link to one another" in h["text"])
        gone = _doc(await session.call_tool("forget", {"hit_id": hit["id"]}))
        assert gone["matched"] and gone["pages_changed"] == []
        again = _doc(await session.call_tool("search_memory", {"query": "graph view notes link", "limit": 5}))
        assert all("link to one another" not in h["text"] for h in again["hits"])
    assert note.read_bytes() == before
