"""An answer that leaves out what the question before it named.

"How long have you been playing the piano?" — "I've been playing for about four months now": the
user does not say the piano again, because the question just did. Read alone, the line says nothing
("User has been playing for about four months now"), and the judge rightly drops it. A person
reading the conversation fills the object in, and so does this, for one shape only: the answer
repeats the question's verb, and nothing stands where the object would (the sentence ends, or a time
or company follows: "for", "every", "since", "with" …). The question is the last one the
assistant asked before the turn (the capture service reads it from the kept transcript).

An answer's "it" is the thing of the user's that the question named: after "What's your new novel
about?", "It's about a lighthouse keeper" is about the new novel (the offline extractor names it as
it names a thing the user's own last sentence got or made).

An answer to "What's your favourite …?" often names it and nothing else: "Definitely Star Wars!", or
praises it ("Dune and Hyperion are amazing"). The answer then says what the user's favourite is
(:func:`favourite_named`). So does an answer that names only the thing a "What … do you play?" or "Do you
have any pets?" asked for: "The cello." (:func:`thing_answered`).
"""

from __future__ import annotations

from dataclasses import dataclass

import lemminflect

from suzent_desktop.core.engines.capture import subjectless
from suzent_desktop.core.files.language import english

MAX_OBJECT_WORDS = 5
MAX_THING_WORDS = 3
# between "you" and the verb of the question: "have you been playing", "do you still play"
_BEFORE_VERB = english.MODALS | english.PAST_AUXILIARIES | english.PRESENT_AUXILIARIES | frozenset(
    "have has been ever still usually often currently also really even always".split())
_AUXILIARY_VERBS = frozenset("be do".split())  # "Have you been to Rome?" asks no doing
# words that close a question without being its object: "… the piano again?", "… these days?"
_TRAILING = ("again", "now", "lately", "nowadays", "these days", "anymore", "yet", "then", "still", "too",
             "so far", "today", "recently", "currently", "at the moment", "right now", "at all", "before", "ever")
# "Did you enjoy it?", "… on any projects?": no thing to fill in; "… with you?": not the user's
_NOT_AN_OBJECT = frozenset("it that this them these those one him her any anything something some you yourself "
                           "yours".split())
# "What kind of projects are you working on with them?": the question's object stands before its verb
_ASKS_FOR_THE_OBJECT = frozenset("what which who whom whose".split())
# what may follow the verb where the object was left out: a time, a manner, a place, a companion
_AFTER_ELLIPSIS = frozenset(
    "for since every each about almost nearly over twice once daily weekly most now lately whenever when until "
    "with a".split())  # not "on", "in", "at": "I've never gone on a fishing trip" says its own where
_A_AMOUNT = frozenset("lot bit few couple little".split())  # "I play a lot": "a" is no object here
_UNITS = frozenset("times days hours years months weeks nights mornings evenings minutes".split())
_REPLY_OPENINGS = frozenset("yeah yes yep yup no nope well oh so honestly actually and but".split())


@dataclass(frozen=True)
class Asked:
    """What the assistant's last question asked the user about: a doing (its verb and object), a thing of
    the user's it names ("your new novel"), or both."""

    verb: str = ""  # the verb's plain form ("play"); "" when the question asks about no doing
    what: str = ""  # its object as the user would say it ("the piano"; "your guitar" → "my guitar")
    thing: str | None = None  # "new novel" of "What's your new novel about?": what the answer's "it" is
    favourite: str = ""  # "favorite fantasy movies" of "Do you have any favorite fantasy movies?"
    saying: str = ""  # "I play" of "What instrument do you play?": what an answer naming only a thing completes
    only_yes: bool = False  # "Do you have any pets?": only an answer opening with "yes" says the user has


def asked_of(assistant_text: str) -> Asked | None:
    """What the assistant's last question asks about, when it names a doing's object or a thing of the
    user's; else None."""
    questions = [s for s in english.sentences(assistant_text) if s.rstrip().endswith("?")]
    if not questions:
        return None
    question = questions[-1].rstrip("?!. ")
    for ending in _TRAILING:
        if question.lower().endswith(" " + ending):
            question = question[: -len(ending) - 1]
    words = question.split()
    lowered = [w.lower().strip(",") for w in words]
    verb, what, thing, favourite = *_doing(words, lowered), _thing(lowered), _favourite(words, lowered)
    saying, only_yes = _saying(lowered)
    return Asked(verb, what, thing, favourite, saying, only_yes) if verb or thing or favourite or saying else None


