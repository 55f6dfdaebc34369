"""Paragraph chunking of markdown pages."""

from __future__ import annotations

import pytest

from suzent_desktop.core.files.records.tombstones import normalize
from suzent_desktop.core.index.rows.chunking import (
    MAX_CHUNK_CHARS,
    MERGE_CHUNK_CHARS,
    chunk_markdown,
    embedding_text,
)


def test_frontmatter_is_stripped_and_lines_point_into_the_original() -> None:
    text = "---\ntags: [a, b]\ncreated: 2026-07-01\n---\n# Title\n\nFirst paragraph.\n"
    chunks = chunk_markdown(text)
    assert [c.text for c in chunks] == ["First paragraph."]
    assert "tags" not in embedding_text(chunks[0])
    assert chunks[0].line == 7
    assert text.splitlines()[chunks[0].line - 1] == "First paragraph."


def test_unclosed_frontmatter_fence_is_ordinary_text() -> None:
    chunks = chunk_markdown("---\nnot frontmatter\n")
    assert chunks and "not frontmatter" in chunks[0].text


def test_crlf_files_split_into_paragraphs() -> None:
    long_a, long_b = "a" * 500 + ".", "b" * 500 + "."
    chunks = chunk_markdown(f"# H\r\n\r\n{long_a}\r\n\r\n{long_b}\r\n")
    assert [c.text for c in chunks] == [long_a, long_b]
    assert all("\r" not in c.text for c in chunks)


def test_heading_path_is_kept_with_each_chunk() -> None:
    text = "# Alice\n\nIntro.\n\n## Work\n\nAt Acme.\n\n### 2026\n\nPromoted.\n\n## Home\n\nLisbon.\n"
    by_text = {c.text: c.heading for c in chunk_markdown(text)}
    assert by_text == {
        "Intro.": "Alice",
        "At Acme.": "Alice > Work",
        "Promoted.": "Alice > Work > 2026",
        "Lisbon.": "Alice > Home",
    }
    assert embedding_text(chunk_markdown(text)[1]).startswith("Alice > Work\n")


def test_a_fact_bullet_under_its_pages_own_name_is_embedded_as_its_own_words() -> None:
    """The page's name is its title, weighed apart; in a one-line fact's vector it outweighed the fact.
    A section of the page (History, a person on People) and a prose paragraph keep their heading."""
    hobbies = "# Hobbies\n\n- User builds model railways (2026-07-02)\n"
    assert embedding_text(chunk_markdown(hobbies)[0], "Hobbies") == "User builds model railways"
    people = "# People\n\n## Nate\n\n- Adopted a dog named Max (2026-05-02)\n"
    assert embedding_text(chunk_markdown(people)[0], "People") == "People > Nate\nAdopted a dog named Max"
    work = "# Work\n\n- User works at Fabrikam (2026-07-05)\n\n## History\n\n- ~~User works at Contoso~~ (2026-07-01)\n"
    assert [embedding_text(c, "Work") for c in chunk_markdown(work)] == [
        "User works at Fabrikam", "Work > History\nUser works at Contoso"]
    notes = "# Rust\n\nOwnership moves values; borrowing lends them.\n"
    assert embedding_text(chunk_markdown(notes)[0], "Rust") == "Rust\nOwnership moves values; borrowing lends them."


def test_code_fences_stay_whole_even_with_blank_lines_and_hashes() -> None:
    code = "```python\n# not a heading\n\nx = 1\n```"
    chunks = chunk_markdown(f"# Page\n\n{code}\n\nAfter.\n")
    assert any(code in c.text for c in chunks)
    assert all(c.heading == "Page" for c in chunks)


def test_long_paragraph_split_at_sentence_boundaries() -> None:
    sentence = "This sentence talks about the project plan in some detail. "
    paragraph = (sentence * 60).strip()
    chunks = chunk_markdown(paragraph)
    assert len(chunks) >= 3
    assert all(len(c.text) <= MAX_CHUNK_CHARS for c in chunks)
    assert all(c.text.endswith(".") for c in chunks)
    assert " ".join(c.text for c in chunks) == paragraph


def test_single_sentence_longer_than_limit_is_cut() -> None:
    chunks = chunk_markdown("word " * 800)
    assert len(chunks) >= 3 and all(len(c.text) <= MAX_CHUNK_CHARS for c in chunks)


