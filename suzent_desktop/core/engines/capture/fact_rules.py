"""The few named rules a fact line must pass before the learned judge weighs it.

A fact line is read in the log's third person ("User adopted a greyhound named Pixel"). Whether
it states a fact worth keeping is learned (:mod:`core.fact_judge`); these rules only say what
cannot be a fact line whatever the words, each with its name as the reason:

* ``fragment``: fewer than three words ("User agrees");
* ``not about the user or a named person``: the line does not open with the user ("User …",
  "The user …", after an optional time such as "Last Friday (2023-05-05), User …") or a name
  ("Melanie …", "Ana (the user's sister) …"); "Writing has become an escape" is a maxim;
* ``points outside the line``: a demonstrative before a noun or alone ("these notebooks", "that
  pic", "this script"), "there", "the same", "another one": the line does not say which ("this
  week", "that summer" are times, fine);
* ``speaks to the other person``: "you" or "your" ("User loves your photos"): what the user
  says to someone, not a fact that stands alone;
* ``not a word``: the verb after "User" is no English word or form of one ("User wannas keep …",
  "User almosts forgot"), the mark of a sentence the third-person rewrite could not read; the noun
  after "User's" is not checked ("User's favourite band", "User's stepdad").

The offline extractor's candidates pass these rules, then the judge; MEMORY.md's lines pass these
rules (:func:`is_precise`): what stands on a page was judged when it was captured.
"""

from __future__ import annotations

import re

from suzent_desktop.core.files.language import english
from suzent_desktop.core.files.language.english import EVALUATIVE, is_english_word, looks_like_name, words

__all__ = ["EVALUATIVE", "LIFE_EVENTS", "is_english_word", "is_precise", "looks_like_name", "problem"]

MIN_WORDS = 3
LIFE_EVENTS = frozenset(
    "engaged married divorced separated pregnant graduated promoted retired fired hired adopted widowed "
    "vegetarian vegan pescatarian allergic diabetic sober baptized born died passed injured hospitalized "
    "diagnosed relocated moved quit resigned enrolled elected intolerant puppy kitten".split()
)
TIME_NOUN = ("week|weekend|month|year|morning|afternoon|evening|night|summer|winter|spring|fall|autumn|time|day|"
             "season|semester|term|quarter|fortnight|decade")
# an opening time ("Next month, User …", "Last night User …", "Last Friday (2023-05-05) User …", "Lately User …"),
# hedge ("Maybe User will …": the judge weighs how sure it is) or adverb in -ly ("Sadly User's dog …") may come
# before the subject
_TIME_LEAD = (r"(?:(?:last|next|this|on|in|at|yesterday|today|tonight|earlier|nowadays|right now|maybe|perhaps|[a-z]+ly|"
              r"a|few|couple|of|two|three|"
              rf"\w+day|(?:{TIME_NOUN})s?|ago|the|\([^()]*\d{{4}}[^()]*\)),?\s)+")
# or a short opening phrase that sets the scene ("Sadly, User's dog …", "After User's breakup, User …",
# "Apart from meetings, User …"); a condition ("If it rains, User …") states nothing
_SUBJECT = r"(?:User|[Tt]he user)(?:'s)?\b(?P<after>.*)$"
_USER = re.compile(rf"^(?i:{_TIME_LEAD})?{_SUBJECT}")
_USER_AFTER_CLAUSE = re.compile(rf"^(?!(?i:if|unless|whether|in case|as long as|provided|suppose|supposing)\b)"
                                rf"[^,]{{1,40}},\s{_SUBJECT}")


def _user_subject(text: str) -> re.Match[str] | None:
    """The user as the line's subject, at its start or after an opening clause."""
    return _USER.match(text) or _USER_AFTER_CLAUSE.match(text)


