"""Per-call model limits: a timeout is named a timeout and is not waited for twice."""

from __future__ import annotations

import pytest

from suzent_desktop.core import llm
from suzent_desktop.core.engines.capture.extraction import ExtractionError, extract_facts
from suzent_desktop.settings import Settings


async def test_an_extraction_timeout_is_reported_as_a_timeout_and_not_retried():
    calls: list[float] = []

    class Slow:
        async def complete_json(self, model, messages, **kwargs):
            calls.append(kwargs["timeout"])
            raise llm.LLMTimeout(f"{model}: no answer within {kwargs['timeout']:g} s (llm_timeout_seconds)")

    with pytest.raises(ExtractionError, match="timed out") as err:
        await extract_facts("User: I live in Oslo", Settings(extraction_model="gpt-4o-mini", llm_timeout_seconds=7.0),
                            llm=Slow())
    assert "malformed" not in str(err.value)
    assert calls == [7.0]


async def test_a_timeout_message_names_the_limit_once_without_litellms_wording(monkeypatch):
    class Timeout(Exception):  # litellm's exception, by name
        pass

    wording = "litellm.Timeout: APITimeoutError - Request timed out. Error_str: Request timed out."

    async def times_out(**kwargs):
        raise Timeout(wording)

    litellm = llm._litellm()
    monkeypatch.setattr(litellm, "acompletion", times_out)
    with pytest.raises(llm.LLMTimeout) as caught:
        await llm.chat("local-model", [{"role": "user", "content": "hi"}], [], 5.0)
    assert str(caught.value) == "local-model: no answer within 5 s (llm_timeout_seconds)"
