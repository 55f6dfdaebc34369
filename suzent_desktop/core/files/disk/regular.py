"""Only regular files are read, and a page has a size limit: no file in the vault can hang or swamp the app.

A FIFO named ``notes.md`` blocks the first ``open()`` until someone writes to it, a character
device never ends, and a socket cannot be opened at all: one such entry, put in a cloned or
synced folder, once hung ``reindex``, ``lint``, ``doctor``, ``dream`` and MCP search. So a path
is statted before it is opened, and only a regular file is opened, with ``O_NONBLOCK`` so a file
swapped for a FIFO between the stat and the open cannot block either; the opened file is
checked again (``fstat``) before a byte is read.

A page is read whole to be indexed, outlined and searched, and that costs many times its size
in memory (rows, normalized text, tokens). :data:`PAGE_LIMIT_BYTES` bounds it: a bigger file is
named and left out, never half read. 8 MiB is two and a half times "War and Peace"; indexing
a page that size peaks near 500 MB (``bench/large_page.py``), and Obsidian itself grows slow
long before it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

PAGE_LIMIT_BYTES = 8 * 1024 * 1024
_READ_CHUNK = 1 << 20
BINARY = getattr(os, "O_BINARY", 0)  # Windows only: bytes as they are, no \n → \r\n

_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a folder"),
)


class NotRegularFile(OSError):
    """A special file (FIFO, socket, device) where a file was expected: never opened."""


class FileTooLarge(OSError):
    """A file over the size limit: left out whole, never half read."""


def special_kind(mode: int) -> str | None:
    """What a non-regular file is ("a FIFO (named pipe)", "a socket", ...), None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def not_regular_reason(kind: str) -> str:
    """How the walk and every reader name a special file (the same words in doctor, lint and the index)."""
    return f"is {kind}, not a regular file; only regular files are read"


def too_large_reason(size: int, limit: int = PAGE_LIMIT_BYTES) -> str:
    return (f"is {size / 1048576:.1f} MiB, over the {limit // 1048576} MiB limit for a page; "
            "left out of the index (split it into smaller pages)")


def check_regular(path: Path | str, *, limit: int | None = None) -> os.stat_result:
    """The file's stat when it is a regular file (within ``limit`` bytes when given); else
    :class:`NotRegularFile` or :class:`FileTooLarge` naming the path. Links are followed."""
    info = os.stat(path)
    _judge(path, info, limit)
    return info


def _judge(path: Path | str, info: os.stat_result, limit: int | None) -> None:
    kind = special_kind(info.st_mode)
    if kind is not None:
        raise NotRegularFile(f"{path}: {not_regular_reason(kind)}")
    if limit is not None and info.st_size > limit:
        raise FileTooLarge(f"{path}: {too_large_reason(info.st_size, limit)}")


def read_descriptor(fd: int) -> bytes:
    """The whole file behind ``fd``, read through it: a file locked on Windows cannot be read
    through another handle, even by the process holding the lock."""
    os.lseek(fd, 0, os.SEEK_SET)
    chunks: list[bytes] = []
    while chunk := os.read(fd, _READ_CHUNK):
        chunks.append(chunk)
    return b"".join(chunks)


def open_regular(path: Path | str, *, limit: int | None = None) -> int:
    """A read-only descriptor of a regular file, checked before and after opening (``O_NONBLOCK``:
    a FIFO swapped in after the stat cannot block the open). The caller closes it."""
    check_regular(path, limit=limit)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | BINARY)  # Windows has no FIFOs
    try:
        _judge(path, os.fstat(fd), limit)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: Path | str, *, limit: int | None = None) -> bytes:
    """The bytes of a regular file (``Path.read_bytes`` for files that may be special or huge).

    A file that grows past ``limit`` while it is read is refused as too large too.
    """
    fd = open_regular(path, limit=limit)
    with open(fd, "rb", buffering=0, closefd=True) as handle:
        if limit is None:
            return handle.read()
        parts: list[bytes] = []
        total = 0
        while chunk := handle.read(min(_READ_CHUNK, limit + 1 - total)):
            parts.append(chunk)
            total += len(chunk)
            if total > limit:
                raise FileTooLarge(f"{path}: {too_large_reason(total, limit)}")
        return b"".join(parts)


def read_page(path: Path | str) -> bytes:
    """A page's bytes, within :data:`PAGE_LIMIT_BYTES`."""
    return read_regular(path, limit=PAGE_LIMIT_BYTES)