def test_small_paragraphs_merge_within_a_section_only() -> None:
    text = "# A\n\none.\n\ntwo.\n\nthree.\n\n# B\n\nfour.\n"
    chunks = chunk_markdown(text)
    assert [c.text for c in chunks] == ["one.\n\ntwo.\n\nthree.", "four."]
    assert chunks[0].paragraphs == ["one.", "two.", "three."]
    assert chunks[0].line == 3 and chunks[1].line == 11


def test_merge_stops_at_size_limit() -> None:
    paragraphs = [f"Paragraph {i} " + "x" * 300 for i in range(6)]
    chunks = chunk_markdown("\n\n".join(paragraphs))
    assert len(chunks) > 1
    assert all(len(c.text) <= MERGE_CHUNK_CHARS for c in chunks)
    assert sum(len(c.paragraphs) for c in chunks) == 6


def test_tombstoned_paragraph_is_left_out_of_a_merged_chunk() -> None:
    text = "# Notes\n\nKeep this one.\n\nUser lives in   Berlin.\n\nKeep that one too.\n"
    chunks = chunk_markdown(text, tombstones={normalize("user lives in berlin.")})
    assert [c.text for c in chunks] == ["Keep this one.\n\nKeep that one too."]
    assert all("berlin" not in norm for c in chunks for norm in c.norms())
    assert all("Berlin" not in p for c in chunks for p in c.paragraphs)


def test_tombstoned_list_item_is_dropped_and_items_are_matchable() -> None:
    text = "- [x] User likes tea\n- User works at Acme `work`\n- Another item\n"
    chunks = chunk_markdown(text, tombstones={"user works at acme `work`"})
    assert [c.text for c in chunks] == ["User likes tea", "Another item"]
    assert [c.line for c in chunks] == [1, 3]
    assert "user likes tea" in chunks[0].norms()
    assert "another item" in chunks[1].norms()


def test_tombstoned_item_in_a_prose_page_list_leaves_the_rest_of_its_chunk() -> None:
    prose = "# Notes\n\n" + "A long paragraph of prose about the trip.\n" * 4 + "\n"
    text = prose + "- User likes tea\n- User works at Acme\n- Another item\n"
    chunks = chunk_markdown(text, tombstones={"user works at acme"})
    assert len(chunks) == 1 and "Acme" not in chunks[0].text and "tea" in chunks[0].text


def test_fully_tombstoned_list_disappears() -> None:
    assert chunk_markdown("- only item\n", tombstones={"only item"}) == []


def test_empty_and_heading_only_pages_have_no_chunks() -> None:
    assert chunk_markdown("") == []
    assert chunk_markdown("# Title\n\n## Sub\n") == []


def test_list_items_match_tombstones_without_provenance_or_strike_through() -> None:
    text = (
        "- User works at Contoso as a data engineer (2026-11-09)\n"
        "- ~~User lives in Berlin~~ (2026-06-01, until 2026-07-01)\n"
        "- User likes tea (2026-07-01, 2026-07-03)\n"
    )
    chunks = chunk_markdown(
        text, tombstones={"user works at contoso as a data engineer", "user lives in berlin"}
    )
    assert [c.text for c in chunks] == ["User likes tea"]
    assert chunks[0].source_text == "- User likes tea (2026-07-01, 2026-07-03)"
    norms = [n for c in chunk_markdown(text) for n in c.norms()]
    assert "user likes tea" in norms and "user lives in berlin" in norms


FACT_PAGE = """---
tags: [personal]
---
# Work

- User now works at Microsoft on the search team (2026-11-25)
- User's manager is Daniel (2026-11-13, 2026-11-25)
- ~~User is evaluating vector databases~~ (2026-11-17)
- User keeps notes
  in two lines, with a detail
  - and a nested point

Employer: [[Microsoft]].

## History

- ~~User works at Contoso as a data engineer~~ (2026-11-10, until 2026-11-25)
- User lived in Seattle (2026-11-10)
"""


