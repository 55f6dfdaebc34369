"""Every command through ``main([...])``: exit codes, --json shapes, messages that name the culprit."""

from __future__ import annotations

import datetime as dt
import io
import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

from suzent_desktop.cli import main

STATUS_KEYS = {
    "today", "watermark", "pending_dates", "pending_facts", "next_batch", "last_dream", "last_lint", "lint_due", "index",
    "transcripts",
    "not_consolidated", "dropped_awaiting", "watermark_error", "users_files",
}


def run(capsys: pytest.CaptureFixture[str], home: Path, *args: str) -> tuple[int, str, str]:
    code = main(["--home", str(home), *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_json(capsys: pytest.CaptureFixture[str], home: Path, *args: str):
    code, out, err = run(capsys, home, "--json", *args)
    assert code == 0, err
    return json.loads(out)


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# -- usage ---------------------------------------------------------------------------------
def test_help_exits_zero(capsys: pytest.CaptureFixture[str]):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for command in ("demo", "remember", "capture", "search", "forget", "reindex", "status", "dream", "lint", "promote", "doctor"):
        assert command in out


def test_search_help_names_every_source_it_searches(capsys: pytest.CaptureFixture[str]):
    assert main(["search", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    for source in ("daily logs", "notebook pages", "core files", "transcripts"):
        assert source in out


@pytest.mark.parametrize(
    "argv",
    [["bogus"], ["search"], ["search", "x", "--limit", "0"], ["search", "x", "--source", "web"], ["remember"],
     ["remember", "x", "--importance", "2"], ["--frobnicate", "status"]],
)
def test_bad_usage_exits_two(argv: list[str], capsys: pytest.CaptureFixture[str]):
    assert main(argv) == 2
    assert "usage:" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, named",
    [(["--json", "bogus"], "bogus"), (["search", "--json"], "query"), (["--json", "search", "x", "--limit", "0"], "--limit"),
     (["remember", "--js"], "text"), (["--frobnicate", "--json", "status"], "--frobnicate")],
)
def test_bad_usage_with_json_prints_the_json_error_document(argv: list[str], named: str,
                                                            capsys: pytest.CaptureFixture[str]):
    assert main(argv) == 2
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert set(doc) == {"error", "file", "line"} and doc["file"] is None and doc["line"] is None
    assert named in doc["error"]
    assert "usage:" in captured.err  # the person at a terminal still gets argparse's usage


def test_bad_usage_without_json_prints_nothing_on_stdout(capsys: pytest.CaptureFixture[str]):
    assert main(["bogus", "--", "--json"]) == 2  # after "--" it is an argument, not the flag
    assert capsys.readouterr().out == ""


def test_importing_the_cli_stays_light():
    code = (
        "import sys, suzent_desktop.cli as c; c.build_parser();"
        "print([m for m in ('lancedb', 'litellm', 'PySide6', 'onnxruntime', 'pyarrow') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_json_is_accepted_before_and_after_the_command(home: Path, capsys: pytest.CaptureFixture[str]):
    first = run_json(capsys, home, "status")
    assert main(["status", "--json", "--home", str(home)]) == 0
    second = json.loads(capsys.readouterr().out)
    assert first == second


# -- remember / search / forget / reindex / status ------------------------------------------
def test_remember_appends_to_todays_log_and_indexes(home: Path, capsys: pytest.CaptureFixture[str], today: dt.date):
    doc = run_json(
        capsys, home, "remember", "User prefers compact dashboards", "--category", "preference", "--tags", "ui product",
        "--session", "abcdef123456", "--importance", "0.5",
    )
    path = home / "memory" / "archive" / f"{today}.md"
    assert doc["path"] == str(path.resolve()) and doc["date"] == today.isoformat()
    assert doc["rows_added"] >= 1
    assert run_json(capsys, home, "status")["index"]["stale_files"] == []  # a new home's MEMORY.md too
    again = run_json(capsys, home, "remember", "User likes tea")
    assert again["rows_added"] == 1  # only the new line is embedded
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[doc["line"] - 1] == "- [preference] User prefers compact dashboards `ui product importance:0.5`"
    assert "## " in lines[2] and lines[2].endswith("— abcdef12")
    hits = run_json(capsys, home, "search", "compact dashboards")
    assert hits[0]["text"] == "User prefers compact dashboards"


def test_remember_human_output_names_the_file(home: Path, capsys: pytest.CaptureFixture[str]):
    code, out, _ = run(capsys, home, "remember", "User likes tea")
    assert code == 0 and "Remembered in" in out and ".md:" in out


def test_remember_empty_text_is_a_handled_error(home: Path, capsys: pytest.CaptureFixture[str]):
    code, _, err = run(capsys, home, "remember", "   ")
    assert code == 1 and "empty" in err


def test_search_json_shape_limit_and_source(home: Path, capsys: pytest.CaptureFixture[str]):
    for n in range(4):
        assert main(["--home", str(home), "remember", f"User visited Lisbon trip number {n}"]) == 0
    page = home / "notebook" / "3_Personal" / "Travel.md"
    page.write_text("# Travel\n\nUser loves Lisbon in spring.\n", encoding="utf-8")
    capsys.readouterr()
    hits = run_json(capsys, home, "search", "Lisbon", "--limit", "3")
    assert len(hits) == 3
    for hit in hits:
        assert {"text", "source_type", "path", "score", "superseded", "places"} <= set(hit)
        assert set(hit) <= {
            "text", "source_type", "path", "line", "date", "score", "heading",
            "superseded", "superseded_on", "current", "places",
        }
        assert isinstance(hit["score"], float) and Path(hit["path"]).is_absolute()
    archive_hits = run_json(capsys, home, "search", "Lisbon", "--source", "archive")
    assert archive_hits and all(h["source_type"] == "archive" and "line" in h and "date" in h for h in archive_hits)
    notebook_hits = run_json(capsys, home, "search", "Lisbon", "--source", "notebook")
    assert [Path(h["path"]).name for h in notebook_hits] == ["Travel.md"]


def test_search_records_recall_signals(home: Path, capsys: pytest.CaptureFixture[str]):
    main(["--home", str(home), "remember", "User drinks green tea"])
    capsys.readouterr()
    hits = run_json(capsys, home, "search", "green tea")
    recall = home / "notebook" / ".state" / "recall_log.jsonl"
    records = [json.loads(line) for line in recall.read_text(encoding="utf-8").splitlines()]
    assert {r["snippet"] for r in records} >= {hits[0]["text"]}


def test_search_with_query_syntax_characters(home: Path, capsys: pytest.CaptureFixture[str]):
    main(["--home", str(home), "remember", "User's C++ project (alpha)"])
    capsys.readouterr()
    for query in ['"unbalanced', "a AND OR (", "C++ *", "-", "field:value"]:
        code, out, err = run(capsys, home, "--json", "search", query)
        assert code == 0, err
        assert isinstance(json.loads(out), list)


def test_search_human_output_and_no_results(home: Path, capsys: pytest.CaptureFixture[str]):
    code, out, _ = run(capsys, home, "search", "anything")
    assert code == 0 and "No results." in out
    main(["--home", str(home), "remember", "User runs on Mondays"])
    capsys.readouterr()
    code, out, _ = run(capsys, home, "search", "runs Mondays")
    assert code == 0 and "[archive] User runs on Mondays" in out and "score=" in out


def test_search_sees_files_edited_outside_the_app(home: Path, capsys: pytest.CaptureFixture[str]):
    run_json(capsys, home, "reindex")
    page = home / "notebook" / "2_Wiki" / "Concepts" / "Zettelkasten.md"
    page.write_text("# Zettelkasten\n\nA note-taking method of small linked notes.\n", encoding="utf-8")
    hits = run_json(capsys, home, "search", "Zettelkasten note-taking")
    assert hits and hits[0]["path"] == str(page.resolve())


def test_forget_removes_rows_and_records_the_tombstone(home: Path, capsys: pytest.CaptureFixture[str]):
    main(["--home", str(home), "remember", "User's door code is 4417"])
    main(["--home", str(home), "remember", "User likes jazz"])
    capsys.readouterr()
    doc = run_json(capsys, home, "forget", "user's DOOR code is   4417")
    assert doc == {"tombstone": "user's door code is 4417", "tombstones": ["user's door code is 4417"],
                   "rows_removed": 1, "matched": True, "pages_changed": [], "core_files_changed": False,
                   "notes_kept": []}
    texts = [h["text"] for h in run_json(capsys, home, "search", "door code 4417")]
    assert "User's door code is 4417" not in texts
    run_json(capsys, home, "reindex", "--full")
    texts = [h["text"] for h in run_json(capsys, home, "search", "door code 4417")]
    assert "User's door code is 4417" not in texts
    stones = (home / "notebook" / ".state" / "tombstones.jsonl").read_text(encoding="utf-8")
    assert json.loads(stones.splitlines()[0])["content"] == "user's door code is 4417"


def test_forget_of_unknown_text_records_only_when_forced(home: Path, capsys: pytest.CaptureFixture[str]):
    code, _out, err = run(capsys, home, "forget", "something never said")
    assert code == 1 and "nothing was recorded" in err
    code, out, _ = run(capsys, home, "forget", "--force", "something never said")
    assert code == 0 and "No indexed row held" in out
    stones = (home / "notebook" / ".state" / "tombstones.jsonl").read_text(encoding="utf-8")
    assert "something never said" in stones
    doc = run_json(capsys, home, "forget", "--force", "another unknown")
    assert doc["matched"] is False and doc["rows_removed"] == 0


def test_forget_empty_text_is_a_handled_error(home: Path, capsys: pytest.CaptureFixture[str]):
    code, _, err = run(capsys, home, "forget", " ")
    assert code == 1 and "empty" in err


def test_reindex_and_full_rebuild(home: Path, capsys: pytest.CaptureFixture[str]):
    main(["--home", str(home), "remember", "User likes hiking"])
    capsys.readouterr()
    doc = run_json(capsys, home, "reindex")
    assert set(doc) >= {"rows_added", "rows_removed", "rows", "errors", "full"}
    assert doc["rows_added"] == 0 and doc["errors"] == []  # remember already indexed it
    rows = doc["rows"]
    full = run_json(capsys, home, "reindex", "--full")
    assert full["full"] is True and full["rows"] == rows
    code, out, _ = run(capsys, home, "reindex")
    assert code == 0 and "rows" in out


def test_status_json_has_exactly_the_documented_shape(home: Path, capsys: pytest.CaptureFixture[str], today: dt.date):
    status = run_json(capsys, home, "status")
    assert set(status) == STATUS_KEYS
    assert set(status["index"]) == {"rows", "by_source", "stale_files", "errors"}
    assert status["today"] == today.isoformat()
    assert status["watermark"] is None and status["pending_dates"] == [] and status["pending_facts"] == 0
    assert isinstance(status["lint_due"], bool)


def test_status_counts_pending_dates_but_never_today(home: Path, capsys: pytest.CaptureFixture[str], today: dt.date):
    archive = home / "memory" / "archive"
    archive.mkdir(parents=True)
    for offset in (3, 2, 1, 0):
        date = (today - dt.timedelta(days=offset)).isoformat()
        (archive / f"{date}.md").write_text(f"# Daily Log - {date}\n\n- [work] fact {offset}\n- [work] more\n", encoding="utf-8")
    notebook = home / "notebook"
    notebook.mkdir()
    (notebook / "log.md").write_text(
        f"# Log\n\n## [{today}] ingest | daily logs  watermark={(today - dt.timedelta(days=3)).isoformat()}\n",
        encoding="utf-8",
    )
    status = run_json(capsys, home, "status")
    expected = [(today - dt.timedelta(days=d)).isoformat() for d in (2, 1)]
    assert status["watermark"] == (today - dt.timedelta(days=3)).isoformat()
    assert status["pending_dates"] == expected and status["pending_facts"] == 4
    assert status["next_batch"] == expected
    code, out, _ = run(capsys, home, "status")
    assert code == 0 and "Pending:       2 days, 4 facts" in out


# -- capture ---------------------------------------------------------------------------------------
def test_capture_from_a_file(home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], today: dt.date):
    turn = tmp_path / "turn.json"
    turn.write_text(
        json.dumps({"user": "I prefer dark mode. I work at Contoso as a data engineer.", "assistant": "Noted!",
                    "session_id": "sess-capture-1"}),
        encoding="utf-8",
    )
    doc = run_json(capsys, home, "capture", str(turn))
    assert set(doc) >= {"facts", "date", "path", "rows_added", "memory_md"}
    log = home / "memory" / "archive" / f"{today}.md"
    if doc["facts"]:
        assert doc["date"] == today.isoformat()
        text = log.read_text(encoding="utf-8")
        for fact in doc["facts"]:
            assert fact["content"] in text
        assert "— sess-cap" in text
        assert doc["rows_added"] >= 1


def test_capture_of_the_same_turn_twice_writes_its_facts_once(home: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]):
    turn = tmp_path / "turn.json"
    turn.write_text(json.dumps({"user": "I work at Contoso as a data engineer.", "assistant": "Noted!",
                                "session_id": "retry-1", "timestamp": "2026-07-19T10:30:00"}), encoding="utf-8")
    first = run_json(capsys, home, "capture", str(turn))
    log = Path(first["path"])
    before = log.read_bytes()
    assert first["facts"] and first["turn"]
    code, out, _err = run(capsys, home, "capture", str(turn))
    assert code == 0 and "Not written again" in out and first["turn"]["id"] in out
    assert log.read_bytes() == before


def test_capture_from_stdin(home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
    payload = {"user": "I live in Redmond.", "assistant": "Nice.", "session_id": "s1", "timestamp": "2026-07-19T10:30:00"}
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(payload)))
    doc = run_json(capsys, home, "capture", "-")
    if doc["facts"]:
        assert doc["date"] == "2026-07-19"
        assert "## 10:30 — s1" in (home / "memory" / "archive" / "2026-07-19.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "content, fragment",
    [("{not json", "not valid JSON"), ("[1, 2]", "JSON object"), ('{"assistant": "x"}', "'user'"),
     ('{"user": "a", "assistant": "b", "timestamp": "yesterday"}', "'timestamp'")],
)
def test_capture_bad_input_names_the_file(home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, fragment: str):
    turn = tmp_path / "bad.json"
    turn.write_text(content, encoding="utf-8")
    code, _, err = run(capsys, home, "capture", str(turn))
    assert code == 1 and str(turn) in err and fragment in err
    assert not (home / "memory" / "archive").exists() or not any((home / "memory" / "archive").iterdir())


def test_capture_missing_file(home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    code, _, err = run(capsys, home, "capture", str(tmp_path / "nope.json"))
    assert code == 1 and "nope.json" in err


# -- bad homes -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("command", [["status"], ["search", "x"], ["remember", "x"], ["reindex"], ["forget", "x"]])
def test_broken_config_exits_one_naming_file_and_key(home: Path, capsys: pytest.CaptureFixture[str], command: list[str]):
    (home / "config.toml").write_text("memory_consolidation_max_days = 'two weeks'\n", encoding="utf-8")
    code, out, err = run(capsys, home, *command)
    assert code == 1 and out == ""
    assert "config.toml" in err and "memory_consolidation_max_days" in err
    assert sorted(p.name for p in home.iterdir()) == ["config.toml"]


def test_unknown_key_and_unparsable_config(home: Path, capsys: pytest.CaptureFixture[str]):
    (home / "config.toml").write_text("colour = 'blue'\n", encoding="utf-8")
    code, _, err = run(capsys, home, "status")
    assert code == 1 and "colour" in err
    (home / "config.toml").write_text("this is = = not toml", encoding="utf-8")
    code, _, err = run(capsys, home, "status")
    assert code == 1 and "config.toml" in err


def test_vault_path_that_is_a_file(home: Path, capsys: pytest.CaptureFixture[str]):
    vault = home / "vault"
    vault.write_text("a file, not a folder\n", encoding="utf-8")
    (home / "config.toml").write_text(f'notebook_path = "{vault}"\n', encoding="utf-8")
    before = snapshot(home)
    for command in (["status"], ["remember", "x"], ["search", "x"]):
        code, _, err = run(capsys, home, *command)
        assert code == 1 and "notebook_path" in err and str(vault) in err
    assert snapshot(home) == before


def test_home_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    target = tmp_path / "home.txt"
    target.write_text("x", encoding="utf-8")
    code, _, err = run(capsys, target, "status")
    assert code == 1 and str(target) in err
    assert target.read_text(encoding="utf-8") == "x"


def test_non_utf8_files_do_not_stop_search(home: Path, capsys: pytest.CaptureFixture[str], today: dt.date):
    main(["--home", str(home), "remember", "User plays the cello"])
    (home / "notebook" / "3_Personal" / "Broken.md").write_bytes(b"# Broken\n\n\xff\xfe\x00 cello\n")
    bad_log = home / "memory" / "archive" / (today - dt.timedelta(days=1)).isoformat()
    bad_log = bad_log.with_suffix(".md")
    bad_log.write_bytes(b"# Daily Log\n- [x] cello \xe9\n")
    (home / "memory" / "archive" / "not-a-date.md").write_text("- [x] cello\n", encoding="utf-8")
    capsys.readouterr()
    code, out, err = run(capsys, home, "--json", "search", "cello")
    assert code == 0
    texts = [h["text"] for h in json.loads(out)]
    assert "User plays the cello" in texts
    assert bad_log.read_bytes() == b"# Daily Log\n- [x] cello \xe9\n"


def test_created_home_is_bootstrapped(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    new_home = tmp_path / "brand" / "new"
    run_json(capsys, new_home, "remember", "User likes tea")
    assert (new_home / "notebook" / "schema.md").is_file()
    assert (new_home / "notebook" / "3_Personal").is_dir()
    assert (new_home / "memory" / "archive").is_dir()
    assert (new_home / "memory" / "MEMORY.md").read_text(encoding="utf-8").startswith("# Memory")


# -- gui, dream, lint, promote ---------------------------------------------------------------------
@pytest.fixture
def fake_app(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Stand in for the Qt app: records the home it was asked to open."""
    opened: list[Path] = []
    module = types.ModuleType("suzent_desktop.ui.base.app")

    def run_app(home: Path, *, problem: Exception | None = None, prepared=None) -> int:  # noqa: ANN001
        if problem is not None:
            module.problems.append(problem)  # type: ignore[attr-defined]
            return 1  # the person chose Quit in the dialog
        assert prepared is not None and prepared.layout.home == home  # the window opens on the checked home
        opened.append(home)
        return 0

    module.run_app = run_app  # type: ignore[attr-defined]
    module.hand_over = lambda _home: None  # type: ignore[attr-defined] - no window is open
    module.problems = []  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "suzent_desktop.ui.base.app", module)
    return opened


def test_no_command_opens_the_gui_on_a_bootstrapped_home(home: Path, fake_app: list[Path]):
    assert main(["--home", str(home)]) == 0
    assert fake_app == [home]
    assert (home / "notebook" / "log.md").is_file()
    assert main(["--home", str(home), "gui"]) == 0 and len(fake_app) == 2


def test_gui_with_broken_config_shows_the_error_in_a_window(home: Path, fake_app: list[Path],
                                                            capsys: pytest.CaptureFixture[str]):
    (home / "config.toml").write_text("memory_lint_enabled = 'sometimes'\n", encoding="utf-8")
    assert main(["--home", str(home), "gui"]) == 1
    assert fake_app == [] and "memory_lint_enabled" in capsys.readouterr().err
    problem = sys.modules["suzent_desktop.ui.base.app"].problems[0]
    assert problem.key == "memory_lint_enabled" and problem.line == 1 and problem.file == str(home / "config.toml")


def _has(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


needs_dream = pytest.mark.skipif(not _has("suzent_desktop.core.engines.dream.runner"), reason="dream runner not built")


@needs_dream
def test_dream_json_shape(home: Path, capsys: pytest.CaptureFixture[str]):
    doc = run_json(capsys, home, "dream", "--force")
    assert {"outcome", "batch", "watermark", "pages_changed", "summary"} <= set(doc)
    assert doc["outcome"] in {"productive", "no_change", "failed", "skipped", "gated", "nothing_pending"}
    assert doc["outcome"] == "nothing_pending"


@needs_dream
def test_dream_dry_run_on_demo_leaves_the_vault_untouched(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    demo = tmp_path / "demo"
    assert main(["demo", "--no-gui", str(demo)]) == 0
    capsys.readouterr()
    before = snapshot(demo / "notebook")
    doc = run_json(capsys, demo, "dream", "--force", "--dry-run")
    assert doc["dry_run"] is True
    after = {k: v for k, v in snapshot(demo / "notebook").items() if not k.startswith(".state")}
    assert after == {k: v for k, v in before.items() if not k.startswith(".state")}


@needs_dream
def test_dream_then_status_on_demo(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    demo = tmp_path / "demo"
    assert main(["demo", "--no-gui", str(demo)]) == 0
    capsys.readouterr()
    doc = run_json(capsys, demo, "dream", "--force")
    status = run_json(capsys, demo, "status")
    if doc["outcome"] == "productive":
        assert status["watermark"] == doc["watermark"] == doc["batch"][-1]
        assert doc["pages_changed"]


@pytest.mark.skipif(not _has("suzent_desktop.core.engines.dream.lint"), reason="lint not built")
def test_lint_json_shape(home: Path, capsys: pytest.CaptureFixture[str]):
    code, out, err = run(capsys, home, "--json", "lint")
    doc = json.loads(out)
    assert {"findings", "pages_changed"} <= set(doc)
    for finding in doc["findings"]:
        assert set(finding) == {"kind", "path", "detail"}
    assert code in (0, 1)


@pytest.mark.skipif(not _has("suzent_desktop.core.engines.memory_md.promotion"), reason="promotion not built")
def test_promote_rewrites_memory_md(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    demo = tmp_path / "demo"
    assert main(["demo", "--no-gui", str(demo)]) == 0
    capsys.readouterr()
    doc = run_json(capsys, demo, "promote")
    assert doc["memory_md"] == str((demo / "memory" / "MEMORY.md").resolve())
    assert doc["lines"] <= 60 and doc["chars"] <= 4000


@needs_dream
def test_dream_lint_promote_human_output_on_demo(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    demo = tmp_path / "demo"
    assert main(["demo", "--no-gui", str(demo)]) == 0
    capsys.readouterr()
    code, out, _ = run(capsys, demo, "dream", "--dry-run", "--force")
    assert code == 0 and out.startswith("Dream (dry run): ")
    code, out, _ = run(capsys, demo, "dream", "--force")
    assert code == 0 and "Dream: pages updated" in out and "changed: 3_Personal/" in out and "Watermark: " in out
    code, out, _ = run(capsys, demo, "dream")
    assert code == 0 and "nothing to consolidate" in out
    code, out, _ = run(capsys, demo, "lint")
    assert code in (0, 1) and out.strip()
    code, out, _ = run(capsys, demo, "promote")
    assert code == 0 and "MEMORY.md" in out and "lines" in out


def test_status_human_output_on_demo(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    demo = tmp_path / "demo"
    assert main(["demo", "--no-gui", str(demo)]) == 0
    capsys.readouterr()
    code, out, _ = run(capsys, demo, "status")
    assert code == 0
    assert "Watermark:" in out and "Pending:       14 days" in out and "Next batch:" in out
    assert "Stale files:" in out  # the demo is written without an index; search or reindex builds it


def test_capture_human_output(home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    turn = tmp_path / "turn.json"
    turn.write_text(json.dumps({"user": "hello there", "assistant": "hi", "session_id": "s"}), encoding="utf-8")
    code, out, _ = run(capsys, home, "capture", str(turn))
    assert code == 0 and ("No facts found" in out or "Captured" in out)


def test_version(capsys: pytest.CaptureFixture[str]):
    from suzent_desktop import __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"suzent-desktop {__version__}"


def test_status_lists_skipped_dates(home: Path, capsys: pytest.CaptureFixture[str], today: dt.date):
    notebook = home / "notebook"
    notebook.mkdir()
    (notebook / "log.md").write_text(
        "# Log\n\n## [2026-07-15] ingest | skipped daily logs after 3 failed attempts"
        "  skipped=2026-07-10,2026-07-11  watermark=2026-07-11\n",
        encoding="utf-8",
    )
    code, out, _ = run(capsys, home, "status")
    assert code == 0 and "Skipped:       2026-07-10, 2026-07-11" in out
    assert run_json(capsys, home, "status")["watermark"] == "2026-07-11"


def test_output_piped_into_a_closed_reader_is_not_an_error(tmp_path):
    import os
    import subprocess
    import sys

    env = {**os.environ, "SUZENT_HOME": str(tmp_path / "h")}
    proc = subprocess.run(
        f"{sys.executable} -m suzent_desktop --help | head -1",
        shell=True, capture_output=True, text=True, env=env, check=False,
    )
    assert proc.stdout.startswith("usage:")
    assert "error" not in proc.stderr


# -- errors as JSON, a cycle per dream, exit codes for failed attempts -------------------------------
def test_json_errors_are_json_with_file_and_line(home: Path, capsys: pytest.CaptureFixture[str]):
    config = home / "config.toml"
    config.write_text('extraction_model = ""\nmemory_consolidation_enabled = "no"\n', encoding="utf-8")
    code, out, err = run(capsys, home, "--json", "status")
    assert code == 1
    doc = json.loads(out)
    assert set(doc) == {"error", "file", "line"}
    assert doc["file"] == str(config) and doc["line"] == 2 and "memory_consolidation_enabled" in doc["error"]
    assert "memory_consolidation_enabled" in err


def test_json_error_without_a_file_still_has_the_shape(home: Path, capsys: pytest.CaptureFixture[str]):
    code, out, _err = run(capsys, home, "--json", "remember", "   ")
    assert code == 1
    doc = json.loads(out)
    assert set(doc) == {"error", "file", "line"} and doc["file"] is None and doc["line"] is None


def test_empty_search_query_is_a_handled_error(home: Path, capsys: pytest.CaptureFixture[str]):
    code, _out, err = run(capsys, home, "search", "  ")
    assert code == 1 and "query is empty" in err


def test_a_misspelt_suzent_variable_is_warned_about(home: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("SUZENT_MEMORY_LINT_ENABLE", "0")
    code, _out, err = run(capsys, home, "status")
    assert code == 0 and "SUZENT_MEMORY_LINT_ENABLE " in err and "did you mean SUZENT_MEMORY_LINT_ENABLED" in err


def _backlog(home: Path, days: int, today: dt.date) -> list[str]:
    from suzent_desktop.core.files.paths.layout import Layout
    from suzent_desktop.core.files.records.archive import Archive
    from suzent_desktop.core.files.records.log_grammar import Fact
    from suzent_desktop.settings import load_settings

    assert main(["--home", str(home), "status"]) == 0  # bootstrap
    archive = Archive(Layout.from_settings(home, load_settings(home)))
    dates = [(today - dt.timedelta(days=days - i)).isoformat() for i in range(days)]
    for number, date in enumerate(dates):
        archive.append_turn([Fact(f"User visited city number {number} on a trip", "travel")], session_id="s1",
                            when=dt.datetime.fromisoformat(f"{date}T09:00"))
    return dates


@needs_dream
def test_dream_runs_batch_after_batch_until_caught_up_then_lint(home: Path, capsys: pytest.CaptureFixture[str],
                                                                today: dt.date):
    (home / "config.toml").write_text("memory_consolidation_max_days = 4\nmemory_consolidation_min_facts = 1\n",
                                      encoding="utf-8")
    dates = _backlog(home, 10, today)
    capsys.readouterr()
    code, out, err = run(capsys, home, "dream")
    assert code == 0, err
    batch_lines = [line for line in out.splitlines() if line.startswith("Dream: ")]
    assert len(batch_lines) == 3 and all("pages updated" in line for line in batch_lines)
    assert f"Watermark: {dates[-1]}" in out and "Lint:" in out
    status = run_json(capsys, home, "status")
    assert status["pending_dates"] == [] and status["watermark"] == dates[-1] and status["last_lint"]


@needs_dream
def test_dream_json_lists_every_run(home: Path, capsys: pytest.CaptureFixture[str], today: dt.date):
    (home / "config.toml").write_text("memory_consolidation_max_days = 3\nmemory_consolidation_min_facts = 1\n",
                                      encoding="utf-8")
    dates = _backlog(home, 5, today)
    capsys.readouterr()
    doc = run_json(capsys, home, "dream")
    assert doc["outcome"] == "productive" and doc["batch"] == dates and doc["watermark"] == dates[-1]
    assert [r["batch"] for r in doc["runs"]] == [dates[:3], dates[3:]]
    assert doc["lint"] is not None and set(doc["lint"]) == {"ok", "pages_changed", "findings"}


class _TextOnlyModel:
    """A loopback OpenAI-compatible server whose model writes its tool calls as text."""

    def __init__(self, content: str) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, HTTPServer

        body = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "fake",
                           "choices": [{"index": 0, "finish_reason": "stop",
                                        "message": {"role": "assistant", "content": content}}]}).encode()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server naming
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@needs_dream
def test_dream_with_a_model_that_does_not_call_tools_exits_non_zero_and_says_why(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, today: dt.date
):
    model = _TextOnlyModel("I would call write(3_Personal/Trips.md) now.")
    monkeypatch.setenv("OPENAI_API_BASE", model.base)
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    (home / "config.toml").write_text('memory_consolidation_model = "openai/fake"\nmemory_consolidation_min_facts = 1\n',
                                      encoding="utf-8")
    try:
        _backlog(home, 2, today)
        capsys.readouterr()
        code, out, err = run(capsys, home, "dream")
    finally:
        model.close()
    assert code == 1
    assert "the model does not call tools" in out and "the model does not call tools" in err


def test_capture_keeps_the_turn_and_says_where(home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    turn = tmp_path / "turn.json"
    turn.write_text(json.dumps({"user": "Thanks!", "assistant": "Any time.", "session_id": "s9",
                                "timestamp": "2026-07-19T08:00:00"}), encoding="utf-8")
    doc = run_json(capsys, home, "capture", str(turn))
    kept = doc["turn"]
    assert kept["path"].endswith("transcripts/2026-07-19.jsonl") and kept["line"] == 1
    record = json.loads(Path(kept["path"]).read_text(encoding="utf-8"))
    assert record["id"] == kept["id"] and record["user"] == "Thanks!"
    found = run_json(capsys, home, "search", "Any time", "--source", "transcript")
    assert found and found[0]["source_type"] == "transcript" and found[0]["line"] == 1


def test_capture_refuses_empty_sides_and_bytes_that_are_not_utf8(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"user": " ", "assistant": ""}), encoding="utf-8")
    code, _, err = run(capsys, home, "capture", str(empty))
    assert code == 1 and "empty" in err
    raw = tmp_path / "latin1.json"
    raw.write_bytes(b'{"user": "caf\xe9", "assistant": "ok"}')
    code, _, err = run(capsys, home, "capture", str(raw))
    assert code == 1 and "latin1.json" in err and "UTF-8" in err
    assert not (home / "memory" / "transcripts").exists() or not any((home / "memory" / "transcripts").iterdir())


def test_search_puts_the_current_fact_first_and_names_history_and_repeats(
    home: Path, capsys: pytest.CaptureFixture[str]
):
    assert main(["--home", str(home), "reindex"]) == 0  # bootstraps the home
    page = home / "notebook" / "3_Personal" / "Work.md"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(
        "# Work\n\n- User now works at Microsoft on the search team (2026-07-10)\n"
        "- User's manager is Daniel Okafor (2026-07-11)\n\n## History\n\n"
        "- ~~User works at Contoso as a data engineer~~ (2026-06-01, until 2026-07-10)\n",
        encoding="utf-8",
    )
    (home / "memory" / "MEMORY.md").write_text(
        "# Memory\n\n- User now works at Microsoft on the search team\n", encoding="utf-8"
    )
    capsys.readouterr()
    hits = run_json(capsys, home, "search", "where does the user work", "--limit", "5")
    assert hits[0]["text"] == "User now works at Microsoft on the search team"
    assert hits[0]["date"] == "2026-07-10" and hits[0]["superseded"] is False
    assert [Path(p["path"]).name for p in hits[0]["places"]] == ["Work.md", "MEMORY.md"]
    old = next(h for h in hits if h["superseded"])
    assert old["superseded_on"] == "2026-07-10" and old["date"] == "2026-06-01"
    assert old["current"]["text"] == hits[0]["text"] and old["current"]["line"] == 3
    code, out, _ = run(capsys, home, "search", "where does the user work", "--limit", "5")
    assert code == 0
    assert "User works at Contoso as a data engineer  (superseded on 2026-07-10)" in out
    assert "now: User now works at Microsoft on the search team" in out
    assert "also in: " in out and "MEMORY.md:3" in out
    assert out.index("User now works at Microsoft") < out.index("Contoso as a data engineer")


def test_search_operators_filter_and_list(home: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["--home", str(home), "reindex"]) == 0  # bootstraps the home
    trips = home / "notebook" / "3_Personal" / "Trips"
    trips.mkdir(parents=True)
    (trips / "Japan.md").write_text("---\ntags: [trip/japan]\n---\n# Japan\n\n- User drank green tea in Uji\n",
                                    encoding="utf-8")
    (home / "notebook" / "3_Personal" / "Food.md").write_text("# Food\n\n- User likes green tea #food\n",
                                                              encoding="utf-8")
    capsys.readouterr()
    hits = run_json(capsys, home, "search", "green tea tag:trip")
    assert [Path(h["path"]).name for h in hits] == ["Japan.md"]
    hits = run_json(capsys, home, "search", '"green tea" -path:trips')
    assert [Path(h["path"]).name for h in hits] == ["Food.md"]
    listed = run_json(capsys, home, "search", "--", "-tag:trip")
    assert "Japan.md" not in {Path(h["path"]).name for h in listed} and "Food.md" in {Path(h["path"]).name for h in listed}
    code, out, _ = run(capsys, home, "search", "tag:food")
    assert code == 0 and "User likes green tea #food" in out


# -- starting the window ---------------------------------------------------------------------
def test_gui_without_a_usable_qt_says_so_in_one_line(capsys, home, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "PySide6.QtWidgets", None)  # as when Qt lacks its system libraries
    code, _out, err = run(capsys, home, "gui")
    assert code == 1 and "the desktop app cannot start" in err


@pytest.mark.parametrize("command", [["gui"], ["demo"]])
def test_no_display_is_said_in_one_line_with_what_to_do(capsys, home, monkeypatch, command) -> None:
    import suzent_desktop.ui.base.app as app

    opened: list[Path] = []
    monkeypatch.setattr(app, "run_app", lambda home, **_: opened.append(home) or 0)  # Qt would abort here
    monkeypatch.setattr(sys, "platform", "linux")
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    code, _out, err = run(capsys, home, *command)
    assert code == 1 and not opened
    assert len(err.strip().splitlines()) == 1 and "no display" in err and "status" in err, err
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    assert run(capsys, home, *command)[0] == 0 and opened


def test_gui_shows_a_fault_in_the_apps_own_code_instead_of_blaming_qt(capsys, home, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "suzent_desktop.ui.base.app", None)
    with pytest.raises(ImportError):
        run(capsys, home, "gui")
