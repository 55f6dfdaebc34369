"""The statement a sentence makes before what it goes on to say: one part of the offline extractor.

"I submitted my screenplay to a film contest just to see how others might like it" states that the user
submitted it; the rest says why, with words that point outside the line ("others", "it"). When the whole
sentence cannot stand as a line, its main statement, cut where a purpose, a reason, a relative clause or
another statement begins, still can. A condition is never cut away ("I would get a dog if I could" is no
plan), and the statement must keep a verb and a thing it is about (four words at least).
"""

from __future__ import annotations

from suzent_desktop.core.engines.capture.subjectless import DETERMINERS
from suzent_desktop.core.files.language import english

# Where a sentence goes on past its main statement; the earliest one after the first words counts.
_GOES_ON = (" just to ", " to see ", " so that ", " because ", " since ", ", which ", " which ", ", but ", " but ",
            ", and ", ", so ", " and this ", " and that ", " and it ", " and they ", " and user ", ", there's ", ", there is ", ", there are ")
_CONDITIONS = (" if ", " unless ", " as long as ", " in case ")
MIN_WORDS = 4
SUBORDINATORS = frozenset("when while whilst if unless because since after before although though as once until "
                          "whenever where wherever".split())
_SO_AS_DEGREE = frozenset("much many far long well hard badly that".split())  # "so much", "so far"
# A comma before these starts a remark of its own, not an item of a list or more of the same clause
_TAIL_STARTS = frozenset("nobody everyone everybody fingers hopefully luckily sadly thankfully which it it's that's "
                         "this they he she".split())
# "My dad took me to see them": what follows an object is what the verb did with it, not a purpose
_OBJECTS = frozenset("me us him her them it".split())


# Past forms that name a thing rather than go on doing: "a novel, called Dune", "a cake, made with love"
_NAMING_PARTICIPLES = frozenset("called named based set made".split())


def goes_on(head: str, verb: str, rest: str) -> bool:
    """"we finally did it, bought a used hilux": after a statement of the user's, a past verb and what it acts
    on is the user doing more; "…, called Dune" names a thing."""
    words = rest.split(" ", 2)
    after = words[1].strip(",.!?").lower() if len(words) > 1 else ""
    speaker = [w.lower() for w in head.split()[:2]]
    return (english.is_past(verb) and english.verb_lemma(verb) != verb and verb not in ("was", "were", "had", "did")
            and verb not in _NAMING_PARTICIPLES and after in DETERMINERS and bool({"i", "we"} & set(speaker))
            and len(head.split()) >= 3)


def we_again(head: str, spliced: str) -> bool:
    """"we did it, we moved to Guadalajara": "we" with its verb before the comma and again after it."""
    words = [w.lower() for w in head.split()]
    return spliced == "we" and any(w == "we" and english.verb_tag(n) for w, n in zip(words, words[1:], strict=False))


def main_statement(sentence: str) -> str | None:
    """The sentence up to where it goes on past its main statement, or None when it does not (or a
    condition qualifies it)."""
    lowered = sentence.lower()
    if any(condition in f" {lowered} " for condition in _CONDITIONS):
        return None
    said = _said_after_a_scene(sentence)
    if said is not None:
        return said
    cuts = [at for marker in _GOES_ON if (at := lowered.find(marker)) > 0 and len(sentence[:at].split()) >= MIN_WORDS
            and lowered[:at].split()[-1] not in _OBJECTS]
    so = lowered.find(" so ")  # "I'm vegan so food recs need to …": what follows is what it means for now
    after_so = lowered[so + 4:].split(" ", 1)[0] if so > 0 else ""
    if so > 0 and len(sentence[:so].split()) >= 3 and after_so and not lowered[:so].endswith(" and") and not (
            english.is_adjective(after_so) or after_so.endswith("ly") or after_so in _SO_AS_DEGREE):
        cuts.append(so)
    comma = lowered.find(", ")
    while comma > 0:  # "…, nobody knows who's replacing him", "…, fingers crossed it's quiet"
        if lowered[comma + 2 :].split(" ", 1)[0] in _TAIL_STARTS and len(sentence[:comma].split()) >= MIN_WORDS:
            cuts.append(comma)
            break
        comma = lowered.find(", ", comma + 2)
    if not cuts:
        return None
    return sentence[: min(cuts)].rstrip(" ,")


