"""Plans that change or come true.

A plan said again with a change ("User still plans to climb Mount Si in August, now with Jonas")
replaces the plan it restates ("User plans to climb Mount Si with Marco in August").

Plans have no one-value subject the way "works at" has, so the older plan stayed current beside the
newer one and a reader saw two climbs. A new plan replaces an old one when it says it changes
something ("still", "now", "instead", "rather", "no longer"), keeps every ordinary word of the old one
(the same activity), and keeps all of its names but one (the same place and time; the one that
changed may be the person, the place or the month), sharing at least two words in all.

A plan that came true ("User moves from Leeds to Hull …", then "User moved to Hull"; "User plans to
visit Kyoto", then "User visited Kyoto") is no longer ahead: the later fact, told in the past with the
plan's verb and naming one of the plan's names, ends it. So does finding what one looked for: "User
is looking for a flat in Porto" ends with "User signed a lease for a flat in Porto" (a verb of getting:
found, signed, bought, rented …, and the same thing), but not with "User viewed a flat".
"""

from __future__ import annotations

import re

from suzent_desktop.core.files.language import english

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


def _bases(verb: str) -> set[str]:
    """The plain form of a past verb ("moved" → move, "flew" → fly), from the one English layer."""
    return {english.verb_lemma(verb)} if english.is_past(verb) else set()


def _names(text: str) -> set[str]:
    """The names a fact and a plan may share to be the same event: a month or a day is no such name
    ("(15 July 2026)" on a flight to Oslo and on a flight to Rome makes them no one trip)."""
    return {name for name in _words(text)[1] if name.lower() not in english.CALENDAR}


def fulfils(fact: str, plan: str) -> bool:
    """Whether ``fact``, told in the past, says the ``plan`` happened."""
    verb = _told_verb(fact)
    if verb is None or _CHANGE.search(fact) and "now" not in fact.split()[:3]:
        return False
    bases = _bases(verb)
    plan_verbs = set(re.findall(r"[a-z]+", plan.lower()))
    if not any(base in plan_verbs or f"{base}s" in plan_verbs or f"{base}es" in plan_verbs for base in bases):
        return False
    return bool(_names(fact) & _names(plan))


_SEARCH = re.compile(r"^User (?:is|has been) (?:still )?(?:looking|searching|hunting) for (?:a|an|some|the|new) "
                     r"(?:new )?(?P<thing>[a-z][\w-]*)")
_GOT = re.compile(r"^User (?:(?:just|finally|also|actually) )?(?:found|signed|bought|rented|got|chose|picked|"
                  r"landed|accepted|adopted|hired|booked|leased)\b")


def _told_verb(fact: str) -> str | None:
    """The past verb of a fact told in the past about the user ("User finally moved to Hull"), or None."""
    match = re.match(r"^(?:[^,]{0,60}?(?:\)|,) )?User (?:(?:just|finally|also|actually) )?(?P<verb>[a-z]+)\b", fact)
    return match.group("verb") if match and english.is_past(match.group("verb")) else None


def may_end_something(fact: str) -> bool:
    """Whether ``fact`` is told in the past about the user (the only facts that end a plan or a search)."""
    return _told_verb(fact) is not None


def ends_search(fact: str, search: str) -> bool:
    """Whether ``fact`` says the user got what the ``search`` bullet was looking for."""
    match = _SEARCH.match(search)
    if match is None or not _GOT.match(fact):
        return False
    return re.search(rf"\b{re.escape(match.group('thing'))}s?\b", fact) is not None
