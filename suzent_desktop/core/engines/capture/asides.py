"""What a user says beside a statement, and the statement without it: one part of the offline extractor.

Chat wraps a fact in words that are no part of it, and the judge then weighs the wrapping: "I'm leading
the backend team now, which is scary but fun" reads as a feeling, "My partner isn't, but he cooks vegan
with me" is no sentence at all. The line is the statement alone: "I'm leading the backend team now",
"My partner cooks vegan with me".
"""

from __future__ import annotations

from suzent_desktop.core.files.language import english

# "isn't", "doesn't" …: a clause that ends on its negated auxiliary leaves its verb to what was said before
_ELLIPTICAL_ENDS = frozenset(
    "isn't isnt aren't wasn't weren't doesn't don't didn't can't won't hasn't haven't".split())
_SUBJECT_PRONOUNS = frozenset("he she they".split())
# words a comment may hold besides its verdicts: "which is scary but fun", "which was a bit much"
_COMMENT_WORDS = frozenset("but and so really pretty quite very a bit kind of sort little super also too".split())


def without_asides(sentence: str) -> str:
    """The statement of ``sentence``: an elliptical clause before ", but he …" gives the later clause its
    subject ("My partner isn't, but he cooks vegan" → "My partner cooks vegan"), and a comment after it
    (", which is scary but fun") is left out."""
    return _without_comment(_without_ellipsis(sentence))


def _without_ellipsis(sentence: str) -> str:
    head, joined, rest = sentence.partition(", but ")
    words = head.split()
    if not joined or len(words) < 2 or words[-1].lower().replace("’", "'") not in _ELLIPTICAL_ENDS:
        return sentence
    pronoun, _, said = rest.partition(" ")
    if pronoun.lower() not in _SUBJECT_PRONOUNS or not said:
        return sentence
    return f"{' '.join(words[:-1])} {said}"


def _without_comment(sentence: str) -> str:
    head, joined, comment = sentence.partition(", which ")
    words = [w.lower().strip(".!?,") for w in comment.split()]
    if not joined or not words or words[0] not in ("is", "was", "has", "sounds", "feels"):
        return sentence
    rest = [w for w in words[1:] if w not in ("been",)]
    if not rest or not all(w in english.EVALUATIVE or w in _COMMENT_WORDS for w in rest):
        return sentence  # ", which is a startup in Leeds" says more of the thing
    return head + "."
