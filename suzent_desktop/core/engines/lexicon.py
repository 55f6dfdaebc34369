"""The English word list the fact rules read (pyspellchecker's, with its word counts).

Read with a pattern, word by word, rather than through ``SpellChecker``: that parses the 2.7 MB
list with one ``json.loads`` call, which holds the interpreter lock for about 0.1 s (more on a
busy machine). The first fact checked in a dream then froze the window for that long
(``bench/ui_stall.py``, dream phase). A loop of small steps lets the window's thread run between
them; the words and counts are the same.
"""

from __future__ import annotations

import gzip
import json
import pkgutil
import re
from functools import lru_cache

_ENTRY = re.compile(r'"((?:[^"\\]|\\.)*)":\s*(\d+)')


class Lexicon:
    """Lower-cased English words with how often each is used."""

    def __init__(self, counts: dict[str, int]) -> None:
        self._counts = counts
        self._total = sum(counts.values()) or 1

    def __contains__(self, word: object) -> bool:
        return word in self._counts

    def word_usage_frequency(self, word: str) -> float:
        """The share of all counted words that are ``word`` (0 for a word not in the list)."""
        return self._counts.get(word, 0) / self._total


def parse(text: str) -> Lexicon:
    """The word list from the text of a ``{"word": count, ...}`` file."""
    counts: dict[str, int] = {}
    for match in _ENTRY.finditer(text):
        word = match.group(1)
        if "\\" in word:
            word = json.loads(f'"{word}"')
        word = word.lower()
        counts[word] = counts.get(word, 0) + int(match.group(2))
    return Lexicon(counts)


@lru_cache(maxsize=1)
def english() -> Lexicon:
    """The English list, read once on first use."""
    import spellchecker  # imported by name, so that a packaged app carries the package with its data

    data = pkgutil.get_data(spellchecker.__name__, "resources/en.json.gz")  # as the package itself reads it
    if data is None:
        raise FileNotFoundError("spellchecker's English word list (resources/en.json.gz) is missing")
    return parse(gzip.decompress(data).decode("utf-8"))
