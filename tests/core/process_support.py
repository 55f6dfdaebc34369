"""Run a function in several spawned processes at once, as separate app instances would."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence


def run_in_processes(target: Callable[..., object], argsets: Sequence[tuple], timeout: float = 60) -> None:
    """``target(*args)`` in one fresh process per ``args``, all started before any is awaited; each must exit 0."""
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=target, args=args) for args in argsets]
    for process in workers:
        process.start()
    for process in workers:
        process.join(timeout)
        assert process.exitcode == 0
