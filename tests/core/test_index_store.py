"""The LanceDB table: exact path matching, query sanitising, corruption recovery."""

from __future__ import annotations

import numpy as np
import pytest
from index_support import ranked

from suzent_desktop.core.index.embedding import HashingEmbedder
from suzent_desktop.core.index.ranking.filters import Filters
from suzent_desktop.core.index.storage.store import IndexStore, Row, norm_key, sanitize_fts_query
from suzent_desktop.core.vault.forgotten import Forgotten

WEIRD_NAMES = [
    "it's.md",
    "its.md",
    "50%.md",
    "50x.md",
    "a_b.md",
    "axb.md",
    "Café 東京.md",
    "Cafe.md",
    "with space.md",
]


def _row(path: str, text: str, index: int, embedder: HashingEmbedder) -> Row:
    return Row(
        id=f"{path}#{index}",
        text=text,
        source_type="notebook",
        path=path,
        zone="2_Wiki",
        line=index + 1,
        date=None,
        heading=None,
        norm=text.lower(),
        norm_keys=[norm_key(text.lower())],
        embed_text=text,
        vector=embedder.embed([text])[0],
    )


@pytest.fixture
def store(tmp_path) -> IndexStore:
    s = IndexStore(tmp_path / "index", 384)
    s.open()
    return s


def test_paths_with_quotes_wildcards_and_non_ascii_match_only_themselves(store: IndexStore, tmp_path) -> None:
    embedder = HashingEmbedder()
    paths = [str(tmp_path / "vault" / name) for name in WEIRD_NAMES]
    store.add([_row(p, f"text of {i}", i, embedder) for i, p in enumerate(paths)])
    for index, path in enumerate(paths):
        assert store.rows_for_path(path, ["id"]).column("id").to_pylist() == [f"{path}#{index}"]
    assert store.delete_path(paths[0]) == 1  # it's.md
    assert store.delete_path(paths[2]) == 1  # 50%.md
    assert store.delete_path(paths[4]) == 1  # a_b.md
    assert store.delete_path(paths[6]) == 1  # Café 東京.md
    remaining = set(store.scan(["path"]).column("path").to_pylist())
    assert remaining == {paths[i] for i in (1, 3, 5, 7, 8)}


@pytest.mark.parametrize(
    "query",
    [
        '"unbalanced',
        "title:foo",
        "(tea",
        "tea AND",
        "OR",
        "*",
        "~2",
        "-tea",
        "tea~",
        "a:b:c (d) [e] {f}",
        "'",
        "\\",
        "",
        "   ",
    ],
)
def test_full_text_syntax_never_errors(store: IndexStore, query: str) -> None:
    embedder = HashingEmbedder()
    store.add([_row("/p.md", "User likes green tea", 0, embedder)])
    hits = store.fts_search(query, 5)
    assert isinstance(hits, list)
    assert isinstance(ranked(store, embedder.embed([query or "x"])[0], query, 5), list)


def test_sanitize_keeps_words_only() -> None:
    assert sanitize_fts_query('"green tea" AND (coffee OR -milk*) title:x') == "green tea coffee milk title x"


def test_hybrid_and_filters(store: IndexStore) -> None:
    embedder = HashingEmbedder()
    rows = [
        _row("/a.md", "green tea every morning", 0, embedder),
        _row("/b.md", "black coffee at noon", 1, embedder),
    ]
    rows[1].zone = "3_Personal"
    store.add(rows)
    hits = ranked(store, embedder.embed(["tea"])[0], "tea", 5)
    assert hits[0]["path"] == "/a.md"
    assert [h["path"] for h in ranked(store, embedder.embed(["tea"])[0], "tea", 5)] == ["/a.md"]
    filtered = ranked(store, embedder.embed(["coffee"])[0], "coffee", 5, Filters(zone="3_Personal"))
    assert [h["path"] for h in filtered] == ["/b.md"]
    assert ranked(store, embedder.embed(["coffee"])[0], "coffee", 5, Filters(zone="2_Wiki")) == []
    assert [h["path"] for h in store.fts_search("coffee", 5, Filters(exclude_path="/b.md"))] == []


def test_rows_showing_forgotten_text_are_found_by_a_piece_they_list_or_by_the_rule(store: IndexStore) -> None:
    embedder = HashingEmbedder()
    row = _row("/a.md", "Keep this.", 0, embedder)
    row.norm_keys = [norm_key("keep this."), norm_key("a long paragraph the row is one piece of.")]
    store.add([row, _row("/b.md", "Unrelated!", 1, embedder)])

    def showing(*stones: str) -> list[tuple[str, str]]:
        return [(r["id"], r["stone"]) for r in store.showing(Forgotten(stones))]

    assert showing("A long paragraph the row is one piece of.") == [("/a.md#0", "a long paragraph the row is one piece of.")]
    assert showing("unrelated") == [("/b.md#1", "unrelated")]  # the rule: punctuation aside
    assert showing("nothing") == [] and showing() == []


