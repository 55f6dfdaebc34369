"""The indexer against real files: incremental sync, ghosts, tombstones, fail-closed, recovery, search."""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from suzent_desktop.core.files.records.archive import Archive
from suzent_desktop.core.files.records.log_grammar import Fact
from suzent_desktop.core.files.records.tombstones import Tombstones
from suzent_desktop.core.index.embedding import EmbeddingError, HashingEmbedder
from suzent_desktop.core.index.indexer import Indexer
from suzent_desktop.core.index.ranking.filters import Filters
from suzent_desktop.core.index.rows.planner import Planner
from suzent_desktop.core.vault.notebook import Notebook


class CountingEmbedder:
    """Wraps the hashing embedder, records every text embedded, and can be switched off."""

    def __init__(self, dim: int = 384) -> None:
        self.inner = HashingEmbedder(dim)
        self.name = self.inner.name
        self.dim = dim
        self.texts: list[str] = []
        self.calls = 0
        self.fail = False

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self.fail:
            raise EmbeddingError("model offline")
        self.calls += 1
        self.texts.extend(texts)
        return self.inner.embed(texts)

    def reset(self) -> None:
        self.texts.clear()
        self.calls = 0


@pytest.fixture
def notebook(layout) -> Notebook:
    nb = Notebook(layout)
    nb.bootstrap()
    layout.memory_dir.mkdir(parents=True, exist_ok=True)
    return nb


@pytest.fixture
def archive(layout, notebook) -> Archive:
    return Archive(layout)


@pytest.fixture
def embedder() -> CountingEmbedder:
    return CountingEmbedder()


@pytest.fixture
def indexer(layout, clock, notebook, archive, embedder) -> Indexer:
    return Indexer(layout, embedder, clock, notebook=notebook, archive=archive)


def page(layout, relative: str, text: str) -> Path:
    path = layout.notebook_dir / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def generation(layout) -> str:
    """The stored index state's save counter: it moves on every write of the state."""
    with sqlite3.connect(layout.index_state_file) as conn:
        return conn.execute("SELECT value FROM meta WHERE key='generation'").fetchone()[0]


def log_facts(archive: Archive, date: str, *texts: str, hour: int = 10) -> Path:
    when = dt.datetime.fromisoformat(f"{date}T{hour:02d}:00:00")
    path, _ = archive.append_turn([Fact(t) for t in texts], session_id="sess1234", when=when)
    return path


async def all_rows(indexer: Indexer) -> list[tuple[str, str]]:
    table = await _scan(indexer, ["path", "text"])
    return sorted(zip(table.column("path").to_pylist(), table.column("text").to_pylist(), strict=True))


async def _scan(indexer: Indexer, columns):
    import asyncio

    return await asyncio.to_thread(lambda: indexer.table.store.scan(columns))


async def texts(indexer: Indexer) -> set[str]:
    return {t for _, t in await all_rows(indexer)}


# -- sources ----------------------------------------------------------------------------------
async def test_indexes_core_pages_and_logs_but_not_navigation_or_hidden(
    layout, indexer, archive, today
) -> None:
    layout.memory_md.write_text("# Memory\n\nUser is called Ada.\n", encoding="utf-8")
    page(layout, "2_Wiki/Concepts/Dashboards.md", "# Dashboards\n\nCompact beats sparse.\n")
    page(layout, ".obsidian/notes.md", "hidden config text\n")
    page(layout, ".trash/old.md", "trashed text\n")
    layout.log_md.write_text(layout.log_md.read_text() + "\nnavigation text\n", encoding="utf-8")
    log_facts(archive, "2026-07-19", "User prefers tea")
    changes = await indexer.sync()
    assert changes.rows_added == 3 and changes.index
    found = await all_rows(indexer)
    assert {(Path(p).name, t) for p, t in found} == {
        ("MEMORY.md", "User is called Ada."),
        ("Dashboards.md", "Compact beats sparse."),
        ("2026-07-19.md", "User prefers tea"),
    }
    stats = await indexer.stats()
    assert stats.rows == 3 and stats.by_source == {"core": 1, "notebook": 1, "archive": 1}
    assert stats.stale_files == [] and stats.errors == []


