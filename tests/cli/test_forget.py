"""`forget` and `forget --undo` on the command line, and `doctor` on forgotten text search still finds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli import run, run_json

from suzent_desktop.core.files.records.tombstones import normalize

# Prose by its chunking (one undated bullet and a paragraph), so the two share one row.
PAGE = (
    "# Preferences\n\n## Travel\n- User prefers window seats on flights\n\n"
    "Allergies are on [[Health#Allergies|the health page]]. See also [[Work]].\n"
)


def write_page(home: Path, rel: str, text: str) -> Path:
    path = home / "notebook" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def texts(capsys, home: Path, query: str) -> list[str]:
    return [h["text"] for h in run_json(capsys, home, "search", query)]


def test_forgetting_a_two_paragraph_hit_from_the_command_line(home: Path, capsys: pytest.CaptureFixture[str]):
    page = write_page(home, "3_Personal/Preferences.md", PAGE)
    hit = next(t for t in texts(capsys, home, "window seats") if "window seats" in t)
    assert "Allergies" in hit  # one row holds both paragraphs

    doc = run_json(capsys, home, "forget", hit)
    assert doc["tombstones"] == [
        "user prefers window seats on flights",
        normalize("Allergies are on [[Health#Allergies|the health page]]. See also [[Work]]."),
    ]
    assert doc["matched"] and doc["pages_changed"] == [str(page)]
    assert "window seats" not in page.read_text(encoding="utf-8")
    for _ in range(2):
        assert not any("window seats" in t or "Allergies" in t for t in texts(capsys, home, "window seats allergies"))
        run_json(capsys, home, "reindex", "--full")

    code, out, _ = run(capsys, home, "forget", "--undo", hit)
    assert code == 0 and "Restored: user prefers window seats on flights" in out
    assert page.read_text(encoding="utf-8") == PAGE
    assert any("window seats" in t for t in texts(capsys, home, "window seats"))


def test_forget_undo_json_and_unknown_text(home: Path, capsys: pytest.CaptureFixture[str]):
    run(capsys, home, "remember", "User's door code is 4417")
    run_json(capsys, home, "forget", "User's door code is 4417")
    doc = run_json(capsys, home, "forget", "--undo", "user's door code is 4417")
    assert doc["restored"] == ["user's door code is 4417"] and doc["rows_added"] == 1
    assert any("4417" in t for t in texts(capsys, home, "door code"))
    code, _, err = run(capsys, home, "forget", "--undo", "never forgotten")
    assert code == 1 and "not forgotten" in err


def test_doctor_reports_forgotten_text_that_search_still_finds(home: Path, capsys: pytest.CaptureFixture[str]):
    page = write_page(home, "3_Personal/Preferences.md", PAGE)
    run_json(capsys, home, "reindex")
    merged = next(t for t in texts(capsys, home, "window seats") if "window seats" in t)
    stones = home / "notebook" / ".state" / "tombstones.jsonl"
    # A tombstone of a merged chunk, as earlier versions wrote it: it never matches one paragraph.
    stones.write_text(json.dumps({"content": normalize(merged)}) + "\n", encoding="utf-8")
    run_json(capsys, home, "reindex", "--full")

    code = run(capsys, home, "--json", "doctor")[0]
    problems = json.loads(run(capsys, home, "--json", "doctor")[1])
    found = [p for p in problems["problems"] if "still findable" in p["message"]]
    assert code == 0 and found and found[0]["path"] == str(page)


def test_a_hit_as_the_human_search_printed_it_cut_short(home: Path, capsys: pytest.CaptureFixture[str]):
    long = "User keeps a travel journal " + " ".join(f"with entry {i}" for i in range(40)) + "."
    page = write_page(home, "2_Wiki/Journal.md", f"# Journal\n\n{long}\n\n- User sails on Sundays\n")
    code, out, _ = run(capsys, home, "search", "travel journal entry")
    shown = next(line for line in out.splitlines() if "travel journal" in line).split("] ", 1)[1]
    assert shown.endswith("…")
    doc = run_json(capsys, home, "forget", shown)
    assert doc["tombstones"] == [normalize(long), "user sails on sundays"]
    assert page.read_text(encoding="utf-8") == "# Journal\n\n"


def test_forgetting_a_folded_hit_from_the_command_line_reaches_every_place(home, capsys):
    page = write_page(home, "3_Personal/Travel.md", "# Travel\n\n- User prefers window seats on flights (2026-07-10)\n")
    (home / "memory").mkdir(exist_ok=True)
    (home / "memory" / "MEMORY.md").write_text("# Memory\n\n- User prefers window seats on flights.\n", encoding="utf-8")
    hit = next(h for h in run_json(capsys, home, "search", "window seats") if "window seats" in h["text"])
    assert len(hit["places"]) == 2
    doc = run_json(capsys, home, "forget", hit["text"])
    assert len(doc["tombstones"]) == 2 and doc["core_files_changed"]
    assert "window seats" not in page.read_text(encoding="utf-8")
    assert "window seats" not in (home / "memory" / "MEMORY.md").read_text(encoding="utf-8")


def test_forget_names_a_page_outside_the_vault_it_leaves_alone(home: Path, capsys, tmp_path: Path, monkeypatch):
    import os

    outside = tmp_path / "outside"
    monkeypatch.setenv("SUZENT_OUTSIDE_LINK_TARGETS", str(outside))  # the user allowed this link target
    outside.mkdir()
    (outside / "Shared.md").write_text("# Shared\n\n- I love green tea every morning.\n", encoding="utf-8")
    (home / "notebook").mkdir(parents=True, exist_ok=True)
    os.symlink(outside, home / "notebook" / "Ext")
    code, _out, err = run(capsys, home, "forget", "I love green tea every morning.")
    assert code == 0 and "Shared.md" in err and "outside the vault" in err
    assert "kept as you wrote it" not in _out  # not a note of theirs in this vault: someone else's page
    assert (outside / "Shared.md").read_text(encoding="utf-8") == "# Shared\n\n- I love green tea every morning.\n"


def test_forget_refuses_ambiguous_or_unmatched_text_with_exit_1_and_records_nothing(home: Path, capsys):
    for text in ("User lives in Oslo", "User owns a kayak"):
        assert run(capsys, home, "remember", text)[0] == 0
    stones = home / "notebook" / ".state" / "tombstones.jsonl"
    code, _out, err = run(capsys, home, "forget", "User …")
    assert code == 1 and "could mean 2 memories" in err and "User owns a kayak" in err
    code, out, _err = run(capsys, home, "--json", "forget", "User …")
    assert code == 1 and sorted(json.loads(out)["candidates"]) == ["User lives in Oslo", "User owns a kayak"]
    code, _out, err = run(capsys, home, "forget", "User keeps bees")
    assert code == 1 and "nothing was recorded" in err and "--force" in err
    assert not stones.exists() or "bees" not in stones.read_text(encoding="utf-8")
    code, _out, _err = run(capsys, home, "forget", "--force", "User keeps bees")
    assert code == 0 and "user keeps bees" in stones.read_text(encoding="utf-8")
    code, _out, _err = run(capsys, home, "forget", "- [general] User lives in Oslo.")
    assert code == 0 and "user lives in oslo" in stones.read_text(encoding="utf-8")


@pytest.mark.parametrize("typed", [
    "- [preference] User's door code is 4417 `#home #security`",  # a pasted log line
    "[preference] User's door code is 4417",
    "User's door code is 4417.",  # a trailing full stop
    "  User's door code is 4417!  ",
])
def test_forget_undo_reads_every_form_forget_reads(home: Path, capsys: pytest.CaptureFixture[str], typed: str):
    run(capsys, home, "remember", "User's door code is 4417")
    assert run_json(capsys, home, "forget", typed)["tombstones"] == ["user's door code is 4417"]
    doc = run_json(capsys, home, "forget", "--undo", typed)
    assert doc["restored"] == ["user's door code is 4417"]
    assert any("4417" in t for t in texts(capsys, home, "door code"))
