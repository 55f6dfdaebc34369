"""Forgetting by what the user sees, and taking it back.

A search hit is a row of the index: one fact line, or a chunk that merged a few paragraphs
of a page. Forgetting it must name what the files hold, not the merged text (which no later
pass would ever match): each paragraph, or each item of a plain list, becomes its own
tombstone (a *unit*). Units are read with the same grammar the indexer chunks pages with,
so what is forgotten is exactly what leaves the index, on every later pass too.

Forgotten text is also taken off notebook pages, as an ordinary atomic page edit. Each
removed block is recorded in ``.state/forgotten_lines.jsonl`` (append-only: removals, then
``restored`` records), so undo puts the lines back where they stood. A record names its page
relative to the vault (a core file: ``"root": "memory"`` and its name), as every device of a
synced home finds it; records of earlier versions hold the forgetting device's absolute path,
which is read back by the longest end of it that names a page of this vault.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from suzent_desktop.core.files.disk.atomic import atomic_write_text
from suzent_desktop.core.files.disk.regular import read_regular
from suzent_desktop.core.files.records.tombstones import normalize
from suzent_desktop.core.files.sync import streams
from suzent_desktop.core.index.rows.chunking import paragraph_spans, paragraph_units, text_units
from suzent_desktop.core.vault.facts.fact_bullets import list_item_text
from suzent_desktop.core.vault.forgotten import Forgotten

_RAW_LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


# -- units ----------------------------------------------------------------------------------
def units_for(text: str, *, source_type: str | None = None, page_text: str | None = None) -> list[str]:
    """The units a hit's text stands for.

    A fact line (any source that is not markdown) is its own unit. Page text is read as markdown; a piece of a paragraph too long
    for one chunk is widened to the whole paragraph of ``page_text`` it came from, because a
    tombstone only ever matches whole paragraphs and items.
    """
    if source_type not in (None, "notebook", "core"):  # a fact line, a turn: one row, one unit
        return [text.strip()] if text.strip() else []
    units = text_units(text)
    if page_text is None:
        return units
    page = [u for _, paragraph in paragraph_spans(page_text) for u in paragraph_units(paragraph)]
    known = {normalize(u) for u in page}
    widened: list[str] = []
    for unit in units:
        norm = normalize(unit)
        if norm not in known:
            unit = next((u for u in page if norm and norm in normalize(u)), unit)
        widened.append(unit)
    return list(dict.fromkeys(widened))


# -- taking units off pages ------------------------------------------------------------------
@dataclass
class Removal:
    """A block of lines taken off a page: enough to put it back where it stood."""

    path: str
    content: str  # the normalized unit (its tombstone)
    line: int  # 1-based line the block started on, before it was removed
    text: str  # the removed lines, terminators included
    prev: str | None  # the line just above it, as it was
    next: str | None  # the line just below it, as it was
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])

    def to_json(self) -> dict:
        return {"id": self.id, "content": self.content, "path": self.path, "line": self.line,
                "text": self.text, "prev": self.prev, "next": self.next}


def raw_lines(text: str) -> list[str]:
    """Lines with their own terminators (CRLF, CR or LF), so a rewrite keeps the file's line ends."""
    return _RAW_LINE_RE.findall(text)


def _bare(line: str) -> str:
    return line.rstrip("\r\n")


def find_forgotten(text: str, stones: Iterable[str], *, whole: bool = False) -> dict[int, str]:
    """0-based line index → the tombstone that takes it off the page: each list item holding
    forgotten text, and each paragraph that still holds some (``core/vault/forgotten.py``).
    ``whole``: only items and paragraphs that are a tombstone, not ones holding one inside."""
    dead: dict[int, str] = {}
    forgotten = Forgotten.of(stones)
    if not forgotten:
        return dead
    forgotten = forgotten.within(text)
    match = forgotten.names if whole else forgotten.stone_in
    for start, paragraph in paragraph_spans(text):
        lines = paragraph.split("\n")
        for offset, line in enumerate(lines):
            hit = match(line) if len(lines) > 1 and list_item_text(line) is not None else None
            if hit is not None:
                dead[start - 1 + offset] = hit
        left = [i for i in range(len(lines)) if start - 1 + i not in dead]
        hit = match("\n".join(lines[i] for i in left)) if left else None
        if hit is not None:
            dead.update({start - 1 + i: hit for i in left})
    return dead


def strip_forgotten(path: str, text: str, stones: Iterable[str]) -> tuple[str, list[Removal]]:
    """The page without its forgotten paragraphs and items, and what was removed (in page order).

    A removed paragraph takes one blank line next to it along, so no double gap is left behind.
    """
    dead = find_forgotten(text, stones)
    if not dead:
        return text, []
    lines = raw_lines(text)
    blocks: list[tuple[list[int], str]] = []
    for index in sorted(dead):
        if blocks and blocks[-1][0][-1] == index - 1 and blocks[-1][1] == dead[index]:
            blocks[-1][0].append(index)
        else:
            blocks.append(([index], dead[index]))
    gone = set(dead)
    for indices, _unit in blocks:
        first, last = indices[0], indices[-1]
        above = next((i for i in range(first - 1, -1, -1) if i not in gone), None)
        above_blank = above is None or not _bare(lines[above]).strip()
        below = last + 1
        if above_blank and below < len(lines) and not _bare(lines[below]).strip() and below not in gone:
            indices.append(below)
            gone.add(below)
    removals: list[Removal] = []
    for indices, unit in blocks:
        first, last = indices[0], indices[-1]
        prev = _bare(lines[first - 1]) if first > 0 else None
        nxt = _bare(lines[last + 1]) if last + 1 < len(lines) else None
        removals.append(Removal(path, unit, first + 1, "".join(lines[i] for i in indices), prev, nxt))
    kept = "".join(line for i, line in enumerate(lines) if i not in gone)
    return kept, removals


