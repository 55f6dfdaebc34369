"""What Live Preview does with one line of markdown: which characters are markup to hide, how
the rest is styled, and what is drawn in place (a checkbox, a bullet, an image, an embed).

Pure Python and line-based, like the highlighter that uses it, so a keystroke costs one line's
parse. Code spans and links follow the one grammar (:mod:`suzent_desktop.core.files.language.markdown`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from suzent_desktop.core.files.language.markdown import (
    EMBED,
    MARKDOWN,
    WIKI,
    Link,
    inline_code_spans,
    line_links,
)

HEADING_RE = re.compile(r"^( {0,3})(#{1,6})([ \t]+|$)")
QUOTE_RE = re.compile(r"^(?:[ \t]*>[ \t]?)+")
CALLOUT_RE = re.compile(r"\[!(?P<kind>[^\]\s]+)\](?P<fold>[+-]?)[ \t]*")
TASK_RE = re.compile(r"^([ \t]*)([-*+]|\d+[.)])([ \t]+)\[([ xX])\]([ \t]|$)")
BULLET_RE = re.compile(r"^([ \t]*)([-*+])([ \t]+)")
RULE_RE = re.compile(r"^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")
BOLD_RE = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
ITALIC_RE = re.compile(r"(?<![*\w])(\*)(?=[^\s*])(.+?)(?<=[^\s*])\*(?!\*)|(?<![_\w])(_)(?=[^\s_])(.+?)(?<=[^\s_])_(?![_\w])")
STRIKE_RE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
MARK_RE = re.compile(r"==(?=\S)(.+?)(?<=\S)==")
COMMENT_RE = re.compile(r"%%.*?%%")
URL_LINK_RE = re.compile(r"(?<!!)\[(?P<text>[^\]\n]+)\]\((?P<href>(?:https?|mailto):[^)\s]+)\)")
TAG_RE = re.compile(r"(?<![\w#/&\\])#(?P<tag>[\w/-]*[^\W\d_][\w/-]*)")  # as core.markdown reads tags
BLOCK_ID_RE = re.compile(r"\s\^[A-Za-z0-9-]+\s*$")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".svg", ".webp", ".tif", ".tiff", ".ico")
SIZE_RE = re.compile(r"^\s*(\d+)(?:\s*x\s*(\d+))?\s*$")

# Heading levels as a factor of the body font, as Obsidian's default theme sizes them.
HEADING_SCALE = {1: 1.8, 2: 1.5, 3: 1.3, 4: 1.15, 5: 1.05, 6: 1.0}

# Callout kinds by colour family (Obsidian's types and aliases); index + 1 is the family's code.
CALLOUT_FAMILIES: tuple[tuple[str, ...], ...] = (
    ("note",),
    ("abstract", "summary", "tldr"),
    ("info", "todo"),
    ("tip", "hint", "important"),
    ("success", "check", "done"),
    ("question", "help", "faq"),
    ("warning", "caution", "attention"),
    ("failure", "fail", "missing", "danger", "error", "bug"),
    ("example",),
    ("quote", "cite"),
)


def callout_code(kind: str) -> int:
    """1.. for a known colour family, 1 (note) for an unknown kind, as Obsidian shows those."""
    kind = kind.lower()
    for number, family in enumerate(CALLOUT_FAMILIES, start=1):
        if kind in family:
            return number
    return 1


LINE = (-1, -1)  # the owner of a line's own marks: revealed whenever the cursor is on the line


@dataclass
class Span:
    start: int
    end: int
    style: str  # bold, italic, strike, mark, code, link, tag, muted, heading, callout-title, done


@dataclass
class Embed:
    """A line that is one embed: drawn in place below its (hidden) text."""

    link: Link
    image: bool
    width: int | None = None
    height: int | None = None


@dataclass
class LineDecor:
    """What Live Preview shows for a line that is not being edited."""

    # (start, end, owner): markup to hide, and the element it belongs to (start, end), whose markup
    # shows while the cursor or selection touches it, as Obsidian reveals one element at a time;
    # LINE for the marks that make a line what it is (heading, quote, list), shown on the line.
    hidden: list[tuple[int, int, tuple[int, int]]] = field(default_factory=list)
    spans: list[Span] = field(default_factory=list)
    heading: int = 0
    task: tuple[int, bool] | None = None  # (column of "[", checked)
    bullet: int | None = None  # column of the bullet character drawn as a dot
    marker: tuple[int, int] | None = None  # a list item's marker ("- ", "- [ ] "): drawn until the cursor is in it
    rule: bool = False
    quote: bool = False
    callout_title: str | None = None  # the kind, on a callout's first line
    callout_at: int = -1  # column of its "[": the room its icon is drawn in
    callout_fold: str = ""  # "-" folded, "+" open, "" not foldable
    embed: Embed | None = None
    links: list[Link] = field(default_factory=list)
    tags: list[tuple[int, int, str]] = field(default_factory=list)  # (start, end, tag)
    urls: list[tuple[int, int, str]] = field(default_factory=list)  # (start, end, href) of web links

    def hide(self, start: int, end: int, owner: tuple[int, int] = LINE) -> None:
        if end > start:
            self.hidden.append((start, end, owner))

    def revealed(self, span: tuple[int, int] | None) -> frozenset[tuple[int, int]]:
        """The elements whose markup shows with the cursor or selection over columns ``span``
        (inclusive: the cursor just after ``**bold**`` still shows its stars)."""
        if span is None:
            return frozenset()
        a, b = span
        found = {owner for _s, _e, owner in self.hidden if owner == LINE or (owner[0] <= b and a <= owner[1])}
        if self.marker is not None and self.marker[0] <= b and a < self.marker[1]:  # typing after it keeps it drawn
            found.add(self.marker)
        return frozenset(found)

    def marker_drawn(self, span: tuple[int, int] | None) -> bool:
        """Whether the checkbox or bullet is drawn (the cursor or selection is not in the marker)."""
        return self.marker is not None and self.marker not in self.revealed(span)

    def style(self, start: int, end: int, style: str) -> None:
        if end > start:
            self.spans.append(Span(start, end, style))


def _inside(position: int, ranges: list[tuple[int, int]]) -> bool:
    return any(a <= position < b for a, b in ranges)


def embed_size(alias: str | None) -> tuple[int | None, int | None]:
    match = SIZE_RE.match(alias or "")
    if not match:
        return None, None
    return int(match.group(1)), int(match.group(2)) if match.group(2) else None


def parse_line(text: str) -> LineDecor:
    """The decoration of one prose line (not code, not frontmatter)."""
    decor = LineDecor()
    if RULE_RE.match(text):
        decor.rule = True
        decor.hide(0, len(text))
        return decor
    body = 0
    quote = QUOTE_RE.match(text)
    if quote:
        decor.quote = True
        decor.hide(0, quote.end())
        body = quote.end()
        callout = CALLOUT_RE.match(text, body)
        if callout:
            decor.callout_title = callout.group("kind").lower()
            decor.callout_at, decor.callout_fold = callout.start(), callout.group("fold")
            decor.hide(callout.start(), callout.end())
            decor.style(callout.end(), len(text), "callout-title")
            if callout.end() == len(text):  # no title: the kind is the title, as Obsidian shows it
                decor.callout_title = callout.group("kind").lower()
            body = callout.end()
    heading = HEADING_RE.match(text, body) if not quote else None
    if heading:
        decor.heading = len(heading.group(2))
        decor.hide(body, heading.end())
        decor.style(heading.end(), len(text), "heading")
        body = heading.end()
    task = TASK_RE.match(text, body) if not heading else None
    if task:
        bracket = task.start(4) - 1
        checked = task.group(4) in "xX"
        decor.task = (bracket, checked)
        decor.marker = (task.start(2), task.end())
        decor.hide(task.start(2), bracket, decor.marker)  # the bullet; the "[ ]" keeps its room for the checkbox
        if checked:
            decor.style(task.end(), len(text), "done")
        body = task.end()
    elif not heading:
        bullet = BULLET_RE.match(text, body)
        if bullet and not RULE_RE.match(text):
            decor.bullet = bullet.start(2)
            decor.marker = (bullet.start(2), bullet.end())
            body = bullet.end()
    code = inline_code_spans(text)
    for start, end in code:
        ticks = len(text[start:end]) - len(text[start:end].lstrip("`"))
        decor.hide(start, start + ticks, (start, end))
        decor.hide(end - ticks, end, (start, end))
        decor.style(start + ticks, end - ticks, "code")
    _links(text, decor, code)
    for pattern, style, width in ((BOLD_RE, "bold", 2), (STRIKE_RE, "strike", 2), (MARK_RE, "mark", 2)):
        for match in pattern.finditer(text):
            if _inside(match.start(), code):
                continue
            decor.hide(match.start(), match.start() + width, match.span())
            decor.hide(match.end() - width, match.end(), match.span())
            decor.style(match.start() + width, match.end() - width, style)
    for match in ITALIC_RE.finditer(text):
        if _inside(match.start(), code) or (decor.bullet is not None and match.start() == decor.bullet):
            continue
        decor.hide(match.start(), match.start() + 1, match.span())
        decor.hide(match.end() - 1, match.end(), match.span())
        decor.style(match.start() + 1, match.end() - 1, "italic")
    link_ranges = [(link.start, link.end) for link in decor.links] + [(a, b) for a, b, _ in decor.urls]
    for match in TAG_RE.finditer(text):
        if _inside(match.start(), code) or _inside(match.start(), link_ranges) or (heading and match.start() < body):
            continue
        decor.tags.append((match.start(), match.end(), match.group("tag")))
        decor.style(match.start(), match.end(), "tag")
    for match in COMMENT_RE.finditer(text):
        if not _inside(match.start(), code):
            decor.style(match.start(), match.end(), "muted")
    block_id = BLOCK_ID_RE.search(text)
    if block_id and not _inside(block_id.start() + 1, code):
        decor.hide(block_id.start(), block_id.end(), block_id.span())
    return decor


def _links(text: str, decor: LineDecor, code: list[tuple[int, int]]) -> None:
    found = line_links(text)
    quote = QUOTE_RE.match(text)
    stripped = text[quote.end() if quote else 0:].strip()  # an embed alone in a callout or quote is drawn too
    for link in found:
        decor.links.append(link)
        source = text[link.start:link.end]
        if link.kind == EMBED and len(found) == 1 and stripped == source:
            image = link.target.lower().endswith(IMAGE_SUFFIXES)
            width, height = embed_size(link.alias) if link.wiki_syntax else (None, None)
            decor.embed = Embed(link, image, width, height)
            decor.hide(link.start, link.end)
            continue
        if link.wiki_syntax:
            inner_start = link.start + source.index("[[") + 2
            inner_end = link.end - 2
            bar = source.find("|")
            owner = (link.start, link.end)
            if link.alias is not None and bar >= 0:
                decor.hide(link.start, link.start + bar + 1, owner)
                shown = (link.start + bar + 1, inner_end)
            else:
                decor.hide(link.start, inner_start, owner)
                shown = (inner_start, inner_end)
            decor.hide(inner_end, link.end, owner)
        else:
            close = source.find("](")
            owner = (link.start, link.end)
            decor.hide(link.start, link.start + source.index("[") + 1, owner)
            decor.hide(link.start + close, link.end, owner)
            shown = (link.start + source.index("[") + 1, link.start + close)
        decor.style(shown[0], shown[1], "link")
    for match in URL_LINK_RE.finditer(text):
        if _inside(match.start(), code):
            continue
        decor.urls.append((match.start(), match.end(), match.group("href")))
        decor.hide(match.start(), match.start() + 1, match.span())
        decor.hide(match.end("text"), match.end(), match.span())
        decor.style(match.start("text"), match.end("text"), "link")


__all__ = ["CALLOUT_FAMILIES", "EMBED", "Embed", "HEADING_SCALE", "LINE", "LineDecor", "MARKDOWN", "Span", "WIKI",
           "callout_code", "embed_size", "parse_line"]
