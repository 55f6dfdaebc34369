"""One window per home: a second start on an open home brings its window forward and exits 0."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from ui_support import WAIT_MS, run

from suzent_desktop.ui.base.app import _run_window
from suzent_desktop.ui.base.single_window import HomeServer, bring_to_front, hand_over, server_name

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def held(qtbot, home: Path):
    """The home as an open window holds it."""
    server = HomeServer(home)
    assert server.claim()
    yield server
    server.close()


def _start(*args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.Popen([sys.executable, "-m", "suzent_desktop", *args], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_the_name_is_the_same_for_every_spelling_of_the_home(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "home")
    assert server_name(tmp_path / "home") == server_name(tmp_path / "link") == server_name(tmp_path / "x" / ".." / "home")
    assert server_name(tmp_path / "home") != server_name(tmp_path)


@pytest.mark.parametrize("command", ["gui", "demo"])
def test_a_second_start_on_an_open_home_brings_the_window_forward_and_exits_0(qtbot, held, home: Path,
                                                                               command: str) -> None:
    args = ["--home", str(home), "gui"] if command == "gui" else ["demo", str(home)]
    if command == "demo":
        (home / ".suzent").mkdir(exist_ok=True)
        (home / ".suzent" / "demo").write_text("", encoding="utf-8")  # a demo home: written again, edits kept
    with qtbot.waitSignal(held.raise_requested, timeout=WAIT_MS):
        process = _start(*args)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert f"{home} is already open in a window: it was brought to the front." in out
    assert not (home / "notebook" / ".suzent").exists() or command == "demo"


def test_open_names_the_vault_of_an_open_home(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from suzent_desktop.core.files.paths.vaults import open_folder

    vault = tmp_path / "Vault"
    vault.mkdir()
    (vault / "Note.md").write_text("# Note\n", encoding="utf-8")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    server = HomeServer(open_folder(vault))
    assert server.claim()
    try:
        with qtbot.waitSignal(server.raise_requested, timeout=WAIT_MS):
            process = _start("open", str(vault))
        out, err = process.communicate(timeout=60)
    finally:
        server.close()
    assert process.returncode == 0, err
    assert "already open in a window" in out


def test_a_window_that_starts_second_hands_over_before_opening_the_home(loop, qtbot, held, home: Path,
                                                                         capsys) -> None:
    """Two starts at once: the one that loses the socket opens no services (no indexer, no dream runner)."""
    with qtbot.waitSignal(held.raise_requested, timeout=WAIT_MS):
        code = run(qtbot, _run_window(home))
    assert code == 0
    assert "already open in a window" in capsys.readouterr().err
    assert not (home / ".suzent" / "memory").exists()  # no index was opened


def test_a_second_claim_fails_and_the_socket_is_free_again_after_close(qtbot, home: Path) -> None:
    first = HomeServer(home)
    assert first.claim()
    second = HomeServer(home)
    with qtbot.waitSignal(first.raise_requested, timeout=WAIT_MS):
        assert not second.claim()
    first.close()
    assert not hand_over(home)
    assert second.claim()
    second.close()


def test_a_minimised_window_comes_back(qtbot) -> None:
    from PySide6.QtWidgets import QMainWindow

    window = QMainWindow()
    qtbot.addWidget(window)
    window.showMinimized()
    qtbot.waitUntil(window.isMinimized)
    bring_to_front(window)
    qtbot.waitUntil(lambda: not window.isMinimized() and window.isVisible())


CLAIM = """
import sys, time
from pathlib import Path
from PySide6.QtCore import QCoreApplication
from suzent_desktop.ui.base.single_window import HomeServer
app = QCoreApplication([])
server = HomeServer(Path(sys.argv[1]))
print(server.claim(), flush=True)
end = time.monotonic() + 3
while time.monotonic() < end:
    app.processEvents()
    time.sleep(0.01)
"""


def test_of_two_starts_at_once_exactly_one_holds_the_home(home: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "QT_QPA_PLATFORM": "offscreen"}
    starts = [subprocess.Popen([sys.executable, "-c", CLAIM, str(home)], env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(4)]
    answers = [start.communicate(timeout=60)[0].strip() for start in starts]
    assert sorted(answers) == ["False", "False", "False", "True"], answers
