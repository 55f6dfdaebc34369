"""The index state in SQLite: a pass writes only the files it changed; an old JSON state is moved in."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from suzent_desktop.core.embedding import HashingEmbedder
from suzent_desktop.core.index_state import LEGACY_NAME
from suzent_desktop.core.indexer import Indexer
from suzent_desktop.core.notebook import Notebook


class CountingEmbedder:
    def __init__(self) -> None:
        self.inner = HashingEmbedder()
        self.name, self.dim = self.inner.name, self.inner.dim
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts.extend(texts)
        return self.inner.embed(texts)


@pytest.fixture
def vault(layout) -> Notebook:
    notebook = Notebook(layout)
    notebook.bootstrap()
    layout.memory_dir.mkdir(parents=True, exist_ok=True)
    return notebook


def _pages(layout, count: int) -> list[Path]:
    paths = []
    for i in range(count):
        path = layout.notebook_dir / "2_Wiki" / f"Page {i}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Page {i}\n\nPage {i} is about lantern number {i}.\n", encoding="utf-8")
        paths.append(path)
    return paths


def _rows(layout) -> dict[str, int]:
    """key -> SQLite rowid of its entry: a rewritten entry gets a new rowid, an untouched one keeps it."""
    with sqlite3.connect(layout.index_state_file) as conn:
        return dict(conn.execute("SELECT key, rowid FROM files").fetchall())


async def test_a_one_page_edit_rewrites_only_that_pages_entry(layout, clock, vault) -> None:
    pages = _pages(layout, 30)
    indexer = Indexer(layout, CountingEmbedder(), clock)
    await indexer.sync()
    before = _rows(layout)
    pages[7].write_text("# Page 7\n\nPage 7 is now about a brass compass.\n", encoding="utf-8")
    await indexer.sync_paths([pages[7]])
    after = _rows(layout)
    assert set(after) == set(before)
    assert [k for k in after if after[k] != before[k]] == [str(pages[7])]
    await indexer.sync()  # a full pass that finds nothing to do writes no entry
    assert _rows(layout) == after


async def test_a_json_state_is_moved_in_without_embedding_anything_again(layout, clock, vault) -> None:
    pages = _pages(layout, 5)
    first = CountingEmbedder()
    indexer = Indexer(layout, first, clock)
    await indexer.sync()
    state = indexer.state
    legacy = {
        "version": 2, "model": state.model, "dim": state.dim, "tombstones": state.tombstones,
        "files": {k: {"type": f.source_type, "mtime": f.mtime, "size": f.size, "sha256": f.sha256, "rows": f.rows}
                  for k, f in state.files.items()},
        "errors": {},
    }
    indexer._states.close()
    for file in layout.index_dir.glob(layout.index_state_file.name + "*"):
        file.unlink()
    (layout.index_dir / LEGACY_NAME).write_text(json.dumps(legacy), encoding="utf-8")

    second = CountingEmbedder()
    reopened = Indexer(layout, second, clock)
    changes = await reopened.sync()
    assert second.texts == [] and changes.errors == []
    assert not (layout.index_dir / LEGACY_NAME).exists()
    assert set(_rows(layout)) == {str(p) for p in pages} | {str(p) for p in layout.core_files if p.is_file()}
    assert [h.text for h in (await reopened.search("lantern number 3")).hits][:1] == ["Page 3 is about lantern number 3."]


async def test_an_unreadable_json_state_rebuilds_the_index_and_says_so(layout, clock, vault) -> None:
    _pages(layout, 3)
    layout.index_dir.mkdir(parents=True, exist_ok=True)
    (layout.index_dir / LEGACY_NAME).write_text("{half a file", encoding="utf-8")
    embedder = CountingEmbedder()
    changes = await Indexer(layout, embedder, clock).sync()
    assert any("was unreadable" in e and LEGACY_NAME in e for e in changes.errors)
    assert any("lantern number 1." in t for t in embedder.texts)
    assert not (layout.index_dir / LEGACY_NAME).exists()


async def test_an_unreadable_state_database_rebuilds_the_index_and_says_so(layout, clock, vault) -> None:
    _pages(layout, 3)
    indexer = Indexer(layout, CountingEmbedder(), clock)
    await indexer.sync()
    indexer._states.close()
    for file in layout.index_dir.glob(layout.index_state_file.name + "*"):
        file.write_bytes(b"not a database at all" * 50)
    embedder = CountingEmbedder()
    fresh = Indexer(layout, embedder, clock)
    changes = await fresh.sync()
    assert any("was unreadable" in e for e in changes.errors)
    assert [h.text for h in (await fresh.search("lantern number 2")).hits][:1] == ["Page 2 is about lantern number 2."]
    assert not any("was unreadable" in e for e in (await fresh.sync()).errors)  # said once


async def test_another_process_sees_a_state_saved_by_this_one(layout, clock, vault) -> None:
    pages = _pages(layout, 2)
    one = Indexer(layout, CountingEmbedder(), clock)
    two_embedder = CountingEmbedder()
    two = Indexer(layout, two_embedder, clock)
    await one.sync()
    await two.sync()  # adopts what one wrote: nothing to embed
    assert two_embedder.texts == []
    pages[0].write_text("# Page 0\n\nA new line about kites.\n", encoding="utf-8")
    await one.sync_paths([pages[0]])
    await two.sync()
    assert two_embedder.texts == []
    assert two.state.files[str(pages[0])].sha256 == one.state.files[str(pages[0])].sha256
