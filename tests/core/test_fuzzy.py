"""The one fuzzy rule of the quick switcher, the command palette and ``[[`` autocomplete: a ranking table."""

from __future__ import annotations

import pytest

from suzent_desktop.core.files.language.fuzzy import matches, rank, score

NAMES = [
    "Anniversary",
    "Gift ideas for Anna",
    "Giraffe Anatomy",
    "Machine Learning Projects",
    "example lamp",
    "Multilayer perceptron",
    "Projects",
    "My Projects",
    "Reprojection",
    "Lantern Index",
    "Lantern Notes",
    "Gift",
    "Gift ideas",
    "VectorSearch",
    "Various",
    "Café Notes",
    "2024 Budget",
]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # every word matches, in any order
        ("anna gift", ["Gift ideas for Anna"]),
        ("ideas gift", ["Gift ideas", "Gift ideas for Anna"]),
        ("anna zebra", []),
        # initials of the words
        ("mlp", ["Machine Learning Projects", "Multilayer perceptron", "example lamp"]),
        # prefix of the name, then a word start, then inside a word
        ("proj", ["Projects", "My Projects", "Machine Learning Projects", "Reprojection"]),
        # equal matches: the shorter name first
        ("gift", ["Gift", "Gift ideas", "Gift ideas for Anna", "Giraffe Anatomy"]),
        # a subsequence across words
        ("lantidx", ["Lantern Index"]),
        # a typo in a longer word is forgiven
        ("lantren", ["Lantern Index", "Lantern Notes"]),
        # camelCase parts are words
        ("vs", ["VectorSearch", "Various", "Anniversary"]),
        # accents do not matter either way; digits are words
        ("cafe", ["Café Notes"]),
        ("café notes", ["Café Notes"]),
        ("2024", ["2024 Budget"]),
        ("xyzzy", []),
    ],
)
def test_ranking_table(query: str, expected: list[str]) -> None:
    assert rank(query, NAMES) == expected


def test_an_empty_query_keeps_the_given_order() -> None:
    assert rank("", NAMES) == NAMES
    assert rank("   ", NAMES, limit=3) == NAMES[:3]


def test_case_does_not_matter_and_a_whole_name_beats_a_longer_one() -> None:
    assert rank("GIFT IDEAS", ["Gift ideas for Anna", "gift ideas"]) == ["gift ideas", "Gift ideas for Anna"]
    assert score("Gift", "gift") > score("Gift", "gifts")


def test_a_second_text_matches_below_the_name() -> None:
    """A page's folder path is matched when its name alone does not ("concepts lantern")."""
    pages = [("Lantern Index", "2_Wiki/Concepts/Lantern Index"), ("Concepts", "Concepts"),
             ("Lantern Notes", "3_Personal/Lantern Notes")]
    found = rank("concepts lantern", pages, key=lambda p: p[0], alt=lambda p: p[1])
    assert [name for name, _ in found] == ["Lantern Index"]
    found = rank("concepts", pages, key=lambda p: p[0], alt=lambda p: p[1])
    assert [name for name, _ in found] == ["Concepts", "Lantern Index"]


def test_a_limit_keeps_the_best() -> None:
    assert rank("gift", NAMES, limit=2) == ["Gift", "Gift ideas"]


@pytest.mark.parametrize("query", ["anna gift", "mlp", "proj", "lantren", "vs", "cafe", "2024", "o", "xyzzy", ""])
def test_scoring_many_names_at_once_agrees_with_one_at_a_time(query: str) -> None:
    """The bulk path (one regex pass and one rapidfuzz call per word) rules out only what does not match."""
    one_by_one = {i: s for i, name in enumerate(NAMES) if (s := score(query, name)) is not None}
    assert matches(query, NAMES) == pytest.approx(one_by_one)
