"""The LanceDB table behind search: one row per fact line or paragraph chunk.

Everything in it is derived from the files and may be thrown away: when the table cannot
be opened or read it is dropped and rebuilt, never a fatal error. Paths are compared with
exact equality through LanceDB's typed expressions (no SQL string building), so names
with quotes, ``%``, ``_`` or any script match only themselves.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import os
import re
import shutil
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from suzent_desktop.core.files.language.english import STOPWORDS, date_words, stem
from suzent_desktop.core.files.language.writing_systems import gram_text, terms
from suzent_desktop.core.index.ranking import tie_order
from suzent_desktop.core.index.ranking.filters import Filters
from suzent_desktop.core.index.storage import ann
from suzent_desktop.core.vault.forgotten import Forgotten

if TYPE_CHECKING:
    from lancedb import DBConnection
    from lancedb.table import Table

# LanceDB's native logger prints routine notices ("dataset will be created") to stderr,
# which would land in the command line's output; keep errors only unless the user asks.
os.environ.setdefault("LANCEDB_LOG", "error")

log = logging.getLogger(__name__)

TABLE_NAME = "rows"
# Rows another process (the CLI next to the app) added become visible to queries within this.
READ_CONSISTENCY = dt.timedelta(seconds=1)
OPTIMIZE_AFTER_WRITES = 20  # small writes each make a fragment; compact after this many
MIN_VECTOR_SIMILARITY = 0.2  # cosine below which a vector-only hybrid hit is dropped as noise
_QUERY_WORD_RE = re.compile(r"\w+", re.UNICODE)
# The full-text index splits words with ICU's word-break rules: the same words as before for
# English (lower-cased, stemmed), and dictionary-based words for Chinese and Japanese, which
# have no spaces (the "simple" tokenizer made a whole CJK sentence one token: bench/cjk_search.py).
FTS_TOKENIZER = "icu"


def _adjective_of(word: str) -> bool:
    """An adverb whose stem is its adjective ("currently" → "current"): the stem is a word that matters."""
    return word.endswith("ly") and word.startswith(stem(word))


# The words the full-text index leaves out: English function words only. Left to itself, the ICU tokenizer
# drops the stop words of every language it knows, among them "cat", "dog" and "city", so "What is the
# name of the user's cat?" could not find "Pickles (the user's cat)" by its words. "user" stays a word, as it
# was: a question about "the user" weighs the rows that say "User ...".
# The index stems a word before it looks it up in this list, so a function word whose stem differs ("why" →
# "whi", "does" → "doe", "any" → "ani") is listed stemmed too: else "Why does …" matched every row saying
# why or does. An adverb's stem that is its adjective is not listed.
_KEPT = STOPWORDS - {"user", "users"}
FTS_STOP_WORDS = tuple(sorted(_KEPT | {stem(word) for word in _KEPT if not _adjective_of(word)}))
CLUES_PER_PATTERN = 2000  # words of tombstones per regular expression (the matcher's memory stays bounded)
_FTS_OPERATORS = frozenset({"and", "or", "not"})


class IndexStoreError(RuntimeError):
    """The table could not be read or written; the caller rebuilds it from files."""


def _fts_config():
    from lancedb.index import FTS

    return FTS(base_tokenizer=FTS_TOKENIZER, custom_stop_words=list(FTS_STOP_WORDS))


def _grams_config():
    """The bigram column is split by ``core.scripts.terms`` before it is stored: the index only cuts at spaces."""
    from lancedb.index import FTS

    return FTS(base_tokenizer="whitespace", lower_case=False, stem=False, remove_stop_words=False,
               ascii_folding=False)


@lru_cache(maxsize=4096)
def norm_key(normalized: str) -> str:
    """A short fixed-size key for a normalized paragraph, so chunks can list all of theirs cheaply."""
    return hashlib.blake2b(normalized.encode("utf-8"), digest_size=12).hexdigest()


def sanitize_fts_query(query: str) -> str:
    """Plain words only: quotes, colons, parens, ``AND``/``OR``, ``*``, ``~`` and ``-`` are dropped."""
    words = [w for w in _QUERY_WORD_RE.findall(query) if w.lower() not in _FTS_OPERATORS]
    return " ".join(words)


@dataclass
class Row:
    """One row as the indexer builds it; ``vector`` is filled in after embedding."""

    id: str
    text: str
    source_type: str
    path: str
    zone: str | None
    line: int | None
    date: str | None
    heading: str | None
    norm: str
    norm_keys: list[str]
    embed_text: str
    vector: np.ndarray | None = None
    title: str | None = None  # the page's name and its ``aliases``, one a line (``core/index/ranking/title_rows.py``)
    superseded: bool = False  # struck through or under a page's History heading
    until: str | None = None  # when a superseded fact stopped being true, when the page says


def schema(dim: int) -> pa.Schema:
    return pa.schema(
        [
            ("id", pa.string()),
            ("text", pa.string()),
            ("fts", pa.string()),
            ("grams", pa.string()),
            ("title", pa.string()),
            ("vector", pa.list_(pa.float32(), dim)),
            ("source_type", pa.string()),
            ("path", pa.string()),
            ("zone", pa.string()),
            ("line", pa.int32()),
            ("date", pa.string()),
            ("heading", pa.string()),
            ("norm", pa.string()),
            ("norm_keys", pa.list_(pa.string())),
            ("superseded", pa.bool_()),
            ("until", pa.string()),
        ]
    )


def _fts_text(row: Row) -> str:
    """The full-text column adds the page name, aliases and heading path, so a title word finds its page,
    and the month of a dated row (a page bullet, a log fact, a turn) in words, so "what did I do in
    November 2023" finds what was said then. Only page bullets had it at first, and for "what did Nate
    organise in June" they then outranked the turn where Nate said it."""
    title = row.title if row.title is not None else (Path(row.path).stem if row.source_type != "archive" else "")
    when = date_words(row.date) if row.date else ""
    return "\n".join(part for part in (title, row.heading or "", row.text, when) if part)


