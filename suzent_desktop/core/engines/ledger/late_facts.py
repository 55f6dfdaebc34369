"""Facts that reached a consolidated day after its dream: another device's lines, synced late.

Device A consolidates 2026-12-05 while device B's ``2026-12-05@B.md`` is still on its way (B was
offline, the sync tool had not run yet). When it arrives the watermark already covers the day,
so without more its facts would be in no page and out of the index. Daily logs are
append-only, so the runner records, before it moves the watermark, the size of every part of
each day it consolidated (``.state/consolidated_parts.json``: ``{"days": {DATE: {FILE: BYTES}}}``).
Whatever a day's parts hold beyond those sizes now (a grown part, a new part, a conflict
copy) are *late facts*: they are indexed as "not consolidated", listed by ``status``, and the
next dream offers them to the engine, like the facts no page held (``core/engines/ledger/uncovered.py``).
The coverage check decides what the engine must still write, so a late copy of a fact a page
already holds adds nothing twice.

The same holds for a fact the dream left out because it was forgotten, when the undo of that
forget reaches the device only afterwards: the record keeps, per day, the facts left out as
forgotten (``"forgotten": {DATE: [TEXT]}``), and one no longer forgotten is a late fact too.

A day consolidated before this record existed has no entry and has no late facts.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from suzent_desktop.core.files.disk.atomic import atomic_write_text
from suzent_desktop.core.files.disk.regular import read_regular
from suzent_desktop.core.files.disk.text_hygiene import loads_json
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.records.archive import Archive, ArchiveError
from suzent_desktop.core.files.records.log_grammar import parse_log
from suzent_desktop.core.files.records.tombstones import Tombstones, normalize
from suzent_desktop.core.files.sync import streams
from suzent_desktop.core.vault.forgotten import Forgotten

if TYPE_CHECKING:
    from suzent_desktop.core.vault.days import Days

VERSION = 1
Sizes = dict[str, dict[str, int]]  # date -> part file name -> bytes consolidated


def _path(layout: Layout) -> Path:
    return layout.state_dir / "consolidated_parts.json"


def _document(layout: Layout) -> dict:
    try:
        data = loads_json(read_regular(_path(layout)).decode("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def load(layout: Layout) -> Sizes:
    days = _document(layout).get("days")
    if not isinstance(days, dict):
        return {}
    return {d: {str(k): int(v) for k, v in parts.items() if isinstance(v, int)}
            for d, parts in days.items() if isinstance(parts, dict)}


def load_forgotten(layout: Layout) -> dict[str, set[str]]:
    """Day -> normalized texts the dream left out of that day as forgotten."""
    found = _document(layout).get("forgotten")
    if not isinstance(found, dict):
        return {}
    return {d: {str(t) for t in texts} for d, texts in found.items() if isinstance(texts, list)}


def sizes(layout: Layout, dates: list[str]) -> Sizes:
    """The size of every part of these days now (taken before the batch is read)."""
    found: Sizes = {}
    for date in dates:
        found[date] = {}
        for part in streams.parts(layout.archive_dir, ".md", date):
            try:
                found[date][part.path.name] = part.path.stat().st_size
            except OSError:
                continue
    return found


def left_out(layout: Layout, dates: list[str], stones: Iterable[str]) -> dict[str, set[str]]:
    """Per day, the normalized facts a run leaves out because they are forgotten (``stones``)."""
    forgotten = Forgotten.of(stones)
    archive = Archive(layout)
    found: dict[str, set[str]] = {}
    for date in dates:
        try:
            facts = archive.read(date).facts
        except (ArchiveError, OSError):
            continue
        found[date] = {normalize(f.fact.content) for f in facts if forgotten.holds(f.fact.content)}
    return found


@dataclass
class Snapshot:
    """What a run reads of its days, taken before it reads them: part sizes, facts left out as forgotten."""

    sizes: Sizes = field(default_factory=dict)
    left_out: dict[str, set[str]] = field(default_factory=dict)


def snapshot(layout: Layout, dates: list[str], stones: Iterable[str]) -> Snapshot:
    return Snapshot(sizes(layout, dates), left_out(layout, dates, stones))


def record_run(layout: Layout, taken: Snapshot, end: str) -> None:
    """After a productive run whose watermark is ``end``: its days up to ``end`` are consolidated."""
    record(layout, {d: n for d, n in taken.sizes.items() if d <= end}, taken.left_out)


def record(layout: Layout, consolidated: Sizes, forgotten: dict[str, set[str]] | None = None) -> None:
    """Remember what a run consolidated (days already recorded keep the larger sizes) and, per day,
    the facts it left out as forgotten (replacing what an earlier run of that day left out)."""
    if not consolidated:
        return
    known = load(layout)
    left_out = load_forgotten(layout)
    for date, parts in consolidated.items():
        day = known.setdefault(date, {})
        for name, size in parts.items():
            day[name] = max(size, day.get(name, 0))
        if forgotten is not None:
            left_out[date] = set(forgotten.get(date, set()))
    document = {"version": VERSION, "days": dict(sorted(known.items())),
                "forgotten": {d: sorted(t) for d, t in sorted(left_out.items()) if t}}
    atomic_write_text(_path(layout), json.dumps(document, indent=1, sort_keys=True) + "\n")


def late(layout: Layout, days: Days) -> list[tuple[str, str, int]]:
    """(date, text, line) of each fact line of a consolidated day beyond what its dream read, and
    of each fact its dream left out as forgotten that is no longer forgotten."""
    found: list[tuple[str, str, int]] = []
    for date, recorded in load(layout).items():
        if not days.is_consolidated(date):
            continue
        for part in streams.parts(layout.archive_dir, ".md", date):
            done = recorded.get(part.path.name, 0)
            try:
                if part.path.stat().st_size <= done:
                    continue
                data = part.path.read_bytes()
            except OSError:
                continue
            head, tail = data[:done], data[done:].decode("utf-8", errors="replace")
            offset = head.count(b"\n")
            for line in parse_log(tail).facts:
                found.append((date, line.fact.content, line.line + offset))
    return found + _no_longer_forgotten(layout, days)


def _no_longer_forgotten(layout: Layout, days: Days) -> list[tuple[str, str, int]]:
    left_out = {d: t for d, t in load_forgotten(layout).items() if days.is_consolidated(d)}
    if not left_out:
        return []
    forgotten = Forgotten(Tombstones(layout).contents())
    archive = Archive(layout)
    found: list[tuple[str, str, int]] = []
    for date, texts in sorted(left_out.items()):
        back = {text for text in texts if not forgotten.holds(text)}
        if not back:
            continue
        try:
            facts = archive.read(date).facts
        except (ArchiveError, OSError):
            continue
        found += [(date, f.fact.content, f.line) for f in facts if normalize(f.fact.content) in back]
    return found
