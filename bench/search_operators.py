"""Search operators benchmark: what tag:, path:, "phrase", -term and a listing cost, and that they hold.

    python bench/search_operators.py                   # 5,000 pages, hashing embedder
    python bench/search_operators.py --pages 20000

Prints, per query, the median latency of a few runs (and the first run: a ``tag:`` query
reads each file's tags once), the hits returned, and how many hits break the query's own
filters (must be 0). Timings are wall clock on whatever else the machine is doing.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _genhome import generate_home  # noqa: E402

from suzent_desktop.core.files.clock import Clock  # noqa: E402
from suzent_desktop.core.files.paths.layout import Layout  # noqa: E402
from suzent_desktop.core.index.embedding import HashingEmbedder  # noqa: E402
from suzent_desktop.core.index.indexer import Indexer  # noqa: E402
from suzent_desktop.core.vault.query import file_passes, parse_query, text_passes  # noqa: E402
from suzent_desktop.core.vault.tags import read_tags  # noqa: E402
from suzent_desktop.settings import Settings  # noqa: E402

TODAY = dt.date(2026, 7, 20)
QUERIES = [
    "vector search latency",
    "checklist tag:dashboards",
    "Atlas path:2_Wiki",
    '"trail running"',
    "dashboards -Atlas -tag:sourdough",
    "tag:sourdough",
    "path:1_Projects -tag:onboarding",
]


def broken(indexer: Indexer, query: str, hits: list) -> int:
    """Hits that do not pass the query's own filters (recomputed from the files)."""
    parsed = parse_query(query)
    bad = 0
    for hit in hits:
        ok = text_passes(parsed, hit.text)
        if parsed.has_file_filters:
            ok = ok and file_passes(parsed, indexer.searcher.relative(hit.path), list(read_tags(Path(hit.path))))
        bad += not ok
    return bad


async def run(pages: int, days: int, runs: int, limit: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        generate_home(home, days=days, facts_per_day=20, pages=pages, today=TODAY)
        indexer = Indexer(Layout.from_settings(home, Settings()), HashingEmbedder(384), Clock(fixed_today=TODAY))
        started = time.perf_counter()
        await indexer.sync()
        rows = (await indexer.stats()).rows
        print(f"{pages} pages, {days} days of logs: indexed in {time.perf_counter() - started:.1f} s ({rows} rows)")
        print(f"{'query':42} {'first ms':>9} {'median ms':>10} {'hits':>5} {'mode':>8} {'broken':>7}")
        for query in QUERIES:
            times = []
            response = None
            for _ in range(runs):
                began = time.perf_counter()
                response = await indexer.search(query, limit=limit)
                times.append((time.perf_counter() - began) * 1000)
            assert response is not None
            print(f"{query:42} {times[0]:9.1f} {statistics.median(times):10.1f} {len(response.hits):5} "
                  f"{response.mode:>8} {broken(indexer, query, response.hits):7}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=5000)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--limit", type=int, default=10)
    args = parser.parse_args()
    asyncio.run(run(args.pages, args.days, args.runs, args.limit))


if __name__ == "__main__":
    main()
