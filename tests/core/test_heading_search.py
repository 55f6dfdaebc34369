"""Headings count on their own: a section whose heading says what the query asks outranks the
same words in body text, in English and in CJK; a heading repeating one word of a longer
question does not. Small pages of their own, the hashing embedder."""

from __future__ import annotations

from pathlib import Path

import pytest
from index_support import indexer_over

from suzent_desktop.core.index.indexer import Indexer
from suzent_desktop.core.index.ranking.title_rows import TitleIndex, heading_share, name_terms

PAGES = {
    # Each answer is a section of a page whose name says nothing of it ...
    "Garden.md": "# Garden\n\nThe beds by the fence.\n\n## Pruning roses\n\nCut above an outward bud in late winter.\n\n"
                 "## Watering\n\nWater deeply once a week.\n",
    "設定/表示.md": "# 表示\n\n文字の大きさを変えられます。\n\n## ダークモード\n\n暗い配色に切り替えます。\n\n"
                   "## フォント\n\n好きな書体を選びます。\n",
    "설정/화면.md": "# 화면\n\n글자 크기를 바꿀 수 있습니다.\n\n## 다크 모드\n\n어두운 색으로 바꿉니다.\n\n"
                  "## 글꼴\n\n원하는 글꼴을 고릅니다.\n",
    # ... and other pages say the same words in their body, more often.
    "Shrubs.md": "Shrubs want little care. Pruning roses is easy: pruning roses in spring, pruning roses in autumn.\n",
    "その他/雑記.md": "ダークモードが好き。ダークモードの話とダークモードの色。\n",
    "기타/잡기.md": "다크 모드가 좋다. 다크 모드 이야기와 다크 모드 색.\n",
}


@pytest.fixture
def indexer(layout, clock) -> Indexer:
    return indexer_over(layout, clock, PAGES)


@pytest.mark.parametrize(
    ("query", "page", "heading"),
    [
        ("pruning roses", "Garden", "Pruning roses"),
        ("ダークモード", "表示", "ダークモード"),
        ("다크 모드", "화면", "다크 모드"),
    ],
)
async def test_a_section_named_by_the_query_outranks_the_same_words_in_a_body(
    indexer, query: str, page: str, heading: str
) -> None:
    await indexer.sync()
    first = (await indexer.search(query, limit=5)).hits[0]
    assert (Path(first.path).stem, first.heading.split(" > ")[-1]) == (page, heading)


def test_a_heading_counts_when_it_holds_most_of_the_query_by_number_and_by_rarity() -> None:
    wanted = name_terms("is my synced data end-to-end encrypted")
    idf = dict.fromkeys(wanted, 1.0)
    share = heading_share(wanted, "Can I verify that my data is end-to-end encrypted?", idf)
    assert share == pytest.approx(len(name_terms("data end encrypted")) / len(wanted))
    assert heading_share(wanted, "Settings", idf) == 0.0  # shares nothing


def test_one_rare_word_of_a_longer_question_is_not_enough() -> None:
    wanted = name_terms("which other notes link to the note I am reading")  # other, note, link, read
    idf = {"other": 0.4, "note": 0.1, "link": 0.4, "read": 3.0}
    assert heading_share(wanted, "daily:read", idf) == 0.0  # most of the weight, one term of four


def test_common_words_of_a_longer_question_are_not_enough() -> None:
    wanted = name_terms("edit text in several places at once")
    idf = dict.fromkeys(wanted, 3.0) | {"edit": 0.2, "text": 0.2}
    assert heading_share(wanted, "Text editing", idf) == 0.0  # two terms of five, little of the weight


def test_a_query_word_no_page_holds_does_not_count_against_a_heading() -> None:
    wanted = name_terms("pruning roses zzyzx")
    idf = {"prune": 2.0, "rose": 2.0}  # "zzyzx" is in no page: rarity 0
    assert heading_share(wanted, "Pruning roses", idf) == pytest.approx(1.0)


def test_half_of_the_query_is_not_most_of_it() -> None:
    wanted = name_terms("change hotkeys")
    idf = dict.fromkeys(wanted, 1.0)
    assert heading_share(wanted, "Hotkeys", idf) == 0.0
    assert heading_share(wanted, "Change hotkeys", idf) == pytest.approx(1.0)


def test_a_heading_that_only_repeats_its_page_name_is_the_title_not_a_section() -> None:
    """A page the dream writes has every bullet under its own name ("# Work" atop Work.md). As a heading of
    its own that named all the page's bullets, and a question with the word "work" pulled ten of them into
    the pool of candidates, above a bullet elsewhere that answered; the page keeps its vote as a title."""
    work = "/v/3_Personal/Work.md"
    rows = [{"id": f"w{n}", "path": work, "title": "Work", "heading": "Work", "line": 4 + n} for n in range(8)]
    rows.append({"id": "g1", "path": "/v/Garden.md", "title": "Garden", "heading": "Garden > Pruning roses", "line": 5})
    index = TitleIndex(rows)
    assert index.headings.ranked("What does the user's sister do for work?", 10) == []
    assert [key for key, _ in index.headings.ranked("pruning roses", 10)] == ["g1"]
    assert [path for path, _ in index.pages.ranked("What does the user's sister do for work?", 10)] == [work]


def test_a_named_pages_vote_goes_to_its_row_holding_the_rest_of_the_question() -> None:
    """"What instrument does Bruno play?" names Bruno's page; of its rows the vote goes to the one the words
    of the question find first ("Bruno plays the sitar"), not to one the vectors placed a hair higher."""
    from suzent_desktop.core.index.ranking.fusion import _best_rows

    page = "/v/3_Personal/Bruno.md"
    rows = {
        "band": {"id": "band", "path": page, "text": "Bruno's favourite band is Radiohead"},
        "sitar": {"id": "sitar", "path": page, "text": "Bruno plays the sitar"},
        "old": {"id": "old", "path": page, "text": "Bruno's favourite band is Khruangbin", "superseded": True},
        "else": {"id": "else", "path": "/v/Gustav.md", "text": "Gustav plays the cello"},
    }
    scores = {"band": 0.0323, "sitar": 0.0320, "old": 0.0310, "else": 0.0330}
    word_rank = {"sitar": 0, "else": 1, "band": 2, "old": 3}
    assert sorted(_best_rows(scores, rows, [page], word_rank)) == ["old", "sitar"]
