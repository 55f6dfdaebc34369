"""The command line's plain output is written for people: counts as words, no internal codes."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from suzent_desktop.cli import main


def test_status_and_dream_say_counts_in_words(home: Path, today: dt.date, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--home", str(home), "remember", "User likes green tea"]) == 0
    assert main(["--home", str(home), "status"]) == 0
    assert main(["--home", str(home), "dream"]) == 0
    assert main(["--home", str(home), "doctor"]) == 0
    out = capsys.readouterr().out
    assert "(s)" not in out and "nothing_pending" not in out and "no_change" not in out
    assert "1 fact" in out or "1 row" in out
