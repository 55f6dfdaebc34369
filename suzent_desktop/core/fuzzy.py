"""Fuzzy name matching for the quick switcher, the command palette and ``[[`` autocomplete.

One rule everywhere a name is picked by typing a few letters: every word of the query must
match the name, in any order ("anna gift" finds "Gift ideas for Anna"), as a substring, as a
subsequence ("lantidx" finds "Lantern Index") or, for a word of four letters or more, as a near
miss (a typo; rapidfuzz's ``partial_ratio``). Whole words, word starts, a prefix of the name and
the initials of its words ("mlp" for "Machine Learning Projects") score higher; among equal
scores a shorter name wins, because it is closer to what was typed.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar

from rapidfuzz import fuzz

T = TypeVar("T")

TYPO_MIN_LENGTH = 4  # a shorter word that is not in the name is too vague to forgive a typo
TYPO_CUTOFF = 80.0  # rapidfuzz partial_ratio needed for a near miss
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


@lru_cache(maxsize=1 << 16)  # names repeat on every keystroke
def _prepare(name: str) -> _Name:
    folded = fold(name)
    tokens = list(_TOKEN.finditer(folded))
    return _Name(folded.lower(), frozenset(t.start() for t in tokens), "".join(t.group()[0] for t in tokens).lower())


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


def _word_score(word: str, name: _Name) -> float | None:
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
    if name.initials.startswith(word) and len(word) > 1:
        return 55.0 + 3.0 * len(word)
    sub = _subsequence(word, name)
    if sub is not None:
        return 20.0 + sub
    if len(word) >= TYPO_MIN_LENGTH:
        ratio = fuzz.partial_ratio(word, text, score_cutoff=TYPO_CUTOFF)
        if ratio:
            return ratio / 5.0
    return None


def score(query: str, name: str) -> float | None:
    """Score of ``name`` for ``query``; None when some word of the query does not match it.

    An empty query matches everything equally (0.0), so a list keeps its own order.
    """
    words = fold(query).lower().split()
    if not words:
        return 0.0
    prepared = _prepare(name)
    total = 0.0
    for word in words:
        part = _word_score(word, prepared)
        if part is None:
            return None
        total += part
    whole = " ".join(words)
    if prepared.text == whole:
        total += 60.0
    elif prepared.text.startswith(whole):
        total += 40.0
    compact = "".join(words)
    if len(compact) > 1 and prepared.initials.startswith(compact):
        total += 30.0
    return total - 0.3 * len(name)


ALT_PENALTY = 25.0  # a match on the secondary text (a page's folder path) ranks below a match on the name


def rank(query: str, items: Iterable[T], key: Callable[[T], str] = str, limit: int | None = None,
         alt: Callable[[T], str] | None = None) -> list[T]:
    """Items whose ``key`` matches ``query``, best first; ties go to the shorter name, then A-Z.

    ``alt`` gives a second text tried when the name does not match (a page's path, so
    "concepts lantern" finds ``Concepts/Lantern Index``), scored a little lower.
    With an empty query the items keep their given order.
    """
    rows = list(items)
    if not query.split():
        return rows[:limit]
    scored = []
    for position, item in enumerate(rows):
        name = key(item)
        found = score(query, name)
        if found is None and alt is not None and (other := alt(item)):
            found = score(query, other)
            found = None if found is None else found - ALT_PENALTY
        if found is not None:
            scored.append((-found, len(name), name.lower(), position, item))
    scored.sort(key=lambda row: row[:4])
    return [row[4] for row in scored[:limit]]
