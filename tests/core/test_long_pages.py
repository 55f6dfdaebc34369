"""A long page is indexed slice by slice: a remembered fact does not wait for all of it, nothing is doubled."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import numpy as np
import pytest
from filelock import FileLock

from suzent_desktop.core.index import indexer as indexer_module
from suzent_desktop.core.index.embedding import EmbeddingError, HashingEmbedder
from suzent_desktop.core.manager import MemoryManager

PARAGRAPHS = 120


class SteppedEmbedder:
    """The hashing embedder, with a hook on every call (from the worker thread)."""

    def __init__(self) -> None:
        self.inner = HashingEmbedder()
        self.name, self.dim = self.inner.name, self.inner.dim
        self.calls = 0
        self.fail_from: int | None = None
        self.first_call = threading.Event()

    def embed(self, texts):
        self.calls += 1
        self.first_call.set()
        if self.fail_from is not None and self.calls >= self.fail_from:
            raise EmbeddingError("the model went away")
        return np.asarray(self.inner.embed(texts))


@pytest.fixture
def small_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(indexer_module, "BATCH_TEXTS", 8)
    monkeypatch.setattr(indexer_module, "EMBED_SLICE", 8)


def _long_page(manager: MemoryManager, word: str = "topic") -> Path:
    page = manager.layout.notebook_dir / "2_Wiki" / "Long.md"
    page.parent.mkdir(parents=True, exist_ok=True)
    body = "\n\n".join(f"## Part {i}\n\nParagraph {i} is about {word} number {i}." for i in range(PARAGRAPHS))
    page.write_text(f"# Long\n\n{body}\n", encoding="utf-8")
    return page


async def _wait_for(event: threading.Event) -> None:
    while not event.is_set():
        await asyncio.to_thread(event.wait, 0.05)


async def test_a_fact_remembered_during_a_long_page_is_indexed_before_the_page_is_done(
    home: Path, clock, small_slices
):
    embedder = SteppedEmbedder()
    manager = MemoryManager.open(home, clock=clock, embedder=embedder)
    await manager.indexer.sync()
    _long_page(manager)
    long_pass = asyncio.ensure_future(manager.indexer.sync())
    await _wait_for(embedder.first_call)
    changes = await manager.capturing.remember("User paddles a red kayak")
    assert not long_pass.done(), "remember waited for the whole long page"
    assert changes.rows_added == 1
    await long_pass
    hits = (await manager.searching.search("red kayak", record_recall=False)).hits
    assert hits[0].text == "User paddles a red kayak"
    for i in (0, PARAGRAPHS // 2, PARAGRAPHS - 1):
        hits = (await manager.searching.search(f"paragraph {i} topic number {i}", record_recall=False)).hits
        assert any(f"Paragraph {i} is about" in h.text for h in hits)
    again = await manager.indexer.sync()
    assert again.rows_added == 0 and again.rows_removed == 0
    ids = manager.indexer.table.store.scan(["id"]).column("id").to_pylist()
    assert len(ids) == len(set(ids)) == PARAGRAPHS + 1  # every part once, and the fact; nothing doubled


async def test_a_long_page_whose_embedding_fails_part_way_keeps_its_old_rows_and_no_half(
    home: Path, clock, small_slices
):
    embedder = SteppedEmbedder()
    manager = MemoryManager.open(home, clock=clock, embedder=embedder)
    _long_page(manager, "alpha")
    await manager.indexer.sync()
    before = (await manager.indexer.stats()).rows
    _long_page(manager, "omega")
    embedder.fail_from = embedder.calls + 3
    changes = await manager.indexer.sync()
    assert any("Long.md" in e for e in changes.errors)
    hits = (await manager.searching.search("paragraph 7 alpha number 7", record_recall=False)).hits
    assert any("about alpha number 7" in h.text for h in hits)
    assert (await manager.indexer.stats()).rows == before  # not one row of the new text was left behind


async def test_remember_says_when_it_waits_for_another_process(home: Path, clock):
    manager = MemoryManager.open(home, clock=clock, embedder=HashingEmbedder())
    await manager.indexer.sync()
    other = FileLock(str(manager.layout.index_dir / "write.lock"))
    other.acquire()
    told: list[str] = []

    def on_wait() -> None:
        told.append("waiting")
        other.release()  # the other process finishes its pass

    manager.indexer.on_wait = on_wait
    try:  # bounded: without the notice nobody would release the other process's lock
        changes = await asyncio.wait_for(manager.capturing.remember("User plays the cello"), 30)
    finally:
        if other.is_locked:
            other.release()
    assert told == ["waiting"] and changes.rows_added == 1


async def test_a_page_over_the_size_limit_is_named_and_its_rows_leave(home: Path, clock, monkeypatch):
    from suzent_desktop.core.files.disk import regular

    manager = MemoryManager.open(home, clock=clock, embedder=HashingEmbedder())
    page = _long_page(manager, word="saffron")
    await manager.indexer.sync()
    assert [h for h in (await manager.searching.search("saffron number 7", record_recall=False)).hits if h.path.endswith("Long.md")]
    monkeypatch.setattr(regular, "PAGE_LIMIT_BYTES", page.stat().st_size - 1)  # the page grew past the limit
    page.write_text(page.read_text(encoding="utf-8") + "\nOne more saffron line.\n", encoding="utf-8")
    changes = await manager.indexer.sync()
    assert any("Long.md" in e and "limit for a page" in e for e in changes.errors), changes.errors
    assert not [h for h in (await manager.searching.search("saffron number 7", record_recall=False)).hits if h.path.endswith("Long.md")]
