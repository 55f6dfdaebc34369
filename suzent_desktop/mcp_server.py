"""``suzent-desktop mcp``: the memory as a Model Context Protocol server, for any agent.

Built on the official ``mcp`` SDK (``MCPServer``), over stdio by default or streamable HTTP
on 127.0.0.1. It opens the same :class:`MemoryManager` as the app and the command line, so
an agent's captures land in the same daily logs, the same index and the same vault; the
app may be open at the same time (log appends and index writes already take turns across
processes). Every tool goes through the manager's public methods.

Safety, in one place:

* Every string argument has a size bound in its schema (the SDK refuses larger ones before
  the tool runs), so one call can never carry more than a few hundred kilobytes.
* Page paths go through the dream tools' vault confinement (:class:`VaultTools`): no
  ``..``, no absolute paths, no symlinks out of the vault; hidden folders and non-markdown
  files are not served.
* ``--read-only`` registers only the reading tools and writes nothing at all: no recall
  signals, no index catch-up, no activity heartbeat, no bootstrap of a missing home.
* ``dream`` and ``lint`` exist only when the setting ``mcp_allow_maintenance`` is true.
* Failures a caller can act on come back as tool errors with the message (``isError``);
  the server keeps running.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.server.mcpserver.resources import FunctionResource
from mcp_types import Resource as MCPResource
from mcp_types import ToolAnnotations
from pydantic import Field, ValidationError

from suzent_desktop.core.documents import (
    SOURCES,
    backlinks_document,
    captured_turn,
    fact_dict,
    hit_dict,
    is_handled_error,
    tags_document,
)
from suzent_desktop.core.engines.dream.tools import (
    READ_LIMIT_CHARS,
    VaultAccessError,
    VaultTools,
    decode_page,
)
from suzent_desktop.core.engines.memory_md import memory_approval
from suzent_desktop.core.files.disk.regular import read_regular
from suzent_desktop.core.files.language.words import count
from suzent_desktop.core.files.records.mcp_activity import ActivityRecorder
from suzent_desktop.core.index.ranking.filters import Filters
from suzent_desktop.core.operations import apply_to_vault, shown_page
from suzent_desktop.core.vault.page_reader import read_part

if TYPE_CHECKING:
    from suzent_desktop.core.index.ranking.hits import SearchHit
    from suzent_desktop.core.manager import MemoryManager

SERVER_NAME = "suzent-desktop"

# Size bounds (characters). A conversation turn can be long; a 2 MB argument is refused.
MAX_TURN_CHARS = 50_000  # each of user / assistant
MAX_FACT_CHARS = 2_000
MAX_QUERY_CHARS = 1_000
MAX_PATH_CHARS = 1_000
MAX_TAGS = 20
MAX_TAG_CHARS = 64
MAX_LIMIT = 50
MAX_LISTED_PAGES = 2_000
MAX_RESOURCE_CHARS = 1_000_000  # a notebook page as a resource: longer ones are cut (read_page reads on)
CATCH_UP_SECONDS = 2.0  # files changed by others are looked for at most this often (a scan of every file)
HIT_ID_MEMORY = 2_048  # search hits remembered per connection, so forget can take a hit id

Source = Literal[SOURCES]  # type: ignore[valid-type]  # the command line's kinds, read at run time (both take the same)
DATE = r"^\d{4}-\d{2}-\d{2}$"

CORE_RESOURCES = (
    ("MEMORY.md", "The curated core memory: the facts that matter most, kept short. Pin it into context."),
    ("persona.md", "Who the assistant is meant to be for this user (tone, role, boundaries)."),
    ("user.md", "Stable facts about the user, written by the user."),
)

INSTRUCTIONS = """\
A long-term memory for this user, kept as plain markdown files they can read and edit.
Call search_memory before answering anything that may depend on the past (preferences,
people, projects, earlier decisions). Call capture_turn after a turn in which the user told
you something worth keeping, or remember for one explicit fact. Never store secrets
(passwords, API keys, tokens, card numbers), and never store your own statements as facts
about the user. Read the core memory once at the start of a conversation: call core_memory,
or pin the resource memory://MEMORY.md into your context."""

