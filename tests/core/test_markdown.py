"""The one markdown grammar: one row per link form and per code/fence case."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import suzent_desktop.core.files.language.markdown as grammar
from suzent_desktop.core.files.language.markdown import (
    EMBED,
    MARKDOWN,
    WIKI,
    FenceTracker,
    code_lines,
    frontmatter,
    frontmatter_lines,
    heading_line,
    links,
    meta_list,
    rewrite_links,
    tags,
)

# (source, [(kind, target, subpath, alias)]) — what a reader of the page sees as links
LINK_ROWS = [
    ("[[Page]]", [(WIKI, "Page", None, None)]),
    ("[[Page|alias]]", [(WIKI, "Page", None, "alias")]),
    ("[[Page#Heading]]", [(WIKI, "Page", "Heading", None)]),
    ("[[Page#Heading|shown]]", [(WIKI, "Page", "Heading", "shown")]),
    ("[[#Heading]]", [(WIKI, "", "Heading", None)]),
    ("[[Page#^block1]]", [(WIKI, "Page", "^block1", None)]),
    ("[[Folder/Page]]", [(WIKI, "Folder/Page", None, None)]),
    ("[[Page.md]]", [(WIKI, "Page.md", None, None)]),
    ("![[cat.png]]", [(EMBED, "cat.png", None, None)]),
    ("![[Page#Part]]", [(EMBED, "Page", "Part", None)]),
    ("| a | [[Table view\\|Table]] |", [(WIKI, "Table view", None, "Table")]),
    ("[text](rel%20path.md)", [(MARKDOWN, "rel path.md", None, "text")]),
    ("[text](<rel path.md>)", [(MARKDOWN, "rel path.md", None, "text")]),
    ('[text](../up/Page.md#Sec "title")', [(MARKDOWN, "../up/Page.md", "Sec", "text")]),
    ("[jump](#Local)", [(MARKDOWN, "", "Local", "jump")]),
    ("![alt](img/cat.png)", [(EMBED, "img/cat.png", None, "alt")]),
    ("[web](https://example.org/x.md) [mail](mailto:a@b.c)", []),
    ("[[]]", []),
    ("two [[A]] and [[B]] on a line", [(WIKI, "A", None, None), (WIKI, "B", None, None)]),
]

# (source, targets found) — code and frontmatter never hold links
CODE_ROWS = [
    ("`[[InlineCode]]` [[Real]]", ["Real"]),
    ("``a `[[Double]]` b`` [[Real]]", ["Real"]),
    ("`unclosed [[Real]]", ["Real"]),
    ('`link("[[filename]]")` then [[Real]]', ["Real"]),
    ("```\n[[Fenced]]\n```\n[[Real]]", ["Real"]),
    ("~~~\n[[Tilde]]\n~~~\n[[Real]]", ["Real"]),
    ("````\n```\n[[Nested]]\n```\n````\n[[Real]]", ["Real"]),
    ("```\n[[Unclosed]]\n", []),
    ("para\n\n    [[Indented]]\n\n[[Real]]", ["Real"]),
    ("- item\n\n  ```\n  [[InList]]\n  ```\n\n[[Real]]", ["Real"]),
    ("    ```\n\n[[AfterIndentedBackticks]]", ["AfterIndentedBackticks"]),  # indented: a code line, no fence
    ("---\nup: \"[[FrontLink]]\"\n---\n[[Real]]", ["Real"]),
    ("[[Real]]\r\n```\r\n[[Fenced]]\r\n```\r\n", ["Real"]),
]


@pytest.mark.parametrize(("source", "expected"), LINK_ROWS, ids=[r[0] for r in LINK_ROWS])
def test_link_forms(source: str, expected: list[tuple]) -> None:
    found = links(source)
    assert [(lk.kind, lk.target, lk.subpath, lk.alias) for lk in found] == expected
    for link in found:
        assert source[link.start : link.end].endswith(("]]", ")"))


@pytest.mark.parametrize(("source", "expected"), CODE_ROWS, ids=[r[0][:30] for r in CODE_ROWS])
def test_code_and_frontmatter_hold_no_links(source: str, expected: list[str]) -> None:
    assert [lk.target for lk in links(source)] == expected


REWRITE_ROWS = [
    ("[[Old]]", "[[New]]"),
    ("[[Old|alias]]", "[[New|alias]]"),
    ("[[Old#H|a]]", "[[New#H|a]]"),
    ("| [[Old\\|Table]] |", "| [[New\\|Table]] |"),
    ("![[Old#^b]]", "![[New#^b]]"),
    ("[t](Old.md#Sec)", "[t](New.md#Sec)"),
    ("`[[Old]]` [[Old]]", "`[[Old]]` [[New]]"),
    ("```\n[[Old]]\n```\n", "```\n[[Old]]\n```\n"),
]


@pytest.mark.parametrize(("source", "expected"), REWRITE_ROWS, ids=[r[0] for r in REWRITE_ROWS])
def test_rewrite_keeps_form_and_never_touches_code(source: str, expected: str) -> None:
    def new(link):
        if link.target in ("Old", "Old.md"):
            return link.retarget("New.md" if link.target.endswith(".md") else "New")
        return None

    assert rewrite_links(source, new) == expected


def test_frontmatter_aliases_tags_and_fallback() -> None:
    text = "---\ntags: [a, b]\naliases:\n  - Likes\nupdated: 2026-07-05\n---\n# T #notatag\nbody #inline `#code`\n"
    meta = frontmatter(text)
    assert meta_list(meta, "aliases") == ["Likes"]
    assert tags(text) == ["a", "b", "notatag", "inline"]  # Obsidian counts a tag in a heading
    assert frontmatter_lines(text) == 6
    assert frontmatter("---\nkey: [unclosed\nother: x\n---\n") == {"key": "[unclosed", "other": "x"}
    assert frontmatter("no frontmatter") == {}
    assert frontmatter("---\ntag: solo\n---\n") and meta_list({"tag": "solo"}, "tags") == ["solo"]


def test_fence_tracker_is_commonmark() -> None:
    assert code_lines(["```", "x", "~~~", "```", "y"]) == [True, True, True, True, False]
    tracker = FenceTracker()
    assert not tracker.feed("``` inline `code` ```")
    assert not tracker.feed("    ```")
    assert tracker.feed("````") and not tracker.feed("```") and tracker.feed("````")


def test_heading_line_skips_code() -> None:
    assert heading_line("# T\n```\n# not\n```\n## Sub  \n", "sub") == 5
    assert heading_line("# T\n", "missing") is None


def test_no_wikilink_pattern_lives_outside_the_grammar() -> None:
    """Every reader of links goes through this module, so Obsidian's syntax is spelt once."""
    package = Path(grammar.__file__).resolve().parents[2]
    spelt = [str(path.relative_to(package)) for path in package.rglob("*.py")
             if path.name != "markdown.py" and re.search(r"\\\[\\\[", path.read_text(encoding="utf-8"))]
    assert spelt == []
