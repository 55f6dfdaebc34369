"""A relative called by what they are to the family: "Mum", "Dad", "Grandma".

"Mum is moving in with us next month" names nobody a reader could look up, yet it is as plain a fact as
"My mum is moving in with us": in a family, "Mum" is the user's mum. The sentence reads with the
relation ("my mum"), so the rest of the extractor treats it as any relative the user names, and the
dream files it on that relative's page. A word used to call someone ("Thanks, Mum!", "Hi Dad, …") or
after a possessive ("your Mum", "Ana's Dad") is left as said.
"""

from __future__ import annotations

from suzent_desktop.core.engines.capture import subjectless
from suzent_desktop.core.files.language import english

# What a family calls its own, capitalised as a name; lower-cased, each is a relation capture knows.
FAMILY_NAMES = frozenset("mum mom mam dad grandma grandpa grandad granddad gran granny nan nana nanna".split())
# Relatives, not roles: "Coach Carter" and "Doctor Who" are names of their own
_ROLES = frozenset("boss manager friend mate buddy colleague coworker co-worker neighbor neighbour doctor dentist "
                   "therapist roommate flatmate housemate teammate bandmate classmate mentor coach student "
                   "teacher".split())
_RELATIVES = frozenset(english.PEOPLE) - _ROLES
_OWN_CHILDREN = frozenset("kids grandkids children grandchildren twins".split())
_CALLING = frozenset("hi hey hello thanks thank bye dear love night morning".split())
_OWNERS = frozenset("my your his her our their the a".split())
_PUNCTUATION = ".,!?;:"


def _name_of(word: str) -> tuple[str, str]:
    """A word split into its bare form and what follows it ("Mum's," → "Mum", "'s,")."""
    bare = word.rstrip(_PUNCTUATION)
    for possessive in ("'s", "’s"):
        if bare.endswith(possessive):
            bare = bare[: -len(possessive)]
    return bare, word[len(bare):]


def _is_called(words: list[str], at: int) -> bool:
    """The word calls the person it names rather than speaking of them: "Thanks, Mum!", "Mum, can you …"."""
    before = words[at - 1].strip(_PUNCTUATION).lower() if at else ""
    rest = words[at][len(_name_of(words[at])[0]):]
    return before in _CALLING or (at == 0 and rest.startswith(",")) or (at > 0 and words[at - 1].endswith(","))


def _verb_follows(words: list[str]) -> bool:
    """"mom finally decided to …", "dad says …": chat in lower case opens with the family name before its verb
    ("dad jokes are the worst" opens with a noun)."""
    following = [w.strip(_PUNCTUATION).lower() for w in words[1:3]]
    if following and (following[0].endswith("ly") or following[0] in subjectless.LEAD_ADVERBS | {"still"}):
        following = following[1:]  # "mom finally decided"
    verb = following[0] if following else ""
    return verb in english.MODALS or english.verb_tag(verb) in ("VBD", "VBZ") and not english.is_plural_noun(verb)


def with_relations(sentence: str) -> str:
    """The sentence with each family name said as the user's relation ("Mum" → "my mum"), and a relation
    that opens it before a name said as the user's ("Granddaughter Ffion is …" → "My granddaughter Ffion")."""
    words = sentence.split(" ")
    # "The kids start at a new school in September": a parent's own ("The kids named her …" names what the user
    # got, and is read so)
    if len(words) > 3 and words[0] == "The" and words[1] in _OWN_CHILDREN and words[2] not in ("named", "called"):
        words[0] = "My"
    if (len(words) > 2 and words[0][:1].isupper() and words[0].lower() in _RELATIVES
            and english.looks_like_name(words[1].rstrip(",'’s"))):  # not "Sister Act"
        words[0] = "My " + words[0].lower()
    for at, word in enumerate(words):
        bare, rest = _name_of(word)
        # lower case, it opens the sentence before its verb or its "'s" ("dad's knee surgery went fine", "mum's home")
        opens = at == 0 and bare.islower() and (_verb_follows(words) or rest.startswith(("'s", "’s")))
        if not ((bare[:1].isupper() and bare[1:].islower() or opens)
                and bare.lower() in FAMILY_NAMES):
            continue
        previous = words[at - 1].lower() if at else ""
        if previous in _OWNERS or previous.endswith(("'s", "’s")) or _is_called(words, at):
            continue
        words[at] = ("My " if at == 0 else "my ") + bare.lower() + rest
    return " ".join(words)
