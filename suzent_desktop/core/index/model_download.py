"""Model files fetched once, on first use, and kept only when they are the pinned bytes.

A model that no package ships is downloaded the first time it is needed into a cache folder
and loaded from there ever after, offline. Each file is pinned by its sha256 (and its size):
a file that does not match is refused, whoever served it, and nothing of it is kept, so a
changed or corrupted download can never put vectors from another space into the index.
Without a network the message says where to put the file by hand.

A download reports its bytes (``progress(done, total, name)``) and stops at the next block once
``cancel`` is set; a stopped download keeps nothing, so the model it was for is never used.
"""

from __future__ import annotations

import hashlib
import os
import threading
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

CHUNK = 1 << 20
TIMEOUT_SECONDS = 60.0

ProgressFn = Callable[[int, int, str], None]  # (bytes done, bytes in all, the file's name)


class ModelDownloadError(RuntimeError):
    """A model file could not be fetched, or was not the pinned bytes; the message says which and why."""


class DownloadCancelled(Exception):
    """The person stopped a download; nothing of it was kept."""


@dataclass(frozen=True)
class PinnedFile:
    """One file of a model: where it comes from and the only bytes accepted as it."""

    name: str  # the file's name in the cache folder
    url: str
    sha256: str
    max_bytes: int  # a download that grows past it is stopped and refused


def model_cache_dir() -> Path:
    """``$SUZENT_MODEL_DIR``, else the platform's user cache folder: models are shared by every home."""
    env = os.environ.get("SUZENT_MODEL_DIR", "").strip()
    if env:
        return Path(env).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("suzent-desktop", appauthor=False)) / "models"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_once(
    pinned: PinnedFile,
    folder: Path,
    *,
    timeout: float = TIMEOUT_SECONDS,
    progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
) -> Path:
    """The path of ``pinned`` in ``folder``, downloading it first when it is not there yet.

    A file already in the cache is checked against the pin on every load, like the bundled model.
    """
    target = folder / pinned.name
    if target.is_file():
        if sha256_of(target) != pinned.sha256:
            raise ModelDownloadError(
                f"{target}: checksum does not match the pinned model file; refusing to load it "
                f"(delete it to download it again)"
            )
        return target
    folder.mkdir(parents=True, exist_ok=True)
    # One name per writer: two processes (the window and a terminal) never write into one file.
    partial = target.with_name(f".{target.name}.{os.getpid()}-{threading.get_ident()}.part")
    try:
        got = _download(pinned, partial, timeout, progress, cancel)
        if got != pinned.sha256:
            raise ModelDownloadError(
                f"{pinned.url}: the downloaded file's sha256 is {got}, not the pinned {pinned.sha256}; "
                f"refused and not kept"
            )
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def _download(
    pinned: PinnedFile, partial: Path, timeout: float, progress: ProgressFn | None, cancel: threading.Event | None
) -> str:
    """Stream ``pinned.url`` into ``partial``; its sha256.

    Blocks are read as they arrive (``read1``), so progress moves and a cancel is seen while
    bytes flow; a link that stalls is bound by ``timeout``.
    """
    digest = hashlib.sha256()
    size = reported = 0
    _stop_if_cancelled(cancel, pinned)
    try:
        with urllib.request.urlopen(pinned.url, timeout=timeout) as response, partial.open("wb") as out:
            total = _expected_size(response.headers.get("Content-Length"), pinned.max_bytes)
            if progress:
                progress(0, total, pinned.name)
            for block in iter(lambda: response.read1(CHUNK), b""):
                _stop_if_cancelled(cancel, pinned)
                size += len(block)
                if size > pinned.max_bytes:
                    raise ModelDownloadError(
                        f"{pinned.url}: larger than the pinned {pinned.max_bytes} bytes; refused and not kept"
                    )
                digest.update(block)
                out.write(block)
                if progress and (size - reported >= CHUNK or size >= total):
                    reported = size
                    progress(size, max(total, size), pinned.name)
            if progress and reported != size:  # a server that announced no size: the bar still ends full
                progress(size, size, pinned.name)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise ModelDownloadError(
            f"cannot download {pinned.url} ({exc}). Without a network, put that file at "
            f"{partial.with_name(pinned.name)} (sha256 {pinned.sha256})"
        ) from exc
    return digest.hexdigest()


def _stop_if_cancelled(cancel: threading.Event | None, pinned: PinnedFile) -> None:
    if cancel is not None and cancel.is_set():
        raise DownloadCancelled(f"the download of {pinned.name} was cancelled")


def _expected_size(content_length: str | None, max_bytes: int) -> int:
    """The size the server announces, else the pin's bound (a bar that may end early, never overflow)."""
    try:
        announced = int(content_length or "")
    except ValueError:
        return max_bytes
    return announced if 0 < announced <= max_bytes else max_bytes
