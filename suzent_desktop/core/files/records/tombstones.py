"""Tombstones: what the user asked to forget, kept forever in ``.state/tombstones.jsonl``.

Tombstones are kept normalized (lower-cased, whitespace runs collapsed, trimmed); whether a text
is forgotten is decided by the one rule in ``core/vault/forgotten.py``. Unknown keys on existing
lines are preserved because this module only ever appends.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path

from suzent_desktop.core.files.disk.regular import read_regular
from suzent_desktop.core.files.disk.text_hygiene import loads_json
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.sync import streams


def normalize(text: str) -> str:
    return " ".join(text.lower().split())


class ForgottenTextError(ValueError):
    """A write would bring back text the user asked to forget."""


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