async def test_logs_at_or_before_watermark_lose_rows_and_skipped_dates_stay(
    layout, indexer, archive, notebook, today
) -> None:
    for day in ("2026-07-10", "2026-07-11", "2026-07-12", "2026-07-19"):
        log_facts(archive, day, f"fact of {day}")
    await indexer.sync()
    assert len(await texts(indexer)) == 4
    notebook.append_skip(today, ["2026-07-11"], attempts=3)  # skipped=2026-07-11 watermark=2026-07-11
    notebook.append_ingest(today, "2026-07-12")
    changes = await indexer.sync()
    assert changes.rows_removed == 2
    assert await texts(indexer) == {"fact of 2026-07-11", "fact of 2026-07-19"}


async def test_watermark_in_future_never_hides_today(layout, indexer, archive, notebook, today) -> None:
    log_facts(archive, today.isoformat(), "captured today")
    notebook.append_ingest(today, "2026-08-30")
    await indexer.sync()
    assert "captured today" in await texts(indexer)


# -- ghosts and weird names ---------------------------------------------------------------------
async def test_deleted_renamed_and_emptied_files_lose_their_rows(layout, indexer) -> None:
    a = page(layout, "1_Projects/A.md", "alpha text\n")
    b = page(layout, "1_Projects/B.md", "beta text\n")
    c = page(layout, "1_Projects/C.md", "gamma text\n")
    await indexer.sync()
    a.unlink()
    b.rename(b.with_name("B renamed.md"))
    c.write_text("", encoding="utf-8")
    await indexer.sync()
    assert await all_rows(indexer) == [(str(b.with_name("B renamed.md")), "beta text")]
    assert (await indexer.search("alpha")).hits == []


@pytest.mark.parametrize(
    "name", ["It's mine.md", "50% done.md", "snake_case.md", "Café über 東京.md", "a b  c.md"]
)
async def test_weird_names_are_replaced_not_duplicated(layout, indexer, embedder, name) -> None:
    path = page(layout, f"2_Wiki/{name}", "first version\n")
    page(layout, "2_Wiki/snakeXcase.md", "neighbour that a wildcard would hit\n")
    await indexer.sync()
    for version in range(3):
        path.write_text(f"version {version}\n", encoding="utf-8")
        await indexer.sync()
        await indexer.sync(full=version == 1)
    rows = await all_rows(indexer)
    assert [t for p, t in rows if p == str(path)] == ["version 2"]
    assert [t for p, t in rows if p != str(path)] == ["neighbour that a wildcard would hit"]
    hits = (await indexer.search("version")).hits
    assert hits[0].path == str(path)


# -- incremental --------------------------------------------------------------------------------
async def test_only_new_fact_lines_are_embedded(layout, indexer, archive, embedder, today) -> None:
    day = (today - dt.timedelta(days=1)).isoformat()
    path = log_facts(archive, day, *[f"old fact {i}" for i in range(30)])
    await indexer.sync()
    assert len(embedder.texts) == 30
    ids_before = {r for r in indexer.state.files[str(path)].rows}
    embedder.reset()
    log_facts(archive, day, *[f"new fact {i}" for i in range(5)], hour=11)
    changes = await indexer.sync()
    assert sorted(embedder.texts) == [f"new fact {i}" for i in range(5)]
    assert changes.rows_added == 5 and changes.rows_removed == 0
    assert ids_before < set(indexer.state.files[str(path)].rows)
    embedder.reset()
    await indexer.sync()
    os.utime(path)  # touched, not changed
    await indexer.sync()
    assert embedder.texts == []


