"""The consolidated-fact bullet grammar, in one place: what a fact bullet is, its dates, and History.

A page the dream writes holds facts as list items with their provenance after them,
``- works at Contoso (2026-01-02, 2026-03-04)``, a superseded one struck through and given an end
date, ``- ~~works at Fabrikam~~ (2025-01-01, until 2026-01-02)``, and old values under a
``History`` heading. Search (the chunker), the consolidator, promotion and lint all read pages
this way, so they must agree on every line; before this module each had its own copy and they
disagreed (an ordered item was a fact for search and not for the consolidator, ``- [ ] fact``
kept its box in the consolidator's text, and ``# History`` or ``### history ###`` was history
for search but current for promotion and lint).

The rules:

* a list item is ``-``, ``*``, ``+`` or ``1.``/``1)`` followed by a space, optionally a task box
  ``[ ]``/``[x]`` (not part of the fact), then the text;
* provenance is a trailing parenthesis of ISO dates, optionally ending ``until DATE``;
* a fact struck through whole (``~~…~~``) is superseded;
* a heading titled ``History`` (any level, any case, closing ``#``s allowed) opens a section
  whose items are superseded, until a heading of the same or a higher level.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DATE = r"\d{4}-\d{2}-\d{2}"
ITEM_RE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<mark>[-*+]|\d{1,9}[.)])[ \t]+(?:(?P<task>\[[ xX]\])(?:[ \t]+|$))?(?P<body>.*)$"
)
PROVENANCE_RE = re.compile(
    rf"^(?P<text>.*?)\s*\((?P<dates>{DATE}(?:\s*,\s*{DATE})*)?(?:\s*,?\s*until\s+(?P<until>{DATE}))?\)\s*$"
)
STRUCK_RE = re.compile(r"^~~(?P<text>.+?)~~$")
HEADING_RE = re.compile(r"^(?P<level>#{1,6})\s+(?P<title>.*?)\s*#*\s*$")
HISTORY_TITLES = frozenset({"history"})


@dataclass(frozen=True)
class ListItem:
    """A list item line taken apart: ``indent``, ``mark`` (``-`` or ``1.``), ``task`` box and ``body`` as written."""

    indent: str
    mark: str
    task: str
    body: str


def list_item(line: str) -> ListItem | None:
    match = ITEM_RE.match(line)
    if not match:
        return None
    return ListItem(match.group("indent"), match.group("mark"), match.group("task") or "", match.group("body"))


def list_item_text(line: str) -> str | None:
    """The text of a list item after its marker and task box; None when the line is no list item."""
    item = list_item(line)
    return item.body if item else None


@dataclass(frozen=True)
class ItemFact:
    """A list item read as a fact: its bare text, provenance dates, end date and strike-through."""

    text: str
    dates: tuple[str, ...] = ()
    until: str | None = None
    struck: bool = False


def item_fact(item: str) -> ItemFact:
    """The fact a list item's text states (see the module's rules)."""
    bare = item.strip()
    dates: tuple[str, ...] = ()
    until = None
    match = PROVENANCE_RE.match(bare)
    if match and (match.group("dates") or match.group("until")):
        bare = match.group("text").strip()
        dates = tuple(d.strip() for d in (match.group("dates") or "").split(",") if d.strip())
        until = match.group("until")
    struck = STRUCK_RE.match(bare)
    if struck:
        bare = struck.group("text").strip()
    return ItemFact(bare, dates, until, bool(struck))


def format_fact(
    text: str, dates: list[str] | tuple[str, ...], *, until: str | None = None, struck: bool = False,
    indent: str = "", mark: str = "-", task: str = "",
) -> str:
    """A fact bullet as the consolidator writes it (the inverse of :func:`list_item` + :func:`item_fact`)."""
    shown = f"~~{text}~~" if struck else text
    parts = list(dates)
    if until:
        parts.append(f"until {until}")
    suffix = f" ({', '.join(parts)})" if parts else ""
    box = f"{task} " if task else ""
    return f"{indent}{mark} {box}{shown}{suffix}"


def heading(line: str) -> tuple[int, str] | None:
    """(level, title) of an ATX heading line, None for any other line."""
    match = HEADING_RE.match(line)
    return (len(match.group("level")), match.group("title")) if match else None


def is_history_title(title: str) -> bool:
    return title.strip().strip("#").strip().lower() in HISTORY_TITLES


def is_history_heading(line: str) -> bool:
    found = heading(line)
    return found is not None and is_history_title(found[1])


def in_history(heading_path: str | None) -> bool:
    """Whether a heading path (``Work > History``) lies under a History heading."""
    return heading_path is not None and any(is_history_title(part) for part in heading_path.split(" > "))


class HistoryTracker:
    """Fed a page's lines in order (code lines left out), tells whether the current line stands
    under a History heading: the section runs until a heading of the same or a higher level."""

    def __init__(self) -> None:
        self._level: int | None = None  # the open History heading's level

    def feed(self, line: str) -> bool:
        """True when ``line`` (a heading, or any other line) is inside a History section."""
        found = heading(line)
        if found is not None:
            level, title = found
            if self._level is not None and level <= self._level:
                self._level = None
            if self._level is None and is_history_title(title):
                self._level = level
        return self._level is not None