# -- tool descriptions (read by a model: when to call, what not to store, an example) ---------
CAPTURE_TURN = """\
Save one conversation turn so the memory can keep what the USER said that is worth keeping.
Call it after a turn in which the user shared a preference, a fact about themselves, a
person, a project, a decision or a plan. Do not call it for small talk, for turns that only
contain your own answers, or when the user asked you not to remember.
The turn is kept word for word in the day's transcript, and facts are taken from the
user's words; your reply only gives them context and is not stored as a fact about the
user. Do not pass secrets (passwords, API keys, tokens): they would be written to a plain
file.
Example: {"user": "I moved to Lisbon last month and I prefer tea over coffee",
"assistant": "Noted!", "session_id": "chat-42"}
Returns the facts written, the daily log file and whether MEMORY.md was refreshed."""

REMEMBER = """\
Store one explicit fact about the user or their world, in one short sentence.
Use it when the user says "remember that ...", or for one clear fact you were told; use
capture_turn for whole conversation turns. Write the fact in the third person about the
user, self-contained (no "he"/"it" without a name). Never store secrets, guesses, or your
own opinions or statements.
Example: {"text": "The user's daughter Mia starts school in September 2026",
"category": "family", "tags": ["mia", "school"], "importance": 0.7}
importance (0..1): 0.8 or more marks a fact as core and may bring it into MEMORY.md."""

SEARCH_MEMORY = """\
Search everything remembered: daily logs (source "archive"), notebook pages ("notebook"),
the core files MEMORY.md, persona.md, user.md ("core") and the verbatim conversation turns
("transcript"). Hybrid keyword + meaning search.
Call it before answering questions that may depend on earlier conversations, preferences,
people or projects, and before storing a fact (to avoid duplicates).
Each hit has: id (pass it to forget), text, source, path, line, date, score (higher is
better), heading, page (notebook pages: pass it to read_page), superseded with
superseded_on and current (a newer value replaced this one: prefer current), and places
(every file holding the same fact).
Example: {"query": "coffee preferences", "limit": 5}
date_from / date_to (YYYY-MM-DD, inclusive) keep hits dated in that range.
Operators narrow the query (combine freely): tag:travel (pages tagged #travel or #travel/...),
path:Projects/2026 (files whose path contains it), "exact phrase", -word, -"phrase",
-tag:x, -path:x. Example: {"query": "hotel tag:travel -path:archive"}. A query of
operators only (e.g. "tag:travel") lists the matching pages, one hit each (mode "list")."""

FORGET = """\
Forget a memory: it is removed from search at once, taken off the notebook's pages, and
never indexed again from any file. Use it only when the user asks you to forget something,
or a stored fact is wrong or sensitive. Give exactly one of hit_id (from search_memory, in
this or an earlier session, preferred: the whole hit is forgotten, paragraph by paragraph) or
the exact text of the memory. Text cut short with "…" that could mean several memories, or
text that matches nothing, is refused and nothing is forgotten (the error lists the
candidates; force=true records unmatched text anyway). Daily logs keep their lines (they are
the user's record); the user can see and undo every forget in the app's Forgotten pane.
Example: {"hit_id": "3f2a..."} or {"text": "The user's PIN is 1234"}"""

MEMORY_SOURCE = """\
Where a memory came from, so you can cite it: the daily-log facts a notebook bullet or
MEMORY.md line stands for and, for each, the conversation turn it was taken from (who said
it, when, the sentence, one turn either side), or that it was typed by hand; also the other
pages holding the same fact. Give a search_memory hit id, PATH:LINE, or the memory's words.
Example: {"what": "User works at Contoso"}"""

REVIEW_MEMORY = """\
What the memory learned since the user last reviewed it: bullets added, merged and
superseded (page and date), MEMORY.md lines gained and lost (or waiting for approval), and
facts no page holds. Items the engine is unsure of come first, with the reason. Read-only."""

SETTLE_REVIEW = """\
Settle review items, only as the user asks: "keep" (mark reviewed) or "forget" (a tombstone,
as forget) the items named by id, "mark_all_reviewed", or "accept_memory" (the proposed
MEMORY.md becomes the one you read). Example: {"action": "keep", "ids": ["3f2a9c..."]}"""

MEMORY_STATUS = """\
Report the memory's state: today's date, the consolidation watermark (the last day folded
into the notebook), days and facts waiting to be consolidated, when it last dreamed and
linted, index size and health, and what this server allows (read-only, maintenance tools).
Call it when the user asks how the memory is doing, or to diagnose missing results."""

