"""What the user found out about themselves, or was told of their own: a fact of its own.

"I found out I'm allergic to shellfish on a trip to Porto" is an event (the finding, on Timeline) holding a
lasting fact ("User is allergic to shellfish", for Health and MEMORY.md); so does "My physio told me I need
surgery on my left knee". The offline extractor keeps the whole statement and adds the part found.
"""

from __future__ import annotations

from suzent_desktop.core.files.language import english

_FOUND_OPENINGS = ("I'm ", "I am ", "I have ", "I've ", "I was ", "my ", "My ")
_FINDINGS = (
    (("found out", "learned", "learnt", "discovered", "realized", "realised"), _FOUND_OPENINGS),
    (("says", "said", "say", "told me", "told us", "tells me"),
     ("my ", "My ", "our ", "Our ", "I have ", "I've got ", "I need ", "we have ", "we need ")),
)
_FOUND_ENDS = (";", " on a ", " during ", " when ", " while ", " after ", " last ", " so ", " but ")
MAX_LISTED_WORDS = 3  # "shellfish, peanuts and kiwi": an item of a list is a few words


def _clause_comma(rest: str) -> int:
    """Where a comma in ``rest`` starts another clause, not the next item of a list ("cooking, knitting, and
    listening to country music"), or -1."""
    at = rest.find(",")
    while at > 0:
        item = rest[at + 1 :].split(",")[0].split()
        if item and item[0].lower() not in ("and", "or") and len(item) > MAX_LISTED_WORDS:
            return at
        at = rest.find(",", at + 1)
    return -1


def found_out(clause: str) -> list[str]:
    """The statement the clause says the user found out or was told about themselves (none, or one)."""
    lowered = clause.lower()
    for verbs, openings in _FINDINGS:
        for finding in verbs:
            at = lowered.find(f" {finding} ")
            if at < 0:
                continue
            rest = clause[at + len(finding) + 2 :]
            lead, _, after = rest.partition(" ")
            if finding == "say" and clause[:at].split()[-1:] in (["I"], ["I'd"], ["would"], ["to"]):
                return []  # "I'd say my favourite is …": the user's own words, read as said
            if lead.lower() == "that" or lead.endswith("ly") or lead.lower() in english.CALENDAR:
                rest = after
            if not rest.startswith(openings):
                return []
            ends = [rest.find(end) for end in _FOUND_ENDS] + [_clause_comma(rest)]
            cut = min((i for i in ends if i > 0), default=len(rest))
            found = rest[:cut].rstrip(".!?")
            return [found] if len(found.split()) > 1 else []  # "I'm coeliac"
    return []
