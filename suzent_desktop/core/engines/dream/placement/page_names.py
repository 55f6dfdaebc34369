"""Pages the vault keeps outside the personal zone, named like a proper name, for new bullets to link.

A fact "Trail Guide has 40 beta users now" filed on ``3_Personal/Projects`` is about the project page
``1_Projects/Trail Guide``; a reader expects the name to lead there, as a person's name on the Timeline
leads to their page. Only names that cannot be an ordinary phrase are linked: several words each
capitalised ("Trail Guide", "Designing Data-Intensive Applications"), or one word that is a name,
not an English word ("Contoso", but not "Budget"). Matching is case-sensitive and whole-word.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePosixPath

from suzent_desktop.core.files.language.english import looks_like_name

_CAPITALISED = re.compile(r"[A-Z0-9][\w'’-]*")


def proper_name(title: str) -> bool:
    """A page title that reads as a proper name, never as ordinary words."""
    words = title.split()
    if not words or not all(_CAPITALISED.fullmatch(w) for w in words):
        return False
    return len(words) > 1 or (len(title) > 2 and looks_like_name(title))


def names_elsewhere(pages: Iterable[str], zone: str) -> set[str]:
    """The proper-name titles of the vault-relative ``pages`` that are not in the personal ``zone``."""
    return {PurePosixPath(rel).stem for rel in pages
            if not rel.startswith(f"{zone}/") and proper_name(PurePosixPath(rel).stem)}
