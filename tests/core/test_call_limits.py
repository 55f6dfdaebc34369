"""A model on this machine gets time to read its prompt (core/files/llm_limits.py)."""

from __future__ import annotations

import pytest

from suzent_desktop.core import llm
from suzent_desktop.core.files import llm_limits

PROMPT = [{"role": "user", "content": "x" * 10_000}]


@pytest.mark.parametrize("model, api_base, env, local", [
    ("openai/qwen", "http://127.0.0.1:8080/v1", {}, True),
    ("openai/qwen", None, {"OPENAI_API_BASE": "http://localhost:8080/v1"}, True),
    ("qwen", None, {"OPENAI_BASE_URL": "http://[::1]:8080/v1"}, True),
    ("ollama/llama3.1", None, {}, True),
    ("ollama/llama3.1", None, {"OLLAMA_API_BASE": "http://gpu-box.lan:11434"}, False),
    ("openai/gpt-4o-mini", None, {}, False),
    ("anthropic/claude", None, {"OPENAI_API_BASE": "http://127.0.0.1:8080"}, False),
])
def test_which_endpoints_are_local(model, api_base, env, local):
    assert llm_limits.is_local(model, api_base, env) is local


def test_the_limit_grows_with_the_prompt_only_for_a_local_endpoint():
    plain, how = llm_limits.fit(60.0, "openai/gpt-4o-mini", PROMPT, env={})
    assert plain == 60.0 and how == "llm_timeout_seconds"
    short, _ = llm_limits.fit(60.0, "ollama/qwen", [{"role": "user", "content": "hi"}], env={})
    long, how = llm_limits.fit(60.0, "ollama/qwen", PROMPT, env={})
    assert 60.0 < short < long and long >= 60.0 + 10_000 / llm_limits.LOCAL_PROMPT_CHARS_PER_SECOND
    assert "10,0" in how and "locally" in how
    assert llm_limits.fit(None, "ollama/qwen", PROMPT, env={})[0] is None  # 0 = no limit stays no limit


async def test_a_local_call_is_given_its_grown_limit_and_says_so(monkeypatch):
    seen: list[float] = []

    class Timeout(Exception):
        pass

    async def times_out(**kwargs):
        seen.append(kwargs["timeout"])
        raise Timeout("Request timed out")

    monkeypatch.setattr(llm._litellm(), "acompletion", times_out)
    with pytest.raises(llm.LLMTimeout, match="to read a .*-character prompt locally"):
        await llm.chat("openai/qwen", PROMPT, [], 60.0, api_base="http://127.0.0.1:9/v1")
    assert seen and seen[0] > 60.0 + 10_000 / llm_limits.LOCAL_PROMPT_CHARS_PER_SECOND
