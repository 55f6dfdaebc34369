"""The LLM consolidation engine: a tool-calling loop over the vault tools.

The model sees the batch's fact lines (tombstoned facts already removed by the runner),
``schema.md``, ``index.md`` and the pages most likely to need edits, and works through
:class:`VaultTools`, which keep it inside the vault and away from ``log.md``. The runner,
not the model, decides whether the run was productive and writes the watermark; the
model's closing message becomes the run's summary (≤ 600 characters).
"""

from __future__ import annotations

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


class AgentError(RuntimeError):
    """The model did not finish the consolidation (step limit, failing calls)."""


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
            schema=self._read_or("schema.md", "(missing)"),
            index=self._read_or("index.md", "(missing)"),
            pages="\n\n".join(pages_text) or "(no pages yet)",
        )
        return [
            {"role": "system", "content": load_prompt("dream_system.md")},
            {"role": "user", "content": task},
        ]

    # -- the loop ------------------------------------------------------------------------------
    async def run(self, batch: Batch) -> EngineReport:
        import asyncio

        messages = await asyncio.to_thread(self.build_messages, batch)
        for _step in range(self.max_steps):
            reply = await self.llm.chat(self.model, messages, TOOL_SPECS, self.call_timeout)
            messages.append(reply.as_message())
            if not reply.tool_calls:
                return EngineReport(summary=clean_summary(reply.content), pages_written=sorted(self.tools.written))
            for call in reply.tool_calls:
                result = await self.tools.dispatch(call.name, call.arguments)
                messages.append({"role": "tool", "tool_call_id": call.id, "name": call.name, "content": result})
        raise AgentError(f"the model did not finish within {self.max_steps} steps")