_TENSE_OF = {"do": "VBP", "does": "VBP", "did": "VBD", "are": "VBG", "were": "VBG"}
_SOME = frozenset("any a an some".split())


def _saying(lowered: list[str]) -> tuple[str, bool]:
    """What the user says when they answer with the thing alone: "I play" of "What instrument do you
    play?", "I listen to" of "What kind of music do you listen to?", "I am reading" of "What are you
    reading?", "I have" of "Do you have any pets?" (then only after a yes); ("", False) for any other
    question, or one that names its own object ("What did you name him?")."""
    if "you" not in lowered or lowered.index("you") < 1:
        return "", False
    at = lowered.index("you")
    tense = _TENSE_OF.get(lowered[at - 1])
    opener = lowered[0]
    if tense is None or not (opener in ("what", "which") or (at == 1 and opener in ("do", "did"))):
        return "", False
    rest = lowered[at + 1:]
    while rest and rest[0] in _BEFORE_VERB - {"have", "has", "been"}:
        rest = rest[1:]  # "do you usually play"
    verb = english.verb_lemma(rest[0]) if rest else ""
    if not verb or verb in _AUXILIARY_VERBS or (tense == "VBG") != rest[0].endswith("ing"):
        return "", False
    after = rest[1:]
    yes = opener in ("do", "did")
    if yes and not (after and after[0] in _SOME and 2 <= len(after) <= 1 + MAX_THING_WORDS):
        return "", False  # "Do you have any pets?": a thing of some kind is asked for
    if not yes and not (not after or (len(after) == 1 and after[0] in english.PREPOSITIONS)):
        return "", False  # "What do you play?", "… listen to?": nothing stands where the answer goes
    said = "am " + rest[0] if tense == "VBG" else (verb if tense == "VBP" else english.verb_form(verb, "VBD") or verb)
    return " ".join(["I", said, *([] if yes else after)]), yes


_HOW_MUCH = frozenset("mostly mainly usually".split())  # "Mostly old soul records": the thing is what follows


def thing_answered(sentence: str, asked: Asked | None) -> str | None:
    """The answer as a statement when it only names the thing asked for: "The cello." after "What
    instrument do you play?" → "I play the cello."; "Yes, two cats named Salt and Pepper" after "Do you
    have any pets?" → "I have two cats named Salt and Pepper."; a no, a verdict or a sentence with its own
    verb names nothing."""
    if asked is None or not asked.saying:
        return None
    words = sentence.strip().rstrip(".!?…").split()
    said_yes = bool(words) and words[0].lower().strip(",!") in ("yes", "yeah", "yep", "yup")
    while words and words[0].lower().strip(",!") in _ANSWER_OPENINGS | _HOW_MUCH:
        words = words[1:]
    text = _first_part(" ".join(words))
    for closing in _ANSWER_CLOSINGS:
        text = text.removesuffix(" " + closing)
    words = text.split()
    if (asked.only_yes and not said_yes) or not 0 < len(words) <= 2 * MAX_THING_WORDS:
        return None
    lowered = [w.lower().strip("\"'“”") for w in words]
    if lowered[0] in _NOT_AN_OBJECT | {"i", "we", "no", "not", "nope"} or any(w in _NOT_AN_ANSWER for w in lowered):
        return None
    if any(english.verb_tag(w) in ("VBD", "VBZ", "VBP") and w not in ("named", "called") and w.islower()
           and not english.is_noun(w) for w in lowered[1:]) or english.verb_tag(lowered[0]) in ("VBD", "VBZ", "VBG"):
        return None  # "Went to Cork", "Maya is 8", "Trying out new flavours": a statement or a doing, not a thing
    if lowered[0] in subjectless.DETERMINERS:
        text = text[0].lower() + text[1:]  # "The cello." → "I play the cello."
    return f"{asked.saying} {text}."


