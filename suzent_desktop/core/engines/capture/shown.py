"""What the user shows or points at, said as what they do with it or have.

"There's a bakery near my flat that I love", "Here's the cake I made for my son's birthday", "Look at this
scarf I knitted!": the thing there is, or shown, is the object of the user's verb ("User loves a bakery near
their flat", "User made a cake for their son's birthday"). "Here's my latest painting" says the user has it,
which is what a next "It's a portrait of …" is about.
"""

from __future__ import annotations

import re

from suzent_desktop.core.files.language import english

# "There's a bakery near my flat that I love", "There's this quote I keep on my desk": what there is is the
# object of what the user does with it ("User loves a bakery near their flat"). So is what the user shows:
# "Here's the cake I made for my son's birthday", "Look at this scarf I knitted!".
_THERE_IS_WHAT_I = re.compile(
    r"^(?:(?:There|Here)(?:'s|’s| is| are)|This is|These are|Check out|Look at)"
    r"\s+(?P<thing>(?:a|an|this|these|some|one|my|our|the|another)\s[^,;:]*?)\s+(?:that\s+|which\s+)?"
    r"(?P<who>I|we)\s+(?P<adverbs>(?:[a-z]+ly\s+|just\s+|still\s+|often\s+)*)(?P<verb>[a-z]+)"
    r"(?P<prep>\s+(?:to|at|with|for|on|in|about|from|of)\b)?(?P<rest>.*)$")


# "This photo is from our trip to Iceland", "This was taken at my cousin's wedding": the user has a picture of
# their own trip or day, which says they were there ("User has a photo from their trip to Iceland").
_PICTURE_WORDS = ("photo", "pic", "picture", "shot", "snap", "one", "is", "was", "taken")


def _picture_of_mine(sentence: str) -> str | None:
    """What of the user's a picture is from ("our trip to Iceland"), or None."""
    words = sentence.split(" ")
    if len(words) < 4 or words[0].lower() not in ("this", "that", "the"):
        return None
    at = next((i for i, word in enumerate(words[1:], 1) if word not in _PICTURE_WORDS), len(words))
    said = words[1:at]
    if at >= len(words) - 1 or not {"is", "was"} & set(said) or words[at] not in ("from", "at", "on", "in", "during"):
        return None
    own = words[at + 1:]
    return " ".join(own) if own and own[0].lower() in ("my", "our") else None


def as_done(sentence: str) -> str:
    """"Here's the cake I made for my son's birthday" as "I made a cake for my son's birthday": what is shown
    or there is, as the object of what the user does with it; any other sentence as said."""
    picture = _picture_of_mine(sentence.strip())
    if picture:
        return f"I have a photo from {picture}"
    said = _THERE_IS_WHAT_I.match(sentence.strip())
    if not said or not english.verb_tag(said.group("verb")):
        return sentence
    if sentence.strip().lower().startswith(_SHOWING) and english.verb_lemma(said.group("verb").lower()) not in _DONE:
        return sentence  # "Here's a photo of a lake I found online": the world's, nothing the user did
    prep, rest = said.group("prep") or "", said.group("rest")
    next_word = next(iter(english.words(rest.lower())), "")
    dated = next_word in english.CALENDAR and prep.strip() in ("in", "on")  # "… I planted in May"
    if prep and next_word and (dated or (next_word not in _TIME_LEADS and next_word not in english.CALENDAR)):
        prep, rest = "", prep + rest  # "some things I miss about Berlin": "about" goes with what follows
    det, _, noun = _depicted(said.group("thing"), said.group("verb")).partition(" ")
    if det in ("the", "this", "these"):  # a shown thing is any such thing: "a cake", "cookies"
        plural = (det == "these" or (det == "the" and " are " in f"{sentence[: said.start('thing')]} ")
                  or english.is_plural_noun(noun.split()[-1]))  # "a pic of the cookies I baked"
        det = "" if plural else english.indefinite_article(noun)
    thing = f"{det} {noun}".strip()
    return f"{said.group('who')} {said.group('adverbs')}{said.group('verb')}{prep} {thing}{rest}"


def shown_thing(sentence: str) -> str | None:
    """The thing the user shows with what they do with it ("recipe" of "Here's another recipe I like"): what a
    next "It's a …" is, whatever the verb."""
    said = _THERE_IS_WHAT_I.match(sentence.strip())
    if not said or not english.verb_tag(said.group("verb")) or not sentence.strip().lower().startswith(_SHOWING):
        return None  # (what "there is" is no thing of the user's: "User's bakery" would say so)
    return _depicted(said.group("thing"), said.group("verb")).partition(" ")[2] or None


# "Here's a pic of a cake I made": the user made the cake, and the cake is what a next "It's …" is; "a photo of
# the lake I took" (or found online) is the photo's.
_PICTURES = ("pic of ", "pics of ", "photo of ", "photos of ", "picture of ", "pictures of ", "snap of ", "shot of ")
# The verbs that make a thing: a picture of it shows it ("Here's a pic of a cake I baked").
_CRAFTING = frozenset("make bake cook build knit sew paint draw plant grow brew create design decorate craft".split())
# The verbs by which a thing becomes the user's: what a later "it" is ("I bought a Vespa. I'm restoring it").
MAKING = _CRAFTING | frozenset("write buy get have own start finish adopt record move rent".split())
# What the user shows is news of theirs when they made, got or took it ("Here's the dress I bought for the
# wedding"); a thing they found, saw or like is the world's.
_DONE = MAKING | frozenset("take snap shoot capture win".split())


def _depicted(thing: str, verb: str) -> str:
    """What a picture shows, when the user's verb made it rather than the picture ("a cake" of "a pic of a cake I
    made"); else the thing as said."""
    det, _, rest = thing.partition(" ")
    picture = next((p for p in _PICTURES if rest.startswith(p)), None)
    shows = rest[len(picture):] if picture else ""
    if not shows or english.verb_lemma(verb.lower()) not in _CRAFTING or shows.split(" ", 1)[0] not in (
            "a", "an", "the", "this", "my", "our"):
        return thing
    return shows


_TIME_LEADS = frozenset("every each most on last this next once twice daily weekly before after when".split())


# "Here's my latest painting. It's a portrait of my gran": what the user shows is theirs, and what the
# next sentence's "It" is ("User's latest painting is a portrait of their gran").
_SHOWING = ("here's ", "here’s ", "here is ", "this is ", "these are ", "check out ", "look at ", "meet ")


def as_had(sentence: str) -> str:
    """"Here's my latest painting" read as "I have my latest painting", only to find what later "it" is."""
    lowered = sentence.strip().lower()
    opening = next((o for o in _SHOWING if lowered.startswith(o)), None)
    rest = sentence.strip()[len(opening):] if opening else ""
    return f"I have {rest}" if rest.lower().startswith(("my ", "our ")) else ""
