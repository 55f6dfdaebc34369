"""Page names a model may not give a new page: those a reader cannot tell from another name.

A link finds a page by the letters of its name, a reader by their look. A model that names a
new page ``Аnna`` (a Cyrillic А), ``Anna`` ending in U+200B (a zero-width space), ``Café`` spelled with a
combining accent beside the existing ``Café``, or hides a right-to-left override in it, makes a
page that looks like one the person has while every link and search keeps to the other: facts
land where nobody looks. So a new page's path is refused when

* it holds an invisible or formatting character (Unicode categories Cf, Cc, Co, Cn: zero-width
  spaces and joiners, direction overrides and marks, byte-order marks);
* one of its words mixes Latin, Cyrillic, Greek or Armenian letters (scripts whose letters look
  alike), while a word written wholly in one script stays welcome (``Москва``, ``Αθήνα``);
* its name reads as an existing page's once compatibility forms, case and invisible characters
  are set aside (:func:`fold`): the refusal names the page to write to instead.

A name in decomposed form (``Cafe`` and a combining accent) is not refused but read in composed
form (NFC) by the tools' path check, so it reaches the page ``Café`` rather than a second one.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

_HIDDEN = frozenset({"Cf", "Cc", "Co", "Cn"})
_LOOKALIKE_SCRIPTS = frozenset({"LATIN", "CYRILLIC", "GREEK", "ARMENIAN"})
_WORD = re.compile(r"\w+")


def fold(name: str) -> str:
    """A name as a reader sees it: compatibility forms and case folded, invisible characters left out."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return "".join(c for c in folded if unicodedata.category(c) not in _HIDDEN)


def _script(char: str) -> str | None:
    """The script of a letter among those that look alike (from its Unicode name), else None."""
    if not char.isalpha():
        return None
    first = unicodedata.name(char, "").split(" ", 1)[0]
    return first if first in _LOOKALIKE_SCRIPTS else None


def refusal(relative: str) -> str | None:
    """Why a new page may not have this vault-relative path, or None."""
    hidden = next((c for c in relative if unicodedata.category(c) in _HIDDEN), None)
    if hidden is not None:
        return (f"the name holds an invisible character (U+{ord(hidden):04X} "
                f"{unicodedata.name(hidden, 'unnamed')}); write the name with visible letters only")
    for word in _WORD.findall(relative):
        scripts = {s for s in map(_script, word) if s is not None}
        if len(scripts) > 1:
            return (f"the word {word!r} mixes {' and '.join(sorted(s.title() for s in scripts))} letters, "
                    "which look alike; write it in one script")
    return None


def twin(stem: str, names: Iterable[str]) -> str | None:
    """An existing name that reads as ``stem`` but is spelled otherwise (``names``: lower-case stems)."""
    wanted, lowered = fold(stem), stem.lower()
    return next((name for name in names if name != lowered and fold(name) == wanted), None)