def _first_part(text: str) -> str:
    """The words before the first comma outside quotes ("Liverpool, since I was a kid" → "Liverpool")."""
    quoted = False
    for at, char in enumerate(text):
        if char in "\"“”":
            quoted = not quoted
        elif char == "," and not quoted:
            return text[:at].strip()
    return text.strip()


def _doing(words: list[str], lowered: list[str]) -> tuple[str, str]:
    """(verb, object) of what the question asks the user about doing, or ("", "")."""
    if "you" not in lowered:
        return "", ""
    at = lowered.index("you") + 1
    while at < len(words) and lowered[at] in _BEFORE_VERB:
        at += 1
    if at < len(words) and not english.verb_lemma(lowered[at]) and lowered[at - 1] in ("had", "has", "have"):
        at -= 1  # "How long have you had your turtles?": "had" is the verb
    verb = english.verb_lemma(lowered[at]) if at < len(words) else ""
    rest = words[at + 1:]
    if not verb or verb in _AUXILIARY_VERBS or not rest or len(rest) > MAX_OBJECT_WORDS:
        return "", ""
    if lowered[0] in _ASKS_FOR_THE_OBJECT or any(w in _NOT_AN_OBJECT for w in lowered[at + 1:]):
        return "", ""
    return verb, " ".join("my" if w.lower() == "your" else w for w in rest)


def _thing(lowered: list[str]) -> str | None:
    """The thing of the user's a question names with "your" ("What's your new novel about?" → "new
    novel"): up to three words, ending before a verb, a preposition or the question's end."""
    if "your" not in lowered:
        return None
    named = []
    for word in lowered[lowered.index("your") + 1:][:MAX_THING_WORDS + 1]:
        bare = word.strip(",;:")
        if not bare.isalpha() or bare in english.PREPOSITIONS or english.verb_tag(bare) in ("VBG", "VBD", "VBZ"):
            break
        named.append(bare)
    return " ".join(named) if 0 < len(named) <= MAX_THING_WORDS else None


_FAVOURITE = frozenset({"favorite", "favourite"})
_SORTS = frozenset("kind type sort style genre".split())
_KIND_ENDS = frozenset("you as that which so too right now or".split())


def _favourite(words: list[str], lowered: list[str]) -> str:
    """What a question asks the user's favourite of, with its word ("What's your favorite genre?" →
    "favorite genre"; "Do you have any favourite books you love?" → "favourite books"); "" when it asks
    none, or asks someone else's."""
    at = next((i for i, word in enumerate(lowered) if word in _FAVOURITE), None)
    if at is None or not {"you", "your"} & set(lowered[:at]):
        return ""
    kind: list[str] = []
    after = lowered[at + 1:at + 2 + MAX_THING_WORDS]
    for word in after:
        bare = word.strip(",;:")
        if not bare.isalpha() or bare in english.PREPOSITIONS or bare in _KIND_ENDS or (
                english.verb_tag(bare) in ("VBG", "VBD", "VBZ") and not english.is_noun(bare)):
            break  # "books" and "films" are things here, not doings
        kind.append(bare)
        if bare != word:
            break  # "superhero, or …"
    joined = after[len(kind):len(kind) + 1]
    if len(after) > len(kind) + 1 and (joined == ["to"] or (joined == ["of"] and kind and kind[-1] in _SORTS)):
        kind += after[len(kind):len(kind) + 2]  # "favorite sport to watch", "favorite kind of music"
    said = [word.strip(",;:?") for word in words[at + 1:at + 1 + len(kind)]]  # as asked: "TV series"
    return " ".join([lowered[at], *said]) if 0 < len(kind) <= MAX_THING_WORDS + 2 else ""


_ANSWER_OPENINGS = _REPLY_OPENINGS | frozenset("definitely probably easily oh hmm ah ooh totally".split())
_ANSWER_CLOSINGS = ("for sure", "of course", "hands down", "definitely", "probably", "easily", "for me")
_JOINS = frozenset("and & or of the a".split())
_NOT_AN_ANSWER = (english.EVALUATIVE | _ANSWER_OPENINGS | frozenset(
    "thanks thank hey hi hello wow haha lol ok okay sure congrats congratulations sorry same".split())) - _JOINS
