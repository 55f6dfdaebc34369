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
    (("says", "said", "told me"), ("my ", "I have ", "I've got ", "I need ")),
)
_FOUND_ENDS = (",", ";", " on a ", " during ", " when ", " while ", " after ", " last ", " so ", " but ")


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
            if lead.lower() == "that" or lead.endswith("ly") or lead.lower() in english.CALENDAR:
                rest = after
            if not rest.startswith(openings):
                return []
            cut = min((i for i in (rest.find(end) for end in _FOUND_ENDS) if i > 0), default=len(rest))
            found = rest[:cut].rstrip(".!?")
            return [found] if len(found.split()) > 2 else []
    return []
