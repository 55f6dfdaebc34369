"""The ANN vector index: built past a row threshold, new rows found at once, filters kept, damage survived."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from index_support import ranked

from suzent_desktop.core.files.clock import Clock
from suzent_desktop.core.index.embedding import HashingEmbedder
from suzent_desktop.core.index.indexer import Indexer
from suzent_desktop.core.index.ranking.filters import Filters
from suzent_desktop.core.index.storage import ann
from suzent_desktop.core.index.storage.store import IndexStore, Row, norm_key
from suzent_desktop.core.vault.notebook import Notebook

WORDS = (
    "harbor lantern quartz meadow violin glacier orchard pepper saddle ember falcon tundra "
    "cobalt marble thistle canyon ribbon walnut comet lagoon anchor prairie velvet cedar"
).split()
THRESHOLD = 240


@pytest.fixture(autouse=True)
def low_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ann, "ANN_MIN_ROWS", THRESHOLD)


def _sentence(rng: random.Random, serial: int) -> str:
    return f"{' '.join(rng.sample(WORDS, 5))} note {serial}"


def _rows(start: int, count: int, *, source: str = "notebook", date: str | None = None) -> list[Row]:
    embedder = HashingEmbedder()
    rng = random.Random(start)
    rows = []
    for serial in range(start, start + count):
        text = _sentence(rng, serial)
        rows.append(
            Row(
                id=f"row-{serial}",
                text=text,
                source_type=source,
                path=f"/vault/page {serial // 10}.md",
                zone="2_Wiki",
                line=serial % 10 + 1,
                date=date or f"2026-0{serial % 9 + 1}-15",
                heading=None,
                norm=text,
                norm_keys=[norm_key(text)],
                embed_text=text,
                vector=embedder.embed([text])[0],
            )
        )
    return rows


@pytest.fixture
def store(tmp_path: Path) -> IndexStore:
    s = IndexStore(tmp_path / "index", 384)
    s.open()
    return s


def _index_dir(store: IndexStore) -> Path:
    index = ann.find(store.table)
    assert index is not None
    uuid = next(i.index_uuid for i in store.table.list_indices() if i.name == index.name)
    return store.table_dir / "_indices" / uuid


def test_a_small_table_keeps_the_flat_scan_and_a_big_one_gets_an_index(store: IndexStore) -> None:
    store.add(_rows(0, THRESHOLD - 40))
    store.optimize(force=True)
    assert store.ann_index() is None

    store.add(_rows(THRESHOLD - 40, 80))
    store.optimize()  # a small write: the schedule notices the threshold without a forced compaction
    index = store.ann_index()
    assert index is not None
    assert index.indexed_rows == THRESHOLD + 40
    assert index.partitions == ann.partitions_for(THRESHOLD + 40)


def test_rows_added_after_training_are_found_before_the_index_is_updated(store: IndexStore) -> None:
    store.add(_rows(0, THRESHOLD + 60))
    store.optimize(force=True)
    assert store.ann_index() is not None

    fresh = _rows(5000, 5)
    store.add(fresh)
    assert ann.find(store.table).unindexed_rows == 5
    for row in fresh:
        hits = store.vector_search(row.vector, 3)
        assert hits[0]["id"] == row.id
        assert hits[0]["score"] == pytest.approx(1.0, abs=1e-4)
    hybrid = ranked(store, fresh[0].vector, fresh[0].text, 5)
    assert hybrid[0]["id"] == fresh[0].id

    store.optimize(force=True)  # folds them into the index as a delta segment
    index = ann.find(store.table)
    assert index.unindexed_rows == 0 and index.indexed_rows == THRESHOLD + 65


def test_filters_are_applied_before_the_index_and_still_fill_the_page(store: IndexStore) -> None:
    store.add(_rows(0, THRESHOLD * 2))
    rare = _rows(9000, 4, source="core", date="2025-12-01")
    store.add(rare)
    store.optimize(force=True)
    assert store.ann_index() is not None

    probe = _rows(0, 1)[0].vector  # nearest neighbours are notebook rows, far from the four core ones
    hits = store.vector_search(probe, 10, Filters(source="core"))
    assert sorted(h["id"] for h in hits) == sorted(r.id for r in rare)
    dated = store.vector_search(probe, 10, Filters(date_from="2026-03-01", date_to="2026-03-31"))
    assert dated and all(h["date"] == "2026-03-15" for h in dated)
    assert [h["id"] for h in dated] == [h["id"] for h in store.vector_search(
        probe, 10, Filters(date_from="2026-03-01", date_to="2026-03-31"), exact=True)]
    mixed = ranked(store, rare[0].vector, rare[0].text, 10, Filters(source="core"))
    assert mixed[0]["id"] == rare[0].id and {h["source_type"] for h in mixed} == {"core"}


def test_the_index_is_retrained_when_the_table_outgrows_it(store: IndexStore, monkeypatch) -> None:
    monkeypatch.setattr(ann, "ROWS_PER_PARTITION", 60)
    store.add(_rows(0, THRESHOLD + 60))
    store.optimize(force=True)
    first = store.ann_index()
    assert first.partitions == ann.partitions_for(THRESHOLD + 60)

    store.add(_rows(4000, THRESHOLD + 60))  # twice the rows: partitions hold twice their target
    store.optimize(force=True)
    second = store.ann_index()
    assert second.partitions == ann.partitions_for(2 * (THRESHOLD + 60))
    assert second.segments == 1 and second.unindexed_rows == 0
    assert [i.name for i in store.table.list_indices() if i.columns == ["vector"]] == [second.name]


@pytest.mark.parametrize("damage", ["missing", "garbage"])
def test_a_damaged_index_falls_back_to_the_exact_scan_and_is_rebuilt(tmp_path: Path, damage: str) -> None:
    folder = tmp_path / "index"
    store = IndexStore(folder, 384)
    store.open()
    rows = _rows(0, THRESHOLD + 60)
    store.add(rows)
    store.optimize(force=True)
    files = _index_dir(store)
    if damage == "missing":
        shutil.rmtree(files)
    else:
        for part in files.iterdir():
            part.write_bytes(b"\x00not an index" * 64)

    reopened = IndexStore(folder, 384)  # a fresh process: nothing cached
    reopened.open(repair=False)
    hits = reopened.vector_search(rows[7].vector, 3)
    assert hits[0]["id"] == rows[7].id
    assert "vector index is damaged" in reopened.ann_notice
    assert ranked(reopened, rows[8].vector, rows[8].text, 3)[0]["id"] == rows[8].id

    reopened.add(_rows(7000, 3))
    reopened.optimize(force=True)  # the next index pass drops the broken index and trains a new one
    assert reopened.ann_notice is None
    assert ann.find(reopened.table).indexed_rows == THRESHOLD + 63
    assert reopened.vector_search(rows[9].vector, 3)[0]["id"] == rows[9].id


async def test_the_indexer_builds_the_index_and_finds_pages_saved_after_it(layout, clock: Clock) -> None:
    notebook = Notebook(layout)
    notebook.bootstrap()
    rng = random.Random(3)
    folder = layout.notebook_dir / "2_Wiki" / "Concepts"
    folder.mkdir(parents=True, exist_ok=True)
    for number in range(THRESHOLD + 20):  # a short page is one row
        paragraphs = [_sentence(rng, number * 10 + i) for i in range(3)]
        (folder / f"Topic {number}.md").write_text(f"# Topic {number}\n\n" + "\n\n".join(paragraphs) + "\n")
    indexer = Indexer(layout, HashingEmbedder(), clock, notebook=notebook)
    await indexer.sync(full=True)
    assert indexer.table.store.ann_index() is not None

    late = folder / "Zeppelin.md"
    late.write_text("# Zeppelin\n\nThe zeppelin hangar smells of kerosene and old canvas.\n")
    await indexer.sync_paths([late])
    response = await indexer.search("zeppelin hangar kerosene")
    assert response.mode == "hybrid" and response.warning is None
    assert response.hits[0].path == str(late)

    shutil.rmtree(_index_dir(indexer.table.store))
    fresh = Indexer(layout, HashingEmbedder(), clock, notebook=notebook)
    response = await fresh.search("zeppelin hangar kerosene")
    assert response.hits[0].path == str(late)
    assert response.mode == "hybrid" and "vector index is damaged" in response.warning
    await fresh.sync()
    again = await fresh.search("zeppelin hangar kerosene")
    assert again.warning is None and again.hits[0].path == str(late)
