"""A FIFO (or any special file) in the memory folder is refused by name at every reader: none waits on it."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from dream_support import make_manager

from suzent_desktop.core import operations
from suzent_desktop.core.engines.forgetting import ForgetJournal
from suzent_desktop.core.engines.ledger import late_facts, lost_facts
from suzent_desktop.core.files.disk.regular import NotRegularFile
from suzent_desktop.core.files.records.transcripts import Transcripts

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are a POSIX thing")

HANG_S = 30.0  # a loaded machine; a reader that opens the FIFO never returns at all


def bounded(fifo: Path, call: Callable[[], Any]) -> Any:
    """``call()``'s result (or the exception it raised); fails when it waited on ``fifo``."""
    result: list[Any] = []

    def work() -> None:
        try:
            result.append(call())
        except Exception as exc:  # noqa: BLE001 - handed back to the test
            result.append(exc)

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(HANG_S)
    hung = worker.is_alive()
    while worker.is_alive():  # unblock the old code's open, so the test fails instead of hanging
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
        worker.join(1.0)
    assert not hung, f"{call} waited on the FIFO {fifo.name}"
    return result[0]


@pytest.fixture
def manager(home: Path, clock):
    return make_manager(home, clock)


def _fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    os.mkfifo(path)
    return path


def test_memory_md_as_a_fifo_is_named(manager):
    fifo = _fifo(manager.layout.memory_md)
    found = bounded(fifo, lambda: operations.read_memory_md(manager))
    assert isinstance(found, NotRegularFile) and "MEMORY.md: is a FIFO" in str(found)


def test_the_forget_journal_as_a_fifo_is_named(manager):
    fifo = _fifo(manager.layout.forget_journal_file)
    journal = ForgetJournal(fifo, vault=manager.layout.notebook_dir, memory=manager.layout.memory_dir)
    found = bounded(fifo, lambda: journal._append([{"id": "x"}]))
    assert isinstance(found, NotRegularFile)


def test_a_transcript_as_a_fifo_is_named(manager):
    transcripts = Transcripts(manager.layout)
    fifo = _fifo(transcripts.path_for("2026-07-19"))
    found = bounded(fifo, lambda: transcripts.read("2026-07-19"))
    assert isinstance(found, NotRegularFile)


@pytest.mark.parametrize("module", [lost_facts, late_facts], ids=["lost_facts", "late_facts"])
def test_a_state_record_as_a_fifo_reads_as_empty(manager, module):
    fifo = _fifo(module._path(manager.layout))
    assert not bounded(fifo, lambda: module.load(manager.layout))
