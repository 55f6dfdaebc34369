"""Markdown → HTML for the preview pane (a QTextBrowser, so only Qt's rich-text subset).

markdown-it-py with tables, strikethrough, task lists and front matter. Links and embeds are
read with :mod:`suzent_desktop.core.files.language.markdown`'s grammar and resolved with
:mod:`suzent_desktop.core.vault.links`'s rules, so the preview agrees with the editor, backlinks and
lint. On top of CommonMark the preview renders what Obsidian's reading view does:

* wikilinks as ``wikilink:`` anchors the editor follows inside the app;
* embeds: ``![[img.png]]``, ``![[img.png|300]]`` and ``![alt](img.png)`` as images loaded from
  the vault (an ``embed:`` URL the preview widget serves), ``![[Page]]`` / ``![[Page#Heading]]``
  as the page's text in a frame (nested at most :data:`MAX_EMBED_DEPTH` deep, a cycle stops);
* callouts ``> [!note] Title`` with their type and title, foldable with ``-`` (folded) and
  ``+`` (open); the fold arrow is a ``callout:`` anchor that toggles it;
* ``%%comments%%`` (inline or spanning lines) hidden;
* inline HTML, sanitized with nh3 (ammonia) against a strict allow-list: no scripts, no event
  handlers, no styles that load anything, and no image from anywhere but the vault.

This module imports no Qt, so it is cheap to test.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlencode

import nh3
from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from mdit_py_plugins.front_matter import front_matter_plugin
from mdit_py_plugins.tasklists import tasklists_plugin

from suzent_desktop.core.files.language.markdown import (
    WIKI,
    Link,
    code_lines,
    frontmatter,
    frontmatter_block,
    heading_line,
    headings,
    line_links,
    meta_text,
    parse_wikilink,
    prose_spans,
    wikilink_at,
)
from suzent_desktop.core.vault.links import walkable_rel

__all__ = [
    "Link",
    "MarkdownRenderer",
    "Vault",
    "excerpt",
    "heading_line",
    "parse_embed_href",
    "parse_href",
    "parse_wikilink",
    "render",
    "section_text",
    "strip_comments",
    "wikilink_href",
]

WIKILINK_SCHEME = "wikilink"
EMBED_SCHEME = "embed"  # embed:<vault-relative path>[?w=..&h=..]: a vault file the preview may load
CALLOUT_SCHEME = "callout"  # callout:<key>: toggles a foldable callout
TAG_SCHEME = "tag"  # tag:<name>: a #tag in the page; a click runs ``tag:`` search
ICON_SCHEME = "icon"  # icon:<name>: one of the app's icons (resources/icons), served by the preview
_TAG_RE = re.compile(r"(?<![\w#/&\\])#(?P<tag>[\w/-]*[^\W\d_][\w/-]*)")  # as core.markdown reads tags
MAX_EMBED_DEPTH = 3
EMBED_CACHE_SIZE = 256
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".bmp", ".svg", ".webp", ".tif", ".tiff", ".ico"})
# Obsidian's other attachment formats: a link to one that is missing is not an invitation to make a page
# files no text editor should open: they go to the system's viewer
BINARY_SUFFIXES = IMAGE_SUFFIXES | frozenset({
    ".pdf", ".mp3", ".wav", ".m4a", ".ogg", ".flac", ".3gp", ".webm", ".mp4", ".mkv", ".mov", ".ogv", ".zip",
    ".xlsx", ".docx", ".pptx",
})
ATTACHMENT_SUFFIXES = BINARY_SUFFIXES | frozenset({".canvas", ".base", ".csv", ".txt", ".json"})
_CHECKED_RE = re.compile(r'<input class="task-list-item-checkbox" checked="checked"[^>]*>')
_UNCHECKED_RE = re.compile(r'<input class="task-list-item-checkbox"[^>]*>')
_COMMENT_RE = re.compile("%%")
_SIZE_RE = re.compile(r"^\s*(?P<w>\d+)(?:\s*x\s*(?P<h>\d+))?\s*$")
_CALLOUT_RE = re.compile(r"^\[!(?P<kind>[^\]\s]+)\](?P<fold>[+-]?)[ \t]*(?P<title>[^\n]*)(?:\n|$)")
_BLOCK_ID_RE = re.compile(r"\s\^(?P<id>[A-Za-z0-9-]+)\s*$")
_SOURCELESS_IMG_RE = re.compile(r"<img(?![^>]*\ssrc=)[^>]*>")
_URL_NOISE_RE = re.compile(r"[\x00-\x20]")  # what URL parsers drop or trim before reading a scheme
_EMPTY_PARAGRAPH_RE = re.compile(r"<p>\s*</p>\n?")  # left where a frame split a paragraph in two

# Obsidian's callout types and their aliases → (style, icon)
_CALLOUT_STYLES: dict[str, tuple[str, str]] = {
    "note": ("note", "\u270e"),
    "abstract": ("abstract", "\u2630"), "summary": ("abstract", "\u2630"), "tldr": ("abstract", "\u2630"),
    "info": ("info", "\u2139"),
    "todo": ("todo", "\u2611"),
    "tip": ("tip", "\u2605"), "hint": ("tip", "\u2605"), "important": ("tip", "\u2605"),
    "success": ("success", "\u2714"), "check": ("success", "\u2714"), "done": ("success", "\u2714"),
    "question": ("question", "?"), "help": ("question", "?"), "faq": ("question", "?"),
    "warning": ("warning", "\u26a0"), "caution": ("warning", "\u26a0"), "attention": ("warning", "\u26a0"),
    "failure": ("failure", "\u2718"), "fail": ("failure", "\u2718"), "missing": ("failure", "\u2718"),
    "danger": ("danger", "\u26a1"), "error": ("danger", "\u26a1"),
    "bug": ("bug", "\u2699"),
    "example": ("example", "\u2630"),
    "quote": ("quote", "\u275d"), "cite": ("quote", "\u275d"),
}
# (accent, light background, dark background) per callout style, after Obsidian's palette
_CALLOUT_COLOURS: dict[str, tuple[str, str, str]] = {
    "note": ("#086ddd", "#e8f1fc", "#1d2a3a"),
    "abstract": ("#00a3c4", "#e5f6f9", "#17313a"),
    "info": ("#086ddd", "#e8f1fc", "#1d2a3a"),
    "todo": ("#086ddd", "#e8f1fc", "#1d2a3a"),
    "tip": ("#00a6a3", "#e5f6f5", "#173532"),
    "success": ("#08a045", "#e6f6ec", "#1a3324"),
    "question": ("#d26a00", "#fcf0e3", "#3a2a18"),
    "warning": ("#d26a00", "#fcf0e3", "#3a2a18"),
    "failure": ("#d6263c", "#fbe9eb", "#3b1e22"),
    "danger": ("#d6263c", "#fbe9eb", "#3b1e22"),
    "bug": ("#d6263c", "#fbe9eb", "#3b1e22"),
    "example": ("#7852ee", "#f0ebfd", "#2a2440"),
    "quote": ("#7a7a7a", "#f1f1f1", "#2b2b2b"),
}


def is_attachment_name(target: str) -> bool:
    """True when a link target names an attachment by its extension (``cat.png``), not a page."""
    return Path(target).suffix.lower() in ATTACHMENT_SUFFIXES


def wikilink_href(link: Link) -> str:
    """The in-app URL of a wikilink: ``wikilink:Page#Heading``."""
    href = f"{WIKILINK_SCHEME}:{quote(link.target)}"
    if link.subpath:
        href += "#" + quote(link.subpath)
    return href


