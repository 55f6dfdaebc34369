"""Append-only streams written per device, and read back as one.

Daily logs, transcripts, tombstones, forgotten lines and recall signals are only ever
appended to. In a home shared by several devices (``core/files/sync/devices.py``) each device appends
to its own file of each stream, so a sync tool never has to choose between two sides:

======================  ==============================  ===================================
stream                  the first device                every other device
======================  ==============================  ===================================
daily log               ``archive/2026-12-05.md``       ``archive/2026-12-05@ID.md``
transcript              ``transcripts/2026-12-05.jsonl`` ``transcripts/2026-12-05@ID.jsonl``
tombstones etc.         ``.state/tombstones.jsonl``     ``.state/tombstones@ID.jsonl``
======================  ==============================  ===================================

Readers take every *part* of a stream: each device's file, plus any conflict copy a sync
tool left of one of them (``core/files/sync/sync_conflicts.py``): a copy's lines are facts too. A day's
parts are merged in time order (turn blocks by their ``## HH:MM`` header, transcript turns
by their timestamp, records by ``ts``); what two parts both hold (a conflict copy repeats
its original) is kept once. Each file keeps the seed's format on its own.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from suzent_desktop.core.files.disk.regular import read_regular
from suzent_desktop.core.files.disk.text_hygiene import loads_json
from suzent_desktop.core.files.sync.sync_conflicts import original_name

_PART_RE = re.compile(r"^(?P<base>[^@/]+?)(?:@(?P<device>[a-z0-9][a-z0-9-]{0,39}))?(?P<ext>\.[A-Za-z0-9]+)$")
_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TURN_RE = re.compile(r"^##\s+(\d{1,2}:\d{2})\b")
_HEADER_RE = re.compile(r"^#\s+Daily Log\b")


@dataclass(frozen=True)
class Part:
    """One file of a stream: whose it is and whether a sync tool made it."""

    path: Path
    base: str  # ``2026-12-05``, ``tombstones``
    device: str | None  # None: the plain name (the home's first device)
    conflict: str | None  # the tool that left it as a conflict copy, else None

    @property
    def order(self) -> tuple[int, str, int, str]:
        """Plain file first, then devices by id; each original before its conflict copies."""
        return (0 if self.device is None else 1, self.device or "", 0 if self.conflict is None else 1,
                self.path.name)


def parse_part(name: str, ext: str) -> Part | None:
    """The stream part a file name stands for (``ext`` is ``.md`` or ``.jsonl``), or None."""
    conflict = None
    known = original_name(name)
    if known is not None:
        name, conflict = known
    match = _PART_RE.match(name)
    if match is None or match.group("ext") != ext:
        return None
    return Part(Path(name), match.group("base"), match.group("device"), conflict)


def part_name(base: str, ext: str, suffix: str) -> str:
    """The file this device appends to: ``suffix`` is ``""`` (plain names) or ``"@ID"``."""
    return f"{base}{suffix}{ext}"


def parts(folder: Path, ext: str, base: str | None = None) -> list[Part]:
    """Every part in ``folder`` (of one ``base``, or all), plain first."""
    found: list[Part] = []
    try:
        entries = list(folder.iterdir())
    except OSError:
        return found
    for entry in entries:
        part = parse_part(entry.name, ext)
        if part is None or (base is not None and part.base != base) or not entry.is_file():
            continue
        found.append(Part(entry, part.base, part.device, part.conflict))
    return sorted(found, key=lambda p: p.order)


def dated_parts(folder: Path, ext: str) -> list[Part]:
    """The parts in ``folder`` named after a real calendar date."""
    found: list[Part] = []
    for part in parts(folder, ext):
        if not _DATE_RE.match(part.base):
            continue
        try:
            dt.date.fromisoformat(part.base)
        except ValueError:
            continue
        found.append(part)
    return found


def dated_bases(folder: Path, ext: str) -> list[str]:
    """Every real calendar date some part in ``folder`` is named after, oldest first."""
    return sorted({part.base for part in dated_parts(folder, ext)})


def digest(paths: list[Path]) -> str:
    """One fingerprint of a day's parts: any append to any of them (or a new part) changes it."""
    hasher = hashlib.sha256()
    for path in paths:
        try:
            data = read_regular(path)
        except OSError:
            continue
        hasher.update(path.name.encode() + b"\0" + hashlib.sha256(data).digest())
    return hasher.hexdigest() if paths else ""


# -- daily logs ----------------------------------------------------------------------------------
def _blocks(text: str) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """(lines before the first turn header, [(HH:MM, the block's lines from its header)])."""
    lines = text.removeprefix("\ufeff").splitlines()
    head: list[str] = []
    blocks: list[tuple[str, list[str]]] = []
    for line in lines:
        match = _TURN_RE.match(line)
        if match:
            hhmm = match.group(1).zfill(5)
            blocks.append((hhmm, [line]))
        elif blocks:
            blocks[-1][1].append(line)
        else:
            head.append(line)
    return head, blocks


def merge_logs(date: str, texts: list[str]) -> str:
    """One daily log from a day's parts, turn blocks in time order, each block once.

    A block two parts both hold (a conflict copy repeats its original) is kept once; a
    block whose header two parts share with different lines keeps the lines of both.
    """
    if len(texts) == 1:
        return texts[0]
    head_lines: list[str] = []
    merged: dict[str, tuple[str, list[str]]] = {}
    for text in texts:
        head, blocks = _blocks(text)
        for line in head:
            if line.strip() and not _HEADER_RE.match(line) and line not in head_lines:
                head_lines.append(line)
        for hhmm, lines in blocks:
            header, body = lines[0].rstrip(), [x for x in lines[1:] if x.strip()]
            if header not in merged:
                merged[header] = (hhmm, [])
            kept = merged[header][1]
            kept += [x for x in body if x not in kept]
    out = [f"# Daily Log - {date}", *head_lines]
    for header, (_hhmm, body) in sorted(merged.items(), key=lambda item: item[1][0]):
        out += ["", header, "", *body]
    return "\n".join(out) + "\n"


# -- JSON-lines streams (transcripts, tombstones, forgotten lines, recall signals) -----------------
def _when(record: dict) -> dt.datetime:
    try:
        when = dt.datetime.fromisoformat(str(record.get("ts", "")))
    except ValueError:
        return dt.datetime.min.replace(tzinfo=dt.UTC)
    return when if when.tzinfo is not None else when.astimezone()


def merge_records(texts: list[str]) -> list[dict]:
    """The records of every part in time order (a part's own order kept among equals).

    A line that an earlier part already holds (a conflict copy repeats its original) is read
    once; repeats inside one part are kept, since there each line is its own event.
    """
    seen: set[str] = set()
    records: list[dict] = []
    for text in texts:
        own: set[str] = set()
        for line in text.splitlines():
            key = line.strip()
            if not key or key in seen:
                continue
            own.add(key)
            try:
                record = loads_json(key)
            except ValueError:
                continue
            if isinstance(record, dict):
                records.append(record)
        seen |= own
    if len(texts) > 1:
        records.sort(key=_when)
    return records


def read_texts(paths: list[Path]) -> list[str]:
    """The parts' texts (a part that vanished between listing and reading is left out)."""
    texts: list[str] = []
    for path in paths:
        try:
            texts.append(read_regular(path).decode("utf-8-sig", errors="replace"))
        except OSError:
            continue
    return texts