async def test_sync_paths_embeds_just_the_appended_lines(layout, indexer, archive, embedder, today) -> None:
    path = log_facts(archive, today.isoformat(), "one", "two")
    page(layout, "0_Inbox/note.md", "an inbox note\n")
    await indexer.sync()
    embedder.reset()
    log_facts(archive, today.isoformat(), "three", hour=12)
    changes = await indexer.sync_paths([path])
    assert embedder.texts == ["three"] and changes.rows_added == 1
    assert "three" in await texts(indexer)


async def test_editing_one_paragraph_reembeds_only_that_chunk(layout, indexer, embedder) -> None:
    sections = "\n\n".join(f"## Part {i}\n\nParagraph number {i} about topic {i}." for i in range(6))
    path = page(layout, "2_Wiki/Long.md", f"# Long\n\n{sections}\n")
    await indexer.sync()
    assert len(embedder.texts) == 6
    embedder.reset()
    path.write_text(path.read_text().replace("about topic 3", "about a new topic"), encoding="utf-8")
    await indexer.sync()
    assert len(embedder.texts) == 1 and "a new topic" in embedder.texts[0]


async def test_lines_shift_without_reembedding(layout, indexer, embedder) -> None:
    path = page(layout, "2_Wiki/Shift.md", "# T\n\nFirst para.\n\n## S\n\nSecond para.\n")
    await indexer.sync()
    embedder.reset()
    path.write_text("# T\n\nFirst para.\n\n\n\n\n## S\n\nSecond para.\n", encoding="utf-8")
    await indexer.sync()
    assert embedder.texts == []
    hit = next(h for h in (await indexer.search("Second para")).hits if h.text == "Second para.")
    assert path.read_text().splitlines()[hit.line - 1] == "Second para."


async def test_a_restart_does_not_reembed_anything(layout, clock, indexer, archive, embedder, today) -> None:
    page(layout, "2_Wiki/P.md", "page text\n")
    log_facts(archive, today.isoformat(), "a fact")
    await indexer.sync()
    again = CountingEmbedder()
    restarted = Indexer(layout, again, clock)
    changes = await restarted.sync()
    assert again.texts == [] and changes.rows_added == 0 and changes.rows_removed == 0
    assert restarted.stale_paths() == []


async def test_row_ids_are_stable_across_full_rebuilds(layout, indexer, archive, today) -> None:
    page(layout, "2_Wiki/P.md", "page text\n\nmore text\n")
    log_facts(archive, today.isoformat(), "a fact", "a fact")  # the same text twice keeps two rows
    await indexer.sync()
    first = sorted(indexer.table.store.ids())
    await indexer.sync(full=True)
    assert sorted(indexer.table.store.ids()) == first and len(first) == 3


# -- recovery -----------------------------------------------------------------------------------
async def test_wiped_table_with_surviving_state_is_rebuilt(layout, clock, indexer, archive, today) -> None:
    import shutil

    log_facts(archive, today.isoformat(), "survivor fact")
    page(layout, "2_Wiki/P.md", "survivor page\n")
    await indexer.sync()
    shutil.rmtree(layout.index_dir / "rows.lance")
    fresh = Indexer(layout, CountingEmbedder(), clock)
    await fresh.sync()
    assert await texts(fresh) == {"survivor fact", "survivor page"}


async def test_missing_state_file_with_existing_table_does_not_duplicate(layout, clock, indexer) -> None:
    page(layout, "2_Wiki/P.md", "only once\n")
    await indexer.sync()
    for file in layout.index_dir.glob(layout.index_state_file.name + "*"):
        file.unlink()
    fresh = Indexer(layout, CountingEmbedder(), clock)
    await fresh.sync()
    assert await all_rows(fresh) == [(str(layout.notebook_dir / "2_Wiki/P.md"), "only once")]