def parse_href(href: str) -> tuple[str, str | None] | None:
    """Invert :func:`wikilink_href`: ``wikilink:Page#h`` → ("Page", "h")."""
    if not href.startswith(WIKILINK_SCHEME + ":"):
        return None
    rest = href[len(WIKILINK_SCHEME) + 1 :]
    target, _, heading = rest.partition("#")
    return unquote(target), (unquote(heading) or None)


def embed_href(rel: str, width: int | None = None, height: int | None = None) -> str:
    """The ``embed:`` URL of a vault file (``rel`` is vault-relative), with an optional size."""
    query = urlencode({k: v for k, v in (("w", width), ("h", height)) if v})
    return f"{EMBED_SCHEME}:{quote(rel)}" + (f"?{query}" if query else "")


def parse_embed_href(href: str) -> tuple[str, int | None, int | None] | None:
    """Invert :func:`embed_href`: (vault-relative path, width, height), or None."""
    if not href.startswith(EMBED_SCHEME + ":"):
        return None
    rest, _, query = href[len(EMBED_SCHEME) + 1 :].partition("?")
    values = parse_qs(query)

    def number(key: str) -> int | None:
        try:
            return int(values[key][0])
        except (KeyError, ValueError, IndexError):
            return None

    return unquote(rest), number("w"), number("h")


