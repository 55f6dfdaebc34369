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


class _Terminal(__import__("io").StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_a_progress_bar_with_counts_and_a_pipe_or_json_gets_none() -> None:
    import io

    from suzent_desktop.cli_progress import terminal_progress

    screen = _Terminal()
    bar = terminal_progress("Indexing", screen, as_json=False)
    assert bar is not None
    for done in range(6):
        bar(done, 5, f"page {done}.md")
    assert "5/5" in screen.getvalue() and "Indexing" in screen.getvalue()
    assert terminal_progress("Indexing", io.StringIO(), as_json=False) is None
    assert terminal_progress("Indexing", _Terminal(), as_json=True) is None


def test_a_first_search_of_a_big_vault_is_quiet_when_piped(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    vault = home / "notebook"
    vault.mkdir()
    for number in range(12):
        (vault / f"Page {number}.md").write_text(f"# Page {number}\n\nBeans grow in row {number}.\n", encoding="utf-8")
    assert main(["--home", str(home), "search", "beans"]) == 0
    captured = capsys.readouterr()
    assert "Page" in captured.out and captured.err == ""
