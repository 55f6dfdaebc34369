"""Markdown preview rendering: wikilinks in every form, embeds, tables, task lists, front matter."""

from __future__ import annotations

from suzent_desktop.core.files.language.markdown import heading_line, links, parse_wikilink
from suzent_desktop.ui.reading.markdown_render import parse_front_matter, parse_href, render, wikilink_href


def test_wikilink_forms_render_as_in_app_anchors() -> None:
    html = render("See [[Page]], [[Page#Sec]] and [[Folder/Page#Sec|the alias]].")
    assert '<a class="wikilink" href="wikilink:Page" title="Page">Page</a>' in html
    assert 'href="wikilink:Page#Sec"' in html and ">Page › Sec</a>" in html
    assert 'href="wikilink:Folder/Page#Sec"' in html and ">the alias</a>" in html
    assert "[[" not in html


def test_wikilink_rule_runs_before_link_and_leaves_markdown_links_alone() -> None:
    html = render("[[Page]] then [text](other.md) and [x][y]\n\n[y]: https://example.org")
    assert 'href="other.md"' in html and 'href="https://example.org"' in html
    assert 'href="wikilink:Page"' in html


def test_wikilinks_in_code_stay_literal() -> None:
    html = render("`[[Page]]`\n\n```\n[[Other]]\n```\n")
    assert "wikilink:" not in html and "[[Page]]" in html and "[[Other]]" in html


def test_missing_pages_are_marked() -> None:
    html = render("[[Here]] [[Gone]]", exists=lambda link: link.target == "Here")
    assert 'class="wikilink" href="wikilink:Here"' in html
    assert 'class="wikilink missing" href="wikilink:Gone"' in html


def test_tables_and_task_lists() -> None:
    html = render("| a | b |\n|---|---|\n| 1 | 2 |\n\n- [ ] todo\n- [x] done\n")
    assert "<table>" in html and "<td>1</td>" in html
    assert "\u2610 todo" in html and "\u2611 done" in html
    assert "<input" not in html  # QTextBrowser cannot draw form inputs


def test_front_matter_becomes_a_properties_table() -> None:
    text = "---\ntags: [personal, preferences]\naliases:\n  - Likes\n  - Prefs\nupdated: 2026-07-05\n---\n# Title\n"
    html = render(text)
    assert 'class="properties"' in html
    assert "personal, preferences" in html and "Likes, Prefs" in html and "2026-07-05" in html
    assert html.index("properties") < html.index("<h1>Title</h1>")
    assert "tags:" not in html


def test_front_matter_parser_and_link_helpers() -> None:
    assert parse_front_matter('title: "Quoted"\nempty:\n') == [("title", "Quoted"), ("empty", "")]
    link = parse_wikilink("[[A#b|c]]")
    assert (link.target, link.heading, link.alias) == ("A", "b", "c")
    assert parse_wikilink("not a link") is None
    assert [link.target for link in links("x [[A]] y [[B|b]]")] == ["A", "B"]
    spaced = parse_wikilink("[[Page with space#Héading]]")
    assert parse_href(wikilink_href(spaced)) == ("Page with space", "Héading")
    assert heading_line("# T\n```\n# not\n```\n## Sub  \n", "sub") == 5


def test_embeds_and_escaped_pipes_render_as_links() -> None:
    html = render("![[cat.png]] and | [[Table view\\|Table]] |")
    assert 'href="wikilink:cat.png"' in html and "!<a" not in html
    assert 'href="wikilink:Table%20view"' in html and ">Table</a>" in html


def test_html_in_pages_is_sanitized_and_link_labels_escaped() -> None:
    html = render("<script>alert(1)</script> and more\n\nsee [[<b>x</b>]]")
    assert "<script" not in html and "alert" not in html
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html


def test_block_ids_are_hidden_but_kept_in_code() -> None:
    html = render("A claim. ^claim-1\n\n- item ^i2\n\n`x ^kept`\n\nnot^anid\n")
    assert "^claim-1" not in html and "A claim." in html and "^i2" not in html
    assert "x ^kept" in html and "not^anid" in html
