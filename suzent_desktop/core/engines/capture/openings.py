"""How a sentence of the user's opens, and the statement without it: one part of the offline extractor.

A turn's sentences often open with words that are no part of the fact: a phrase that steers the talk
("On another note, I …"), a time said first ("Last week, I found …"), or news asked as a question ("Did I
tell you my brother …?"). The line reads without them, or with the time after the statement.
"""

from __future__ import annotations

import re

from suzent_desktop.core.engines.capture import clauses, fact_rules, family_names, named_subject, subjectless
from suzent_desktop.core.files.language import english

# An opening phrase before the user speaks ("On another note, I …", "Sadly, my dog …", "Besides writing, I
# …") is said to steer the talk: the line reads without it. An opening that holds a fact stays: the user
# or a name in it, a number, a time ("Last week,", "When I was ten,"), a cause, or a hedge the judge must see.
_OPENING = re.compile(r"^(?P<lead>[^,]{1,40}),\s+(?=(?:(?:finally|just|also|actually|so)\s+)?(?:I|I'm|I've|I'd|[Ww]e)\b|(?:[Mm]y|[Oo]ur)\b(?![^,]{1,30},))")
_OPENING_HOLDS = re.compile(
    rf"\d|(?<!^)\b[A-Z]|\b(?i:I|my|me|we|our|us|ago|last|next|later|earlier|then|now|once|after|before|since|"
    rf"during|while|when|until|because|as|maybe|perhaps|probably|if|unless|{'|'.join(english.CALENDAR)}|"
    rf"(?:{fact_rules.TIME_NOUN})s?)\b")


# Phrases that steer the talk though they say "me" ("Oh that reminds me, my brother …", "Trust me, I …").
_STEERING = ("reminds me", "trust me", "believe me", "let me tell you", "come to think of it", "if you ask me")
_NEWS_ASKED = ("did i tell you that", "did i tell you", "did i mention that", "did i mention", "have i told you that",
               "have i told you", "did you hear that", "did you hear")
# What the user asks the listener to keep in mind opens a statement of their own: "Remember that I'm allergic
# to sesame", "Don't forget I work nights". Longest first; the rest must open with who it is about.
_REMINDERS = ("please remember that", "please remember", "just remember that", "just remember", "remember that",
              "remember", "keep in mind that", "keep in mind", "bear in mind that", "bear in mind", "please note that",
              "note that", "don't forget that", "don't forget", "do not forget that", "do not forget", "for the record")
# News said with how it came or how it felt, before the user speaks without a comma: "Turns out I'm anaemic",
# "Sadly my grandad passed away on Sunday". The statement reads without it.
_NEWS_OPENINGS = ("it turns out that", "it turns out", "turns out that", "turns out", "sadly", "unfortunately",
                  "the good news is that", "the good news is", "good news is", "the best news is",
                  "i still can't believe", "i can't believe that", "i can't believe", "still can't believe",
                  "can't believe that", "can't believe", "i cannot believe",
                  "fortunately", "luckily", "thankfully", "happily")


def _told_as_question(sentence: str) -> str:
    """News asked as a question is news: "Did I tell you my brother Omar got into medical school?" states
    that he did. Without its opening, the rest is a statement like any other (its rules still judge it)."""
    lowered = sentence.lower()
    opening = next((o for o in _NEWS_ASKED if lowered.startswith(o + " ")), None)
    if opening is None:
        return sentence
    rest = sentence[len(opening):].strip().rstrip("?!. ")
    return rest + "." if len(rest.split()) >= 3 else sentence


def _reminded(sentence: str) -> str:
    """A reminder to the listener is the statement it reminds of: "Remember that I'm allergic to sesame" says
    the user is; so is news after how it came ("Turns out I'm anaemic"). "Remember when we …?" recalls a moment
    together, and stays as said."""
    lowered = sentence.lower().replace("’", "'")
    opening = next((o for o in (*_REMINDERS, *_NEWS_OPENINGS)
                    if lowered.startswith(o + " ") or lowered.startswith(o + ", ")), None)
    if opening is None:
        return sentence
    rest = sentence[len(opening):].lstrip(", ")
    first = rest.split(" ", 1)[0].lower().replace("’", "'")
    shortest = 2 if opening in _NEWS_OPENINGS else 3  # "I'm anaemic" is a statement; "me too" is not
    return rest if first in english.OWN_OPENINGS and len(rest.split()) >= shortest else sentence


_TIME_STARTS = frozenset({"on", "tomorrow", "today", "tonight", "next", "this", "in"})


