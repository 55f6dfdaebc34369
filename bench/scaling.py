"""The scaling table: index build, incremental work and search against vault size.

    python bench/scaling.py                              # 1k / 5k / 20k pages, a 200k-row store, model ratio
    python bench/scaling.py --pages 1000 5000 20000 100000
    python bench/scaling.py --rows 0 --ratio-pages       # the page table only

Every size runs in a child process of its own, so its peak RSS is its own. Per size, with the
hashing embedder: the full build, the no-op pass, a one-page edit and the rename of a
1,000-page folder (bench/incremental.py's ``measure``, whatever main's indexer does), then
search over the built index: the vector side alone exact (flat) and through the ANN index
(trained here when the pass did not, so small sizes show the crossover), recall@10 of the
ANN side against the flat scan, and the whole ``Indexer.search`` (hybrid, query embedding
included) without and with the ANN index; then the index and state sizes.

``--rows`` fills a bare IndexStore with that many generated rows (default 200,000) and times
the same searches: issue 13's target is hybrid p95 <= 50 ms there, recall@10 >= 0.95.

The bundled model gives the build's ratio to the raw embedder on a smaller vault
(``--ratio-pages``, 1,000 by default): the indexer's build, then the very same batches, in the same order,
through the raw model in the same process.

Recall@10 counts an ANN hit as right when its exact distance is within the flat scan's
10th distance (generated texts repeat, so ties at the 10th place are common); the id-based
figure is printed next to it. Wall-clock figures on a shared 2-core machine are noisy.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _genhome import _fact, _sentence, generate_home  # noqa: E402
from incremental import measure  # noqa: E402
from index_build import TimedEmbedder, pct, peak_rss_mb, queries  # noqa: E402

from suzent_desktop.core.files.clock import Clock  # noqa: E402
from suzent_desktop.core.files.paths.layout import Layout  # noqa: E402
from suzent_desktop.core.index.embedding import HashingEmbedder  # noqa: E402
from suzent_desktop.core.index.indexer import Indexer  # noqa: E402
from suzent_desktop.core.index.ranking import fusion  # noqa: E402
from suzent_desktop.core.index.storage import ann
from suzent_desktop.core.index.storage.store import IndexStore, Row, norm_key  # noqa: E402
from suzent_desktop.settings import Settings  # noqa: E402

CLOCK = Clock(fixed_today=dt.date(2026, 7, 20))
LIMIT = 20  # rows asked of the vector side: what Indexer.search asks for 10 hits


def _folder_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


def _timed(calls: Sequence[Callable[[], object]]) -> tuple[list[float], list[object]]:
    seconds, results = [], []
    for call in calls:
        start = time.perf_counter()
        results.append(call())
        seconds.append(time.perf_counter() - start)
    return seconds, results


def _recall(exact: list[list[dict]], approx: list[list[dict]]) -> tuple[float, float]:
    """Recall@10 by distance (ties at the 10th place count) and by row id."""
    by_distance = by_id = 0.0
    for truth, got in zip(exact, approx, strict=True):
        if not truth:
            by_distance, by_id = by_distance + 1, by_id + 1
            continue
        tenth = truth[min(9, len(truth) - 1)]["score"]
        top = got[:10]
        by_distance += sum(1 for r in top if r["score"] >= tenth - 1e-5) / min(10, len(truth))
        by_id += len({r["id"] for r in top} & {r["id"] for r in truth[:10]}) / min(10, len(truth))
    return by_distance / len(exact), by_id / len(exact)


def _ms(values: list[float]) -> tuple[float, float]:
    return pct(values, 0.5) * 1000, pct(values, 0.95) * 1000


def search_figures(store: IndexStore, search: Callable[[str, np.ndarray], object], count: int) -> dict:
    """Flat against ANN on one store: vector side alone, recall, and ``search`` as the app calls it."""
    texts = queries(count)
    vectors = HashingEmbedder(store.dim).embed(texts)
    figures: dict[str, float] = {}
    store.drop_ann()  # flat first, whatever the pass left
    search(texts[0], vectors[0])  # warm caches
    seconds, exact = _timed([lambda v=v: store.vector_search(v, LIMIT, exact=True) for v in vectors])
    figures["flat_p50"], figures["flat_p95"] = _ms(seconds)
    seconds, _ = _timed([lambda q=q, v=v: search(q, v) for q, v in zip(texts, vectors, strict=True)])
    figures["search_flat_p50"], figures["search_flat_p95"] = _ms(seconds)
    start = time.perf_counter()
    store.build_ann()
    figures["ann_train_s"] = time.perf_counter() - start
    index = store.ann_index()
    figures["partitions"], figures["probes"] = index.partitions, index.probes
    search(texts[0], vectors[0])
    seconds, approx = _timed([lambda v=v: store.vector_search(v, LIMIT) for v in vectors])
    figures["ann_p50"], figures["ann_p95"] = _ms(seconds)
    figures["recall"], figures["recall_ids"] = _recall(exact, approx)
    seconds, _ = _timed([lambda q=q, v=v: search(q, v) for q, v in zip(texts, vectors, strict=True)])
    figures["search_ann_p50"], figures["search_ann_p95"] = _ms(seconds)
    return figures


def one_size(pages: int, days: int, count: int) -> dict:
    root = Path(tempfile.mkdtemp(prefix="suzent-scaling-"))
    try:
        figures = measure(pages, days=days, folder=root)
        layout = Layout.from_settings(root / "home", Settings())
        indexer = Indexer(layout, HashingEmbedder(), CLOCK)
        loop = asyncio.new_event_loop()  # one loop for every search, as in the app
        loop.run_until_complete(indexer.search("warm up"))  # opens the store
        figures["ann_by_pass"] = float(indexer.table.store.ann_index() is not None)

        def search(query: str, _vector) -> object:
            return loop.run_until_complete(indexer.search(query, limit=10))

        figures |= search_figures(indexer.table.store, search, count)
        loop.close()
        figures["index_mb"] = _folder_mb(indexer.table.store.table_dir)
        figures["peak_rss_mb"] = peak_rss_mb()
        return figures
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _store_rows(count: int, dim: int, chunk: int = 20_000) -> Iterator[list[Row]]:
    """Generated facts and page sentences (the shapes bench/_genhome.py writes), a chunk at a time."""
    rng = random.Random(5)
    embedder = HashingEmbedder(dim)
    sources = ["archive", "notebook", "notebook", "core"]
    for start in range(0, count, chunk):
        rows: list[Row] = []
        for serial in range(start, min(count, start + chunk)):
            text = _fact(rng, serial).content if serial % 2 else " ".join(
                _sentence(rng) for _ in range(rng.randint(1, 3)))
            rows.append(Row(
                id=f"r{serial}", text=text, source_type=sources[serial % 4], path=f"/vault/page {serial // 4}.md",
                zone="2_Wiki", line=serial % 40 + 1, date=f"2026-0{serial % 9 + 1}-1{serial % 10}", heading=None,
                norm=text.lower(), norm_keys=[norm_key(text.lower())], embed_text=text,
            ))
        for row, vector in zip(rows, embedder.embed([r.embed_text for r in rows]), strict=True):
            row.vector = vector
        yield rows


def store_size(count: int, queries_count: int) -> dict:
    root = Path(tempfile.mkdtemp(prefix="suzent-scaling-store-"))
    try:
        store = IndexStore(root / "index", 384)
        store.open()
        start = time.perf_counter()
        for rows in _store_rows(count, 384):
            store.add(rows)
        store.optimize(force=True)
        figures: dict[str, float] = {"rows": count, "fill_s": time.perf_counter() - start}  # embedding included
        figures["ann_by_pass"] = float(store.ann_index() is not None)
        embedder = HashingEmbedder()
        titles = fusion.TitleCache()

        def search(query: str, _vector) -> object:  # the query embedding is part of a search
            plan = fusion.plan_for(query, fusion.ALL_SCRIPTS)
            return fusion.search(store, titles.get(store), plan, query, embedder.embed([query])[0], LIMIT, None)

        figures |= search_figures(store, search, queries_count)
        figures["index_mb"] = _folder_mb(store.table_dir)
        figures["peak_rss_mb"] = peak_rss_mb()
        return figures
    finally:
        shutil.rmtree(root, ignore_errors=True)


class BatchRecorder(TimedEmbedder):
    """TimedEmbedder that also keeps the batch boundaries, so the raw run replays the same calls."""

    def __init__(self, inner) -> None:
        super().__init__(inner)
        self.batches: list[int] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.batches.append(len(texts))
        return super().embed(texts)


def model_ratio(pages: int, days: int) -> dict:
    from suzent_desktop.core.index.embedding import OnnxMiniLMEmbedder

    root = Path(tempfile.mkdtemp(prefix="suzent-scaling-model-"))
    try:
        generate_home(root / "home", days=days, facts_per_day=20, pages=pages)
        inner = OnnxMiniLMEmbedder()
        inner.embed(["warm up the model session"])
        recorder = BatchRecorder(inner)
        indexer = Indexer(Layout.from_settings(root / "home", Settings()), recorder, CLOCK)
        start = time.perf_counter()
        asyncio.run(indexer.sync(full=True))
        build = time.perf_counter() - start
        texts, offset = list(recorder.texts), 0
        start = time.perf_counter()
        for size in recorder.batches:
            inner.embed(texts[offset : offset + size])
            offset += size
        raw = time.perf_counter() - start
        return {"pages": pages, "texts": len(texts), "build_s": build, "inside_s": recorder.seconds,
                "raw_s": raw, "ratio": build / raw, "peak_rss_mb": peak_rss_mb()}
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _child(args: list[str]) -> dict:
    """Run one measurement in a fresh interpreter (its own peak RSS, no state carried over)."""
    done = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, check=False)
    if done.returncode:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"{' '.join(args)} failed")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _cell(figures: dict, key: str, fmt: str = "{:.0f}") -> str:
    return fmt.format(figures[key]) if key in figures else "-"


def _pair(figures: dict, a: str, b: str) -> str:
    return f"{figures[a]:.1f} / {figures[b]:.1f}"


def page_table(results: list[dict]) -> str:
    head = ["pages", "rows", "build s", "no-op pass ms walked / watched", "1-page edit ms (of it embedding)",
            "rename 1k-page folder ms (texts embedded)", "vector flat p50/p95 ms", "vector ANN p50/p95 ms",
            "recall@10 (ids)", "search flat p50/p95 ms", "search ANN p50/p95 ms", "ANN train s",
            "build peak RSS MB", "run peak RSS MB", "index MB", "state KB"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for f in results:
        lines.append("| " + " | ".join([
            _cell(f, "pages"), _cell(f, "rows"), _cell(f, "build_s", "{:.1f}"),
            _cell(f, "noop_sync_ms") + " / " + _cell(f, "watched_noop_sync_ms", "{:.1f}"),
            f"{f['edit_ms']:.0f} ({f['edit_embed_ms']:.1f})",
            f"{f['rename_ms']:.0f} ({f['rename_texts_embedded']:.0f})",
            _pair(f, "flat_p50", "flat_p95"), _pair(f, "ann_p50", "ann_p95"),
            f"{f['recall']:.3f} ({f['recall_ids']:.3f})",
            _pair(f, "search_flat_p50", "search_flat_p95"), _pair(f, "search_ann_p50", "search_ann_p95"),
            _cell(f, "ann_train_s", "{:.1f}") + ("" if f.get("ann_by_pass") else "*"),
            _cell(f, "build_rss_mb"), _cell(f, "peak_rss_mb"), _cell(f, "index_mb", "{:.1f}"), _cell(f, "state_kb"),
        ]) + " |")
    return "\n".join(lines)


def store_table(f: dict) -> str:
    head = ["rows", "vector flat p50/p95 ms", "vector ANN p50/p95 ms", "recall@10 (ids)",
            "hybrid flat p50/p95 ms", "hybrid ANN p50/p95 ms", "partitions / probes", "ANN train s",
            "index MB", "peak RSS MB"]
    return "\n".join([
        "| " + " | ".join(head) + " |", "|" + "---|" * len(head),
        "| " + " | ".join([
            _cell(f, "rows"), _pair(f, "flat_p50", "flat_p95"), _pair(f, "ann_p50", "ann_p95"),
            f"{f['recall']:.3f} ({f['recall_ids']:.3f})", _pair(f, "search_flat_p50", "search_flat_p95"),
            _pair(f, "search_ann_p50", "search_ann_p95"), f"{f['partitions']:.0f} / {f['probes']:.0f}",
            _cell(f, "ann_train_s", "{:.1f}"), _cell(f, "index_mb", "{:.1f}"), _cell(f, "peak_rss_mb"),
        ]) + " |",
    ])


def ratio_table(results: list[dict]) -> str:
    head = ["pages", "texts", "build s", "time inside the model s", "raw model, same batches s",
            "build / raw", "peak RSS MB"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for f in results:
        lines.append("| " + " | ".join([
            _cell(f, "pages"), _cell(f, "texts"), _cell(f, "build_s", "{:.1f}"), _cell(f, "inside_s", "{:.1f}"),
            _cell(f, "raw_s", "{:.1f}"), _cell(f, "ratio", "{:.3f}"), _cell(f, "peak_rss_mb"),
        ]) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, nargs="+", default=[1000, 5000, 20000],
                        help="vault sizes (100000 takes tens of minutes on 2 cores)")
    parser.add_argument("--days", type=int, default=30, help="daily logs of 20 facts next to the pages")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rows", type=int, default=200_000, help="bare-store rows for the target check (0: skip)")
    parser.add_argument("--ratio-pages", type=int, nargs="*", default=[1000],
                        help="vaults for the bundled-model ratio (none: skip)")
    parser.add_argument("--one", choices=["pages", "rows", "ratio"], help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one == "pages":
        print(json.dumps(one_size(args.size, args.days, args.queries)))
        return 0
    if args.one == "rows":
        print(json.dumps(store_size(args.size, args.queries)))
        return 0
    if args.one == "ratio":
        print(json.dumps(model_ratio(args.size, args.days)))
        return 0
    print("Wall clock on a shared 2-core machine: figures are noisy. Each size runs in its own process.")
    print(f"ANN index: IVF_SQ past {ann.ANN_MIN_ROWS} rows; a train time marked * was forced by this bench "
          "below that threshold (the indexing pass would have kept the flat scan).\n")
    common = ["--days", str(args.days), "--queries", str(args.queries)]
    results = []
    for pages in args.pages:
        results.append(_child(["--one", "pages", "--size", str(pages), *common]))
        print(f"{pages} pages done", file=sys.stderr)
    print("## Pages (hashing embedder; search = Indexer.search, hybrid, 10 hits, query embedding included)\n")
    print(page_table(results))
    if args.rows:
        print(f"\n## A bare store of {args.rows} rows (hashing; hybrid = fusion.search, the ranking search uses, embedding included)\n")
        print(store_table(_child(["--one", "rows", "--size", str(args.rows), *common])))
    if args.ratio_pages:
        print("\n## Bundled model: the build against the raw model on the same texts, same batches, same run\n")
        print(ratio_table([_child(["--one", "ratio", "--size", str(n), *common]) for n in args.ratio_pages]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
