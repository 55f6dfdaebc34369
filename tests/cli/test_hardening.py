"""Command-line faces of the hardening work: a future watermark is named where the user looks."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from test_cli import run

from suzent_desktop.cli import main
from suzent_desktop.core.manager import MemoryManager


def test_status_names_a_future_watermark_line(home: Path, capsys: pytest.CaptureFixture[str]):
    main(["--home", str(home), "status"])
    notebook = MemoryManager.open(home).notebook
    notebook.append_ingest(dt.date(2026, 7, 1), "2030-01-01")
    line = notebook.entries()[-1].line
    capsys.readouterr()
    code, _out, err = run(capsys, home, "status")
    assert code == 0 and f"log.md:{line}" in err and "watermark=2030-01-01" in err


def test_a_dream_refused_by_a_future_watermark_exits_1(home: Path, capsys: pytest.CaptureFixture[str]):
    main(["--home", str(home), "status"])
    MemoryManager.open(home).notebook.append_ingest(dt.date(2026, 7, 1), "2030-01-01")
    capsys.readouterr()
    code, _out, err = run(capsys, home, "dream", "--force")
    assert code == 1 and "2030-01-01" in err


def test_a_dream_with_a_symlink_loop_in_the_vault_runs_and_lint_names_the_loop(home: Path, capsys):
    import os

    main(["--home", str(home), "lint"])  # a writing command: the vault is bootstrapped
    notebook = home / "notebook"
    os.symlink("loopB.md", notebook / "2_Wiki" / "loopA.md")
    os.symlink("loopA.md", notebook / "2_Wiki" / "loopB.md")
    capsys.readouterr()
    code, _out, err = run(capsys, home, "dream")
    assert code == 0 and "left out of the dream: 2_Wiki/loopA.md" in err  # named, never an error
    code, out, _err = run(capsys, home, "--json", "lint")
    import json

    assert code == 0 and {"2_Wiki/loopA.md", "2_Wiki/loopB.md"} <= {
        f["path"] for f in json.loads(out)["findings"] if f["kind"] == "not_followed"}