CORE_MEMORY = """\
Read the core memory: MEMORY.md (the curated facts that matter most), user.md (facts the
user wrote about themselves) and persona.md (how the user wants you to behave). Call it
once at the start of a conversation and keep it in mind; it is short. Read-only."""

READ_PAGE = """\
Read one notebook page (markdown) by its vault-relative path, e.g. "2_Wiki/Concepts/Coffee.md",
as listed by list_pages or returned as "page" by search_memory. Read-only. Paths stay
inside the vault: absolute paths, ".." and hidden folders are refused. Long pages come in
parts: pass the returned next_offset as offset to read on."""

LIST_PAGES = """\
List the notebook's pages (vault-relative paths; folders end with "/"). Read-only.
Pass folder (e.g. "3_Personal") to list only that folder. Use it to find a page to read
with read_page, or to see how the user's notes are organised."""

BACKLINKS = """\
The pages that link to a page (wikilinks, embeds and markdown links, resolved as Obsidian
does), each with the line of its first link, and the pages that write the page's name or an
alias without linking it (unlinked mentions). page: a vault path ("2_Wiki/Kyoto.md") or a
name as a link writes it ("Kyoto"). Read-only."""

LIST_TAGS = """\
Every tag of the notebook (frontmatter tags and inline #tags) with the number of pages
carrying it; a nested tag's parent counts its children (#trip counts #trip/japan). Use
search_memory with "tag:NAME" to list a tag's pages. Read-only."""

DREAM = """\
Run one consolidation cycle now: daily logs waiting since the watermark are folded into
the notebook's pages, as the app does in the background. Only when the user asks for it.
dry_run=true works on a scratch copy and returns the diffs without changing anything;
force=true ignores the time and volume gates."""

LINT = """\
Audit the notebook (broken links, orphan pages, contradictions, stale facts) and record a
lint entry in log.md. Pages are not changed. Only when the user asks for it."""


