"""The LLM consolidation engine and its vault tools, with litellm mock responses (no network)."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest
from dream_support import days_before, make_manager, page, write_log

from suzent_desktop.core import llm
from suzent_desktop.core.engines.dream.agent import DreamAgent
from suzent_desktop.core.engines.dream.model import Batch, BatchFact
from suzent_desktop.core.engines.dream.tools import ToolsClosed, VaultAccessError, VaultTools
from suzent_desktop.core.files.records.log_grammar import Fact

MODEL = "gpt-4o-mini"


def tool_reply(*calls: tuple[str, dict]):
    from litellm import ModelResponse
    from litellm.types.utils import ChatCompletionMessageToolCall, Choices, Function, Message

    tool_calls = [
        ChatCompletionMessageToolCall(id=f"call_{i}", type="function",
                                      function=Function(name=name, arguments=json.dumps(args)))
        for i, (name, args) in enumerate(calls)
    ]
    message = Message(role="assistant", content=None, tool_calls=tool_calls)
    return ModelResponse(choices=[Choices(finish_reason="tool_calls", index=0, message=message)])


class ScriptedLLM:
    """Feeds litellm one scripted ``mock_response`` per turn, through the real ``llm.chat``."""

    def __init__(self, replies):
        self.replies = list(replies)
        self.seen: list[list[dict]] = []

    async def chat(self, model, messages, tools, timeout):
        self.seen.append(copy.deepcopy(messages))
        reply = self.replies.pop(0) if self.replies else "done"
        return await llm.chat(model, messages, tools, timeout, mock_response=reply)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for folder in ("3_Personal", "4_Assets", ".state"):
        (root / folder).mkdir(parents=True)
    (root / "log.md").write_text("# Log\n", encoding="utf-8")
    (root / "3_Personal" / "Work.md").write_text("# Work\n\n- User works at Contoso (2026-07-01)\n", encoding="utf-8")
    return root


# -- the tools' fence ----------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["../outside.md", "3_Personal/../../outside.md", "/etc/passwd", "C:/x.md"])
def test_tools_refuse_paths_outside_the_vault(vault, path):
    tools = VaultTools(vault)
    with pytest.raises(VaultAccessError):
        tools.read(path)
    with pytest.raises(VaultAccessError):
        tools.write(path, "x")


@pytest.mark.parametrize("path", ["log.md", ".state/tombstones.jsonl", ".state/x.md", "4_Assets/note.md",
                                  "3_Personal/picture.png", "schema.md"])
def test_tools_refuse_writes_to_protected_places(vault, path):
    tools = VaultTools(vault)
    with pytest.raises(VaultAccessError):
        tools.write(path, "watermark=2099-01-01")
    assert (vault / "log.md").read_text(encoding="utf-8") == "# Log\n"


def test_tools_refuse_symlinks_that_leave_the_vault(vault, tmp_path):
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "keys.md").write_text("private\n", encoding="utf-8")
    os.symlink(secret, vault / "3_Personal" / "linked")
    os.symlink(secret / "keys.md", vault / "3_Personal" / "Keys.md")
    tools = VaultTools(vault)
    for path in ("3_Personal/linked/keys.md", "3_Personal/Keys.md"):
        with pytest.raises(VaultAccessError):
            tools.read(path)
        with pytest.raises(VaultAccessError):
            tools.write(path, "overwritten")
    assert (secret / "keys.md").read_text(encoding="utf-8") == "private\n"


async def test_dispatch_reports_refusals_to_the_model_and_edits_work(vault):
    tools = VaultTools(vault)
    assert (await tools.dispatch("write", {"path": "log.md", "content": "x"})).startswith("error:")
    assert (await tools.dispatch("read", '{"path": "../x"}')).startswith("error:")
    assert (await tools.dispatch("read", "not json")).startswith("error:")
    assert (await tools.dispatch("explode", {})).startswith("error: unknown tool")
    reworded = await tools.dispatch("edit", {"path": "3_Personal/Work.md", "old": "Contoso", "new": "Fabrikam"})
    assert reworded.startswith("error:") and "User works at Contoso" in reworded
    ok = await tools.dispatch("edit", {"path": "3_Personal/Work.md", "old": "# Work\n",
                                       "new": "# Work\n\nSee also [[Fabrikam]].\n"})
    assert ok.startswith("ok")
    assert "Fabrikam" in (vault / "3_Personal" / "Work.md").read_text(encoding="utf-8")
    assert "3_Personal/Work.md" in (await tools.dispatch("list", {}))
    assert "Fabrikam" in await tools.dispatch("search_notebook", {"query": "fabrikam works"})
    tools.close()
    with pytest.raises(ToolsClosed):
        tools.write("3_Personal/Work.md", "late")


# -- the agent loop ----------------------------------------------------------------------------------
async def test_agent_run_through_the_runner_with_mock_responses(home, clock, today):
    manager = make_manager(home, clock, memory_consolidation_model=MODEL)
    d1, d2 = days_before(today, 2)
    write_log(manager, d1, [Fact("User works at Contoso", "work"), Fact("User's locker code is 4321", "general")])
    write_log(manager, d2, [Fact("User now works at Microsoft", "work")])
    await manager.forgetting.forget("User's locker code is 4321")
    new_work = "# Work\n\n- User works at Microsoft (" + d2 + ")\n\n## History\n\n- ~~User works at Contoso~~ (" + d1 + \
        ", until " + d2 + ")\n"
    script = ScriptedLLM([
        tool_reply(("list", {"folder": "3_Personal"})),
        tool_reply(("write", {"path": "3_Personal/Work.md", "content": new_work}),
                   ("write", {"path": "log.md", "content": "## [2099-01-01] ingest | x  watermark=2099-01-01\n"})),
        f"Merged the job change into Work. watermark={today}",
    ])
    log_before = manager.layout.log_md.read_text(encoding="utf-8")
    result = await manager.dreaming.runner(llm=script).run_once()
    assert result.outcome == "productive", result.reason
    assert page(manager, "3_Personal/Work.md") == new_work
    assert manager.dreaming.watermark() == d2 and manager.notebook.raw_watermark() == d2
    assert manager.layout.log_md.read_text(encoding="utf-8").startswith(log_before)
    assert result.summary.startswith("Merged the job change")
    prompt = script.seen[0][1]["content"]
    assert "User now works at Microsoft" in prompt and "Vault schema" in prompt and "suzent:index:start" in prompt
    assert "4321" not in prompt
    tool_results = [m["content"] for m in script.seen[2] if m["role"] == "tool"]
    assert any(r.startswith("error:") and "log.md" in r for r in tool_results)


async def test_agent_model_error_fails_the_run_and_writes_nothing(home, clock, today):
    manager = make_manager(home, clock, memory_consolidation_model=MODEL)
    write_log(manager, days_before(today, 1)[0], ["User likes tea"])
    script = ScriptedLLM([
        tool_reply(("write", {"path": "3_Personal/Tea.md", "content": "# Tea\n"})),
        Exception("rate limited"),
    ])
    result = await manager.dreaming.runner(llm=script).run_once()
    assert result.outcome == "failed" and "rate limited" in result.reason
    assert not (manager.layout.notebook_dir / "3_Personal" / "Tea.md").exists()
    assert manager.dreaming.watermark() is None


async def test_agent_step_limit(tmp_path, vault):
    tools = VaultTools(vault)
    script = ScriptedLLM([tool_reply(("search_notebook", {"query": f"tea {i}"})) for i in range(5)])
    agent = DreamAgent(MODEL, tools, llm=script, max_steps=3)
    b = Batch(dates=["2026-07-01"], facts=[BatchFact("2026-07-01", Fact("User likes tea"), 3)])
    with pytest.raises(RuntimeError, match="did not finish"):
        await agent.run(b)


async def test_complete_json_parses_fenced_answers_and_reports_bad_ones():
    answer = await llm.complete_json(MODEL, [{"role": "user", "content": "x"}], schema_hint="{}", timeout=5,
                                     mock_response='```json\n{"facts": []}\n```')
    assert answer == {"facts": []}
    with pytest.raises(llm.LLMFormatError):
        await llm.complete_json(MODEL, [{"role": "user", "content": "x"}], schema_hint="{}", timeout=5,
                                mock_response="I think the user likes tea")
    with pytest.raises(llm.LLMError):
        await llm.complete_json("", [], schema_hint="{}", timeout=5)


def test_prompt_carries_batch_schema_index_and_the_relevant_pages(vault):
    (vault / "schema.md").write_text("# Vault schema\n", encoding="utf-8")
    (vault / "index.md").write_text("# Index\n<!-- suzent:index:start -->\n<!-- suzent:index:end -->\n", encoding="utf-8")
    (vault / "2_Wiki").mkdir()
    (vault / "2_Wiki" / "Sourdough.md").write_text("# Sourdough\n\nStarter feeding schedule.\n", encoding="utf-8")
    (vault / "2_Wiki" / "Unrelated.md").write_text("# Unrelated\n\nAstronomy notes.\n", encoding="utf-8")
    b = Batch(dates=["2026-07-01"], facts=[BatchFact("2026-07-01", Fact("User bakes sourdough bread", "hobby"), 3)])
    messages = DreamAgent(MODEL, VaultTools(vault), llm=object()).build_messages(b)
    prompt = messages[1]["content"]
    assert "2026-07-01 - [hobby] User bakes sourdough bread" in prompt
    assert "### 3_Personal/Work.md" in prompt and "### 2_Wiki/Sourdough.md" in prompt
    assert "Unrelated" not in prompt and "# Vault schema" in prompt and "suzent:index:start" in prompt
    assert "3_Personal/" in messages[0]["content"] and "History" in messages[0]["content"]


def test_a_link_to_another_vault_page_is_written_through(vault):
    (vault / "5_Archives").mkdir()
    (vault / "5_Archives" / "Old Work.md").write_text("# Old\n", encoding="utf-8")
    os.symlink(vault / "5_Archives" / "Old Work.md", vault / "3_Personal" / "Old Work.md")
    tools = VaultTools(vault)
    tools.write("3_Personal/Old Work.md", "# Old\n\n- kept\n")
    assert (vault / "3_Personal" / "Old Work.md").is_symlink()
    assert (vault / "5_Archives" / "Old Work.md").read_text(encoding="utf-8") == "# Old\n\n- kept\n"
    assert tools.originals == {"5_Archives/Old Work.md": b"# Old\n"}


# -- models that cannot call tools, failing calls, slow models -------------------------------------
def _text_call(name: str, args: dict) -> str:
    return f"I will now call the tool.\n<tool_call>\n{json.dumps({'name': name, 'arguments': args})}\n</tool_call>"


async def test_a_tool_call_written_as_text_is_parsed_and_run(home, clock, today):
    manager = make_manager(home, clock, memory_consolidation_model=MODEL)
    write_log(manager, days_before(today, 1)[0], ["User likes green tea"])
    content = "# Tea\n\n- User likes green tea\n"
    script = ScriptedLLM([
        _text_call("write", {"path": "3_Personal/Tea.md", "content": content}),
        "```json\n" + json.dumps({"name": "read", "arguments": {"path": "3_Personal/Tea.md"}}) + "\n```",
        "Added the tea preference.",
    ])
    result = await manager.dreaming.runner(llm=script).run_once()
    assert result.outcome == "productive", result.reason
    assert page(manager, "3_Personal/Tea.md") == content
    fed_back = script.seen[2][-1]
    assert fed_back["role"] == "user" and fed_back["content"].startswith("Result of read:") and "green tea" in fed_back["content"]


@pytest.mark.parametrize(
    "answer, how",
    [
        ("write(3_Personal/Tea.md, '# Tea')", "could not be parsed"),
        ('{"name": "write", "arguments": {"path": "3_Personal/Tea.md", "content": ', "could not be parsed"),
        ("I have consolidated the facts into the notebook.", "without calling any tool"),
    ],
)
async def test_a_model_that_does_not_call_tools_fails_the_run_and_says_so(home, clock, today, answer, how):
    manager = make_manager(home, clock, memory_consolidation_model=MODEL)
    write_log(manager, days_before(today, 1)[0], ["User likes green tea"])
    result = await manager.dreaming.runner(llm=ScriptedLLM([answer])).run_once()
    assert result.outcome == "failed" and result.failed_attempt
    assert "the model does not call tools" in result.reason and how in result.reason
    assert manager.dreaming.watermark() is None


async def test_the_same_failing_call_runs_at_most_twice_and_names_the_cause(home, clock, today):
    manager = make_manager(home, clock, memory_consolidation_model=MODEL)
    write_log(manager, days_before(today, 1)[0], ["User likes green tea"])
    script = ScriptedLLM([tool_reply(("edit", {"path": "3_Personal/Nope.md", "old": "a", "new": "b"}))] * 7)
    result = await manager.dreaming.runner(llm=script).run_once()
    assert result.outcome == "failed"
    assert "repeated a failing call edit" in result.reason and "Nope.md" in result.reason
    assert len(script.seen) == 3  # two failing runs of the call, then the third request ends the run
    errors = [m for m in script.seen[-1] if m["role"] == "tool"]
    assert len(errors) == 2 and all(m["content"].startswith("error:") for m in errors)


class SlowLLM:
    """A model that never answers in time: each turn waits far longer than any limit."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.calls = 0

    async def chat(self, model, messages, tools, timeout):
        import asyncio

        self.calls += 1
        await asyncio.sleep(self.delay)
        return await llm.chat(model, messages, tools, timeout, mock_response="done")


