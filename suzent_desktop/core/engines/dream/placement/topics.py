"""Pages per place and per ongoing project or activity, as a person keeping notes would make them.

A fact about something the user is doing now ("User is learning how to play the violin",
"User is writing another movie script", "User runs a dance studio") names an **activity**; its
page is named by what the activity is about ("Violin", "Movie script", "Dance studio") or, when
the fact says nothing more, by the activity itself ("Painting"). A fact that names a **place**
("User has been wanting to visit NYC", "Italy is on User's list of places to visit") names
that place ("NYC", "Italy"): a capitalised name after a word of place ("to", "in", "visit" …),
that is not an ordinary English word, a day or a month, nor a person with a page.

Past events stay on the Timeline and plans on Plans; they link to a place or activity page when
one exists. Which pages are topics is read back from the vault: a personal page that is neither a
category page, the Timeline, Plans, the hub nor a person's page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from suzent_desktop.core.files.language import english
from suzent_desktop.core.files.language.english import EVALUATIVE, is_english_word, looks_like_name

_LEAD = r"^(?:[^,]{0,60}?(?:\)|,) )?"  # an optional leading time phrase: "Last week (…), "
_ADVERBS = r"(?:(?:also|now|currently|still|finally|just|recently|really|actually|even|slowly|already) )*"
# "User is writing …", "User has been learning …", "User has (also) started learning …", "User runs …"
_ONGOING = re.compile(
    _LEAD + r"User " + _ADVERBS + r"(?:(?:is|has been|am) " + _ADVERBS + r"|has " + _ADVERBS
    + r"(?:started|begun|taken up|picked up) " + _ADVERBS + r")(?P<verb>[a-z]+ing)\b(?P<rest>.*)$"
)
_RUNS = re.compile(_LEAD + r"User " + _ADVERBS + r"(?P<verb>runs|owns|manages|coaches|teaches|leads) (?P<rest>.*)$")
# -ing words that are not an activity of their own ("is going", "has been wanting", "is focusing on")
_NOT_ACTIVITIES = frozenset(
    "going getting having doing trying wanting thinking feeling looking hoping planning waiting enjoying loving "
    "liking hating missing considering wondering dealing struggling focusing reading watching listening "
    "spending living staying starting seeing meeting talking chatting saying telling asking keeping making "
    "taking bringing coming leaving using finding helping feeling checking following".split()
)
_LEADS_ON = frozenset("for with to on at in from of by into through".split())  # "rehearsing for …": the name comes after it


def _after_how_to(rest: str) -> tuple[str | None, str]:
    """"learning how to play the violin", "trying to learn German": the verb after "(how) to" carries the
    object ((None, "the violin")); alone, it is the activity ("learning to knit": ("knit", ""))."""
    lead = next((p for p in ("how to ", "to ") if rest.startswith(p)), None)
    verb, space, after = rest[len(lead):].partition(" ") if lead else ("", "", rest)
    if not (verb.isascii() and verb.isalpha() and verb.islower()):
        return None, rest
    return (None, after) if space else (verb, "")


def _first_word(text: str) -> str:
    """The word a text opens with (letters, digits, "_"): "for" of "for-profit …"."""
    end = next((i for i, ch in enumerate(text) if not (ch.isalnum() or ch == "_")), len(text))
    return text[:end]


_DETERMINERS = frozenset(
    "a an the another their his her its user's some my own next new first second third more different this "
    "that these those any all few couple bunch of little big whole".split()
)
_STOP = re.compile(
    r"\b(?:about|for|from|with|at|in|on|of|to|by|since|during|and|or|but|now|which|that|who|every|this|"
    r"last|next|when|because|while|called|named|so|as|after|before|again|too|lately|recently|currently|nowadays|"
    r"today|tonight|these|right)\b|[,.;:!?()\"]"
)
_PARTICLES = frozenset("out up off down over away back around".split())
_VAGUE_HEADS = frozenset(
    "thing things stuff project projects idea ideas something lot lots bit time times way ways one ones job work "
    "skill skills hobby hobbies activity activities".split()
)
# "to" and "from" lead to a place only after a word of travel ("a letter to Ana" names a person)
TRAVEL = (r"(?:go|goes|going|went|gone|move[sd]?|moving|travel(?:l?ed|l?ing|s)?|trips?|fl(?:y|ies|ew|ying)|"
           r"flights?|dr(?:ive|ove|iving)|off|back|way|road|holidays?|vacations?|semester|return(?:ed|ing|s)?|"
           r"commute[sd]?|commuting|headed|heading|relocat(?:e|ed|ing))")
_PLACE = re.compile(
    r"(?:\b(?:in|at|visit|visited|visiting|near|around|across|through)|\b" + TRAVEL
    + r"\b(?: [a-z]+){0,3} (?:to|from))\s+"
    r"(?:the\s+)?(?P<place>[A-Z][\w'’-]*(?:\s+(?:of\s+|de\s+|del\s+)?[A-Z][\w'’-]*){0,3})"
)
_PLACE_SUBJECT = re.compile(
    _LEAD + r"(?P<place>[A-Z][\w'’-]*(?: [A-Z][\w'’-]*){0,2}) (?:is|was|has been) [^.]*\b(?:places? to|destinations?|"
    r"trips?|travel)\b"
)
_CALENDAR = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june july august "
    "september october november december christmas easter user i".split()
)


@dataclass(frozen=True)
class Topic:
    name: str  # the page's title
    kind: str  # "place" | "activity"


def activity_of(text: str) -> Topic | None:
    """The ongoing project or activity a fact is about, or None."""
    match = _ONGOING.match(text) or _RUNS.match(text)
    if not match:
        return None
    verb, rest = match.group("verb"), match.group("rest").strip()
    second = rest.split(maxsplit=2)
    if len(second) > 2 and second[0] == "and" and english.verb_tag(second[1]) == "VBG":
        verb, rest = second[1], second[2]  # "revising and perfecting a recipe": the object names the page
    if verb == "going" and rest.startswith("through "):  # "going through the adoption process"
        verb, rest = "working", "on " + rest[len("through "):]
    if verb in _NOT_ACTIVITIES:
        return None
    alone, after = _after_how_to(rest)
    if alone and (gerund := _gerund(alone)):
        return Topic(gerund.capitalize(), "activity")  # "learning to knit" → Knitting
    rest = rest.removeprefix("on ") if verb == "working" else (rest if alone else after)
    name = _object_name(rest)
    if name is None:
        if verb == "working" or match.re is _RUNS or rest and not _STOP.match(rest) or _first_word(rest) in _LEADS_ON:
            return None  # "working on some projects", "rehearsing for an audition": nothing to name a page by
        name = verb.capitalize()  # "User is painting again": the activity is its name
    return Topic(name, "activity")


def _gerund(verb: str) -> str | None:
    """The -ing form of a plain verb ("knit" → "knitting", "bake" → "baking"), when it is English."""
    if verb.endswith("e") and not verb.endswith("ee"):
        candidates = [verb[:-1] + "ing"]
    elif re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwxy]", verb):
        candidates = [verb + verb[-1] + "ing", verb + "ing"]
    else:
        candidates = [verb + "ing"]
    return next((c for c in candidates if is_english_word(c)), None)


def _object_name(rest: str) -> str | None:
    """What an activity makes or learns, from the words after its verb: "another movie script" →
    "Movie script"; None when those words are vague ("some projects", "a lot")."""
    cut = _STOP.search(rest)
    words = (rest[: cut.start()] if cut else rest).split()
    if words and words[0].lower() in _PARTICLES:
        return None  # "figuring out the details": the verb's particle, then words that name nothing
    while words and words[0].lower() in _DETERMINERS:
        words.pop(0)
    participle = next((i for i, w in enumerate(words) if i and w.lower().endswith("ed")), None)
    words = words[:participle]  # "a basketball signed by …", "a movie based on …": the noun ends there
    if len(words) > 1 and words[0].lower().endswith("ing") and words[1].lower() in _DETERMINERS:
        return _object_name(" ".join(words[1:]))  # "playing the guitar" is about the guitar
    words = [w for w in words if w.lower() not in EVALUATIVE]
    if len(words) > 1 and words[-1].lower() == "process":
        words.pop()  # "the adoption process" is adoption
    if not words or len(words) > 3 or words[-1].lower() in _VAGUE_HEADS:
        return None
    if not all(re.fullmatch(r"[A-Za-z][\w'’-]*", w) for w in words):
        return None
    name = " ".join(words)
    return title_case(name)


def title_case(name: str) -> str:
    """A page title from a phrase: first letter up, nothing a file name cannot hold."""
    name = re.sub(r"[^\w '-]+", "", name).strip()
    return name[:1].upper() + name[1:]


def about_user(text: str) -> bool:
    """Whether the user is the fact's subject: a fact about Anna ("Anna moved to Berlin") stays
    with what the vault keeps about Anna, not on a page of Berlin."""
    return bool(re.match(_LEAD + r"User\b", text))


def place_of(text: str, people: set[str] | frozenset[str] = frozenset()) -> Topic | None:
    """The place a fact about the user names (or a place the fact is about), or None."""
    for match in [_PLACE_SUBJECT.match(text), *(_PLACE.finditer(text) if about_user(text) else ())]:
        if match is None:
            continue
        name = match.group("place")
        first = name.split()[0]
        if first.lower() in _CALENDAR or first in people or name in people or name.endswith(("'s", "’s")):
            continue  # "in John's team" names John's team, no place: a page "John's" held nothing of his
        if len(name.split()) == 1 and not (name.isupper() and len(name) > 1) and not looks_like_name(name):
            continue  # "to Work", "in Spring": a capitalised word, not a name
        return Topic(title_case(name), "place")
    return None


def topic_of(text: str, people: set[str] | frozenset[str] = frozenset()) -> Topic | None:
    """An activity first (it says what the user does), then a place."""
    return activity_of(text) or place_of(text, people)


# What may follow a name that stands for the thing itself: the end, punctuation, a preposition, a
# conjunction or a verb of being ("the violin at a recital", "Lisbon is …"); "movie producers" uses
# "movie" to say what kind of producers, and is no mention of the page "Movie".
_THING_ITSELF = re.compile(
    r"(?=\s*(?:$|[,.;:!?()\[\]\"]|(?:about|for|from|with|at|in|on|of|to|by|since|during|and|or|but|now|which|"
    r"that|who|every|this|last|next|when|because|while|so|as|after|before|again|too|is|was|are|were|has|had|"
    r"will|with)\b))"
)


def mentions(text: str, title: str) -> list[re.Match[str]]:
    """Where the text names the page ``title`` (any case) as the thing itself."""
    return list(re.finditer(rf"\b{re.escape(title)}\b{_THING_ITSELF.pattern}", text, re.I))


def mentioned(text: str, titles: set[str] | frozenset[str]) -> str | None:
    """The longest page title in ``titles`` that a fact about the user names, whatever its case."""
    if not about_user(text):
        return None
    for title in sorted(titles, key=len, reverse=True):
        if mentions(text, title):
            return title
    return None
