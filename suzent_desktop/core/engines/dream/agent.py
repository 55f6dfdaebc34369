"""The LLM consolidation engine: a tool-calling loop over the vault tools.

The model sees the batch's fact lines (tombstoned facts already removed by the runner),
``schema.md``, ``index.md`` and the pages most likely to need edits, and works through
:class:`VaultTools`, which keep it inside the vault and away from ``log.md``. The runner,
not the model, decides whether the run was productive and writes the watermark; the
model's closing message becomes the run's summary (≤ 600 characters).

Small local models often cannot call tools natively and write the call as text instead
(a JSON object, a fenced block, ``<tool_call>…</tool_call>``). Such calls are parsed and run
like native ones, their results sent back as a user message. A text reply over the tools' size
limit is refused unread, like an oversized call. A model that never calls a tool
ends the run with "the model does not call tools", and a call that failed twice with the same
arguments ends it with that call's error, so the run's reason always names the cause.
A model that repeats a successful call, or whose replies stop changing anything, is stopped
early (:mod:`loop_guard`); the run is then judged by what it covered. The summary is only ever
the model's closing text: a reply that looks like a tool call but cannot be read is sent back
as an error, never taken as the summary.
"""

from __future__ import annotations

import hashlib
import json
import re
from importlib import resources
from typing import Any

from suzent_desktop.core.engines.dream.guards.loop_guard import LoopGuard, LoopStopped
from suzent_desktop.core.engines.dream.model import Batch, EngineReport, clean_summary
from suzent_desktop.core.engines.dream.tools import TOOL_SPECS, VaultTools
from suzent_desktop.core.files.disk.regular import read_regular
from suzent_desktop.core.files.disk.text_hygiene import loads_json

MAX_STEPS = 40
CALL_TIMEOUT_SECONDS = 120.0
PAGE_CHARS = 4000
PAGES_TOTAL_CHARS = 24000
SEARCH_PAGES = 6
MAX_SAME_FAILURES = 2  # the same failing call (name and arguments) runs at most this often
MAX_CANONICAL_CHARS = 64_000  # longer arguments are compared by hash
MAX_ERRORS_SHOWN = 3  # failed calls named in a run's reason
ERROR_CHARS = 160  # per failed call in that reason
TOOL_NAMES = frozenset(spec["function"]["name"] for spec in TOOL_SPECS)
TEXT_REPLY = "text reply"  # the name a too large text reply is counted under as a failing call
UNREAD_CALL = (
    "error: your reply looks like a tool call, but it could not be read as one. Call the tool natively, or "
    'write it as one JSON object {"name": "add_bullet", "arguments": {...}}. When you are done, answer with a '
    "plain summary of what you changed and no tool call."
)
# No \s* around the lazy groups: it made a long run of blanks cost time in the square of its length.
_TAGGED_CALL_RE = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.DOTALL)
_FENCE_RE = re.compile(r"```(?:json|tool_call)?(.*?)```", re.DOTALL)
_STRUCTURE_RE = re.compile(r'[\[\]{}"\\\n]')
_OPENER = {"}": "{", "]": "["}
MAX_CALL_DEPTH = 3  # brackets around a written call (a list of calls, a wrapper object) tried at most


class AgentError(RuntimeError):
    """The model did not finish the consolidation (step limit, failing calls)."""


def _call_from_object(obj: Any) -> tuple[str, dict[str, Any]] | None:
    """(name, arguments) of one call written as a JSON object, in the shapes models use."""
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("function"), dict):
        obj = obj["function"]
    name = obj.get("name") or obj.get("tool") or obj.get("tool_name")
    args = obj.get("arguments", obj.get("parameters", obj.get("args", {})))
    if isinstance(args, str):
        try:
            args = loads_json(args)
        except ValueError:
            return None
    if not isinstance(name, str) or name not in TOOL_NAMES or not isinstance(args, dict):
        return None
    return name, args


