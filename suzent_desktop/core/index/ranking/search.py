"""The read path of search, one part of the indexer: a query's words and operators, the index's hits,
and their order.

:meth:`Searcher.search` is the only ranking path: the window, the command line, the MCP server and
the benches all ask it, with a :class:`SearchRequest`. It reads the table through
``core/index/storage/table.py`` (never creating or resetting it). A query is parsed
(``core/vault/query.py``), narrowed by its operators and the filters (one ``Filters`` object, down to
the store), answered by hybrid search (full-text alone when vectors cannot be had, word matches
read from disk for files whose embedding failed), then folded and ordered to answer
(``core/index/ranking/hits.py``: current facts before history, one answer once). Queries never create or
reset the table.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np

from suzent_desktop.core.files.disk.regular import read_page
from suzent_desktop.core.files.disk.text_hygiene import clean, decode_lenient
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.records.tombstones import Tombstones, normalize
from suzent_desktop.core.index.embedding import EmbeddingError
from suzent_desktop.core.index.ranking import fusion
from suzent_desktop.core.index.ranking.filters import Filters
from suzent_desktop.core.index.ranking.hits import SearchHit, answer_order
from suzent_desktop.core.index.ranking.unindexed import RowCache, text_matches
from suzent_desktop.core.index.rows.chunking import chunk_markdown, embedding_text
from suzent_desktop.core.index.rows.planner import EMBEDDING_FAILED, Planner, vectors_of
from suzent_desktop.core.index.rows.sources import Moment, Sources
from suzent_desktop.core.index.storage.state import digest
from suzent_desktop.core.index.storage.store import IndexStore, IndexStoreError, Row
from suzent_desktop.core.index.storage.table import IndexTable
from suzent_desktop.core.vault.facts.fact_pages import subject_value
from suzent_desktop.core.vault.forgotten import Forgotten
from suzent_desktop.core.vault.model import Kind, Vault
from suzent_desktop.core.vault.query import SearchQuery, file_passes, parse_query, text_passes
from suzent_desktop.core.vault.tags import FileTags

log = logging.getLogger(__name__)


CANDIDATES_PER_HIT = 2  # rows fetched per hit ranked: folding and superseding need room to reorder
# The first round ranks this many hits, whatever the limit: a larger pool reshuffles the fused ranks, and
# 5 hits from 10 rows keep overall recall (bench/recall.py). Each further round ranks GROWTH times more.
FIRST_ROUND = 5
GROWTH = 4


@dataclass(frozen=True)
class SearchRequest:
    """One search: its words and operators, how many hits, and the filters (kinds, dates, paths)."""

    query: str
    limit: int = 10
    filters: Filters | None = None
    operators: bool = True  # False: the query is plain words (``tag:`` is then a word)


@dataclass
class SearchResponse:
    hits: list[SearchHit]
    mode: str  # "hybrid" | "fulltext" | "list" (a query of operators only: matching files, unranked)
    warning: str | None = None
    words: str | None = None  # the query's words hits were ranked by (its operators left out): what to highlight
    failed: bool = False  # the index could not be read: no hits is not "nothing known" (the warning says why)


@dataclass
class IndexStats:
    rows: int
    by_source: dict[str, int]
    stale_files: list[str]
    errors: list[str]


class Searcher:
    """Queries (search, listing, related rows, findable tombstones, stats), each run in a worker thread."""

    def __init__(
        self, table: IndexTable, sources: Sources, planner: Planner, *, layout: Layout, vault: Vault,
        tombstones: Tombstones,
    ) -> None:
        self.table = table
        self.sources = sources
        self.planner = planner
        self.layout = layout
        self.vault = vault
        self.tombstones = tombstones
        self._unindexed = RowCache()
        self._titles = fusion.TitleCache()  # page names, aliases, headings of the table's rows
        self._tags = FileTags()  # for ``tag:``: tags of the memory folder's files, re-read when their hash changes
        self._tag_digests: dict[str, str | None] = {}  # the content hashes the vault model's tags were taken at

    async def search(self, request: SearchRequest) -> SearchResponse:
        """The one ranking path: hybrid search, full-text only (and a warning saying why) when vectors
        cannot be had.

        The query's operators (``tag:``, ``path:``, ``"phrase"``, ``-term``: see ``core.query``)
        filter the rows before the limit; ``operators=False`` reads the query as plain words.
        """
        limit = max(1, int(request.limit))
        filters = (request.filters or Filters()).narrowed()
        parsed = parse_query(request.query) if request.operators else SearchQuery(words=request.query)
        return await asyncio.to_thread(self._search, parsed, limit, filters)

    def _search(self, query: SearchQuery, limit: int, filters: Filters) -> SearchResponse:
        """Candidates from the index (and unindexed files), then ordered to answer: see ``core.hits``."""
        scoped = self.scoped(query, filters)
        words = query.words
        if query.operators_only:
            response = self._listing(query, limit, scoped) if scoped is not None else SearchResponse([], "list")
        elif scoped is None:
            response = SearchResponse([], "hybrid")
        else:
            response = self._ranked(query, limit, scoped)
        response.words = words
        return response

    def _ranked(self, query: SearchQuery, limit: int, filters: Filters) -> SearchResponse:
        """The hits in an order that does not depend on ``limit``: its first k are the same for any limit above k.

        A pool sized by the limit would reorder the first hits (a row fifteenth in both lists outranks one
        first in a single list), so the window, the command line and an agent, asking for different
        limits, would each see a different best answer. Instead rounds of fixed sizes (FIRST_ROUND hits,
        then GROWTH times more each round) are ranked in turn, each adding the hits the earlier ones
        lacked, until the limit is reached or the index has no more rows to give.
        """
        words = query.words
        vectors: dict[str, np.ndarray | None] = {}
        last = FIRST_ROUND
        while last < limit:
            last *= GROWTH
        lists = fusion.Lists(last * CANDIDATES_PER_HIT)  # fetched once, deep enough for the round that fills the limit
        currents: dict[str, SearchHit | None] = {}

        def current(hit: SearchHit) -> SearchHit | None:
            if hit.row_id not in currents:
                currents[hit.row_id] = self._current_for(hit, query)
            return currents[hit.row_id]

        response: SearchResponse | None = None
        held: set[tuple[str, int | None]] = set()
        size = FIRST_ROUND
        while True:
            wanted = size * CANDIDATES_PER_HIT
            found = self._with_unindexed(self._search_index(words, wanted, filters, vectors, lists), words, wanted,
                                         filters)
            ranked = answer_order(found.hits, words, size, current)
            new = [hit for hit in ranked if not {(p.path, p.line) for p in hit.places} & held]
            held.update((p.path, p.line) for hit in new for p in hit.places)
            if response is None:
                response = replace(found, hits=new)
            else:
                response.hits += new
            if len(response.hits) >= limit or len(found.hits) < wanted or found.failed:
                response.hits = response.hits[:limit]
                return response
            size *= GROWTH

    def scoped(self, query: SearchQuery, filters: Filters) -> Filters | None:
        """``filters`` narrowed by the query's operators; None when no file can hold a hit.

        ``tag:`` and ``path:`` are decided per file, over the files the index holds (their tags
        read once per content hash), and become a list of paths the table query keeps or skips,
        whichever is shorter: LanceDB compares each row's path with the list (bench/search_operators.py).
        """
        filters = replace(filters, phrases=query.phrases, without=query.without)
        if not query.has_file_filters:
            return filters
        with self.table.state_lock:
            files: dict[str, str | None] = {key: state.sha256 for key, state in self.table.state.files.items()}
            files.update({key: None for key in self.table.state.errors if key not in files})
        tags: dict[str, tuple[str, ...]] = {}
        if query.tags or query.without_tags:
            # The vault's pages from the vault model (read once per process, shared with backlinks and the
            # tags pane); the memory folder's files (MEMORY.md, daily logs) read here, once per content hash.
            # Files whose indexed content changed since the last ``tag:`` (another process indexed them, or
            # nothing watches this one) are looked at again, so tags follow what search finds.
            # The first tag: takes the model as its walk found it.
            known = self._tag_digests
            changed = [Path(key) for key, digest in files.items() if known and known.get(key, "") != digest]
            self._tag_digests = dict(files)
            self.vault.apply(changed)
            vault = self.vault.snapshot()
            pages = {key for key in files if vault.kind(key) in (Kind.PAGE, Kind.NAV)}
            others = {key: digest for key, digest in files.items() if key not in pages}
            for key, digest in others.items():
                self._tags.update(key, digest)  # no hash (a failed file): its mtime and size
            self._tags.keep_only(others)
            tags = {**self._tags.snapshot(), **{key: vault.tags_of(key) for key in pages}}
        keep = {key for key in files if file_passes(query, self.relative(key), tags.get(key, ()))}
        if not keep:
            return None
        skip = files.keys() - keep
        if len(keep) <= len(skip):
            return replace(filters, paths=frozenset(keep))
        return replace(filters, skip_paths=frozenset(skip))

    def relative(self, key: str) -> str:
        """A file's path as ``path:`` sees it: inside the vault, else inside the memory folder."""
        for root in (self.layout.notebook_dir, self.layout.memory_dir):
            prefix = os.path.join(root, "")
            if key.startswith(prefix):
                return key[len(prefix) :].replace(os.sep, "/")
        return key.replace(os.sep, "/")

    def _listing(self, query: SearchQuery, limit: int, filters: Filters) -> SearchResponse:
        """A query of operators only: the matching files by path, one hit each.

        Each file's hit is its row naming a wanted ``#tag``, else its first row.
        """
        dim = self.table.state.dim
        if not dim:
            return SearchResponse([], "list")
        try:
            store = self.table.open_store(dim, repair=False)
            rows = store.matching(filters, IndexStore.RESULT_COLUMNS).to_pylist()
        except IndexStoreError as exc:
            self.table.drop_failed_store()
            return SearchResponse([], "list", f"search index unavailable ({exc}); unless a reindex is running, "
                                  "run reindex", failed=any(f.rows for f in self.table.state.files.values()))
        marks = tuple(f"#{tag}" for tag in query.tags)

        def rank(row: dict) -> tuple[bool, int]:
            return not any(mark in row["text"].lower() for mark in marks), row.get("line") or 0

        best: dict[str, dict] = {}
        for row in rows:
            known = best.get(row["path"])
            if known is None or rank(row) < rank(known):
                best[row["path"]] = row
        pages = sorted(best.values(), key=lambda row: self.relative(row["path"]).lower())
        return SearchResponse(self._hits([row | {"score": 1.0} for row in pages[:limit]]), "list")

    def _current_for(self, hit: SearchHit, query: SearchQuery | None = None) -> SearchHit | None:
        """The current fact on a superseded hit's page that sets the same subject (``works at X`` → ``works at Y``).

        With a query, the current fact must pass its ``"phrase"`` and ``-term`` filters too.
        """
        subject = subject_value(hit.text)
        store = self.table.store
        if subject is None or store is None:
            return None
        try:
            rows = store.rows_for_path(hit.path, IndexStore.RESULT_COLUMNS).to_pylist()
        except IndexStoreError:
            return None
        for row in sorted(rows, key=lambda r: r.get("line") or 0):
            if row.get("superseded") or row["id"] == hit.row_id:
                continue
            if query is not None and not text_passes(query, row["text"]):
                continue
            other = subject_value(row["text"])
            if other is not None and other.key == subject.key:
                return self._hits([row | {"score": hit.score}])[0]
        return None

    def _with_unindexed(self, response: SearchResponse, query: str, limit: int, filters: Filters) -> SearchResponse:
        """Add word matches from files whose embedding failed: the index holds no row of them."""
        extra = self._unindexed_hits(query, limit, filters)
        if not extra:
            return response
        seen = {h.row_id for h in response.hits}
        hits = response.hits + [h for h in extra if h.row_id not in seen]
        note = "some files are not indexed yet (embedding failed); they were searched by words only"
        warning = f"{response.warning}; {note}" if response.warning else note
        return SearchResponse(hits[:limit], response.mode, warning, failed=response.failed)

    def _unindexed_hits(self, query: str, limit: int, filters: Filters) -> list[SearchHit]:
        with self.table.state_lock:
            keys = [k for k, message in self.table.state.errors.items() if EMBEDDING_FAILED in message]
        self._unindexed.keep_only(keys)
        if not keys:
            return []
        stones = self.tombstones.contents()
        stamp = digest(stones)
        rows: list[Row] = []
        for key in keys:
            source = self.sources.source_for(Path(key))
            if source is None:
                continue
            rows += self._unindexed.rows(source.path, stamp, partial(self.planner.read_rows, source, stones))
        return self._hits(text_matches(rows, query, limit, filters))

    def _search_index(
        self, query: str, limit: int, filters: Filters, vectors: dict[str, np.ndarray | None] | None = None,
        lists: fusion.Lists | None = None,
    ) -> SearchResponse:
        """The index's rows for ``query``, fused; ``vectors`` and ``lists`` keep the query's vector and
        ranked lists for the next round."""
        warning: str | None = None
        vector = None
        vectors = {} if vectors is None else vectors
        try:
            if self.table.state.model and self.table.state.model != self.table.embedder.name:
                raise EmbeddingError(f"the index was built with {self.table.state.model}; run reindex")
            dim = self.table.read_dim()
            plan = fusion.plan_for(query, fusion.embedder_scripts(self.table.embedder))
            if query not in vectors:
                embed = getattr(self.table.embedder, "embed_query", self.table.embedder.embed)  # E5 embeds questions apart
                vectors[query] = embed([query])[0] if query.strip() and plan.vectors else None
            vector = vectors[query]
        except EmbeddingError as exc:
            warning = f"semantic search unavailable ({exc}); showing full-text matches only"
            dim = self.table.state.dim
            if not dim:
                return SearchResponse([], "fulltext", warning)
        failure: IndexStoreError | None = None
        for last in (False, True):  # once more on a fresh handle: another process may have rebuilt it
            try:
                return self._query(dim, vector, query, limit, filters, warning, fall_back=last, lists=lists)
            except IndexStoreError as exc:  # the next sync pass rebuilds an unreadable table
                self.table.drop_failed_store()
                failure = exc
        return SearchResponse(
            [], "fulltext", f"search index unavailable ({failure}); unless a reindex is running, run reindex",
            failed=any(f.rows for f in self.table.state.files.values()),  # rows were written: the memory is not empty
        )

    def _query(
        self,
        dim: int,
        vector: np.ndarray | None,
        query: str,
        limit: int,
        filters: Filters,
        warning: str | None,
        *,
        fall_back: bool,
        lists: fusion.Lists | None = None,
    ) -> SearchResponse:
        store = self.table.open_store(dim, repair=False)
        plan = fusion.plan_for(query, fusion.embedder_scripts(self.table.embedder) if vector is not None else frozenset())
        titles = self._titles.get(store)
        if plan.vectors:
            try:
                hits = self._hits(fusion.search(store, titles, plan, query, vector, limit, filters, lists))
                return SearchResponse(hits, "hybrid", store.ann_notice)  # a damaged ANN index is bypassed
            except IndexStoreError as exc:
                if not fall_back:
                    raise
                warning = f"semantic search failed ({exc}); showing full-text matches only"
                plan = replace(plan, vectors=False)
        return SearchResponse(self._hits(fusion.search(store, titles, plan, query, None, limit, filters, lists)),
                              "fulltext", warning)

    @staticmethod
    def _hits(rows: list[dict]) -> list[SearchHit]:
        return [
            SearchHit(
                text=r["text"],
                source_type=r["source_type"],
                path=r["path"],
                line=r.get("line"),
                date=r.get("date"),
                score=float(r.get("score", 0.0)),
                heading=r.get("heading"),
                row_id=r["id"],
                superseded=bool(r.get("superseded")),
                until=r.get("until"),
            )
            for r in rows
        ]

    async def hit_by_id(self, row_id: str) -> SearchHit | None:
        """The row ``row_id`` as a hit; ids derive from source and content, so they outlive a restart."""

        def find() -> SearchHit | None:
            try:
                store = self.table.reader()
                rows = store.fetch([row_id], IndexStore.RESULT_COLUMNS).to_pylist()
            except (IndexStoreError, EmbeddingError):
                return None
            return self._hits([rows[0] | {"score": 0.0}])[0] if rows else None

        return await asyncio.to_thread(find)

    async def related(self, path: Path, limit: int = 8) -> list[SearchHit]:
        """Rows nearest to a page's own chunks, from other files only (a backlinks-style 'see also')."""
        return await asyncio.to_thread(self._related, Path(path), limit)

    def _related(self, path: Path, limit: int) -> list[SearchHit]:
        try:
            if self.table.state.model and self.table.state.model != self.table.embedder.name:
                return []  # vectors of two models are not comparable; wait for the rebuild
            store = self.table.reader()
            vectors = list(vectors_of(store.rows_for_path(str(path), ["id", "vector"]), store.dim))
            if not vectors and path.is_file():
                chunks = chunk_markdown(clean(decode_lenient(read_page(path))[0]))[:8]
                if chunks:
                    vectors = list(self.table.embedder.embed([embedding_text(c, path.stem) for c in chunks]))
            best: dict[str, SearchHit] = {}
            for vector in vectors[:8]:
                rows = store.vector_search(np.asarray(vector), limit, Filters(exclude_path=str(path)))
                for hit in self._hits(rows):
                    if hit.score <= 0:
                        continue
                    if hit.row_id not in best or best[hit.row_id].score < hit.score:
                        best[hit.row_id] = hit
        except IndexStoreError as exc:
            self.table.drop_failed_store()
            log.warning("related pages for %s unavailable: %s", path, exc)
            return []
        except (EmbeddingError, OSError) as exc:
            log.warning("related pages for %s unavailable: %s", path, exc)
            return []
        return sorted(best.values(), key=lambda h: h.score, reverse=True)[:limit]

    async def findable(self, stones: Iterable[str]) -> list[tuple[str, int | None, str, str]]:
        """Rows search still shows that hold forgotten text: (path, line, source type, tombstone); read-only.

        By the one rule (``core/vault/forgotten.py``, :meth:`IndexStore.showing`): the rows a pass
        with these tombstones leaves out, so ``doctor`` names what search shows, and only that.
        """
        return await asyncio.to_thread(self._findable, Forgotten.of(stones))

    def _findable(self, forgotten: Forgotten) -> list[tuple[str, int | None, str, str]]:
        if not forgotten or not self.table.exists:
            return []
        try:
            rows = self.table.reader().showing(forgotten)
        except (IndexStoreError, EmbeddingError):
            return []
        return [(row["path"], row["line"], row["source_type"], row["stone"]) for row in rows]

    async def stats(self, at: Moment | None = None) -> IndexStats:
        """Rows by source, recorded errors and the files the index is behind on (``at``: against the
        vault and days a caller already read, so the vault is not looked at again)."""
        return await asyncio.to_thread(self._stats, at)

    def _stats(self, at: Moment | None) -> IndexStats:
        errors = list(self.table.state.errors.values())
        rows, by_source = 0, {}
        store = None
        try:
            dim = self.table.read_dim()
            if self.table.exists:  # else: nothing indexed yet
                store = self.table.open_store(dim, repair=False)
                rows, by_source = store.count(), store.count_by_source()
        except EmbeddingError as exc:
            errors.append(f"index unreadable: {exc}")
        except IndexStoreError as exc:
            self.table.drop_failed_store(store)
            errors.append(f"index unreadable: {exc}")
        return IndexStats(rows, by_source, [str(p) for p in self.sources.stale_paths(at=at)], errors)

    async def row_with_text(self, text: str) -> tuple[str, str, str] | None:
        """(source type, path, text) of an indexed row whose whole text is ``text`` (as search showed it).

        Text cut short with "…" (the one-line form of ``search``) names the one row it begins.
        """
        normalized = normalize(text)
        cut = normalized.endswith("…")
        normalized = normalized.rstrip("…").strip()
        if not normalized:
            return None

        def find() -> tuple[str, str, str] | None:
            import pyarrow.compute as pc

            try:
                store = self.table.reader()
                rows = store.scan(["source_type", "path", "text", "norm"])
            except (IndexStoreError, EmbeddingError):
                return None
            norms = rows.column("norm")
            mask = pc.starts_with(norms, normalized) if cut else pc.equal(norms, normalized)
            rows = rows.filter(pc.fill_null(mask, False))
            if rows.num_rows == 0 or (cut and rows.num_rows > 1):
                return None
            first = rows.slice(0, 1).to_pylist()[0]
            return first["source_type"], first["path"], first["text"]

        return await asyncio.to_thread(find)
