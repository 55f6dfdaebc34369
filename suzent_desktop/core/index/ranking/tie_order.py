"""Equal scores in a fixed order, so the same files answer the same way whatever built the index.

LanceDB returns rows of equal score (a page and its sync-conflict copy holding the same bullet,
two bullets of the same length sharing the query's words) in the order they sit in the table,
which is the order they were written: two devices syncing one home, a process that has indexed
for hours and one that rebuilt the index a minute ago, hold the same rows in different orders.
Reciprocal-rank fusion turns those arbitrary ranks into different scores, and the answers of two
devices to the same question differed. Here equal scores go by path, line and row id instead;
scores are compared rounded (``SCORE_DIGITS``), as float noise in the last bits is no ranking.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TypeVar

SCORE_DIGITS = 6  # scores closer than this are equal (BM25 and cosine scores are float32)
TIE_MARGIN = 8  # rows fetched beyond the limit, to see whether a tie runs past it
MAX_FETCH = 1000  # a tie longer than this is cut where the store cuts it

K = TypeVar("K")


def rounded(score: float) -> float:
    return round(float(score), SCORE_DIGITS)


def row_key(row: Mapping) -> tuple:
    """Best score first; equal scores by path, line, text, then id.

    The id comes last: it is derived from the file's absolute path, which differs between devices.
    """
    return (-rounded(row.get("score", 0.0)), str(row.get("path") or ""), row.get("line") or 0,
            str(row.get("text") or ""), str(row.get("id") or ""))


def top_rows(fetch: Callable[[int], list[dict]], limit: int) -> list[dict]:
    """The best ``limit`` rows of ``fetch(n)`` (the store's best ``n``), equal scores in ``row_key`` order.

    When the rows tied with the last one kept run to the end of what was fetched, the store cut
    the tie where its table order put it: fetch more until the tie ends.
    """
    wanted = limit + TIE_MARGIN
    while True:
        rows = sorted(fetch(wanted), key=row_key)
        if len(rows) < wanted or len(rows) <= limit or wanted >= MAX_FETCH:
            return rows[:limit]
        if rounded(rows[limit - 1]["score"]) != rounded(rows[-1]["score"]):
            return rows[:limit]
        wanted *= 4


def ranked(
    scores: Iterable[tuple[K, float]], limit: int | None = None, tie: Callable[[K], object] = str
) -> list[tuple[K, float]]:
    """(key, score) pairs best first, equal scores by ``tie(key)``: not by the order they were counted in."""
    out = sorted(scores, key=lambda kv: (-rounded(kv[1]), tie(kv[0])))
    return out if limit is None else out[:limit]