def shown(text: str, stones: Iterable[str]) -> str:
    """``text`` as a reader is shown it: without its forgotten paragraphs and items. Every door
    that serves a page (an agent's ``read_page``, the ``memory://`` resources, the window) shows
    this, so forgotten text that a sync put back on a page is gone at once, before the next index
    pass takes it off the file."""
    return strip_forgotten("", text, stones)[0] if stones else text


def restore_lines(text: str, removal: Removal) -> str:
    """Put a removed block back: after the line that stood above it, else before the one below it."""
    if _present(text, removal):
        return text
    lines = raw_lines(text)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\r\n" if removal.text.endswith("\r\n") else "\n"
    block = removal.text if removal.text.endswith(("\n", "\r")) else removal.text + "\n"
    target = removal.line - 1
    bare = [_bare(line) for line in lines]
    at: int | None = None
    if removal.prev is not None:
        above = _nearest(bare, removal.prev, target - 1)
        at = above + 1 if above is not None else None
    elif target == 0:
        at = 0
    if at is None and removal.next is not None:
        at = _nearest(bare, removal.next, target)
    if at is None:
        at = min(max(target, 0), len(lines))
    return "".join(lines[:at]) + block + "".join(lines[at:])


def _present(text: str, removal: Removal) -> bool:
    """The block's own lines already stand in the page (put back by hand, or restored before)."""
    wanted = [_bare(line) for line in raw_lines(removal.text) if _bare(line).strip()]
    have = {_bare(line) for line in raw_lines(text)}
    return bool(wanted) and all(line in have for line in wanted)


def _nearest(lines: list[str], wanted: str, around: int) -> int | None:
    hits = [i for i, line in enumerate(lines) if line == wanted]
    return min(hits, key=lambda i: abs(i - around)) if hits else None


# -- the journal of removed lines --------------------------------------------------------------
class ForgetJournal:
    """``.state/forgotten_lines.jsonl``: what forgetting took off pages, and what undo put back.

    ``vault`` and ``memory`` are this device's folders: records name pages relative to them, and
    :meth:`outstanding` gives them back as this device's paths."""

    def __init__(self, path: Path, *, vault: Path, memory: Path) -> None:
        self.path = path
        self.vault = vault
        self.memory = memory

    def record(self, removals: Iterable[Removal]) -> None:
        now = _now()
        self._append([{"ts": now, **r.to_json(), **self._stored(Path(r.path))} for r in removals])

    def _stored(self, page: Path) -> dict:
        """A page as a record names it: relative to the vault, or a core file by name."""
        if page.parent == self.memory:
            return {"path": page.name, "root": "memory"}
        if page.is_relative_to(self.vault):
            return {"path": page.relative_to(self.vault).as_posix()}
        return {"path": str(page)}  # no page of the vault: kept as it is, and named in the warning

    def _here(self, record: dict) -> Path:
        """This device's path of the page a record names."""
        raw = str(record["path"])
        if record.get("root") == "memory":
            return self.memory / raw
        page = Path(raw)
        if not page.is_absolute():
            return self.vault / page
        if page.is_relative_to(self.vault) or page.is_relative_to(self.memory):
            return page
        if page.parent.name == self.memory.name and (self.memory / page.name).is_file():
            return self.memory / page.name  # a core file, recorded by another device (an earlier version)
        for start in range(1, len(page.parts)):  # the longest end of the path that names a page here
            here = self.vault.joinpath(*page.parts[start:])
            if here.is_file():
                return here
        return page

    def mark_restored(self, ids: Iterable[str]) -> None:
        ids = list(ids)
        if ids:
            self._append([{"ts": _now(), "restored": ids}])

    def outstanding(self, contents: set[str]) -> list[Removal]:
        """Removals of these tombstones that were not put back yet, oldest first."""
        removals: dict[str, Removal] = {}
        for record in self._records():
            restored = record.get("restored")
            if isinstance(restored, list):
                for rid in restored:
                    removals.pop(str(rid), None)
                continue
            try:
                removal = Removal(
                    str(self._here(record)), str(record["content"]), int(record["line"]), str(record["text"]),
                    record.get("prev"), record.get("next"), str(record["id"]),
                )
            except (KeyError, TypeError, ValueError):
                continue
            if removal.content in contents:
                removals[removal.id] = removal
        return list(removals.values())

    def _records(self) -> list[dict]:
        """Every device's records (and conflict copies'), in time order: undo on one device puts
        back lines another device's forget took off."""
        paths = [p.path for p in streams.parts(self.path.parent, ".jsonl", self.path.name.split("@")[0].split(".")[0])]
        return streams.merge_records(streams.read_texts(paths or [self.path]))

    def _append(self, records: list[dict]) -> None:
        if not records:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        existing = read_regular(self.path) if self.path.exists() else b""  # a FIFO there is refused, not waited on
        prefix = "\n" if existing and not existing.endswith(b"\n") else ""
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(prefix + "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))


def _now() -> str:
    return dt.datetime.now().astimezone().isoformat(timespec="seconds")


def rewrite_page(path: Path, text: str) -> None:
    """A forget or an undo is a normal page edit: atomic, nothing half-written."""
    atomic_write_text(path, text)
