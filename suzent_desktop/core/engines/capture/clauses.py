"""The statement a sentence makes before what it goes on to say: one part of the offline extractor.

"I submitted my screenplay to a film contest just to see how others might like it" states that the user
submitted it; the rest says why, with words that point outside the line ("others", "it"). When the whole
sentence cannot stand as a line, its main statement, cut where a purpose, a reason, a relative clause or
another statement begins, still can. A condition is never cut away ("I would get a dog if I could" is no
plan), and the statement must keep a verb and a thing it is about (four words at least).
"""

from __future__ import annotations

# Where a sentence goes on past its main statement; the earliest one after the first words counts.
_GOES_ON = (" just to ", " to see ", " so that ", " because ", " since ", ", which ", " which ", ", but ", " but ",
            ", and ", ", so ", " and this ", " and that ", " and it ")
_CONDITIONS = (" if ", " unless ", " as long as ", " in case ")
MIN_WORDS = 4
# A comma before these starts a remark of its own, not an item of a list or more of the same clause
_TAIL_STARTS = frozenset("nobody everyone everybody fingers hopefully luckily sadly thankfully which it it's that's "
                         "this they he she".split())
# "My dad took me to see them": what follows an object is what the verb did with it, not a purpose
_OBJECTS = frozenset("me us him her them it".split())


def main_statement(sentence: str) -> str | None:
    """The sentence up to where it goes on past its main statement, or None when it does not (or a
    condition qualifies it)."""
    lowered = sentence.lower()
    if any(condition in f" {lowered} " for condition in _CONDITIONS):
        return None
    cuts = [at for marker in _GOES_ON if (at := lowered.find(marker)) > 0 and len(sentence[:at].split()) >= MIN_WORDS
            and lowered[:at].split()[-1] not in _OBJECTS]
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
_OWNERS = frozenset("her his its".split())
_SPEAKER_OPENERS = frozenset("i i'm i've i'd i'll we we're we've we'll my our".split())


def announced(sentence: str) -> list[str]:
    """A sentence whose statement follows a colon, ", so I" or "but", in two: "Well, I finally
    did it: I signed up for …", "Doc says it's tendinitis, so I'm doing physio", "Random, but I got my first
    sponsor". "I have two kids: Ana and Leo" stays whole: no speaker opens what follows the colon."""
    head, comma, rest = sentence.partition(", ")
    if comma and rest.lower().split(" ", 2)[1:2] == ["name"] and rest.split(" ", 1)[0].lower() in _OWNERS:
        return [head, rest]  # "we adopted a shiba inu, her name is Mochi": the name of the thing
    for mark in (": ", ", so ", " but "):
        head, found, rest = sentence.partition(mark)
        opener = rest.split(" ", 1)[0].lower()
        if rest.split(" ", 3)[1:3] in (["and", "I"], ["and", "I'm"]):  # "Good news: Aroha and I are expecting"
            opener = "i"
        # "…, so my wife made one cake": the head may be what the line needs ("Kehinde wanted a dinosaur cake")
        if found and head and opener in _SPEAKER_OPENERS and (mark != ", so " or opener[:1] in "iw"):
            return [head, *announced(rest)]
    return [sentence]