def embed_size(alias: str | None) -> tuple[str, int | None, int | None]:
    """Obsidian's embed sizes: ``|300`` (width), ``|300x200``, ``|alt text|300``; → (alt, width, height)."""
    if not alias:
        return "", None, None
    alt, _, last = alias.rpartition("|")
    match = _SIZE_RE.match(last)
    if match is None:
        return alias, None, None
    height = match.group("h")
    return alt.strip(), int(match.group("w")), int(height) if height else None


@dataclass(frozen=True)
class Vault:
    """What the renderer needs of the vault: the one resolver's answer and a file's text."""

    root: Path
    resolve: Callable[[Link, Path | None], Path | None]
    read: Callable[[Path], str]

    def rel(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()


# -- comments, sections, excerpts -------------------------------------------------------------
def strip_comments(text: str) -> str:
    """``text`` without Obsidian ``%%comments%%``; an unclosed ``%%`` hides the rest, as in Obsidian.

    Only ``%%`` outside code counts (the grammar's prose spans), so code keeps its ``%%``.
    """
    if "%%" not in text:
        return text
    marks = [m.start() for start, end in prose_spans(text) for m in _COMMENT_RE.finditer(text, start, end)]
    if not marks:
        return text
    pieces: list[str] = []
    cursor = 0
    for index in range(0, len(marks), 2):
        pieces.append(text[cursor : marks[index]])
        if index + 1 >= len(marks):
            return "".join(pieces)
        cursor = marks[index + 1] + 2
    pieces.append(text[cursor:])
    return "".join(pieces)


def section_text(text: str, subpath: str | None) -> str | None:
    """The part of a page a ``#Heading`` or ``#^block`` names (Obsidian's embed/hover scope), or None.

    A heading's section runs to the next heading of the same or a higher level; a block is
    the paragraph (or list item) whose last line ends with ``^id``.
    """
    if not subpath:
        return frontmatter_block(text)[1]
    lines = text.splitlines()
    if subpath.startswith("^"):
        wanted = subpath[1:].lower()
        for number, line in enumerate(lines):
            match = _BLOCK_ID_RE.search(line)
            if match and match.group("id").lower() == wanted:
                start = number
                while start > 0 and lines[start - 1].strip() and not line.lstrip().startswith(("-", "*")):
                    start -= 1
                block = lines[start : number + 1]
                block[-1] = block[-1][: match.start()]
                return "\n".join(block)
        return None
    found = headings(text)
    want = subpath.strip().lower()
    for index, (number, level, title) in enumerate(found):
        if title.lower() == want:
            end = next((n for n, lv, _t in found[index + 1 :] if lv <= level), len(lines) + 1)
            return "\n".join(lines[number - 1 : end - 1])
    return None


def excerpt(text: str, subpath: str | None = None, paragraphs: int = 3, max_chars: int = 1500) -> str | None:
    """The first paragraphs of a page (or of its section): what a hover preview shows.

    Blocks are cut at blank lines outside code fences; a heading does not count as a
    paragraph. None when the section does not exist.
    """
    section = section_text(text, subpath)
    if section is None:
        return None
    lines = section.splitlines()
    kept: list[str] = []
    count = 0
    in_code = code_lines(lines)
    for line, code in zip(lines, in_code, strict=True):
        if not line.strip() and not code and kept and kept[-1].strip():
            count += 1
            if count >= paragraphs or sum(len(k) + 1 for k in kept) >= max_chars:
                break
        if kept or line.strip():
            kept.append(line)
        if re.match(r"^ {0,3}#{1,6}\s", line) and not code and count == 0 and len(kept) == 1:
            count -= 1  # a leading heading is a title, not a paragraph
    result = "\n".join(kept).strip("\n")
    if len(result) > max_chars:
        result = result[:max_chars].rsplit(" ", 1)[0] + " …"
    return result


# -- markdown-it rules --------------------------------------------------------------------------
def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    """Inline rule: consume ``[[...]]`` / ``![[...]]`` before markdown-it's own link rules see the bracket.

    Code spans are consumed by markdown-it's ``backticks`` rule first, so a link inside
    inline code stays code, as :func:`suzent_desktop.core.files.language.markdown.links` says.
    """
    src, pos = state.src, state.pos
    if not (src.startswith("[[", pos) or src.startswith("![[", pos)):
        return False
    link = wikilink_at(src, pos)
    if link is None:
        return False
    if not silent:
        token = state.push("wikilink", "a", 0)
        token.meta = {"link": link}
        token.content = src[link.start : link.end]
    state.pos = link.end
    return True


def _tag_rule(state: StateInline, silent: bool) -> bool:
    """Inline rule: ``#tag`` (as the tags pane counts them) becomes a link that searches for it."""
    if state.src[state.pos] != "#":
        return False
    match = _TAG_RE.match(state.src, state.pos)
    if match is None:
        return False
    if not silent:
        token = state.push("tag", "a", 0)
        token.content = match.group("tag")
    state.pos = match.end()
    return True


def _markdown_embed_rule(state: StateInline, silent: bool) -> bool:
    """Inline rule: ``![alt](file)`` naming a vault file, read with the grammar (URLs are left to ``image``)."""
    src, pos = state.src, state.pos
    if not src.startswith("![", pos) or src.startswith("![[", pos):
        return False
    end = src.find("\n", pos)
    found = line_links(src[pos : end if end >= 0 else len(src)])
    link = found[0] if found and found[0].start == 0 and found[0].embed else None
    if link is None:
        return False
    if not silent:
        token = state.push("wikilink", "a", 0)
        token.meta = {"link": link}
        token.content = src[pos : pos + link.end]
    state.pos = pos + link.end
    return True


def _is_note_target(link: Link) -> bool:
    suffix = Path(link.target).suffix.lower()
    return not suffix or suffix == ".md"


def _block_ids_rule(state: StateCore) -> None:
    """A block's ``^id`` marker at the end of its text is hidden, as in Obsidian's reading view."""
    for token in state.tokens:
        if token.type != "inline" or not token.children:
            continue
        for index, child in enumerate(token.children):
            ends_line = index + 1 == len(token.children) or token.children[index + 1].type in ("softbreak", "hardbreak")
            if child.type == "text" and ends_line:
                match = _BLOCK_ID_RE.search(child.content)
                if match:
                    child.content = child.content[: match.start()]


def _embed_paragraphs_rule(state: StateCore) -> None:
    """A paragraph holding only note embeds loses its ``<p>``: the embed is a block of its own."""
    tokens = state.tokens
    for index in range(1, len(tokens) - 1):
        token = tokens[index]
        if token.type != "inline" or not token.children or tokens[index - 1].type != "paragraph_open":
            continue
        embeds = [c for c in token.children if c.type == "wikilink"]
        others = [c for c in token.children if c.type not in ("wikilink", "softbreak")
                  and not (c.type == "text" and not c.content.strip())]
        if embeds and not others and all(c.meta["link"].embed and _is_note_target(c.meta["link"]) for c in embeds):
            tokens[index - 1].hidden = tokens[index + 1].hidden = True


def _embed_lines_rule(state: StateCore) -> None:
    """An embed on a line of its own inside a paragraph (a callout's picture under its text) keeps
    that line: the soft break before or after it becomes a line break, as Obsidian shows it."""
    for token in state.tokens:
        children = token.children or []
        for index, child in enumerate(children):
            if child.type != "softbreak":
                continue
            around = [children[i] for i in (index - 1, index + 1) if 0 <= i < len(children)]
            if any(c.type in ("wikilink", "image", "markdown_embed") and (c.type != "wikilink" or c.meta["link"].embed)
                   for c in around):
                child.type, child.tag = "hardbreak", "br"


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return -1


@dataclass
class _Trace:
    """What rendering an embed read (files and their modification times) and which callouts it drew."""

    files: dict[str, int] = field(default_factory=dict)
    callouts: dict[str, bool] = field(default_factory=dict)

    def read(self, path: Path) -> None:
        self.files[str(path)] = _mtime(str(path))

    def add(self, other: _Trace) -> None:
        self.files.update(other.files)
        self.callouts.update(other.callouts)

    def current(self) -> bool:
        return all(_mtime(path) == stamp for path, stamp in self.files.items())


def _closing(tokens: list, index: int) -> int:
    level = tokens[index].level
    for other in range(index + 1, len(tokens)):
        if tokens[other].type == "blockquote_close" and tokens[other].level == level:
            return other
    return len(tokens) - 1



class MarkdownRenderer:
    """One configured markdown-it instance.

    ``vault`` resolves links and embeds (without one, embeds render as links and only
    ``exists`` marks unresolved wikilinks). ``folds`` holds the callouts the user opened or
    closed, by key, so a re-render keeps them.
    """

    def __init__(self, exists: Callable[[Link], bool] | None = None, css: str = "",
                 vault: Vault | None = None, dark: bool = False) -> None:
        self.exists = exists
        self.css = css
        self.vault = vault
        self.dark = dark
        self.folds: dict[str, bool] = {}  # callout key → open, as the user left it
        self.callouts: dict[str, bool] = {}  # callout key → open, as last rendered
        self._embeds: dict[tuple, tuple[str, _Trace]] = {}  # rendered note embeds and what they were made of
        self.embedded_files: frozenset[str] = frozenset()  # files the last page render embedded, at any depth
        md = MarkdownIt("commonmark", {"html": True, "linkify": False, "typographer": False})
        md.enable(["table", "strikethrough"])
        md.use(front_matter_plugin)
        md.use(tasklists_plugin)
        md.inline.ruler.before("link", "wikilink", _wikilink_rule)
        md.inline.ruler.before("emphasis", "tag", _tag_rule)
        md.add_render_rule("tag", lambda _r, tokens, idx, _o, _e: (
            f'<a class="tag" href="{TAG_SCHEME}:{quote(tokens[idx].content, safe="/")}">'
            f'#{html.escape(tokens[idx].content)}</a>'))
        md.inline.ruler.before("image", "markdown_embed", _markdown_embed_rule)
        md.core.ruler.after("block", "callouts", self._callout_rule)
        md.core.ruler.after("inline", "embed_paragraphs", _embed_paragraphs_rule)
        md.core.ruler.after("embed_paragraphs", "embed_lines", _embed_lines_rule)
        md.core.ruler.push("block_ids", _block_ids_rule)  # after text_join, so a line is one text token
        # markdown-it binds render rules to its renderer, so pass closures over this object.
        md.add_render_rule("wikilink", lambda _r, tokens, idx, _o, env: self._render_link(tokens[idx], env))
        md.add_render_rule("image", lambda _r, tokens, idx, _o, _e: self._render_image(tokens[idx]))
        md.add_render_rule("front_matter", lambda _r, tokens, idx, _o, _e: self._render_front_matter(tokens, idx))
        md.add_render_rule("blockquote_open", lambda r, tokens, idx, o, env: self._quote_open(r, tokens, idx, o, env))
        md.add_render_rule("blockquote_close", lambda r, tokens, idx, o, _e: self._quote_close(r, tokens, idx, o))
        self.md = md

    # -- links and embeds ----------------------------------------------------------------------
    def _resolve(self, link: Link, env: dict[str, Any]) -> Path | None:
        if self.vault is None:
            return None
        return self.vault.resolve(link, env.get("source"))

    def _missing(self, link: Link, env: dict[str, Any]) -> bool:
        if not link.target:
            return False
        if self.vault is not None:
            return self._resolve(link, env) is None
        return self.exists is not None and not self.exists(link)

    def _render_link(self, token: Any, env: dict[str, Any]) -> str:
        link: Link = token.meta["link"]
        if link.embed and self.vault is not None:
            path = self._resolve(link, env) if link.target else env.get("source")
            if path is not None:
                return self._render_embed(link, path, env)
        cls = "wikilink missing" if self._missing(link, env) else "wikilink"
        title = html.escape(link.target + (f"#{link.subpath}" if link.subpath else ""), quote=True)
        href = html.escape(wikilink_href(link), quote=True)
        label = embed_size(link.alias)[0] or link.target if link.embed else link.label
        return f'<a class="{cls}" href="{href}" title="{title}">{html.escape(label)}</a>'

    def _render_embed(self, link: Link, path: Path, env: dict[str, Any]) -> str:
        assert self.vault is not None
        rel = self.vault.rel(path)
        suffix = path.suffix.lower()
        env.setdefault("trace", _Trace()).read(path)
        if suffix in IMAGE_SUFFIXES:
            alt, width, height = embed_size(link.alias)
            src = html.escape(embed_href(rel, width, height), quote=True)
            label = html.escape(alt or path.name, quote=True)
            return (f'<a class="embed-image" href="{html.escape(embed_href(rel), quote=True)}" title="{label}">'
                    f'<img src="{src}" alt="{label}" /></a>')
        if suffix == ".md":
            return self._render_note_embed(link, path, rel, env)
        name = html.escape(path.name)
        return (f'<a class="attachment" href="{html.escape(embed_href(rel), quote=True)}">'
                f'<img src="{ICON_SCHEME}:attachment" width="14" height="14"> {name}</a>')

    def _render_note_embed(self, link: Link, path: Path, rel: str, env: dict[str, Any]) -> str:
        assert self.vault is not None
        target = rel[:-3] if rel.lower().endswith(".md") else rel
        heading = Link(kind=WIKI, start=0, end=0, target=target, subpath=link.subpath)
        title = html.escape(path.stem + (f" \u203a {link.subpath}" if link.subpath else ""))
        head = (f'<tr><td class="embed-title"><a class="wikilink" href="{html.escape(wikilink_href(heading), quote=True)}">'
                f"{title}</a></td></tr>")
        key = (str(path), link.subpath or "")
        stack: tuple[tuple[str, str], ...] = env.get("stack", ())
        depth = env.get("depth", 0) + 1
        if key in stack:
            body = '<p class="embed-note">This embed leads back to a page already shown above: not shown again.</p>'
        elif depth > MAX_EMBED_DEPTH:
            body = '<p class="embed-note">Embedded too deeply to show here: open the page.</p>'
        else:
            child = {"source": path, "depth": depth, "stack": (*stack, key),
                     "key": f"{env.get('key', '')}/{rel}#{link.subpath or ''}", "trace": _Trace()}
            body = self._embed_body(path, rel, link.subpath, child)
            env.setdefault("trace", _Trace()).add(child["trace"])
        colours = _CALLOUT_COLOURS["quote"]
        return (f'<table class="embed" width="100%" border="1" cellspacing="0" cellpadding="6" '
                f'style="border-color: {colours[0]}">{head}<tr><td class="embed-body">{body}</td></tr></table>\n')

    def _embed_body(self, path: Path, rel: str, subpath: str | None, env: dict[str, Any]) -> str:
        """The embedded page's HTML, reused while no file it was made from has changed.

        Typing re-renders the page every pause; without this, each embedded page (and the
        pages it embeds) would be parsed again each time.
        """
        assert self.vault is not None
        trace: _Trace = env["trace"]
        cache_key = (str(path), subpath or "", env["depth"], env["stack"], env["key"], self.dark,
                     tuple(sorted(self.folds.items())))
        hit = self._embeds.get(cache_key)
        if hit is not None and hit[1].current():
            trace.add(hit[1])
            self.callouts.update(hit[1].callouts)
            return hit[0]
        trace.read(path)
        try:
            text = section_text(self.vault.read(path), subpath)
        except OSError as error:
            return f'<p class="embed-note">Cannot read {html.escape(rel)}: {html.escape(str(error))}</p>'
        if text is None:
            body = f'<p class="embed-note">No “{html.escape(subpath or "")}” in {html.escape(path.stem)}.</p>'
        else:
            body = self.render_body(text, env=env)
        if len(self._embeds) >= EMBED_CACHE_SIZE:
            self._embeds.clear()
        self._embeds[cache_key] = (body, trace)
        return body

    def forget_embeds(self) -> None:
        """Files appeared, moved or vanished: a link inside an embedded page may now name another file."""
        self._embeds.clear()

    def _render_image(self, token: Any) -> str:
        """A markdown image the grammar does not call a vault file: a URL. Never loaded, shown as a link."""
        src = token.attrGet("src") or ""
        alt = html.escape(token.content or src)
        return (f'<a class="remote-image" href="{html.escape(src, quote=True)}">'
                f'<img src="{ICON_SCHEME}:image" width="14" height="14"> {alt}</a>')

    # -- callouts ---------------------------------------------------------------------------
    def _callout_rule(self, state: StateCore) -> None:
        """``> [!type]± Title`` on a blockquote's first line makes it a callout; a folded one drops its body."""
        tokens = state.tokens
        index = 0
        while index < len(tokens):
            token = tokens[index]
            if (token.type == "blockquote_open" and index + 2 < len(tokens)
                    and tokens[index + 1].type == "paragraph_open" and tokens[index + 2].type == "inline"):
                match = _CALLOUT_RE.match(tokens[index + 2].content)
                if match:
                    self._make_callout(tokens, index, match, state.env)
            index += 1

    def _make_callout(self, tokens: list, index: int, match: re.Match[str], env: MutableMapping[str, Any]) -> None:
        close = _closing(tokens, index)
        kind = match.group("kind").lower()
        fold = match.group("fold")
        line = tokens[index].map[0] if tokens[index].map else index
        key = f"{env.get('key', '')}:{line}"
        is_open = self.folds.get(key, fold != "-") if fold else True
        title = match.group("title").strip() or kind.capitalize()
        meta = {"kind": kind, "title": title, "fold": fold, "open": is_open, "key": key}
        self.callouts[key] = is_open
        if "trace" in env:
            env["trace"].callouts[key] = is_open
        tokens[index].meta = {**(tokens[index].meta or {}), "callout": meta}
        tokens[close].meta = {**(tokens[close].meta or {}), "callout": meta}
        inline = tokens[index + 2]
        rest = inline.content[match.end():]
        if not is_open:
            del tokens[index + 1 : close]
        elif rest.strip():
            inline.content = rest
        else:
            del tokens[index + 1 : index + 4]

    def _quote_open(self, renderer: Any, tokens: list, idx: int, options: Any, env: dict[str, Any]) -> str:
        meta = (tokens[idx].meta or {}).get("callout")
        if meta is None:
            return renderer.renderToken(tokens, idx, options, env)
        style, icon = _CALLOUT_STYLES.get(meta["kind"], ("note", "\u270e"))
        accent, light, dark = _CALLOUT_COLOURS[style]
        title = self.md.renderInline(meta["title"], dict(env))
        if meta["fold"]:
            arrow = "\u25be" if meta["open"] else "\u25b8"
            href = html.escape(f"{CALLOUT_SCHEME}:{quote(meta['key'])}", quote=True)
            state = "open" if meta["open"] else "folded"
            head = f'<a class="callout-fold" href="{href}" title="{state}: click to toggle">{arrow} {icon}</a> {title}'
        else:
            head = f"{icon} {title}"
        background = dark if self.dark else light
        table = (f'<table class="callout" width="100%" border="1" cellspacing="0" cellpadding="6" '
                 f'style="border-color: {accent}"><tr><td class="callout-title" '
                 f'style="color: {accent}; background-color: {background}"><b>{head}</b></td></tr>')
        return table + (f'<tr><td class="callout-body" style="background-color: {background}">' if meta["open"] else "")

    def _quote_close(self, renderer: Any, tokens: list, idx: int, options: Any) -> str:
        meta = (tokens[idx].meta or {}).get("callout")
        if meta is None:
            return renderer.renderToken(tokens, idx, options, {})
        return "</td></tr></table>\n" if meta["open"] else "</table>\n"

    # -- front matter and documents ---------------------------------------------------------
    def _render_front_matter(self, tokens: list, idx: int) -> str:
        props = parse_front_matter(tokens[idx].content)
        if not props:
            return ""
        rows = "".join(
            f'<tr><td class="prop-key">{html.escape(k)}</td><td class="prop-value">{html.escape(v)}</td></tr>'
            for k, v in props
        )
        return f'<table class="properties" cellspacing="0" cellpadding="4">{rows}</table>\n'

    def render_body(self, text: str, source: Path | None = None, env: dict[str, Any] | None = None) -> str:
        """Sanitized HTML of ``text`` (a page linking from ``source``); ``env`` carries embed depth."""
        top = env is None
        env = dict(env) if env is not None else {"source": source, "depth": 0, "trace": _Trace(),
                                                 "stack": ((str(source), ""),) if source else ()}
        body = self.md.render(strip_comments(text.replace("\r\n", "\n")), env)
        if top:
            self.embedded_files = frozenset(env["trace"].files)
        body = _CHECKED_RE.sub("\u2611", body)
        return sanitize(_UNCHECKED_RE.sub("\u2610", body))

    def render(self, text: str, source: Path | None = None) -> str:
        """A full HTML document for QTextBrowser.setHtml."""
        style = f"<style>{self.css}</style>" if self.css else ""
        return f"<html><head>{style}</head><body>{self.render_body(text, source)}</body></html>"


def render(text: str, exists: Callable[[Link], bool] | None = None, css: str = "") -> str:
    """One-shot helper (tests, scripts)."""
    return MarkdownRenderer(exists, css).render(text)


def parse_front_matter(block: str) -> list[tuple[str, str]]:
    """Key/value pairs of a frontmatter block (the text between the ``---`` lines), lists joined."""
    return [(key, meta_text(value)) for key, value in frontmatter(f"---\n{block}\n---\n").items()]


# -- sanitizing ---------------------------------------------------------------------------------
_TAGS = (set(nh3.ALLOWED_TAGS) - {"area", "map"}) | {"font"}
_ATTRIBUTES = {
    "*": {"class", "title", "style", "align"},
    "a": {"href", "name"},
    "img": {"src", "alt", "width", "height"},
    "table": {"width", "border", "cellspacing", "cellpadding"},
    "td": {"colspan", "rowspan", "width", "valign"},
    "th": {"colspan", "rowspan", "width", "valign"},
    "ol": {"start"},
    "li": {"value"},
    "font": {"color"},
}
_STYLE_PROPERTIES = {"color", "background-color", "border-color", "text-align", "font-weight", "font-style",
                     "text-decoration", "vertical-align"}
_SCHEMES = {"http", "https", "mailto", WIKILINK_SCHEME, EMBED_SCHEME, CALLOUT_SCHEME, TAG_SCHEME, ICON_SCHEME}


def _attribute_filter(tag: str, attribute: str, value: str) -> str | None:
    """An image loads only from the vault: any ``src`` that is not an ``embed:`` URL is dropped, and so is
    an ``embed:`` URL the renderer would never write (one with ``..``, an absolute path or a hidden
    part), since a page's raw HTML could otherwise point a click or a load outside the vault."""
    if tag == "img" and attribute == "src" and not value.startswith((EMBED_SCHEME + ":", ICON_SCHEME + ":")):
        return None
    if attribute in ("src", "href") and not _is_own_embed(value):
        return None
    return value


def _is_own_embed(value: str) -> bool:
    """False only for an ``embed:`` URL whose path leaves the vault; every other value is left to the
    scheme allow-list."""
    scheme, _, rest = _URL_NOISE_RE.sub("", value).partition(":")
    return scheme.lower() != EMBED_SCHEME or walkable_rel(unquote(rest.partition("?")[0]))


_CLEANER = nh3.Cleaner(
    tags=_TAGS,
    clean_content_tags={"script", "style"},
    attributes=_ATTRIBUTES,
    attribute_filter=_attribute_filter,
    url_schemes=_SCHEMES,
    filter_style_properties=_STYLE_PROPERTIES,
    link_rel=None,
    strip_comments=True,
)


def sanitize(body: str) -> str:
    """The rendered body through the allow-list: raw HTML in a page can show, never run or fetch."""
    return _EMPTY_PARAGRAPH_RE.sub("", _SOURCELESS_IMG_RE.sub("", _CLEANER.clean(body)))


def preview_css(dark: bool) -> str:
    """Qt's rich-text CSS subset, tuned per theme."""
    fg, muted, link, missing, code_bg, border, head = (
        ("#dcdcdc", "#9a9a9a", "#8ab4f8", "#e08a8a", "#2b2d31", "#44474d", "#f0f0f0")
        if dark
        else ("#1f2328", "#656d76", "#0b57d0", "#b3261e", "#f3f4f6", "#d0d7de", "#111111")
    )
    return f"""
body {{ color: {fg}; font-size: 11pt; }}
h1, h2, h3, h4 {{ color: {head}; margin-top: 14px; margin-bottom: 6px; }}
h1 {{ font-size: 20pt; }} h2 {{ font-size: 15pt; }} h3 {{ font-size: 13pt; }}
a {{ color: {link}; text-decoration: none; }}
a.missing {{ color: {missing}; }}
a.tag {{ color: {link}; background-color: {code_bg}; }}
code {{ background-color: {code_bg}; font-family: monospace; }}
pre {{ background-color: {code_bg}; font-family: monospace; padding: 8px; white-space: pre-wrap; }}
blockquote {{ color: {muted}; margin-left: 12px; padding-left: 8px; }}
table {{ border-collapse: collapse; margin: 6px 0; }}
th {{ background-color: {code_bg}; font-weight: 600; padding: 4px 8px; border: 1px solid {border}; white-space: nowrap; }}
td {{ padding: 4px 8px; border: 1px solid {border}; }}
table.properties {{ border: 1px solid {border}; margin-bottom: 12px; }}
td.prop-key {{ color: {muted}; font-weight: 600; }}
td.prop-value {{ color: {fg}; }}
td.embed-title {{ background-color: {code_bg}; font-weight: 600; }}
p.embed-note {{ color: {muted}; font-style: italic; }}
li.task-list-item {{ list-style-type: none; }}
"""