class MemoryTools:
    """The tool and resource bodies over one manager; the SDK wiring is in :func:`build_server`."""

    def __init__(self, manager: MemoryManager, *, read_only: bool, activity: ActivityRecorder) -> None:
        self.manager = manager
        self.read_only = read_only
        self.activity = activity
        self.vault = VaultTools(manager.layout.notebook_dir, confinement=manager.layout.confinement)
        self._hits: OrderedDict[str, SearchHit] = OrderedDict()  # hit id -> the hit, for forget
        self._checked_at: float | None = None  # monotonic time of the last look for files changed by others

    @property
    def maintenance(self) -> bool:
        return bool(self.manager.settings.mcp_allow_maintenance) and not self.read_only

    # -- writing ---------------------------------------------------------------------------
    async def capture_turn(
        self,
        user: Annotated[str, Field(max_length=MAX_TURN_CHARS, description="What the user said, verbatim.")],
        assistant: Annotated[
            str, Field(max_length=MAX_TURN_CHARS, description="Your reply in that turn (context only, never stored as a fact).")
        ] = "",
        session_id: Annotated[
            str, Field(min_length=1, max_length=200, description="A stable id of this conversation; the first 8 characters are written.")
        ] = "mcp",
        timestamp: Annotated[
            str | None, Field(max_length=40, description="When the turn happened, ISO 8601 (default: now).")
        ] = None,
    ) -> dict[str, Any]:
        if not user.strip():
            raise ToolError("user: the user's words are empty; nothing to capture")
        when = _parse_timestamp(timestamp)
        facts, changes = await self.manager.process_conversation_turn_for_memories(
            user, assistant, session_id.strip() or "mcp", timestamp=when
        )
        date = min(changes.logs) if changes.logs else None
        return {
            "facts": [fact_dict(f) for f in facts],
            "turn": captured_turn(self.manager),  # where the verbatim turn was kept (None: transcripts off)
            "date": date,
            "path": str(self.manager.log_path(date)) if date else None,
            "lines": list(changes.log_lines),
            "rows_added": changes.rows_added,
            "memory_md_refreshed": bool(changes.memory_md),
            "errors": list(changes.errors),
            "message": changes.message or (f"{count(len(facts), 'fact')} written" if facts
                                           else "no facts found in this turn"),
        }

    async def remember(
        self,
        text: Annotated[str, Field(max_length=MAX_FACT_CHARS, description="The fact, one self-contained sentence.")],
        category: Annotated[
            str, Field(max_length=40, description="One word, e.g. preference, person, project, health, work.")
        ] = "general",
        tags: Annotated[
            list[Annotated[str, Field(max_length=MAX_TAG_CHARS)]],
            Field(max_length=MAX_TAGS, description="Short keywords, without spaces."),
        ] = [],  # noqa: B006 - the SDK copies defaults per call; a tuple would not fit the JSON schema
        importance: Annotated[float | None, Field(ge=0.0, le=1.0, description="0..1; 0.8 or more is core.")] = None,
    ) -> dict[str, Any]:
        if not text.strip():
            raise ToolError("text: the fact is empty; nothing to remember")
        changes = await self.manager.capturing.remember(
            text, category=category, tags=tuple(t for tag in tags for t in tag.split()), session_id="mcp",
            importance=importance,
        )
        date = min(changes.logs) if changes.logs else self.manager.clock.today().isoformat()
        return {
            "date": date,
            "path": str(self.manager.log_path(date)),
            "line": changes.log_lines[-1] if changes.log_lines else None,
            "rows_added": changes.rows_added,
            "errors": list(changes.errors),
        }

    async def forget(
        self,
        hit_id: Annotated[str | None, Field(max_length=200, description="The id of a search_memory hit.")] = None,
        text: Annotated[str | None, Field(max_length=MAX_FACT_CHARS * 10, description="The exact text to forget.")] = None,
        force: Annotated[bool, Field(description="With text: record it even if nothing remembered matches it.")] = False,
    ) -> dict[str, Any]:
        if (hit_id is None) == (text is None):
            raise ToolError("give exactly one of hit_id or text")
        if hit_id is not None:
            hit = await self._hit_for(hit_id.strip())
            if hit is None:
                raise ToolError(f"hit_id {hit_id!r}: no such memory (forgotten already, or its text changed); "
                                "search again")
            changes = await self.manager.forgetting.forget(hit.text, hit=hit)  # every place a folded hit stands
        else:
            assert text is not None
            if not text.strip():
                raise ToolError("text: nothing to forget: the text is empty")
            changes = await self.manager.forgetting.forget(text, force=force)
        return {
            "forgotten": list(changes.forgotten),
            "pages_changed": sorted(str(p) for p in changes.pages),
            "rows_removed": changes.rows_removed,
            "matched": changes.rows_removed > 0,
            "message": "removed from search" if changes.rows_removed else
            "no indexed memory matched; recorded anyway so it is never indexed from any file",
        }

    # -- reading ---------------------------------------------------------------------------
    async def search_memory(
        self,
        query: Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS, description="What to look for, in words; operators tag:, path:, \"phrase\", -word narrow it.")],
        limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="Most hits to return.")] = 10,
        source: Annotated[Source | None, Field(description="Only this kind of source.")] = None,
        date_from: Annotated[str | None, Field(pattern=DATE, description="Earliest date, YYYY-MM-DD.")] = None,
        date_to: Annotated[str | None, Field(pattern=DATE, description="Latest date, YYYY-MM-DD.")] = None,
    ) -> dict[str, Any]:
        if not query.strip():
            raise ToolError("query: empty; say what to look for")
        for name, value in (("date_from", date_from), ("date_to", date_to)):
            if value is not None:
                _parse_date(name, value)
        if date_from and date_to and date_from > date_to:
            raise ToolError(f"date_from {date_from} is after date_to {date_to}")
        await self._catch_up()
        response = await self.manager.searching.search(
            query, limit=limit, filters=Filters(source=source, date_from=date_from, date_to=date_to),
            record_recall=not self.read_only,
        )
        if response.failed:  # no hits would read as "nothing known": say the index cannot be read
            raise ToolError(f"{response.warning}; the memory is not empty. The user can run "
                            "`suzent-desktop reindex --full` to rebuild the index from the files")
        hits = [self._hit(hit) for hit in response.hits]
        result: dict[str, Any] = {"hits": hits, "mode": response.mode}
        if response.warning:
            result["warning"] = response.warning
        return result

    async def _hit_for(self, hit_id: str) -> SearchHit | None:
        """A hit by id: this connection's, else the indexed row (ids are stable across restarts and
        connections, so a framework that starts a server per run can forget what an earlier run found),
        folded again with the places that hold the same fact."""
        if hit_id in self._hits:
            return self._hits[hit_id]
        row = await self.manager.searching.hit_by_id(hit_id)
        if row is None:
            return None
        response = await self.manager.searching.search(row.text, limit=10, record_recall=False)
        return next((h for h in response.hits if h.row_id == hit_id), row)

    def _hit(self, hit: SearchHit) -> dict[str, Any]:
        self._hits[hit.row_id] = hit
        self._hits.move_to_end(hit.row_id)
        while len(self._hits) > HIT_ID_MEMORY:
            self._hits.popitem(last=False)
        item: dict[str, Any] = {"id": hit.row_id, **hit_dict(hit), "source": hit.source_type}
        item["score"] = round(item["score"], 4)
        page = self._page_of(Path(hit.path))
        if page is not None:
            item["page"] = page
        return item

    def _page_of(self, path: Path) -> str | None:
        try:
            return path.relative_to(self.vault.root).as_posix()
        except ValueError:
            return None

    async def _catch_up(self, *, vault_only: bool = False) -> None:
        """Index files edited elsewhere (Obsidian, a script) first; not in read-only mode. The vault
        model (backlinks, tags) takes them in too: ``vault_only`` looks for them in read-only mode.

        Finding them stats every file, which costs as much as a search on a large vault, so it is
        done at most every CATCH_UP_SECONDS. Writes made through the app, the command line or this
        server are indexed by whoever makes them, so only hand edits can wait that long.
        """
        now = time.monotonic()
        if (self.read_only and not vault_only) or (
            self._checked_at is not None and now - self._checked_at < CATCH_UP_SECONDS
        ):
            return
        self._checked_at = now
        stale = await asyncio.to_thread(self.manager.indexing.stale_paths)
        await asyncio.to_thread(apply_to_vault, self.manager, stale)  # backlinks and tags see hand edits too
        if stale and not self.read_only:
            await self.manager.indexing.sync_paths(stale)  # just these: a full pass would walk the vault again

    async def memory_status(self) -> dict[str, Any]:
        """The status document, its paths named from the memory's folders: a client on another
        machine learns nothing of this one's (user name, folder layout)."""
        status = _folders_named(await self.manager.status(), self.manager.layout)
        status["server"] = {
            "read_only": self.read_only,
            "maintenance_tools": self.maintenance,
            "maintenance_setting": "mcp_allow_maintenance",
            "device": self.manager.layout.device,  # which device answered (several may serve one home)
        }
        return status

    async def memory_source(
        self,
        what: Annotated[str, Field(min_length=1, max_length=MAX_FACT_CHARS, description="A hit id, PATH:LINE, or the memory's words.")],
    ) -> dict[str, Any]:
        await self._catch_up(vault_only=True)
        hit = self._hits.get(what.strip())
        if hit is not None:
            card = await asyncio.to_thread(self.manager.reviewing.card, None, None, hit=hit)
        else:
            card = await self.manager.reviewing.why(what)
        return card.as_json()

    async def review_memory(self) -> dict[str, Any]:
        items = await asyncio.to_thread(self.manager.reviewing.items)
        waiting = await asyncio.to_thread(memory_approval.proposal, self.manager.layout)
        return {"items": [i.as_json() for i in items], "memory_proposal": waiting is not None}

    async def settle_review(
        self,
        action: Annotated[Literal["keep", "forget", "mark_all_reviewed", "accept_memory"], Field(description="What to do.")],
        ids: Annotated[list[Annotated[str, Field(max_length=64)]], Field(max_length=1000, description="Item ids, for keep and forget.")] = [],  # noqa: B006
    ) -> dict[str, Any]:
        if action == "accept_memory":
            changes = await asyncio.to_thread(self.manager.reviewing.accept_memory)
            if changes is None:
                raise ToolError("no proposed MEMORY.md waits for approval")
            await self.manager.indexing.sync_paths(changes.changed)
            return {"done": "accepted the proposed MEMORY.md"}
        if action == "mark_all_reviewed":
            return {"done": f"marked {await asyncio.to_thread(self.manager.reviewing.mark_all)} reviewed"}
        listed = {i.id: i for i in await asyncio.to_thread(self.manager.reviewing.items)}
        missing = [i for i in ids if i not in listed]
        if not ids or missing:
            raise ToolError(f"ids: {', '.join(missing) or 'none given'}: not in the review list (run review_memory again)")
        if action == "keep":
            await asyncio.to_thread(self.manager.reviewing.keep, ids)
        else:
            for item_id in ids:
                await self.manager.reviewing.forget_item(listed[item_id])
        return {"done": f"{action}: {count(len(ids), 'item')}"}

    async def read_page(
        self,
        path: Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS, description="Vault-relative page path.")],
        offset: Annotated[int, Field(ge=0, description="Character offset to start at (for long pages).")] = 0,
    ) -> dict[str, Any]:
        target = await asyncio.to_thread(self.page_path, path)
        part, total = await asyncio.to_thread(read_part, target, path, offset, READ_LIMIT_CHARS)  # streamed
        end = offset + len(part)  # offsets stay the file's
        return {
            "path": path.strip().replace("\\", "/"),
            "text": await asyncio.to_thread(shown_page, self.manager, part),
            "offset": offset,
            "total_chars": total,
            "next_offset": end if end < total else None,
        }

    def page_path(self, relative: str) -> Path:
        """A vault page through the confinement rule (``core/files/disk/confine.py``); non-markdown files are refused."""
        target = self.vault.resolve(relative)
        if target.suffix.lower() != ".md":
            raise VaultAccessError(f"{relative}: only markdown pages (.md) can be read")
        if not target.is_file():
            raise FileNotFoundError(f"{relative}: no such page in the vault")
        return target

    def page_text(self, relative: str) -> str:
        """A whole page (resources), read as a stream up to the resource limit; binary is refused."""
        return shown_page(self.manager, read_part(self.page_path(relative), relative, 0, MAX_RESOURCE_CHARS)[0])

    async def backlinks(
        self,
        page: Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS, description="A vault path or a page name.")],
    ) -> dict[str, Any]:
        await self._catch_up(vault_only=True)
        return backlinks_document(await self.manager.vault_snapshot(), page)

    async def list_tags(self) -> dict[str, Any]:
        await self._catch_up(vault_only=True)
        return tags_document(await self.manager.vault_snapshot())

    async def list_pages(
        self,
        folder: Annotated[str, Field(max_length=MAX_PATH_CHARS, description="A vault folder; empty: the whole vault.")] = "",
    ) -> dict[str, Any]:
        found = await asyncio.to_thread(self.vault.list, folder)
        return {
            "folder": folder,
            "pages": found[:MAX_LISTED_PAGES],
            "truncated": len(found) > MAX_LISTED_PAGES,
        }

    def pages(self) -> list[str]:
        try:
            return [p for p in self.vault.list() if not p.endswith("/")][:MAX_LISTED_PAGES]
        except (OSError, VaultAccessError):
            return []

    async def core_memory(self) -> dict[str, str]:
        return {name: await asyncio.to_thread(self.core_text, name) for name, _ in CORE_RESOURCES}

    def core_text(self, name: str) -> str:
        """A core file's text; a core file not written yet reads as empty."""
        path = self.manager.layout.memory_dir / name
        reason = self.manager.layout.confinement.refusal(path)
        if reason is not None:
            raise VaultAccessError(f"{name}: {reason}")
        try:
            return shown_page(self.manager, decode_page(name, read_regular(path)))
        except FileNotFoundError:
            return ""

    # -- maintenance -----------------------------------------------------------------------
    async def dream(
        self,
        dry_run: Annotated[bool, Field(description="Work on a scratch copy and return diffs only.")] = False,
        force: Annotated[bool, Field(description="Ignore the time and volume gates.")] = False,
    ) -> dict[str, Any]:
        result = await self.manager.dreaming.once(force=force, dry_run=dry_run)
        doc = result.as_json()
        doc["reason"] = result.reason
        doc["dry_run"] = dry_run
        if dry_run:
            doc["diffs"] = dict(result.diffs)
        return doc

    async def lint(self) -> dict[str, Any]:
        result = await self.manager.linting.run()
        return {
            "ok": bool(result.ok),
            "findings": [{"kind": f.kind, "path": str(f.path), "detail": f.detail} for f in result.findings],
        }


