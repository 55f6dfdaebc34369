"""A FIFO (or any special file) in the vault is named and never opened: no command hangs on it."""

from __future__ import annotations

import json
import os
import socket
import threading
from pathlib import Path

import pytest
from test_cli import run

from suzent_desktop.cli import main
from suzent_desktop.core.files.disk.confine import Confinement, refused_entries
from suzent_desktop.core.files.disk.regular import NotRegularFile, read_regular

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are a POSIX thing")

HANG_S = 60.0  # a loaded machine; a command that reads the FIFO never returns at all


def _release(fifo: Path) -> None:
    """Unblock a reader stuck opening ``fifo`` (the old code), so the test fails instead of hanging."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:
        pass


def run_bounded(capsys: pytest.CaptureFixture[str], home: Path, fifo: Path, *args: str) -> tuple[int, str, str]:
    result: list[tuple[int, str, str]] = []
    worker = threading.Thread(target=lambda: result.append(run(capsys, home, *args)), daemon=True)
    worker.start()
    worker.join(HANG_S)
    while worker.is_alive():
        _release(fifo)
        worker.join(1.0)
    assert result, f"{' '.join(args)} hung on a FIFO"
    return result[0]


@pytest.fixture
def fifo_home(home: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    main(["--home", str(home), "remember", "Alice drinks green tea every morning"])
    fifo = home / "notebook" / "2_Wiki" / "pipe.md"
    os.mkfifo(fifo)
    capsys.readouterr()
    return home, fifo


def test_the_walk_names_a_fifo_and_never_yields_it(tmp_path: Path):
    os.mkfifo(tmp_path / "pipe.md")
    (tmp_path / "page.md").write_text("a page\n", encoding="utf-8")
    assert refused_entries(tmp_path, Confinement.of(tmp_path)) == [
        ("pipe.md", "is a FIFO (named pipe), not a regular file; only regular files are read")]


def test_a_socket_is_named_like_a_fifo(tmp_path: Path):
    path = tmp_path / "s.md"
    with socket.socket(socket.AF_UNIX) as server:
        try:
            server.bind(str(path))
        except OSError:
            pytest.skip("no unix sockets here")
        assert refused_entries(tmp_path, Confinement.of(tmp_path))[0][1].startswith("is a socket")


def test_reading_a_fifo_is_refused_without_blocking(tmp_path: Path):
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFile, match="pipe.md: is a FIFO"):
        read_regular(fifo)


@pytest.mark.parametrize("command", [("reindex",), ("lint",), ("doctor",), ("dream", "--force"), ("search", "tea")])
def test_no_command_hangs_on_a_fifo_page(fifo_home: tuple[Path, Path], capsys, command: tuple[str, ...]):
    home, fifo = fifo_home
    code, out, err = run_bounded(capsys, home, fifo, *command)
    assert code == 0, err
    if command[0] == "search":
        assert "green tea" in out


def test_lint_and_doctor_name_the_fifo(fifo_home: tuple[Path, Path], capsys):
    home, fifo = fifo_home
    code, out, _err = run_bounded(capsys, home, fifo, "--json", "lint")
    assert code == 0
    assert any(f["path"] == "2_Wiki/pipe.md" and "FIFO" in json.dumps(f) for f in json.loads(out)["findings"])
    code, out, _err = run_bounded(capsys, home, fifo, "doctor")
    assert "pipe.md" in out and "FIFO" in out


async def test_mcp_search_answers_beside_a_fifo(fifo_home: tuple[Path, Path]):
    import asyncio

    from mcp_support import mcp_session

    home, fifo = fifo_home
    with open(os.devnull, "w") as quiet:
        async with mcp_session(home, errlog=quiet) as session:
            try:
                result = await asyncio.wait_for(session.call_tool("search_memory", {"query": "green tea"}), HANG_S)
            except TimeoutError:
                _release(fifo)
                raise
    assert "green tea" in json.dumps([c.model_dump() for c in result.content])


def test_a_file_swapped_for_a_fifo_after_the_stat_is_refused_without_blocking(tmp_path: Path, monkeypatch):
    from suzent_desktop.core.files.disk import regular

    page = tmp_path / "page.md"
    os.mkfifo(page)
    # It was a regular file when checked, and a FIFO by the open: the open must not wait for a writer.
    monkeypatch.setattr(regular, "check_regular", lambda path, limit=None: None)
    with pytest.raises(NotRegularFile, match="is a FIFO"):
        read_regular(page)
