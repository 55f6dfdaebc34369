"""Employers: organisations people work for, which are neither places nor pages of their own.

"User had the final interview at Fabrikam" says *at*, like "a flat in Lisbon", but Fabrikam is where
the user works (or will), not a place to keep a page about: its facts belong on ``Work``. An
organisation counts as an employer once any fact, in the vault or in the batch being consolidated,
says someone works there ("User works at Fabrikam as a welder", "Lena now works at Northwind").

A job's facts end with the job: when the user's employer changes, the facts on the work page that
name the old employer and not the new one ("User runs Fabrikam's night shift rota") stop being
current at the date of the change; they move to the page's History with the superseded employer
instead of being read (and promoted to MEMORY.md) as today's truth.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from suzent_desktop.core.vault.facts.fact_pages import subject_value

EMPLOYER_RELATION = "employer"
ROLE_RELATION = "works as"  # "works as a nurse at St Mary's": a role, and where
JOB_KEYS = (f"user|{EMPLOYER_RELATION}", f"user|{ROLE_RELATION}")  # the user's job, said either way
# the organisation's name: capitalised words at the start of the value ("Contoso as a data engineer")
_ORGANISATION = re.compile(r"[A-Z][\w&'’.-]*(?: [A-Z][\w&'’.-]*){0,3}")


def employer_of(text: str) -> str | None:
    """The organisation a fact says someone works for, as written ("Fabrikam"), or None."""
    relation = subject_value(text)
    if relation is None or not relation.key.endswith((f"|{EMPLOYER_RELATION}", f"|{ROLE_RELATION}")):
        return None
    start = text.lower().replace("’", "'").rfind(relation.value[:40])
    if start < 0:
        return None
    if relation.key.endswith(f"|{ROLE_RELATION}"):  # "a nurse at St Mary's hospital", "designer for a startup called Kite"
        tail = text[start:]
        cut = min((i for i in (tail.find(" at "), tail.find(" for ")) if i >= 0), default=-1)
        found = _ORGANISATION.search(tail[cut:]) if cut >= 0 else None
    else:
        found = _ORGANISATION.match(text[start:])
    return found.group().rstrip(".'’") if found else None


def employers(texts: Iterable[str]) -> set[str]:
    """Every organisation the ``texts`` say someone works for."""
    return {name for name in map(employer_of, texts) if name}


def names_organisation(text: str, organisation: str) -> bool:
    """Whether ``text`` names ``organisation`` (as a word, its possessive included)."""
    return re.search(rf"\b{re.escape(organisation)}(?:'s|’s)?\b", text) is not None
