"""The one rule for "is this text forgotten", used by every place that keeps forgotten text out.

The write guard (remember, capture, a model's page write), the index (rows of pages, logs and
turns), the page strip and the read doors, the dream's prompts, the ledgers and ``doctor`` all ask
:class:`Forgotten`, so a text is forgotten everywhere or nowhere.

A text is forgotten when, read loosely (case, spacing, markup, punctuation and a list item's mark
ignored), it *is* a tombstone; or, read as a list item, its bare fact (provenance dates and
strike-through left out) or, read as a pasted log line, its fact (category and tag span left out)
is one; or when a tombstone of :data:`MIN_CONTAINED` characters or more stands inside it on word
boundaries (``User's PIN is 4417`` inside a longer paragraph). A shorter tombstone ("tea") only
ever matches a whole text, or every "tea" in the vault would go with it. ``turn:ID`` tombstones
name transcript turns: only the turn's key itself matches them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from suzent_desktop.core.files.records.log_grammar import parse_fact_line
from suzent_desktop.core.files.records.tombstones import normalize
from suzent_desktop.core.vault.facts.fact_bullets import item_fact, list_item_text

MIN_CONTAINED = 12  # in its loose form; shorter tombstones inside longer text are too likely coincidences
TURN_KEY = "turn:"
_NOT_WORD = re.compile(r"[\W_]+")
_LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")

T = TypeVar("T")


def loose(text: str) -> str:
    """Words only, lower case, one space apart: markup, punctuation and spacing cannot hide a match."""
    return " ".join(_NOT_WORD.sub(" ", text.lower()).split())


def item_variants(item: str) -> list[str]:
    """A list item as written, and the bare fact without provenance dates or strike-through."""
    variants = [item]
    bare = item_fact(item).text
    if bare and bare != item:
        variants.append(bare)
    return variants


class Forgotten(frozenset[str]):
    """The live tombstones (normalized, as ``Tombstones.contents`` gives them) and the rule above.

    Still a set of tombstones (``digest``, ``in`` and iteration see the normalized texts), so it
    can be handed wherever the tombstones were; ask :meth:`holds` whether a text is forgotten.
    """

    _whole: dict[str, str]
    _words: dict[str, frozenset[str]]  # each loose form with its words (for :meth:`within`)
    _clued: dict[str, list[str]]  # the loose forms by their longest word: a text is checked against few
    _long: list[tuple[str, str]]
    _noted: list[str] | None

    def __new__(cls, stones: Iterable[str] = ()) -> Forgotten:
        self = super().__new__(cls, (n for n in (normalize(s) for s in stones) if n))
        self._whole = {}
        self._long = []
        self._noted = None
        for stone in self:
            if stone.startswith(TURN_KEY):
                continue
            form = loose(stone)
            if form:
                self._whole.setdefault(form, stone)
                if len(form) >= MIN_CONTAINED:
                    self._long.append((f" {form} ", stone))
        self._words, self._clued = _indexed({form: frozenset(form.split()) for form in self._whole})
        return self

    @classmethod
    def of(cls, stones: Iterable[str]) -> Forgotten:
        """``stones`` as a matcher; the last one built is reused while the tombstones are the same
        (the index asks once per file, the loose forms are worked out once per pass)."""
        if isinstance(stones, Forgotten):
            return stones
        key = frozenset(stones)
        last = _LAST[0]
        if last is None or frozenset.__eq__(last, key) is not True:
            last = cls(key)
            _LAST[0] = last
        return last

    def within(self, text: str) -> Forgotten:
        """This matcher with only the tombstones whose words stand somewhere in ``text`` (one page or
        log): the paragraphs of that text are then tested against a handful, most against none (the
        words of a paragraph, an item's bare fact or a log line's fact all stand in the page)."""
        if not self._whole:
            return self
        words = set(loose(text).split())  # (words, not runs: the lines left of a list need not stand together)
        whole = {form: self._whole[form] for word in words for form in self._clued.get(word, ())
                 if self._words[form] <= words}
        long = [(f" {form} ", stone) for form, stone in whole.items() if len(form) >= MIN_CONTAINED]
        return self._copy(whole, long, self._noted)

    def noting(self, found: list[str]) -> Forgotten:
        """This matcher, appending to ``found`` each text it finds forgotten (the index learns that a
        page still holds forgotten text while it chunks the page, without reading it twice)."""
        return self._copy(self._whole, self._long, found)

    def _copy(self, whole: dict[str, str], long: list[tuple[str, str]], noted: list[str] | None) -> Forgotten:
        copy = frozenset.__new__(Forgotten, self)
        copy._whole, copy._long, copy._noted = whole, long, noted
        copy._words, copy._clued = _indexed({form: self._words[form] for form in whole})
        return copy

    def names(self, text: str) -> str | None:
        """The tombstone ``text`` is as a whole (a paragraph, an item, a fact line, a turn's key), else None."""
        return self._named(text)[0]

    def stone_in(self, text: str) -> str | None:
        """The tombstone that makes ``text`` forgotten: the one it is, else a long one inside it; else None."""
        stone, form = self._named(text)
        if stone is None and self._long:
            padded = f" {form} "
            stone = next((stone for long, stone in self._long if long in padded), None)
        if stone is not None and self._noted is not None:
            self._noted.append(text)
        return stone

    def _named(self, text: str) -> tuple[str | None, str]:
        """(the tombstone ``text`` is, its loose form with a list mark left out)."""
        if not self:
            return None, ""
        norm = normalize(text)
        if norm in self:
            return norm, ""
        if not self._whole:  # (narrowed to a page that holds none of them)
            return None, ""
        forms = [loose(_LIST_MARK.sub("", text, count=1))]
        if "\n" not in text.strip():
            item = list_item_text(text)
            if item is not None:
                forms += [loose(v) for v in item_variants(item)[1:]]
            fact = parse_fact_line(text.strip()) if text.lstrip().startswith(("-", "*", "+")) else None
            if fact is not None:
                forms.append(loose(fact.content))
        return next((self._whole[f] for f in forms if f in self._whole), None), forms[0]

    def shown_in(self, text: str) -> str | None:
        """The tombstone an index row's ``text`` shows: the text held whole, or one of its paragraphs or
        list items held (the pieces the index leaves out, ``core/index/rows/chunking.py``); else None."""
        narrowed = self.within(text)
        items = (line for line in text.split("\n") if list_item_text(line) is not None)
        return next((s for s in map(narrowed.stone_in, [text, *text.split("\n\n"), *items]) if s), None)

    def clues(self) -> list[str]:
        """One word of each tombstone (its longest): a text in which none of them stands holds no
        tombstone, so a table of texts can be narrowed before the rule is asked about each."""
        return sorted(self._clued)

    def keyed(self, key: Callable[[str], str]) -> dict[str, str]:
        """The tombstones by ``key`` of their text: the index lists the pieces a row stands for (its
        paragraphs and items as written, a turn's key) by such keys, and a piece that *is* a
        tombstone is forgotten."""
        return {key(stone): stone for stone in self}

    def holds(self, text: str) -> bool:
        """Whether ``text`` is forgotten, or holds forgotten text (see the module's rule)."""
        return self.stone_in(text) is not None

    def without(self, items: Sequence[T], text: str = "content") -> tuple[list[T], int]:
        """``items`` (facts: anything with a ``content``, or the attribute ``text`` names) holding no
        forgotten text, and how many were left out."""
        kept = [item for item in items if not self.holds(str(getattr(item, text)))]
        return kept, len(items) - len(kept)

    def take_out(self, text: str, keep: Iterable[int] = ()) -> tuple[str, int]:
        """``text`` without the lines that hold forgotten text, and how many were taken out.

        A tombstone spread over several lines of one paragraph takes that paragraph out. Used on
        what a model writes or is shown, so forgotten text neither lands on a page nor reaches a
        prompt. Lines ``keep`` (0-based) stay: a caller takes them off itself, with a record undo
        can use.
        """
        keep = set(keep)
        if not self._whole:
            return text, 0
        narrowed = self.within(text)
        if not narrowed.holds(text) and not any(narrowed.holds(p) for p in text.split("\n\n")):
            return text, 0
        lines = text.split("\n")
        dead = {i for i, line in enumerate(lines) if i not in keep and narrowed.holds(line)}
        start = 0
        for i in range(len(lines) + 1):  # paragraphs still holding a stone across their lines
            if i == len(lines) or not lines[i].strip():
                block = [j for j in range(start, i) if j not in dead and j not in keep]
                if block and narrowed.holds("\n".join(lines[j] for j in block)):
                    dead.update(block)
                start = i + 1
        return "\n".join(line for i, line in enumerate(lines) if i not in dead), len(dead)


def _indexed(words: dict[str, frozenset[str]]) -> tuple[dict[str, frozenset[str]], dict[str, list[str]]]:
    """The loose forms with their words, and the forms by their longest word (the clue :meth:`Forgotten.within`
    looks them up by)."""
    clued: dict[str, list[str]] = {}
    for form, needs in words.items():
        clued.setdefault(max(sorted(needs), key=len), []).append(form)
    return words, clued


_LAST: list[Forgotten | None] = [None]