_PRAISE = english.EVALUATIVE | {"favorites", "favourites", "favorite", "favourite", "the", "my"}


def favourite_named(sentence: str, asked: Asked | None) -> str | None:
    """The user's favourite as a statement, when the sentence answers a favourite question by naming it:
    "Definitely Star Wars!" after "Do you have any favorite fantasy movies?" → "My favorite fantasy movie
    is Star Wars."; "Dune and Hyperion are amazing" after "… favourite books?" → "My favourite books are
    Dune and Hyperion.". Names only (capitalised or quoted words): "Yes, they are" names nothing."""
    if asked is None or not asked.favourite:
        return None
    words = sentence.strip().rstrip(".!?…").split()
    while words and words[0].lower().strip(",!") in _ANSWER_OPENINGS:
        words = words[1:]
    text = " ".join(words).rstrip(",")
    for closing in _ANSWER_CLOSINGS:
        text = text.removesuffix(" " + closing).removesuffix(",")
    words = text.split()
    verb = next((i for i, word in enumerate(words) if word in ("is", "are")), None)
    if verb is not None:
        if not words[verb + 1:] or words[verb + 1].lower().strip(",!") not in _PRAISE:
            return None
        words = words[:verb]
    if not 0 < len(words) <= 2 * MAX_THING_WORDS or not all(_named(word) or word.lower() in _JOINS for word in words):
        return None
    if english.verb_tag(words[0].lower().strip(",")) == "VBG":
        return None  # "Reading, for sure": a doing, capitalised only as the sentence's first word
    if any(word.lower().strip(",") in _NOT_AN_ANSWER for word in words):
        return None  # "Thanks, Nate!" names the listener, no favourite
    several = any(word.lower() in ("and", "&") for word in words) or words[-1].endswith(",")
    word, *kind = asked.favourite.split()
    noun = kind.index("to") - 1 if "to" in kind else len(kind) - 1  # "sports" of "sports to watch"
    if kind and not several:
        kind[noun] = lemminflect.getLemma(kind[noun], upos="NOUN")[0]  # one named: "favorite movie", not "movies"
    return f"My {' '.join([word, *kind])} {'are' if several else 'is'} {' '.join(words).strip(',')}."


def _named(word: str) -> bool:
    bare = word.strip(",\"'“”")
    return bool(bare) and (bare[0].isupper() or bare[0].isdigit()) and bare.lower() not in ("i", "i'm", "it", "that")


def completed(sentence: str, asked: Asked | None) -> str:
    """``sentence`` with the question's object after its own use of the question's verb, when the user
    left it out: "I've been playing for about four months" → "I've been playing the piano for about four
    months". Any other sentence comes back as it was."""
    if asked is None or not asked.verb:
        return sentence
    words = sentence.split(" ")
    start = _subject_at(words)
    if start is None:
        return sentence
    for at, word in enumerate(words[start + 1: start + 4], start=start + 1):
        bare = word.rstrip(".,!?;:")
        if english.verb_lemma(bare) != asked.verb:
            continue
        following = [w.lower().strip(".,!?;:") for w in words[at + 1: at + 3]]
        if bare == word and following:  # something follows the verb in its clause
            if following[0] in ("it", "them") and asked.what.split()[0].lower() not in english.PREPOSITIONS:
                said = words[at + 1]  # "How long have you had your turtles?" "I've had them for 3 years"
                return " ".join([*words[: at + 1], asked.what + said[len(said.rstrip(".,!?;:")):], *words[at + 2:]])
            if not _object_left_out(following, asked.what):
                return sentence
        return " ".join([*words[:at], bare, asked.what + word[len(bare):], *words[at + 1:]])
    return sentence