def test_corrupt_table_is_recreated_empty(tmp_path) -> None:
    store = IndexStore(tmp_path / "index", 384)
    store.open()
    store.add([_row("/a.md", "hello", 0, HashingEmbedder())])
    for file in store.table_dir.rglob("*"):
        if file.is_file():
            file.write_bytes(b"garbage" * 10)
    fresh = IndexStore(tmp_path / "index", 384)
    assert fresh.open() is False
    assert fresh.count() == 0
    fresh.add([_row("/b.md", "again", 0, HashingEmbedder())])
    assert fresh.count() == 1


def test_dimension_mismatch_recreates_table(tmp_path) -> None:
    first = IndexStore(tmp_path / "index", 384)
    first.open()
    first.add([_row("/a.md", "hello", 0, HashingEmbedder())])
    second = IndexStore(tmp_path / "index", 64)
    assert second.open() is False
    assert second.count() == 0
    assert second.table.schema.field("vector").type.list_size == 64
    assert np.isfinite(second.dim)


CJK_ROWS = [
    ("饮食.md", "我每天早上喝一杯绿茶，不加糖。"),
    ("工作.md", "我在上海的一家软件公司当数据工程师。"),
    ("旅行.md", "明年四月去京都看樱花，已经订好了民宿。"),
    ("仕事.md", "東京の銀行でシステムエンジニアとして働いています。"),
    ("Tea.md", "The user drinks green tea every morning."),
]

# The tokenizer's own stop words (every language's) held "cat", "dog" and "city": only English function
# words are left out.
PET_ROWS = [
    ("Pickles.md", "Pickles (the user's cat) had a check-up and is fine"),
    ("Rex.md", "Rex, the neighbour's dog, barks at the postman"),
    ("Places.md", "User moved to a bigger city last spring"),
]


@pytest.mark.parametrize(
    ("query", "expected"),
    [("绿茶", "饮食.md"), ("软件公司", "工作.md"), ("京都樱花", "旅行.md"), ("銀行で働く", "仕事.md"),
     ("drinking tea", "Tea.md"), ("What is the name of the user's cat?", "Pickles.md"), ("dog", "Rex.md"),
     ("which city", "Places.md")],
)
def test_full_text_splits_chinese_and_japanese_words_and_keeps_english_nouns(
    store: IndexStore, query: str, expected: str
) -> None:
    embedder = HashingEmbedder()
    store.add([_row(path, text, i, embedder) for i, (path, text) in enumerate(CJK_ROWS + PET_ROWS)])
    store.rebuild_fts()
    assert store.fts_search(query, 5)[0]["path"] == expected


def test_a_table_indexed_with_the_old_tokenizer_is_re_split_on_open(tmp_path) -> None:
    from lancedb.index import FTS

    embedder = HashingEmbedder()
    old = IndexStore(tmp_path / "index", 384)
    old.open()
    old.add([_row(path, text, i, embedder) for i, (path, text) in enumerate(CJK_ROWS)])
    old.table.create_index("fts", config=FTS(), replace=True)  # how tables were built before
    assert old.fts_search("绿茶", 5) == []
    reader = IndexStore(tmp_path / "index", 384)
    reader.open(repair=False)
    assert reader.fts_search("绿茶", 5) == []  # a reader never rewrites the index
    writer = IndexStore(tmp_path / "index", 384)
    writer.open()
    assert writer.fts_search("绿茶", 5)[0]["path"] == "饮食.md"


def test_a_table_indexed_with_the_old_stop_words_is_re_split_on_open(tmp_path) -> None:
    from lancedb.index import FTS

    embedder = HashingEmbedder()
    old = IndexStore(tmp_path / "index", 384)
    old.open()
    old.add([_row(path, text, i, embedder) for i, (path, text) in enumerate(PET_ROWS)])
    old.table.create_index("fts", config=FTS(base_tokenizer="icu"), replace=True)  # how tables were built before
    assert old.fts_search("cat", 5) == []
    writer = IndexStore(tmp_path / "index", 384)
    writer.open()
    assert [r["path"] for r in writer.fts_search("cat", 5)] == ["Pickles.md"]


# The index stems a word before it looks it up among the words it leaves out: "does" became "doe" and "why"
# became "whi", so a question starting "Why does …" matched every row saying why or does.
HOBBY_ROWS = [
    ("Hobbies.md", "User does swimming every Sunday, why not"),
    ("Rosa.md", "User's brother Rosa is a data engineer up in Aarhus"),
]


def test_function_words_are_left_out_in_their_stemmed_form_too(store: IndexStore) -> None:
    embedder = HashingEmbedder()
    store.add([_row(path, text, i, embedder) for i, (path, text) in enumerate(HOBBY_ROWS)])
    store.rebuild_fts()
    assert store.fts_search("why does", 5) == []
    assert [r["path"] for r in store.fts_search("swimming", 5)] == ["Hobbies.md"]
