"""`why` prints the words behind a memory; `review` lists and settles what the dream learned."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli import run, run_json


def capture(capsys, home: Path, user: str, ts: str) -> None:
    turn = home / "turn.json"
    turn.write_text(json.dumps({"user": user, "assistant": "Noted.", "session_id": "s1", "timestamp": ts}))
    code, _out, err = run(capsys, home, "capture", str(turn))
    assert code == 0, err


@pytest.fixture
def dreamed(home: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    capture(capsys, home, "I have a greyhound named Biscuit.", "2026-07-10T08:00:00")
    capture(capsys, home, "I work at Contoso as a data engineer.", "2026-07-10T09:00:00")
    code, _out, err = run(capsys, home, "dream", "--force")
    assert code == 0, err
    return home


def test_why_prints_the_chain_as_text_and_json(dreamed: Path, capsys: pytest.CaptureFixture[str]):
    code, out, _err = run(capsys, dreamed, "why", "works at Contoso")
    assert code == 0
    assert "3_Personal/Work.md:" in out and "user said: «I work at Contoso as a data engineer.»" in out
    assert "before (2026-07-10 08:00) user: I have a greyhound named Biscuit." in out
    doc = run_json(capsys, dreamed, "why", "User works at Contoso as a data engineer")
    assert doc["reaches_turn"] and doc["sources"][0]["turn"]["speaker"] == "user"
    line = doc["line"]
    again = run_json(capsys, dreamed, "why", f"{doc['path']}:{line}")
    assert again["sources"] == doc["sources"]
    code, _out, err = run(capsys, dreamed, "why", "nothing like this was ever said")
    assert code == 1 and "no page line" in err


def test_review_lists_keeps_and_marks_all(dreamed: Path, capsys: pytest.CaptureFixture[str]):
    doc = run_json(capsys, dreamed, "review")
    added = [i for i in doc["items"] if i["kind"] == "added"]
    assert {i["text"] for i in added} >= {"User works at Contoso as a data engineer"}
    first = added[0]["id"]
    doc = run_json(capsys, dreamed, "review", "--keep", first)
    assert first not in {i["id"] for i in doc["items"]} and doc["done"] == ["kept 1"]
    code, _out, err = run(capsys, dreamed, "review", "--keep", "000000000000")
    assert code == 1 and "not in the list" in err
    doc = run_json(capsys, dreamed, "review", "--mark-all-reviewed")
    assert doc["items"] == []
    code, out, _err = run(capsys, dreamed, "review")
    assert code == 0 and "Nothing to review." in out


def test_accept_memory_when_approval_is_on(home: Path, capsys: pytest.CaptureFixture[str]):
    (home / "config.toml").write_text("memory_md_needs_approval = true\n")
    capture(capsys, home, "I work at Contoso as a data engineer.", "2026-07-10T09:00:00")
    assert run(capsys, home, "dream", "--force")[0] == 0
    memory = home / "memory" / "MEMORY.md"
    assert "Contoso" not in memory.read_text()
    doc = run_json(capsys, home, "review")
    assert doc["memory_proposal"] is True
    assert any(i["kind"] == "memory_gained" and "Contoso" in i["text"] for i in doc["items"])
    doc = run_json(capsys, home, "review", "--accept-memory")
    assert "Contoso" in memory.read_text() and doc["memory_proposal"] is False
    code, _out, err = run(capsys, home, "review", "--accept-memory")
    assert code == 1 and "no proposed MEMORY.md" in err
