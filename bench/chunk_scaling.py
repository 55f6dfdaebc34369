"""Chunking and indexing of one long bulleted page: time should grow in proportion to its size.

    python bench/chunk_scaling.py              # 5k / 10k / 20k-line lists
    python bench/chunk_scaling.py --mb 7       # also one page of about 7 MB (8 MiB is the page limit)

Prints, per size: seconds to chunk the page and make its rows (norm keys included), seconds
for a whole index pass of that page with the hashing embedder, and both per 1,000 lines.
Linear means the per-1,000-line figures stay flat as the page doubles. Figures are wall
time on a shared machine: expect noise of tens of percent.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from suzent_desktop.core.files.clock import Clock  # noqa: E402
from suzent_desktop.core.index.embedding import HashingEmbedder  # noqa: E402
from suzent_desktop.core.manager import MemoryManager  # noqa: E402


def bulleted_page(lines: int) -> str:
    body = "\n".join(f"- item {i}: user noted detail {i % 97} about project {i % 13} (2026-07-0{1 + i % 9})" for i in range(lines))
    return f"# Long list\n\n{body}\n"


def measure(lines: int) -> tuple[float, float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        manager = MemoryManager.open(Path(tmp) / "home", clock=Clock(), embedder=HashingEmbedder())
        page = manager.layout.notebook_dir / "3_Personal" / "Long.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        text = bulleted_page(lines)
        page.write_text(text, encoding="utf-8")
        indexer = manager.indexer
        source = indexer._source_for(page)
        start = time.perf_counter()
        rows = indexer._rows_for(source, text, set())
        chunk_seconds = time.perf_counter() - start
        start = time.perf_counter()
        changes = asyncio.run(indexer.sync_paths([page]))
        index_seconds = time.perf_counter() - start
        if changes.errors:
            raise SystemExit(f"index pass failed: {changes.errors}")
        return chunk_seconds, index_seconds, len(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=0.0, help="also index one page of about this many MB")
    args = parser.parse_args()
    sizes = [5_000, 10_000, 20_000]
    if args.mb:
        sizes.append(int(args.mb * 1024 * 1024 / len(bulleted_page(1000)) * 1000))
    print(f"{'lines':>9} {'MB':>6} {'rows':>7} {'chunk s':>8} {'/1k':>7} {'index s':>8} {'/1k':>7}")
    for lines in sizes:
        chunk_s, index_s, rows = measure(lines)
        mb = len(bulleted_page(lines).encode()) / 1024 / 1024
        k = lines / 1000
        print(f"{lines:>9} {mb:>6.1f} {rows:>7} {chunk_s:>8.2f} {chunk_s / k:>7.4f} {index_s:>8.2f} {index_s / k:>7.4f}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
