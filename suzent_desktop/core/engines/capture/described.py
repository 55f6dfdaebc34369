"""What a sentence says the thing of the line before is, said beside that line.

"I'm reading "Piranesi". It's a strange book about a man who lives in a house": the second sentence
names nothing and states no fact alone, but it says what the title is, and a reader of the memory
wants both together ("User is reading "Piranesi", a strange book about …"). The same holds for a
thing named by its kind or its name ("I'm writing another movie script! It's a love story with lots of
challenges", "I want to visit the Cliffs of Moher. It has amazing ocean views") and for a sentence that
is only a noun phrase ("We got a puppy! A beagle called Nutmeg."). Each function gives the joined text
in the words said (the caller writes it in the third person and checks it), or None.
"""

from __future__ import annotations

import itertools
import re

from suzent_desktop.core.engines.capture import fact_judge, fact_rules, subjectless
from suzent_desktop.core.files.language import english

_TIME_NOUNS = frozenset(fact_rules.TIME_NOUN.split("|"))
_CLAUSE_WORDS = frozenset("i we but".split())
_RELATIVES = frozenset("that which who whom".split())
_IT_OPENINGS = ("'s", "’s", " is", " was")  # after "it": "It's a novel about …"
_SAID_OF = ("about ", "based on ", "set in ")  # "It's set in feudal Japan"


def describes(rest: str) -> bool:
    """"It's a three-bed terrace with a garden" says what the thing is; "It's a big week for us", "It's a
    good thing I work from home", "It's a long story, but …" use "it" for the time or the talk. A clause
    that describes the thing ("a book series that I love") is part of what it is."""
    words = [w.lower() for w in english.words(rest)]
    clause = any(w in _CLAUSE_WORDS and not (w != "but" and i and words[i - 1] in _RELATIVES)
                 for i, w in enumerate(words))
    return not (_TIME_NOUNS & set(words[:4]) or clause)


def what_it_is(sentence: str) -> str | None:
    """What "It's a …" / "It was an …" / "It's about …" says the thing is ("a novel about …"), or None."""
    if sentence[:2].lower() != "it":
        return None
    lead = next((o for o in _IT_OPENINGS if sentence[2:].startswith(o)), None)
    rest = sentence[2 + len(lead):] if lead else ""
    if not rest[:1].isspace():
        return None
    what = re.sub(r"^(?:all|really|mostly) about ", "about ", rest.lstrip().rstrip(".!"))  # "It's all about …"
    article, space, described = what.partition(" ")
    said_of = what.startswith(_SAID_OF)
    what = what.split(", and it")[0].split(", but ")[0]  # "…, and it's really dark": a verdict after it
    return what if (article in ("a", "an") or said_of) and space and described and describes(what) else None


# What a work is about speaks to anyone, not to the listener: "a story about reaching for your dreams".
_IMPERSONAL = {"your": "one's", "you": "one", "yourself": "oneself"}


def impersonal(description: str) -> str:
    """A work's description with its generic "you" said as "one" (the line then speaks to no one)."""
    return " ".join(_IMPERSONAL.get(word.lower(), word) for word in description.split(" "))


def _titled(line: str) -> tuple[str, str] | None:
    """A line split after its first quoted title of 2 to 80 characters (head, tail), or None."""
    opening = line.find('"')
    while opening >= 0:
        closing = line.find('"', opening + 1)
        if closing < 0:
            return None
        if 2 <= closing - opening - 1 <= 80:
            return line[: closing + 1], line[closing + 1:]
        opening = closing
    return None


def title_described(line: str, sentence: str) -> str | None:
    """"User is reading "Piranesi"" and "It's a strange book about …": what the title is, beside it."""
    titled, said = _titled(line), what_it_is(sentence.strip())
    if titled is None or said is None:
        return None
    head, tail = titled[0][:-1].rstrip(".!?") + '"', titled[1].strip()  # "Home." ends a sentence
    if tail.startswith("by "):  # who made the work goes with its title
        head, tail = f"{head} {tail}", ""
    return f"{head}, {impersonal(said)}" + (f", {tail}" if tail else "")