# Who speaks first after a colon that opens the statement: "Well, I finally did it: I signed up for …", "Big
# news in our house: we're expecting". What precedes it only announces the news.
_OWNERS = frozenset("her his its".split())  # "…, her name is Mochi"


# What opens a question asked after the user says what the agent needs to know ("…, so what are some …?")
_QUESTION_OPENERS = frozenset("what what's whats which how is are can could should do does any where who when would will"
                              .split())
_REASON_OPENERS = ("since ", "as ", "because ")
_ASKED_OF = frozenset("it i you we they there he she".split())
# "As a kid, I …" is a time of life, "As a result, I …" a link: no role the user has
_NO_ROLE = frozenset("kid child teenager teen boy girl baby toddler youngster result matter rule whole treat joke bonus "
                     "reminder side family couple team thank gift consequence".split())


def _asked_after(sentence: str) -> list[str] | None:
    """"My husband's a paramedic, so what are some easy meals?", "Since I'm allergic to shellfish, which dishes
    should I avoid?": the statement and the question apart, or None."""
    asked = sentence.rstrip().endswith("?")
    lowered = sentence.lower()
    if asked and lowered.startswith(_REASON_OPENERS) and ", " in sentence:
        head, _, rest = sentence.partition(", ")
        if rest.split(" ", 1)[0].lower() in _QUESTION_OPENERS:
            return [head.split(" ", 1)[1], rest]
    for mark in (", so ", " so "):
        head, found, rest = sentence.partition(mark)
        opens = rest.lower().split(" ", 2)
        # texting drops the "?": "… so is it ok to do hot yoga" still asks (a pronoun after the verb)
        if found and head and opens[0] in _QUESTION_OPENERS and (asked or opens[1:2] and opens[1] in _ASKED_OF):
            return [head, rest]
    return None


def _in_a_role(sentence: str) -> list[str] | None:
    """"As a pensioner on a fixed income, I cannot pay this": what the user is, and what they say."""
    head, comma, rest = sentence.partition(", ")
    words = head.lower().split()
    if not comma or words[:2] not in (["as", "a"], ["as", "an"]) or len(words) > 12 or not set(words[2:4]).isdisjoint(
            _NO_ROLE) or rest.split(" ", 1)[0].lower() not in english.OWN_OPENINGS:
        return None
    return [f"I am {head.split(' ', 1)[1]}", rest]


def announced(sentence: str) -> list[str]:
    """A sentence whose statement follows a colon, ", so I" or "but", in two: "Well, I finally
    did it: I signed up for …", "Doc says it's tendinitis, so I'm doing physio", "Random, but I got my first
    sponsor". "I have two kids: Ana and Leo" stays whole: no speaker opens what follows the colon."""
    parts = _asked_after(sentence) or _in_a_role(sentence)
    if parts:
        return [parts[0], *announced(parts[1])]
    head, comma, rest = sentence.partition(", ")
    if comma and rest.lower().split(" ", 2)[1:2] in (["name"], ["name's"]) and rest.split(" ", 1)[0].lower() in _OWNERS:
        return [head, rest]  # "we adopted a shiba inu, her name is Mochi": the name of the thing
    for mark in (": ", ", so ", " but "):
        head, found, rest = sentence.partition(mark)
        opener = rest.split(" ", 1)[0].lower()
        if rest.split(" ", 3)[1:3] in (["and", "I"], ["and", "I'm"]):  # "Good news: Aroha and I are expecting"
            opener = "i"
        # "…, so my wife made one cake": the head may be what the line needs ("Kehinde wanted a dinosaur cake")
        if found and head and opener in english.OWN_OPENINGS and (mark != ", so " or opener[:1] in "iw"):
            return [head, *announced(rest)]
    return [sentence]


_WHERE = ", where I "
_CLAUSE_ENDS = (" until ", " and ", " but ", " because ", " when ", " since ", ", ")


