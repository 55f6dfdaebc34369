"""Consolidated facts that no page holds any more: searchable again from their logs, offered again.

Once a dream put a fact on a page and the watermark moved past its day, the page is the only
place search finds it: the day's log rows leave the index. A page can still lose it afterwards:
a sync tool replaces the page with another device's older version and keeps no conflict copy,
an old backup is restored over it, or a person deletes the bullet by hand. The same rule holds
for all of these: a fact of a consolidated day that no page holds and that is not forgotten is
*not consolidated* again. It is indexed from its daily log, listed by ``status``, ``doctor``
and the dream panel, and the next dream offers it to the engine, which puts it back on a page
(like the facts no page held in the first place, ``core/engines/ledger/uncovered.py``). Forget is the way
to remove a memory; deleting its bullet only takes it off the page. Undoing a forget makes it a
memory again: a forgotten fact keeps its entry (never listed while forgotten), so when the undo
leaves no page holding it (the line could not be put back, or a sync tool then brought a version of
the page written while it was forgotten) it is given back like any other.

The record, ``.state/held_facts.json``, is written by the dream (under its lease on a home
shared by several devices) before its ingest entry: for each fact of a consolidated day that
stands on a page, the page and the line that holds it, found by the coverage check
(``core/engines/dream/guards/coverage.py``: the same text, the same subject and value, a near duplicate, or
the bullet the engine merged it into). Each productive run also finds again the facts of
earlier runs that moved (the engine rewrote the line, a person moved it to another page).

The check costs a ``stat`` per page that holds facts: a page is read again only when its
size, time or file changed, and the whole vault only when a fact is missing from its page
(it may have moved). A page edit that keeps every fact changes nothing. A fact moved by hand
to a page that held none of the record's facts counts as lost until the next dream finds it
there (it is then offered, found on that page by the coverage check, and recorded there).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from suzent_desktop.core.files.disk.atomic import atomic_write_text
from suzent_desktop.core.files.disk.regular import read_regular
from suzent_desktop.core.files.disk.text_hygiene import loads_json
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.records.tombstones import Tombstones, normalize
from suzent_desktop.core.vault.facts.page_lines import PageLines, vault_of, where
from suzent_desktop.core.vault.forgotten import Forgotten
from suzent_desktop.core.vault.model import Kind, Vault, VaultSnapshot

if TYPE_CHECKING:
    from suzent_desktop.core.engines.dream.guards.coverage import CoverageReport
    from suzent_desktop.core.engines.dream.model import Batch
    from suzent_desktop.core.vault.days import Days

VERSION = 1
Signature = tuple[int, int, int, int] | None  # (mtime_ns, ctime_ns, size, inode); None: not there


@dataclass(frozen=True)
class Held:
    """A fact of a consolidated day and where a page holds it."""

    date: str
    text: str
    line: int | None
    page: str  # vault-relative path
    holds: str  # the page's line (or sentence) that holds it

    @property
    def key(self) -> tuple[str, str]:
        return self.date, normalize(self.text)


def _path(layout: Layout) -> Path:
    return layout.state_dir / "held_facts.json"


def _signature(path: Path) -> Signature:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size, stat.st_ino  # a sync tool sets mtime, never ctime


def load(layout: Layout) -> list[Held]:
    """The record; a missing or unreadable file is an empty record (nothing is checked)."""
    try:
        data = loads_json(read_regular(_path(layout)).decode("utf-8"))
    except (OSError, ValueError):
        return []
    found: list[Held] = []
    for item in data.get("facts", []) if isinstance(data, dict) else []:
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in ("date", "text", "page", "holds")):
            continue
        line = item.get("line")
        found.append(Held(item["date"], item["text"], line if isinstance(line, int) else None, item["page"],
                          item["holds"]))
    return found


def save(layout: Layout, facts: Iterable[Held]) -> None:
    ordered = sorted({f.key: f for f in facts}.values(), key=lambda f: (f.date, f.line or 0, f.text))
    document = {"version": VERSION, "facts": [
        {"date": f.date, "text": f.text, "line": f.line, "page": f.page, "holds": f.holds} for f in ordered]}
    atomic_write_text(_path(layout), json.dumps(document, ensure_ascii=False, indent=1) + "\n")


def _found(fact: Held, lines: PageLines) -> tuple[str, str] | None:
    """Where ``lines`` hold the fact now: the line recorded, else the fact by the exact rules."""
    return where(fact.holds, lines) or where(" ".join(fact.text.split()), lines)


def record_run(layout: Layout, batch: Batch, coverage: CoverageReport, end: str | None) -> None:
    """After a productive run whose watermark is ``end``: where the pages hold the facts of the
    days up to ``end`` (the batch's days replace their entries), and where they hold the facts
    of earlier runs now. A fact earlier recorded that no page holds keeps its entry: it is lost,
    and stays so until a page holds it again or it is forgotten. A forgotten fact keeps its entry
    too, never listed while forgotten: when the forget is undone (on any device, after any number
    of dreams) and no page holds the fact, it is lost like any other."""
    if end is None:
        return
    forgotten = Forgotten(Tombstones(layout).contents())
    lines = coverage.vault
    facts = {(f.date, normalize(f.fact.content)): f for f in batch.facts}
    kept: list[Held] = []
    for fact in load(layout):
        if fact.date in batch.dates or fact.key in coverage.held:
            continue  # a forgotten fact keeps its entry: once the forget is undone, it is a memory again
        now = _found(fact, lines) if lines is not None else None
        kept.append(fact if now is None else Held(fact.date, fact.text, fact.line, *now))
    for key, (page, line) in coverage.held.items():
        taken = facts.get(key)
        if taken is not None and taken.date <= end and not forgotten.holds(taken.fact.content):
            kept.append(Held(taken.date, taken.fact.content, taken.line, page, line))
    save(layout, kept)


# -- the check: what the record names that no page holds now ----------------------------------------
class LostFacts:
    """The check, with what it has read kept per instance: a page is read again only when its
    signature changed, and the vault's pages (from the vault model) only when the set of facts
    missing from their pages changed. The home holds one for the indexer's passes; a caller that
    runs once (a dream's gate, ``doctor``) may build its own."""

    def __init__(self, layout: Layout, vault: Vault) -> None:
        self.layout = layout
        self.vault = vault
        self._lock = threading.Lock()
        self._record: tuple[Signature, list[Held]] | None = None
        self._pages: dict[Path, tuple[Signature, frozenset[tuple[str, str]]]] = {}  # page -> missing keys
        # the candidates, the model's snapshot they were looked for in (None: not watched), those lost
        self._moved: tuple[frozenset[tuple[str, str]], VaultSnapshot | None, frozenset[tuple[str, str]]] | None = None

    def lost(self, days: Days) -> list[tuple[str, str, int | None]]:
        """(date, text, line) of each recorded fact of a consolidated day that no page holds and
        that is not forgotten, oldest day first."""
        facts = self._facts()  # all of them, so what is kept never depends on the watermark
        if not any(days.is_consolidated(f.date) for f in facts):
            return []
        by_page: dict[str, list[Held]] = {}
        for fact in facts:
            by_page.setdefault(fact.page, []).append(fact)
        candidates = frozenset().union(*(self._missing_from(page, held) for page, held in by_page.items()))
        if not candidates:
            return []
        forgotten = Forgotten(Tombstones(self.layout).contents())
        texts = {f.key: f.text for f in facts}
        candidates = frozenset(k for k in candidates if not forgotten.holds(texts[k]))  # forget took them off
        if not candidates:
            return []
        gone = self._gone(facts, candidates)
        if not any(days.is_consolidated(date) for date, _text in gone):
            return []
        found = {f.key: f for f in facts
                 if f.key in gone and days.is_consolidated(f.date) and not forgotten.holds(f.text)}
        return sorted(((f.date, f.text, f.line) for f in found.values()), key=lambda f: (f[0], f[2] or 0, f[1]))

    def _facts(self) -> list[Held]:
        signature = _signature(_path(self.layout))
        with self._lock:
            if self._record is not None and self._record[0] == signature:
                return self._record[1]
        facts = load(self.layout) if signature is not None else []
        with self._lock:
            self._record = (signature, facts)
            self._pages.clear()  # the record changed: every page is looked at again
            self._moved = None
        return facts

    def _missing_from(self, page: str, facts: list[Held]) -> frozenset[tuple[str, str]]:
        """Keys of ``facts`` (all recorded on ``page``) that the page does not hold now."""
        path = self.layout.notebook_dir / page
        signature = _signature(path)
        with self._lock:
            known = self._pages.get(path)
        if known is not None and known[0] == signature:
            return known[1]
        text = _read(path) if signature is not None else None
        lines = vault_of({page: text}) if text is not None else None
        missing = frozenset(f.key for f in facts if lines is None or _found(f, lines) is None)
        with self._lock:
            self._pages[path] = (signature, missing)
        return missing

    def _gone(self, facts: list[Held], candidates: frozenset[tuple[str, str]]) -> frozenset[tuple[str, str]]:
        """The candidates no page of the vault holds (a fact that left its page may stand on another).

        What was found is kept while the candidates stay the same and, where a watcher keeps the
        vault model current, while the model has not changed; where nothing watches, a look at the
        whole vault is taken only when the candidates change (a fact left its page)."""
        view = self.vault.snapshot() if self.vault.watched else None
        with self._lock:
            known = self._moved
        if known is not None and known[0] == candidates and known[1] is view:
            return known[2]
        lines = _lines_of(view or self.vault.current(), self.layout.notebook_dir)
        gone = frozenset(f.key for f in facts if f.key in candidates and _found(f, lines) is None)
        with self._lock:
            self._moved = (candidates, view, gone)
        return gone


def _lines_of(snapshot: VaultSnapshot, root: Path) -> PageLines:
    """Every page of the vault as the model holds it (its pages leave out the memory folder, hidden
    folders and the navigation files)."""
    pages: dict[str, str] = {}
    for path in snapshot.files(Kind.PAGE):
        text = snapshot.text(path)
        if text is not None and path.suffix.lower() == ".md":
            pages[path.relative_to(root).as_posix()] = text
    return vault_of(pages)


def _read(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return None