async def test_a_slow_model_cannot_stretch_a_run_past_its_time_limit(home, clock, today):
    import time

    manager = make_manager(home, clock, memory_consolidation_model=MODEL,
                           memory_consolidation_timeout_seconds=1.0)
    write_log(manager, days_before(today, 1)[0], ["User likes green tea"])
    started = time.monotonic()
    result = await manager.dreaming.runner(llm=SlowLLM(30.0)).run_once()
    elapsed = time.monotonic() - started
    assert result.outcome == "failed" and "timed out after 1 s" in result.reason
    assert elapsed < 5.0, f"the run took {elapsed:.1f} s against a 1 s limit"


class _SlowOpenAI:
    """A loopback OpenAI-compatible server that answers each request after ``delay`` seconds."""

    def __init__(self, delay: float) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        outer = self
        self.requests = 0

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server naming
                import time

                outer.requests += 1
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                time.sleep(delay)
                body = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "fake",
                                   "choices": [{"index": 0, "finish_reason": "stop",
                                                "message": {"role": "assistant", "content": "{}"}}]}).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass

            def log_message(self, *args):
                pass

        ThreadingHTTPServer.daemon_threads = True
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.block_on_close = False
        import threading

        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


async def test_a_call_is_cut_at_its_limit_once_without_litellm_retrying_it(monkeypatch):
    import time

    from suzent_desktop.core.files import llm_limits

    monkeypatch.setattr(llm_limits, "LOCAL_PROMPT_CHARS_PER_SECOND", 1e9)  # the plain limit, for this server
    server = _SlowOpenAI(delay=8.0)
    try:
        started = time.monotonic()
        with pytest.raises(llm.LLMTimeout, match="llm_timeout_seconds"):
            await llm.complete_json("openai/fake", [{"role": "user", "content": "hi"}], schema_hint="{}",
                                    timeout=1.0, api_base=server.base, api_key="test")
        elapsed = time.monotonic() - started
    finally:
        server.close()
    assert elapsed < 1.0 + llm.DEADLINE_GRACE_SECONDS + 1.0, f"took {elapsed:.1f} s for a 1 s limit"
    assert server.requests == 1
