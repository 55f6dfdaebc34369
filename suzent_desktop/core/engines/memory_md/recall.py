"""Recall signals: which memories were retrieved, for MEMORY.md promotion.

Best-effort and bounded: the file is trimmed to the newest ``MAX_LINES`` records when it
grows past twice that, and only user-facing searches are recorded (the dream agent's own
look-ups are not recalls).
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from suzent_desktop.core.files.disk.atomic import atomic_write_text
from suzent_desktop.core.files.disk.text_hygiene import loads_json
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.sync import streams

MAX_LINES = 5000
SNIPPET_CHARS = 160
MIN_LINE_BYTES = 60  # a record with an empty snippet is ~70 bytes
CORE = "core"  # the source type of MEMORY.md and the other core files (core/index/rows/sources.py)


@dataclass(frozen=True)
class Recall:
    snippet: str
    source_type: str


class RecallLog:
    def __init__(self, layout: Layout) -> None:
        self.layout = layout

    @property
    def path(self):
        return self.layout.recall_log

    def record(self, hits: Iterable[Recall]) -> None:
        now = dt.datetime.now().astimezone().isoformat(timespec="seconds")
        seen: set[tuple[str, str]] = set()
        lines: list[str] = []
        for hit in hits:
            snippet = hit.snippet[:SNIPPET_CHARS]
            if (snippet, hit.source_type) in seen:
                continue
            seen.add((snippet, hit.source_type))
            lines.append(json.dumps({"ts": now, "snippet": snippet, "source_type": hit.source_type}, ensure_ascii=False))
        if not lines or not self.path.parent.is_dir():
            return  # a vault the app never set up (no .state/): searching must not write into it
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
        self._trim()

    def _trim(self) -> None:
        try:
            if self.path.stat().st_size < 2 * MAX_LINES * MIN_LINE_BYTES:
                return  # cannot hold more than 2 * MAX_LINES records yet: skip reading it on every search
            text = self.path.read_text(encoding="utf-8-sig", errors="replace")
        except OSError:
            return
        lines = text.splitlines()
        if len(lines) > 2 * MAX_LINES:
            atomic_write_text(self.path, "\n".join(lines[-MAX_LINES:]) + "\n")

    def counts(self) -> Counter[str]:
        """How often each snippet was recalled, on every device (each device trims its own file).

        A hit on a core file (MEMORY.md itself, the persona) is no recall of a fact: MEMORY.md is
        searched like any file, and counting its lines as recalled would keep whatever it holds in
        it for good, however little anyone looked for it on its page."""
        counter: Counter[str] = Counter()
        paths = [p.path for p in streams.parts(self.path.parent, ".jsonl", "recall_log")] or [self.path]
        for text in streams.read_texts([p for p in paths if p.is_file()]):
            for line in text.splitlines():
                try:
                    record = loads_json(line)
                    if record.get("source_type") != CORE:
                        counter[record["snippet"]] += 1
                except (ValueError, KeyError, TypeError, AttributeError):
                    continue
        return counter