def test_fact_page_is_one_chunk_per_bullet_with_heading_dates_and_lines() -> None:
    chunks = chunk_markdown(FACT_PAGE)
    by_text = {c.text.split("\n")[0]: c for c in chunks}
    current = by_text["User now works at Microsoft on the search team"]
    assert (current.heading, current.line, current.date, current.superseded) == ("Work", 6, "2026-11-25", False)
    assert by_text["User's manager is Daniel"].date == "2026-11-25"  # the latest source date
    assert by_text["User keeps notes"].text == "User keeps notes\nin two lines, with a detail\n- and a nested point"
    assert by_text["Employer: [[Microsoft]]."].superseded is False
    old = by_text["User works at Contoso as a data engineer"]
    assert (old.heading, old.line, old.until, old.superseded) == ("Work > History", 17, "2026-11-25", True)
    assert by_text["User lived in Seattle"].superseded  # under History, even without strike-through
    assert by_text["User is evaluating vector databases"].superseded  # struck through, outside History


def test_prose_page_keeps_paragraph_chunks() -> None:
    text = "# Trip\n\nWe drove up the coast and stopped in Astoria.\nThe weather held.\n\n- bring a jacket\n"
    chunks = chunk_markdown(text)
    assert len(chunks) == 1 and "bring a jacket" in chunks[0].text and "Astoria" in chunks[0].text


@pytest.mark.parametrize("links", [
    "- [[Work]]\n- [[People]]\n- [[Places]]\n",
    "- [[Work]], [[People|folks]] · [[Places#Home]]\n- [[Trips]];\n",
    "- [Work](Work.md)\n- [People](<People and places.md>)\n- ![[map.png]]\n",  # every link form of the grammar
])
def test_a_list_of_links_is_navigation_and_stays_whole(links: str) -> None:
    chunks = chunk_markdown(f"# About\n\n{links}")
    assert len(chunks) == 1 and chunks[0].text == links.rstrip("\n")


@pytest.mark.parametrize("facts", [
    "- [[Work]] is where I spend my days\n- [[People]] I trust\n",
    "- `[[Work]]`\n- `[[People]]`\n",  # code, not links
])
def test_a_list_of_items_that_say_more_than_links_is_facts(facts: str) -> None:
    assert len(chunk_markdown(f"# About\n\n{facts}")) == 2


def _long_list(n: int) -> str:
    return "# List\n\n" + "\n".join(f"- item number {i} about green tea" for i in range(n)) + "\n"


def test_long_list_pieces_hold_only_their_own_items() -> None:
    """Work per page is proportional to its size: no piece repeats the whole list's items."""
    chunks = chunk_markdown(_long_list(3000))
    assert len(chunks) > 50
    assert all(len(c.text) <= MAX_CHUNK_CHARS for c in chunks)
    total = sum(len(c.norms()) for c in chunks)
    assert total <= 2 * 3000 + 2 * len(chunks)
    assert [ln for c in chunks for ln in c.source_text.splitlines()] == _long_list(3000).splitlines()[2:]


def test_long_list_pieces_point_at_their_first_line() -> None:
    chunks = chunk_markdown(_long_list(500))
    lines = _long_list(500).splitlines()
    for chunk in chunks:
        assert lines[chunk.line - 1] == chunk.source_text.splitlines()[0]


def test_forgotten_item_of_a_long_list_drops_only_that_item() -> None:
    chunks = chunk_markdown(_long_list(500), tombstones={"item number 250 about green tea"})
    texts = "\n".join(c.text for c in chunks)
    assert "item number 250 about" not in texts
    assert "item number 249 about" in texts and "item number 251 about" in texts
    holding = [c for c in chunk_markdown(_long_list(500)) if "item number 250 about green tea" in c.norms()]
    assert len(holding) == 1


def test_every_piece_of_a_long_paragraph_is_found_by_the_whole_paragraph() -> None:
    text = _long_list(500)
    whole = normalize("\n".join(text.splitlines()[2:]))
    chunks = chunk_markdown(text)
    assert all(whole in c.norms() for c in chunks)
    assert chunk_markdown(text, tombstones={whole}) == []


def test_endless_sentence_is_cut_into_bounded_pieces_in_order() -> None:
    text = " ".join(f"w{i}" for i in range(50_000))
    chunks = chunk_markdown(text)
    assert all(len(c.text) <= MAX_CHUNK_CHARS for c in chunks)
    assert " ".join(c.text for c in chunks) == text