async def test_corrupt_index_directory_is_rebuilt(layout, clock, indexer, archive, today) -> None:
    log_facts(archive, today.isoformat(), "still findable")
    await indexer.sync()
    for file in (layout.index_dir / "rows.lance").rglob("*"):
        if file.is_file():
            file.write_bytes(os.urandom(64))
    for file in layout.index_dir.glob(layout.index_state_file.name + "*"):
        file.write_text("{not a database", encoding="utf-8")
    fresh = Indexer(layout, CountingEmbedder(), clock)
    changes = await fresh.sync()
    assert not [e for e in changes.errors if "Traceback" in e]
    assert [h.text for h in (await fresh.search("findable")).hits] == ["still findable"]


async def test_model_change_forces_rebuild(layout, clock, indexer, archive, today) -> None:
    log_facts(archive, today.isoformat(), "vector space one")
    await indexer.sync()
    small = CountingEmbedder(dim=64)
    switched = Indexer(layout, small, clock)
    before = await switched.search("vector")  # before the rebuild: no crash, full-text only
    assert before.mode == "fulltext" and before.warning and before.hits
    await switched.sync()
    assert small.texts == ["vector space one"]
    meta = dict(sqlite3.connect(layout.index_state_file).execute("SELECT key, value FROM meta").fetchall())
    assert meta["model"] == "hashing-64" and meta["dim"] == "64"
    response = await switched.search("vector space")
    assert response.mode == "hybrid" and response.hits[0].text == "vector space one"


# -- fail-closed ----------------------------------------------------------------------------------
async def test_embedding_failure_keeps_old_rows_and_retries(layout, indexer, embedder) -> None:
    path = page(layout, "2_Wiki/P.md", "original text\n")
    await indexer.sync()
    path.write_text("edited text\n", encoding="utf-8")
    embedder.fail = True
    changes = await indexer.sync()
    assert changes.errors and "P.md" in changes.errors[0]
    assert await texts(indexer) == {"original text"}
    stats = await indexer.stats()
    assert stats.errors and "model offline" in stats.errors[0]
    assert str(path) in stats.stale_files
    embedder.fail = False
    await indexer.sync()
    assert await texts(indexer) == {"edited text"}
    assert (await indexer.stats()).errors == [] and indexer.stale_paths() == []


async def test_failure_after_a_tombstone_change_is_still_retried(layout, indexer, embedder) -> None:
    page(layout, "2_Wiki/P.md", "keep me\n\nforget me\n")
    await indexer.sync()
    Tombstones(layout).add("forget me")
    embedder.fail = True
    await indexer.sync()
    embedder.fail = False
    await indexer.sync()
    assert await texts(indexer) == {"keep me"}


async def test_search_falls_back_to_full_text_when_embedding_fails(
    layout, indexer, embedder, archive, today
) -> None:
    log_facts(archive, today.isoformat(), "User drinks oolong tea", "User owns a bicycle")
    await indexer.sync()
    embedder.fail = True
    response = await indexer.search("oolong")
    assert response.mode == "fulltext" and "full-text" in response.warning
    assert [h.text for h in response.hits] == ["User drinks oolong tea"]


async def test_files_never_embedded_are_still_found_by_words_until_a_pass_succeeds(
    layout, indexer, embedder, archive, today
) -> None:
    embedder.fail = True  # e.g. a remote embedding model while offline, from the very first pass
    log_facts(archive, today.isoformat(), "User bought a red kayak", "User likes green tea")
    page(layout, "2_Wiki/Concepts/Boats.md", "# Boats\n\nA kayak is a narrow boat.\n")
    changes = await indexer.sync()
    assert changes.rows_added == 0 and len(changes.errors) == 2
    response = await indexer.search("red kayak")
    assert response.mode == "fulltext" and "searched by words only" in response.warning
    assert [h.text for h in response.hits] == ["User bought a red kayak", "A kayak is a narrow boat."]
    assert response.hits[0].line is not None and response.hits[0].date == today.isoformat()
    only_logs = await indexer.search("kayak", filters=Filters(source="archive"))
    assert [h.source_type for h in only_logs.hits] == ["archive"]
    embedder.fail = False
    await indexer.sync()
    response = await indexer.search("red kayak")
    assert response.mode == "hybrid" and response.warning is None
    assert response.hits[0].text == "User bought a red kayak"


