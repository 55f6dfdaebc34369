"""Which lines of a page the program wrote, so a model's edit can tell a person's words from its own.

A vault has no git history, so the program keeps its own: after every productive dream the
runner records, per page, a short digest of each line that run added
(``.state/dream_lines.json``). A line whose exact text is recorded for its page is the
program's; any other line is a person's. Editing a recorded line by hand changes its text, so
it becomes the person's line from then on; moving or renaming a page forgets its record, so
all of its lines are treated as a person's. Both mistakes err on the side of keeping words.

Only the record's direction matters for safety: a crash before the record is written leaves the
run's lines looking like a person's (more protected, never less).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

from suzent_desktop.core.files.disk.atomic import atomic_write_text
from suzent_desktop.core.files.disk.regular import read_regular
from suzent_desktop.core.files.disk.text_hygiene import loads_json

FILE_NAME = "dream_lines.json"
VERSION = 1
DIGEST_CHARS = 16

Authored = Mapping[str, frozenset[str]]


def path_in(state_dir: Path) -> Path:
    return state_dir / FILE_NAME


def line_digest(line: str) -> str:
    """A line's identity: its text without the line ending or trailing blanks."""
    return hashlib.sha256(line.rstrip().encode("utf-8")).hexdigest()[:DIGEST_CHARS]


def page_lines(text: str) -> list[str]:
    """Non-blank lines of a page, without line endings."""
    return [line.rstrip("\r") for line in text.splitlines() if line.strip()]


def load(path: Path) -> dict[str, frozenset[str]]:
    """rel -> digests of the lines the program wrote on that page ({} when there is no record yet)."""
    try:
        data = loads_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    pages = data.get("pages") if isinstance(data, dict) else None
    if not isinstance(pages, dict):
        return {}
    return {rel: frozenset(d for d in digests if isinstance(d, str))
            for rel, digests in pages.items() if isinstance(rel, str) and isinstance(digests, list)}


def record(path: Path, root: Path, originals: Mapping[str, bytes | None]) -> None:
    """Add the lines a run added to the pages it wrote (``originals``: bytes before the run) and
    forget digests of lines that are no longer on those pages."""
    pages = {rel: set(digests) for rel, digests in load(path).items()}
    for rel, old in originals.items():
        file = root / rel
        try:
            now = read_regular(file).decode("utf-8-sig") if file.is_file() else None
        except (OSError, UnicodeDecodeError):
            continue
        if now is None:
            pages.pop(rel, None)
            continue
        before = set(page_lines(old.decode("utf-8-sig", errors="replace"))) if old is not None else set()
        lines = page_lines(now)
        present = {line_digest(line) for line in lines}
        added = {line_digest(line) for line in lines if line not in before}
        kept = (pages.get(rel, set()) & present) | added
        if kept:
            pages[rel] = kept
        else:
            pages.pop(rel, None)
    document = {"version": VERSION, "pages": {rel: sorted(d) for rel, d in sorted(pages.items())}}
    atomic_write_text(path, json.dumps(document, ensure_ascii=False) + "\n")
