"""Smoke test of a built app folder: it does what a person and an agent do first, and each step must succeed.

    python packaging/smoke.py DIST_DIR [--window-seconds 8] [--launch-time]

DIST_DIR is the one-folder build (it holds the ``suzent-desktop`` binary). On a fresh demo home in
a temporary folder, with the bundled embedding model (the frozen app's default):

1. ``demo DIR`` opens the window offscreen on the demo, runs a few seconds and closes cleanly;
2. ``status`` and ``search coffee`` answer on that home (the index, LanceDB and the ONNX model);
3. ``mcp`` answers ``initialize`` over stdio, lists its tools and answers a ``search_memory`` call;
4. ``mcp --http PORT`` does the same over streamable HTTP on 127.0.0.1;
5. ``capture`` with an extraction model set goes through litellm to a fake OpenAI-compatible
   server on 127.0.0.1 and writes the fact it answers (litellm is the largest collected package).

``--launch-time`` also starts the window on a virtual X server (Xvfb, as installed by
scripts/install-system-deps.sh) and prints the seconds until it is on screen, twice.

The MCP client is the SDK's own, so this runs with the Python that built the app. Exit 0 when
every step passed; the first failure prints the command, its exit code and its output.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

STEP_TIMEOUT = 300.0  # seconds; generous, for a loaded machine


class SmokeFailure(Exception):
    pass


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """The user's environment without settings of ours or Python's, so the frozen app runs on its own defaults."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SUZENT_", "PYTHON", "LITELLM_"))}
    env["SUZENT_HOME"] = str(home)
    env.update(extra)
    return env


def run(app: Path, args: list[str], env: dict[str, str], stdin: str | None = None) -> str:
    started = time.monotonic()
    done = subprocess.run([str(app), *args], env=env, input=stdin, capture_output=True, text=True,
                          timeout=STEP_TIMEOUT, check=False)
    took = time.monotonic() - started
    output = (done.stdout + done.stderr).strip()
    if done.returncode != 0 or "Traceback" in output:
        raise SmokeFailure(f"`suzent-desktop {' '.join(args)}` exited {done.returncode} after {took:.1f} s:\n{output}")
    print(f"ok  suzent-desktop {' '.join(args)}  ({took:.1f} s)")
    for line in output.splitlines():
        print(f"      {line}")
    return done.stdout


def hits_of(result) -> int:  # noqa: ANN001 - a CallToolResult
    if result.is_error:
        raise SmokeFailure(f"search_memory failed: {result.content}")
    return len(result.structured_content["hits"])


async def talk(session: ClientSession, transport: str, took_start: float) -> None:
    init = await asyncio.wait_for(session.initialize(), STEP_TIMEOUT)
    tools = sorted(t.name for t in (await session.list_tools()).tools)
    hits = hits_of(await session.call_tool("search_memory", {"query": "coffee"}))
    print(f"ok  mcp over {transport}: initialize answered by {init.server_info.name} {init.server_info.version} "
          f"(protocol {init.protocol_version}); {len(tools)} tools; search_memory 'coffee' -> {hits} hits  "
          f"({time.monotonic() - took_start:.1f} s)")
    print(f"      tools: {', '.join(tools)}")
    if "search_memory" not in tools or hits == 0:
        raise SmokeFailure(f"mcp over {transport}: expected search_memory among the tools and hits for 'coffee'")


async def mcp_stdio(app: Path, home: Path) -> None:
    started = time.monotonic()
    params = StdioServerParameters(command=str(app), args=["--home", str(home), "mcp"], env=clean_env(home))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await talk(session, "stdio", started)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def mcp_http(app: Path, home: Path) -> None:
    started = time.monotonic()
    port = free_port()
    log = tempfile.TemporaryFile()
    server = subprocess.Popen([str(app), "--home", str(home), "mcp", "--http", str(port)], env=clean_env(home),
                              stdout=log, stderr=subprocess.STDOUT)
    try:
        while True:  # the server is up once its port accepts a connection
            if server.poll() is not None:
                log.seek(0)
                raise SmokeFailure(f"`mcp --http {port}` exited {server.returncode}:\n{log.read().decode()}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() - started > STEP_TIMEOUT:
                    raise SmokeFailure(f"`mcp --http {port}` did not listen within {STEP_TIMEOUT:.0f} s") from None
                await asyncio.sleep(0.1)
        async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write, *_):
            async with ClientSession(read, write) as session:
                await talk(session, f"http (port {port})", started)
    finally:
        server.terminate()
        server.wait(timeout=60)
        log.close()


FACT = "User drinks a cortado after lunch"