async def test_non_utf8_and_binary_pages_are_skipped_with_a_named_error(layout, indexer) -> None:
    bad = layout.notebook_dir / "0_Inbox" / "bad.md"
    bad.write_bytes(b"caf\xe9 latin-1 text\n")
    binary = layout.notebook_dir / "0_Inbox" / "blob.md"
    binary.write_bytes(b"\x00\x01\x02PNG")
    page(layout, "0_Inbox/good.md", "good text\n")
    changes = await indexer.sync()
    assert await texts(indexer) == {"good text"}
    assert any("bad.md" in e and "UTF-8" in e for e in changes.errors)
    assert any("blob.md" in e for e in changes.errors)
    assert bad.read_bytes() == b"caf\xe9 latin-1 text\n"


# -- tombstones -----------------------------------------------------------------------------------
async def test_tombstoned_fact_never_indexed_even_on_full_rebuild(layout, indexer, archive, today) -> None:
    log_facts(archive, today.isoformat(), "User lives in Berlin", "User likes jazz")
    Tombstones(layout).add("user   LIVES in berlin")
    await indexer.sync(full=True)
    assert await texts(indexer) == {"User likes jazz"}


async def test_new_tombstone_applies_on_next_pass_and_undo_restores(layout, indexer, archive, today) -> None:
    log_facts(archive, today.isoformat(), "User lives in Berlin", "User likes jazz")
    page(layout, "3_Personal/Home.md", "# Home\n\nShort intro.\n\nUser lives in Berlin\n\nNear the park.\n")
    await indexer.sync()
    stones = Tombstones(layout)
    stones.add("User lives in Berlin")
    await indexer.sync()
    rows = await texts(indexer)
    assert "User lives in Berlin" not in rows
    assert "Short intro.\n\nNear the park." in rows
    stones.undo("User lives in Berlin")
    await indexer.sync()
    assert "User lives in Berlin" in await texts(indexer)


async def test_remove_text_drops_matching_rows_and_keeps_chunk_neighbours(
    layout, indexer, archive, today
) -> None:
    log_facts(archive, today.isoformat(), "User works at Initech", "User likes jazz")
    page(
        layout,
        "3_Personal/Work.md",
        "# Work\n\nCareer notes.\n\nUser works at Initech\n\n- item one\n- secret item\n",
    )
    core = layout.memory_dir / "user.md"
    core.write_text("User works at Initech\n", encoding="utf-8")
    await indexer.sync()
    Tombstones(layout).add("User works at Initech")
    removed = await indexer.remove_text("user works at initech")
    assert removed == 3
    rows = await texts(indexer)
    assert not any("Initech" in t for t in rows)
    assert any("Career notes." in t and "item one" in t for t in rows)
    assert await indexer.remove_text("secret item") == 1
    assert not any("secret item" in t for t in await texts(indexer))
    assert any("item one" in t for t in await texts(indexer))
    assert await indexer.remove_text("matches nothing at all") == 0
    await indexer.sync(full=True)
    assert not any("Initech" in t for t in await texts(indexer))


# -- search ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "query", ['"tea', "tea AND (coffee", "title:tea", "tea*", "tea~2", "-tea", "OR", "(("]
)
async def test_search_query_syntax_characters_do_not_error(layout, indexer, archive, today, query) -> None:
    log_facts(archive, today.isoformat(), "User likes tea")
    await indexer.sync()
    response = await indexer.search(query)
    # "-tea" is a search operator alone (core.query): it lists files, none holding "tea"
    assert response.mode == ("list" if query == "-tea" else "hybrid")
    assert isinstance(response.hits, list)
    assert query != "-tea" or all("tea" not in hit.text.lower() for hit in response.hits)


