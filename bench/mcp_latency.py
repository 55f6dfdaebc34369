"""MCP round-trip latency: search_memory and capture_turn over stdio next to the same call in-process.

    python bench/mcp_latency.py                     # bundled ONNX model
    python bench/mcp_latency.py --embedder hashing  # quick run
    python bench/mcp_latency.py --calls 50

Three ways to make each call, on one generated home:
  in-process   MemoryManager.search / process_conversation_turn_for_memories, awaited directly
  mcp memory   the same MCP server object, through the SDK's in-memory client (protocol cost only)
  mcp stdio    `suzent-desktop mcp` as a subprocess, through the SDK's stdio client (what an agent sees)
Prints p50 / p95 / mean in milliseconds. Figures on a shared, loaded machine are noisy.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from _genhome import PEOPLE, PLACES, PROJECTS, TOPICS, generate_home  # noqa: E402

TODAY = dt.date(2026, 7, 20)


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return ordered[index]


async def timed(calls: int, make: Callable[[int], Awaitable[object]]) -> list[float]:
    """Milliseconds per call, after one untimed warm-up call."""
    await make(-1)
    out: list[float] = []
    for i in range(calls):
        start = time.perf_counter()
        await make(i)
        out.append((time.perf_counter() - start) * 1000)
    return out


def queries(rng: random.Random, n: int) -> list[str]:
    words = PEOPLE + PLACES + PROJECTS + TOPICS
    return [f"{rng.choice(words)} {rng.choice(TOPICS)}" for _ in range(n)]


def turn(i: int) -> dict[str, str]:
    return {
        "user": f"I prefer {['green tea', 'espresso', 'oolong'][i % 3]} when working on project number {i}",
        "assistant": "Noted.",
        "session_id": f"bench-{i % 7}",
    }


def report(rows: list[tuple[str, str, list[float]]]) -> None:
    print(f"{'call':<16}{'path':<14}{'p50 ms':>9}{'p95 ms':>9}{'mean ms':>9}{'n':>6}")
    for call, path, values in rows:
        print(
            f"{call:<16}{path:<14}{statistics.median(values):9.1f}{percentile(values, 95):9.1f}"
            f"{statistics.fmean(values):9.1f}{len(values):6d}"
        )


async def main_async(args: argparse.Namespace) -> None:
    from mcp import Client, ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from suzent_desktop.core.manager import MemoryManager
    from suzent_desktop.mcp_server import build_server

    home = Path(tempfile.mkdtemp(prefix="suzent-mcp-bench-")) / "home"
    home.mkdir(parents=True)
    generate_home(home, days=args.days, facts_per_day=40, pages=args.pages, today=TODAY)
    manager = MemoryManager.open(home)
    start = time.perf_counter()
    await manager.indexing.reindex()
    print(f"home: {home} ({args.days} days x 40 facts, {args.pages} pages); index built in "
          f"{time.perf_counter() - start:.1f} s; embedder {manager.embedder.name}")
    rng = random.Random(11)
    qs = queries(rng, args.calls + 1)
    rows: list[tuple[str, str, list[float]]] = []

    # in-process: the manager's own front door
    rows.append(("search_memory", "in-process", await timed(
        args.calls, lambda i: manager.searching.search(qs[i], limit=10))))
    rows.append(("capture_turn", "in-process", await timed(
        args.calls, lambda i: manager.process_conversation_turn_for_memories(**turn(i)))))

    # the same server object through the SDK's in-memory transport
    async with Client(build_server(manager)) as client:
        rows.append(("search_memory", "mcp memory", await timed(
            args.calls, lambda i: client.call_tool("search_memory", {"query": qs[i], "limit": 10}))))
        rows.append(("capture_turn", "mcp memory", await timed(
            args.calls, lambda i: client.call_tool("capture_turn", turn(i)))))

    # a server process over stdio, as an agent runs it
    env = {"PYTHONPATH": str(REPO), "SUZENT_TODAY": TODAY.isoformat(), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    if os.environ.get("SUZENT_EMBEDDING_MODEL"):
        env["SUZENT_EMBEDDING_MODEL"] = os.environ["SUZENT_EMBEDDING_MODEL"]
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "suzent_desktop", "mcp", "--home", str(home)], env=env
    )
    start = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        print(f"stdio server started and initialized in {time.perf_counter() - start:.2f} s")
        rows.append(("search_memory", "mcp stdio", await timed(
            args.calls, lambda i: session.call_tool("search_memory", {"query": qs[i], "limit": 10}))))
        rows.append(("capture_turn", "mcp stdio", await timed(
            args.calls, lambda i: session.call_tool("capture_turn", turn(i)))))
    rows.sort(key=lambda r: (r[0] != "search_memory", r[0]))
    report(rows)
    print("mcp rows include the server's look for files edited elsewhere (at most every 2 s) before a search")
    shutil.rmtree(home.parent, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--embedder", choices=("bundled", "hashing"), default="bundled")
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--pages", type=int, default=200)
    args = parser.parse_args()
    os.environ["SUZENT_TODAY"] = TODAY.isoformat()
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    if args.embedder == "hashing":
        os.environ["SUZENT_EMBEDDING_MODEL"] = "hashing"
    else:
        os.environ.pop("SUZENT_EMBEDDING_MODEL", None)
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