async def test_loading_the_model_library_is_not_charged_to_the_run_time_limit(home, clock, today, monkeypatch):
    """The first litellm import can take seconds on a loaded machine; the run's clock starts after it."""
    import time

    manager = make_manager(home, clock, memory_consolidation_model=MODEL, memory_consolidation_timeout_seconds=2.0)
    write_log(manager, days_before(today, 1)[0], ["User likes green tea"])
    real = llm._litellm
    imported: list[bool] = []

    def slow_first_import():
        if not imported:
            time.sleep(3.0)  # stands for the import's cost, paid once per process
            imported.append(True)
        return real()

    monkeypatch.setattr(llm, "_litellm", slow_first_import)
    script = ScriptedLLM([tool_reply(("write", {"path": "3_Personal/Tea.md", "content": "# Tea\n\n- User likes green tea\n"})),
                           "done"])
    result = await manager.dreaming.runner(llm=script).run_once()
    assert result.outcome == "productive", result.reason


def test_prompt_names_the_programs_own_catalogue_when_the_user_keeps_an_index_md(vault):
    (vault / "index.md").write_text("# My own map\n", encoding="utf-8")
    (vault / "suzent-index.md").write_text("# Index\n<!-- suzent:index:start -->\n<!-- suzent:index:end -->\n",
                                          encoding="utf-8")
    (vault / "suzent-schema.md").write_text("# Vault schema\n", encoding="utf-8")
    tools = VaultTools(vault, index_name="suzent-index.md", schema_name="suzent-schema.md")
    b = Batch(dates=["2026-07-01"], facts=[BatchFact("2026-07-01", Fact("User bakes sourdough bread", "hobby"), 3)])
    system, task = (m["content"] for m in DreamAgent(MODEL, tools, llm=object()).build_messages(b))
    assert "keep `suzent-index.md` listing" in system and "`index.md`" not in system
    assert "## suzent-index.md" in task and "## suzent-schema.md" in task
    assert "My own map" not in task and "suzent:index:start" in task


