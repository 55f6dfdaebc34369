"""Unlinked mentions: what counts as a mention (table-driven), and linking one as an atomic, undoable edit."""

from __future__ import annotations

from pathlib import Path

import pytest

from suzent_desktop.core.files.language.markdown import links
from suzent_desktop.core.vault.mentions import (
    MentionError,
    link_mention,
    mention_names,
    undo_link_mention,
    unlinked_mentions,
)

P = Path("/v/Notes.md")

ROWS = [
    # (page text, names, mentions as written)
    ("We flew to Japan in May.", ["Japan"], ["Japan"]),
    ("japan and JAPAN both count", ["Japan"], ["japan", "JAPAN"]),
    ("Japanese food, Japan's rivers", ["Japan"], ["Japan"]),  # whole words only; "Japan's" counts
    ("See [[Japan]] and [japan](Japan.md) and ![[Japan.png]]", ["Japan"], []),  # links and embeds
    ("[[Trips|Japan trip]] then Japan", ["Japan"], ["Japan"]),  # a link's alias is part of the link
    ("`Japan` in code\n\n```\nJapan\n```\n\n    Japan indented", ["Japan"], []),
    ("---\ntitle: Japan\n---\nBody", ["Japan"], []),  # frontmatter
    ("#Japan and #trip/Japan are tags", ["Japan"], []),
    ("https://example.org/Japan and www.japan.example and a@japan.jp", ["Japan"], []),
    ("Japan.md is a file name; Japan. ends a sentence", ["Japan"], ["Japan"]),
    ("New York City and New York", ["New York", "New York City"], ["New York City", "New York"]),  # longest first
    ("| Japan | 2026 |\n|---|---|", ["Japan"], ["Japan"]),
    ("Nippon is another name", ["Japan", "Nippon"], ["Nippon"]),  # an alias
    ("", ["Japan"], []),
]


@pytest.mark.parametrize(("text", "names", "expected"), ROWS, ids=[r[0][:30] for r in ROWS])
def test_what_counts_as_an_unlinked_mention(text: str, names: list[str], expected: list[str]) -> None:
    assert [m.text for m in unlinked_mentions(P, text, names)] == expected


def test_names_are_the_page_name_and_its_aliases() -> None:
    text = "---\naliases: [Nippon, 日本]\n---\n# Japan\n"
    assert mention_names(Path("/v/Places/Japan.md"), text) == ["Japan", "Nippon", "日本"]


def test_a_mention_carries_its_line_and_context() -> None:
    text = "# Notes\n\nFirst line.\n  Trip to japan soon.  \n"
    (mention,) = unlinked_mentions(P, text, ["Japan"])
    assert (mention.line, mention.context, text[mention.start : mention.end]) == (4, "Trip to japan soon.", "japan")


@pytest.mark.parametrize(
    ("text", "target", "expected"),
    [
        ("Trip to Japan soon.\n", "Japan", "Trip to [[Japan]] soon.\n"),
        ("Trip to japan soon.\n", "Japan", "Trip to [[Japan|japan]] soon.\n"),  # the words stay as written
        ("Trip to Japan.\n", "Places/Japan", "Trip to [[Places/Japan|Japan]].\n"),  # the shortest unique target
        ("| japan | x |\r\n|---|---|\r\n", "Japan", "| [[Japan\\|japan]] | x |\r\n|---|---|\r\n"),  # table, CRLF
    ],
)
def test_linking_a_mention_rewrites_exactly_it(tmp_path: Path, text: str, target: str, expected: str) -> None:
    page = tmp_path / "Notes.md"
    page.write_bytes(text.encode("utf-8"))
    (mention,) = unlinked_mentions(page, text, ["Japan"])
    done = link_mention(mention, target)
    assert page.read_bytes().decode("utf-8") == expected
    (link,) = links(expected)
    assert link.target == target
    assert unlinked_mentions(page, expected, ["Japan"]) == []
    assert done.changes.changed == {page} and "Linked" in done.changes.message
    undo_link_mention(done)
    assert page.read_bytes() == text.encode("utf-8")


def test_linking_refuses_a_page_changed_since_and_undo_refuses_to_lose_an_edit(tmp_path: Path) -> None:
    page = tmp_path / "Notes.md"
    page.write_text("Japan here.\n", encoding="utf-8")
    (mention,) = unlinked_mentions(page, page.read_text(encoding="utf-8"), ["Japan"])
    page.write_text("Now Japan moved.\n", encoding="utf-8")
    with pytest.raises(MentionError, match="changed since"):
        link_mention(mention, "Japan")
    assert page.read_text(encoding="utf-8") == "Now Japan moved.\n"
    (mention,) = unlinked_mentions(page, page.read_text(encoding="utf-8"), ["Japan"])
    done = link_mention(mention, "Japan")
    page.write_text(page.read_text(encoding="utf-8") + "More words.\n", encoding="utf-8")
    with pytest.raises(MentionError, match="edited after"):
        undo_link_mention(done)
    assert page.read_text(encoding="utf-8") == "Now [[Japan]] moved.\nMore words.\n"


def test_a_page_that_is_not_utf8_is_left_alone(tmp_path: Path) -> None:
    page = tmp_path / "Notes.md"
    page.write_bytes(b"Japan \xff here\n")
    (mention,) = unlinked_mentions(page, "Japan \ufffd here\n", ["Japan"])
    with pytest.raises(MentionError, match="not valid UTF-8"):
        link_mention(mention, "Japan")
    assert page.read_bytes() == b"Japan \xff here\n"
