"""Facts of consolidated days that no page holds: the record that keeps them in search.

When a dream run is productive the watermark moves past its batch, and the batch's log
rows would leave the index. A fact the engine neither put on a page nor accounted for
(merged, superseded, dropped with a reason) must not vanish with them, so the runner
writes it here, in ``.state/uncovered.json``, *before* the ingest entry. The indexer keeps
a row for every fact listed here whose day the watermark covers (marked "not
consolidated"), ``status``, ``doctor`` and the dream panel list them, and the next run
offers them to the engine again and drops the ones it then covers.

Entries for days after the watermark mean nothing (a run killed before its ingest entry
left them); the next run of that batch replaces them. Each entry names its day and the
fact's text; the line is a hint for people, the text is what is matched.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from suzent_desktop.core.engines.ledger import late_facts
from suzent_desktop.core.engines.ledger.lost_facts import LostFacts
from suzent_desktop.core.files.disk.atomic import atomic_write_text
from suzent_desktop.core.files.disk.text_hygiene import fact_records
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.records.log_grammar import parse_log
from suzent_desktop.core.files.records.tombstones import normalize
from suzent_desktop.core.files.sync import streams
from suzent_desktop.core.index import dropped
from suzent_desktop.core.vault.model import Vault

if TYPE_CHECKING:
    from suzent_desktop.core.vault.days import Days

VERSION = 1


@dataclass(frozen=True)
class UncoveredFact:
    date: str
    text: str
    line: int | None = None
    since: str = ""  # the run date that first found it uncovered
    path: str = field(default="", compare=False)  # the log file holding it (:func:`located`); not saved

    @property
    def key(self) -> tuple[str, str]:
        return self.date, normalize(self.text)


def load(layout: Layout) -> list[UncoveredFact]:
    """The record, oldest day first; a missing or unreadable file is an empty record."""
    facts = [UncoveredFact(item["date"], item["text"], item["line"], str(item.get("since", "")))
             for item in fact_records(Path(layout.uncovered_file))]
    return sorted(dict.fromkeys(facts), key=lambda f: (f.date, f.line or 0, f.text))


def save(layout: Layout, facts: list[UncoveredFact]) -> None:
    unique = {f.key: f for f in facts}
    ordered = sorted(unique.values(), key=lambda f: (f.date, f.line or 0, f.text))
    document = {"version": VERSION, "facts": [{"date": f.date, "text": f.text, "line": f.line, "since": f.since}
                                              for f in ordered]}
    atomic_write_text(layout.uncovered_file, json.dumps(document, ensure_ascii=False, indent=1) + "\n")


def consolidated(layout: Layout, days: Days, check: LostFacts | None = None) -> list[UncoveredFact]:
    """Entries whose day the watermark covers (the ones that matter), late facts, and facts a
    page held and holds no more (``core/engines/ledger/lost_facts.py``: ``check``, or one of its own, which
    reads the vault through a model of its own if a fact left its page)."""
    if days.watermark is None:
        return []
    check = check or LostFacts(layout, Vault(layout))
    late = [UncoveredFact(*fact) for fact in late_facts.late(layout, days)]  # another device's, synced late
    lost = [UncoveredFact(*fact) for fact in check.lost(days)]  # a page lost them since
    unique: dict[tuple[str, str], UncoveredFact] = {}
    for fact in [f for f in load(layout) if days.is_consolidated(f.date)] + late + lost:
        unique.setdefault(fact.key, fact)
    return list(unique.values())


def searchable(layout: Layout, days: Days, check: LostFacts | None = None) -> list[UncoveredFact]:
    """Facts of consolidated days whose log rows stay in search: the ones above, and the facts a
    dream dropped that no person has confirmed yet (``core/index/dropped.py``)."""
    held = [UncoveredFact(f.date, f.text, f.line) for f in dropped.pending(layout, days)]
    return consolidated(layout, days, check) + held


class Kept:
    """What the index keeps of consolidated days' logs (day -> normalized texts): given to the indexer
    by the home, which sits above both, with the home's vault model and one lost-facts check kept
    for the life of the process (a pass asks on every run)."""

    def __init__(self, layout: Layout, vault: Vault) -> None:
        self.layout = layout
        self.check = LostFacts(layout, vault)

    def __call__(self, days: Days) -> dict[str, set[str]]:
        return by_date(searchable(self.layout, days, self.check))


def located(layout: Layout, facts: list[UncoveredFact]) -> list[UncoveredFact]:
    """Each fact with the file and line a person finds it at (for ``status``, ``doctor``, the dream panel).

    A day's log is read as every device's part merged, and a late fact stands in another
    device's part: the line of the merged text, or of this device's own log, would point at
    another fact. Each fact is looked for in the day's parts; one found nowhere keeps this
    device's log of its day and no line.
    """
    places: dict[str, dict[str, tuple[str, int]]] = {}
    found: list[UncoveredFact] = []
    for fact in facts:
        if fact.date not in places:
            places[fact.date] = _fact_places(layout, fact.date)
        path, line = places[fact.date].get(fact.key[1], (str(layout.daily_log(fact.date)), None))
        found.append(dataclasses.replace(fact, path=path, line=line))
    return found


def _fact_places(layout: Layout, date: str) -> dict[str, tuple[str, int]]:
    """Normalized fact text -> (part file, line) of its first appearance in the day's parts."""
    places: dict[str, tuple[str, int]] = {}
    for part in streams.parts(layout.archive_dir, ".md", date):
        try:
            text = part.path.read_bytes().decode("utf-8-sig", errors="replace")
        except OSError:
            continue
        for line in parse_log(text).facts:
            places.setdefault(normalize(line.fact.content), (str(part.path), line.line))
    return places


def by_date(facts: list[UncoveredFact]) -> dict[str, set[str]]:
    """Day -> normalized texts, as the indexer filters a consolidated day's log."""
    found: dict[str, set[str]] = {}
    for fact in facts:
        found.setdefault(fact.date, set()).add(normalize(fact.text))
    return found
