"""How one query is ranked: which lists are asked, and how their ranks are fused.

Up to four ranked lists meet here, each a vote by reciprocal rank (``weight / (RRF_K + rank)``):

* **full text** over the words of each row, with the tokenizer for the query's script: ICU
  words (stemmed English) for most scripts, character bigrams for Chinese, Japanese and
  Korean (``core.scripts``);
* **vectors**, only where the embedder knows the query's script: the bundled English model
  puts a Chinese question near unrelated rows, and letting those reorder the word matches
  cost more than it gave (bench/cjk_search.py);
* **page names and aliases** (``core.title_rows``): the page's best rows (by the other lists) get the
  vote, so a page named by the query outranks pages that only use its words in their body, while its
  other rows stay below a row elsewhere that answers;
* **headings**: a row whose own heading says most of what the query asks has its fused score
  raised (``core.title_rows.heading_share``), so it outranks rows holding the same words only in
  their text. A boost rather than a vote of its own: a vote let a short heading sharing one word
  with the question ("Create a new note", "`image()`") into the first hits, which cost English
  questions their answer (bench/cjk_search.py).

A row found only by the vectors must still be near the query (``MIN_VECTOR_SIMILARITY``),
or every query would return the whole index.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from suzent_desktop.core.files.language.writing_systems import CJK, OTHER, script_of
from suzent_desktop.core.index.ranking.filters import Filters
from suzent_desktop.core.index.ranking.page_terms import PageTerms
from suzent_desktop.core.index.ranking.tie_order import rounded
from suzent_desktop.core.index.ranking.title_rows import TitleIndex, heading_share, name_terms, repeats_name
from suzent_desktop.core.index.storage.store import MIN_VECTOR_SIMILARITY, IndexStore
from suzent_desktop.core.vault.facts.fact_pages import dup_norm

RRF_K = 60
TITLE_CANDIDATES = 10  # names considered per query (a vote below rank 10 changes little)
PAGE_CANDIDATES = 10
PAGE_SOURCES = frozenset({"notebook", "core"})  # rows that are paragraphs of one page


@dataclass(frozen=True)
class Weights:
    """The weight of each list's vote, and the discount on a page's further rows."""

    body: float  # full text over rows
    vector: float
    title: float  # page names and aliases
    page: float  # pages as wholes (``core.page_terms``)
    repeat: float  # each further row of a page is scaled by this: the first hits name several pages


# Tuned on the dev questions of bench/cjk_search.py (English with the bundled model; Japanese and
# Korean by words alone); the held-out test questions are reported apart.
# With strong vectors the pages found as wholes only crowded out better rows; a name match helps.
# A milder repeat discount: a consolidated page is a list of independent facts (bench/recall.py
# after a dream lost answers at 0.3 and kept them at 0.6).
HYBRID = Weights(body=1.0, vector=1.0, title=1.0, page=0.0, repeat=0.6)
# Bigrams match many rows by chance (two characters of a longer word): a page matching the
# question as a whole is the best single signal, with or without vectors.
HYBRID_CJK = Weights(body=1.0, vector=1.0, title=1.5, page=2.0, repeat=0.3)
FULLTEXT = Weights(body=1.0, vector=0.0, title=1.5, page=2.0, repeat=0.3)

# What an embedder's vectors are good for, when it does not say (an API model: assume multilingual).
ALL_SCRIPTS = frozenset({OTHER, CJK})


@dataclass(frozen=True)
class Plan:
    """The lists one query asks: its script, the full-text column, and whether vectors vote."""

    script: str
    column: str  # "fts" (ICU words) or "grams" (character bigrams)
    vectors: bool

    @property
    def mode(self) -> str:
        return "hybrid" if self.vectors else "fulltext"

    @property
    def weights(self) -> Weights:
        if not self.vectors:
            return FULLTEXT
        return HYBRID_CJK if self.script == CJK else HYBRID


def embedder_scripts(embedder: object) -> frozenset[str]:
    return frozenset(getattr(embedder, "scripts", ALL_SCRIPTS))


def plan_for(query: str, scripts: frozenset[str]) -> Plan:
    """Bigrams for a CJK query, ICU words otherwise; vectors only in a script the embedder knows."""
    script = script_of(query)
    return Plan(script, "grams" if script == CJK else "fts", script in scripts)


@dataclass(frozen=True)
class Names:
    """What the table's pages are called (``TitleIndex``) and what they hold as wholes (``PageTerms``)."""

    titles: TitleIndex
    pages: PageTerms