class IndexStore:
    """A thin, thread-safe wrapper over one LanceDB table of fixed vector dimension."""

    def __init__(self, folder: Path, dim: int) -> None:
        self.folder = folder
        self.dim = dim
        self._db: DBConnection | None = None  # lancedb is imported on first open (startup time)
        self._table: Table | None = None
        self._writes = 0
        self._deleted = 0  # rows deleted since the last compaction (they skew full-text statistics until then)
        self._lock = threading.RLock()
        self._ann: ann.AnnIndex | None = None
        self._ann_checked = 0.0  # monotonic time the cached index description was read
        self._ann_broken: str | None = None  # why the vector index failed a query; repaired by optimize

    # -- lifecycle ---------------------------------------------------------------------------
    @property
    def table_dir(self) -> Path:
        return self.folder / f"{TABLE_NAME}.lance"

    def open(self, *, repair: bool = True) -> bool:
        """Open or create the table. Returns False when it had to be recreated empty (the caller re-indexes).

        ``repair=False`` raises IndexStoreError instead: a reader must never drop a table
        that a writer (perhaps another process) is building.
        """
        with self._lock:
            try:
                self._open_existing()
                if repair and self._fts_outdated():
                    self._create_fts()  # a table from before the tokenizer or stop words changed: re-split its words
                if repair and not self._has_index("grams"):
                    self._create_grams()
                return True
            except Exception as exc:  # corrupt files surface as many exception types
                if not repair:
                    if isinstance(exc, IndexStoreError):
                        raise
                    raise IndexStoreError(f"{self.table_dir}: {exc}") from exc
                if self.table_dir.exists():
                    log.warning("index table at %s unreadable (%s); rebuilding", self.table_dir, exc)
                self.reset()
                return False

    def _open_existing(self) -> None:
        import lancedb

        self.folder.mkdir(parents=True, exist_ok=True)
        self._db = db = lancedb.connect(str(self.folder), read_consistency_interval=READ_CONSISTENCY)
        if not self.table_dir.exists():
            raise IndexStoreError("not built yet")
        table = db.open_table(TABLE_NAME)
        field = table.schema.field("vector")
        if not pa.types.is_fixed_size_list(field.type) or field.type.list_size != self.dim:
            raise IndexStoreError(f"vector dimension {field.type} differs from {self.dim}")
        if not {"norm_keys", "fts", "grams", "title", "superseded", "until"} <= set(table.schema.names):
            raise IndexStoreError("table schema is from an older version")
        table.count_rows()
        table.search().select(["id"]).limit(1).to_arrow()  # touches data files, so corruption shows up here
        self._table = table

    def reset(self) -> None:
        """Drop the table (its folder only: the index folder may hold other files) and create it empty."""
        import lancedb

        with self._lock:
            self._table = None
            if self.table_dir.exists() or self.table_dir.is_symlink():
                if self.table_dir.is_dir() and not self.table_dir.is_symlink():
                    shutil.rmtree(self.table_dir, ignore_errors=True)
                else:
                    self.table_dir.unlink()
            self.folder.mkdir(parents=True, exist_ok=True)
            self._db = db = lancedb.connect(str(self.folder), read_consistency_interval=READ_CONSISTENCY)
            table = db.create_table(TABLE_NAME, schema=schema(self.dim), mode="overwrite")
            table.create_index("fts", config=_fts_config())
            table.create_index("grams", config=_grams_config())
            self._table = table
            self._writes = 0
            self._deleted = 0

    @property
    def table(self):
        if self._table is None:
            self.open()
        return self._table

    # -- reads -------------------------------------------------------------------------------
    def count(self) -> int:
        with self._lock:
            return self._guard(lambda: self.table.count_rows())

    def scan(self, columns: Sequence[str], where=None) -> pa.Table:
        """Columns of all rows (or those matching a typed expression)."""
        with self._lock:

            def run() -> pa.Table:
                query = self.table.search().select(list(columns))
                if where is not None:
                    query = query.where(where)
                return query.limit(None).to_arrow()

            return self._guard(run)

    def count_by_source(self) -> dict[str, int]:
        table = self.scan(["source_type"])
        counts: dict[str, int] = {}
        for value in table.column("source_type").to_pylist():
            counts[value] = counts.get(value, 0) + 1
        return counts

    def ids(self) -> set[str]:
        return set(self.scan(["id"]).column("id").to_pylist())

    def rows_for_path(self, path: str, columns: Sequence[str] = ("id", "vector", "line")) -> pa.Table:
        from lancedb.expr import col, lit

        return self.scan(columns, col("path") == lit(path))

    def fetch(self, ids: Iterable[str], columns: Sequence[str]) -> pa.Table:
        from lancedb.expr import col

        ids = list(ids)
        if not ids:
            return pa.table({c: [] for c in columns})
        return self.scan(columns, col("id").isin(ids))

    def version(self) -> int:
        """The table's version: it changes with every write."""
        with self._lock:
            return self._guard(lambda: self.table.version)

    def stamp(self) -> tuple[str, int, int, int]:
        """What caches of derived data key on: the table's folder as made (inode, change time) and its version.

        A rebuilt table (``reset``, here or in another process) counts its versions from 1 again,
        so a version alone can name a table that is gone; its new folder tells them apart.
        """
        with self._lock:
            version = self.version()
            try:
                made = os.stat(self.table_dir)
            except OSError as exc:
                raise IndexStoreError(f"{self.table_dir}: {exc}") from exc
            return str(self.table_dir), made.st_ino, made.st_ctime_ns, version

    def rows_with_ids(self, ids: Sequence[str], filters: Filters | None = None) -> list[dict]:
        """These rows (those passing ``filters``), with the result columns, in the order of ``ids``."""
        from lancedb.expr import col

        if not ids:
            return []
        where = col("id").isin(list(ids))
        extra = self._where(filters)
        rows = self.scan(self.RESULT_COLUMNS, where if extra is None else where & extra).to_pylist()
        place = {row_id: index for index, row_id in enumerate(ids)}
        return sorted(rows, key=lambda row: place.get(row["id"], len(place)))

    def showing(self, forgotten: Forgotten) -> list[dict]:
        """Rows that show forgotten text (``id``, ``path``, ``line``, ``source_type`` and the ``stone``
        shown), by the one rule (``core/vault/forgotten.py``): a piece the row stands for (its text, a
        paragraph or item as written, a turn's key: ``norm_keys``) is a tombstone, or the rule finds one
        in its text. Read-only; a forget drops these rows, ``doctor`` names them."""
        import pyarrow.compute as pc

        if not forgotten:
            return []
        table = self.scan(["id", "path", "line", "source_type", "text", "norm_keys"])
        if table.num_rows == 0:
            return []
        keyed = forgotten.keyed(norm_key)
        keys = table.column("norm_keys").combine_chunks()
        flat, parents = pc.list_flatten(keys), pc.list_parent_indices(keys)
        named = pc.fill_null(pc.is_in(flat, value_set=pa.array(list(keyed), pa.string())), False)
        shown: dict[int, str] = {}
        for index, key in zip(pc.filter(parents, named).to_pylist(), pc.filter(flat, named).to_pylist(), strict=True):
            shown.setdefault(index, keyed[key])
        texts = table.column("text")
        clues = forgotten.clues()
        maybe = np.zeros(table.num_rows, dtype=bool)
        for start in range(0, len(clues), CLUES_PER_PATTERN):  # only texts where a word of some tombstone
            pattern = "|".join(re.escape(word) for word in clues[start : start + CLUES_PER_PATTERN])  # stands
            found = pc.fill_null(pc.match_substring_regex(texts, pattern, ignore_case=True), False)
            maybe |= np.asarray(found.to_numpy(zero_copy_only=False))
        for index in map(int, np.flatnonzero(maybe)):  # are read by the rule
            if index not in shown and (stone := forgotten.shown_in(texts[index].as_py() or "")):
                shown[index] = stone
        ordered = sorted(shown)
        rows = table.select(["id", "path", "line", "source_type"]).take(pa.array(ordered, pa.int64())).to_pylist()
        return [row | {"stone": shown[index]} for row, index in zip(rows, ordered, strict=True)]

    # -- writes ------------------------------------------------------------------------------
    def add(self, rows: Sequence[Row]) -> None:
        if not rows:
            return
        vectors = np.stack([np.asarray(r.vector) for r in rows]).astype(np.float32, copy=False)
        if vectors.shape[1] != self.dim:
            raise IndexStoreError(f"vector dimension {vectors.shape[1]} differs from the index's {self.dim}")
        fts = [_fts_text(r) for r in rows]
        data = pa.table(
            {
                "id": [r.id for r in rows],
                "text": [r.text for r in rows],
                "fts": fts,
                "grams": [gram_text(text) for text in fts],
                "title": [r.title for r in rows],
                "vector": pa.FixedSizeListArray.from_arrays(
                    pa.array(vectors.ravel(), pa.float32()), self.dim
                ),
                "source_type": [r.source_type for r in rows],
                "path": [r.path for r in rows],
                "zone": [r.zone for r in rows],
                "line": pa.array([r.line for r in rows], pa.int32()),
                "date": [r.date for r in rows],
                "heading": [r.heading for r in rows],
                "norm": [r.norm for r in rows],
                "norm_keys": pa.array([r.norm_keys for r in rows], pa.list_(pa.string())),
                "superseded": pa.array([r.superseded for r in rows], pa.bool_()),
                "until": [r.until for r in rows],
            },
            schema=schema(self.dim),
        )
        with self._lock:
            self._guard(lambda: self.table.add(data))
            self._writes += 1

    def delete_ids(self, ids: Iterable[str]) -> int:
        from lancedb.expr import col

        ids = list(dict.fromkeys(ids))
        if not ids:
            return 0
        deleted = 0
        with self._lock:
            for start in range(0, len(ids), 2000):
                part = ids[start : start + 2000]
                result = self._guard(lambda part=part: self.table.delete(col("id").isin(part)))
                deleted += int(getattr(result, "num_deleted_rows", 0) or 0)
            self._writes += 1
            self._deleted += deleted
        return deleted

    def delete_path(self, path: str) -> int:
        from lancedb.expr import col, lit

        with self._lock:
            result = self._guard(lambda: self.table.delete(col("path") == lit(path)))
            self._writes += 1
            deleted = int(getattr(result, "num_deleted_rows", 0) or 0)
            self._deleted += deleted
        return deleted

    def delete_paths(self, paths: Iterable[str]) -> int:
        """Every row of these files, a few thousand paths per write (one delete per path is slow)."""
        from lancedb.expr import col

        paths = list(dict.fromkeys(paths))
        deleted = 0
        with self._lock:
            for start in range(0, len(paths), 2000):
                part = paths[start : start + 2000]
                result = self._guard(lambda part=part: self.table.delete(col("path").isin(part)))
                deleted += int(getattr(result, "num_deleted_rows", 0) or 0)
            self._writes += 1
            self._deleted += deleted
        return deleted

    def optimize(self, *, force: bool = False) -> None:
        """Compact fragments, fold new rows into the full-text and vector indexes, keep the ANN index fit.

        Also after any deletion: LanceDB's full-text index keeps counting deleted rows in its
        BM25 statistics until the table is optimized, so the same rows would rank differently
        in a table that had deletions than in one built fresh (two devices holding the same
        files disagreed on near ties). Compacting a personal home's table takes a fraction of a
        second (bench/devices.py, bench/scaling.py).

        Runs under the indexer's write lock on a worker thread. Training the vector index
        takes seconds on a big table, so it runs outside this object's lock: searches go on
        against the previous index (or a flat scan) meanwhile.
        """
        with self._lock:
            if force or self._deleted or self._small_fragments() >= OPTIMIZE_AFTER_WRITES:
                self._guard(self._compact)
                self._writes = 0
                self._deleted = 0
            table = self.table
        self._maintain_ann(table)

    def _compact(self) -> None:
        try:
            self.table.optimize(cleanup_older_than=dt.timedelta(minutes=5))
        except Exception as exc:
            if ann.find(self.table) is None:
                raise
            # A damaged vector index fails the fold-in; it is derived data: drop it, compact, retrain.
            log.warning("vector index of %s unusable (%s); dropping it", self.table_dir, exc)
            ann.drop(self.table)
            self.table.optimize(cleanup_older_than=dt.timedelta(minutes=5))

    def _maintain_ann(self, table) -> None:
        """Build the vector index past the row threshold, retrain it on schedule, replace a broken one.

        Failures here are logged and leave the flat scan in charge: a missing index costs
        speed, never results.
        """
        try:
            rows = table.count_rows()
            index = ann.find(table)
            broken = self._ann_broken and f"it failed a query ({self._ann_broken})"
            reason = broken or ann.retrain_reason(index, rows, ann.ANN_MIN_ROWS)
            keep_floor = ann.ANN_MIN_ROWS // 2  # a home hovering at the threshold keeps its index
            if index is not None and (rows < keep_floor or (broken and rows < ann.ANN_MIN_ROWS)):
                ann.drop(table)  # a small home again: the exact scan is fast
            elif reason and rows >= (keep_floor if index is not None else ann.ANN_MIN_ROWS):
                log.info("building the vector index of %s: %s", self.table_dir, reason)
                ann.train(table, rows)
            self._ann_broken = None
        except Exception as exc:
            log.warning("vector index of %s not updated (%s); searches scan every row", self.table_dir, exc)
        self._ann_checked = 0.0

    @property
    def ann_notice(self) -> str | None:
        """A note for the user while searches bypass a damaged vector index (None when all is well)."""
        if self._ann_broken is None:
            return None
        return "the vector index is damaged; searching every row exactly until the next index pass rebuilds it"

    def ann_index(self) -> ann.AnnIndex | None:
        """The table's vector index, re-read at most once per READ_CONSISTENCY (another process may retrain it)."""
        now = time.monotonic()
        if now - self._ann_checked > READ_CONSISTENCY.total_seconds():
            self._ann = ann.find(self.table)
            self._ann_checked = now
        return self._ann

    def drop_ann(self) -> None:
        """Remove the vector index now: searches scan every row (bench/scaling.py compares both)."""
        ann.drop(self.table)
        self._ann_checked = 0.0

    def build_ann(self) -> None:
        """Train the vector index now whatever the table's size (bench/scaling.py compares it with the flat scan)."""
        table = self.table
        ann.train(table, table.count_rows())
        self._ann_checked = 0.0

    def _small_fragments(self) -> int:
        """Small fragments left by earlier writes (also by other processes, such as the CLI)."""
        try:
            stats = self.table.stats()
            fragments = stats["fragment_stats"] if isinstance(stats, dict) else stats.fragment_stats
            small = (
                fragments["num_small_fragments"]
                if isinstance(fragments, dict)
                else fragments.num_small_fragments
            )
            return int(small)
        except Exception:
            return self._writes

    # -- search ------------------------------------------------------------------------------
    def _where(self, filters: Filters | None):
        from lancedb.expr import col, lit

        if filters is None:
            return None
        parts = []
        if filters.source:
            parts.append(col("source_type") == lit(filters.source))
        if filters.zone:
            parts.append(col("zone") == lit(filters.zone))
        if filters.date_from:
            parts.append(col("date") >= lit(filters.date_from))
        if filters.date_to:
            parts.append(col("date") <= lit(filters.date_to))
        if filters.exclude_path:
            parts.append(col("path") != lit(filters.exclude_path))
        if filters.paths is not None:
            parts.append(col("path").isin(sorted(filters.paths)))
        if filters.skip_paths:
            parts.append(~col("path").isin(sorted(filters.skip_paths)))
        for phrase in filters.phrases:
            parts.append(col("text").lower().contains(lit(phrase)))
        for term in filters.without:
            parts.append(~col("text").lower().contains(lit(term)))
        if not parts:
            return None
        expr = parts[0]
        for part in parts[1:]:
            expr = expr & part
        return expr

    def matching(self, filters: Filters, columns: Sequence[str]) -> pa.Table:
        """Every row passing ``filters``, unranked (a query of operators only lists them)."""
        return self.scan(columns, self._where(filters))

    RESULT_COLUMNS = ["id", "text", "source_type", "path", "line", "date", "heading", "superseded", "until"]

    def vector_search(
        self, vector: np.ndarray, limit: int, filters: Filters | None = None, *, exact: bool = False
    ) -> list[dict]:
        """Nearest rows by cosine similarity; ``exact`` scans every row even when the table has an ANN index.

        Equal similarities come in ``core.tie_order``'s order, not the table's.
        """
        where = self._where(filters)
        with self._lock:

            def fetch(count: int) -> list[dict]:
                def run(how) -> list[dict]:
                    query = self.table.search(np.asarray(vector, dtype=np.float32)).distance_type("cosine")
                    if where is not None:
                        query = query.where(where, prefilter=True)
                    rows = how(query).select(self.RESULT_COLUMNS).limit(count).to_list()
                    for row in rows:
                        row["score"] = 1.0 - float(row.pop("_distance", 1.0))
                    return rows

                return self._nearest(run, exact=exact, filtered=where is not None)

            return self._guard(lambda: tie_order.top_rows(fetch, limit))

    def fts_search(self, text: str, limit: int, filters: Filters | None = None) -> list[dict]:
        """Rows ranked by BM25 over the words of the ``fts`` column (ICU word breaks)."""
        return self._text_search(sanitize_fts_query(text), "fts", limit, filters)

    def gram_search(self, text: str, limit: int, filters: Filters | None = None) -> list[dict]:
        """Rows ranked by BM25 over character bigrams (``core.scripts.terms``): the CJK full text."""
        grams = " ".join(dict.fromkeys(terms(sanitize_fts_query(text))))
        return self._text_search(grams, "grams", limit, filters)

    def _text_search(self, words: str, column: str, limit: int, filters: Filters | None) -> list[dict]:
        if not words:
            return []
        where = self._where(filters)
        with self._lock:

            def fetch(count: int) -> list[dict]:
                query = self.table.search(words, query_type="fts", fts_columns=column)
                if where is not None:
                    query = query.where(where)
                rows = query.select(self.RESULT_COLUMNS).limit(count).to_list()
                for row in rows:
                    row["score"] = float(row.pop("_score", 0.0))
                return rows

            def run() -> list[dict]:  # equal BM25 scores in ``core.tie_order``'s order, not the table's
                return tie_order.top_rows(fetch, limit)

            try:
                return self._guard(run)
            except IndexStoreError as exc:
                if "INVERTED index" not in str(exc):
                    raise
                # the index went missing: recreate it and retry once
                self._guard(self._create_fts if column == "fts" else self._create_grams)
                return self._guard(run)

    def _nearest(self, run, *, exact: bool = False, filtered: bool = False) -> list[dict]:
        """Run a vector query through the ANN index; when the index fails, scan exactly and say so.

        ``run`` builds the query and takes a function that sets how its vector side is
        searched (index probes, or a bypass of the index).
        """
        index = None if exact or self._ann_broken else self.ann_index()
        if index is None:
            if exact or self._ann_broken:
                return run(lambda query: query.bypass_vector_index())
            return run(lambda query: query)
        try:
            return run(lambda query: ann.tune(query, index, filtered=filtered))
        except Exception as exc:
            rows = run(lambda query: query.bypass_vector_index())  # raises when the table itself is broken
            self._ann_broken = str(exc).splitlines()[0][:300]
            log.warning("vector index of %s failed a query (%s); scanning exactly until it is rebuilt",
                        self.table_dir, self._ann_broken)
            return rows

    def _create_fts(self) -> None:
        self.table.create_index("fts", config=_fts_config(), replace=True)

    def _create_grams(self) -> None:
        self.table.create_index("grams", config=_grams_config(), replace=True)

    def _has_index(self, column: str) -> bool:
        return any(list(getattr(index, "columns", [])) == [column] for index in self.table.list_indices())

    def _fts_outdated(self) -> bool:
        """The table's full-text index splits words with another tokenizer or leaves out other words
        (False when it has no index, or does not report how it was built)."""
        for index in self.table.list_indices():
            if list(getattr(index, "columns", [])) == ["fts"]:
                details = getattr(index, "index_details", None) or {}
                if not details:
                    return False
                stop = tuple(details.get("custom_stop_words") or ())
                return details.get("base_tokenizer") != FTS_TOKENIZER or stop != FTS_STOP_WORDS
        return False

    def rebuild_fts(self) -> None:
        with self._lock:
            self._guard(self._create_fts)
            self._guard(self._create_grams)

    def _guard(self, action):
        try:
            return action()
        except IndexStoreError:
            raise
        except Exception as exc:
            raise IndexStoreError(f"{self.table_dir}: {exc}") from exc
