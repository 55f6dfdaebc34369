"""A plan said again with a change ("User still plans to climb Mount Si in August, now with Jonas")
replaces the plan it restates ("User plans to climb Mount Si with Marco in August").

Plans have no one-value subject the way "works at" has, so the older plan stayed current beside the
newer one and a reader saw two climbs. A new plan replaces an old one when it says it changes
something ("still", "now", "instead", "rather", "no longer"), keeps every ordinary word of the old one
(the same activity), and keeps all of its names but one (the same place and time; the one that
changed may be the person, the place or the month), sharing at least two words in all.
"""

from __future__ import annotations

import re

_CHANGE = re.compile(r"\b(?:still|now|instead|rather|no longer|any ?more)\b", re.I)
_FILLER = frozenset(
    "user user's still now instead rather no longer anymore more any with without in on at to the a an and "
    "of for from by is are plans plan planning planned going wants hopes".split()
)


def _words(text: str) -> tuple[set[str], set[str]]:
    """(ordinary words, names): a name is a capitalised word after the first."""
    ordinary, names = set(), set()
    for index, word in enumerate(re.findall(r"[A-Za-z][\w'’-]*", text)):
        if index > 0 and word[0].isupper() and word != "User":
            names.add(word)
        elif word.lower() not in _FILLER:
            ordinary.add(word.lower())
    return ordinary, names


def replans(old: str, new: str) -> bool:
    """Whether the plan ``new`` restates the plan ``old`` with one thing changed."""
    if not _CHANGE.search(new) or _CHANGE.search(old):
        return False
    old_words, old_names = _words(old)
    new_words, new_names = _words(new)
    shared = len(old_words & new_words) + len(old_names & new_names)
    return old_words <= new_words and len(old_names - new_names) <= 1 and shared >= 2
