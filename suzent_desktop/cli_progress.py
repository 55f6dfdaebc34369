"""Progress bars for long work on the command line: a tqdm bar on a terminal, nothing otherwise.

A bar is drawn on stderr only when stderr is a terminal and the output is not ``--json``, so a
piped or scripted run stays quiet and its stdout stays one document.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import IO, Any

ProgressFn = Callable[[int, int, str], None]


class TerminalProgress:
    """A ``progress(done, total, what)`` callable that draws one tqdm bar and closes it when done."""

    def __init__(self, label: str, stream: IO[str]) -> None:
        self.label = label
        self.stream = stream
        self._bar: Any = None
        self._lock = threading.Lock()  # index passes report from worker threads

    def __call__(self, done: int, total: int, what: str = "") -> None:
        from tqdm import tqdm

        with self._lock:
            if total <= 0:
                return
            if self._bar is None or self._bar.total != total:
                self.close()
                self._bar = tqdm(total=total, desc=self.label, unit="file", file=self.stream, leave=True,
                                 dynamic_ncols=True, bar_format="{desc}: {bar} {n_fmt}/{total_fmt} files "
                                                                "[{elapsed}<{remaining}] {postfix}")
            if what:
                self._bar.set_postfix_str(what[-40:], refresh=False)
            self._bar.update(max(0, min(done, total) - self._bar.n))
            if done >= total:
                self.close()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def terminal_progress(label: str, stream: IO[str], *, as_json: bool) -> TerminalProgress | None:
    """A bar on ``stream`` when it is a terminal and the output is for people; else None."""
    isatty = getattr(stream, "isatty", None)
    if as_json or isatty is None or not isatty():
        return None
    return TerminalProgress(label, stream)
