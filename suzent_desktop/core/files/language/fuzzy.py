"""Fuzzy name matching for the quick switcher, the command palette and ``[[`` autocomplete.

One rule everywhere a name is picked by typing a few letters: every word of the query must
match the name, in any order ("anna gift" finds "Gift ideas for Anna"), as a substring, as a
subsequence ("lantidx" finds "Lantern Index") or, for a word of four letters or more, as a near
miss (a typo; rapidfuzz's ``partial_ratio``). Whole words, word starts, a prefix of the name and
the initials of its words ("mlp" for "Machine Learning Projects") score higher; among equal
scores a shorter name wins, because it is closer to what was typed.
"""

from __future__ import annotations

import heapq
import re
import unicodedata
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from typing import TypeVar

from rapidfuzz import fuzz, process

T = TypeVar("T")

TYPO_MIN_LENGTH = 4  # a shorter word that is not in the name is too vague to forgive a typo
TYPO_CUTOFF = 80.0  # rapidfuzz partial_ratio needed for a near miss
_CACHE_SIZE = 1 << 16  # prepared names kept: the names and folder paths of a 30,000-file vault
_TOKEN = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+|[^\W\d_A-Za-z]+")  # words, camelCase parts, numbers


@dataclass(frozen=True)
class _Name:
    """A candidate prepared once per query run: lower-cased text, word starts and initials."""

    text: str
    starts: frozenset[int]
    initials: str