def where_the_user(sentence: str) -> str | None:
    """"… my years at St Mary's Primary, where I taught for thirty-one years until I retired" says what the
    user did at a place named just before: "I taught for thirty-one years at St Mary's Primary until I
    retired". None when no named place stands before ", where I"."""
    at = sentence.find(_WHERE)
    if at < 0:
        return None
    before = sentence[:at].split(" ")
    named: list[str] = []
    while before and (before[-1][:1].isupper() or (named and before[-1] in ("of", "the"))):
        named.insert(0, before.pop())
    while named and not named[0][:1].isupper():
        named.pop(0)
    said = sentence[at + len(_WHERE) - 2:].rstrip(" .!")
    if not named or not before or before[-1].lower() not in ("at", "in", "to", "from") or len(said.split()) < MIN_WORDS:
        return None
    cut = min((c for end in _CLAUSE_ENDS if (c := said.find(end, 2)) > 0), default=len(said))
    where = "at" if before[-1].lower() == "at" else "in"  # "a train to Marrakech, where I bought …": in it
    return f"{said[:cut]} {where} {' '.join(named)}{said[cut:]}"


_USER_OPENERS = (", I ", ", we ", ", my ", ", our ")


def _said_after_a_scene(sentence: str) -> str | None:
    """The user's statement after a clause that sets the scene ("After she declared my diet beige, I started
    growing basil", "It's been so hot here that I've started working at 6am"): the statement stands alone
    when the whole cannot (the scene's "she" points outside it). None for any other sentence."""
    lowered = sentence.lower()
    if lowered.split(" ", 1)[0] in SUBORDINATORS:
        at = min((found for opener in _USER_OPENERS if (found := sentence.find(opener)) > 0), default=-1)
        if at > 0 and len(sentence[at + 2:].split()) >= MIN_WORDS:
            return sentence[at + 2:]
    so = lowered.find(" so ")
    that = lowered.find(" that ", so) if so > 0 else -1
    rest = sentence[that + 6:] if that > 0 else ""
    if that > 0 and rest.split(" ", 1)[0] in ("I", "we", "my", "our") and len(rest.split()) >= MIN_WORDS:
        return rest[0].upper() + rest[1:]
    return None


# Where a statement of its own may start inside a sentence the candidate step read as none: after a comma or a
# joining word, at a word that opens a statement by its subject.
_JOINS = frozenset("and but so because cause bc plus".split())
_CONDITIONAL = frozenset("if unless when whenever once until".split())
_OPENS_A_STATEMENT = frozenset("i i'm im i've ive i'd i'll we we're we've my our".split())


def each_statement(sentence: str) -> list[str]:
    """The parts of a sentence that each open with the user or theirs as the subject, cut after a comma, a colon or a
    joining word ("results came out and i got an A in chemistry" → "i got an A in chemistry"): a chatty
    sentence glues its statements in ways no single reading covers, and the judge weighs each part alone.
    The first part stays only when it opens so too; a sentence without such a cut gives none."""
    words = sentence.split(" ")
    if words[0].lower() in _CONDITIONAL:
        return []  # "If it rains, I stay home": what follows holds only then
    cuts = [at for at in range(1, len(words))
            if words[at].lower().strip(",") in _OPENS_A_STATEMENT
            and (words[at - 1].endswith((",", ":")) or (words[at - 1].lower() in _JOINS and at > 1))]
    if not cuts:
        return []
    starts = [0, *cuts]
    parts = [" ".join(words[a:b]) for a, b in zip(starts, [*cuts, len(words)], strict=True)]
    parts = [p.rstrip(", ") for p in parts]
    parts = [p[: -len(j) - 1] if (j := p.rsplit(" ", 1)[-1]).lower() in _JOINS and " " in p else p for p in parts]
    return [p for i, p in enumerate(parts) if (i or p.split(" ", 1)[0].lower() in _OPENS_A_STATEMENT)
            and ":" not in p and not _in_apposition(p)]


def _in_apposition(part: str) -> bool:
    """"our youngest intern, fell asleep" of "Paolo, our youngest intern, fell asleep": a "my" or "our" that
    names who someone is, no subject, when the verb after its comma is the sentence's."""
    _, comma, rest = part.partition(", ")
    verb = rest.split(" ", 1)[0]
    return bool(comma) and part.split(" ", 1)[0].lower() in ("my", "our") and english.verb_tag(verb) in ("VBD", "VBZ")
