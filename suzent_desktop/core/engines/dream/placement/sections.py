"""Which section of a page a new fact goes to, as a person reading the headings would expect.

**By heading.** A page split by subject (``## Music``, ``## Food and drink``, ``## Travel``) takes a
fact into the one section whose heading names a word of the fact or of its tags ("User prefers to
drink warm milk" → Food and drink; a fact tagged ``travel`` → Travel). When no heading, or more than
one, is named, the consolidator falls back to the section of the most similar fact.

**By person.** A ``People`` page with one section per person (``## Anna``, ``## Marco``). On such a page a reader looks for a fact under the name of the person it is about. Filing by
embedding similarity alone put "Daniel Okafor suggested …" under ``## Anna`` because the words
looked alike; here a fact that opens with a person's name goes to that person's section, and a
person the page does not know yet gets a section of their own, after the last one (a paragraph
that closes the page stays last).
"""

from __future__ import annotations

import re

from suzent_desktop.core.files.language.english import looks_like_name
from suzent_desktop.core.vault.facts.fact_bullets import heading, is_history_title
from suzent_desktop.core.vault.facts.fact_pages import Bullet, PageDoc

_HEADING_STOP = frozenset("and or of the a an for with to in on at my other misc general notes user".split())
_LEAD_NAME = re.compile(r"^(?P<name>[A-Z][a-z]+(?: [A-Z][a-z]+){0,2})(?:'s)? [a-z]")


def _person_name(title: str) -> bool:
    words = title.split()
    return 0 < len(words) <= 3 and all(re.fullmatch(r"[A-Z][a-z]+", w) for w in words) and looks_like_name(words[0])


def _sections(doc: PageDoc) -> list[tuple[int, int, str]]:
    """(index, level, title) of the page's headings below the title, up to History."""
    found = []
    for index, item in enumerate(doc.items):
        if not isinstance(item, str):
            continue
        mark = heading(item)
        if mark is None or mark[0] == 1:
            continue
        if is_history_title(mark[1]):
            break
        found.append((index, mark[0], mark[1].strip()))
    return found


def by_person(doc: PageDoc) -> bool:
    """Whether the page is kept one section per person: it has sections, each a person's name."""
    sections = _sections(doc)
    return bool(sections) and all(_person_name(title) for _, _, title in sections)


def file_by_person(doc: PageDoc, text: str, bullet: Bullet) -> bool:
    """Put ``bullet`` in the section of the person ``text`` opens with, on a page whose sections
    are all people's names; False (nothing done) on any other page or fact."""
    if not by_person(doc):
        return False
    sections = _sections(doc)
    match = _LEAD_NAME.match(text)
    if match is None or not looks_like_name(match.group("name").split()[0]):
        return False
    name = match.group("name")
    for index, level, title in sections:
        if title == name or title == name.split()[0]:
            doc.insert_in_section(index, bullet, level=level)
            return True
    last_index, level, _ = sections[-1]
    position = last_index + 1
    for index in range(last_index + 1, len(doc.items)):
        item = doc.items[index]
        if isinstance(item, Bullet):
            position = index + 1
        elif isinstance(item, str) and (item.strip() and not item.startswith(" ") or heading(item)):
            break  # a closing paragraph or the next heading
    doc.items[position:position] = ["", f"{'#' * level} {name}", bullet]
    return True


def _stem(word: str) -> str:
    word = word.lower()
    for end in ("ies", "es", "s"):
        if word.endswith(end) and len(word) - len(end) >= 3:
            return word[: -len(end)] + ("y" if end == "ies" else "")
    return word


def file_by_heading(doc: PageDoc, text: str, tags: tuple[str, ...], bullet: Bullet) -> bool:
    """Put ``bullet`` in the one section whose heading names a word of ``text`` or a tag; False
    (nothing done) when no section, or several, are named."""
    words = {_stem(w) for w in re.findall(r"[A-Za-z]+", " ".join([text, *(t.lstrip("#") for t in tags)]))}
    named = []
    for index, level, title in _sections(doc):
        heading_words = {_stem(w) for w in re.findall(r"[A-Za-z]+", title)} - _HEADING_STOP
        if heading_words & words:
            named.append((index, level))
    if len(named) != 1:
        return False
    index, level = named[0]
    doc.insert_in_section(index, bullet, level=level)
    return True