def _day_of_mine(sentence: str) -> str:
    """"It's my birthday on the 20th" says when the user's birthday is: "My birthday is on the 20th" ("It was
    my daughter's first recital on Saturday": "… was on Saturday"). Only a time after the noun makes it a date
    ("It's my favourite song" stays as said)."""
    words = sentence.split(" ")
    lead = [w.lower().replace("’", "'") for w in words[:3]]
    size = 2 if lead[:1] == ["it's"] else 3 if lead[:2] in (["it", "is"], ["it", "was"]) else 0
    verb = "was" if lead[1:2] == ["was"] else "is"
    if not size or len(words) < size + 2 or lead[size - 1] not in ("my", "our"):
        return sentence
    for at in range(size + 1, min(len(words), size + 6)):
        word = words[at].lower().strip(",.!?")
        following = words[at + 1].lower().strip(",.!?") if at + 1 < len(words) else ""
        if word in _TIME_STARTS and (word != "in" or following in english.MONTHS):
            owner = words[size - 1].capitalize()
            return f"{owner} {' '.join(words[size:at])} {verb} {' '.join(words[at:])}"
        if words[at - 1].endswith(","):
            break
    return sentence


_OPENING_WORDS = 6


def _with_opening_comma(sentence: str) -> str:
    """A phrase that opens the sentence before the user speaks, said without its comma ("For the side project
    I'm building a bot", "At work we're moving to Kotlin", "When I was a kid I rode …"), read as if it had one."""
    words = sentence.split(" ")
    when = words[0].lower() in ("when", "while")  # "When I was a kid I rode …": the user speaks again after it
    doing = words[0].lower() in ("since", "after", "before") and english.verb_tag(words[1]) == "VBG"  # "Since moving …"
    if len(words) < 4 or not (when or doing or words[0].lower() in english.PREPOSITIONS | {"during", "for"}) \
            or "," in " ".join(words[:_OPENING_WORDS + 2 * when]):
        return sentence
    at = next((i for i, word in enumerate(words[1 + 2 * when:_OPENING_WORDS + 2 * when], 1 + 2 * when)
               if word.replace("’", "'").lower() in english.FIRST_PERSON_OPENINGS), None)
    return sentence if at is None else " ".join(words[:at]) + ", " + " ".join(words[at:])


def uncalled(sentence: str) -> str:
    """A word no English dictionary holds, in lower case, right before the user speaks calls the listener or
    exclaims in another language ("bhai my dad retired", "hermano we did it", "jaja I passed"): the statement
    reads without it."""
    first, _, rest = sentence.partition(" ")
    opens = rest.split(" ", 1)[0].replace("’", "'").lower()
    if first.isalpha() and first.islower() and opens in english.OWN_OPENINGS and not english.is_english_word(first):
        return rest
    return sentence


# How news reaches the user from someone they name: "my mom just texted that grandpa fell", "my sister told me
# she's pregnant". The news is the line; who passed it on is no part of it.
_REPORTING = frozenset("texted told called messaged said wrote rang phoned emailed mentioned".split())
_REPORTED_AFTER = ("me that", "me", "to say that", "to say", "that")


def reported(sentence: str) -> str:
    """The news a relative or friend passed on ("My mom just texted that grandpa fell on the ice" → "grandpa
    fell on the ice"), when it opens with who it is about (the user, someone of theirs, a family name or a
    name); any other sentence as it is."""
    words = sentence.split(" ")
    if len(words) < 5 or words[0].lower() not in ("my", "our"):
        return sentence
    at = next((i for i in range(1, 5) if words[i].lower() in _REPORTING), None) if len(words) > 5 else None
    if at is None or not all(w.lower() in english.PEOPLE or w.lower() in subjectless.LEAD_ADVERBS for w in words[1:at]):
        return sentence
    rest = " ".join(words[at + 1:])
    for after in _REPORTED_AFTER:
        if rest.lower().startswith(after + " "):
            rest = rest[len(after) + 1:]
            break
    first = rest.split(" ", 1)[0]
    opens = first.replace("’", "'").lower()
    news = (opens in english.OWN_OPENINGS or opens.split("'")[0] in family_names.FAMILY_NAMES
            or english.looks_like_name(first.rstrip(",'’s")))
    return rest if news and len(rest.split()) >= 3 else sentence


_LEAD_MAX_WORDS = 8
_EXCLAIMING = frozenset("won't wont can't believe guess know".split())  # "you won't believe it", "guess what"


