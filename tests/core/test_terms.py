"""Which query words matter for highlights, by stem as the full-text index matches them."""

from __future__ import annotations

from suzent_desktop.core.index.ranking.terms import asks_about_the_past, coverage, match_spans, query_stems


def marked(text: str, query: str) -> list[str]:
    return [text[s:e] for s, e in match_spans(text, query)]


def test_stopwords_and_user_are_not_marked() -> None:
    text = "User works at the Contoso office in the city"
    assert marked(text, "where does the user work") == ["works"]


def test_stems_match_both_ways_and_accents_fold() -> None:
    assert marked("User worked, is working and works", "work") == ["worked", "working", "works"]
    assert marked("User lives in Zürich", "living zurich") == ["lives", "Zürich"]


def test_a_query_of_only_stopwords_still_marks_its_words() -> None:
    assert query_stems("the") == {"the"}
    assert marked("the end", "the") == ["the"]


def test_scripts_without_spaces_match_by_substring() -> None:
    assert marked("用户住在东京市中心", "东京") == ["东京"]


def test_past_questions_are_recognised() -> None:
    assert asks_about_the_past("where did the user work before")
    assert asks_about_the_past("what did they use to drive")
    assert asks_about_the_past("previous employer")
    assert not asks_about_the_past("where does the user work")
    assert not asks_about_the_past("how old is the user")
    assert not asks_about_the_past("where does the user's former teacher live now")  # "now" asks the present


def test_coverage_counts_words_that_matter() -> None:
    assert coverage("User works at Microsoft", "where does the user work") == 1.0
    assert coverage("User's manager is Priya", "where does the user work") == 0.0
