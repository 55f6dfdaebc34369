"""doctor and bad input: every problem names its file (and line), nothing is modified, the rest keeps working."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from suzent_desktop.cli import main
from suzent_desktop.core.doctor import Problem, run_doctor
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.home import bootstrap_home, open_home
from suzent_desktop.settings import Settings


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def boot(home: Path) -> Layout:
    layout = Layout.from_settings(home, Settings())
    bootstrap_home(layout)
    return layout


def write_log(layout: Layout, date: str, body: str) -> Path:
    path = layout.daily_log(date)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"# Daily Log - {date}\n\n## 09:00 — abcd1234\n\n{body}", encoding="utf-8")
    return path


def doctor_json(home: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict]:
    code = main(["--home", str(home), "--json", "doctor"])
    return code, json.loads(capsys.readouterr().out)


def test_clean_home_has_no_errors(home: Path, boot: Layout, capsys: pytest.CaptureFixture[str]):
    write_log(boot, "2026-07-18", "- [work] fine\n")
    code, report = doctor_json(home, capsys)
    assert code == 0 and report["ok"] is True
    assert all(p["severity"] != "error" for p in report["problems"])
    assert set(report["problems"][0]) == {"severity", "path", "line", "message"} if report["problems"] else True


def test_malformed_fact_line_is_reported_with_file_and_line(home: Path, boot: Layout, capsys: pytest.CaptureFixture[str]):
    path = write_log(boot, "2026-07-18", "- [work] good one\nthis is not a fact\n- [work] still parsed\n")
    before = path.read_bytes()
    code = main(["--home", str(home), "doctor"])
    out = capsys.readouterr().out
    assert f"{path}:6: warning: not a fact line (kept, not indexed): this is not a fact" in out
    assert code == 0  # a malformed line is a warning: the file is kept and the rest is indexed
    assert path.read_bytes() == before


def test_invalid_log_name_is_reported(home: Path, boot: Layout):
    bad = boot.archive_dir / "2026-02-30.md"
    bad.write_text("# Daily Log - 2026-02-30\n", encoding="utf-8")
    (boot.archive_dir / "notes.txt").write_text("x", encoding="utf-8")
    problems = run_doctor(home)
    paths = {p.path: p for p in problems}
    assert str(bad) in paths and "calendar date" in paths[str(bad)].message
    assert str(boot.archive_dir / "notes.txt") in paths


def test_non_utf8_log_and_page_are_errors_naming_file_and_line(home: Path, boot: Layout, capsys: pytest.CaptureFixture[str]):
    log = boot.daily_log("2026-07-17")
    log.write_bytes(b"# Daily Log - 2026-07-17\n\n- [work] caf\xe9\n")
    page = boot.notebook_dir / "2_Wiki" / "Binary.md"
    page.write_bytes(b"\x00\x01\xff\xfe binary")
    core = boot.memory_dir / "user.md"
    core.write_bytes(b"\xff")
    before = snapshot(home)
    code, report = doctor_json(home, capsys)
    assert code == 1 and report["ok"] is False
    errors = {(p["path"], p["line"]) for p in report["problems"] if p["severity"] == "error"}
    assert (str(log), 3) in errors and (str(page), 1) in errors and (str(core), 1) in errors
    assert snapshot(home) == before


def test_binary_file_in_vault_assets_is_not_a_problem(home: Path, boot: Layout):
    (boot.notebook_dir / "4_Assets" / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    assert [p for p in run_doctor(home) if p.severity == "error"] == []


def test_tombstone_problems_and_forgotten_text_in_pages(home: Path, boot: Layout):
    boot.tombstones_file.write_text(
        '{"content": "user\'s door code is 4417"}\nnot json at all\n', encoding="utf-8"
    )
    page = boot.notebook_dir / "3_Personal" / "Home.md"
    page.write_text("# Home\n\n- User's door code is 4417\n- Lives in Redmond\n", encoding="utf-8")
    problems = run_doctor(home)
    found = {(p.path, p.line) for p in problems}
    assert (str(boot.tombstones_file), 2) in found
    assert (str(page), 3) in found
    assert (str(page), 4) not in found


def test_watermark_on_or_after_today_is_reported(home: Path, boot: Layout, today: dt.date):
    with boot.log_md.open("a", encoding="utf-8") as handle:
        handle.write(f"\n## [{today}] ingest | manual  watermark={today}\n")
    problems = [p for p in run_doctor(home) if p.path == str(boot.log_md)]
    assert len(problems) == 1 and problems[0].line is not None
    assert "on or after today" in problems[0].message


def test_an_ingest_watermark_that_is_no_date_is_reported(home: Path, boot: Layout):
    with boot.log_md.open("a", encoding="utf-8") as handle:
        handle.write("\n## [2026-03-01] ingest | manual  watermark=2026-02-30\n")
    problems = [p for p in run_doctor(home) if p.path == str(boot.log_md)]
    assert [p.message for p in problems] == [
        "this ingest entry's watermark is not a valid date; it does not move the watermark"]
    assert problems[0].line is not None


def test_broken_config_is_an_error_naming_file(home: Path, capsys: pytest.CaptureFixture[str]):
    (home / "config.toml").write_text("memory_lint_min_days = 'weekly'\n", encoding="utf-8")
    code = main(["--home", str(home), "doctor"])
    captured = capsys.readouterr()
    assert code == 1
    assert "config.toml" in captured.out and "memory_lint_min_days" in captured.out


def test_vault_that_is_a_file_is_an_error(home: Path, capsys: pytest.CaptureFixture[str]):
    vault = home / "vault.md"
    vault.write_text("I am a file\n", encoding="utf-8")
    (home / "config.toml").write_text(f'notebook_path = "{vault}"\n', encoding="utf-8")
    before = snapshot(home)
    code = main(["--home", str(home), "doctor"])
    assert code == 1
    assert "notebook_path" in capsys.readouterr().out
    assert snapshot(home) == before


def test_doctor_never_creates_a_missing_home(tmp_path: Path):
    missing = tmp_path / "nowhere"
    problems = run_doctor(missing)
    assert problems and problems[0].severity == "info"
    assert not missing.exists()


def test_doctor_does_not_bootstrap(home: Path):
    run_doctor(home)
    assert list(home.iterdir()) == []


def test_problem_format():
    assert Problem("warning", "/a/b.md", 3, "msg").format() == "/a/b.md:3: warning: msg"
    assert Problem("error", None, None, "msg").format() == "(home): error: msg"


def test_stale_index_files_are_reported(home: Path, boot: Layout, capsys: pytest.CaptureFixture[str]):
    write_log(boot, "2026-07-18", "- [work] fine\n")
    assert main(["--home", str(home), "reindex"]) == 0
    page = boot.notebook_dir / "0_Inbox" / "Later.md"
    page.write_text("# Later\n\nWritten after the last reindex.\n", encoding="utf-8")
    capsys.readouterr()
    code, report = doctor_json(home, capsys)
    assert code == 0
    stale = [p for p in report["problems"] if p["path"] == str(page.resolve())]
    assert len(stale) == 1 and "reindex" in stale[0]["message"]


def test_an_undecodable_file_is_reported_once_even_after_reindex(home: Path, boot: Layout, capsys: pytest.CaptureFixture[str]):
    page = boot.notebook_dir / "3_Personal" / "Bin.md"
    page.write_bytes(b"\xff\xfe\x00 binary")
    assert main(["--home", str(home), "reindex"]) == 0
    assert "Bin.md" in capsys.readouterr().err  # reindex warns and carries on
    code, report = doctor_json(home, capsys)
    assert code == 1
    mentions = [p for p in report["problems"] if "Bin.md" in (p["path"] or "") or "Bin.md" in p["message"]]
    assert len(mentions) == 1 and mentions[0]["severity"] == "error"


def test_log_header_that_names_another_date(home: Path, boot: Layout):
    path = boot.daily_log("2026-07-18")
    path.write_text("# Daily Log - 2026-07-11\n\n- [work] copied from another day\n", encoding="utf-8")
    problems = [p for p in run_doctor(home) if p.path == str(path)]
    assert len(problems) == 1 and problems[0].line == 1 and "2026-07-11" in problems[0].message


def test_bad_suzent_today_is_a_handled_error(home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    monkeypatch.setenv("SUZENT_TODAY", "20-07-2026")
    assert main(["--home", str(home), "doctor"]) == 1
    assert "SUZENT_TODAY" in capsys.readouterr().out
    assert main(["--home", str(home), "status"]) == 1
    assert "SUZENT_TODAY" in capsys.readouterr().err


def test_crlf_logs_are_clean_and_summary_is_printed(home: Path, boot: Layout, capsys: pytest.CaptureFixture[str]):
    path = boot.daily_log("2026-07-18")
    path.write_bytes(b"# Daily Log - 2026-07-18\r\n\r\n## 09:00 \xe2\x80\x94 abcd1234\r\n\r\n- [work] windows line\r\n")
    assert [p for p in run_doctor(home) if p.path == str(path)] == []
    (boot.archive_dir / "junk.md").write_text("x", encoding="utf-8")
    assert main(["--home", str(home), "doctor"]) == 0
    assert "0 errors, 1 warning." in capsys.readouterr().out


def test_a_watermark_in_the_future_is_an_error_naming_its_line(home: Path, boot: Layout, today: dt.date):
    with boot.log_md.open("a", encoding="utf-8") as handle:
        handle.write("\n## [2026-07-01] ingest | manual  watermark=2030-01-01\n")
    line = boot.log_md.read_text(encoding="utf-8").count("\n")
    problems = [p for p in run_doctor(home) if p.path == str(boot.log_md)]
    assert [(p.severity, p.line) for p in problems] == [("error", line)]
    assert "2030-01-01" in problems[0].message and "future" in problems[0].message


def test_doctor_builds_the_homes_layout_once_by_the_homes_own_rules(boot: Layout, monkeypatch, capsys) -> None:
    """One layout per doctor run, built as the app builds it (this device's stream names), which
    the problems and the transcript counts both use."""
    from suzent_desktop.core import home as home_module

    built: list[Layout] = []
    real_prepare_home, real_from_settings = home_module.prepare_home, Layout.from_settings.__func__
    monkeypatch.setattr(home_module, "prepare_home",
                        lambda *a, **kw: built.append(layout := real_prepare_home(*a, **kw)) or layout)
    made: list[Path] = []
    monkeypatch.setattr(Layout, "from_settings",
                        classmethod(lambda cls, home, settings: made.append(home) or real_from_settings(cls, home, settings)))
    transcript = boot.transcript("2026-07-19")
    transcript.parent.mkdir(parents=True, exist_ok=True)
    transcript.write_text(json.dumps({"role": "user", "content": "hi"}) + "\n", encoding="utf-8")

    assert main(["--json", "--home", str(boot.home), "doctor"]) == 0
    assert len(made) == 1 and len(built) == 1  # not a second layout for the transcript counts
    assert built[0].device  # the device-aware layout, not a bare one
    assert json.loads(capsys.readouterr().out)["transcripts"]["days"] == 1


def test_doctor_opens_the_home_read_only_and_walks_the_vault_once(
    home: Path, boot: Layout, clock, monkeypatch: pytest.MonkeyPatch
):
    """The pages, the refused links, the conflict copies and the index's stale files come from one walk."""
    from suzent_desktop.core import doctor

    write_log(boot, "2026-07-18", "- [work] User works at Acme\n")
    for name in ("People", "Places"):
        (boot.notebook_dir / "3_Personal").mkdir(parents=True, exist_ok=True)
        (boot.notebook_dir / "3_Personal" / f"{name}.md").write_text(f"# {name}\n\n- a fact\n", encoding="utf-8")
    assert main(["--home", str(home), "reindex"]) == 0
    (boot.notebook_dir / "3_Personal" / "Places.md").write_text("# Places\n\n- changed\n", encoding="utf-8")
    opened = []
    monkeypatch.setattr(doctor, "open_home", lambda *a, **k: opened.append(open_home(*a, **k)) or opened[-1])
    before = snapshot(home)
    problems = run_doctor(home, clock=clock)
    assert [p.path for p in problems if "stale rows" in p.message] == [str(boot.notebook_dir / "3_Personal" / "Places.md")]
    assert [home_.vault.walks for home_ in opened] == [1]
    assert snapshot(home) == before


def test_doctor_reads_the_days_once_and_finds_a_lost_fact_through_the_one_walk(
    home: Path, boot: Layout, clock, monkeypatch: pytest.MonkeyPatch
):
    """A consolidated fact that left its page is looked for across the vault in the model doctor
    walked, and the index's stale files and rows are judged against the days doctor read: neither
    the vault nor the days are read a second time."""
    from suzent_desktop.core.vault import days as days_module
    from suzent_desktop.core.vault import model

    write_log(boot, "2026-07-18", "- [work] User works at Acme\n")
    with boot.log_md.open("a", encoding="utf-8") as handle:
        handle.write("\n## [2026-07-19] ingest | manual  watermark=2026-07-18\n")
    work = boot.notebook_dir / "3_Personal" / "Work.md"
    work.parent.mkdir(parents=True, exist_ok=True)
    work.write_text("# Work\n\n- User likes the office\n", encoding="utf-8")  # the fact left its page
    boot.state_dir.mkdir(parents=True, exist_ok=True)
    (boot.state_dir / "held_facts.json").write_text(json.dumps({"version": 1, "facts": [
        {"date": "2026-07-18", "text": "User works at Acme", "line": 5, "page": "3_Personal/Work.md",
         "holds": "- User works at Acme (2026-07-18)"}]}), encoding="utf-8")
    assert main(["--home", str(home), "reindex"]) == 0

    walks: list[str] = []
    real_walk = model._walk_entries
    monkeypatch.setattr(model, "_walk_entries",
                        lambda root, *a, **k: walks.append(str(root)) or real_walk(root, *a, **k))
    reads: list[object] = []
    real_read = days_module.Days.read.__func__
    monkeypatch.setattr(days_module.Days, "read", classmethod(lambda cls, *a: reads.append(a) or real_read(cls, *a)))
    problems = run_doctor(home, clock=clock)
    assert [p.message for p in problems if "not consolidated" in p.message] == [
        "not consolidated: no page holds this fact of a consolidated day; it stays searchable and the next dream "
        "offers it again: 'User works at Acme'"
    ]
    assert walks == [str(boot.notebook_dir)] and len(reads) == 1
