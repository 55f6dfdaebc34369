"""Facts that reached a consolidated day after its dream: another device's lines, synced late.

Device A consolidates 2026-12-05 while device B's ``2026-12-05@B.md`` is still on its way (B was
offline, the sync tool had not run yet). When it arrives the watermark already covers the day,
so without more its facts would be in no page and out of the index. Daily logs are
append-only, so the runner records, before it moves the watermark, the size of every part of
each day it consolidated (``.state/consolidated_parts.json``: ``{"days": {DATE: {FILE: BYTES}}}``).
Whatever a day's parts hold beyond those sizes now (a grown part, a new part, a conflict
copy) are *late facts*: they are indexed as "not consolidated", listed by ``status``, and the
next dream offers them to the engine, like the facts no page held (``core/uncovered.py``).
The coverage check decides what the engine must still write, so a late copy of a fact a page
already holds adds nothing twice.

A day consolidated before this record existed has no entry and has no late facts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from suzent_desktop.core import streams
from suzent_desktop.core.atomic import atomic_write_text
from suzent_desktop.core.facts import parse_log
from suzent_desktop.core.layout import Layout

if TYPE_CHECKING:
    from suzent_desktop.core.days import Days

VERSION = 1
Sizes = dict[str, dict[str, int]]  # date -> part file name -> bytes consolidated


def _path(layout: Layout) -> Path:
    return layout.state_dir / "consolidated_parts.json"


def load(layout: Layout) -> Sizes:
    try:
        data = json.loads(_path(layout).read_text(encoding="utf-8"))
        days = data["days"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    if not isinstance(days, dict):
        return {}
    return {d: {str(k): int(v) for k, v in parts.items() if isinstance(v, int)}
            for d, parts in days.items() if isinstance(parts, dict)}


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


def record(layout: Layout, consolidated: Sizes) -> None:
    """Remember what a run consolidated (days already recorded keep the larger sizes)."""
    if not consolidated:
        return
    known = load(layout)
    for date, parts in consolidated.items():
        day = known.setdefault(date, {})
        for name, size in parts.items():
            day[name] = max(size, day.get(name, 0))
    document = {"version": VERSION, "days": dict(sorted(known.items()))}
    atomic_write_text(_path(layout), json.dumps(document, indent=1, sort_keys=True) + "\n")


def late(layout: Layout, days: Days) -> list[tuple[str, str, int]]:
    """(date, text, line) of each fact line of a consolidated day beyond what its dream read."""
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
    return found
