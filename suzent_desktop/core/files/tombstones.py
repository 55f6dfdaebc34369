"""Tombstones: what the user asked to forget, kept forever in ``.state/tombstones.jsonl``.

Matching is on normalized text (lower-cased, whitespace runs collapsed, trimmed), per fact
line and per paragraph. Unknown keys on existing lines are preserved because this module
only ever appends.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from suzent_desktop.core.files import streams
from suzent_desktop.core.files.layout import Layout
from suzent_desktop.core.files.regular import read_regular
from suzent_desktop.core.files.text import loads_json


def normalize(text: str) -> str:
    return " ".join(text.lower().split())


# A tombstone at least this long (in its loose form) is found inside longer text; a shorter one
# ("tea") only as a whole line or paragraph, or every "tea" in the vault would go with it.
MIN_CONTAINED = 12
_NOT_WORD = re.compile(r"[\W_]+")
_LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")


class ForgottenTextError(ValueError):
    """A write would bring back text the user asked to forget."""


def _loose(text: str) -> str:
    """Words only, lower case, one space apart: markup, punctuation and spacing cannot hide a match."""
    return " ".join(_NOT_WORD.sub(" ", text.lower()).split())


def forgotten_in(text: str, stones: Iterable[str]) -> list[str]:
    """The tombstones (normalized, as ``normalize`` keeps them) that stand inside ``text``.

    Compared the way forget reads text, made loose: case, spacing, markup and punctuation
    ignored, so ``**User's PIN** is 4417, …`` holds ``user's pin is 4417``. A tombstone of
    :data:`MIN_CONTAINED` characters or more counts anywhere inside, on word boundaries; a
    shorter one only when it is the whole text (a list item's mark left out). ``turn:ID``
    stones name transcript turns, not text, and never match.
    """
    whole = _loose(_LIST_MARK.sub("", text, count=1))
    padded = f" {whole} "
    found: list[str] = []
    for stone in stones:
        if stone.startswith("turn:"):
            continue
        loose = _loose(stone)
        if loose and (loose == whole or len(loose) >= MIN_CONTAINED and f" {loose} " in padded):
            found.append(stone)
    return found


def without_forgotten(facts: list, stones: Iterable[str]) -> tuple[list, int]:
    """Facts (anything with ``content``) holding no forgotten text, and how many were left out."""
    stones = list(stones)
    kept = [f for f in facts if not forgotten_in(f.content, stones)]
    return kept, len(facts) - len(kept)


def take_out_forgotten(text: str, stones: Iterable[str], keep: Iterable[int] = ()) -> tuple[str, int]:
    """``text`` without the lines that hold forgotten text, and how many were taken out.

    A tombstone spread over several lines of one paragraph takes that paragraph out. Used on
    what a model writes or is shown, so forgotten text neither lands on a page nor reaches a prompt.
    Lines ``keep`` (0-based) stay: a caller takes them off itself, with a record undo can use.
    """
    keep = set(keep)
    stones = [s for s in stones if not s.startswith("turn:")]
    if not stones or not forgotten_in(text, stones) and not any(forgotten_in(p, stones) for p in text.split("\n\n")):
        return text, 0
    lines = text.split("\n")
    dead = {i for i, line in enumerate(lines) if i not in keep and forgotten_in(line, stones)}
    start = 0
    for i in range(len(lines) + 1):  # paragraphs still holding a stone across their lines
        if i == len(lines) or not lines[i].strip():
            block = [j for j in range(start, i) if j not in dead and j not in keep]
            if block and forgotten_in("\n".join(lines[j] for j in block), stones):
                dead.update(block)
            start = i + 1
    return "\n".join(line for i, line in enumerate(lines) if i not in dead), len(dead)


@dataclass(frozen=True)
class Tombstone:
    content: str
    line: int
    record: dict


@dataclass(frozen=True)
class TombstoneProblem:
    path: Path
    line: int
    reason: str


class Tombstones:
    def __init__(self, layout: Layout) -> None:
        self.layout = layout

    @property
    def path(self) -> Path:
        return self.layout.tombstones_file

    def parts(self) -> list[Path]:
        """Every device's tombstone file (and conflict copies of one): a forget on any device holds on all."""
        found = [p.path for p in streams.parts(self.path.parent, ".jsonl", "tombstones")]
        return found or [self.path]

    def load(self) -> tuple[list[Tombstone], list[TombstoneProblem]]:
        """All tombstones plus the lines that could not be read (reported by ``doctor``, never dropped).

        Every device's records are read, in time order, so an undo on one device lifts a forget
        written on another.
        """
        stones: list[Tombstone] = []
        problems: list[TombstoneProblem] = []
        texts: list[str] = []
        for path in self.parts():
            if not path.is_file():
                continue
            text = read_regular(path).decode("utf-8-sig", errors="replace")
            texts.append(text)
            for number, line in enumerate(text.splitlines(), start=1):
                if not line.strip():
                    continue
                try:
                    record = loads_json(line)
                    if not isinstance(record["content"], str):
                        raise TypeError("content is not a string")
                except (ValueError, KeyError, TypeError) as exc:
                    problems.append(TombstoneProblem(path, number, f"unreadable tombstone: {exc}"))
        records = streams.merge_records(texts)
        for number, record in enumerate(records, start=1):
            content = record.get("content")
            if not isinstance(content, str) or record.get("undone"):
                continue
            stones.append(Tombstone(normalize(content), number, record))
        undone = self._undone_set(records)
        active = [s for s in stones if s.content not in undone]
        # A stone written "of" another (a forgotten fact's source turn) lives and dies with it.
        primary = {s.content for s in active}
        return [s for s in active if normalize(str(s.record.get("of", ""))) in primary | {""}], problems

    @staticmethod
    def _undone_set(records: list[dict]) -> set[str]:
        """Undo is itself an appended record (``{"content": ..., "undone": true}``), so history stays intact."""
        state: dict[str, bool] = {}
        for record in records:
            try:
                state[normalize(record["content"])] = bool(record.get("undone"))
            except (KeyError, TypeError, AttributeError):
                continue
        return {content for content, undone in state.items() if undone}

    def contents(self) -> set[str]:
        return {s.content for s in self.load()[0]}

    def is_tombstoned(self, text: str) -> bool:
        return normalize(text) in self.contents()

    def _append(self, record: dict) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        existing = read_regular(self.path) if self.path.exists() else b""
        prefix = "\n" if existing and not existing.endswith(b"\n") else ""
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(prefix + json.dumps(record, ensure_ascii=False) + "\n")

    def add(self, text: str, *, source: str = "user", reason: str = "", of: str = "") -> str:
        return self.add_many([text], source=source, reason=reason, of=of)[0]

    def add_many(self, texts: list[str], *, source: str = "user", reason: str = "", of: str = "") -> list[str]:
        """One tombstone per text, written in one append (the paragraphs and items of one forget).

        ``of`` ties them to another tombstone (a forgotten fact's source turn to the fact), so
        undoing that one lifts these too.
        """
        written: dict[str, str] = {}  # normalized → the text as it was written (shown by the Forgotten list)
        for text in texts:
            written.setdefault(normalize(text), " ".join(text.split()))
        contents = [c for c in written if c]
        if not contents:
            raise ValueError("nothing to forget: the text is empty")
        now = dt.datetime.now().astimezone().isoformat(timespec="seconds")
        for content in contents:
            record = {"content": content, "ts": now, "source": source}
            if written[content] != content:
                record["text"] = written[content]
            if reason:
                record["reason"] = reason
            if of:
                record["of"] = normalize(of)
            self._append(record)
        return contents

    def undo(self, text: str) -> None:
        """Lift a tombstone by appending an ``undone`` record; the earlier lines stay as history."""
        self._append(
            {"content": normalize(text), "undone": True, "ts": dt.datetime.now().astimezone().isoformat(timespec="seconds")}
        )