_NAMED = re.compile(r"^(?P<name>[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)(?P<more>(?: (?!User\b)[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)*)(?: \(the user's [^)]+\))?(?:'s)? (?:[a-z]+ )?(?P<verb>[a-z]+)")
_YOU = re.compile(r"\b(?:you|your|yours|yourself)\b", re.I)
# "this September", "this Monday" name a time as "this week" does
_POINTER = re.compile(rf"\b(?:this|these|those)\b(?! (?:{TIME_NOUN}|{'|'.join(english.CALENDAR)})s?\b)|\bthere\b(?! (?:is|are|was|were)\b)|"
                      r"\b(?:the same(?! (?!thing\b|one\b|way\b|as\b)[a-z]{3,})|a few more|(?:a|an|the|another|favou?rite|new|old|other|big|next|last|(?<!User's )(?<!their )little) one)\b(?!-)|\bthat(?: (?P<next>[a-z]+))?(?=\W*$|\s)", re.I)


def _counted_before(text: str) -> bool:
    """A count of things stands in the text ("three marathons", "a few new books"): what "the last one" is."""
    tokens = text.lower().replace(",", " ").split()
    return any((token in english.COUNT_WORDS or token.isdigit()) and any(t.endswith("s") and len(t) > 3 for t in tokens[at + 1 : at + 4])
               for at, token in enumerate(tokens))


def _points_outside(text: str) -> bool:
    """A pointer whose referent is not in the line; "that" only as a determiner ("that pic"), not
    as a relative or a conjunction ("a Vespa that User is restoring", "a car that won")."""
    for match in _POINTER.finditer(text):
        if match.group(0).lower() == "there" and re.search(r"\b(?!User\b)[A-Z][a-z]+", text[1:match.start()]):
            continue  # "moved to Osaka and works there": the place is in the line
        if match.group(0).lower().endswith(" one") and _counted_before(text[: match.start()]):
            continue  # "User has run three marathons, the last one in Valencia": the marathons are in the line
        if not match.group(0).lower().startswith("that"):
            return True
        after = match.group("next")
        if after is None and text[match.end():].strip(" .!,") == "":
            return True
        if after and after[0].islower() and not english.verb_tag(after) and after not in _NOT_A_NOUN and not re.match(TIME_NOUN, after):
            return True
        if _that_thing(text, match):
            return True
    return False


def _that_thing(text: str, match: re.Match[str]) -> bool:
    """"with that name", "loves that band": "that" after a preposition or a verb, before a noun and no verb
    of its own, is a determiner even when the noun can be a verb ("I found that work at home is tiring" is
    a conjunction, "desserts that work for everyone" a relative)."""
    before, following = text[: match.start()].split(), text[match.start() :].split()[1:]
    after = following[0].lower().strip(".,!?;:") if following else ""
    if not before or not after or not following[0][0].islower() or after in _NOT_A_NOUN or not english.is_noun(after):
        return False
    if english.verb_tag(after) in ("VBZ", "VBD"):  # "a course that combines …": a relative
        return False
    prev = before[-1].lower()
    # the user's own verb ("User loves that band"), or a verb that is no plural noun ("candles that sell")
    verb = before[-2:-1] == ["User"] or (bool(english.verb_tag(prev)) and not english.is_plural_noun(prev))
    if prev not in english.PREPOSITIONS and not verb:
        return False
    clause = " ".join(following[1:]) if not following[0].endswith(",") else ""
    words = clause.split(",")[0].split()
    return not any(w in ("is", "are", "was", "were") or english.verb_tag(w) in ("VBZ", "VBD") for w in words)


_NOT_A_NOUN = frozenset("the a an their his her its our my they he she it we i you user's not also really just".split())
_VERB_AFTER_USER = re.compile(r"^\s+(?:\w+ly\s+)*(?P<verb>[a-z][a-z'’-]*)")


# "Tomas, User's neighbour, has …", "Pad thai is a favourite of the user's": the user's own, named
# or what the user has, said of a thing ("Cooking and baking are User's creative outlets", "Writing has always
# been a passion of the user's"), or what a thing is to the user ("This film is special to the user",
# "The cabin means a lot to the user")
_APPOSITIVE = re.compile(r"^[A-Za-z][a-z]+, (?:User's|the user's) [\w -]{2,30}, |\b[a-z]+s? of the user's\b|"
                         r"\b(?:is|are|was|were|been) (?:\w+ly )?(?:one of )?(?:User's|the user's) [a-z]|"
                         r"\b(?:is|are|was|were|means|meant) (?:\w+ly |so |very )?(?:special|important|dear|precious|"
                         r"a lot|everything|the world) to the user\b")


