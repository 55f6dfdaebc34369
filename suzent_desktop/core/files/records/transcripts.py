"""Verbatim transcripts: every captured turn, word for word, so nothing a user said is lost.

Extraction keeps a few facts per turn and may miss the one that matters later; the
transcript keeps the turn itself. One file per day, ``memory/transcripts/YYYY-MM-DD.jsonl``,
one JSON object per line::

    {"id": "3f9c2a7be01d", "ts": "2026-07-01T14:05:09+02:00", "session": "abc12345-…",
     "user": "…", "assistant": "…"}

Optional keys say how a doubtful turn was handled: ``"ts_note": "missing"`` (no timestamp
was given; ``ts`` is the capture time) or ``"ts_note": "future"`` with ``"claimed_ts"``
(a timestamp after the capture time; the turn is filed at the capture time).

The file is append-only and never rewritten. Each turn is one ``write`` of one whole line
on a file opened with ``O_APPEND`` under an exclusive ``flock``, so turns captured at the
same moment by several processes each land once, whole. The id is derived from the turn
(session, time, both sides): capturing the very same turn again is recognised and writes
nothing. Each fact line extracted from a turn carries the tag ``turn:ID``, the exact link
from a fact back to the words it came from.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from filelock import lock_descriptor, unlock_descriptor

from suzent_desktop.core.files.disk.regular import BINARY, read_descriptor, read_regular
from suzent_desktop.core.files.disk.text_hygiene import clean, loads_json
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.records.log_grammar import TURN_TAG
from suzent_desktop.core.files.sync import streams

_DATE_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})\.jsonl$")


class TranscriptError(ValueError):
    """A turn cannot be kept (both sides empty); the message says why."""


@dataclass(frozen=True)
class TranscriptTurn:
    """One kept turn, and where it stands (``line`` is 1-based in its day's file)."""

    id: str
    ts: str
    session: str
    user: str
    assistant: str
    path: Path
    line: int

    @property
    def date(self) -> str:
        return self.path.stem


@dataclass
class TranscriptFile:
    """A parsed day file: its turns, and the lines that are not turns (reported, never dropped)."""

    turns: list[TranscriptTurn]
    bad_lines: list[tuple[int, str]]


def turn_id(session: str, ts: str, user: str, assistant: str) -> str:
    """Stable for the same turn, so a retried capture is recognised instead of kept twice."""
    key = "\x00".join((session, ts, user, assistant)).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(key, digest_size=6).hexdigest()


def turn_key(identifier: str) -> str:
    """The tombstone content that takes a whole turn out of search (``turn:ID``)."""
    return f"{TURN_TAG}{identifier}"


def _encode(record: dict) -> bytes:
    """One JSON line; text that is not valid Unicode (lone surrogates) is kept as escapes."""
    try:
        return (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(record, ensure_ascii=True) + "\n").encode("ascii")


class Transcripts:
    """Writer and reader of ``memory/transcripts/``; the only module that writes there."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout

    @property
    def folder(self) -> Path:
        return self.layout.transcripts_dir

    def path_for(self, date: str) -> Path:
        return self.layout.transcript(date)

    def dates(self) -> list[str]:
        """Every day some device (or a conflict copy) kept turns for, oldest first."""
        return streams.dated_bases(self.folder, ".jsonl")

    def parts(self, date: str) -> list[Path]:
        """Every file of that day: each device's, and conflict copies a sync tool left."""
        return [p.path for p in streams.parts(self.folder, ".jsonl", date)]

    def append(
        self,
        user: str,
        assistant: str,
        *,
        session_id: str,
        when: dt.datetime,
        note: dict | None = None,
    ) -> TranscriptTurn:
        """Keep one turn verbatim; return it (an identical earlier capture is returned as is)."""
        if not user.strip() and not assistant.strip():
            raise TranscriptError("nothing to capture: both the user and the assistant text are empty")
        ts = when.isoformat(timespec="seconds")
        identifier = turn_id(session_id, when.isoformat(), user, assistant)
        record = {"id": identifier, "ts": ts, "session": session_id, "user": user, "assistant": assistant}
        record.update(note or {})
        payload = _encode(record)
        path = self.path_for(when.date().isoformat())
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | BINARY, 0o666)  # the umask decides, as for any new file
        try:
            lock_descriptor(fd)  # appends from other processes wait their turn
            existing = read_descriptor(fd)
            line = existing.count(b"\n") + 1
            marker = f'"id": "{identifier}"'.encode()
            if marker in existing:
                for turn in parse(existing.decode("utf-8", "replace"), path).turns:
                    if turn.id == identifier:
                        return turn
            if existing and not existing.endswith(b"\n"):
                # A line cut short by a crash stays as it is (doctor names it); ours starts fresh.
                payload = b"\n" + payload
                line += 1
            _write_all(fd, payload)
        finally:
            unlock_descriptor(fd)
            os.close(fd)
        return TranscriptTurn(identifier, ts, session_id, user, assistant, path, line)

    def read(self, date: str) -> TranscriptFile:
        """The day's turns from every part, each turn once (by id), in time order."""
        paths = self.parts(date) or [self.path_for(date)]
        if len(paths) == 1:
            return parse(read_regular(paths[0]).decode("utf-8", "replace"), paths[0])
        turns: dict[str, TranscriptTurn] = {}
        bad: list[tuple[int, str]] = []
        for path in paths:
            try:
                parsed = parse(read_regular(path).decode("utf-8", "replace"), path)
            except OSError:
                continue
            for turn in parsed.turns:
                turns.setdefault(turn.id, turn)
            bad += parsed.bad_lines
        return TranscriptFile(sorted(turns.values(), key=_turn_time), bad)

    def turns(self) -> Iterator[TranscriptTurn]:
        for date in self.dates():
            try:
                yield from self.read(date).turns
            except OSError:
                continue

    def counts(self) -> dict[str, int]:
        """``{"days", "turns", "bad_lines"}`` for status and doctor."""
        days = turns = bad = 0
        for date in self.dates():
            try:
                parsed = self.read(date)
            except OSError:
                continue
            days += 1
            turns += len(parsed.turns)
            bad += len(parsed.bad_lines)
        return {"days": days, "turns": turns, "bad_lines": bad}


