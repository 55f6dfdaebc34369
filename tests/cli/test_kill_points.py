"""Kills at named points (``SUZENT_CRASH_AT``): the next start repairs everything and loses nothing.

Each case runs one command in a subprocess that ends itself with ``os._exit`` at the
named point, as ``kill -9`` would, then opens the home again and checks the invariants
that ``bench/faults.py`` checks after random kills.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from suzent_desktop.core.doctor import run_doctor
from suzent_desktop.core.engines.dream.model import EngineReport
from suzent_desktop.core.files.clock import Clock
from suzent_desktop.core.files.disk.atomic import is_temp_name
from suzent_desktop.core.files.disk.faults import ENV_VAR, EXIT_CODE
from suzent_desktop.core.manager import MemoryManager
from suzent_desktop.settings import load_settings

REPO = Path(__file__).resolve().parents[2]
TODAY = "2026-07-20"
FACTS = {
    "2026-07-16": ["User collects jasper indigo near the xenon nimbus falcon", "User works at Contoso"],
    "2026-07-17": ["User prefers quiet trains over buses", "User now works at Microsoft"],
    "2026-07-18": ["User grows basil on the balcony"],
}


def cli(home: Path, *args: str, crash: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUZENT_")}
    env.update(PYTHONPATH=str(REPO), SUZENT_EMBEDDING_MODEL="hashing", SUZENT_TODAY=TODAY,
               SUZENT_MEMORY_CONSOLIDATION_MIN_FACTS="1", SUZENT_MEMORY_CONSOLIDATION_MIN_HOURS="0",
               SUZENT_MEMORY_CONSOLIDATION_MAX_DAYS="2", SUZENT_MEMORY_LINT_ENABLED="false")
    if crash:
        env[ENV_VAR] = crash
    return subprocess.run([sys.executable, "-m", "suzent_desktop", "--home", str(home), *args],
                          capture_output=True, text=True, env=env, timeout=120)


@pytest.fixture
def seeded(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    for date, facts in FACTS.items():
        path = home / "memory" / "archive" / f"{date}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = "".join(f"- [general] {f}\n" for f in facts)
        path.write_text(f"# Daily Log - {date}\n\n## 10:00 — abc12345\n\n{lines}", encoding="utf-8")
    asyncio.run(_open(home).indexing.reindex())  # in-process: one subprocess per case keeps the suite light
    return home


def _open(home: Path) -> MemoryManager:
    settings = load_settings(home).replace(
        memory_consolidation_min_facts=1, memory_consolidation_min_hours=0.0, memory_consolidation_max_days=2,
        memory_lint_enabled=False)
    return MemoryManager.open(home, settings=settings, clock=Clock(fixed_today=dt.date.fromisoformat(TODAY)))


def check_invariants(home: Path) -> None:
    """Nothing lost, nothing left over: what bench/faults.py asserts after every trial."""
    clock = Clock(fixed_today=dt.date.fromisoformat(TODAY))
    for path in home.rglob("*"):  # leftovers look older than any write that could still run
        if is_temp_name(path.name):
            then = time.time() - 3600
            os.utime(path, (then, then))
    manager = _open(home)
    assert not [p for p in home.rglob("*") if is_temp_name(p.name)], "temp files survive the next open"
    asyncio.run(manager.indexing.reindex())
    watermark = manager.dreaming.watermark()
    assert watermark is None or watermark in FACTS, watermark
    for date, facts in FACTS.items():
        for fact in facts:
            hits = asyncio.run(manager.searching.search(fact, limit=20, record_recall=False)).hits
            assert any(fact.lower() in h.text.lower() or h.text.lower() in fact.lower() for h in hits) or any(
                fact in p.read_text(encoding="utf-8") for p in manager.notebook.content_pages()
            ), f"{fact!r} of {date} is neither searchable nor on a page (watermark {watermark})"
            if watermark is not None and date <= watermark:
                assert any(fact.split()[-1] in p.read_text(encoding="utf-8") for p in manager.notebook.content_pages())
    problems = [p for p in run_doctor(home, clock=clock) if "index row" in p.message or "stale" in p.message]
    assert problems == []


@pytest.mark.parametrize(
    "command, point",
    [
        (("reindex", "--full"), "index.after_add"),
        (("dream", "--force"), "dream.after_page_write"),
        (("dream", "--force"), "atomic.before_rename"),
        (("dream", "--force"), "dream.after_ingest"),
        (("dream", "--force"), "index.after_reconcile"),
    ],
)
def test_a_kill_at_a_named_point_is_repaired_by_the_next_start(seeded: Path, command, point):
    killed = cli(seeded, *command, crash=point)
    assert killed.returncode == EXIT_CODE, killed.stderr
    check_invariants(seeded)
    results = asyncio.run(_open(seeded).dreaming.runner().run_cycle(force=True))  # the next dream finishes the work
    assert not any(r.failed_attempt for r in results), [r.reason for r in results]
    check_invariants(seeded)


@pytest.mark.parametrize("point", ["dream.after_coverage", "dream.before_ingest"])
def test_a_dream_killed_after_its_last_page_write_is_completed_not_retried(seeded: Path, point):
    """Its pages hold the batch's facts; the next run writes the ingest entry instead of failing on no change."""
    killed = cli(seeded, "dream", "--force", crash=point)
    assert killed.returncode == EXIT_CODE, killed.stderr
    manager = _open(seeded)
    assert manager.dreaming.watermark() is None  # the kill came before the ingest entry

    async def idle(batch, tools):  # an engine (a model) that finds the pages done and writes nothing
        return EngineReport(summary="nothing to add")

    first = asyncio.run(_open(seeded).dreaming.runner(engine=idle).run_once(force=True))
    assert first.outcome == "productive" and first.reason.startswith("every fact of the batch was already on a page")
    assert first.batch == ["2026-07-16", "2026-07-17"] and not first.failed_attempt
    assert _open(seeded).dreaming.watermark() == "2026-07-17"
    asyncio.run(_open(seeded).dreaming.runner().run_cycle(force=True))
    check_invariants(seeded)