def _folders_named(value: Any, layout: Any) -> Any:
    """``value`` with every absolute path of the memory's folders written from the folder's
    name: ``vault/3_Personal/Work.md``, ``memory/archive/2026-07-19.md``, ``index/…``, ``home/…``."""
    roots = [(str(layout.notebook_dir), "vault"), (str(layout.memory_dir), "memory"),
             (str(layout.index_dir), "index"), (str(layout.home), "home")]
    roots.sort(key=lambda root: len(root[0]), reverse=True)  # a folder inside another first

    def named(item: Any) -> Any:
        if isinstance(item, str):
            for root, name in roots:
                item = item.replace(root, name)
            return item
        if isinstance(item, dict):
            return {key: named(v) for key, v in item.items()}
        if isinstance(item, list | tuple):
            return [named(v) for v in item]
        return item

    return named(value)


def _parse_timestamp(value: str | None) -> dt.datetime | None:
    if value is None or not value.strip():
        return None
    try:
        return dt.datetime.fromisoformat(value.strip())
    except ValueError:
        raise ToolError(f"timestamp: not an ISO 8601 date-time: {value!r} (e.g. 2026-07-20T14:30:00)") from None


def _parse_date(name: str, value: str) -> None:
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        raise ToolError(f"{name}: not a calendar date: {value!r} (YYYY-MM-DD)") from None