class FakeModel(BaseHTTPRequestHandler):
    """Answers every chat completion with one extracted fact, as an OpenAI-compatible server would."""

    requests = 0

    def do_POST(self) -> None:  # noqa: N802 - the http.server API
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        FakeModel.requests += 1
        facts = {"facts": [{"category": "preference", "content": FACT, "tags": ["coffee"], "importance": 0.6}]}
        body = json.dumps({
            "id": "smoke", "object": "chat.completion", "created": 0, "model": "smoke",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": json.dumps(facts)}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def capture_through_litellm(app: Path, home: Path) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeModel)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        env = clean_env(home, SUZENT_EXTRACTION_MODEL="openai/smoke", OPENAI_API_KEY="smoke",
                        OPENAI_API_BASE=f"http://127.0.0.1:{server.server_address[1]}/v1")
        turn = json.dumps({"user": "After lunch I always drink a cortado.", "assistant": "Noted."})
        run(app, ["--home", str(home), "capture"], env, stdin=turn)
    finally:
        server.shutdown()
        server.server_close()
    archive = "".join(p.read_text(encoding="utf-8") for p in (home / "memory" / "archive").glob("*.md"))
    if FakeModel.requests == 0 or FACT not in archive:
        raise SmokeFailure(f"capture through litellm: {FakeModel.requests} requests reached the fake model, "
                           f"and the fact {'is' if FACT in archive else 'is not'} in the daily log")
    print(f"ok  litellm in the app reached the fake model ({FakeModel.requests} request) and the fact was written")


def window_on_screen(app: Path, home: Path, display: str) -> float:
    """Seconds from starting ``gui`` until a top-level window whose title names Suzent is viewable on ``display``."""
    env = clean_env(home, DISPLAY=display, QT_QPA_PLATFORM="xcb", SUZENT_QUIT_AFTER_START="3")
    started = time.monotonic()
    proc = subprocess.Popen([str(app), "gui"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        while proc.poll() is None and time.monotonic() - started < STEP_TIMEOUT:
            if any(viewable(window, display) for window in titled_suzent(display)):
                return time.monotonic() - started
            time.sleep(0.02)
        raise SmokeFailure(f"no Suzent window on {display}: {proc.stderr.read().decode() if proc.stderr else ''}")
    finally:
        proc.wait(timeout=STEP_TIMEOUT)


def titled_suzent(display: str) -> list[str]:
    """Ids of the windows whose title holds "Suzent" (xwininfo lists mapped and unmapped ones)."""
    tree = subprocess.run(["xwininfo", "-root", "-tree", "-display", display], capture_output=True, text=True,
                          check=False).stdout
    return [line.split()[0] for line in tree.splitlines() if '"' in line and "Suzent" in line.split('"')[1]]


def viewable(window: str, display: str) -> bool:
    info = subprocess.run(["xwininfo", "-id", window, "-display", display], capture_output=True, text=True,
                          check=False).stdout
    return "Map State: IsViewable" in info


def launch_time(app: Path, home: Path) -> None:
    if not (shutil.which("Xvfb") and shutil.which("xwininfo")):
        print("--  launch time skipped: Xvfb or xwininfo missing (bash scripts/install-system-deps.sh)")
        return
    display = f":{90 + os.getpid() % 500}"
    xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(1.0)  # Xvfb has no readiness signal short of polling the display
        for attempt in ("first start", "second start"):
            print(f"ok  window on screen (Xvfb, {attempt}): {window_on_screen(app, home, display):.2f} s")
    finally:
        xvfb.terminate()
        xvfb.wait(timeout=30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dist", type=Path, help="the one-folder build (holds the suzent-desktop binary)")
    parser.add_argument("--window-seconds", type=float, default=8.0, help="how long the offscreen window stays up")
    parser.add_argument("--launch-time", action="store_true", help="time the window to screen on Xvfb")
    args = parser.parse_args()
    app = (args.dist / ("suzent-desktop.exe" if os.name == "nt" else "suzent-desktop")).resolve()
    if not app.is_file():
        print(f"smoke: no app at {app}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="suzent-smoke-") as scratch:
        home = Path(scratch) / "demo"
        started = time.monotonic()
        try:
            run(app, ["demo", str(home)], clean_env(home, QT_QPA_PLATFORM="offscreen",
                                                    SUZENT_QUIT_AFTER_START=str(args.window_seconds)))
            run(app, ["--home", str(home), "status"], clean_env(home))
            run(app, ["--home", str(home), "search", "coffee"], clean_env(home))
            asyncio.run(mcp_stdio(app, home))
            asyncio.run(mcp_http(app, home))
            capture_through_litellm(app, home)
            if args.launch_time:
                launch_time(app, home)
        except (SmokeFailure, subprocess.TimeoutExpired, TimeoutError) as failure:
            print(f"SMOKE TEST FAILED: {failure}", file=sys.stderr)
            return 1
    print(f"smoke test passed in {time.monotonic() - started:.0f} s: {app}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
