"""The one door to language models: litellm, imported lazily.

Importing litellm costs seconds and hundreds of megabytes, and without
``LITELLM_LOCAL_MODEL_COST_MAP`` it tries to download a price table at import time. So
nothing else in the program imports it, and this module imports it only on the first
call, after setting that variable. Extra keyword arguments are passed through to litellm
(``api_base``, ``api_key``, ``mock_response``) so tests can run offline against litellm's
mock responses or a loopback server.

Time limits are real: litellm's own retries are switched off (they tripled a 60 s limit),
and every call also runs under an asyncio deadline a little longer than its ``timeout``,
because not every provider path honours the timeout. The callers retry where it helps and
count each attempt (extraction, the dream runner), so a retry is never invisible.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

from suzent_desktop.core.files import llm_limits
from suzent_desktop.core.files.disk.text_hygiene import loads_json


class LLMError(RuntimeError):
    """The model call failed (network, auth, timeout) or returned something unusable."""


class LLMFormatError(LLMError):
    """The model answered, but not with the JSON that was asked for."""


class LLMTimeout(LLMError):
    """The model did not answer within the per-call limit (``llm_timeout_seconds``)."""


# How long past its own timeout a call may run before the deadline cancels it.
DEADLINE_GRACE_SECONDS = 2.0


def _litellm() -> Any:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm  # noqa: PLC0415 - deliberately lazy, see the module docstring

    litellm.suppress_debug_info = True
    return litellm


def load() -> None:
    """Import litellm now, so the seconds that costs (more under load) are not charged to a run's time limit."""
    _litellm()


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str  # raw JSON text as the model sent it


@dataclass
class ChatReply:
    """One assistant turn: text, tool calls, and the message to append to the conversation."""

    content: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str | None = None

    def as_message(self) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in self.tool_calls
            ]
        return message


_FENCED = re.compile(r"^\s*```(?:json)?\s*(?P<body>.*?)\s*```\s*$", re.DOTALL)


def parse_json_text(text: str | None) -> Any:
    """JSON from a model answer, tolerating a surrounding code fence; raises LLMFormatError."""
    if text is None or not text.strip():
        raise LLMFormatError("the model returned an empty answer")
    match = _FENCED.match(text)
    body = match.group("body") if match else text.strip()
    try:
        return loads_json(body)  # nesting bounded: a model's answer 100,000 levels deep is bad JSON
    except ValueError as exc:
        raise LLMFormatError(f"the model's answer is not valid JSON: {exc}") from exc


def _limit(timeout: float | None) -> float | None:
    """A usable per-call limit: None (no limit) for 0, negative or not-a-number values."""
    if timeout is None or not timeout > 0 or timeout != timeout:
        return None
    return float(timeout)


async def _acompletion(model: str, messages: list[dict[str, Any]], *, timeout: float | None = None,
                       **kwargs: Any) -> Any:
    if not model:
        raise LLMError("no model configured")
    litellm = _litellm()
    # A model on this machine gets time to read its prompt (core/files/llm_limits.py).
    limit, how = llm_limits.fit(_limit(timeout), model, messages, tools=kwargs.get("tools"),
                                 api_base=kwargs.get("api_base"))
    kwargs.setdefault("num_retries", 0)
    kwargs.setdefault("max_retries", 0)
    try:
        call = litellm.acompletion(model=model, messages=messages, drop_params=True, timeout=limit, **kwargs)
        return await asyncio.wait_for(call, None if limit is None else limit + DEADLINE_GRACE_SECONDS)
    except TimeoutError as exc:
        raise LLMTimeout(_timeout_message(model, limit, how)) from exc
    except Exception as exc:  # litellm maps every provider error to its own exception tree
        if _is_timeout(exc):  # its wording repeats itself several times and says nothing more
            raise LLMTimeout(_timeout_message(model, limit, how)) from exc
        raise LLMError(f"{model}: {exc}") from exc


def _timeout_message(model: str, limit: float | None, how: str = "llm_timeout_seconds") -> str:
    return f"{model}: no answer within {round(limit or 0, 1):g} s ({how})"


def _is_timeout(exc: BaseException) -> bool:
    """litellm's Timeout (and the HTTP client's) under their own names, without importing them."""
    return any("timeout" in cls.__name__.lower() for cls in type(exc).__mro__)


async def complete_json(
    model: str,
    messages: list[dict[str, Any]],
    *,
    schema_hint: str,
    timeout: float,
    temperature: float = 0.1,
    **kwargs: Any,
) -> Any:
    """Ask for a JSON answer (low temperature, JSON mode where the provider has it) and parse it.

    ``schema_hint`` describes the expected shape; it is added as a system message because
    not every provider honours ``response_format``. Validation of the shape is the caller's.
    """
    full = [{"role": "system", "content": f"Answer with JSON only, no prose. Shape:\n{schema_hint}"}, *messages]
    response = await _acompletion(
        model,
        full,
        temperature=temperature,
        timeout=timeout,
        response_format={"type": "json_object"},
        **kwargs,
    )
    try:
        content = response.choices[0].message.content
    except (AttributeError, IndexError) as exc:
        raise LLMFormatError(f"{model}: the response has no message") from exc
    return parse_json_text(content)


async def chat(
    model: str,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    timeout: float,
    **kwargs: Any,
) -> ChatReply:
    """One tool-calling turn: the assistant's text and any tool calls it asks for."""
    response = await _acompletion(model, messages, tools=tools, timeout=timeout, temperature=0.1, **kwargs)
    try:
        choice = response.choices[0]
        message = choice.message
    except (AttributeError, IndexError) as exc:
        raise LLMFormatError(f"{model}: the response has no message") from exc
    calls: list[ToolCall] = []
    for index, raw in enumerate(getattr(message, "tool_calls", None) or []):
        function = raw.function
        arguments = function.arguments
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments or {})
        calls.append(ToolCall(id=raw.id or f"call_{index}", name=function.name or "", arguments=arguments))
    return ChatReply(content=message.content, tool_calls=calls, finish_reason=getattr(choice, "finish_reason", None))


def embed_texts(model: str, texts: list[str], *, timeout: float | None = None, **kwargs: Any) -> list[list[float]]:
    """Embeddings through litellm, synchronous (embedders run in a worker thread)."""
    litellm = _litellm()
    kwargs.setdefault("num_retries", 0)
    kwargs.setdefault("max_retries", 0)
    limit = _limit(timeout)
    try:
        response = litellm.embedding(model=model, input=list(texts), timeout=limit, **kwargs)
    except Exception as exc:
        if _is_timeout(exc):
            raise LLMTimeout(_timeout_message(model, limit)) from exc
        raise LLMError(f"{model}: {exc}") from exc
    data = response.data if hasattr(response, "data") else response["data"]
    return [item["embedding"] if isinstance(item, dict) else item.embedding for item in data]