def _as_is(value: Any) -> Any:
    return value


def _guarded(name: str, fn: Callable[..., Awaitable[Any]], activity: ActivityRecorder,
             named: Callable[[Any], Any] = _as_is) -> Callable[..., Awaitable[Any]]:
    """Note the call for the window, turn failures a caller can act on into tool errors, and give
    the answer and its errors through ``named`` (paths named from the memory's folders, over HTTP)."""

    @functools.wraps(fn)
    async def call(*args: Any, **kwargs: Any) -> Any:
        activity.called(name)
        try:
            return named(await fn(*args, **kwargs))
        except ToolError as exc:
            raise ToolError(named(str(exc))) from exc.__cause__
        except Exception as exc:
            if is_handled_error(exc):
                raise ToolError(named(str(exc))) from exc
            raise  # a bug: the SDK logs the traceback and answers with a generic tool error

    return call


class _Server(MCPServer):
    """MCPServer whose resource list also names every notebook page (read via the page template)."""

    def __init__(self, tools: MemoryTools, **kwargs: Any) -> None:
        super().__init__(SERVER_NAME, **kwargs)
        self.tools = tools
        self.activity = tools.activity

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        """The SDK's call, with argument errors said in one line per argument (no echo of the value)."""
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(explain_arguments(name, exc.__cause__)) from exc.__cause__
            raise

    async def list_resources(self) -> list[MCPResource]:
        listed = await super().list_resources()
        pages = await asyncio.to_thread(self.tools.pages)
        listed += [
            MCPResource(uri=page_uri(page), name=page, mime_type="text/markdown", description="A notebook page.")
            for page in pages
        ]
        return listed


