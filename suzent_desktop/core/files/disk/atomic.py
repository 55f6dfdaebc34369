"""Atomic file replacement: a reader sees either the old file or the new one, never half of each.

The temp file sits beside its target as ``.NAME.XXXXXXXX.tmp`` (``tempfile``'s eight random
characters). A process killed between writing it and renaming it leaves it behind;
:func:`sweep_temp_files` removes such leftovers on the next start, and only files of that
exact pattern that are older than every write still running.

A replaced file keeps its mode; a new file gets the mode the umask gives (0644 under the
usual 022), like any file the user's editor would create, not mkstemp's private 0600.
"""

from __future__ import annotations

import itertools
import os
import re
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from suzent_desktop.core.files.disk.faults import crash_point

# A write older than this is not running in any process: every write is bounded in size
# (tool writes, pages, state files) and takes well under a second.
STALE_TEMP_SECONDS = 120.0
_TEMP_RE = re.compile(r"^\.(?P<target>.+)\.[a-z0-9_]{8}\.tmp$")
_SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules"})

_running: dict[int, float] = {}  # write number -> wall-clock start, for writes in this process
_running_lock = threading.Lock()
_numbers = itertools.count()


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write to a temp file in the same folder, fsync, then rename over the target."""
    path.parent.mkdir(parents=True, exist_ok=True)
    number = next(_numbers)
    with _running_lock:
        _running[number] = time.time()
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            crash_point("atomic.before_rename")
            os.chmod(tmp, path.stat().st_mode & 0o7777 if path.exists() else new_file_mode())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    finally:
        with _running_lock:
            _running.pop(number, None)


def current_umask() -> int:
    """The process umask, read without changing it where the system allows (Linux /proc)."""
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # elsewhere: set and restore at once
    os.umask(mask)
    return mask


def new_file_mode() -> int:
    """The mode ``open()`` would give a new file: 0666 less the umask."""
    return 0o666 & ~current_umask()


def atomic_write_text(path: Path, text: str) -> None:
    """Text is written as UTF-8 with the newlines exactly as given (no platform translation)."""
    atomic_write_bytes(path, text.encode("utf-8"))


def is_temp_name(name: str) -> bool:
    """True for the names :func:`atomic_write_bytes` gives its temp files (and nothing else)."""
    return _TEMP_RE.match(name) is not None


def _cutoff(older_than: float) -> float:
    """Temp files modified before this moment belong to no running write."""
    limit = time.time() - older_than
    with _running_lock:
        if _running:
            limit = min(limit, min(_running.values()) - 1.0)
    return limit


def _candidates(folder: Path, recursive: bool) -> Iterator[Path]:
    if not folder.is_dir():
        return
    if not recursive:
        for entry in os.scandir(folder):
            if entry.is_file(follow_symlinks=False):
                yield Path(entry.path)
        return
    for parent, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS and not d.endswith(".lance")]
        for name in files:
            yield Path(parent) / name


def sweep_temp_files(
    folders: Iterable[tuple[Path, bool]], *, older_than: float = STALE_TEMP_SECONDS
) -> list[Path]:
    """Remove leftover temp files of interrupted atomic writes; returns what was removed.

    ``folders`` are ``(folder, recursive)`` pairs. Only names of this module's own pattern
    are touched, never a symlink, and only files older than ``older_than`` seconds and
    older than every write this process has running.
    """
    cutoff = _cutoff(older_than)
    removed: list[Path] = []
    seen: set[Path] = set()
    for folder, recursive in folders:
        for path in _candidates(Path(folder), recursive):
            if path in seen or not is_temp_name(path.name):
                continue
            seen.add(path)
            try:
                st = path.lstat()
                if not os.path.isfile(path) or os.path.islink(path) or st.st_mtime >= cutoff:
                    continue
                path.unlink()
            except OSError:
                continue  # gone already, or not ours to remove (permissions): left alone
            removed.append(path)
    return removed
