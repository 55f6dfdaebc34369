"""A pass streams windows of files, embeds sorted by length across a window, and never embeds under write.lock."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest
from filelock import FileLock, Timeout

from suzent_desktop.core.index import indexer as indexer_module
from suzent_desktop.core.index.embedding import HashingEmbedder
from suzent_desktop.core.index.indexer import Indexer
from suzent_desktop.core.index.rows.planner import Planner
from suzent_desktop.core.vault.notebook import Notebook


class RecordingEmbedder:
    """The hashing embedder; records each call's texts and runs a hook inside the call."""

    def __init__(self) -> None:
        self.inner = HashingEmbedder()
        self.name, self.dim = self.inner.name, self.inner.dim
        self.calls: list[list[str]] = []
        self.during: Callable[[], None] | None = None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        if self.during is not None:
            hook, self.during = self.during, None
            hook()
        return self.inner.embed(texts)


@pytest.fixture
def vault(layout) -> Notebook:
    notebook = Notebook(layout)
    notebook.bootstrap()
    layout.memory_dir.mkdir(parents=True, exist_ok=True)
    return notebook


def _page(layout, name: str, text: str) -> Path:
    path = layout.notebook_dir / "2_Wiki" / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


async def test_texts_are_embedded_sorted_by_length_across_all_files_of_a_pass(layout, clock, vault) -> None:
    for i in range(700):  # more than one old 512-text batch
        _page(layout, f"P{i:03d}", f"Word{i} " + "filler " * ((i * 37) % 50) + "\n")
    embedder = RecordingEmbedder()
    await Indexer(layout, embedder, clock).sync()
    lengths = [len(t) for call in embedder.calls for t in call]
    assert len(lengths) >= 700
    assert lengths == sorted(lengths)
    assert max(len(call) for call in embedder.calls) <= indexer_module.EMBED_SLICE


async def test_a_pass_embeds_its_first_window_before_reading_the_last_file(layout, clock, vault, monkeypatch) -> None:
    monkeypatch.setattr(indexer_module, "BATCH_FILES", 5)
    pages = [_page(layout, f"S{i:02d}", f"Streamed page {i}.\n") for i in range(30)]
    events: list[str] = []
    real_plan = Planner.plan

    def plan(self, source, *args):
        events.append(f"read {Path(source.key).name}")
        return real_plan(self, source, *args)

    monkeypatch.setattr(Planner, "plan", plan)
    embedder = RecordingEmbedder()
    real_embed = embedder.embed
    embedder.embed = lambda texts: events.append("embed") or real_embed(texts)
    await Indexer(layout, embedder, clock).sync()
    assert events.index("embed") < events.index(f"read {pages[-1].name}")
    assert all(f"read {p.name}" in events for p in pages)


async def test_embedding_runs_without_the_write_lock(layout, clock, vault) -> None:
    _page(layout, "Free", "Embedded while another process may write.\n")
    embedder = RecordingEmbedder()
    seen: list[bool] = []

    def try_lock() -> None:  # another process taking write.lock while we embed
        other = FileLock(str(layout.index_dir / "write.lock"))
        try:
            other.acquire(timeout=0)
            other.release()
            seen.append(True)
        except Timeout:
            seen.append(False)

    embedder.during = try_lock
    await Indexer(layout, embedder, clock).sync()
    assert seen == [True]


async def test_another_process_writing_while_we_embed_is_neither_lost_nor_doubled(layout, clock, vault) -> None:
    shared = _page(layout, "Shared", "# Shared\n\nFirst version of the shared page.\n")
    ours = _page(layout, "Ours", "# Ours\n\nOnly this process indexes this page.\n")
    other = Indexer(layout, HashingEmbedder(), clock)  # the command line next to the app
    embedder = RecordingEmbedder()
    indexer = Indexer(layout, embedder, clock)
    loop = asyncio.get_running_loop()

    def other_process_writes() -> None:
        theirs = _page(layout, "Theirs", "# Theirs\n\nThe other process wrote this page.\n")
        shared.write_text("# Shared\n\nSecond version of the shared page.\n", encoding="utf-8")
        asyncio.run_coroutine_threadsafe(other.sync_paths([theirs, shared]), loop).result(timeout=60)

    embedder.during = other_process_writes
    await indexer.sync()
    store = indexer.table.current_store()
    shared_rows = store.rows_for_path(str(shared), ["text"]).column("text").to_pylist()
    assert len(shared_rows) == 1 and "Second version" in shared_rows[0]  # theirs was newer: kept
    await indexer.sync()
    rows = store.scan(["id", "path", "text"]).to_pylist()
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids))
    by_path = {}
    for row in rows:
        by_path.setdefault(Path(row["path"]).name, []).append(row["text"])
    assert len(by_path["Ours.md"]) == 1 and "Only this process" in by_path["Ours.md"][0]
    assert "Theirs.md" in by_path
    assert len(by_path["Shared.md"]) == 1 and "Second version" in by_path["Shared.md"][0]
    assert indexer.stale_paths() == [] and (await indexer.stats()).errors == []
    assert str(ours) in indexer.state.files


async def test_text_forgotten_by_another_process_while_we_embed_is_never_written(layout, clock, vault) -> None:
    from suzent_desktop.core.files.records.tombstones import Tombstones

    page = _page(layout, "Diary", "# Diary\n\nThe user hides the spare key under the blue pot.\n\n# Other\n\nA kept line.\n")
    other = Indexer(layout, HashingEmbedder(), clock)  # the command line: `forget` next to the app
    embedder = RecordingEmbedder()
    indexer = Indexer(layout, embedder, clock)
    loop = asyncio.get_running_loop()

    def other_process_forgets() -> None:
        norms = Tombstones(layout).add_many(["The user hides the spare key under the blue pot."])
        asyncio.run_coroutine_threadsafe(other.remove_texts(norms), loop).result(timeout=60)

    embedder.during = other_process_forgets
    await indexer.sync()
    texts = indexer.table.current_store().rows_for_path(str(page), ["text"]).column("text").to_pylist()
    assert texts and not any("spare key" in t for t in texts)
    assert any("kept line" in t for t in texts)
    assert await indexer.findable(["The user hides the spare key under the blue pot."]) == []


