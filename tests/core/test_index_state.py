"""The index state in SQLite: a pass writes only the files it changed; an old JSON state is moved in."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from suzent_desktop.core.index.embedding import HashingEmbedder
from suzent_desktop.core.index.indexer import Indexer
from suzent_desktop.core.index.storage.state import LEGACY_NAME
from suzent_desktop.core.vault.notebook import Notebook


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
    indexer.table.states.close()
    for file in layout.index_dir.glob(layout.index_state_file.name + "*"):
        file.unlink()
    (layout.index_dir / LEGACY_NAME).write_text(json.dumps(legacy), encoding="utf-8")

    second = CountingEmbedder()
    reopened = Indexer(layout, second, clock)
    changes = await reopened.sync()
    assert second.texts == [] and changes.errors == []
    assert not (layout.index_dir / LEGACY_NAME).exists()
    assert set(_rows(layout)) == {str(p) for p in pages} | {str(p) for p in layout.core_files if p.is_file()}
    assert "Page 3 is about lantern number 3." in [h.text for h in (await reopened.search("lantern 3")).hits]


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
    indexer.table.states.close()
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


# -- vectors follow renamed files ---------------------------------------------------------------
async def test_renaming_a_folder_of_pages_embeds_nothing(layout, clock, vault) -> None:
    folder = layout.notebook_dir / "1_Projects" / "Kites"
    folder.mkdir(parents=True)
    old = []
    for i in range(40):
        path = folder / f"Kite {i}.md"
        path.write_text(f"# Kite {i}\n\nKite {i} flies over the dune {i}.\n\n- a bullet for kite {i}\n", encoding="utf-8")
        old.append(path)
    embedder = CountingEmbedder()
    indexer = Indexer(layout, embedder, clock)
    await indexer.sync()
    rows_before = (await indexer.stats()).rows
    embedder.texts.clear()

    moved = folder.with_name("Kites (old)")
    folder.rename(moved)
    changes = await indexer.sync_paths([folder, moved])  # what the watcher reports for a folder rename
    assert embedder.texts == []
    assert changes.errors == []
    stats = await indexer.stats()
    assert stats.rows == rows_before and stats.stale_files == []
    hits = (await indexer.search("Kite 7 flies over the dune")).hits
    assert hits[0].path == str(moved / "Kite 7.md")

    back = moved.with_name("Kites")
    moved.rename(back)
    embedder.texts.clear()
    await indexer.sync()  # a full pass finds the same vectors by content too
    assert embedder.texts == []
    assert {h.path for h in (await indexer.search("dune")).hits} <= {str(back / p.name) for p in old}


async def test_a_paragraph_moved_to_another_page_keeps_its_vector(layout, clock, vault) -> None:
    a, b = _pages(layout, 2)
    section = "# Lighthouse\n\nThe lighthouse keeper logs every ship.\n"
    a.write_text(f"{section}\n# Other\n\nA second thought.\n", encoding="utf-8")
    b.write_text("# Notes\n\nAnother page.\n", encoding="utf-8")
    embedder = CountingEmbedder()
    indexer = Indexer(layout, embedder, clock)
    await indexer.sync()
    embedder.texts.clear()
    a.write_text("# Other\n\nA second thought.\n", encoding="utf-8")
    b.write_text(f"# Notes\n\nAnother page.\n\n{section}", encoding="utf-8")  # the section moved
    await indexer.sync_paths([a, b])
    assert not any("lighthouse" in t for t in embedder.texts)
    assert (await indexer.search("lighthouse keeper")).hits[0].path == str(b)


# -- staleness: cached while a watcher reports changes --------------------------------------------
async def _watched(layout, clock, monkeypatch) -> tuple[list[Path], Indexer, list]:
    """Ten pages indexed by a watched indexer (the first pass walks: nothing is known yet); every later
    walk of the vault is recorded in the returned list."""
    from suzent_desktop.core.vault import model as indexer_module

    pages = _pages(layout, 10)
    indexer = Indexer(layout, CountingEmbedder(), clock)
    indexer.watch(True)
    await indexer.sync()
    walks: list = []
    real_walk = indexer_module._walk_entries
    monkeypatch.setattr(indexer_module, "_walk_entries", lambda *a: walks.append(a) or real_walk(*a))
    return pages, indexer, walks


async def test_stale_files_come_from_the_cache_while_watched_and_the_vault_is_not_walked(
    layout, clock, vault, monkeypatch
) -> None:
    pages, indexer, walks = await _watched(layout, clock, monkeypatch)

    assert indexer.stale_paths() == []
    pages[3].write_text("# Page 3\n\nChanged by hand.\n", encoding="utf-8")
    new = layout.notebook_dir / "0_Inbox" / "New.md"
    new.parent.mkdir(parents=True, exist_ok=True)
    new.write_text("# New\n\nA new page.\n", encoding="utf-8")
    indexer.note_changed([pages[3], new])
    assert indexer.stale_paths() == sorted([pages[3], new])
    await indexer.search("changed by hand")
    assert (await indexer.stats()).stale_files == sorted(str(p) for p in [pages[3], new])
    assert walks == []

    await indexer.sync_paths([pages[3], new])
    assert indexer.stale_paths() == [] and walks == []

    pages[5].unlink()
    indexer.note_changed([pages[5]])
    assert indexer.stale_paths() == [pages[5]]
    await indexer.sync_paths([pages[5]])
    assert indexer.stale_paths() == [] and walks == []

    assert indexer.stale_paths(refresh=True) == [] and len(walks) == 1  # asked for: one walk


async def test_a_watched_pass_reads_what_the_watcher_named_and_walks_only_when_asked(
    layout, clock, vault, monkeypatch
) -> None:
    pages, indexer, walks = await _watched(layout, clock, monkeypatch)

    assert (await indexer.sync()).rows_added == 0 and walks == []  # a no-op pass after a dream, say
    pages[2].write_text("# Page 2\n\nAbout a harpsichord now.\n", encoding="utf-8")
    pages[4].unlink()
    indexer.note_changed([pages[2], pages[4]])
    changes = await indexer.sync()
    assert changes.rows_added >= 1 and changes.rows_removed >= 1 and walks == []
    assert (await indexer.search("harpsichord")).hits[0].path == str(pages[2])
    assert not any(h.path == str(pages[4]) for h in (await indexer.search("Page 4")).hits)

    pages[6].write_text("# Page 6\n\nChanged while nothing watched it.\n", encoding="utf-8")
    assert (await indexer.sync()).rows_added == 0  # the watcher never named it
    changes = await indexer.sync(refresh=True)  # asked for: one walk finds it
    assert changes.rows_added >= 1 and len(walks) == 1
    assert indexer.stale_paths() == []


async def test_without_a_watcher_every_look_walks_the_vault(layout, clock, vault) -> None:
    pages = _pages(layout, 3)
    indexer = Indexer(layout, CountingEmbedder(), clock)
    await indexer.sync()
    pages[1].write_text("# Page 1\n\nEdited in another program.\n", encoding="utf-8")
    assert indexer.stale_paths() == [pages[1]]


async def test_a_folder_deleted_outside_the_app_counts_as_behind_until_synced(layout, clock, vault) -> None:
    folder = layout.notebook_dir / "2_Wiki" / "Gone"
    folder.mkdir(parents=True)
    for i in range(3):
        (folder / f"G{i}.md").write_text(f"# G{i}\n\nText {i}.\n", encoding="utf-8")
    indexer = Indexer(layout, CountingEmbedder(), clock)
    indexer.watch(True)
    await indexer.sync()
    assert indexer.stale_paths() == []
    for file in folder.iterdir():
        file.unlink()
    folder.rmdir()
    indexer.note_changed([folder])
    assert indexer.stale_paths() == sorted(folder / f"G{i}.md" for i in range(3))
    changes = await indexer.sync_paths([folder])
    assert changes.rows_removed == 3 and indexer.stale_paths() == []


async def test_a_watched_file_that_fails_to_embed_stays_behind(layout, clock, vault) -> None:
    from suzent_desktop.core.index.embedding import EmbeddingError

    pages = _pages(layout, 2)
    embedder = CountingEmbedder()
    indexer = Indexer(layout, embedder, clock)
    indexer.watch(True)
    await indexer.sync()
    pages[0].write_text("# Page 0\n\nNow about a violin.\n", encoding="utf-8")
    indexer.note_changed([pages[0]])

    def refuse(texts):
        raise EmbeddingError("model offline")

    embedder.embed = refuse
    changes = await indexer.sync_paths([pages[0]])
    assert changes.errors and indexer.stale_paths() == [pages[0]]