async def test_search_filters_source_zone_and_dates(layout, indexer, archive, today) -> None:
    log_facts(archive, "2026-07-01", "tea in july first")
    log_facts(archive, "2026-07-15", "tea in mid july")
    page(layout, "3_Personal/Tea.md", "tea at home\n")
    page(layout, "2_Wiki/Concepts/Tea.md", "tea as a concept\n")
    (layout.memory_dir / "persona.md").write_text("tea persona\n", encoding="utf-8")
    await indexer.sync()
    assert {h.text for h in (await indexer.search("tea", filters=Filters(source="archive"))).hits} == {
        "tea in july first",
        "tea in mid july",
    }
    assert {h.text for h in (await indexer.search("tea", filters=Filters(zone="2_Wiki"))).hits} == {"tea as a concept"}
    assert {h.text for h in (await indexer.search("tea", filters=Filters(source="core"))).hits} == {"tea persona"}
    dated = (await indexer.search("tea", filters=Filters(date_from="2026-07-10", date_to="2026-07-31"))).hits
    assert [(h.text, h.date) for h in dated] == [("tea in mid july", "2026-07-15")]
    hit = next(h for h in (await indexer.search("concept")).hits if h.source_type == "notebook")
    assert Path(hit.path).is_absolute() and hit.line == 1 and hit.row_id


async def test_related_returns_other_files_only(layout, indexer) -> None:
    a = page(layout, "2_Wiki/Tea.md", "Green tea and oolong tea brewing\n")
    page(layout, "2_Wiki/Oolong.md", "Oolong tea brewing temperature\n")
    page(layout, "2_Wiki/Bikes.md", "Bicycle gears and chains\n")
    await indexer.sync()
    related = await indexer.related(a)
    assert related and all(h.path != str(a) for h in related)
    assert related[0].path.endswith("Oolong.md")


# -- progress, cancel, lock ------------------------------------------------------------------------
async def test_progress_and_cancel(layout, indexer, monkeypatch) -> None:
    import suzent_desktop.core.index.indexer as module

    monkeypatch.setattr(module, "BATCH_FILES", 2)
    for i in range(6):
        page(layout, f"0_Inbox/n{i}.md", f"note {i}\n")
    seen: list[tuple[int, int]] = []
    cancel = threading.Event()

    def progress(done: int, total: int, path: str) -> None:
        seen.append((done, total))
        if done >= 2:
            cancel.set()

    await indexer.sync(progress=progress, cancel=cancel)
    assert seen[0] == (0, 6) and (2, 6) in seen
    assert len(await texts(indexer)) == 2
    assert len(indexer.stale_paths()) == 4
    done: list[tuple[int, int]] = []
    await indexer.sync(progress=lambda d, t, p: done.append((d, t)))
    assert done[-1] == (4, 4) and len(await texts(indexer)) == 6


async def test_concurrent_syncs_are_serialised(layout, indexer, archive, today) -> None:
    import asyncio

    path = log_facts(archive, today.isoformat(), *[f"fact {i}" for i in range(20)])
    page(layout, "2_Wiki/P.md", "page\n")
    await asyncio.gather(
        indexer.sync(), indexer.sync_paths([path]), indexer.sync(), indexer.sync_paths([path])
    )
    rows = await all_rows(indexer)
    assert len(rows) == 21 and len(set(rows)) == 21


@pytest.mark.real_model
async def test_real_model_finds_paraphrase(layout, clock, archive, today) -> None:
    from suzent_desktop.core.index.embedding import OnnxMiniLMEmbedder

    log_facts(archive, today.isoformat(), "User now works at Microsoft", "User enjoys hiking in the Alps")
    indexer = Indexer(layout, OnnxMiniLMEmbedder(), clock)
    await indexer.sync()
    response = await indexer.search("which company employs the user?", limit=2)
    assert response.mode == "hybrid"
    assert response.hits[0].text == "User now works at Microsoft"


