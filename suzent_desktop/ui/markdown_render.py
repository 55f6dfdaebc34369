"""Markdown → HTML for the preview pane (a QTextBrowser, so only Qt's rich-text subset).

markdown-it-py with tables, strikethrough, task lists and front matter; a small inline rule
registered before ``link`` turns ``[[Page]]``, ``[[Page#Heading]]`` and ``[[Page|alias]]``
into ``wikilink:`` anchors the editor resolves inside the app. Front matter is shown as a
properties table, the way Obsidian does. This module imports no Qt, so it is cheap to test.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote, unquote

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from mdit_py_plugins.front_matter import front_matter_plugin
from mdit_py_plugins.tasklists import tasklists_plugin

WIKILINK_SCHEME = "wikilink"
_WIKILINK_RE = re.compile(r"\[\[([^\[\]\n|#]*)(?:#([^\[\]\n|]*))?(?:\|([^\[\]\n]*))?\]\]")
_CHECKED_RE = re.compile(r'<input class="task-list-item-checkbox" checked="checked"[^>]*>')
_UNCHECKED_RE = re.compile(r'<input class="task-list-item-checkbox"[^>]*>')


@dataclass(frozen=True)
class WikiLink:
    """One parsed ``[[target#heading|alias]]``."""

    target: str
    heading: str | None = None
    alias: str | None = None

    @property
    def label(self) -> str:
        if self.alias:
            return self.alias
        if self.heading and self.target:
            return f"{self.target} › {self.heading}"
        return self.target or (self.heading or "")

    def href(self) -> str:
        href = f"{WIKILINK_SCHEME}:{quote(self.target)}"
        if self.heading:
            href += "#" + quote(self.heading)
        return href


def parse_wikilink(text: str) -> WikiLink | None:
    """Parse a whole ``[[...]]`` string; None if it is not one."""
    match = _WIKILINK_RE.fullmatch(text.strip())
    if not match:
        return None
    return _from_match(match)


def _from_match(match: re.Match[str]) -> WikiLink:
    target, heading, alias = match.group(1), match.group(2), match.group(3)
    return WikiLink(
        target=target.strip(),
        heading=heading.strip() if heading else None,
        alias=alias.strip() if alias else None,
    )


def find_wikilinks(text: str) -> list[tuple[int, int, WikiLink]]:
    """Every wikilink in ``text`` with its span, for link rewriting and backlinks."""
    return [(m.start(), m.end(), _from_match(m)) for m in _WIKILINK_RE.finditer(text)]


def parse_href(href: str) -> tuple[str, str | None] | None:
    """Invert :meth:`WikiLink.href`: ``wikilink:Page#h`` → ("Page", "h")."""
    if not href.startswith(WIKILINK_SCHEME + ":"):
        return None
    rest = href[len(WIKILINK_SCHEME) + 1 :]
    target, _, heading = rest.partition("#")
    return unquote(target), (unquote(heading) or None)


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    """Inline rule: consume ``[[...]]`` before markdown-it's own ``link`` rule sees the bracket."""
    src, pos = state.src, state.pos
    if not src.startswith("[[", pos):
        return False
    match = _WIKILINK_RE.match(src, pos)
    if not match:
        return False
    link = _from_match(match)
    if not link.target and not link.heading:
        return False
    if not silent:
        token = state.push("wikilink", "a", 0)
        token.meta = {"link": link}
        token.content = match.group(0)
    state.pos = match.end()
    return True


Resolver = Callable[[WikiLink], bool]


class MarkdownRenderer:
    """One configured markdown-it instance; ``exists`` marks unresolved wikilinks."""

    def __init__(self, exists: Resolver | None = None, css: str = "") -> None:
        self.exists = exists
        self.css = css
        md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
        md.enable(["table", "strikethrough"])
        md.use(front_matter_plugin)
        md.use(tasklists_plugin)
        md.inline.ruler.before("link", "wikilink", _wikilink_rule)
        # markdown-it binds render rules to its renderer, so pass closures over this object.
        md.add_render_rule("wikilink", lambda _r, tokens, idx, _o, _e: self._render_wikilink(tokens, idx))
        md.add_render_rule("front_matter", lambda _r, tokens, idx, _o, _e: self._render_front_matter(tokens, idx))
        self.md = md

    def _render_wikilink(self, tokens: list, idx: int) -> str:
        link: WikiLink = tokens[idx].meta["link"]
        missing = self.exists is not None and link.target and not self.exists(link)
        cls = "wikilink missing" if missing else "wikilink"
        title = html.escape(link.target + (f"#{link.heading}" if link.heading else ""), quote=True)
        return f'<a class="{cls}" href="{html.escape(link.href(), quote=True)}" title="{title}">{html.escape(link.label)}</a>'

    def _render_front_matter(self, tokens: list, idx: int) -> str:
        props = parse_front_matter(tokens[idx].content)
        if not props:
            return ""
        rows = "".join(
            f'<tr><td class="prop-key">{html.escape(k)}</td><td class="prop-value">{html.escape(v)}</td></tr>'
            for k, v in props
        )
        return f'<table class="properties" cellspacing="0" cellpadding="4">{rows}</table>\n'

    def render_body(self, text: str) -> str:
        body = self.md.render(text.replace("\r\n", "\n"))
        body = _CHECKED_RE.sub("\u2611", body)
        return _UNCHECKED_RE.sub("\u2610", body)

    def render(self, text: str) -> str:
        """A full HTML document for QTextBrowser.setHtml."""
        style = f"<style>{self.css}</style>" if self.css else ""
        return f"<html><head>{style}</head><body>{self.render_body(text)}</body></html>"


def render(text: str, exists: Resolver | None = None, css: str = "") -> str:
    """One-shot helper (tests, scripts)."""
    return MarkdownRenderer(exists, css).render(text)


def parse_front_matter(text: str) -> list[tuple[str, str]]:
    """Key/value pairs of simple YAML front matter, lists joined with commas.

    A full YAML parser is not a dependency; notebook front matter is flat (``tags: [a, b]``,
    ``aliases:`` followed by ``- item`` lines, ``updated: 2026-07-01``), which this covers.
    """
    props: list[tuple[str, str]] = []
    current_key: str | None = None
    items: list[str] = []

    def flush() -> None:
        if current_key is not None:
            props.append((current_key, ", ".join(items)))

    for raw in text.splitlines():
        line = raw.rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        stripped = line.strip()
        if stripped.startswith("- ") and current_key is not None:
            items.append(_unquote(stripped[2:].strip()))
            continue
        key, sep, value = line.partition(":")
        if not sep or line[0].isspace():
            continue
        flush()
        current_key = key.strip()
        value = value.strip()
        if value.startswith("[") and value.endswith("]"):
            items = [_unquote(v.strip()) for v in value[1:-1].split(",") if v.strip()]
        else:
            items = [_unquote(value)] if value else []
    flush()
    return props


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def split_front_matter(text: str) -> tuple[str, str]:
    """(front matter block incl. fences, body) — used to keep front matter out of previews' word counts."""
    if not text.startswith("---"):
        return "", text
    lines = text.splitlines(keepends=True)
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            return "".join(lines[: i + 1]), "".join(lines[i + 1 :])
    return "", text


def heading_line(text: str, heading: str) -> int | None:
    """1-based line of the first ATX heading whose text matches ``heading`` (case-insensitive)."""
    want = heading.strip().lower()
    in_fence = False
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        match = re.match(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match and match.group(1).strip().lower() == want:
            return number
    return None


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
code {{ background-color: {code_bg}; font-family: monospace; }}
pre {{ background-color: {code_bg}; font-family: monospace; padding: 8px; }}
blockquote {{ color: {muted}; margin-left: 12px; padding-left: 8px; }}
table {{ border-collapse: collapse; margin: 6px 0; }}
th {{ background-color: {code_bg}; font-weight: 600; padding: 4px 8px; border: 1px solid {border}; }}
td {{ padding: 4px 8px; border: 1px solid {border}; }}
table.properties {{ border: 1px solid {border}; margin-bottom: 12px; }}
td.prop-key {{ color: {muted}; font-weight: 600; }}
td.prop-value {{ color: {fg}; }}
li.task-list-item {{ list-style-type: none; }}
"""
