"""The approximate nearest-neighbour index over the vector column, for big homes.

A flat scan is exact and fast enough for a personal vault, but it grows with the table
(about half a second per query at 200,000 rows on two busy cores). Past ``ANN_MIN_ROWS``
rows the table gets an IVF_SQ index: k-means partitions of 8-bit scalar-quantised vectors.
A query probes the nearest partitions, and a refine step re-ranks its candidates by their
exact vectors. Measured at 200,000 rows of the hashing embedder (bench/scaling.py): IVF_SQ
trains in seconds and keeps recall@10 near 1.0; IVF_PQ lost too much to its codes (0.94 even
with a 10x refine) and IVF_HNSW_SQ took minutes to build.

Rows written after the index was trained are not in it, and LanceDB scans them exactly next
to it, so a new row is searchable at once. ``table.optimize()`` folds them in as a delta
segment; the index is retrained once its partitions hold twice their target size or after
``MAX_SEGMENTS`` deltas. The index's name records its partition count, so any process that
opens the table knows how many partitions to probe.
"""

from __future__ import annotations

import logging
import math
import re
from dataclasses import dataclass

log = logging.getLogger(__name__)

ANN_MIN_ROWS = 20_000  # below this a flat scan answers in a few tens of ms and is exact
ROWS_PER_PARTITION = 2_000  # k-means target; more partitions train slower, fewer scan more rows
PROBE_FRACTION = 0.2  # share of partitions probed per query (recall@10 >= 0.95, bench/scaling.py)
MIN_PROBES = 20
REFINE_FACTOR = 2  # candidates re-ranked by exact distance per result asked for
MAX_SEGMENTS = 8  # delta segments folded in by optimize before the index is retrained
NAME_PREFIX = "vector_ivfsq_p"
_NAME_RE = re.compile(rf"^{NAME_PREFIX}(\d+)$")


@dataclass(frozen=True)
class AnnIndex:
    """What a query and the maintenance schedule need to know about the table's index."""

    name: str
    partitions: int
    segments: int
    indexed_rows: int
    unindexed_rows: int

    @property
    def probes(self) -> int:
        return min(self.partitions, max(MIN_PROBES, math.ceil(self.partitions * PROBE_FRACTION)))


def partitions_for(rows: int) -> int:
    return max(2, rows // ROWS_PER_PARTITION)


def find(table) -> AnnIndex | None:
    """The table's vector index (None when it has none: every query is a flat scan)."""
    for index in table.list_indices():
        if list(getattr(index, "columns", [])) != ["vector"]:
            continue
        match = _NAME_RE.match(index.name)
        return AnnIndex(
            name=index.name,
            partitions=int(match.group(1)) if match else MIN_PROBES,
            segments=int(getattr(index, "num_segments", 1) or 1),
            indexed_rows=int(getattr(index, "num_indexed_rows", 0) or 0),
            unindexed_rows=int(getattr(index, "num_unindexed_rows", 0) or 0),
        )
    return None


def retrain_reason(index: AnnIndex | None, rows: int, min_rows: int) -> str | None:
    """Why the index should be (re)built now, or None when it is fine as it is."""
    if index is None:
        return f"{rows} rows passed {min_rows}" if rows >= min_rows else None
    if not _NAME_RE.match(index.name):
        return "an index of another kind is on the vector column"
    if rows >= 2 * ROWS_PER_PARTITION * index.partitions:
        return f"{rows} rows outgrew {index.partitions} partitions"
    if index.segments > MAX_SEGMENTS:
        return f"{index.segments} delta segments"
    return None


def train(table, rows: int) -> None:
    """Build a fresh index for ``rows`` rows, then drop the one it replaces.

    Queries go on meanwhile: until the new index is committed they use the old one (or a
    flat scan), both correct.
    """
    from lancedb.index import IvfSq

    partitions = partitions_for(rows)
    name = f"{NAME_PREFIX}{partitions}"
    old = [i.name for i in table.list_indices() if list(getattr(i, "columns", [])) == ["vector"]]
    table.create_index(
        "vector", config=IvfSq(distance_type="cosine", num_partitions=partitions), name=name, replace=True
    )
    for other in old:
        if other != name:
            table.drop_index(other)


def drop(table) -> None:
    """Remove every vector index: queries fall back to the exact flat scan."""
    for index in table.list_indices():
        if list(getattr(index, "columns", [])) == ["vector"]:
            table.drop_index(index.name)


def tune(query, index: AnnIndex | None, *, filtered: bool = False):
    """Probe enough partitions for the recall target, and re-rank the candidates exactly.

    Up to twice the probes when the first ones leave the page short; a filtered query
    (prefiltered rows: a source, a date range, operators) may probe every partition, so a
    narrow filter still fills its page instead of silently returning fewer rows.
    """
    if index is None:
        return query
    ceiling = 0 if filtered else min(index.partitions, 2 * index.probes)
    return query.minimum_nprobes(index.probes).maximum_nprobes(ceiling).refine_factor(REFINE_FACTOR)