async def test_forget_then_remember_does_not_reread_every_file(
    layout, indexer, archive, today, monkeypatch
) -> None:
    path = log_facts(archive, today.isoformat(), "User lives in Berlin", "User likes jazz")
    page(layout, "2_Wiki/Other.md", "unrelated page\n")
    await indexer.sync()
    Tombstones(layout).add("User lives in Berlin")
    assert await indexer.remove_text("user lives in berlin") == 1
    planned: list[str] = []
    original = Planner.plan

    def spy(self, source, *args):
        planned.append(source.path.name)
        return original(self, source, *args)

    monkeypatch.setattr(Planner, "plan", spy)
    log_facts(archive, today.isoformat(), "User likes tea", hour=12)
    await indexer.sync_paths([path])
    assert planned == [path.name]
    assert await texts(indexer) == {"User likes jazz", "User likes tea", "unrelated page"}


async def test_crlf_page_with_frontmatter_indexes_paragraphs_without_the_frontmatter(
    layout, indexer, embedder
) -> None:
    text = "---\r\ntitle: Secret Title\r\nkey: frontmatter-noise\r\n---\r\n# Page\r\n\r\n" + "\r\n\r\n".join(
        f"Paragraph {i} " + "words " * 150 for i in range(3)
    )
    path = layout.notebook_dir / "2_Wiki" / "Windows.md"
    path.write_bytes(text.encode("utf-8"))
    await indexer.sync()
    rows = [t for p, t in await all_rows(indexer) if p == str(path)]
    assert len(rows) == 3 and all("\r" not in t for t in rows)
    assert not any("frontmatter-noise" in t for t in embedder.texts)


async def test_sync_paths_removes_rows_of_a_deleted_page_and_a_consolidated_log(
    layout, indexer, archive, notebook, today
) -> None:
    gone = page(layout, "0_Inbox/gone.md", "soon deleted\n")
    old_log = log_facts(archive, "2026-07-10", "old day fact")
    page(layout, "0_Inbox/stays.md", "stays\n")
    await indexer.sync()
    gone.unlink()
    notebook.append_ingest(today, "2026-07-10")
    changes = await indexer.sync_paths([gone, old_log])
    assert changes.rows_removed == 2
    assert await texts(indexer) == {"stays"}


async def test_a_pass_with_nothing_to_do_writes_nothing(layout, indexer, archive, today) -> None:
    log_facts(archive, today.isoformat(), "a fact")
    await indexer.sync()
    before = generation(layout)
    version = indexer.table.store.table.version
    changes = await indexer.sync()
    assert changes.empty
    assert generation(layout) == before
    assert indexer.table.store.table.version == version


async def test_cancel_during_a_long_embedding_batch_writes_nothing(
    layout, indexer, archive, embedder, today
) -> None:
    log_facts(archive, today.isoformat(), *[f"fact {i}" for i in range(300)])
    cancel = threading.Event()
    inner_embed = embedder.embed

    def embed_then_cancel(texts):
        cancel.set()  # the user presses cancel while the first slice is being embedded
        return inner_embed(texts)

    embedder.embed = embed_then_cancel
    await indexer.sync(cancel=cancel)
    assert embedder.calls == 1 and len(embedder.texts) < 300
    assert await texts(indexer) == set()
    embedder.embed = inner_embed
    await indexer.sync()
    assert len(await texts(indexer)) == 300


async def test_forget_reaches_a_consolidated_bullet_with_provenance(layout, indexer) -> None:
    page(
        layout,
        "3_Personal/Work.md",
        "# Work\n\n- User works at Contoso (2026-07-01)\n- User leads Atlas (2026-07-02)\n",
    )
    await indexer.sync()
    Tombstones(layout).add("User works at Contoso")
    assert await indexer.remove_text("user works at contoso") == 1
    rows = await texts(indexer)
    assert rows == {"User leads Atlas"}  # a fact page: one row per bullet, its bare text
    await indexer.sync(full=True)
    assert await texts(indexer) == rows


