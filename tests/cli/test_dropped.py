"""`dropped`: facts a dream dropped stay in search until the person confirms the drop."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from test_cli import run, run_json

from suzent_desktop.core.files.records.log_grammar import Fact
from suzent_desktop.core.index import dropped
from suzent_desktop.core.manager import MemoryManager

FACT = "User mentioned the weather in Hull"


def _dropped_by_a_dream(home: Path, today: dt.date) -> str:
    """A consolidated day whose one fact a dream dropped, as the runner leaves it."""
    day = (today - dt.timedelta(days=2)).isoformat()
    manager = MemoryManager.open(home)
    manager.archive.append_turn([Fact(FACT)], session_id="s", when=dt.datetime.fromisoformat(f"{day}T09:00"))
    dropped.record(manager.layout, [dropped.DroppedFact(day, FACT, 5, "small talk about weather", today.isoformat())])
    manager.notebook.append_ingest(today, day, "consolidated")
    return day


def test_dropped_lists_and_confirms(home: Path, today: dt.date, capsys: pytest.CaptureFixture[str]):
    day = _dropped_by_a_dream(home, today)
    run_json(capsys, home, "reindex")
    assert any(FACT in h["text"] for h in run_json(capsys, home, "search", "weather in Hull"))
    listed = run_json(capsys, home, "dropped")["dropped"]
    assert [(f["text"], f["date"], f["reason"]) for f in listed] == [(FACT, day, "small talk about weather")]
    code, out, _ = run(capsys, home, "dropped")
    assert code == 0 and listed[0]["id"] in out and "dropped --confirm" in out
    code, out, _ = run(capsys, home, "doctor")
    assert f"dropped --confirm {listed[0]['id']}" in out

    code, _, err = run(capsys, home, "dropped", "--confirm", "0000000000")
    assert code == 1 and "0000000000" in err
    doc = run_json(capsys, home, "dropped", "--confirm", listed[0]["id"])
    assert [f["text"] for f in doc["confirmed"]] == [FACT]
    assert not any(FACT in h["text"] for h in run_json(capsys, home, "search", "weather in Hull"))
    assert run_json(capsys, home, "dropped")["dropped"] == []


def test_status_counts_the_dropped_facts_awaiting_a_word(home: Path, today: dt.date, capsys: pytest.CaptureFixture[str]):
    _dropped_by_a_dream(home, today)
    assert run_json(capsys, home, "status")["dropped_awaiting"] == 1
    run_json(capsys, home, "dropped", "--confirm", run_json(capsys, home, "dropped")["dropped"][0]["id"])
    assert run_json(capsys, home, "status")["dropped_awaiting"] == 0