class HugeTextLLM:
    """A hostile model: answers with 300 KB of text that looks like the start of a tool call."""

    def __init__(self) -> None:
        self.seen: list[list[dict]] = []

    async def chat(self, model, messages, tools, timeout):
        self.seen.append(copy.deepcopy(messages))
        return llm.ChatReply("{" * 300_000)


async def test_a_huge_text_reply_is_refused_with_the_size_error_and_the_run_stays_in_time(home, clock, today):
    import asyncio
    import time

    manager = make_manager(home, clock, memory_consolidation_model=MODEL, memory_consolidation_timeout_seconds=2.0)
    write_log(manager, days_before(today, 1)[0], ["User likes green tea"])
    await asyncio.to_thread(llm.load)  # the runner loads the library before its clock starts too
    model = HugeTextLLM()
    started = time.monotonic()
    result = await manager.dreaming.runner(llm=model).run_once()
    elapsed = time.monotonic() - started
    assert elapsed < 2.0 + 3.0, f"the run took {elapsed:.1f} s against a 2 s limit"
    assert result.outcome == "failed" and manager.dreaming.watermark() is None
    assert "repeated a failing call" in result.reason and "memory_consolidation_max_write_kb" in result.reason
    answers = [m["content"] for m in model.seen[-1] if m["role"] == "user"][1:]
    assert len(answers) == 2 and all(a.startswith("error:") and "256 KB" in a for a in answers)
    assert max(sum(len(json.dumps(m)) for m in seen) for seen in model.seen) < 200_000, "the text is not resent"