# -- two processes on one index (the app and the command line) ----------------------------------
def second_process(layout, clock, notebook, archive) -> Indexer:
    """Another Indexer on the same folders: its own locks, state and table handle, as a second process has."""
    return Indexer(layout, CountingEmbedder(), clock, notebook=notebook, archive=archive)


async def test_a_query_never_creates_or_resets_the_table(layout, indexer) -> None:
    response = await indexer.search("anything")
    assert response.hits == [] and "not built yet" in (response.warning or "")
    assert await indexer.related(page(layout, "2_Wiki/Concepts/A.md", "# A\n\nSome text.\n")) == []
    assert (await indexer.stats()).errors == []
    assert not (layout.index_dir / "rows.lance").exists()


async def test_a_second_process_adopts_rows_the_first_wrote_instead_of_duplicating_them(
    layout, clock, notebook, archive, indexer, today
) -> None:
    other = second_process(layout, clock, notebook, archive)
    log_facts(archive, "2026-07-18", "User likes kayaking")
    await indexer.sync()
    await other.sync()  # nothing new for it: the first process indexed the log
    assert other.embedder.texts == []
    log_facts(archive, "2026-07-18", "User owns a red kayak", hour=11)
    await indexer.sync()
    changes = await other.sync()
    assert changes.rows_added == 0 and other.embedder.texts == []
    ids = (await _scan(other, ["id"])).column("id").to_pylist()
    assert len(ids) == len(set(ids)) == 2
    assert [h.text for h in (await other.search("red kayak")).hits][:1] == ["User owns a red kayak"]


async def test_a_pass_waits_while_another_process_holds_the_index(
    layout, clock, notebook, archive, indexer, monkeypatch
) -> None:
    import asyncio

    from filelock import FileLock, Timeout

    log_facts(archive, "2026-07-18", "User likes kayaking")
    layout.index_dir.mkdir(parents=True, exist_ok=True)
    held = FileLock(str(layout.index_dir / "write.lock"))
    held.acquire()
    refused = asyncio.Event()
    acquire = indexer.table.fair_lock.lock.acquire

    def counting_acquire(*args, **kwargs):
        try:
            return acquire(*args, **kwargs)
        except Timeout:
            refused.set()
            raise

    monkeypatch.setattr(indexer.table.fair_lock.lock, "acquire", counting_acquire)
    try:
        task = asyncio.ensure_future(indexer.sync())
        await refused.wait()  # it tried, found the lock taken, and waits its turn
        assert not task.done() and not (layout.index_dir / "rows.lance").exists()
    finally:
        held.release()
    changes = await task
    assert changes.rows_added == 1


async def test_a_deleted_table_makes_every_file_stale_so_callers_rebuild(layout, indexer, archive, today) -> None:
    import shutil

    log_facts(archive, "2026-07-18", "User likes kayaking")
    await indexer.sync()
    assert indexer.stale_paths() == []
    shutil.rmtree(layout.index_dir / "rows.lance")
    assert archive.path_for("2026-07-18") in indexer.stale_paths()
    await indexer.sync()
    assert await texts(indexer) == {"User likes kayaking"} and indexer.stale_paths() == []


def test_the_watcher_starting_never_waits_for_a_pass_holding_the_state(indexer: Indexer, notebook) -> None:
    page = notebook.root / "3_Personal" / "Watched.md"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text("# Watched\n\nA paragraph.\n", encoding="utf-8")
    assert page in indexer.stale_paths()  # the first look walks the vault
    done = threading.Event()
    with indexer.table.state_lock:  # as a long pass holds it
        worker = threading.Thread(target=lambda: (indexer.watch(True), done.set()))
        worker.start()
        assert done.wait(5), "watch() waited for the state lock (the GUI thread would freeze)"
    worker.join()
    page.with_name("New.md").write_text("# New\n", encoding="utf-8")  # not reported by any watcher event
    assert page.with_name("New.md") in indexer.stale_paths()  # so the next look walked the vault again
