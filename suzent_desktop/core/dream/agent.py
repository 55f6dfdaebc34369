"""The LLM consolidation engine: a tool-calling loop over the vault tools.

The model sees the batch's fact lines (tombstoned facts already removed by the runner),
``schema.md``, ``index.md`` and the pages most likely to need edits, and works through
:class:`VaultTools`, which keep it inside the vault and away from ``log.md``. The runner,
not the model, decides whether the run was productive and writes the watermark; the
model's closing message becomes the run's summary (≤ 600 characters).

Small local models often cannot call tools natively and write the call as text instead
(a JSON object, a fenced block, ``<tool_call>…</tool_call>``). Such calls are parsed and run
like native ones, their results sent back as a user message. A model that never calls a tool
ends the run with "the model does not call tools", and a call that failed twice with the same
arguments ends it with that call's error, so the run's reason always names the cause.
"""

from __future__ import annotations

import hashlib
import json
import re
from importlib import resources
from typing import Any

from suzent_desktop.core.dream.model import Batch, EngineReport, clean_summary
from suzent_desktop.core.dream.tools import TOOL_SPECS, VaultTools

MAX_STEPS = 40
CALL_TIMEOUT_SECONDS = 120.0
PAGE_CHARS = 4000
PAGES_TOTAL_CHARS = 24000
SEARCH_PAGES = 6
MAX_SAME_FAILURES = 2  # the same failing call (name and arguments) runs at most this often
MAX_CANONICAL_CHARS = 64_000  # longer arguments are compared by hash
TOOL_NAMES = frozenset(spec["function"]["name"] for spec in TOOL_SPECS)
_TAGGED_CALL_RE = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_FENCE_RE = re.compile(r"```(?:json|tool_call)?\s*(.*?)```", re.DOTALL)


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
            args = json.loads(args)
        except ValueError:
            return None
    if not isinstance(name, str) or name not in TOOL_NAMES or not isinstance(args, dict):
        return None
    return name, args


def _json_values(text: str) -> list[Any]:
    """Every JSON value that starts at a ``{`` or ``[`` of the text (outermost ones only)."""
    decoder = json.JSONDecoder()
    values: list[Any] = []
    index = 0
    while True:
        starts = [i for i in (text.find("{", index), text.find("[", index)) if i >= 0]
        if not starts:
            return values
        start = min(starts)
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            index = start + 1
            continue
        values.append(value)
        index = end


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
    return resources.files("suzent_desktop.core.dream").joinpath("prompts", name).read_text(encoding="utf-8")


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

    # -- context ---------------------------------------------------------------------------
    def _read_or(self, rel: str, default: str) -> str:
        try:
            return self.tools.read(rel)
        except (OSError, ValueError):
            return default

    def _relevant_pages(self, batch: Batch) -> list[str]:
        """Personal pages first, then the pages sharing the most words with the batch (one read each)."""
        chosen: list[str] = []
        try:
            chosen += [p for p in self.tools.list("3_Personal") if not p.endswith("/")]
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
    async def run(self, batch: Batch) -> EngineReport:
        import asyncio

        messages = await asyncio.to_thread(self.build_messages, batch)
        failures: dict[tuple[str, str], int] = {}
        calls_made = 0
        for _step in range(self.max_steps):
            reply = await self.llm.chat(self.model, messages, TOOL_SPECS, self.call_timeout)
            messages.append(self._bounded(reply.as_message()))
            if reply.tool_calls:
                for call in reply.tool_calls:
                    result = await self._dispatch(call.name, call.arguments, failures)
                    messages.append({"role": "tool", "tool_call_id": call.id, "name": call.name, "content": result})
                calls_made += len(reply.tool_calls)
                continue
            written = parse_text_tool_calls(reply.content)
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
            return EngineReport(summary=clean_summary(reply.content), pages_written=sorted(self.tools.written))
        raise AgentError(f"the model did not finish within {self.max_steps} steps")

    def _bounded(self, message: dict[str, Any]) -> dict[str, Any]:
        """The reply as it goes back into the conversation: a call too large to run is not resent
        with every later request (the tools refuse it and say so; its bytes would only cost time)."""
        for call in message.get("tool_calls") or []:
            arguments = call["function"].get("arguments") or ""
            if isinstance(arguments, str) and len(arguments) > self.tools.max_call_bytes:
                call["function"] = {**call["function"], "arguments": json.dumps(
                    {"omitted": f"{len(arguments) // 1024} KB of arguments, over the limit"})}
        return message

    async def _dispatch(self, name: str, arguments: str, failures: dict[tuple[str, str], int]) -> str:
        """Run one call; the same call failing :data:`MAX_SAME_FAILURES` times ends the run, naming it."""
        key = (name, _canonical(arguments))
        if failures.get(key, 0) >= MAX_SAME_FAILURES:
            raise AgentError(
                f"the model repeated a failing call {name}({arguments[:120]}) after it failed "
                f"{MAX_SAME_FAILURES} times: {self._last_errors.get(key, '')}"
            )
        result = await self.tools.dispatch(name, arguments)
        if result.startswith("error:"):
            failures[key] = failures.get(key, 0) + 1
            self._last_errors[key] = result
        return result


def _canonical(arguments: str) -> str:
    if len(arguments) > MAX_CANONICAL_CHARS:  # never parse a huge argument just to compare it
        return hashlib.sha256(arguments.encode("utf-8", errors="replace")).hexdigest()
    try:
        return json.dumps(json.loads(arguments), sort_keys=True)
    except ValueError:
        return arguments
