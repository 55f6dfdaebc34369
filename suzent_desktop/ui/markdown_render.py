"""Markdown → HTML for the preview pane (a QTextBrowser, so only Qt's rich-text subset).

markdown-it-py with tables, strikethrough, task lists and front matter; a small inline rule
registered before ``link`` turns the wikilinks of :mod:`suzent_desktop.core.markdown`'s grammar
(``[[Page]]``, ``[[Page#Heading]]``, ``[[Page|alias]]``, ``![[file]]``) into ``wikilink:`` anchors the editor resolves inside the app. Front matter is shown as a
properties table, the way Obsidian does. This module imports no Qt, so it is cheap to test.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from urllib.parse import quote, unquote

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from mdit_py_plugins.front_matter import front_matter_plugin
from mdit_py_plugins.tasklists import tasklists_plugin

from suzent_desktop.core.markdown import (
    Link,
    frontmatter,
    heading_line,
    meta_text,
    parse_wikilink,
    wikilink_at,
)

__all__ = ["Link", "MarkdownRenderer", "heading_line", "parse_href", "parse_wikilink", "render", "wikilink_href"]

WIKILINK_SCHEME = "wikilink"
_CHECKED_RE = re.compile(r'<input class="task-list-item-checkbox" checked="checked"[^>]*>')
_UNCHECKED_RE = re.compile(r'<input class="task-list-item-checkbox"[^>]*>')


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


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    """Inline rule: consume ``[[...]]`` / ``![[...]]`` before markdown-it's own link rules see the bracket.

    Code spans are consumed by markdown-it's ``backticks`` rule first, so a link inside
    inline code stays code, as :func:`suzent_desktop.core.markdown.links` says.
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


Resolver = Callable[[Link], bool]


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
        link: Link = tokens[idx].meta["link"]
        missing = self.exists is not None and link.target and not self.exists(link)
        cls = "wikilink missing" if missing else "wikilink"
        title = html.escape(link.target + (f"#{link.subpath}" if link.subpath else ""), quote=True)
        href = html.escape(wikilink_href(link), quote=True)
        return f'<a class="{cls}" href="{href}" title="{title}">{html.escape(link.label)}</a>'

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


def parse_front_matter(block: str) -> list[tuple[str, str]]:
    """Key/value pairs of a frontmatter block (the text between the ``---`` lines), lists joined."""
    return [(key, meta_text(value)) for key, value in frontmatter(f"---\n{block}\n---\n").items()]


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