def explain_arguments(tool: str, error: ValidationError) -> str:
    """``remember: invalid arguments: importance: Input should be less than or equal to 1``."""
    problems = []
    for item in error.errors(include_url=False, include_input=False):
        where = ".".join(str(part) for part in item["loc"]) or "arguments"
        problems.append(f"{where}: {item['msg']}")
    return f"{tool}: invalid arguments: " + "; ".join(problems)


def page_uri(page: str) -> str:
    return f"memory://notebook/{page}"


def build_server(manager: MemoryManager, *, read_only: bool = False, remote: bool = False) -> _Server:
    """The MCP server over one manager: tools, resources and instructions. ``remote`` (served over
    HTTP, where a client may sit on another machine): answers name files from the memory's folders
    (``vault/…``, ``memory/…``), never by this machine's absolute paths."""
    activity = ActivityRecorder(manager.layout.mcp_activity_file, enabled=not read_only, read_only=read_only)
    named = functools.partial(_folders_named, layout=manager.layout) if remote else _as_is
    tools = MemoryTools(manager, read_only=read_only, activity=activity)
    server = _Server(tools, instructions=INSTRUCTIONS, log_level="WARNING", version=_version())

    def add(name: str, fn: Callable[..., Awaitable[Any]], description: str, *, writes: bool, destructive: bool = False) -> None:
        annotations = ToolAnnotations(
            read_only_hint=not writes, destructive_hint=destructive, idempotent_hint=not writes, open_world_hint=False
        )
        server.add_tool(_guarded(name, fn, activity, named), name=name, description=description,
                        annotations=annotations)

    add("search_memory", tools.search_memory, SEARCH_MEMORY, writes=False)
    add("memory_status", tools.memory_status, MEMORY_STATUS, writes=False)
    add("core_memory", tools.core_memory, CORE_MEMORY, writes=False)
    add("read_page", tools.read_page, READ_PAGE, writes=False)
    add("list_pages", tools.list_pages, LIST_PAGES, writes=False)
    add("backlinks", tools.backlinks, BACKLINKS, writes=False)
    add("list_tags", tools.list_tags, LIST_TAGS, writes=False)
    add("memory_source", tools.memory_source, MEMORY_SOURCE, writes=False)
    add("review_memory", tools.review_memory, REVIEW_MEMORY, writes=False)
    if not read_only:
        add("capture_turn", tools.capture_turn, CAPTURE_TURN, writes=True)
        add("remember", tools.remember, REMEMBER, writes=True)
        add("forget", tools.forget, FORGET, writes=True, destructive=True)
        _one_of(server, "forget", ["hit_id", "text"])
        add("settle_review", tools.settle_review, SETTLE_REVIEW, writes=True, destructive=True)
    if tools.maintenance:
        add("dream", tools.dream, DREAM, writes=True)
        add("lint", tools.lint, LINT, writes=True)

    for name, description in CORE_RESOURCES:
        server.add_resource(
            FunctionResource.from_function(
                fn=_core_reader(tools, name, activity), uri=f"memory://{name}", name=name,
                description=description, mime_type="text/markdown",
            )
        )

    @server.resource(page_uri("{+path}"), name="notebook page", mime_type="text/markdown",
                     description="A notebook page by vault-relative path, e.g. memory://notebook/2_Wiki/Concepts/Coffee.md")
    async def notebook_page(path: str) -> str:
        activity.called("read_resource")
        try:
            return await asyncio.to_thread(tools.page_text, path)
        except FileNotFoundError as exc:
            raise ResourceNotFoundError(str(exc)) from exc
        except (VaultAccessError, ValueError, OSError) as exc:
            raise ResourceError(str(exc)) from exc

    return server