class TitleCache:
    """One ``TitleIndex`` per version of the table (rebuilt after a write), and the page term
    counts (updated page by page); shared by queries."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._key: tuple | None = None
        self._index: TitleIndex | None = None
        self._pages = PageTerms()

    def get(self, store: IndexStore) -> Names:
        key = store.stamp()
        with self._lock:
            if self._key != key or self._index is None:
                rows = store.scan(["id", "path", "title", "heading", "line"]).to_pylist()
                self._index = TitleIndex(rows)
                self._key = key
            self._pages.refresh(store)
            return Names(self._index, self._pages)


class Lists:
    """A query's ranked lists, fetched once ``depth`` deep and cut to each round's pool.

    Search ranks in rounds of growing pools (``core.search``); a list's first rows do not depend on how
    deep it is fetched, so one fetch deep enough for the last round serves every round.
    """

    def __init__(self, depth: int = 0) -> None:
        self.depth = depth
        self._fetched: dict[str, tuple[int, list[dict]]] = {}

    def first(self, key: str, count: int, fetch: Callable[[int], list[dict]]) -> list[dict]:
        """The first ``count`` rows of list ``key``; ``fetch(n)`` asks the table for n."""
        depth, rows = self._fetched.get(key, (0, []))
        if count > depth:
            depth = max(count, self.depth)
            rows = fetch(depth)
            self._fetched[key] = (depth, rows)
        return rows[:count]


def _votes(into: dict[str, float], rows: Sequence[dict], weight: float) -> None:
    """Each row's vote by the rank of its text among the list's distinct texts: the copies of one fact
    (a page bullet and its MEMORY.md line, one question asked on five days) share a rank rather than
    taking the ranks below it, which pushed other facts out of the pool after a dream copied every fact
    onto a page and into MEMORY.md (bench/recall.py)."""
    ranks: dict[str, int] = {}
    for row in rows:
        rank = ranks.setdefault(_text_key(row), len(ranks) + 1)
        into[row["id"]] = into.get(row["id"], 0.0) + weight / (RRF_K + rank)


def _text_key(row: dict) -> str:
    return dup_norm(str(row.get("text") or "")) or str(row["id"])


def search(
    store: IndexStore,
    names: Names,
    plan: Plan,
    query: str,
    vector: np.ndarray | None,
    limit: int,
    filters: Filters | None,
    lists: Lists | None = None,
) -> list[dict]:
    """The rows that answer ``query``, best first, each with its fused ``score`` (``lists``: the query's
    lists as an earlier round fetched them)."""
    rows: dict[str, dict] = {}
    scores: dict[str, float] = {}
    titles = names.titles
    weights = plan.weights
    search_words = store.gram_search if plan.column == "grams" else store.fts_search
    lists = lists or Lists()
    text = lists.first(plan.column, limit, lambda n: search_words(query, n, filters))
    near = (lists.first("vectors", limit, lambda n: store.vector_search(vector, n, filters))
            if plan.vectors and vector is not None else [])
    # Vector hits first: equal fused scores keep the vector order, as LanceDB's own hybrid search did. Each
    # list (and the rows of named pages below) comes in a fixed order (``core.tie_order``), never the table's.
    _votes(scores, near, weights.vector)
    _votes(scores, text, weights.body)
    rows.update((r["id"], r) for r in text)
    found_by_words = {r["id"] for r in text}
    for row in near:
        if row["id"] not in found_by_words and row["score"] < MIN_VECTOR_SIMILARITY:
            scores.pop(row["id"], None)  # a far neighbour sharing no word with the query is noise
        else:
            rows.setdefault(row["id"], row)
    pages = titles.pages.ranked(query, TITLE_CANDIDATES)
    by_page = names.pages.ranked(name_terms(query), PAGE_CANDIDATES)
    headings = titles.headings.ranked(query, TITLE_CANDIDATES)
    heading_ids = [key for key, _ in headings]
    held = {rows[i]["path"] for i in scores}
    missing = [
        next((i for i in heading_ids if titles.row_of_heading.get(i) == path), None)
        or titles.first_row.get(path, (0, ""))[1]
        for path, _ in pages + by_page
        if path not in held
    ]  # a page named (or matched as a whole) that no list found: its row under a named heading, else its first
    missing = [i for i in dict.fromkeys(missing + heading_ids) if i and i not in rows]
    for row in store.rows_with_ids(missing, filters):
        rows[row["id"]] = row | {"score": 0.0}
        scores.setdefault(row["id"], 0.0)
    page_vote: dict[str, float] = {}
    for weight, ranked_pages in ((weights.title, pages), (weights.page, by_page)):
        for rank, (path, _) in enumerate(ranked_pages, start=1):
            page_vote[path] = page_vote.get(path, 0.0) + weight / (RRF_K + rank)
    word_rank = {r["id"]: n for n, r in enumerate(text)}
    for row_id in _best_rows(scores, rows, page_vote.keys(), word_rank):
        scores[row_id] += page_vote[rows[row_id]["path"]]
    _raise_sections(scores, rows, query, names.pages)
    return _spread([rows[i] | {"score": scores[i]} for i in scores if i in rows], limit, weights.repeat)


def _best_rows(
    scores: dict[str, float], rows: dict[str, dict], paths: Iterable[str], word_rank: dict[str, int]
) -> list[str]:
    """The rows of each named page that best say the rest of the question (ties all count): its best
    current row, and its best row of history, which ``core.hits`` weighs against the current one by the
    question. Best is first by the words of the question (the full-text rank), then by the other lists:
    the page's name is the part of the question the vote already answers, and by fused score alone a
    row the vectors placed a hair higher ("Bruno's favourite band is Radiohead") took the vote from the
    one holding the question's words ("Bruno plays the sitar" for "What instrument does Bruno play?").

    Only they get the page's vote: given to every row, it lifted a person's whole page (her job,
    her cats) above the row that answers "Where does Anna live now?".
    """
    named = set(paths)

    def group(row_id: str) -> tuple[str, bool]:
        return rows[row_id]["path"], bool(rows[row_id].get("superseded"))

    def merit(row_id: str) -> tuple[int, float]:
        return -word_rank.get(row_id, len(word_rank)), rounded(scores[row_id])

    best: dict[tuple[str, bool], tuple[int, float]] = {}
    for row_id in scores:
        if rows[row_id]["path"] in named:
            best[group(row_id)] = max(best.get(group(row_id), merit(row_id)), merit(row_id))
    return [i for i in scores if rows[i]["path"] in named and merit(i) == best[group(i)]]


def _raise_sections(scores: dict[str, float], rows: dict[str, dict], query: str, pages: PageTerms) -> None:
    """Each row under a heading that says most of the query: score × (1 + the share it says).

    Only the row's own heading (the last of its path) counts: it names the section the row is
    in, while the headings above it are broader ("Encryption" over "Can I verify that my data
    is end-to-end encrypted?"). A heading that only repeats the page's name ("# Work" atop
    Work.md) is the page's title, which has its own vote. Term rarity is taken over the pages
    (``core.page_terms``).
    """
    wanted = name_terms(query)
    idf = pages.idf(wanted)
    for row_id in scores:
        row = rows[row_id]
        own = (row.get("heading") or "").split(" > ")[-1]
        if own and not repeats_name(own, row["path"]):
            scores[row_id] *= 1.0 + heading_share(wanted, own, idf)


def _spread(found: list[dict], limit: int, repeat: float) -> list[dict]:
    """Best first, a page's further rows discounted (by ``repeat`` each): the first hits
    name several pages that may answer rather than five paragraphs of one. ``limit`` counts
    distinct texts: every copy of a kept text stays (``core.hits`` folds them into one hit naming
    each place), so copies never take the room of other answers."""
    seen: dict[str, int] = {}
    out = []
    for row in sorted(found, key=lambda r: -r["score"]):
        if row.get("superseded") or row.get("source_type") not in PAGE_SOURCES or row.get("date"):
            # history is weighed by ``core.hits``; a log's facts, and a page's dated fact bullets, are
            # independent facts, not paragraphs of one text
            out.append(row)
            continue
        count = seen.get(row["path"], 0)
        seen[row["path"]] = count + 1
        out.append(row | {"score": row["score"] * repeat**count})
    kept: set[str] = set()
    pool = []
    for row in sorted(out, key=lambda r: -r["score"]):
        key = _text_key(row)
        if key not in kept and len(kept) >= limit:
            continue
        kept.add(key)
        pool.append(row)
    return pool