def test_one_endless_bullet_on_a_fact_page_is_cut_into_bounded_pieces() -> None:
    text = "# Facts\n\n- " + " ".join(f"w{i}" for i in range(50_000)) + " (2026-07-01)\n- short fact\n"
    chunks = chunk_markdown(text)
    assert all(len(c.text) <= MAX_CHUNK_CHARS for c in chunks)
    assert all(len(p) <= MAX_CHUNK_CHARS for c in chunks for p in c.paragraphs)  # no piece holds the whole
    assert chunks[-1].text == "short fact" and chunks[0].date == "2026-07-01"


PLACES = """# Places

Facts about the user's places, consolidated from the daily logs. Part of [[About Me]].

- User lives in Savannah, near the old harbour (2026-04-29)
"""


def test_a_template_intro_is_not_a_row_and_the_bullet_keeps_its_date() -> None:
    chunks = chunk_markdown(PLACES)
    assert [c.text for c in chunks] == ["User lives in Savannah, near the old harbour"]
    assert (chunks[0].line, chunks[0].date, chunks[0].superseded) == (5, "2026-04-29", False)


def test_an_intro_that_says_something_and_one_dated_bullet_are_two_rows() -> None:
    chunks = chunk_markdown("# Ana\n\nAna is the user's sister.\n\n[[About Me]]\n\n- Ana lives in Porto (2026-04-29)\n")
    assert [c.text for c in chunks] == ["Ana is the user's sister.", "Ana lives in Porto"]
    assert (chunks[1].line, chunks[1].date) == (7, "2026-04-29")


def test_a_dated_bullet_between_lines_of_prose_is_its_own_row() -> None:
    text = ("# Work\n\n- User works at Contoso as a data engineer (2026-11-02)\n\n"
            "Employer: [[Contoso]]. Notes on the evaluation: [[Vector Search]].\nReading: [[DDIA]].\n")
    chunks = chunk_markdown(text)
    fact = next(c for c in chunks if "Contoso as a data engineer" in c.text)
    assert fact.text == "User works at Contoso as a data engineer" and fact.date == "2026-11-02"
    assert len(chunks) == 2 and "Employer" in chunks[1].text


def test_a_struck_or_history_bullet_under_prose_is_its_own_superseded_row() -> None:
    text = ("# Places\n\nThe places the user lived in.\nSome of them for years.\n\n- User lives in Savannah\n\n"
            "## History\n\n- User lived in Boston\n")
    by_text = {c.text: c for c in chunk_markdown(text)}
    assert by_text["User lived in Boston"].superseded and not by_text["User lives in Savannah"].superseded
    struck = chunk_markdown("# Places\n\nThe places the user lived in.\nSome of them for years.\n\n"
                            "- ~~User lives in Boston~~\n- User lives in Savannah\n")
    assert [(c.text, c.superseded) for c in struck][1:] == [("User lives in Boston", True),
                                                            ("User lives in Savannah", False)]


def test_a_person_pages_first_line_is_no_row_when_a_bullet_holds_its_words() -> None:
    page = ("# Rosa\n\nRosa is the user's brother.\n\n[[About Me]]\n\n"
            "- User's brother Rosa is a data engineer up in Aarhus (2026-04-04)\n"
            "- Rosa (the user's brother) just bought a skateboard (2026-04-23)\n")
    texts = [c.text for c in chunk_markdown(page)]
    assert texts == ["User's brother Rosa is a data engineer up in Aarhus", "Rosa (the user's brother) just bought a skateboard"]
    lone = "# Ana\n\nAna is the user's sister and lives in Lisbon.\n\n- Ana bought a bike (2026-04-04)\n"
    assert "Ana is the user's sister and lives in Lisbon." in [c.text for c in chunk_markdown(lone)]


def test_a_bare_link_among_fact_bullets_is_navigation_not_a_row() -> None:
    page = "# About Me\n\n- [[Work]]\n- User's name is Joanna (2026-07-01)\n- [[Nate]]\n- User lives in Porto (2026-07-02)\n"
    assert [c.text for c in chunk_markdown(page)] == ["User's name is Joanna", "User lives in Porto"]
