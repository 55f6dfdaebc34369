"""Crash residue: leftover temp files, rows no file gives, and kills at named points of a pass."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import numpy as np
from dream_support import days_before, make_manager, write_log

from suzent_desktop.core.doctor import run_doctor
from suzent_desktop.core.files.disk.atomic import atomic_write_text, is_temp_name, sweep_temp_files
from suzent_desktop.core.index.storage.store import Row
from suzent_desktop.core.manager import MemoryManager

REPO = Path(__file__).resolve().parents[2]


def age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


# -- temp files ---------------------------------------------------------------------------
def test_only_our_own_old_temp_files_are_removed_on_open(home, clock):
    manager = make_manager(home, clock)
    personal = manager.layout.notebook_dir / "3_Personal"
    old = personal / ".People.md.k2j4x_9a.tmp"
    fresh = personal / ".Work.md.abcdefgh.tmp"
    state = manager.layout.notebook_dir / ".state" / ".tombstones.jsonl.zz11yy22.tmp"
    index = manager.layout.index_dir / ".index_state.json.q1w2e3r4.tmp"
    users = [personal / ".draft.tmp", personal / "notes.md.tmp", personal / ".People.md.TOOLONG123.tmp"]
    for path in [old, fresh, state, index, *users]:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("half", encoding="utf-8")
    for path in [old, state, index, *users]:
        age(path, 3600)
    make_manager(home, clock)
    assert not old.exists() and not state.exists() and not index.exists()
    assert fresh.exists(), "a temp file younger than any write could be in flight is kept"
    assert all(p.exists() for p in users), "names outside the program's own pattern are never touched"


def test_a_temp_file_of_a_write_still_running_is_never_swept(tmp_path, monkeypatch):
    import suzent_desktop.core.files.disk.atomic as atomic

    target = tmp_path / "Page.md"
    seen: list[list[Path]] = []
    real_replace = os.replace

    def replace_after_sweep(src, dst):
        seen.append(sweep_temp_files([(tmp_path, True)], older_than=0.0))
        return real_replace(src, dst)

    monkeypatch.setattr(atomic.os, "replace", replace_after_sweep)
    atomic_write_text(target, "whole page\n")
    assert seen == [[]] and target.read_text(encoding="utf-8") == "whole page\n"
    assert not [p for p in tmp_path.iterdir() if is_temp_name(p.name)]


# -- rows no file gives ----------------------------------------------------------------------
def _ghost(manager: MemoryManager, path: str, text: str, rid: str, source_type: str = "archive") -> Row:
    vector = np.zeros(manager.embedder.dim, dtype=np.float32)
    vector[0] = 1.0
    return Row(id=rid, text=text, source_type=source_type, path=path, zone=None, line=5, date=None,
               heading=None, norm=text.lower(), norm_keys=[], embed_text=text, vector=vector)


async def test_rows_left_by_a_crash_are_reported_by_doctor_and_removed_on_the_next_open(home, clock, today):
    manager = make_manager(home, clock)
    d1, d2 = days_before(today, 2)
    write_log(manager, d1, ["User collects jasper indigo"])
    write_log(manager, d2, ["User likes quiet trains"])
    manager.notebook.append_ingest(today, d1)  # d1 is consolidated: its log gives no rows
    (manager.layout.notebook_dir / "2_Wiki" / "Trains.md").write_text("# Trains\n\nQuiet ones.\n", encoding="utf-8")
    await manager.indexing.reindex()
    store = manager.indexer.table.store
    kept = store.scan(["id", "path"]).to_pylist()
    d2_row = next(r for r in kept if r["path"].endswith(f"{d2}.md"))
    store.add([
        _ghost(manager, str(manager.archive.path_for(d1)), "User collects jasper indigo", "a" * 32),
        _ghost(manager, str(manager.layout.notebook_dir / "Gone.md"), "a page deleted long ago", "b" * 32, "notebook"),
        _ghost(manager, d2_row["path"], "User likes quiet trains", d2_row["id"]),  # a duplicate
    ])
    problems = [p for p in await asyncio.to_thread(run_doctor, home, clock=clock) if "index row" in p.message]
    where = {p.path: p.message for p in problems}
    assert "should have none" in where[str(manager.archive.path_for(d1))]
    assert "should have none" in where[str(manager.layout.notebook_dir / "Gone.md")]
    assert "duplicated" in where[d2_row["path"]]

    reopened = make_manager(home, clock)  # a new process: its first pass compares table and files
    await reopened.indexing.reindex()
    after = sorted((r["id"], r["path"]) for r in reopened.indexer.table.store.scan(["id", "path"]).to_pylist())
    assert after == sorted((r["id"], r["path"]) for r in kept)
    assert not [p for p in await asyncio.to_thread(run_doctor, home, clock=clock) if "index row" in p.message]
    hits = (await reopened.searching.search("quiet trains")).hits
    assert any("quiet trains" in h.text for h in hits)


async def test_a_pass_cut_short_makes_the_next_one_compare_the_whole_table(home, clock, today):
    """Even when the row counts happen to agree, a mark left by an unfinished pass triggers the check."""
    from suzent_desktop.core.index.storage.table import PASS_MARK

    manager = make_manager(home, clock)
    d1, d2 = days_before(today, 2)
    write_log(manager, d1, ["User collects jasper indigo"])
    write_log(manager, d2, ["User likes quiet trains"])
    await manager.indexing.reindex()
    manager.notebook.append_ingest(today, d1)
    store = manager.indexer.table.store
    ghost = _ghost(manager, str(manager.layout.notebook_dir / "Gone.md"), "a page deleted mid-pass", "c" * 32,
                   "notebook")
    store.add([ghost])  # a row the state does not know ...
    d2_key = str(manager.archive.path_for(d2))
    lost = next(iter(manager.indexer.state.files[d2_key].rows))
    store.delete_ids([lost])  # ... and a row it knows that is gone: the counts agree
    (manager.layout.index_dir / PASS_MARK).touch()

    reopened = make_manager(home, clock)
    await reopened.indexing.reindex()
    ids = {r["id"] for r in reopened.indexer.table.store.scan(["id"]).to_pylist()}
    assert "c" * 32 not in ids and lost in ids
    assert not (manager.layout.index_dir / PASS_MARK).exists()
    assert (await reopened.searching.search("quiet trains")).hits
