"""Pages found by what they are called: names, ``aliases`` and headings matched against a query.

A person asking "怎么给笔记起别名" or "how do I tag a note" names the page that answers
(别名, Tags) more often than its body does. In the body's BM25 those words weigh no more
than anywhere else, and a long page mentioning them in passing can win. Here a page's name
and aliases, and each row's heading, are scored on their own: a name scores by how much of
it the query holds, weighted by how rare its terms are among names, so a query naming a
page outranks one that merely shares a common word with many names.

Terms come from ``core.scripts.terms`` (character bigrams for CJK) with English stems and
function words dropped, so "tag" finds "Tags" and "a" finds nothing.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from suzent_desktop.core.files.language.english import STOPWORDS
from suzent_desktop.core.files.language.markdown import frontmatter, meta_list
from suzent_desktop.core.files.language.writing_systems import HIRAGANA, has_cjk, terms
from suzent_desktop.core.index.ranking import tie_order
from suzent_desktop.core.index.ranking.terms import stem

# Share of a name (by term rarity) the query must hold for the name to count as named. A CJK
# name's bigrams include pairs across its word boundaries (の ノ in ノートの作成) that no question
# repeats, so a question naming it holds a smaller share of them (tuned on the Japanese dev questions).
MIN_NAME_SHARE = 0.5
MIN_CJK_NAME_SHARE = 0.34
# A heading counts for its section when it holds more than this share of the query's terms,
# by number and by rarity alike (see ``heading_share``): most of what the query asks.
MIN_HEADING_SHARE = 0.5


def page_title(path: str | Path, text: str) -> str:
    """A page's name and its frontmatter ``aliases``, one a line (the row's ``title``)."""
    try:
        aliases = meta_list(frontmatter(text), "aliases")
    except Exception:  # a malformed frontmatter has no aliases; the page is still indexed
        aliases = []
    return "\n".join(dict.fromkeys([Path(path).stem, *[a for a in aliases if a.strip()]]))


def _matching_terms(text: str, *, numbers: bool = False) -> list[str]:
    out = []
    for term in terms(text):
        if has_cjk(term):
            if not set(term) <= HIRAGANA:  # particles and endings
                out.append(term)
        elif term not in STOPWORDS and (numbers or not term.isdigit()):
            out.append(stem(term))
    return out


@lru_cache(maxsize=16384)
def name_terms(text: str) -> frozenset[str]:
    """The terms of a name or query that can match: stems of words that matter, CJK bigrams.

    All-hiragana bigrams (の, を, には, ます: grammar) never count, nor do English function words.
    Numbers count: in a name they tell pages apart ("Kite 7" from "Kite 0", "Sprint 12").
    """
    return frozenset(_matching_terms(text, numbers=True))


def term_counts(text: str) -> Counter[str]:
    """``name_terms`` with their counts, for a whole page (``core.page_terms``)."""
    return Counter(_matching_terms(text))


def heading_share(wanted: frozenset[str], heading: str, idf: dict[str, float]) -> float:
    """How much of a query (its ``name_terms``) a heading says, from 0 to 1.

    The share of the query's weight (``idf``: term rarity, 0 for a term no page holds) that the
    heading's terms hold, when they are more than half of the query's terms both by number and
    by weight; else 0. Both, because each alone let a heading that repeats one word of a longer
    question count as its answer: by weight, a rare word ("read" of "which notes link to the
    note I am reading" in the heading "daily:read"); by number, common ones ("link" and "note"
    in "Create a link to a non-existing note").
    """
    known = [t for t in wanted if idf.get(t, 0.0) > 0]
    shared = [t for t in known if t in name_terms(heading)]
    if not shared or len(shared) <= MIN_HEADING_SHARE * len(known):
        return 0.0
    share = sum(idf[t] for t in shared) / sum(idf[t] for t in known)
    return share if share > MIN_HEADING_SHARE else 0.0


def repeats_name(heading: str, path: str) -> bool:
    """A heading that only repeats its page's name ("# Work" atop Work.md): it is the page's title, which
    has its own vote, not a section of the page. As a heading of its own it named every bullet of a page
    the dream writes, and a question with the word "work" pulled ten of Work.md's bullets into the results."""
    return name_terms(heading) <= name_terms(Path(path).stem)


@dataclass(frozen=True)
class _Name:
    key: str  # a path (page names) or a row id (headings)
    terms: frozenset[str]
    share: float  # of the name's weight the query must hold


class NameScorer:
    """Names (of pages, or headings of rows) scored against a query: coverage of the name × rarity."""

    def __init__(self, names: Iterable[tuple[str, str]], tie: Callable[[str], object] = str) -> None:
        self._tie = tie  # how keys of equal score are ordered (a row id says nothing: order its place)
        self._names = [
            _Name(key, name_terms(name), MIN_CJK_NAME_SHARE if has_cjk(name) else MIN_NAME_SHARE)
            for key, name in names
            if name
        ]
        df = Counter(t for name in self._names for t in name.terms)
        total = max(1, len(self._names))
        self._idf = {t: math.log(1 + total / f) for t, f in df.items()}

    def ranked(self, query: str, limit: int) -> list[tuple[str, float]]:
        """(key, score) of the best names that share a term with ``query``, best first; a key once."""
        wanted = name_terms(query)
        if not wanted:
            return []
        best: dict[str, float] = {}
        for name in self._names:
            shared = name.terms & wanted
            if not shared:
                continue
            held = math.fsum(self._idf[t] for t in shared)  # fsum: the same sum in any order of the set
            whole = math.fsum(self._idf[t] for t in name.terms)
            if held < name.share * whole:
                continue  # a common word shared with a longer name ("note" in "Create your first note")
            score = held * held / whole  # rarity of what matched × share of the name the query holds
            if score > best.get(name.key, 0.0):
                best[name.key] = score
        return tie_order.ranked(best.items(), limit, self._tie)


class TitleIndex:
    """The page names, aliases and headings of the table's rows, for one version of the table."""

    def __init__(self, rows: list[dict]) -> None:
        titles: dict[str, str] = {}
        headings: list[tuple[str, str]] = []
        places: dict[str, tuple[str, int, str]] = {}  # row id → (path, line, heading): equal scores in that order
        self.first_row: dict[str, tuple[int, str]] = {}  # path → (line, id) of its first row
        self.row_of_heading: dict[str, str] = {}
        for row in rows:
            path, title = row["path"], row.get("title")
            if title is None:
                continue  # log facts and transcript turns have no title
            titles.setdefault(path, title)
            line = row.get("line") or 0
            if path not in self.first_row or line < self.first_row[path][0]:
                self.first_row[path] = (line, row["id"])
            own = (row.get("heading") or "").split(" > ")[-1]
            if own and not repeats_name(own, path):
                headings.append((row["id"], own))
                places[row["id"]] = (path, line, row["heading"])
                self.row_of_heading[row["id"]] = path
        self.pages = NameScorer(
            (path, name) for path, title in titles.items() for name in title.split("\n")
        )
        self.headings = NameScorer(headings, tie=lambda row_id: places[row_id])
