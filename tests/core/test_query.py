"""Search operators: the parser (table-driven) and each operator's effect on a small home."""

from __future__ import annotations

import pytest
from index_support import indexer_over

from suzent_desktop.core.index.indexer import Indexer
from suzent_desktop.core.index.ranking.filters import Filters
from suzent_desktop.core.vault.query import SearchQuery, file_passes, parse_query, tag_matches, text_passes
from suzent_desktop.core.vault.tags import FileTags, read_tags, tag_tree

PARSE_ROWS = [
    # (typed, expected fields that differ from an empty query)
    ("green tea", {"words": "green tea"}),
    ("tag:travel", {"tags": ("travel",)}),
    ("tag:#Travel/Japan/", {"tags": ("travel/japan",)}),
    ("TAG:travel", {"tags": ("travel",)}),
    ("path:Areas/Work", {"paths": ("areas/work",)}),
    ('path:"My Notes/2026"', {"paths": ("my notes/2026",)}),
    ('"exact phrase"', {"words": "exact phrase", "phrases": ("exact phrase",)}),
    ('"Unclosed phrase', {"words": "Unclosed phrase", "phrases": ("unclosed phrase",)}),
    ("coffee -Decaf", {"words": "coffee", "without": ("decaf",)}),
    ('coffee -"instant coffee"', {"words": "coffee", "without": ("instant coffee",)}),
    ("-tag:draft -path:archive", {"without_tags": ("draft",), "without_paths": ("archive",)}),
    (
        'tea tag:drinks path:3_Personal "green tea" -milk -tag:old',
        {"words": "tea green tea", "phrases": ("green tea",), "tags": ("drinks",), "paths": ("3_personal",),
         "without": ("milk",), "without_tags": ("old",)},
    ),
    # not operators: a hyphen inside a word, an unknown key, a time, a URL, a lone dash, empty values
    ("e-mail follow-up", {"words": "e-mail follow-up"}),
    ("note: meet at 10:30", {"words": "note: meet at 10:30"}),
    ("see http://example.org", {"words": "see http://example.org"}),
    ("tea - coffee", {"words": "tea - coffee"}),
    ('tea "" -""', {"words": "tea"}),
    ("tag:# tea", {"words": "tea"}),
    ("tag:a tag:a", {"tags": ("a",)}),
]


@pytest.mark.parametrize(("typed", "expected"), PARSE_ROWS, ids=[row[0] for row in PARSE_ROWS])
def test_parse_query(typed: str, expected: dict) -> None:
    assert parse_query(typed) == SearchQuery(**expected)


@pytest.mark.parametrize(
    ("typed", "operators_only"),
    [("tag:x", True), ("-tea", True), ("path:a -tag:b", True), ('"tea"', False), ("tea tag:x", False), ("", False)],
)
def test_operators_only_means_nothing_to_rank_by(typed: str, operators_only: bool) -> None:
    assert parse_query(typed).operators_only is operators_only


@pytest.mark.parametrize(
    ("wanted", "tag", "match"),
    [("a", "a", True), ("a", "A", True), ("a", "a/b", True), ("a", "#a/b/c", True), ("a/b", "a/b/c", True),
     ("a", "ab", False), ("a/b", "a", False), ("b", "a/b", False)],
)
def test_nested_tags_match_their_parents_as_in_obsidian(wanted: str, tag: str, match: bool) -> None:
    assert tag_matches(wanted, tag) is match


def test_file_and_text_filters() -> None:
    query = parse_query('tag:trip -tag:draft path:travel -path:old "night train" -sleeper')
    assert file_passes(query, "Travel/Japan.md", ["trip/japan"])
    assert not file_passes(query, "Travel/Japan.md", ["trip", "draft"])
    assert not file_passes(query, "Travel/old/Japan.md", ["trip"])
    assert not file_passes(query, "Notes/Japan.md", ["trip"])
    assert text_passes(query, "The Night Train to Kyoto")
    assert not text_passes(query, "The night train had a sleeper car")
    assert not text_passes(query, "A train at night")


