"""`dream` refused because another dream on this device runs says so, without offering `--force`."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from filelock import FileLock
from test_cli import run

from suzent_desktop.core.engines.dream.runner import PROCESS_LOCK
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.settings import load_settings


def test_a_dream_already_running_is_not_told_to_force(home: Path, capsys, monkeypatch, today):
    monkeypatch.setenv("SUZENT_TODAY", (today - dt.timedelta(days=2)).isoformat())
    run(capsys, home, "remember", "Alice drinks green tea every morning")  # a day a dream consolidates
    monkeypatch.setenv("SUZENT_TODAY", today.isoformat())
    monkeypatch.setenv("SUZENT_MEMORY_CONSOLIDATION_MIN_FACTS", "1")
    monkeypatch.setenv("SUZENT_DEVICE", "laptop")
    layout = Layout.from_settings(home, load_settings(home))
    held = FileLock(str(layout.index_dir / PROCESS_LOCK.format(device="laptop")))
    with held:  # the window's dream, say
        _code, out, _err = run(capsys, home, "dream")
    assert "already running" in out, sorted(p.name for p in layout.index_dir.iterdir())
    assert "--force" not in out