def _turn_time(turn: TranscriptTurn) -> dt.datetime:
    try:
        when = dt.datetime.fromisoformat(turn.ts)
    except ValueError:
        return dt.datetime.min.replace(tzinfo=dt.UTC)
    return when if when.tzinfo is not None else when.astimezone()


def parse(text: str, path: Path) -> TranscriptFile:
    """Turns of a day file; a line that is not a whole turn record is listed in ``bad_lines``."""
    turns: list[TranscriptTurn] = []
    bad: list[tuple[int, str]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = loads_json(line)
            values = [record[k] for k in ("id", "ts", "session", "user", "assistant")]
            if not all(isinstance(v, str) for v in values):
                raise TypeError("a field is not a string")
        except (ValueError, KeyError, TypeError) as exc:
            bad.append((number, f"not a transcript turn ({exc})"))
            continue
        identifier, ts, session, user, assistant = values
        turns.append(TranscriptTurn(identifier, ts, session, user, assistant, path=path, line=number))
    return TranscriptFile(turns, bad)


def _write_all(fd: int, payload: bytes) -> None:
    view = memoryview(payload)
    while view:
        written = os.write(fd, view)
        view = view[written:]


MAX_TURN_CHUNK_CHARS = 1200  # a longer turn is split so each row stays one embedding's worth


def clean_text(text: str) -> str:
    """Text safe to index and extract from: code points that are not valid Unicode become U+FFFD.

    The transcript keeps the original (as JSON escapes); only derived copies are cleaned.
    """
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def turn_chunks(turn: TranscriptTurn, limit: int = MAX_TURN_CHUNK_CHARS) -> list[str]:
    """The index rows of a turn: the whole turn when short, else each side in labelled pieces."""
    pairs = (("User", turn.user), ("Assistant", turn.assistant))
    sides = [(label, clean(clean_text(text)).strip()) for label, text in pairs]
    sides = [(label, text) for label, text in sides if text]
    whole = "\n".join(f"{label}: {text}" for label, text in sides)
    if len(whole) <= limit:
        return [whole] if whole else []
    return [f"{label}: {piece}" for label, text in sides for piece in _pieces(text, limit)]


def _pieces(text: str, limit: int) -> list[str]:
    """Cut at the last sentence end or space before ``limit`` (hard cut when there is none)."""
    pieces: list[str] = []
    rest = text
    while len(rest) > limit:
        window = rest[:limit]
        cut = max(window.rfind(". "), window.rfind("\n"), window.rfind("? "), window.rfind("! "))
        if cut < limit // 2:
            cut = window.rfind(" ")
        if cut < limit // 2:
            cut = limit - 1
        pieces.append(rest[: cut + 1].strip())
        rest = rest[cut + 1 :].lstrip()
    if rest.strip():
        pieces.append(rest.strip())
    return [p for p in pieces if p]
