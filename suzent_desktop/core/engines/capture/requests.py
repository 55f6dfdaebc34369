"""What a request to the assistant says the user is planning: one part of the offline extractor.

People tell an assistant their plans by asking for help with them: "Help me plan a 4-day trip to Oaxaca for my
wife and me, from the 10th to the 13th of November" says the user is planning that trip, as plainly as "I'm
planning a trip to Oaxaca" does. Only the verbs of planning count: "help me write an email to my landlord" is a
task of the moment, not something a memory should keep.
"""

from __future__ import annotations

from suzent_desktop.core.files.language import english

# How a request opens before "help me": "Please help me …", "Can you help me …?", "Could you please help me …"
_ASKING = ("please ", "pls ", "can you ", "could you ", "would you ", "will you ", "can u ", "could u ")
_HELP = ("help me ", "help us ")
# What a person plans in their life: the plan is a fact about it
_PLANNING = frozenset("plan organise organize prepare arrange".split())


def as_planning(sentence: str) -> str:
    """"Can you help me plan my daughter's party on Saturday?" as "I am planning my daughter's party on Saturday.";
    any other sentence as said."""
    text = sentence.strip()
    lowered = text.lower()
    start = 0
    while asking := next((a for a in _ASKING if lowered.startswith(a, start)), None):
        start += len(asking)
    helped = next((h for h in _HELP if lowered.startswith(h, start)), None)
    if helped is None:
        return sentence
    verb, _, rest = text[start + len(helped):].partition(" ")
    if verb.lower() not in _PLANNING or len(rest.split()) < 2:
        return sentence
    doing = english.verb_form(verb, "VBG") or verb
    subject = "I am" if helped == "help me " else "We are"
    return f"{subject} {doing} {rest.rstrip(' ?!.')}."