def _before_named(sentence: str) -> str:
    """News of someone named after a call or an exclamation ("jaja no way, Lucía is pregnant again", "Yaw,
    you won't believe it, Kofi wants to be a pilot"): the statement reads from the name. A lead that holds a
    fact (the user, a number, a time, a cause) or says something of a name stays."""
    parts = sentence.split(", ")
    for cut in (1, 2):
        if len(parts) <= cut:
            return sentence
        lead, rest = ", ".join(parts[:cut]), named_subject.relation_first(", ".join(parts[cut:]))
        words = [w.strip(".,!?").lower() for w in lead.split()]
        if len(words) > _LEAD_MAX_WORDS or any(w in english.OWN_OPENINGS or w in clauses.SUBORDINATORS or w.isdigit() for w in words):
            return sentence
        # "Wyatt, our oldest, wants …" names who the rest is about; "Been baking every weekend, my …" is a statement
        called = len(words) > 1 and not any(english.verb_tag(w) and w not in _EXCLAIMING for w in words)
        opens_with_someone = named_subject.subject_name(rest) is not None or (rest[:3].lower() in ("my ", "our") and called)
        if opens_with_someone and named_subject.subject_name(lead) is None:
            return rest
    return sentence


def without_opening(sentence: str) -> str:
    """The sentence as the user's statement: news asked as a question asked no more, an opening that steers
    the talk left out, and an opening time said after the statement."""
    sentence = named_subject.relation_first(_before_named(sentence))
    sentence = _with_opening_comma(_day_of_mine(_reminded(_told_as_question(reported(uncalled(sentence))))))
    opening = _OPENING.match(sentence)
    lead = opening.group("lead") if opening else ""
    # "Been playing chess a lot lately, my rating is …": a statement said without its "I" is no opening
    steers = lead.lower().replace("’", "'").rstrip(" !").endswith(_STEERING)
    if not opening or (_OPENING_HOLDS.search(lead) and not steers) or subjectless.with_subject(lead) != lead:
        return _scene_after(_time_after(sentence))
    return sentence[opening.end():]


# A time that opens the sentence ("Last week, I found …", "Yesterday I tried …") is said after the
# statement, where a reader (and the judge) expect it: "User found old notebooks last week".
_TIME_OPENING = re.compile(
    rf"^(?P<time>(?:(?i:last|next|this|on|in|a|few|couple|of|ago|the|yesterday|today|tonight|earlier|\d+|"
    rf"{'|'.join(english.CALENDAR)}|(?:{fact_rules.TIME_NOUN})s?)\b ?)+),?\s+(?=(?:I|[Mm]y|[Ww]e|[Oo]ur|someone)\b)")
_A_TIME = re.compile(rf"\d|\b(?i:{'|'.join(english.CALENDAR)}|tonight|(?:{fact_rules.TIME_NOUN})s?)\b")
CLAUSE_END = re.compile(r"(?=,\s|\s(?:and|but|so|because|when|while)\s|[.!]+$|$)")


_SCENE_STARTS = frozenset("back here there since after before during in at on over through".split())
_SCENE_MAX_WORDS = 6


def _scene_after(sentence: str) -> str:
    """A place or time said first without a comma ("back in Buenos Aires I played football every Sunday",
    "since the divorce I have the children during term") is said after the statement's first clause, as
    with a comma: the line opens with the user."""
    words = sentence.split(" ")
    if not words or words[0].lower() not in _SCENE_STARTS:
        return sentence
    at = next((i for i, w in enumerate(words[1:_SCENE_MAX_WORDS + 1], 1) if w in ("I", "I'm", "I've", "I'd")), None)
    lead = words[:at] if at else []
    if not at or at < 2 or any(w.endswith((",", ";", ":")) or english.verb_tag(w.lower()) in ("VBD", "VBZ", "VBP")
                               or w.lower() in english.MODALS for w in lead[1:]):
        return sentence
    rest = " ".join(words[at:])
    end = CLAUSE_END.search(rest, len(words[at]) + 1)
    cut = end.start() if end else len(rest)
    phrase = " ".join(lead)
    return f"{rest[:cut]} {phrase[0].lower()}{phrase[1:]}{rest[cut:]}"


def _time_after(sentence: str) -> str:
    opening = _TIME_OPENING.match(sentence)
    if not opening or not _A_TIME.search(opening.group("time")):
        return sentence  # "In my free time, I …": no time was said
    time = opening.group("time").strip()
    first = time.split()[0].lower()
    if first not in english.CALENDAR or first in ("today", "tomorrow", "yesterday"):
        time = time[0].lower() + time[1:]  # "Yesterday" → "yesterday"; "Friday" keeps its capital
    elif " " not in time:
        time = f"on {time}"  # "Monday I start at Acme" → "… at Acme on Monday"
    rest = sentence[opening.end():]
    end = CLAUSE_END.search(rest, len(rest.split(" ", 2)[0]) + 1 if " " in rest else len(rest))
    cut = end.start() if end else len(rest)
    return f"{rest[:cut]} {time}{rest[cut:]}"
