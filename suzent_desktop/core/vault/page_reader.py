"""One part of a page, read as a stream: an agent's ``read_page`` never holds the whole file.

A 1 GB page once took the MCP server from 300 MB to 2.3 GB to return 60,000 characters of
it. Here the file is decoded chunk by chunk: characters before ``offset`` are counted and
dropped, the part is kept, the rest only counted (for ``total_chars``), so memory holds one
chunk and the part. A file whose start looks binary (``core/text.looks_binary``) is refused
before any of that, and so is text that is not UTF-8, named by its byte.
"""

from __future__ import annotations

import codecs
from pathlib import Path

from suzent_desktop.core.files.disk.regular import open_regular
from suzent_desktop.core.files.disk.text_hygiene import BINARY_SAMPLE_BYTES, looks_binary

CHUNK_BYTES = 1 << 20


class UnservablePage(ValueError):
    """A page that is binary or not UTF-8: refused, never served as a guess."""


def read_part(path: Path, shown: str, offset: int, limit: int) -> tuple[str, int]:
    """Characters ``offset`` to ``offset + limit`` of the page, and how many it has in all."""
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    part: list[str] = []
    seen = kept = 0
    consumed = 0
    with open(open_regular(path), "rb") as handle:  # a FIFO is never opened: it would block
        head = handle.read(BINARY_SAMPLE_BYTES)
        if looks_binary(head):
            raise UnservablePage(f"{shown}: looks like a binary file; only text pages are served")
        chunk = head
        while True:
            try:
                text = decoder.decode(chunk, final=not chunk)
            except UnicodeDecodeError as exc:
                raise UnservablePage(f"{shown}: not valid UTF-8 (byte {consumed + exc.start})") from exc
            consumed += len(chunk)
            if kept < limit and seen + len(text) > offset:
                start = max(0, offset - seen)
                piece = text[start : start + limit - kept]
                part.append(piece)
                kept += len(piece)
            seen += len(text)
            if not chunk:
                return "".join(part), seen
            chunk = handle.read(CHUNK_BYTES)