def fold(text: str) -> str:
    """Without accents, so "cafe" finds "Café" (as Obsidian's switcher does)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@lru_cache(maxsize=_CACHE_SIZE)  # names repeat on every keystroke
def _prepare(name: str) -> _Name:
    folded = fold(name)
    tokens = list(_TOKEN.finditer(folded))
    return _Name(folded.lower(), frozenset(t.start() for t in tokens), "".join(t.group()[0] for t in tokens).lower())


def warm(texts: Iterable[str]) -> None:
    """Prepare names ahead of the first query (on a worker thread): cold, the first keystroke in a
    5,000-page switcher prepared 10,000 names and paths on the GUI thread, about 155 ms of CPU.

    Texts beyond the cache's size would only push out the first ones, so they are left out.
    """
    for count, text in enumerate(texts):
        if count >= _CACHE_SIZE:
            return
        _prepare(text)


def _subsequence(word: str, name: _Name) -> float | None:
    """Letters of ``word`` in order in the name: points for runs and for letters at word starts."""
    score, pos, previous = 0.0, 0, -2
    for char in word:
        found = name.text.find(char, pos)
        if found < 0:
            return None
        score += 1.0
        if found == previous + 1:
            score += 1.5
        if found in name.starts:
            score += 4.0
        previous, pos = found, found + 1
    return score


class _Query:
    """A query prepared once per keystroke: folded words, and a compiled subsequence test per word."""

    def __init__(self, query: str) -> None:
        self.words = fold(query).lower().split()
        self.whole = " ".join(self.words)
        self.compact = "".join(self.words)
        # a word's letters in order within one line, for one C-speed regex pass over all names at
        # once: a literal first letter (the engine's fast prefix search), then "[^a\n]*a" per letter
        # (one way to match, so no backtracking)
        self.in_order = [
            re.compile(re.escape(word[0]) + "".join(f"[^{re.escape(c)}\n]*{re.escape(c)}" for c in word[1:]))
            for word in self.words
        ]

    def score(self, name: _Name, length: int, typos: list[float | None]) -> float | None:
        """``typos[i]``: the near-miss ratio of word i for this name (None: not computed, or a short word)."""
        total = 0.0
        for word, in_order, typo in zip(self.words, self.in_order, typos, strict=True):
            part = self._word(word, in_order, name, typo)
            if part is None:
                return None
            total += part
        if name.text == self.whole:
            total += 60.0
        elif name.text.startswith(self.whole):
            total += 40.0
        if len(self.compact) > 1 and name.initials.startswith(self.compact):
            total += 30.0
        return total - 0.3 * length

    @staticmethod
    def _word(word: str, in_order: re.Pattern[str], name: _Name, typo: float | None) -> float | None:
        """How well one query word matches the name (None: it does not)."""
        text = name.text
        at = text.find(word)
        if at >= 0:
            score = 60.0 + 2.0 * len(word)
            if at in name.starts:
                score += 25.0
                end = at + len(word)
                if end == len(text) or not text[end].isalnum():
                    score += 10.0  # a whole word
            return score
        if len(word) > 1 and name.initials.startswith(word):
            return 55.0 + 3.0 * len(word)
        if in_order.search(text):
            return 20.0 + (_subsequence(word, name) or 0.0)
        if len(word) >= TYPO_MIN_LENGTH:
            if typo is None:
                typo = fuzz.partial_ratio(word, text, score_cutoff=TYPO_CUTOFF)
            if typo:
                return typo / 5.0
        return None


def score(query: str, name: str) -> float | None:
    """Score of ``name`` for ``query``; None when some word of the query does not match it.

    An empty query matches everything equally (0.0), so a list keeps its own order.
    """
    prepared = _Query(query)
    if not prepared.words:
        return 0.0
    return prepared.score(_prepare(name), len(name), [None] * len(prepared.words))


def matches(query: str, names: list[str]) -> dict[int, float]:
    """Position → score of each name that matches ``query`` (all of them, 0.0, for an empty query)."""
    prepared = _Query(query)
    if not prepared.words:
        return dict.fromkeys(range(len(names)), 0.0)
    return _scores(prepared, names)


ALT_PENALTY = 25.0  # a match on the secondary text (a page's folder path) ranks below a match on the name


def _scores(query: _Query, texts: list[str]) -> dict[int, float]:
    """Scores of the texts that match, by position; the others are ruled out in bulk first.

    Every kind of match (substring, initials, subsequence) has the word's letters in order, so a
    regex over all names joined line by line, plus rapidfuzz's ``cdist`` for near misses, leaves
    only the candidates for the per-name scoring in Python: typing stays quick in a large vault.
    """
    prepared = [_prepare(text) for text in texts]
    lowered = [name.text.replace("\n", " ") for name in prepared]
    joined = "\n".join(lowered)
    starts = list(accumulate((len(text) + 1 for text in lowered), initial=0))
    candidates: set[int] | None = None
    ratios: list[Sequence[float] | None] = []
    for word, in_order in zip(query.words, query.in_order, strict=True):
        hits = {bisect_right(starts, match.start()) - 1 for match in in_order.finditer(joined)}
        ratio = None
        if len(word) >= TYPO_MIN_LENGTH and lowered:
            ratio = process.cdist([word], lowered, scorer=fuzz.partial_ratio, score_cutoff=TYPO_CUTOFF, workers=1)[0]
            hits.update(int(i) for i in ratio.nonzero()[0])
        ratios.append(ratio)
        candidates = hits if candidates is None else candidates & hits
    short_words_only = all(r is None for r in ratios)
    no_ratios: list[float | None] = [None] * len(ratios)
    found = {}
    for i in sorted(candidates or ()):
        typos = no_ratios if short_words_only else [None if r is None else float(r[i]) for r in ratios]
        value = query.score(prepared[i], len(texts[i]), typos)
        if value is not None:
            found[i] = value
    return found


def rank(query: str, items: Iterable[T], key: Callable[[T], str] = str, limit: int | None = None,
         alt: Callable[[T], str] | None = None) -> list[T]:
    """Items whose ``key`` matches ``query``, best first; ties go to the shorter name, then A-Z.

    ``alt`` gives a second text tried when the name does not match (a page's path, so
    "concepts lantern" finds ``Concepts/Lantern Index``), scored a little lower.
    With an empty query the items keep their given order.
    """
    rows = list(items)
    prepared = _Query(query)
    if not prepared.words:
        return rows[:limit]
    names = [key(item) for item in rows]
    found = _scores(prepared, names)
    if alt is not None:
        missing = [i for i in range(len(rows)) if i not in found and alt(rows[i])]
        for j, value in _scores(prepared, [alt(rows[i]) for i in missing]).items():
            found[missing[j]] = value - ALT_PENALTY
    keys = [(-value, len(names[i]), names[i].lower(), i) for i, value in found.items()]
    best = sorted(keys) if limit is None else heapq.nsmallest(limit, keys)
    return [rows[row[3]] for row in best]
