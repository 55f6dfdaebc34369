"""Unlinked mentions: where a page's name (or an alias) is written in another page without a link.

Obsidian lists these under a page's backlinks and offers to turn each into a link. A mention
is the name as a whole word (a CJK name: anywhere, since CJK prose has no spaces), any case, in prose: never inside code, frontmatter, a link (its
target or its text), a ``#tag`` or a URL. Turning one into a link replaces exactly those
characters with a wikilink built by the grammar (``Link.retarget``), keeping the words as
written as the link's alias, and writes the file atomically; the edit is refused when the
page changed since it was read, and undone only while the page still holds the edit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from suzent_desktop.core.files.disk.atomic import atomic_write_text
from suzent_desktop.core.files.disk.regular import read_regular
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.language.markdown import (
    WIKI,
    Link,
    frontmatter,
    line_of,
    links,
    meta_list,
    prose_spans,
)
from suzent_desktop.core.files.language.writing_systems import word_bounded

_URL_TOKEN_RE = re.compile(r"\S*(?:://|www\.)\S*")


class MentionError(ValueError):
    """The page changed since its mentions were found, or cannot be edited without losing text."""


@dataclass(frozen=True)
class Mention:
    """One unlinked mention: where it stands in its page and the words as written there."""

    path: Path
    start: int
    end: int
    line: int  # 1-based
    text: str  # the words as written ("japan")
    context: str  # the whole line, stripped


def mention_names(page: Path, text: str) -> list[str]:
    """What a page answers to in prose: its name and its frontmatter ``aliases``."""
    names = [page.stem, *meta_list(frontmatter(text), "aliases")]
    return list(dict.fromkeys(n.strip() for n in names if n.strip()))


def _pattern(names: Iterable[str]) -> re.Pattern[str] | None:
    """The names as whole words, longest first (so "New York City" wins over "New York").

    A Chinese, Japanese or Korean name has no spaces around it in prose (日記を書いた,
    별칭을 추가): it matches anywhere outside a tag or path (``core.scripts.word_bounded``).
    """
    wanted = sorted({n for n in names if n}, key=len, reverse=True)
    if not wanted:
        return None
    parts = []
    for name in wanted:
        if word_bounded(name):
            parts.append(rf"(?<![\w#/.@-]){re.escape(name)}(?!\w|\.\w)")
        else:
            parts.append(rf"(?<![#/@]){re.escape(name)}")
    return re.compile("|".join(parts), re.IGNORECASE)


def unlinked_mentions(path: Path, text: str, names: Iterable[str]) -> list[Mention]:
    """Every mention of ``names`` in ``text`` outside code, frontmatter, links, tags and URLs."""
    pattern = _pattern(names)
    if pattern is None or pattern.search(text) is None:
        return []  # most pages: one regex pass, no markdown parse
    taken = [(link.start, link.end) for link in links(text)]
    found: list[Mention] = []
    for begin, end in prose_spans(text):
        for match in pattern.finditer(text, begin, end):
            if any(a < match.end() and match.start() < b for a, b in taken) or _in_url(text, match.start()):
                continue
            line = line_of(text, match.start())
            line_start = text.rfind("\n", 0, match.start()) + 1
            line_end = text.find("\n", match.start())
            context = text[line_start : line_end if line_end >= 0 else len(text)].strip()
            found.append(Mention(path, match.start(), match.end(), line, match.group(0), context))
    return found


def _in_url(text: str, pos: int) -> bool:
    start = pos
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    token = _URL_TOKEN_RE.match(text, start)
    return token is not None and token.end() > pos


def link_for(mention: Mention, target: str, line_text: str) -> str:
    """The wikilink a mention becomes: ``[[Target]]`` when written the same, else ``[[Target|as written]]``.

    In a table row the alias pipe is escaped (``\\|``), so the link does not split the cell.
    """
    alias = None if mention.text == target else mention.text
    escaped = alias is not None and "|" in line_text
    return Link(WIKI, mention.start, mention.end, target, alias=alias, escaped_pipe=escaped).retarget(target)


def _read(path: Path) -> str:
    try:
        return read_regular(path).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MentionError(f"{path.name}: not valid UTF-8 at byte {exc.start}; the page was left as it is") from exc
    except OSError as exc:
        raise MentionError(f"{path.name}: cannot be read ({exc.strerror or exc})") from exc


@dataclass(frozen=True)
class LinkedMention:
    """What linking one mention did, enough to undo it while the page is unchanged."""

    path: Path
    before: str
    after: str
    changes: ChangeSet


def link_mention(mention: Mention, target: str, *, initiator: str = "") -> LinkedMention:
    """Turn one mention into a link to ``target`` (a link target the resolver maps to the page), atomically."""
    text = _read(mention.path)
    if text[mention.start : mention.end] != mention.text:
        raise MentionError(f"{mention.path.name} changed since its mentions were listed; nothing was linked")
    line_start = text.rfind("\n", 0, mention.start) + 1
    line_end = text.find("\n", mention.start)
    line_text = text[line_start : line_end if line_end >= 0 else len(text)]
    after = text[: mention.start] + link_for(mention, target, line_text) + text[mention.end :]
    atomic_write_text(mention.path, after)
    changes = ChangeSet(
        changed=frozenset({mention.path}), refresh=frozenset({mention.path}),
        message=f"Linked “{mention.text}” in {mention.path.name}:{mention.line}", initiator=initiator,
    )
    return LinkedMention(mention.path, text, after, changes)


def undo_link_mention(done: LinkedMention, *, initiator: str = "") -> ChangeSet:
    """Put the page back as it was before :func:`link_mention`, unless it was edited since."""
    if _read(done.path) != done.after:
        raise MentionError(f"{done.path.name} was edited after the link was made; undo would lose that edit")
    atomic_write_text(done.path, done.before)
    return ChangeSet(changed=frozenset({done.path}), refresh=frozenset({done.path}),
                       message=f"Unlinked the mention in {done.path.name}", initiator=initiator)