def _object_left_out(following: list[str], what: str) -> bool:
    """Whether the (up to two) words after the answer's verb stand where its object was left out: a time,
    an amount or a companion ("for four months", "three times", "a lot", "with my brother"), not the
    object's own first word said again ("Are you working with Ana?" "I work with Tom now")."""
    first = following[0]
    if first == what.split()[0].lower():
        return False
    if first == "a":
        return len(following) > 1 and following[1] in _A_AMOUNT
    return first in _AFTER_ELLIPSIS or _a_count(following)


def _a_count(words: list[str]) -> bool:
    """"three times", "2 hours": how often or how long, never the object."""
    return len(words) == 2 and (words[0].isdigit() or words[0] in english.COUNT_WORDS) and words[1] in _UNITS


def _subject_at(words: list[str]) -> int | None:
    """Where "I" or "we" opens the statement, after what only opens a reply ("Yeah, I've been …",
    "Oh yes, I play …"); None when the sentence is not the user's own statement."""
    for at, word in enumerate(words[:4]):
        if word.lower().replace("’", "'") in english.FIRST_PERSON_OPENINGS:
            return at
        if not (word.endswith(",") or word.lower().strip(",!") in _REPLY_OPENINGS):
            return None
    return None


# "Guess what I bought? A 1967 Mustang!", "You know what I love? Gardening.": the user asks and answers at once.
_TEASERS = (["guess"], ["you", "know"], ["and", "guess"])
_ASKED_THINGS = frozenset("what who".split())
_NO_ANSWER = frozenset("i i'm we we're he she they it it's you that this yes no when because if how why where".split())
_LOWERED = frozenset("a an the my our some".split())


def self_answered(pieces: list[str]) -> list[str]:
    """The sentences with a question the user answers at once said as one statement ("I bought a 1967 Mustang")."""
    out: list[str] = []
    for piece in pieces:
        asked = _teased(out[-1]) if out else None
        words = piece.rstrip(".!").split()
        if asked and words and words[0].lower() not in _NO_ANSWER and len(words) <= 15 and not piece.endswith("?"):
            first = words[0].lower() if words[0].lower() in _LOWERED or english.verb_tag(words[0]) == "VBG" else words[0]
            out[-1] = f"{asked} {' '.join([first, *words[1:]])}."
        else:
            out.append(piece)
    return out


def _teased(question: str) -> str | None:
    """"I bought" of "Guess what I bought?", or None when the sentence is no such question."""
    if not question.rstrip().endswith("?"):
        return None
    words = question.rstrip(" ?!").split()
    lowered = [w.lower() for w in words]
    lead = next((len(t) for t in _TEASERS if lowered[:len(t)] == t), None)
    if lead is None or lowered[lead:lead + 1] != [] and lowered[lead] not in _ASKED_THINGS:
        return None
    rest = words[lead + 1:]
    # the answer stands where the question's object would, right after its verb: "I ran into at the airport" is no place
    short = 2 <= len(rest) <= 3
    return " ".join(rest) if short and rest[0].lower().replace("’", "'") in english.FIRST_PERSON_OPENINGS else None


_FAVOURITE_WORDS = _FAVOURITE | {"fave"}
_ALL_TIME = (" of all time", " ever")
_NO_KIND = frozenset({"too", "also", "as well", "again", "now", "still"})


def favourite_said_after(sentence: str) -> str | None:
    """"It's honestly my favourite film of all time, Boy by Taika Waititi": the "it" is the name said after the
    comma ("My favourite film is Boy by Taika Waititi"), or None."""
    head, comma, rest = sentence.strip().rstrip(".!").partition(", ")
    words = head.split()
    if not comma or not words or words[0].lower().replace("’", "'") not in ("it's", "it") or not rest[:1].isupper():
        return None
    at = next((i for i, w in enumerate(words[:5]) if w.lower() in ("my", "our")), None)
    if at is None or at + 2 >= len(words) or words[at + 1].lower() not in _FAVOURITE_WORDS:
        return None
    noun = " ".join(words[at + 2:])
    for tail in _ALL_TIME:
        noun = noun.removesuffix(tail)
    name = rest.split(", ")[0]
    said_of = noun and len(noun.split()) <= 3 and noun.lower() not in _NO_KIND  # "my favourite too" names no kind
    return f"My favourite {noun} is {name}" if said_of else None