def _bracket_spans(text: str) -> list[tuple[int, int, int]]:
    """(start, end, depth) of every matched bracket pair, by start; depth counts the pairs around it.

    One pass, aware of JSON strings. A JSON string never holds a raw newline, so a quote in prose
    only confuses the rest of its line. A closer without its opener is ignored; openers that never
    close are dropped when an outer pair closes over them."""
    stack: list[int] = []
    open_count = {"{": 0, "[": 0}
    pairs: list[tuple[int, int]] = []
    in_string = False
    escaped = -1
    for match in _STRUCTURE_RE.finditer(text):
        i, char = match.start(), match.group()
        if in_string:
            if i == escaped:
                continue
            if char == "\\":
                escaped = i + 1
            elif char in '"\n':
                in_string = False
            continue
        if char == '"':
            in_string = True
        elif char in "{[":
            stack.append(i)
            open_count[char] += 1
        elif char in "}]" and open_count[_OPENER[char]]:
            while True:
                start = stack.pop()
                open_count[text[start]] -= 1
                if text[start] == _OPENER[char]:
                    pairs.append((start, i))
                    break
    pairs.sort()
    spans: list[tuple[int, int, int]] = []
    around: list[int] = []  # ends of the pairs that contain the current one
    for start, end in pairs:
        while around and around[-1] < start:
            around.pop()
        spans.append((start, end, len(around)))
        around.append(end)
    return spans


def _json_values(text: str) -> list[Any]:
    """The outermost JSON objects and arrays in the text, in order.

    Each try decodes one bracket pair on its own (an error's line number is counted from the start
    of what is decoded) and only pairs at most :data:`MAX_CALL_DEPTH` deep are tried, so the time
    grows with the text's length, not its square, whatever a model writes."""
    decoder = json.JSONDecoder()
    values: list[Any] = []
    decoded_until = 0
    for start, end, depth in _bracket_spans(text):
        if start < decoded_until or depth > MAX_CALL_DEPTH:
            continue
        try:
            value, length = decoder.raw_decode(text[start : end + 1])
        except (ValueError, RecursionError):
            continue
        values.append(value)
        decoded_until = start + length
    return values


def parse_text_tool_calls(content: str | None) -> list[tuple[str, dict[str, Any]]]:
    """Tool calls a model wrote as text, in order; [] when the text holds none."""
    if not content:
        return []
    pieces = _TAGGED_CALL_RE.findall(content) or _FENCE_RE.findall(content) or [content]
    calls: list[tuple[str, dict[str, Any]]] = []
    for piece in pieces:
        for value in _json_values(piece):
            for obj in value if isinstance(value, list) else [value]:
                call = _call_from_object(obj)
                if call is not None:
                    calls.append(call)
    return calls


def looks_like_a_tool_call(content: str | None) -> bool:
    """Text that tries to call a tool but could not be parsed (so the reason can say so)."""
    text = content or ""
    if "<tool_call>" in text or re.search(r'"(name|tool|function)"\s*:', text):
        return True
    return any(re.search(rf"\b{re.escape(name)}\s*\(", text) for name in TOOL_NAMES if len(name) > 4)


def load_prompt(name: str) -> str:
    return resources.files("suzent_desktop.core.engines.dream").joinpath("prompts", name).read_text(encoding="utf-8")


