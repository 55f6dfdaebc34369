"""Progress bars for long work on the command line: a tqdm bar on a terminal, nothing otherwise
(a model download says a line on a pipe: it is long and happens once).

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

    def __init__(self, label: str, stream: IO[str], *, unit: str = "file") -> None:
        self.label = label
        self.stream = stream
        self.unit = unit  # "file" (an index pass) or "B" (a download, drawn in kB/MB)
        self._bar: Any = None
        self._lock = threading.Lock()  # index passes report from worker threads

    def __call__(self, done: int, total: int, what: str = "") -> None:
        from tqdm import tqdm

        with self._lock:
            if total <= 0:
                return
            if self._bar is None or self._bar.total != total:
                self.close()
                counted = " files" if self.unit == "file" else self.unit
                self._bar = tqdm(total=total, desc=self.label, unit=self.unit, unit_scale=self.unit == "B",
                                 file=self.stream, leave=True, dynamic_ncols=True,
                                 bar_format=f"{{desc}}: {{bar}} {{n_fmt}}/{{total_fmt}}{counted} "
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


class DownloadNotice:
    """A download's progress where no bar can be drawn (a pipe): one line when each file starts,
    on stderr, so a long first run says why it waits while stdout stays one document."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self._started: set[str] = set()

    def __call__(self, done: int, total: int, what: str = "") -> None:
        if what not in self._started:
            self._started.add(what)
            print(f"Downloading {what} ({total / 1e6:.1f} MB), once", file=self.stream, flush=True)

    def close(self) -> None:
        pass


def download_progress(stream: IO[str], *, as_json: bool) -> TerminalProgress | DownloadNotice | None:
    """A model download's bytes: a bar on a terminal, a line per file on a pipe, nothing for ``--json``."""
    if as_json:
        return None
    isatty = getattr(stream, "isatty", None)
    if isatty is not None and isatty():
        return TerminalProgress("Downloading the embedding model", stream, unit="B")
    return DownloadNotice(stream)


def download_model(embedder: Any, stream: IO[str], *, as_json: bool) -> None:
    """Fetch the files a model named in config.toml still lacks before any pass, its bytes shown
    (Ctrl-C stops it and keeps nothing); a model that needs no download returns at once."""
    from suzent_desktop.core.operations import download_model as fetch

    progress = download_progress(stream, as_json=as_json)
    try:
        fetch(embedder, progress)
    finally:
        if progress is not None:
            progress.close()


def show_downloads(embedder: Any, stream: IO[str], *, as_json: bool) -> None:
    """Any command whose first use of the model downloads it (``remember``, ``search``) shows its bytes too."""
    if hasattr(embedder, "download_progress"):
        embedder.download_progress = download_progress(stream, as_json=as_json)
