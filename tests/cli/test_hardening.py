"""Command-line faces of the hardening work: a future watermark is named where the user looks."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_cli import run

from suzent_desktop.cli import main


def test_status_names_a_future_watermark_line(home: Path, capsys: pytest.CaptureFixture[str]):
    main(["--home", str(home), "status"])
    log_md = home / "notebook" / "log.md"
    with log_md.open("a", encoding="utf-8") as handle:
        handle.write("\n## [2026-07-01] ingest | by hand  watermark=2030-01-01\n")
    line = log_md.read_text(encoding="utf-8").count("\n")
    capsys.readouterr()
    code, _out, err = run(capsys, home, "status")
    assert code == 0 and f"log.md:{line}" in err and "watermark=2030-01-01" in err