class DreamAgent:
    def __init__(
        self,
        model: str,
        tools: VaultTools,
        *,
        llm: Any = None,
        max_steps: int = MAX_STEPS,
        call_timeout: float = CALL_TIMEOUT_SECONDS,
    ) -> None:
        """``llm`` is an object with an async ``chat(model, messages, tools, timeout)`` (default: core.llm)."""
        if llm is None:
            from suzent_desktop.core import llm as llm_module

            llm = llm_module
        self.model = model
        self.tools = tools
        self.llm = llm
        self.max_steps = max_steps
        self.call_timeout = call_timeout
        self._last_errors: dict[tuple[str, str], str] = {}
        self._guard = LoopGuard(self._progress)

    # -- context ---------------------------------------------------------------------------
    def _read_or(self, rel: str, default: str) -> str:
        try:
            return self.tools.read_for_model(rel)  # forgotten text never reaches the prompt
        except (OSError, ValueError):
            return default

    def _relevant_pages(self, batch: Batch) -> list[str]:
        """Personal pages first, then the pages sharing the most words with the batch (one read each)."""
        chosen: list[str] = []
        try:
            chosen += [p for p in self.tools.list(self.tools.personal_zone) if not p.endswith("/")]
        except (OSError, ValueError):
            pass
        wanted = {w for f in batch.facts for w in re.findall(r"\w+", f.fact.content.lower()) if len(w) > 3}
        wanted -= {"user", "user's", "with", "that", "this", "from", "have", "likes", "works"}
        scored: list[tuple[int, str]] = []
        for rel in self.tools.list(""):
            if rel.endswith("/") or rel in chosen or "/" not in rel:
                continue
            words = set(re.findall(r"\w+", self._read_or(rel, "").lower()))
            overlap = len(wanted & words)
            if overlap:
                scored.append((overlap, rel))
        scored.sort(key=lambda item: (-item[0], item[1]))
        return chosen + [rel for _score, rel in scored[:SEARCH_PAGES]]

    def build_messages(self, batch: Batch) -> list[dict[str, Any]]:
        pages_text: list[str] = []
        budget = PAGES_TOTAL_CHARS
        for rel in self._relevant_pages(batch):
            if budget <= 0:
                break
            body = self._read_or(rel, "")[: min(PAGE_CHARS, budget)]
            budget -= len(body)
            pages_text.append(f"### {rel}\n\n{body}")
        task = load_prompt("dream_task.md").format(
            first_date=batch.dates[0],
            last_date=batch.dates[-1],
            fact_count=len(batch.facts),
            facts="\n".join(f.as_log_line() for f in batch.facts) or "(none)",
            schema=self._read_or(self.tools.schema_name, "(missing)"),
            index=self._read_or(self.tools.index_name, "(missing)"),
            pages="\n\n".join(pages_text) or "(no pages yet)",
            schema_name=self.tools.schema_name,
            index_name=self.tools.index_name,
        )
        return [
            {"role": "system", "content": load_prompt("dream_system.md").format(index_name=self.tools.index_name)},
            {"role": "user", "content": task},
        ]

    # -- the loop ------------------------------------------------------------------------------
    def _progress(self) -> object:
        """What the run has done so far: the bytes of the pages it wrote and the facts accounted for."""
        pages = []
        for rel in sorted(self.tools.originals):
            path = self.tools.root / rel
            data = read_regular(path) if path.is_file() else b""
            pages.append((rel, hashlib.sha256(data).hexdigest()))
        return tuple(pages), len(self.tools.accounted)

    async def run(self, batch: Batch) -> EngineReport:
        try:
            return await self._loop(batch)
        except LoopStopped as stop:
            return EngineReport(summary="", pages_written=sorted(self.tools.written),
                                call_errors=self._call_errors(), stopped=str(stop))

    async def _loop(self, batch: Batch) -> EngineReport:
        import asyncio

        messages = await asyncio.to_thread(self.build_messages, batch)
        self._guard = LoopGuard(self._progress)
        failures: dict[tuple[str, str], int] = {}
        calls_made = 0
        for _step in range(self.max_steps):
            if _step:
                self._guard.end_step()
            reply = await self.llm.chat(self.model, messages, TOOL_SPECS, self.call_timeout)
            messages.append(self._bounded(reply.as_message()))
            if reply.tool_calls:
                for call in reply.tool_calls:
                    result = await self._dispatch(call.name, call.arguments, failures)
                    messages.append({"role": "tool", "tool_call_id": call.id, "name": call.name, "content": result})
                calls_made += len(reply.tool_calls)
                continue
            refusal = self.tools.size_error(reply.content or "")
            if refusal:  # never parsed: the tools would refuse the call it may hold anyway
                await self._dispatch(TEXT_REPLY, reply.content or "", failures, refusal=refusal)
                messages.append({"role": "user", "content": refusal})
                calls_made += 1
                continue
            # In a thread, so the run's deadline can still fire while a long reply is parsed.
            written = await asyncio.to_thread(parse_text_tool_calls, reply.content)
            if written:
                results = [
                    f"Result of {name}: {await self._dispatch(name, json.dumps(args), failures)}"
                    for name, args in written
                ]
                messages.append({"role": "user", "content": "\n\n".join(results)})
                calls_made += len(written)
                continue
            if calls_made == 0:
                shown = " ".join((reply.content or "").split())[:160]
                how = "wrote a tool call as text that could not be parsed" if looks_like_a_tool_call(
                    reply.content) else "answered in text without calling any tool"
                raise AgentError(f"the model does not call tools: it {how} ({shown!r})")
            if looks_like_a_tool_call(reply.content):
                # Never a summary (it would end in log.md): sent back as the failed call it is, once.
                if (TEXT_REPLY, _canonical(reply.content or "")) in failures:
                    raise LoopStopped("the model closed twice with a tool call that could not be read: "
                                      f"{_clip(reply.content or '')}")
                await self._dispatch(TEXT_REPLY, reply.content or "", failures, refusal=UNREAD_CALL)
                messages.append({"role": "user", "content": UNREAD_CALL})
                continue
            return EngineReport(summary=clean_summary(reply.content), pages_written=sorted(self.tools.written),
                                call_errors=self._call_errors())
        raise AgentError(f"the model did not finish within {self.max_steps} steps")

    def _call_errors(self) -> list[str]:
        """The run's failed calls, newest last, as "tool: error" (bounded: a reason, not a transcript)."""
        shown = [f"{name}: {error.removeprefix('error:').strip()}" for (name, _args), error in self._last_errors.items()]
        return [_clip(text) for text in shown[-MAX_ERRORS_SHOWN:]]

    def _bounded(self, message: dict[str, Any]) -> dict[str, Any]:
        """The reply as it goes back into the conversation: a call too large to run is not resent
        with every later request (the tools refuse it and say so; its bytes would only cost time)."""
        content = message.get("content")
        if isinstance(content, str) and self.tools.size_error(content):
            message["content"] = f"(omitted: {len(content) // 1024} KB of text, over the limit)"
        for call in message.get("tool_calls") or []:
            arguments = call["function"].get("arguments") or ""
            if isinstance(arguments, str) and len(arguments) > self.tools.max_call_bytes:
                call["function"] = {**call["function"], "arguments": json.dumps(
                    {"omitted": f"{len(arguments) // 1024} KB of arguments, over the limit"})}
        return message

    async def _dispatch(
        self, name: str, arguments: str, failures: dict[tuple[str, str], int], *, refusal: str = ""
    ) -> str:
        """Run one call (or count ``refusal`` as its failure, without running it); the same call
        failing :data:`MAX_SAME_FAILURES` times ends the run, naming it."""
        key = (name, _canonical(arguments))
        if failures.get(key, 0) >= MAX_SAME_FAILURES:
            raise AgentError(
                f"the model repeated a failing call {name}({arguments[:120]}) after it failed "
                f"{MAX_SAME_FAILURES} times: {self._last_errors.get(key, '')}"
            )
        if not refusal:
            self._guard.before(name, key[1], arguments)
        result = refusal or await self.tools.dispatch(name, arguments)
        if not refusal:
            self._guard.after(name, key[1], arguments, result)
        if result.startswith("error:"):
            failures[key] = failures.get(key, 0) + 1
            self._last_errors[key] = result
        else:
            self._last_errors.pop(key, None)  # the same call worked this time: not a cause any more
        return result


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= ERROR_CHARS else text[: ERROR_CHARS - 1] + "…"


def _canonical(arguments: str) -> str:
    if len(arguments) > MAX_CANONICAL_CHARS:  # never parse a huge argument just to compare it
        return hashlib.sha256(arguments.encode("utf-8", errors="replace")).hexdigest()
    try:
        return json.dumps(loads_json(arguments), sort_keys=True)
    except ValueError:
        return arguments
