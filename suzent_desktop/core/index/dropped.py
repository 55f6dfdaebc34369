"""Facts a dream dropped: kept in search until a person says the model was right.

An engine may account for a batch fact as *dropped* (small talk, a duplicate of nothing worth
keeping), with a reason. A model's word alone must not take a fact out of search: a prompt
injected through a captured turn, or a sloppy model, could otherwise drop every fact of a
batch. So the runner writes each dropped fact of a consolidated day here, in
``.state/dropped.json``, with the engine's reason and the run's date, before its ingest entry.
While an entry stands, the indexer keeps the fact's row from its daily log (as it keeps the
facts no page holds, ``core/engines/ledger/uncovered.py``), and ``dropped`` lists it. A person confirms
the drop (the ``dropped --confirm`` command, or a review pane through :func:`confirm`), and only
then does the fact leave search. Dropped facts are not offered to the next dream again: the
model has given its reason, and the person decides.

Each entry has a short id derived from its day and text, so a list shown today can be confirmed
tomorrow. Forgetting a fact takes it out of search and out of the list.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from suzent_desktop.core.files.disk.atomic import atomic_write_text
from suzent_desktop.core.files.disk.text_hygiene import fact_records
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.records.tombstones import normalize
from suzent_desktop.core.vault.forgotten import Forgotten

if TYPE_CHECKING:
    from suzent_desktop.core.engines.dream.model import BatchFact
    from suzent_desktop.core.vault.days import Days

VERSION = 1
FILE_NAME = "dropped.json"
ID_CHARS = 10


@dataclass(frozen=True)
class DroppedFact:
    """A fact of a daily log that a dream dropped, and why."""

    date: str
    text: str
    line: int | None = None
    reason: str = ""
    run: str = ""  # the date of the run that dropped it

    @property
    def key(self) -> tuple[str, str]:
        return self.date, normalize(self.text)

    @property
    def id(self) -> str:
        """Stable across runs and devices: the day and the fact's normalized text."""
        return hashlib.sha1(f"{self.date}\n{normalize(self.text)}".encode()).hexdigest()[:ID_CHARS]


def path_for(layout: Layout) -> Path:
    return layout.state_dir / FILE_NAME


def load(layout: Layout) -> list[DroppedFact]:
    """Every entry, oldest day first; a missing or unreadable file is an empty record."""
    return _ordered(DroppedFact(item["date"], item["text"], item["line"], str(item.get("reason", "")),
                                str(item.get("run", ""))) for item in fact_records(path_for(layout)))


def _ordered(facts: Iterable[DroppedFact]) -> list[DroppedFact]:
    unique: dict[tuple[str, str], DroppedFact] = {}
    for fact in facts:
        unique.setdefault(fact.key, fact)  # the first reason given stands
    return sorted(unique.values(), key=lambda f: (f.date, f.line or 0, f.text))


def _save(layout: Layout, facts: list[DroppedFact]) -> None:
    document = {"version": VERSION, "facts": [asdict(f) for f in _ordered(facts)]}
    atomic_write_text(path_for(layout), json.dumps(document, ensure_ascii=False, indent=1) + "\n")


def record(layout: Layout, facts: Iterable[DroppedFact]) -> None:
    """Add a run's dropped facts (one already listed keeps its first reason)."""
    new = list(facts)
    if new:
        _save(layout, [*load(layout), *new])


def record_run(layout: Layout, dropped: Iterable[tuple[BatchFact, str]], dates: Iterable[str], end: str | None,
               run: str) -> None:
    """Record the facts a productive run dropped whose day the watermark is about to cover (``end``)
    or covers already (facts offered again); the others stay pending and are offered again."""
    batch = set(dates)
    record(layout, [DroppedFact(f.date, f.fact.content, f.line, " ".join(reason.split()), run)
                    for f, reason in dropped if (end is not None and f.date <= end) or f.date not in batch])


def pending(layout: Layout, days: Days, stones: Iterable[str] = ()) -> list[DroppedFact]:
    """Entries awaiting a person's word whose day the watermark covers (the rows that would
    leave search without this record), forgotten ones left out."""
    forgotten = Forgotten.of(stones)
    return [f for f in load(layout) if days.is_consolidated(f.date) and not forgotten.holds(f.text)]


class UnknownDropped(ValueError):
    """An id that names no dropped fact awaiting confirmation."""


def confirm(layout: Layout, ids: Iterable[str]) -> list[DroppedFact]:
    """Take these entries off the record (the person agrees they can go); returns them.

    Every id must name an entry; otherwise nothing changes and UnknownDropped names the ids."""
    wanted = list(dict.fromkeys(i.strip() for i in ids if i.strip()))
    facts = load(layout)
    by_id = {f.id: f for f in facts}
    unknown = [i for i in wanted if i not in by_id]
    if unknown:
        raise UnknownDropped(f"no dropped fact has the id {', '.join(unknown)} (see `dropped` for the list)")
    confirmed = [by_id[i] for i in wanted]
    if confirmed:
        gone = {f.key for f in confirmed}
        _save(layout, [f for f in facts if f.key not in gone])
    return confirmed
