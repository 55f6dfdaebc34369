"""Per-call time limits that fit the model: a model on this machine gets time to read its prompt.

A model served from the same computer (an OpenAI-compatible server on localhost, Ollama, LM
Studio) often runs on the CPU, where reading a long prompt alone takes minutes: a dream's first
prompt (schema, index, the relevant pages, the batch) took 2-3 minutes for a 1.5B model on two
cores, so the fixed ``llm_timeout_seconds`` failed every dream. For such an endpoint the limit of
one call is ``llm_timeout_seconds`` plus one second per :data:`LOCAL_PROMPT_CHARS_PER_SECOND`
characters of prompt, so it grows with the conversation. A hosted endpoint keeps the plain limit.

An endpoint is local when its address (``api_base`` or the provider's usual environment
variable) names this machine, or when the provider's default server is local (``ollama/``,
``ollama_chat/``, ``lm_studio/``, ``llamafile/``) and no other address is given.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

# What a small model on two CPU cores reads per second, with room to spare (about 10-15 tokens).
LOCAL_PROMPT_CHARS_PER_SECOND = 50.0
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "0.0.0.0"})
_LOCAL_BY_DEFAULT = ("ollama/", "ollama_chat/", "lm_studio/", "llamafile/")
_BASE_VARIABLES = {
    "ollama": ("OLLAMA_API_BASE",),
    "ollama_chat": ("OLLAMA_API_BASE",),
    "lm_studio": ("LM_STUDIO_API_BASE",),
    "hosted_vllm": ("HOSTED_VLLM_API_BASE",),
    "openai": ("OPENAI_API_BASE", "OPENAI_BASE_URL"),
}


def endpoint(model: str, api_base: str | None = None, env: Mapping[str, str] | None = None) -> str | None:
    """The address calls to ``model`` go to, when one is configured (None: the provider's default)."""
    if api_base:
        return api_base
    env = os.environ if env is None else env
    provider = model.split("/", 1)[0] if "/" in model else "openai"
    for name in _BASE_VARIABLES.get(provider, ()):
        if env.get(name):
            return env[name]
    return None


def is_local(model: str, api_base: str | None = None, env: Mapping[str, str] | None = None) -> bool:
    address = endpoint(model, api_base, env)
    if address:
        host = (urlsplit(address if "://" in address else f"http://{address}").hostname or "").lower()
        return host in LOCAL_HOSTS or host.endswith(".localhost")
    return model.startswith(_LOCAL_BY_DEFAULT)


def prompt_chars(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> int:
    """The prompt's size as the server reads it: the messages and the tool descriptions."""
    return len(json.dumps(messages, ensure_ascii=False, default=str)) + (
        len(json.dumps(tools, ensure_ascii=False)) if tools else 0)


def fit(limit: float | None, model: str, messages: list[dict[str, Any]], *, tools: list[dict[str, Any]] | None = None,
        api_base: str | None = None, env: Mapping[str, str] | None = None) -> tuple[float | None, str]:
    """(the call's limit, how it was set) — the limit grows with the prompt for a local endpoint."""
    if limit is None or not is_local(model, api_base, env):
        return limit, "llm_timeout_seconds"
    size = prompt_chars(messages, tools)
    extra = size / LOCAL_PROMPT_CHARS_PER_SECOND
    return limit + extra, f"llm_timeout_seconds {limit:g} + {extra:.0f} s to read a {size:,}-character prompt locally"
