"""What the commands say after a dream that did not go well, and for a turn with no facts."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from pathlib import Path

import pytest

from suzent_desktop.cli import main
from suzent_desktop.core.files.records.log_grammar import Fact
from suzent_desktop.core.manager import MemoryManager
from suzent_desktop.settings import load_settings


def run(capsys: pytest.CaptureFixture[str], home: Path, *args: str) -> tuple[int, str, str]:
    code = main(["--home", str(home), *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _manager_with_a_fact(home: Path, clock, today: dt.date, **settings) -> MemoryManager:
    manager = MemoryManager.open(home, settings=load_settings(home).replace(**settings), clock=clock)
    when = dt.datetime.combine(today - dt.timedelta(days=1), dt.time(10))
    manager.archive.append_turn([Fact("User likes green tea")], session_id="abc12345", when=when)
    return manager


def test_a_gated_dry_run_says_how_to_run_it_anyway(home, capsys, clock, today):
    _manager_with_a_fact(home, clock, today)
    code, out, _err = run(capsys, home, "dream", "--dry-run")
    assert "waiting" in out and "--force" in out


def test_status_after_a_failed_dream_shows_its_outcome_attempt_and_reason(home, capsys, clock, today):

    manager = _manager_with_a_fact(home, clock, today, memory_consolidation_min_facts=1)

    async def broken(batch, tools):
        raise RuntimeError("the model server refused the connection")

    result = asyncio.run(manager.dreaming.runner(engine=broken).run_once(force=True))
    assert result.outcome == "failed"
    code, out, _err = run(capsys, home, "status")
    line = next(x for x in out.splitlines() if x.startswith("Last dream:"))
    assert "failed" in line and "attempt 1 of 3" in line and "refused the connection" in line


def test_capture_json_gives_the_date_of_the_kept_turn_when_no_fact_was_written(home, capsys, tmp_path):
    turn = tmp_path / "turn.json"
    turn.write_text(json.dumps({"user": "Thanks!", "assistant": "Any time.", "session_id": "s9",
                                "timestamp": "2026-07-19T08:00:00"}), encoding="utf-8")
    code, out, _err = run(capsys, home, "--json", "capture", str(turn))
    doc = json.loads(out)
    assert doc["facts"] == [] and doc["date"] == "2026-07-19"
