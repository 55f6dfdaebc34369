"""Index benchmark: full build, incremental updates, search latency and peak memory.

    python bench/index_build.py                      # bundled ONNX model (a few minutes on 2 cores)
    python bench/index_build.py --embedder hashing   # quick run

Targets (issue "Index and search"): build overhead over the embedder alone ≤ 15 %;
an incremental pass after appending 5 facts or editing one page embeds exactly the new
rows and costs ≤ 1 % of the full build.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _genhome import PEOPLE, PLACES, PROJECTS, TOPICS, generate_home  # noqa: E402

from suzent_desktop.core.files.clock import Clock  # noqa: E402
from suzent_desktop.core.files.paths.layout import Layout  # noqa: E402
from suzent_desktop.core.files.records.archive import Archive  # noqa: E402
from suzent_desktop.core.files.records.log_grammar import Fact  # noqa: E402
from suzent_desktop.core.index.embedding import EmbeddingError, HashingEmbedder, OnnxMiniLMEmbedder  # noqa: E402
from suzent_desktop.core.index.indexer import Indexer  # noqa: E402
from suzent_desktop.core.index.rows.chunking import chunk_markdown, embedding_text  # noqa: E402
from suzent_desktop.settings import Settings  # noqa: E402

TODAY = dt.date(2026, 7, 20)


class TimedEmbedder:
    """Passes through to a real embedder, recording the texts and the time spent inside it."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.texts: list[str] = []
        self.seconds = 0.0
        self.fail = False

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self.fail:
            raise EmbeddingError("benchmark: embedder switched off to measure full-text search")
        start = time.perf_counter()
        try:
            return self.inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - start
            self.texts.extend(texts)

    def reset(self) -> None:
        self.texts.clear()
        self.seconds = 0.0


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def queries(count: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    pool = [
        lambda: f"{rng.choice(PEOPLE)} {rng.choice(TOPICS)}",
        lambda: f"what does the user think about {rng.choice(TOPICS)}",
        lambda: f"{rng.choice(PROJECTS)} milestone",
        lambda: f"meeting in {rng.choice(PLACES)}",
        lambda: rng.choice(TOPICS),
    ]
    return [rng.choice(pool)() for _ in range(count)]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


async def run(args: argparse.Namespace) -> None:
    root = Path(args.home) if args.home else Path(tempfile.mkdtemp(prefix="suzent-bench-"))
    home = root / "home"
    print(f"home: {home}")
    started = time.perf_counter()
    generated = generate_home(
        home, days=args.days, facts_per_day=args.facts_per_day, pages=args.pages, today=TODAY
    )
    print(
        f"generated {generated.facts} fact lines over {len(generated.days)} days and {len(generated.pages)} pages "
        f"in {time.perf_counter() - started:.1f} s"
    )
    layout = Layout.from_settings(home, Settings())
    inner = HashingEmbedder() if args.embedder == "hashing" else OnnxMiniLMEmbedder()
    inner.embed(["warm up the model session"])  # model load is not part of either measurement
    start = time.perf_counter()
    import lancedb  # noqa: F401  - a one-off import cost per process, reported apart from the build

    print(f"one-off imports (lancedb): {time.perf_counter() - start:.2f} s")
    embedder = TimedEmbedder(inner)
    clock = Clock(fixed_today=TODAY)
    indexer = Indexer(layout, embedder, clock)

    # 1. full build
    start, cpu_start = time.perf_counter(), time.process_time()
    changes = await indexer.sync(full=True)
    full_seconds = time.perf_counter() - start
    full_cpu = time.process_time() - cpu_start
    rss_build = peak_rss_mb()
    stats = await indexer.stats()
    build_texts = list(embedder.texts)
    print("\n== full build ==")
    print(
        f"rows: {stats.rows} {stats.by_source}; rows added {changes.rows_added}; errors {len(stats.errors)}"
    )
    print(
        f"wall time: {full_seconds:.2f} s; time inside the embedder during the build: {embedder.seconds:.2f} s"
    )

    # the embedder alone, the same texts, one call sequence in the indexer's batch size
    start, cpu_start = time.perf_counter(), time.process_time()
    for offset in range(0, len(build_texts), 512):
        inner.embed(build_texts[offset : offset + 512])
    alone = time.perf_counter() - start
    alone_cpu = time.process_time() - cpu_start
    print(f"embedder alone on the same {len(build_texts)} texts: {alone:.2f} s")
    print(
        f"overhead: build / embedder-alone = {full_seconds / alone:.3f} ({(full_seconds / alone - 1) * 100:+.1f} %, target <= 15 %)"
    )
    print(
        f"CPU time (this process, all threads): build {full_cpu:.1f} s, embedder alone {alone_cpu:.1f} s, "
        f"ratio {full_cpu / alone_cpu:.3f} ({(full_cpu / alone_cpu - 1) * 100:+.1f} %)"
    )
    outside = full_seconds - embedder.seconds
    print(
        f"time outside the embedder during the build (files, chunking, LanceDB, FTS index, state): {outside:.2f} s "
        f"= {outside / embedder.seconds * 100:.1f} % of the embedding time (robust to other load on the machine)"
    )
    print(f"peak RSS after the full build: {rss_build:.0f} MB")

    # 2a. incremental: 5 facts appended to one daily log
    archive = Archive(layout)
    day = generated.days[-1]
    embedder.reset()
    when = dt.datetime.fromisoformat(f"{day}T23:30:00")
    archive.append_turn(
        [Fact(f"Benchmark fact {i} about {TOPICS[i]}") for i in range(5)], session_id="benchrun", when=when
    )
    start = time.perf_counter()
    changes = await indexer.sync()
    inc_seconds = time.perf_counter() - start
    print("\n== incremental: 5 facts appended to one daily log, sync() ==")
    print(
        f"embeddings computed: {len(embedder.texts)} (expected 5); rows added {changes.rows_added}, removed {changes.rows_removed}"
    )
    print(
        f"time: {inc_seconds * 1000:.0f} ms = {inc_seconds / full_seconds * 100:.3f} % of the full build (target <= 1 %)"
    )

    embedder.reset()
    archive.append_turn(
        [Fact(f"Second benchmark fact {i}") for i in range(5)], session_id="benchrun", when=when
    )
    start = time.perf_counter()
    changes = await indexer.sync_paths([archive.path_for(day)])
    targeted = time.perf_counter() - start
    print(
        f"targeted sync_paths() after 5 more facts: {len(embedder.texts)} embeddings, {targeted * 1000:.0f} ms "
        f"= {targeted / full_seconds * 100:.3f} % of the full build"
    )

    # 2b. incremental: one page edited (one paragraph changed)
    target = generated.pages[len(generated.pages) // 2]
    old_text = target.read_text(encoding="utf-8")
    lines = old_text.splitlines()
    body = next(i for i, ln in enumerate(lines) if i > 5 and ln.strip() and not ln.startswith("#"))
    lines[body] = lines[body] + " Edited during the benchmark run."
    new_text = "\n".join(lines) + "\n"
    old_chunks = {embedding_text(c, target.stem) for c in chunk_markdown(old_text)}
    expected = sum(1 for c in chunk_markdown(new_text) if embedding_text(c, target.stem) not in old_chunks)
    embedder.reset()
    target.write_text(new_text, encoding="utf-8")
    start = time.perf_counter()
    changes = await indexer.sync()
    edit_seconds = time.perf_counter() - start
    print("\n== incremental: one page edited, sync() ==")
    print(f"page: {target.relative_to(home)}")
    print(
        f"embeddings computed: {len(embedder.texts)} (changed chunks: {expected}); rows added {changes.rows_added}, removed {changes.rows_removed}"
    )
    print(
        f"time: {edit_seconds * 1000:.0f} ms = {edit_seconds / full_seconds * 100:.3f} % of the full build (target <= 1 %)"
    )

    start = time.perf_counter()
    await indexer.sync()
    print(f"no-change sync(): {(time.perf_counter() - start) * 1000:.0f} ms")

    # 3. search latency
    qs = queries(args.queries)
    await indexer.search("warm up")
    hybrid: list[float] = []
    for q in qs:
        start = time.perf_counter()
        response = await indexer.search(q, limit=10)
        hybrid.append(time.perf_counter() - start)
        assert response.mode == "hybrid", response.warning
    embedder.fail = True
    fulltext: list[float] = []
    for q in qs:
        start = time.perf_counter()
        response = await indexer.search(q, limit=10)
        fulltext.append(time.perf_counter() - start)
        assert response.mode == "fulltext"
    embedder.fail = False
    print(f"\n== search latency over {len(qs)} queries at {stats.rows} rows ==")
    print(
        f"hybrid (query embedding included): p50 {pct(hybrid, 0.5) * 1000:.1f} ms, p95 {pct(hybrid, 0.95) * 1000:.1f} ms, mean {statistics.mean(hybrid) * 1000:.1f} ms"
    )
    print(
        f"full-text fallback: p50 {pct(fulltext, 0.5) * 1000:.1f} ms, p95 {pct(fulltext, 0.95) * 1000:.1f} ms, mean {statistics.mean(fulltext) * 1000:.1f} ms"
    )
    print(f"\npeak RSS of the whole run: {peak_rss_mb():.0f} MB")
    if not args.keep and not args.home:
        import shutil

        shutil.rmtree(root, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--embedder", choices=["onnx", "hashing"], default="onnx")
    parser.add_argument("--days", type=int, default=200)
    parser.add_argument("--facts-per-day", type=int, default=100)
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--home", help="folder to generate into (kept); default: a temporary folder")
    parser.add_argument("--keep", action="store_true", help="keep the temporary home")
    args = parser.parse_args(argv)
    os.environ.pop("SUZENT_HOME", None)
    asyncio.run(run(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
