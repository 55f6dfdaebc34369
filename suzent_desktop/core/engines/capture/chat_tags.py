"""The chat's tags at the end of a line ("lol", "haha", "for sure", "…, can't wait!"): one part of the offline
extractor. They say how the user felt while typing, not what is so, and a fact line reads without them.
"""

from __future__ import annotations

_CHAT_TAGS = frozenset("lol tbh btw lmao lmfao rofl imo xd xx wtf".split())
_CHAT_TAG_PHRASES = frozenset({"for sure", "for real", "by the way", "just saying"})
# said after a comma, a remark of the moment: "We're off to Lisbon next week, can't wait!"
_COMMA_TAG_PHRASES = frozenset({"cannot wait", "no pressure", "fingers crossed", "wish the user luck"})


def _is_chat_tag(word: str) -> bool:
    """"lol", "btw", and laughter in any spelling: "hahaha", "jaja", "hehe", "kkkk"."""
    return word in _CHAT_TAGS or len(word) > 1 and any(set(word) <= set(laugh) for laugh in ("ha", "ja", "he", "k"))


def without_chat_tags(line: str) -> str:
    """A line without the chat's tags at its end ("… got food poisoning on day 3 lol", "…, haha", "… for sure",
    "… the school run 😩")."""
    words = line.split(" ")
    while len(words) > 1 and (_is_chat_tag(words[-1].strip(",.!?").lower()) or not any(c.isalnum() for c in words[-1])):
        words.pop()
    for size in (2, 3, 4):  # "The Wolves are my team for sure", "User is 42, by the way", "…, can't wait!"
        tag = " ".join(words[-size:]).strip(",.!?").lower()
        if len(words) > size + 1 and (tag in _CHAT_TAG_PHRASES
                                      or tag in _COMMA_TAG_PHRASES and words[-size - 1].endswith(",")):
            del words[-size:]
            break
    return " ".join(words).rstrip(",;:! ")