def test_tag_tree_counts_each_file_once_per_level_and_merges_case() -> None:
    tree = tag_tree([["trip/japan", "trip/kyoto"], ["Trip"], ["food"], ["#trip/japan/tokyo"]])
    assert [(n.name, n.count) for n in tree] == [("food", 1), ("trip", 3)]
    trip = tree[1]
    assert [(n.name, n.tag, n.count) for n in trip.children] == [("japan", "trip/japan", 2), ("kyoto", "trip/kyoto", 1)]
    assert [(n.name, n.count) for n in trip.children[0].children] == [("tokyo", 1)]


def test_file_tags_reread_only_when_the_fingerprint_changes(tmp_path) -> None:
    page = tmp_path / "a.md"
    page.write_text("---\ntags: [alpha]\n---\nText #beta and `#code` [[#heading]]\n", encoding="utf-8")
    reads: list[str] = []

    def reader(path):
        reads.append(path.name)
        return read_tags(path)

    cache = FileTags(reader=reader)
    assert cache.update(page, "h1") is True
    assert cache.tags_of(page) == ("alpha", "beta")
    assert cache.update(page, "h1") is False and reads == ["a.md"]
    page.write_text("#gamma\n", encoding="utf-8")
    assert cache.update(page, "h2") is True and cache.tags_of(page) == ("gamma",)
    page.unlink()
    assert cache.update(page) is True and cache.tags_of(page) == ()


# -- behaviour on a small home -----------------------------------------------------------------
PAGES = {
    "3_Personal/Travel/Japan.md": "---\ntags: [trip/japan]\n---\n# Japan\n\n- User took the night train to Kyoto in May\n"
                                  "- User drank green tea in Uji\n",
    "3_Personal/Travel/Lisbon.md": "# Lisbon\n\n- User flew to Lisbon for a conference #trip #work\n"
                                   "- User drank black tea at the hotel\n",
    "3_Personal/Food.md": "# Food\n\n- User likes green tea with breakfast\n- User drinks coffee at work\n",
    "2_Areas/Work.md": "# Work\n\n- User works at Contoso #work\n- Tea in the office is `#notatag` black tea\n",
    "2_Areas/Drafts/Idea.md": "#draft\n\nA train idea: a night train map of Europe.\n",
}


@pytest.fixture
def indexer(layout, clock) -> Indexer:
    return indexer_over(layout, clock, PAGES)


def pages(hits) -> list[str]:
    return sorted({h.path.split("/notebook/", 1)[1] for h in hits})


async def test_tag_filters_to_pages_with_the_tag_or_a_nested_one(indexer) -> None:
    await indexer.sync()
    hits = (await indexer.search("tea tag:trip", limit=10)).hits
    assert pages(hits) == ["3_Personal/Travel/Japan.md", "3_Personal/Travel/Lisbon.md"]  # trip/japan counts as trip
    assert pages((await indexer.search("tea tag:trip/japan", limit=10)).hits) == ["3_Personal/Travel/Japan.md"]
    assert pages((await indexer.search("tea tag:notatag", limit=10)).hits) == []  # inside code: no tag


async def test_an_operator_only_query_lists_matching_pages_by_path(indexer) -> None:
    await indexer.sync()
    response = await indexer.search("tag:work", limit=10)
    assert response.mode == "list"
    assert [h.path.split("/notebook/", 1)[1] for h in response.hits] == ["2_Areas/Work.md", "3_Personal/Travel/Lisbon.md"]
    assert "#work" in response.hits[1].text  # the row naming the tag, not the page's first row
    listed = [h.path for h in (await indexer.search("-tag:draft -path:3_personal", limit=50)).hits]
    assert str(indexer.layout.notebook_dir / "2_Areas/Work.md") in listed
    assert not any("Idea.md" in p or "3_Personal" in p for p in listed)
    assert listed == sorted(listed, key=lambda p: indexer.searcher.relative(p).lower())