# A thing the line ends on: after an article ("another movie script"), or a name ("the Cliffs of Moher").
_THING_OPENERS = frozenset("a an another the".split())
_JOINS = frozenset("of by from called named".split())  # inside a thing's name: "a novel by Ishiguro"
_NO_THING_WORDS = _TIME_NOUNS | english.CALENDAR | frozenset(
    "user user's their them they it its this that these those one ones lot bit while couple few but or so because "
    "overall".split())


def _only_a_verb(word: str) -> bool:
    """A verb form with no reading as a noun or an adjective ("went", "walking"; not "amazing", "views")."""
    return english.verb_tag(word) in ("VBD", "VBG", "VBZ") and not english.names_or_describes(word)


_TO_BE = frozenset("is are was were".split())


def _user_does(words: list[str]) -> bool:
    """The line's subject is the user, or a thing of theirs that the line says is its last thing ("User's
    favorite book is …"); in "User's first paper got accepted in …" a next "It" is still the paper."""
    if words[0] == "User":
        return True
    verb = next((w for w in words[1:] if w in _TO_BE or _only_a_verb(w)), "")
    return words[0] == "User's" and verb in _TO_BE


def _ends_on_thing(line: str, openers: frozenset[str] = _THING_OPENERS) -> bool:
    """Whether the line ends on a thing a next "It's …" can be: the words after its last article, or a
    name, with no verb, time word or pointer among them ("User wants to visit The Cliffs of Moher")."""
    words = line.rstrip(".!").split()
    start = next((i for i in range(len(words) - 1, 0, -1) if words[i].lower() in openers), None)
    if start is None or len(words) - start > 7 or not _user_does(words):
        return False
    thing = [w.strip(",;:") for w in words[start + 1:]]
    if not thing or thing[-1].lower() in _JOINS:
        return False
    for word in thing:
        lowered = word.lower()
        if {lowered, lowered.removesuffix("s")} & _NO_THING_WORDS or lowered in subjectless.FINITE:
            return False
        if word.islower() and lowered not in _JOINS and _only_a_verb(word):
            return False
    return True


_NOT_HAD = frozenset("been to got".split())  # "It has been …", "It has to …": no thing it has


def _what_it_has(sentence: str) -> str | None:
    """What "It has amazing ocean views" says the thing has, or None."""
    words = sentence.rstrip(".!").split(" ")
    if len(words) < 4 or words[0].lower() != "it" or words[1] != "has" or words[2].lower() in _NOT_HAD:
        return None
    return " ".join(words[2:])


def thing_described(line: str, sentence: str) -> str | None:
    """"User is writing another movie script" and "It's a love story with lots of challenges" (or "It has
    amazing ocean views"): what the thing the line ends on is, beside it; a verdict ("It's a great place")
    names too little to say."""
    if not _ends_on_thing(line):
        return None
    said = what_it_is(sentence.strip())
    has = _what_it_has(sentence.strip()) if said is None else None
    if has is not None and describes(has):
        said = f"which has {has}"
    if said is None:
        return None
    content = [w for w in english.words(said.lower())
               if w not in english.STOPWORDS and w not in english.EVALUATIVE and len(w) > 2 and w != "which"]
    if len(content) < 3 or _for_a_purpose(said):  # "a learning curve" names too little
        return None
    return f"{line.rstrip('.!')}, {impersonal(said)}"


def _for_a_purpose(said: str) -> bool:
    """"a great way to unwind", "a nice place to relax": what the thing is good for, a verdict on it."""
    words = said.split(" ")
    return words[0] in ("a", "an") and "to" in words[2:6]