async def test_a_log_consolidated_by_another_process_while_we_embed_gets_no_rows_back(home, clock, today) -> None:
    from dream_support import days_before, write_log

    from suzent_desktop.core.manager import MemoryManager

    embedder = RecordingEmbedder()
    manager = MemoryManager.open(home, clock=clock, embedder=embedder)
    await manager.indexer.sync()
    day = days_before(today, 1)[0]
    write_log(manager, day, ["User collects jasper indigo", "User likes quiet trains"])
    other = MemoryManager.open(home, clock=clock, embedder=HashingEmbedder())  # a dream in another process
    log = manager.archive.path_for(day)
    await other.indexer.sync_paths([log])  # the other process indexed the log first
    loop = asyncio.get_running_loop()
    log.write_text(log.read_text(encoding="utf-8") + "\n- User hums while cooking\n", encoding="utf-8")

    def other_process_consolidates() -> None:
        other.notebook.append_ingest(today, day)  # the watermark moves past the day
        asyncio.run_coroutine_threadsafe(other.indexer.sync(), loop).result(timeout=60)

    embedder.during = other_process_consolidates
    await manager.indexer.sync_paths([log])
    assert manager.indexer.table.current_store().rows_for_path(str(log), ["id"]).num_rows == 0


async def _let_in_while_embedding(layout, clock, page: Path, changes: list[str]) -> tuple[Indexer, int]:
    """A pass of ``page`` whose embedding lets in a second pass of the same file; each text of
    ``changes`` is appended to the page in turn, the first while the outer pass embeds (before the
    second pass starts waiting), the next ones while the second pass embeds. Returns the indexer and
    the page's rows as the passes told them (rows before, plus added, less removed)."""
    import threading

    embedder = RecordingEmbedder()
    indexer = Indexer(layout, embedder, clock)
    await indexer.sync()
    before = indexer.table.current_store().rows_for_path(str(page), ["id"]).num_rows
    loop = asyncio.get_running_loop()
    waiting = threading.Event()
    indexer.on_wait = waiting.set
    inner: list[asyncio.Task] = []

    def append(text: str) -> None:
        with page.open("a", encoding="utf-8") as handle:
            handle.write(f"\n{text}\n")

    def during_inner() -> None:
        for text in changes[1:]:
            append(text)

    def during_outer() -> None:  # another save lands, and its pass waits for ours
        append(changes[0])
        embedder.during = during_inner
        loop.call_soon_threadsafe(lambda: inner.append(asyncio.ensure_future(indexer.sync_paths([page]))))
        assert waiting.wait(timeout=30)

    append("The first paragraph is read by the outer pass.")
    embedder.during = during_outer
    outer = await indexer.sync_paths([page])
    second = await inner[0]
    return indexer, before + outer.rows_added + second.rows_added - outer.rows_removed - second.rows_removed


async def test_a_pass_let_in_indexes_a_file_that_changed_since_the_embedding_pass_read_it(layout, clock, vault) -> None:
    page = _page(layout, "Growing", "# Growing\n")
    indexer, told = await _let_in_while_embedding(layout, clock, page, ["A second paragraph saved meanwhile."])
    texts = indexer.table.current_store().rows_for_path(str(page), ["text"]).column("text").to_pylist()
    assert any("first paragraph" in t for t in texts) and any("second paragraph" in t for t in texts)
    assert told == len(texts)  # what the passes reported is what the table holds
    assert indexer.stale_paths() == []


async def test_older_text_never_deletes_rows_a_pass_let_in_wrote_from_newer_text(layout, clock, vault) -> None:
    page = _page(layout, "Busy", "# Busy\n")
    said = ["Second paragraph, read by the pass let in.", "Third paragraph, saved while that pass embedded."]
    indexer, told = await _let_in_while_embedding(layout, clock, page, said)
    rows = indexer.table.current_store().rows_for_path(str(page), ["id", "text"]).to_pylist()
    texts = [r["text"] for r in rows]
    assert len({r["id"] for r in rows}) == len(rows)
    for words in ("first paragraph", "Second paragraph", "Third paragraph"):
        assert sum(words in t for t in texts) == 1, (words, texts)
    assert told == len(rows)
    assert indexer.stale_paths() == []


async def test_a_pass_with_nothing_to_write_after_another_process_wrote_finishes_cleanly(layout, clock, vault) -> None:
    ours = _page(layout, "Ours", "# Ours\n\nIndexed by this process.\n")
    indexer = Indexer(layout, HashingEmbedder(), clock)
    await indexer.sync()
    other = Indexer(layout, HashingEmbedder(), clock)  # the MCP server or the command line
    theirs = _page(layout, "Theirs", "# Theirs\n\nIndexed by the other process.\n")
    real_stream = indexer._stream

    async def stream(*args):  # the other process writes after this pass wrote its last window
        cancelled = await real_stream(*args)
        await other.sync_paths([theirs])
        return cancelled

    indexer._stream = stream
    changes = await indexer.sync_paths([ours])  # unchanged here: only the other's state to adopt
    assert changes.errors == []
    assert (await indexer.search("indexed by the other process")).hits[0].path == str(theirs)