def test_parsing_a_text_reply_takes_time_in_proportion_to_its_length():
    import time

    from suzent_desktop.core.engines.dream.agent import parse_text_tool_calls

    for junk in ("{" * 250_000, '{"a": ' * 40_000, "[" * 250_000):
        started = time.monotonic()
        assert parse_text_tool_calls(junk) == []
        assert time.monotonic() - started < 2.0
    call = json.dumps({"name": "read", "arguments": {"path": "3_Personal/Work.md"}})
    assert parse_text_tool_calls("{" * 1000 + " " + call) == [("read", {"path": "3_Personal/Work.md"})]


async def test_a_run_that_changes_nothing_after_failed_calls_names_the_failures(home, clock, today):
    manager = make_manager(home, clock, memory_consolidation_model=MODEL)
    write_log(manager, days_before(today, 1)[0], ["User likes green tea"])
    script = ScriptedLLM([tool_reply(("write", {"path": "3_Personal/Tea.md"})), "I have updated the notebook."])
    runner = manager.dreaming.runner(llm=script)
    result = await runner.run_once()
    assert result.outcome == "no_change" and result.failed_attempt
    cause = "the model's calls failed: write: missing argument 'content'"
    assert cause in result.reason
    assert cause in runner.history()[0]["reason"]  # the Dream panel's history row keeps it too
