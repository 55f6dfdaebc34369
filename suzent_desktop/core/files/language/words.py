"""Counted words as people write them: "1 turn", "3 turns", "no facts", never "turn(s)"."""

from __future__ import annotations

_IRREGULAR = {"entry": "entries", "was": "were", "is": "are", "this": "these", "day's": "days'"}


def plural(word: str) -> str:
    """The plural of a regular English noun, or of one of the few irregular words the program counts."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in ("a", "e", "o", "u"):
        return word[:-1] + "ies"
    return word + "s"


def count(number: int, word: str, many: str | None = None) -> str:
    """``1 turn``, ``2 turns``, ``0 turns`` (``many`` for a plural that is not regular)."""
    return f"{number} {word if number == 1 else (many or plural(word))}"


# The dream runner's outcome codes (kept in --json) as words for plain output.
OUTCOME_WORDS = {
    "productive": "pages updated",
    "no_change": "no change",
    "failed": "failed",
    "skipped": "skipped",
    "gated": "waiting",
    "nothing_pending": "nothing to consolidate",
}


def outcome_words(outcome: str) -> str:
    return OUTCOME_WORDS.get(outcome, outcome.replace("_", " "))