# Who may do something to the user in a fact about them: a person ("Someone wrote the user a letter", "A
# stranger gave the user a lift") or a body that decides ("A publisher offered the user a contract").
_AGENTS = frozenset({*english.PEOPLE, *"someone somebody stranger nurse surgeon vet landlord landlady reader "
                     "fan producer agent recruiter editor publisher company school university hospital "
                     "team club council bank gallery studio".split()})


def _user_object(text: str) -> bool:
    """The user, or something of theirs, is the object of the opening clause's verb, done by a person or a
    body: "Someone wrote the user a letter", "The doctor put the user on statins", "The doctor found a murmur
    in User's heart". "Music helps the user relax" names no one."""
    tokens = text.split(",", 1)[0].split(" ")[:10]
    at = next((i for i in range(1, len(tokens) - 1) if tokens[i:i + 2] == ["the", "user"]), None)
    if at is not None and english.verb_tag(tokens[at - 1].lower()):
        subject = [t.lower() for t in tokens[: at - 1]]
    else:
        verb = next((i for i, t in enumerate(tokens[:4]) if i and english.verb_tag(t) in ("VBD", "VBZ")), None)
        owned = tokens.index("User's", verb) if verb is not None and "User's" in tokens[verb + 1:] else None
        # "The vet says User's cat has …" reports a clause: its own verb follows the thing of the user's
        if owned is None or any(english.verb_tag(t) in ("VBZ", "VBD") for t in tokens[owned + 2:]):
            return False
        subject = [t.lower() for t in tokens[:verb]]
    if subject in (["someone"], ["somebody"]):
        return True
    return 2 <= len(subject) <= 3 and subject[0] in ("a", "an", "the") and subject[-1] in _AGENTS


def _subject_ok(text: str) -> bool:
    if _user_subject(text) or _APPOSITIVE.search(text) or _user_object(text):
        return True
    named = _NAMED.match(text)  # a name, then its verb or what it has: "Melanie adopted …", "Ana's son …"
    if not named or not (named.group("more") or "(the user's" in text[:80] or looks_like_name(named.group("name"))):
        return False
    said = named.group(0).split(" ")[-2:]  # the verb may follow an adverb: "Amara just bought …"
    return any(english.verb_tag(w) for w in said if w.islower()) or "'s " in named.group(0)


_CUT_OFF = frozenset("at the a an and or their".split())  # no line ends on these


def problem(content: str) -> str:
    """The name of the first rule a fact line breaks ('' when none does)."""
    text = " ".join(content.replace("’", "'").split()).rstrip(".!;, ")
    # "User is , and …", "User is a student at": a word is missing (a placeholder left out, a line cut off)
    if len(words(text)) < MIN_WORDS or " ," in text or text.rsplit(" ", 1)[-1].lower() in _CUT_OFF:
        return "fragment"
    if not _subject_ok(text):
        return "not about the user or a named person"
    if text.startswith("User's ") and not english.states_something(text.split(" ")[1:]):
        return "states nothing"  # "User's childhood dog": a thing named, nothing said of it
    if _YOU.search(text):
        return "speaks to the other person"
    if _points_outside(text):
        return "points outside the line"
    user = _USER.match(text)
    # only the verb slot is checked: after "User's" stands a noun ("favourite", "sister-in-law", "stepdad")
    owned = user is not None and text[: user.start("after")].endswith("'s")
    verb = _VERB_AFTER_USER.match(user.group("after")) if user and not owned else None
    if verb and not is_english_word(verb.group("verb")):
        return "not a word"
    return ""


def is_precise(content: str) -> bool:
    """A line that breaks none of the named rules (what reached a page was judged when it was captured)."""
    return not problem(content)
