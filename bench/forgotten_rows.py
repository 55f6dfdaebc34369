"""What asking the one forgotten-text rule about every index row costs: a forget (which drops at once
the rows an index pass would leave out) and ``doctor``'s "still findable" both read the table's texts
through ``IndexStore.showing``.

    python bench/forgotten_rows.py                       # 40,000 rows; 3 tombstones, then 30 and 300
    python bench/forgotten_rows.py --rows 200000 --stones 3 300

Rows are generated sentences over a vocabulary of ``--words`` words (the smaller it is, the more
rows hold a word of some tombstone and are read by the rule: a harsh case for the narrowing that
reads only those). Each figure is the median of three runs; wall-clock on a shared machine is noisy.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from suzent_desktop.core.files.records.tombstones import normalize  # noqa: E402
from suzent_desktop.core.index.storage.store import IndexStore, Row, norm_key  # noqa: E402
from suzent_desktop.core.vault.forgotten import Forgotten  # noqa: E402


def filled(rows: int, vocabulary: list[str], seed: int) -> IndexStore:
    """A bare store of ``rows`` generated rows (8-dimensional vectors: only the texts are read)."""
    rng = random.Random(seed)
    store = IndexStore(Path(tempfile.mkdtemp(prefix="forgotten-rows-")) / "index", 8)
    store.open()
    batch: list[Row] = []
    for i in range(rows):
        text = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(5, 60))) + "."
        batch.append(Row(id=f"r{i}", text=text, source_type="notebook", path=f"/vault/p{i // 20}.md", zone=None,
                         line=i % 20, date=None, heading=None, norm=normalize(text),
                         norm_keys=[norm_key(normalize(text))], embed_text=text,
                         vector=np.zeros(8, dtype=np.float32)))
        if len(batch) == 5000:
            store.add(batch)
            batch = []
    store.add(batch)
    return store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=40_000)
    parser.add_argument("--stones", type=int, nargs="+", default=[3, 30, 300])
    parser.add_argument("--words", type=int, default=5000, help="vocabulary size of the generated rows")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed + 1)  # tombstones drawn apart from the rows
    vocabulary = [f"w{i}ord" for i in range(args.words)] + ["user", "likes", "the", "a", "tea", "works", "at"]
    store = filled(args.rows, vocabulary, args.seed)
    print(f"forgotten_rows: {args.rows} rows, vocabulary {len(vocabulary)} words")
    for count in args.stones:
        stones = Forgotten(" ".join(rng.sample(vocabulary, 6)) for _ in range(count))
        times, found = [], 0
        for _ in range(3):
            start = time.perf_counter()
            found = len(store.showing(stones))
            times.append(time.perf_counter() - start)
        print(f"  {count:5} tombstones: {statistics.median(times) * 1000:8.0f} ms, {found} rows show one")


if __name__ == "__main__":
    main()
