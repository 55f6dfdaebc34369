"""Wiring a page editor's Live Preview to its page: how embeds resolve and render, and what a
click on a link (Ctrl/Cmd: in a new tab), a web address or a tag does. Kept apart so the editor module only calls it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from suzent_desktop.core.files.language.markdown import MARKDOWN, Link
from suzent_desktop.ui.base import theme
from suzent_desktop.ui.live.live_preview import LiveEditor, LivePreviewHighlighter
from suzent_desktop.ui.page.hover_preview import HoverTarget, preview_markdown
from suzent_desktop.ui.reading.markdown_render import MarkdownRenderer, embed_href, preview_css, wikilink_href


def link_href(link: Link, vault_rel: Any = None) -> str:
    """The href the page's link-following understands for a link clicked in the editor."""
    if link.embed:
        return embed_href(vault_rel(link)) if vault_rel is not None else ""
    if link.kind == MARKDOWN:
        return link.target + (f"#{link.subpath}" if link.subpath else "")
    return wikilink_href(link)


def connect_live_editor(page: Any, source: LiveEditor, highlighter: LivePreviewHighlighter) -> None:
    """``page`` is the PageEditor: its vault, path, ``follow_link`` and ``tag_activated``."""
    source.attach(highlighter)
    vault = page.vault
    embeds = MarkdownRenderer(None, "", vault, dark=theme.is_dark())  # used on the live-preview worker only

    def resolve(link: Link) -> Path | None:
        if vault is None:
            return None
        return vault.resolve(link, page.path) if link.target else None

    def render_note(path: Path, subpath: str | None, dark: bool) -> str:
        markdown = preview_markdown(HoverTarget(path, subpath, "live"), vault)
        embeds.dark = dark
        embeds.css = preview_css(dark)
        return embeds.render(markdown, path)

    def vault_rel(link: Link) -> str:
        path = resolve(link)
        return vault.rel(path) if path is not None and vault is not None else link.target

    def clicked(link: Link, new_tab: bool) -> None:
        page.follow_in_place = not new_tab  # a plain click opens the page in this tab, as in Obsidian
        try:
            if link.embed:
                path = resolve(link)
                if path is not None and path.suffix.lower() == ".md":
                    page.link_activated.emit(link.target, link.heading)
                    return
            page.follow_link(link_href(link, vault_rel))
        finally:
            page.follow_in_place = False

    source.resolve = resolve
    source.render_note = render_note
    source.css = preview_css(theme.is_dark())
    source.link_clicked.connect(clicked)
    source.url_clicked.connect(page.follow_link)
    source.tag_clicked.connect(page.tag_activated.emit)