# "We got a puppy! A beagle called Nutmeg.": a sentence that is only a noun phrase, naming something,
# says what the thing the line before got is ("User got a puppy, a beagle called Nutmeg").
_NO_PHRASE = subjectless.FINITE | frozenset("i me we us you your he him she they them it its this that and but so because"
                                            .split())  # a possessive is part of a phrase: "a gift from my mum"
_OWN_THING = _THING_OPENERS | {"their"}  # "User booked their holiday" and "Ten days in Marrakech"


_PHRASE_OPENERS = english.COUNT_WORDS | {"a", "an"}  # "Ten days in Marrakech in April"


def _is_named_phrase(words: list[str]) -> bool:
    """"A beagle called Nutmeg", "An old Fiat 500": an article, a few words that name something and no
    verb but the one that names ("called", "named" before a name)."""
    if not 2 <= len(words) <= 12 or not (words[0].lower() in _PHRASE_OPENERS or words[0].isdigit()):
        return False
    if any(w.lower() in _NO_PHRASE for w in words):
        return False
    naming = {i for i in range(len(words) - 1) if words[i + 1][:1].isupper()}
    verbs = [i for i, w in enumerate(words) if w.islower() and english.verb_tag(w) in ("VBD", "VBG", "VBZ")]
    return all(i in naming for i in verbs) and fact_judge.names_something(" ".join(words))


_PERSON_IS = frozenset("he's she's he’s she’s".split())  # "He's a border collie mix named Biscuit"


def of_the_thing(sentence: str) -> bool:
    """"She's a beagle mix" after "we adopted a puppy": more of the thing just got, which a next "we named her
    Clementine" still names."""
    first = sentence.strip().lower().split(" ", 1)[0]
    return first in _PERSON_IS or first in ("it's", "it’s")


def phrase_described(line: str, sentence: str) -> str | None:
    """"User got a puppy" and "A beagle called Nutmeg." (or "She's a tabby named Fig"): the phrase beside
    the line. Only a phrase that names something: "She's a sweetheart" is a verdict."""
    words = sentence.strip().rstrip(".!").split()
    if words and words[0].lower() in _PERSON_IS:
        words = words[1:]
    if not _is_named_phrase(words) or not ({"a", "an"} & set(line.lower().split()[-4:]) or _ends_on_thing(line, _OWN_THING)):
        return None
    return f"{line}, {words[0].lower()} {' '.join(words[1:])}"


_NAMING = frozenset("named called name call".split())
_NAMED_ONE = frozenset("her him it them".split())


def name_given(line: str, sentence: str) -> str | None:
    """"User adopted a kitten" and "… we named her Mochi": the name the user gave the thing, beside it."""
    words = sentence.strip().rstrip(".!").split()
    name = next((words[i + 2:] for i in range(1, len(words) - 2)
                 if words[i].lower() in _NAMING and words[i + 1].lower() in _NAMED_ONE), None)  # "the kids named her X"
    said_name = [w.lower() for w in words[:3]]
    if name is None and said_name[:1] in (["her"], ["his"], ["its"]) and said_name[1:2] in (["name"], ["name's"]):
        name = words[3:] if said_name[1:] == ["name", "is"] else words[2:]  # "her name is Mochi", "his name's Rex"
    name = list(itertools.takewhile(lambda w: w[:1].isupper(), name or []))  # "Noodle and he's 4": Noodle
    said = line.rstrip(".!").split()
    got_one = {"a", "an"} & {w.lower() for w in said[-6:]} and _user_does(said)  # "… a puppy on Saturday"
    if not name or len(name) > 3 or not got_one:
        return None
    return f"{line.rstrip('.!')}, named {' '.join(name)}"


def of(line: str, sentence: str) -> str | None:
    """The line with what ``sentence`` says its thing is, or None when the sentence says no such thing."""
    return (title_described(line, sentence) or phrase_described(line, sentence) or name_given(line, sentence)
            or thing_described(line, sentence))
