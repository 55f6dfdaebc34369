"""The demo home: realistic, deterministic, consolidated up to a watermark, never written over real data."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from suzent_desktop.cli import main
from suzent_desktop.core.demo import DEMO_MARKER, DemoError, demo_files, is_demo_home, write_demo_home
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.records.archive import Archive
from suzent_desktop.core.files.records.tombstones import Tombstones
from suzent_desktop.core.vault.notebook import Notebook
from suzent_desktop.settings import Settings

TODAY = dt.date(2026, 7, 20)


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def demo(tmp_path: Path) -> Layout:
    write_demo_home(tmp_path / "demo", TODAY)
    return Layout.from_settings(tmp_path / "demo", Settings())


def test_three_weeks_of_clean_logs_ending_today(demo: Layout):
    archive = Archive(demo)
    dates = archive.dates()
    assert len(dates) >= 22
    assert dates[-1] == TODAY.isoformat()
    assert dates[0] <= (TODAY - dt.timedelta(days=21)).isoformat()
    total = 0
    for date in dates:
        parsed = archive.read(date)
        assert parsed.date == date and not parsed.malformed
        assert parsed.turns and all(len(t.session) == 8 for t in parsed.turns)
        total += len(parsed.facts)
    assert total >= 60
    assert archive.invalid_files() == []


def test_story_covers_the_required_subjects_and_a_changing_fact(demo: Layout):
    archive = Archive(demo)
    facts = [(d, f.fact) for d in archive.dates() for f in archive.read(d).facts]
    categories = {f.category for _, f in facts}
    assert {"preference", "work", "people", "project", "place", "health", "routine"} <= categories
    contoso = [d for d, f in facts if "works at Contoso" in f.content]
    microsoft = [d for d, f in facts if "now works at Microsoft" in f.content]
    assert contoso and microsoft and contoso[0] < microsoft[0]
    assert any(f.is_important for _, f in facts)
    assert any("moved to Redmond" in f.content for _, f in facts)


def test_watermark_splits_consolidated_and_pending_days(demo: Layout):
    notebook = Notebook(demo)
    watermark = notebook.watermark(TODAY)
    dates = Archive(demo).dates()
    consolidated = [d for d in dates if watermark and d <= watermark]
    pending = [d for d in dates if watermark and watermark < d < TODAY.isoformat()]
    assert len(consolidated) == 10
    assert len(pending) >= 10
    assert notebook.last_entry("lint") is not None


def test_vault_is_bootstrapped_and_seeded(demo: Layout):
    notebook = Notebook(demo)
    pages = {notebook.relative(p) for p in notebook.content_pages()}
    assert "3_Personal/Preferences.md" in pages
    assert any(p.startswith("2_Wiki/Concepts/") for p in pages)
    assert any(p.startswith("1_Projects/") for p in pages)
    texts = {p: (demo.notebook_dir / p).read_text(encoding="utf-8") for p in pages}
    assert "[[" in texts["3_Personal/Preferences.md"]
    assert any(t.startswith("---\n") for t in texts.values())  # a page with frontmatter
    assert any("|---|" in t and "- [ ] " in t for t in texts.values())  # a table and a task list
    assert demo.schema_md.is_file() and demo.index_md.is_file()
    for core in demo.core_files:
        assert core.read_text(encoding="utf-8").strip()
    index = demo.index_md.read_text(encoding="utf-8")
    assert "[[Preferences]]" in index


def test_tombstones_hide_facts_that_are_in_the_logs(demo: Layout):
    stones = Tombstones(demo).contents()
    assert len(stones) >= 2
    logged = {" ".join(f.fact.content.lower().split()) for d in Archive(demo).dates() for f in Archive(demo).read(d).facts}
    assert stones <= logged


def test_demo_is_deterministic(tmp_path: Path):
    write_demo_home(tmp_path / "a", TODAY)
    write_demo_home(tmp_path / "b", TODAY)
    assert snapshot(tmp_path / "a") == snapshot(tmp_path / "b")
    assert demo_files(TODAY) == demo_files(TODAY)


def test_demo_is_marked(demo: Layout):
    assert is_demo_home(demo.home)
    assert json.loads((demo.home / DEMO_MARKER).read_text(encoding="utf-8"))["today"] == TODAY.isoformat()


def test_rewriting_a_demo_keeps_user_edits_and_restores_missing_files(demo: Layout):
    page = demo.notebook_dir / "3_Personal" / "Preferences.md"
    page.write_text("# Preferences\n\nMy own edit.\n", encoding="utf-8")
    removed = demo.notebook_dir / "3_Personal" / "Places.md"
    removed.unlink()
    report = write_demo_home(demo.home, TODAY + dt.timedelta(days=5))
    assert page.read_text(encoding="utf-8") == "# Preferences\n\nMy own edit.\n"
    assert removed.is_file() and report.created == 1
    assert Archive(demo).dates()[-1] == TODAY.isoformat()  # restored with the original dates


def test_refuses_a_non_empty_folder_that_is_not_a_demo(tmp_path: Path):
    real = tmp_path / "real"
    real.mkdir()
    (real / "notes.md").write_text("mine", encoding="utf-8")
    with pytest.raises(DemoError, match="not empty"):
        write_demo_home(real, TODAY)
    assert [p.name for p in real.iterdir()] == ["notes.md"]


def test_refuses_a_file_in_the_way(tmp_path: Path):
    target = tmp_path / "file"
    target.write_text("x", encoding="utf-8")
    with pytest.raises(DemoError, match="file"):
        write_demo_home(target, TODAY)


# -- through the command line ------------------------------------------------------------------
def test_demo_no_gui_then_status_and_search(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("SUZENT_TODAY", TODAY.isoformat())
    target = tmp_path / "demo"
    assert main(["--json", "demo", "--no-gui", str(target)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["home"] == str(target.resolve()) and doc["created"] > 30 and doc["gui"] is False
    assert main(["--home", str(target), "--json", "status"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["watermark"] == (TODAY - dt.timedelta(days=15)).isoformat()
    assert len(status["pending_dates"]) == 14 and TODAY.isoformat() not in status["pending_dates"]
    assert status["pending_facts"] >= 20
    assert main(["--home", str(target), "--json", "search", "where does the user work", "--limit", "20"]) == 0
    hits = json.loads(capsys.readouterr().out)
    texts = " ".join(h["text"] for h in hits)
    assert "Microsoft" in texts
    # tombstoned facts never come back
    assert main(["--home", str(target), "--json", "search", "door code", "--limit", "50"]) == 0
    assert all("4417" not in h["text"] for h in json.loads(capsys.readouterr().out))
    # consolidated days are not searched as raw log rows
    watermark = status["watermark"]
    assert all(h.get("date") is None or h["date"] > watermark for h in hits if h["source_type"] == "archive")


def test_demo_defaults_to_the_home_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    target = tmp_path / "via-home"
    assert main(["--home", str(target), "demo", "--no-gui"]) == 0
    assert is_demo_home(target)
    assert "Demo home written to" in capsys.readouterr().out


def test_demo_into_a_real_home_exits_one(home: Path, capsys: pytest.CaptureFixture[str]):
    (home / "config.toml").write_text("", encoding="utf-8")
    assert main(["demo", "--no-gui", str(home)]) == 1
    err = capsys.readouterr().err
    assert str(home) in err and "not a demo home" in err
    assert [p.name for p in home.iterdir()] == ["config.toml"]


def test_demo_opens_the_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import sys
    import types

    opened: list[Path] = []
    module = types.ModuleType("suzent_desktop.ui.base.app")
    module.run_app = lambda home: opened.append(home) or 0  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "suzent_desktop.ui.base.app", module)
    assert main(["demo", str(tmp_path / "d")]) == 0
    assert opened == [(tmp_path / "d").resolve()]


def test_demo_defaults_to_suzent_home(home: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["demo", "--no-gui"]) == 0  # the home fixture sets SUZENT_HOME to an empty folder
    assert is_demo_home(home)


def test_entry_point_end_to_end(tmp_path: Path):
    """The installed command path: ``python -m suzent_desktop`` in a fresh process."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "SUZENT_TODAY": TODAY.isoformat(), "SUZENT_EMBEDDING_MODEL": "hashing"}
    env.pop("SUZENT_HOME", None)
    target = tmp_path / "e2e"

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "suzent_desktop", *args], capture_output=True, text=True, env=env)

    assert cli("demo", "--no-gui", str(target)).returncode == 0
    status = cli("--home", str(target), "status", "--json")
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["watermark"] == (TODAY - dt.timedelta(days=15)).isoformat()
    bad = cli("--home", str(target), "search")
    assert bad.returncode == 2 and "usage:" in bad.stderr
