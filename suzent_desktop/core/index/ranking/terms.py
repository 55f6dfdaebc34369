"""Which words of a query matter, and where they stand in a hit's text.

The full-text index lower-cases, folds accents and stems English words (Snowball), so a
hit for "working" may hold "works". Highlights follow the same rules: a word in the text is
marked when its stem is the stem of a query word that matters. Function words ("the",
"where", "does") and "user" (every fact about the person says "User …") never matter.
Chinese, Japanese and Korean are matched by the query's character bigrams
(``core.scripts.content_grams``), as the full-text index matches them: "怎么创建日记" marks
日记 and 创建 wherever they stand.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from suzent_desktop.core.files.language import english
from suzent_desktop.core.files.language.english import STOPWORDS
from suzent_desktop.core.files.language.writing_systems import content_grams

_WORD_RE = re.compile(r"\w+", re.UNICODE)
_SPACELESS_RE = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff]")
# Words that make a question about the past: "where did the user work before".
_PAST_WORDS = frozenset(
    """before previously previous prior formerly former earlier past used history historical ago anymore originally
    until was were did had""".split()
)
_PAST_PHRASES = ("no longer", "used to")
# ... unless it also says "now": "where does my former teacher live now" asks about the present.
_PRESENT_WORDS = frozenset({"now", "currently", "current", "nowadays", "today"})
_PRESENT_PHRASES = ("these days",)



def _fold(word: str) -> str:
    """Lower-case and strip accents, as the index's ascii folding does."""
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@lru_cache(maxsize=8192)
def stem(word: str) -> str:
    return english.stem(_fold(word))  # accents folded first, as the index's tokenizer does


def query_stems(query: str) -> set[str]:
    """Stems of the query words that matter (stopwords dropped; a query of only stopwords keeps them)."""
    words = [w for w in _WORD_RE.findall(query) if len(w) > 1 or _SPACELESS_RE.search(w)]
    kept = [w for w in words if _fold(w) not in STOPWORDS] or words
    return {stem(w) for w in kept}


def match_spans(text: str, query: str) -> list[tuple[int, int]]:
    """(start, end) of every word in ``text`` that matches a query word that matters, in order."""
    stems = {s for s in query_stems(query) if not _SPACELESS_RE.search(s)}
    grams = set(content_grams(query))
    if not stems and not grams:
        return []
    spans = [(m.start(), m.end()) for m in _WORD_RE.finditer(text) if stem(m.group(0)) in stems]
    for gram in grams:
        start = text.find(gram)
        while start >= 0:
            spans.append((start, start + len(gram)))
            start = text.find(gram, start + 1)
    return _merge(sorted(spans))


def content_stems(text: str) -> set[str]:
    """Stems of the words of ``text`` that matter (no stopwords)."""
    return {stem(w) for w in _WORD_RE.findall(text) if _fold(w) not in STOPWORDS}


def coverage(text: str, query: str) -> float:
    """Share of the query's words that matter found in ``text`` (by stem): 0.0 … 1.0."""
    stems = query_stems(query)
    if not stems:
        return 0.0
    found = {stem(w) for w in _WORD_RE.findall(text)} & stems
    return len(found) / len(stems)


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def asks_about_the_past(query: str) -> bool:
    """Whether a query asks what used to be true ("where did the user work before")."""
    lowered = " ".join(_fold(w) for w in _WORD_RE.findall(query))
    words = set(lowered.split())
    if words & _PRESENT_WORDS or any(p in lowered for p in _PRESENT_PHRASES):
        return False
    return bool(words & _PAST_WORDS) or any(p in lowered for p in _PAST_PHRASES)


_RELATIONS = frozenset(r for r in english.PEOPLE if " " not in r)
_KIN_DEGREES = frozenset("second third step half great ex".split())  # "second cousin", "step brother"


@lru_cache(maxsize=256)  # a query's relations are asked again for each of its hits
def _relations_said(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The relations a text names as they are ("brother"), and those it names only as part of another
    ("brother-in-law", "second cousin", "step-sister", "great aunt")."""
    plain: set[str] = set()
    compound: set[str] = set()
    words = [w.lower().removesuffix("'s").removesuffix("’s") for w in english.words(text)]
    for at, word in enumerate(words):
        parts = word.split("-")
        for part in parts:
            if part not in _RELATIONS:
                continue
            degree = len(parts) > 1 or (at > 0 and words[at - 1] in _KIN_DEGREES)
            (compound if degree else plain).add(part)
    return frozenset(plain), frozenset(compound)


def names_another_relation(text: str, query: str) -> bool:
    """The query asks about the user's brother, and the text is about their brother-in-law or step-brother
    only: it shares the word and is about someone else ("Which city does the user's brother live in?" is
    not answered by "User's brother-in-law Ottilie moved to Utrecht")."""
    asked, asked_compound = _relations_said(query)
    if not asked or asked_compound:
        return False
    plain, compound = _relations_said(text)
    return not (plain & asked) and bool(compound & asked)
