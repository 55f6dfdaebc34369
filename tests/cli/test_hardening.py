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
