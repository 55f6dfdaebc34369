"""What the user asks to be called: "Please call me Alex", "I go by Sam".

An agent that has to ask again what to call someone has forgotten the first thing they said. The request
reads as the statement it makes ("I prefer to be called Alex"), which the judge weighs like any other. "Call
me later", "call me crazy" name nobody: the word after "me" must be a name.
"""

from __future__ import annotations

from suzent_desktop.core.files.language import english

_ASKING = ("please call me ", "you can call me ", "just call me ", "call me ", "i go by ", "everyone calls me ",
           "my friends call me ", "friends call me ", "i prefer to go by ")


def as_preferred_name(sentence: str) -> str:
    """"Call me Sam, everyone does" as "I prefer to be called Sam"; any other sentence as said."""
    lowered = sentence.strip().lower()
    asking = next((a for a in _ASKING if lowered.startswith(a)), None)
    if asking is None:
        return sentence
    name = sentence.strip()[len(asking):].split(" ", 1)[0].rstrip(".,!?;:")
    if not name[:1].isupper() or name.lower() in english.STOPWORDS or not name.replace("-", "").isalpha():
        return sentence
    return f"I prefer to be called {name}."