def _one_of(server: MCPServer, tool: str, names: list[str]) -> None:
    """Say in the schema that one of ``names`` is required: a client that validates arguments then
    never sends ``forget({})``, which the tool would refuse, and retries it."""
    registered = server._tool_manager.get_tool(tool)  # the SDK derives the schema from the signature only
    if registered is not None:
        registered.parameters["anyOf"] = [{"required": [name]} for name in names]


def _core_reader(tools: MemoryTools, name: str, activity: ActivityRecorder) -> Callable[[], Awaitable[str]]:
    async def read() -> str:
        activity.called("read_resource")
        try:
            return await asyncio.to_thread(tools.core_text, name)
        except (ValueError, OSError) as exc:
            raise ResourceError(str(exc)) from exc

    return read


def _version() -> str:
    from suzent_desktop import __version__

    return __version__


def _check_port(port: int) -> int:
    if not 1 <= port <= 65535:
        raise ValueError(f"--http: port must be between 1 and 65535, got {port}")
    return port


def serve(manager: MemoryManager, *, read_only: bool = False, http_port: int | None = None,
          bind: str = "127.0.0.1", token: str | None = None) -> None:
    """Run until the client disconnects (stdio) or the process is stopped (HTTP, see ``mcp_http.py``)."""
    server = build_server(manager, read_only=read_only, remote=http_port is not None)
    activity = server.activity

    async def run() -> None:
        activity.connected()
        try:
            if http_port is None:
                await server.run_stdio_async()
            else:
                from suzent_desktop.mcp_http import serve_http

                await serve_http(server, manager.settings, port=_check_port(http_port), bind=bind, token=token)
        finally:
            activity.disconnected()

    asyncio.run(run())


__all__ = ["MemoryTools", "build_server", "page_uri", "serve"]