async def test_path_keeps_and_drops_files_by_a_part_of_their_path(indexer) -> None:
    await indexer.sync()
    assert pages((await indexer.search("tea path:travel", limit=10)).hits) == [
        "3_Personal/Travel/Japan.md", "3_Personal/Travel/Lisbon.md"]
    kept = pages((await indexer.search("tea -path:travel", limit=10)).hits)
    assert kept and not any("Travel" in p for p in kept)


async def test_phrase_keeps_only_hits_holding_it(indexer) -> None:
    await indexer.sync()
    hits = (await indexer.search('"green tea"', limit=10)).hits
    assert {h.text for h in hits} == {"User drank green tea in Uji", "User likes green tea with breakfast"}
    hits = (await indexer.search('"NIGHT TRAIN" path:drafts', limit=10)).hits
    assert len(hits) == 1 and "a night train map of Europe" in hits[0].text


async def test_minus_excludes_terms_phrases_and_tags(indexer) -> None:
    await indexer.sync()
    hits = (await indexer.search("tea -black", limit=10)).hits
    assert hits and all("black" not in h.text.lower() for h in hits)
    assert any("green tea" in h.text for h in hits)
    hits = (await indexer.search('tea -"green tea"', limit=10)).hits
    assert hits and all("green tea" not in h.text.lower() for h in hits)
    hits = (await indexer.search("train -tag:draft", limit=10)).hits
    assert "2_Areas/Drafts/Idea.md" not in pages(hits) and "3_Personal/Travel/Japan.md" in pages(hits)


async def test_filters_apply_before_the_limit(indexer, layout) -> None:
    """Many better matches elsewhere never push the filtered hits off a short page."""
    crowd = layout.notebook_dir / "Crowd.md"
    crowd.write_text("# Crowd\n\n" + "".join(f"- User drank tea, cup {i} of green tea tea tea\n" for i in range(40)),
                     encoding="utf-8")
    await indexer.sync()
    hits = (await indexer.search("tea path:Areas/Work", limit=2)).hits
    assert [h.text for h in hits] == ["Tea in the office is `#notatag` black tea"]
    hits = (await indexer.search("tea tag:trip/japan", limit=1)).hits
    assert len(hits) == 1 and "Japan" in hits[0].path


async def test_tags_follow_edits_after_a_reindex(indexer, layout) -> None:
    await indexer.sync()
    assert pages((await indexer.search("tag:food", limit=10)).hits) == []
    food = layout.notebook_dir / "3_Personal/Food.md"
    food.write_text("---\ntags: food\n---\n" + food.read_text(encoding="utf-8"), encoding="utf-8")
    await indexer.sync()
    assert pages((await indexer.search("tag:food", limit=10)).hits) == ["3_Personal/Food.md"]


async def test_operators_can_be_turned_off_for_text_that_is_not_a_query(indexer) -> None:
    await indexer.sync()
    hits = (await indexer.search("User works at Contoso -black", limit=5, operators=False)).hits
    assert hits and hits[0].text == "User works at Contoso #work"


async def test_a_filter_keeping_most_files_drops_the_others(indexer, layout) -> None:
    """The table query then names the few files to skip rather than the many to keep: same hits."""
    await indexer.sync()
    scoped = indexer.searcher.scoped(parse_query("train path:.md -tag:draft"), Filters())
    idea = str(layout.notebook_dir / "2_Areas/Drafts/Idea.md")
    assert scoped is not None and scoped.paths is None and scoped.skip_paths == {idea}  # the shorter list
    hits = (await indexer.search("train path:.md -tag:draft", limit=20)).hits
    assert hits and idea not in {h.path for h in hits}
    assert "3_Personal/Travel/Japan.md" in pages(hits)
