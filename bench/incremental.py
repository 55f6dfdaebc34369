"""Incremental index work against vault size: no-op pass, one-page edit, folder rename, staleness, state size.

    python bench/incremental.py                       # 1k, 5k and 20k pages, hashing embedder
    python bench/incremental.py --pages 20000 --days 30

Targets: a one-page edit indexed in <= 100 ms plus its embedding; a no-op pass <= 200 ms
(``no-op sync`` walks the vault as the command line does; ``no-op sync watched`` is the window's,
which reads only what its watcher named); renaming a folder of 1,000 pages embeds nothing; a search
never scans the vault. ``measure(pages)`` returns the figures as a dict (bench/scaling.py uses it).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _genhome import generate_home  # noqa: E402

from suzent_desktop.core.files.clock import Clock  # noqa: E402
from suzent_desktop.core.files.paths.layout import Layout  # noqa: E402
from suzent_desktop.core.index.embedding import HashingEmbedder  # noqa: E402
from suzent_desktop.core.index.indexer import Indexer  # noqa: E402
from suzent_desktop.settings import Settings  # noqa: E402

TODAY = dt.date(2026, 7, 20)
FOLDER_PAGES = 1000


class CountingEmbedder:
    """The embedder under test, counting texts and the time spent inside it."""

    def __init__(self, inner) -> None:
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.texts = 0
        self.seconds = 0.0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        start = time.perf_counter()
        try:
            return self.inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - start
            self.texts += len(texts)

    def reset(self) -> None:
        self.texts, self.seconds = 0, 0.0


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _folder(home: Path, count: int) -> list[Path]:
    """A folder of small pages of its own, to be renamed as a whole."""
    folder = home / "notebook" / "1_Projects" / "Batch"
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        path = folder / f"Batch page {i}.md"
        path.write_text(f"# Batch page {i}\n\nBatch page {i} keeps notes on item {i} of the batch.\n",
                        encoding="utf-8")
        paths.append(path)
    return paths


async def _timed(coro) -> tuple[float, object]:
    start = time.perf_counter()
    result = await coro
    return time.perf_counter() - start, result


async def _measure(root: Path, pages: int, days: int, embedder_name: str) -> dict[str, float]:
    home = root / "home"
    folder_pages = min(FOLDER_PAGES, pages // 2)
    generated = generate_home(home, days=days, facts_per_day=20, pages=pages - folder_pages, today=TODAY)
    batch = _folder(home, folder_pages)
    layout = Layout.from_settings(home, Settings())
    inner = HashingEmbedder()
    if embedder_name == "onnx":
        from suzent_desktop.core.index.embedding import OnnxMiniLMEmbedder

        inner = OnnxMiniLMEmbedder()
    embedder = CountingEmbedder(inner)
    indexer = Indexer(layout, embedder, Clock(fixed_today=TODAY))
    figures: dict[str, float] = {"pages": pages}

    figures["build_s"], _ = await _timed(indexer.sync(full=True))
    figures["build_rss_mb"] = peak_rss_mb()
    figures["rows"] = (await indexer.stats()).rows

    await indexer.sync()  # warm: the first pass after a build may compact the table
    figures["noop_sync_ms"] = (await _timed(indexer.sync()))[0] * 1000

    target = generated.pages[len(generated.pages) // 2]
    figures["noop_sync_paths_ms"] = (await _timed(indexer.sync_paths([target])))[0] * 1000
    target.write_text(target.read_text(encoding="utf-8") + "\nEdited during the benchmark run.\n", encoding="utf-8")
    embedder.reset()
    seconds, _ = await _timed(indexer.sync_paths([target]))
    figures["edit_ms"] = seconds * 1000
    figures["edit_embed_ms"] = embedder.seconds * 1000
    figures["edit_texts"] = embedder.texts

    figures["stale_check_ms"] = (await _timed(asyncio.to_thread(indexer.stale_paths)))[0] * 1000
    fresh = Indexer(layout, embedder, Clock(fixed_today=TODAY))  # a command-line process: loads the state, walks
    figures["cli_stale_check_ms"] = (await _timed(asyncio.to_thread(fresh.stale_paths)))[0] * 1000
    indexer.watch(True)  # the window, once its watcher is in place: one walk, then the cache
    await asyncio.to_thread(indexer.stale_paths)
    figures["watched_stale_check_ms"] = (await _timed(asyncio.to_thread(indexer.stale_paths)))[0] * 1000
    figures["watched_noop_sync_ms"] = (await _timed(indexer.sync()))[0] * 1000  # the window's pass after a dream
    indexer.watch(False)
    figures["state_kb"] = indexer.table.states.size_bytes() / 1024

    # rename the folder: the watcher reports every old and new path in one batch
    renamed = batch[0].parent.with_name("Batch renamed")
    batch[0].parent.rename(renamed)
    moved = [renamed / p.name for p in batch]
    embedder.reset()
    seconds, _ = await _timed(indexer.sync_paths([*batch, *moved]))
    figures["rename_ms"] = seconds * 1000
    figures["rename_folder_pages"] = folder_pages
    figures["rename_texts_embedded"] = embedder.texts
    figures["peak_rss_mb"] = peak_rss_mb()
    return figures


def measure(pages: int, *, days: int = 30, embedder: str = "hashing", folder: Path | None = None) -> dict[str, float]:
    """Build a vault of ``pages`` pages (plus ``days`` daily logs) and time the incremental cases."""
    root = folder or Path(tempfile.mkdtemp(prefix="suzent-incremental-"))
    try:
        return asyncio.run(_measure(root, pages, days, embedder))
    finally:
        if folder is None:
            shutil.rmtree(root, ignore_errors=True)


COLUMNS = [
    ("pages", "pages", "{:.0f}"),
    ("rows", "rows", "{:.0f}"),
    ("build_s", "build s", "{:.1f}"),
    ("noop_sync_ms", "no-op sync ms", "{:.0f}"),
    ("watched_noop_sync_ms", "no-op sync watched ms", "{:.1f}"),
    ("noop_sync_paths_ms", "no-op sync_paths ms", "{:.1f}"),
    ("edit_ms", "1-page edit ms", "{:.1f}"),
    ("edit_embed_ms", "of it embedding ms", "{:.1f}"),
    ("stale_check_ms", "stale check (walk) ms", "{:.0f}"),
    ("cli_stale_check_ms", "new process stale check ms", "{:.0f}"),
    ("watched_stale_check_ms", "watched stale check ms", "{:.1f}"),
    ("rename_ms", "rename folder ms", "{:.0f}"),
    ("rename_texts_embedded", "texts embedded on rename", "{:.0f}"),
    ("state_kb", "state KB", "{:.0f}"),
    ("build_rss_mb", "peak RSS after build MB", "{:.0f}"),
    ("peak_rss_mb", "peak RSS MB", "{:.0f}"),
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, nargs="+", default=[1000, 5000, 20000])
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--embedder", choices=["hashing", "onnx"], default="hashing")
    args = parser.parse_args(argv)
    print("each size in a fresh process state; timings are wall clock on a shared machine (noisy)")
    for pages in args.pages:
        figures = measure(pages, days=args.days, embedder=args.embedder)
        print(f"\n== {pages} pages ==")
        for key, label, fmt in COLUMNS:
            print(f"{label:>26}: {fmt.format(figures[key])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
