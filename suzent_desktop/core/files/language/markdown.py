"""The notebook's markdown grammar, in one place: code, frontmatter, links, embeds and tags.

Every module that needs to know "is this a link?" or "is this line code?" asks here, so the
editor, the preview, rename/move, backlinks, lint, the dream's page tools, the chunker and
``log.md`` parsing cannot disagree. Block structure (fenced and indented code, frontmatter)
comes from markdown-it-py's CommonMark parser; inline code spans follow CommonMark's
backtick-run rule. Links follow Obsidian's syntax:

* wikilinks ``[[Page]]``, ``[[Page|alias]]``, ``[[Page#Heading]]``, ``[[#Heading]]``,
  ``[[Page#^block]]``, with ``\\|`` (a pipe escaped inside a table) read as the alias separator
  and kept when a link is rewritten;
* embeds ``![[file.png]]`` and ``![alt](file.png)``;
* markdown links ``[text](rel%20path.md)`` / ``[text](<rel path.md>)``: local ones only
  (no URL scheme), decoded.

Nothing inside code (fenced, indented or inline) or frontmatter is a link or a tag.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import quote, unquote

import yaml
from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin

WIKI, EMBED, MARKDOWN = "wiki", "embed", "markdown"

_WIKILINK_RE = re.compile(r"(?P<bang>!?)\[\[(?P<inner>[^\[\]\n]+?)\]\]")
_MDLINK_RE = re.compile(
    r"(?P<bang>!?)\[(?P<text>[^\[\]\n]*)\]\(\s*(?:<(?P<angle>[^<>\n]+)>|(?P<href>[^\s()<>]+))"
    r"(?P<title>\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)"
)
_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_TAG_RE = re.compile(r"(?<![\w#/&\\])#(?P<tag>[\w/-]*[^\W\d_][\w/-]*)")
_HEADING_RE = re.compile(r"^ {0,3}(?P<level>#{1,6})(?:[ \t]+(?P<title>.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE_RE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})(?P<info>.*)$")  # four spaces: a code line, not a fence
_BACKTICKS_RE = re.compile(r"`+")
# libyaml's safe loader when PyYAML was built with it: the same documents, several times faster
# (reading the tags of a 5,000-page vault spent half its time in the pure-Python parser).
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# -- links ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Link:
    """One link as written: where it stands, what it names, and how to write it back.

    ``target`` is the page or file path as the link names it (decoded for markdown links;
    empty for a link into the same page, ``[[#Heading]]``); ``subpath`` is the heading or
    ``^block`` after ``#``.
    """

    kind: str  # WIKI, EMBED (``![[...]]`` or ``![...](...)``) or MARKDOWN
    start: int
    end: int
    target: str
    subpath: str | None = None
    alias: str | None = None  # wikilink alias, or a markdown link's text
    escaped_pipe: bool = False  # ``[[A\|b]]``: the pipe was escaped (a table cell)
    wiki_syntax: bool = True  # False for ``[..](..)`` links and embeds
    title: str = ""  # a markdown link's ``"title"`` part, kept on rewrite

    @property
    def heading(self) -> str | None:
        return None if self.subpath is None or self.subpath.startswith("^") else self.subpath

    @property
    def block(self) -> str | None:
        return self.subpath[1:] if self.subpath and self.subpath.startswith("^") else None

    @property
    def embed(self) -> bool:
        return self.kind == EMBED

    @property
    def label(self) -> str:
        """What a reader sees for the link."""
        if self.alias:
            return self.alias
        if self.subpath and self.target:
            return f"{self.target} › {self.subpath}"
        return self.target or (self.subpath or "")

    def retarget(self, target: str) -> str:
        """This link's source text, naming ``target`` instead (subpath, alias, escape kept)."""
        if self.wiki_syntax:
            inner = target + (f"#{self.subpath}" if self.subpath is not None else "")
            if self.alias is not None:
                inner += ("\\|" if self.escaped_pipe else "|") + self.alias
            return f"{'!' if self.embed else ''}[[{inner}]]"
        href = quote(target, safe="/._-~()!*'") + (f"#{quote(self.subpath, safe='^')}" if self.subpath else "")
        return f"{'!' if self.embed else ''}[{self.alias or ''}]({href}{self.title})"


def parse_wikilink(text: str) -> Link | None:
    """A whole ``[[...]]`` (or ``![[...]]``) string as a link; None if it is not one."""
    text = text.strip()
    match = _WIKILINK_RE.fullmatch(text)
    return _wikilink(match, 0) if match else None


def wikilink_at(text: str, pos: int) -> Link | None:
    """The wikilink or embed starting exactly at ``pos`` (the preview's inline rule), or None."""
    match = _WIKILINK_RE.match(text, pos)
    return _wikilink(match, 0) if match else None


def _wikilink(match: re.Match[str], offset: int) -> Link | None:
    inner = match.group("inner")
    alias: str | None = None
    escaped = False
    bar = inner.find("|")
    if bar >= 0:
        alias = inner[bar + 1 :].strip()
        escaped = bar > 0 and inner[bar - 1] == "\\"
        inner = inner[: bar - 1] if escaped else inner[:bar]
    target, hash_, subpath = inner.partition("#")
    target = target.strip()
    if not target and not hash_:
        return None
    return Link(
        kind=EMBED if match.group("bang") else WIKI,
        start=offset + match.start(),
        end=offset + match.end(),
        target=target,
        subpath=subpath.strip() if hash_ else None,
        alias=alias,
        escaped_pipe=escaped,
    )


def _markdown_link(match: re.Match[str], offset: int) -> Link | None:
    href = match.group("angle") if match.group("angle") is not None else match.group("href")
    if _SCHEME_RE.match(href) or href.startswith("//"):
        return None  # a URL (http:, mailto:, obsidian:, file:) is not a vault link
    path, hash_, subpath = href.partition("#")
    target = unquote(path).strip()
    if not target and not hash_:
        return None
    return Link(
        kind=EMBED if match.group("bang") else MARKDOWN,
        start=offset + match.start(),
        end=offset + match.end(),
        target=target,
        subpath=unquote(subpath) if hash_ else None,
        alias=match.group("text"),
        wiki_syntax=False,
        title=match.group("title") or "",
    )


def links(text: str) -> list[Link]:
    """Every link in ``text`` outside code and frontmatter, in order."""
    return _links_in(text, prose_spans(text))


def line_links(line: str) -> list[Link]:
    """Links of one line seen alone (the editor highlights line by line): inline code excluded."""
    return _links_in(line, _outside_inline_code(line, 0, len(line)))


def only_links(line: str) -> bool:
    """Whether a line holds links and nothing else but spaces and ``,`` ``;`` ``·`` between them.

    A list whose items are only links is navigation (see-also lists, a map of content), not
    a list of facts, so the chunker keeps it whole.
    """
    found = line_links(line)
    rest, last = [], 0
    for link in found:
        rest.append(line[last : link.start])
        last = link.end
    rest.append(line[last:])
    return bool(found) and not "".join(rest).strip(" \t,;·")


def _links_in(text: str, spans: list[tuple[int, int]]) -> list[Link]:
    found: list[Link] = []
    for start, end in spans:
        segment = text[start:end]
        if "[" not in segment:
            continue
        taken: list[tuple[int, int]] = []
        for match in _WIKILINK_RE.finditer(segment):
            link = _wikilink(match, start)
            if link is not None:
                found.append(link)
                taken.append((match.start(), match.end()))
        if "](" in segment:
            for match in _MDLINK_RE.finditer(segment):
                if any(a < match.end() and match.start() < b for a, b in taken):
                    continue
                link = _markdown_link(match, start)
                if link is not None:
                    found.append(link)
    found.sort(key=lambda link: link.start)
    return found


def rewrite_links(text: str, new_text_for: Any) -> str:
    """``text`` with each link replaced by ``new_text_for(link)`` (None keeps it); code untouched."""
    pieces: list[str] = []
    last = 0
    for link in links(text):
        new = new_text_for(link)
        if new is None:
            continue
        pieces += [text[last : link.start], new]
        last = link.end
    if not pieces:
        return text
    pieces.append(text[last:])
    return "".join(pieces)


def tags(text: str) -> list[str]:
    """``#tags`` of a page: frontmatter ``tags`` first, then inline tags outside code and headings."""
    found = [t.lstrip("#") for t in meta_list(frontmatter(text), "tags")]
    if "#" not in text:
        return list(dict.fromkeys(found))
    spans = prose_spans(text)  # once: links and tags are both looked for in prose only
    taken = [(link.start, link.end) for link in _links_in(text, spans)]
    for start, end in spans:
        for match in _TAG_RE.finditer(text, start, end):
            if not any(a <= match.start() < b for a, b in taken):
                found.append(match.group("tag"))
    return list(dict.fromkeys(found))


# -- code and frontmatter ---------------------------------------------------------------------
@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True})
    md.enable(["table", "strikethrough"])
    md.use(front_matter_plugin)
    return md


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for match in re.finditer("\n", text):
        starts.append(match.end())
    return starts


@lru_cache(maxsize=1)
def _block_parser() -> MarkdownIt:
    """The same grammar with inline parsing off: code blocks and frontmatter are block structure,
    and inline parsing was two thirds of the cost of finding them."""
    md = MarkdownIt("commonmark", {"html": True})
    md.enable(["table", "strikethrough"])
    md.use(front_matter_plugin)
    md.disable("inline")
    return md


def block_code_lines(text: str) -> set[int]:
    """0-based lines inside fenced or indented code blocks or the frontmatter (CommonMark)."""
    lines: set[int] = set()
    for token in _block_parser().parse(text):
        if token.type in ("fence", "code_block", "front_matter") and token.map:
            lines.update(range(token.map[0], token.map[1]))
    return lines


def prose_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of ``text`` that are neither code (block or inline) nor frontmatter.

    Inline code follows CommonMark: a run of N backticks opens a span that the next run of
    exactly N backticks closes, within one paragraph; an unmatched run is literal text.
    """
    return _prose_spans(text, _code_lines_if_any(text))


def _code_lines_if_any(text: str) -> set[int]:
    """:func:`block_code_lines`, skipping the parse when no line can open code, and when only a
    plain frontmatter block (closed by ``---``) can: then its lines are the code."""
    if "```" in text or "~~~" in text or "    " in text or "\t" in text:
        return block_code_lines(text)
    if text.startswith("---"):
        block, body = frontmatter_block(text)
        head = text[: len(text) - len(body)]
        if block and head.rstrip("\r\n").endswith("\n---") and "\r" not in head:
            return set(range(head.count("\n") + (0 if head.endswith("\n") else 1)))
        return block_code_lines(text)
    return set()


def _prose_spans(text: str, code: set[int]) -> list[tuple[int, int]]:
    starts = _line_starts(text)
    spans: list[tuple[int, int]] = []
    paragraph: list[int] = []  # line numbers of the current run of prose lines

    def flush() -> None:
        if paragraph:
            begin = starts[paragraph[0]]
            last = paragraph[-1]
            end = starts[last + 1] if last + 1 < len(starts) else len(text)
            spans.extend(_outside_inline_code(text, begin, end))
            paragraph.clear()

    for number in range(len(starts)):
        end = starts[number + 1] - 1 if number + 1 < len(starts) else len(text)
        if number in code or not text[starts[number] : end].strip():
            flush()
        else:
            paragraph.append(number)
    flush()
    return spans


def _outside_inline_code(text: str, begin: int, end: int) -> list[tuple[int, int]]:
    if "`" not in text[begin:end]:
        return [(begin, end)]
    spans: list[tuple[int, int]] = []
    runs = [(m.start(), m.end()) for m in _BACKTICKS_RE.finditer(text, begin, end)
            if not (m.start() > begin and text[m.start() - 1] == "\\")]
    cursor = begin
    index = 0
    while index < len(runs):
        open_start, open_end = runs[index]
        width = open_end - open_start
        close = next((j for j in range(index + 1, len(runs)) if runs[j][1] - runs[j][0] == width), None)
        if close is None:
            index += 1
            continue
        spans.append((cursor, open_start))
        cursor = runs[close][1]
        index = close + 1
    spans.append((cursor, end))
    return [(a, b) for a, b in spans if b > a]


def inline_code_spans(line: str) -> list[tuple[int, int]]:
    """Spans of one line that are inline code (the editor highlights them)."""
    prose = _outside_inline_code(line, 0, len(line))
    code: list[tuple[int, int]] = []
    cursor = 0
    for a, b in prose:
        if a > cursor:
            code.append((cursor, a))
        cursor = b
    if cursor < len(line):
        code.append((cursor, len(line)))
    return code


class FenceTracker:
    """CommonMark fences line by line, for text read as lines (``log.md``, the editor's blocks).

    A fence opens with three or more backticks or tildes indented at most three spaces and
    closes only with the same character, at least as long, and nothing after it.
    """

    def __init__(self, open_fence: str | None = None) -> None:
        self.open: str | None = open_fence

    def feed(self, line: str) -> bool:
        """Track ``line``; True when it opens or closes a fence."""
        match = _FENCE_RE.match(line)
        if not match:
            return False
        fence = match.group("fence")
        if self.open is None:
            if fence[0] == "`" and "`" in match.group("info"):
                return False  # ``` followed by more backticks is inline code, not a fence
            self.open = fence
            return True
        if fence[0] == self.open[0] and len(fence) >= len(self.open) and not match.group("info").strip():
            self.open = None
            return True
        return False


def code_lines(lines: Iterable[str]) -> list[bool]:
    """Per line: is it part of a fenced block (fence lines included)?"""
    tracker = FenceTracker()
    flags: list[bool] = []
    for line in lines:
        was_open = tracker.open is not None
        flags.append(tracker.feed(line) or was_open)
    return flags


def frontmatter_block(text: str) -> tuple[str, str]:
    """(frontmatter source without its ``---`` lines, body); ("", text) when there is none.

    Obsidian's rule: the very first line is ``---`` and a later line is ``---`` (or ``...``);
    an unclosed block is ordinary text.
    """
    if not text.startswith("---"):
        return "", text
    lines = text.splitlines(keepends=True)
    if lines[0].rstrip("\r\n") != "---":
        return "", text
    for index in range(1, len(lines)):
        if lines[index].rstrip("\r\n").strip() in ("---", "..."):
            return "".join(lines[1:index]), "".join(lines[index + 1 :])
    return "", text


def frontmatter_lines(text: str) -> int:
    """Number of leading lines the frontmatter takes (0 when there is none)."""
    block, body = frontmatter_block(text)
    if not block and body is text:
        return 0
    return len(text[: len(text) - len(body)].splitlines())


def frontmatter(text: str) -> dict[str, Any]:
    """The frontmatter as YAML; malformed YAML falls back to flat ``key: value`` lines."""
    block, _body = frontmatter_block(text)
    if not block.strip():
        return {}
    try:
        data = yaml.load(block, Loader=_YAML_LOADER)
    except yaml.YAMLError:
        data = None
    if isinstance(data, dict):
        return {str(k): v for k, v in data.items()}
    return _flat_properties(block)


def _flat_properties(block: str) -> dict[str, Any]:
    props: dict[str, Any] = {}
    key: str | None = None
    for raw in block.splitlines():
        line = raw.rstrip()
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("- ") and key is not None:
            current = props.get(key)
            props[key] = [*(current if isinstance(current, list) else []), _unquote(stripped[2:].strip())]
            continue
        name, sep, value = line.partition(":")
        if not sep or line[0].isspace():
            continue
        key = name.strip()
        value = value.strip()
        if value.startswith("[") and value.endswith("]"):
            props[key] = [_unquote(v.strip()) for v in value[1:-1].split(",") if v.strip()]
        else:
            props[key] = _unquote(value) if value else None
    return props


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def meta_text(value: Any) -> str:
    """A property value as one line of text (lists joined with commas, dates as ISO)."""
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return ", ".join(meta_text(v) for v in value)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


def meta_list(meta: dict[str, Any], key: str) -> list[str]:
    """A list property (``tags``, ``aliases``), accepting Obsidian's singular key and a comma string."""
    value = meta.get(key, meta.get(key.rstrip("s")))
    if value is None:
        return []
    items = value if isinstance(value, list | tuple) else str(value).split(",")
    return [meta_text(v).strip() for v in items if meta_text(v).strip()]


# -- headings ---------------------------------------------------------------------------------
def headings(text: str) -> list[tuple[int, int, str]]:
    """(1-based line, level, title) of every ATX heading outside code and frontmatter."""
    lines = text.splitlines()
    code = block_code_lines(text)
    found: list[tuple[int, int, str]] = []
    for index, line in enumerate(lines):
        if index in code:
            continue
        match = _HEADING_RE.match(line)
        if match:
            found.append((index + 1, len(match.group("level")), (match.group("title") or "").strip()))
    return found


def heading_line(text: str, heading: str) -> int | None:
    """1-based line of the first heading whose text matches ``heading`` (case-insensitive)."""
    want = heading.strip().lower()
    for number, _level, title in headings(text):
        if title.lower() == want:
            return number
    return None


def line_of(text: str, offset: int) -> int:
    """1-based line number of a character offset."""
    return bisect_right(_line_starts(text), offset)




# -- plain text -------------------------------------------------------------------------------
_COMMENT_RE = re.compile(r"%%.*?%%", re.S)
_CALLOUT_RE = re.compile(r"\[![\w-]+\][+-]?\s*")
_TASK_RE = re.compile(r"^\[[ xX]\]\s+")
_SPACES_RE = re.compile(r"\s+")


def plain_text(text: str) -> str:
    """The words a reader sees, on one line: no markup, no frontmatter or ``%%comments%%``, links as their text.

    For snippets in lists (related notes, previews), where ``## Heading`` or ``[[Page|alias]]``
    would be noise.
    """
    _meta, body = frontmatter_block(text)
    body = _COMMENT_RE.sub(" ", body)
    pieces, last = [], 0
    for link in links(body):
        if link.wiki_syntax:
            pieces += [body[last : link.start], link.label]
            last = link.end
    body = "".join([*pieces, body[last:]])
    words: list[str] = []
    for token in _parser().parse(body):
        if token.type in ("fence", "code_block"):
            words.append(token.content)
        elif token.type == "inline":
            words.append(_inline_text(token.children or []))
    return _SPACES_RE.sub(" ", " ".join(words)).strip()


def _inline_text(children: list[Any]) -> str:
    parts = []
    for child in children:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(_inline_text(child.children or []))
    text = _CALLOUT_RE.sub("", _TASK_RE.sub("", "".join(parts)))
    return text.replace("==", "")


# -- a page at once ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Outline:
    """What the vault model keeps of a page: its links (with their lines), tags, aliases and headings."""

    links: tuple[tuple[int, Link], ...]  # (1-based line, link), outside code and frontmatter
    tags: tuple[str, ...]
    aliases: tuple[str, ...]
    headings: tuple[tuple[int, int, str], ...]  # (1-based line, level, title)


def outline(text: str) -> Outline:
    """A page read once for every fact the vault model answers: the code spans are found once and
    shared by links, tags and headings (the rules are those of :func:`links`, :func:`tags`, :func:`headings`)."""
    meta = frontmatter(text) if text.startswith("---") else {}
    code = _code_lines_if_any(text)
    spans = _prose_spans(text, code)
    found = _links_in(text, spans)
    starts = _line_starts(text)
    tag_list = [t.lstrip("#") for t in meta_list(meta, "tags")]
    if "#" in text:
        taken = [(link.start, link.end) for link in found]
        for start, end in spans:
            for match in _TAG_RE.finditer(text, start, end):
                if not any(a <= match.start() < b for a, b in taken):
                    tag_list.append(match.group("tag"))
    heads: list[tuple[int, int, str]] = []
    if "#" in text:
        for index, line in enumerate(text.splitlines()):
            if index not in code and line.lstrip(" ").startswith("#"):
                heading = _HEADING_RE.match(line)
                if heading:
                    heads.append((index + 1, len(heading.group("level")), (heading.group("title") or "").strip()))
    return Outline(
        links=tuple((bisect_right(starts, link.start), link) for link in found if link.target),
        tags=tuple(dict.fromkeys(tag_list)),
        aliases=tuple(meta_list(meta, "aliases")),
        headings=tuple(heads),
    )
