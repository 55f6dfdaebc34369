"""Daily logs: the append-only raw record of what was captured.

This module is the only writer of ``archive/*.md``. Appends take a per-file lock (a
thread lock for this process, ``flock`` for other processes such as the CLI running next
to the app) and go out as a single ``write`` so two turns never interleave.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import re
import threading
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from filelock import lock_descriptor, unlock_descriptor

from suzent_desktop.core.files.disk.regular import BINARY, read_descriptor, read_regular
from suzent_desktop.core.files.disk.text_hygiene import clean
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.records.log_grammar import (
    DEFAULT_CATEGORY,
    TURN_TAG,
    Fact,
    FactLine,
    ParsedLog,
    format_fact_line,
    format_log_header,
    format_turn_header,
    parse_log,
)
from suzent_desktop.core.files.sync import streams

_DATE_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}\.md$")
_CATEGORY_JUNK = re.compile(r"[^a-z0-9_-]+")
_locks: dict[Path, threading.Lock] = {}
_locks_guard = threading.Lock()


class ArchiveError(ValueError):
    """A daily log cannot be read (bad encoding); the message names the file."""


@dataclass(frozen=True)
class InvalidLogFile:
    path: Path
    reason: str


def _lock_for(path: Path) -> threading.Lock:
    with _locks_guard:
        return _locks.setdefault(path.resolve(), threading.Lock())


class Archive:
    def __init__(self, layout: Layout) -> None:
        self.layout = layout

    @property
    def folder(self) -> Path:
        return self.layout.archive_dir

    def path_for(self, date: dt.date | str) -> Path:
        return self.layout.daily_log(date if isinstance(date, str) else date.isoformat())

    def dates(self) -> list[str]:
        """ISO dates of every well-named log (any device's, or a conflict copy of one), oldest first."""
        return streams.dated_bases(self.folder, ".md")

    def parts(self, date: str) -> list[Path]:
        """Every file of that day: this home's first device's, the other devices', conflict copies."""
        return [p.path for p in streams.parts(self.folder, ".md", date)]

    def digest(self, date: str) -> str:
        """A fingerprint of the day's parts; an append to any of them changes it."""
        return streams.digest(self.parts(date))

    def invalid_files(self) -> list[InvalidLogFile]:
        """Files in the archive folder that are not ``YYYY-MM-DD.md`` with a real date (for ``doctor``)."""
        bad: list[InvalidLogFile] = []
        if not self.folder.is_dir():
            return bad
        for entry in sorted(self.folder.iterdir()):
            if entry.name.startswith(".") or entry.is_dir():
                continue
            part = streams.parse_part(entry.name, ".md")
            if part is None or not _DATE_NAME.match(part.base + ".md"):
                bad.append(InvalidLogFile(entry, "name is not YYYY-MM-DD.md (or YYYY-MM-DD@DEVICE.md); ignored"))
                continue
            try:
                dt.date.fromisoformat(part.base)
            except ValueError:
                bad.append(InvalidLogFile(entry, "name is not a real calendar date; ignored"))
        return bad

    def read_text(self, date: str) -> str:
        """The day's log: its one file as it is, or every device's part merged in time order."""
        paths = self.parts(date) or [self.path_for(date)]
        texts: list[str] = []
        for path in paths:
            try:
                texts.append(read_regular(path).decode("utf-8-sig"))
            except UnicodeDecodeError as exc:
                raise ArchiveError(f"{path}: not valid UTF-8 at byte {exc.start}; file left untouched") from exc
            except FileNotFoundError:
                if len(paths) == 1:
                    raise
        return streams.merge_logs(date, texts)

    def read(self, date: str) -> ParsedLog:
        return parse_log(self.read_text(date))

    def append_turn(
        self,
        facts: Iterable[Fact],
        *,
        session_id: str,
        when: dt.datetime,
        turn: str | None = None,
    ) -> tuple[Path, list[int]]:
        """Append one turn block to ``when``'s log; return the file and the new facts' line numbers.

        With ``turn`` (the capture path): when the log already holds facts of that turn (a client
        retried a capture: same session, time and words, so the same turn id), nothing is
        written and their lines are returned.
        """
        facts = [_writable(f) for f in facts]
        if not facts:
            return self.path_for(when.date()), []
        path = self.path_for(when.date())
        session = "-".join(session_id.split()) or "unknown"  # a space would make the header unparsable
        block_lines = ["", format_turn_header(when.strftime("%H:%M"), session), ""]
        block_lines += [format_fact_line(f) for f in facts]
        with _lock_for(path):
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | BINARY, 0o666)  # the umask decides, as for any new file
            try:
                lock_descriptor(fd)  # appends from other processes wait their turn
                existing = read_descriptor(fd)
                earlier = turn_facts(existing, turn) if turn else []
                if earlier:
                    return path, [f.line for f in earlier]
                prefix = ""
                if not existing:
                    prefix = format_log_header(when.date().isoformat()) + "\n"
                elif not existing.endswith(b"\n"):
                    prefix = "\n"
                existing_lines = existing.count(b"\n")
                payload = prefix + "\n".join(block_lines) + "\n"
                os.write(fd, payload.encode("utf-8"))
            finally:
                unlock_descriptor(fd)
                os.close(fd)
        first_fact_line = existing_lines + payload.count("\n") - len(facts) + 1
        return path, list(range(first_fact_line, first_fact_line + len(facts)))


def _writable(fact: Fact) -> Fact:
    """A fact whose line reads back as itself: a category the grammar accepts, tags without spaces.

    Control characters (a NUL in a captured turn) never reach the log: see ``core/files/disk/text_hygiene.py``.
    """
    content = clean(fact.content)
    if content != fact.content:
        fact = dataclasses.replace(fact, content=" ".join(content.split()))
    ascii_text = unicodedata.normalize("NFKD", fact.category).encode("ascii", "ignore").decode("ascii")
    category = _CATEGORY_JUNK.sub("-", ascii_text.strip().lower()).strip("-_")
    if not category or not category[0].isalpha():
        category = DEFAULT_CATEGORY
    tags = tuple(t for tag in fact.tags for t in clean(tag).replace("`", "").split())
    if category == fact.category and tags == fact.tags:
        return fact
    return dataclasses.replace(fact, category=category, tags=tags)


def turn_facts(data: bytes, turn: str) -> list[FactLine]:
    """The fact lines of one log file that came from the turn ``turn``."""
    if f"{TURN_TAG}{turn}".encode() not in data:
        return []
    return [f for f in parse_log(data.decode("utf-8-sig", "replace")).facts if f.fact.turn == turn]
