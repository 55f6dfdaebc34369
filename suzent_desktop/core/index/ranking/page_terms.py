"""Pages ranked as wholes: BM25 over each page's terms, kept in step with the table.

Rows are paragraphs, and a question often names the subject of a page rather than one
paragraph of it: "毎日自動で日記のノートを作りたい" shares 毎日 with one paragraph of the
daily-notes page, 日記 with another and 自動 with a third, and no single paragraph wins. Over
the whole page these add up, which is why plain BM25 over pages beat the app on the help vault
(bench/cjk_search.py). This module keeps each page's term counts (``core.title_rows.name_terms``:
CJK bigrams, English stems without function words), updated per page when its rows change,
and ranks pages for a query; ``core.fusion`` gives the best of them a vote.
"""

from __future__ import annotations

import math
import threading
from collections import Counter

from suzent_desktop.core.index.ranking import tie_order
from suzent_desktop.core.index.ranking.title_rows import term_counts
from suzent_desktop.core.index.storage.store import IndexStore

K1 = 1.2
B = 0.75


class PageTerms:
    """Term counts of every page (notebook and core rows; log facts and turns are not pages)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._version: tuple | None = None
        self._ids: dict[str, frozenset[str]] = {}
        self._counts: dict[str, Counter[str]] = {}
        self._lengths: dict[str, int] = {}
        self._df: Counter[str] = Counter()

    def refresh(self, store: IndexStore) -> None:
        """Re-count the pages whose rows changed since the last call (one cheap scan of ids)."""
        key = store.stamp()
        with self._lock:
            if key == self._version:
                return
            table = store.scan(["id", "path", "title"]).to_pylist()
            ids: dict[str, set[str]] = {}
            for row in table:
                if row["title"] is not None:
                    ids.setdefault(row["path"], set()).add(row["id"])
            now = {path: frozenset(found) for path, found in ids.items()}
            changed = [path for path, found in now.items() if self._ids.get(path) != found]
            for path in [p for p in self._ids if p not in now] + changed:
                self._forget(path)
            if changed:
                wanted = [i for path in changed for i in now[path]]
                texts: dict[str, list[str]] = {}
                for row in store.rows_with_ids(wanted):
                    texts.setdefault(row["path"], []).append(f"{row.get('heading') or ''}\n{row['text']}")
                titles = {row["path"]: row["title"] for row in table if row["title"] is not None}
                for path in changed:
                    counts = term_counts("\n".join([titles.get(path, ""), *texts.get(path, [])]))
                    self._counts[path] = counts
                    self._lengths[path] = sum(counts.values())
                    self._df.update(counts.keys())
            self._ids = now
            self._version = key

    def _forget(self, path: str) -> None:
        counts = self._counts.pop(path, None)
        self._ids.pop(path, None)
        self._lengths.pop(path, None)
        if counts:
            self._df.subtract(counts.keys())

    def idf(self, query_terms: frozenset[str]) -> dict[str, float]:
        """How rare each term is among pages (BM25's idf; 0 for a term no page holds)."""
        with self._lock:
            total = len(self._counts)
            return {t: math.log(1 + (total - self._df[t] + 0.5) / (self._df[t] + 0.5)) if self._df.get(t, 0) > 0
                    else 0.0 for t in query_terms}

    def ranked(self, query_terms: frozenset[str], limit: int) -> list[tuple[str, float]]:
        """(path, BM25 score) of the best pages holding any of ``query_terms``, best first."""
        with self._lock:
            total = len(self._counts)
            if not total or not query_terms:
                return []
            average = sum(self._lengths.values()) / total
            idf = {t: math.log(1 + (total - self._df[t] + 0.5) / (self._df[t] + 0.5))
                   for t in query_terms if self._df.get(t, 0) > 0}
            if not idf:
                return []
            scores: dict[str, float] = {}
            for path, counts in self._counts.items():
                norm = K1 * (1 - B + B * self._lengths[path] / average)
                score = math.fsum(w * counts[t] * (K1 + 1) / (counts[t] + norm) for t, w in idf.items() if t in counts)
                if score > 0:
                    scores[path] = score
        return tie_order.ranked(scores.items(), limit)  # not in the order pages were counted in
