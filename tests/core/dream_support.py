"""Shared helpers for the dream, promotion and lint tests (not a test module)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from suzent_desktop.core.files.clock import Clock
from suzent_desktop.core.files.records.log_grammar import Fact
from suzent_desktop.core.manager import MemoryManager
from suzent_desktop.settings import load_settings

FAST = {
    "memory_consolidation_min_hours": 0.0,
    "memory_consolidation_min_facts": 1,
    "memory_lint_enabled": False,
}


def make_manager(home: Path, clock: Clock, **overrides) -> MemoryManager:
    settings = load_settings(home).replace(**{**FAST, **overrides})
    return MemoryManager.open(home, settings=settings, clock=clock)


def write_log(manager: MemoryManager, date: str, facts: list[Fact | str]) -> None:
    items = [f if isinstance(f, Fact) else Fact(f) for f in facts]
    manager.archive.append_turn(items, session_id="abc12345", when=dt.datetime.fromisoformat(f"{date}T10:00"))


def days_before(today: dt.date, count: int) -> list[str]:
    """``count`` consecutive dates ending yesterday, oldest first."""
    return [(today - dt.timedelta(days=count - i)).isoformat() for i in range(count)]


def vault_files(manager: MemoryManager) -> dict[str, bytes]:
    """Every file of the vault, hidden folders included, with its bytes."""
    root = manager.layout.notebook_dir
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def pop_run_records(files: dict[str, bytes]) -> dict:
    """Take the runner's own records out of ``files`` (its state, this device's dream lease) and
    return its state: what is left is what a rolled-back run must leave as it found it."""
    for rel in [r for r in files if r.startswith(".state/dream-lease/")]:
        files.pop(rel)
    return json.loads(files.pop(".state/dream_state.json"))


def page(manager: MemoryManager, rel: str) -> str:
    return (manager.layout.notebook_dir / rel).read_text(encoding="utf-8")


def notebook_text(manager: MemoryManager) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in manager.notebook.content_pages())
