"""Forget: what the user asks to forget leaves search, the pages, MEMORY.md and the model's prompts,
and undo brings it back where it stood.

The service holds the units a forget names (``core/engines/forgetting.py``), the tombstones, the
page strip and its journal, and undo. Whether a text is forgotten is the one rule of
``core/vault/forgotten.py``: :meth:`Forget.rule` hands it to every place that asks.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import KW_ONLY, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from suzent_desktop.core.engines import forget_match, forgetting
from suzent_desktop.core.engines.forgetting import ForgetJournal
from suzent_desktop.core.files.clock import Clock
from suzent_desktop.core.files.disk.regular import read_regular
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.records.archive import Archive, ArchiveError
from suzent_desktop.core.files.records.log_grammar import Fact
from suzent_desktop.core.files.records.tombstones import Tombstones, normalize
from suzent_desktop.core.files.records.transcripts import Transcripts, clean_text, turn_chunks, turn_key
from suzent_desktop.core.index.ranking import hits
from suzent_desktop.core.services.capture import append_and_index
from suzent_desktop.core.vault.forgotten import Forgotten
from suzent_desktop.core.vault.links import inside_vault
from suzent_desktop.core.vault.model import Kind, Vault

if TYPE_CHECKING:
    from suzent_desktop.core.index.indexer import Indexer


@dataclass(eq=False)  # a service is itself, not its parts
class Forget:
    """Forget and undo over one home's tombstones, pages, logs, turns and index."""

    layout: Layout
    clock: Clock
    _: KW_ONLY
    indexer: Indexer
    tombstones: Tombstones
    journal: ForgetJournal
    vault: Vault
    archive: Archive
    transcripts: Transcripts

    def rule(self) -> Forgotten:
        """The live tombstones with the one rule for "is this text forgotten" (reads the tombstones)."""
        return Forgotten(self.tombstones.contents())

    # -- what a forget names ---------------------------------------------------------------
    async def units_to_forget(self, text: str, *, source_type: str | None = None, path: str | None = None) -> list[str]:
        """What forgetting ``text`` tombstones: the paragraphs and list items it stands for, each on its own.

        ``text`` is a search hit (give its source type and path) or typed text; typed text that is
        exactly an indexed row (a hit copied from ``search``) is read as that row.
        """
        if source_type is None:
            hit = await forget_match.hit_named(self.indexer, text)
            if hit is not None:  # a hit as search showed it: every place it folds
                return await asyncio.to_thread(self.hit_units, hit)
            row = await self.indexer.row_with_text(text)
            if row is not None:
                source_type, path, text = row
        return await asyncio.to_thread(self.units_of_hit, text, source_type, path)

    def hit_units(self, hit: Any) -> list[str]:
        """Every unit a search hit stands for, in each place it folds (a page bullet, a MEMORY.md line, a log line).

        Reads those files only (never the index), so the window may call it for a dialog.
        """
        places = getattr(hit, "places", None) or [hit]
        units: dict[str, str] = {}
        for place in places:
            if place.source_type in hits.EVIDENCE_SOURCES and hit.source_type not in hits.EVIDENCE_SOURCES:
                # The turn a fact was taken from folds in as its evidence. Forgetting the fact hides that
                # turn through the fact's turn tag (tied to the fact, so undo brings it back); as a unit of
                # its own it would take every other fact said in the same turn with it.
                continue
            for unit in self.units_of_hit(place.text, place.source_type, str(place.path)):
                units.setdefault(normalize(unit), unit)
        return list(units.values())

    def units_of_hit(self, text: str, source_type: str | None, path: str | None) -> list[str]:
        """The units of a hit whose source is known (reads that one file, never the index)."""
        page_text = None
        if path and source_type not in (None, "archive", "transcript"):
            try:
                page_text = read_regular(Path(path)).decode("utf-8", errors="replace")
            except OSError:
                page_text = None
        return forgetting.units_for(text, source_type=source_type, page_text=page_text)

    # -- forget --------------------------------------------------------------------------------
    async def forget(
        self,
        text: str,
        *,
        source_type: str | None = None,
        path: str | None = None,
        units: list[str] | None = None,
        hit: Any = None,
        force: bool = False,
        from_notes: Iterable[Path] | bool = False,
    ) -> ChangeSet:
        """Tombstone each unit the text stands for, drop their rows at once and take them off pages.

        In a vault the app was opened on, a note the person wrote (``Layout.persons_note``) keeps
        the text as written: it leaves search, the app's pages, MEMORY.md and the model's prompts
        only. ``from_notes`` also takes it off these notes (True: every note of theirs holding it).

        Typed text must name exactly one memory (``core/engines/forget_match.py``): cut-short text that
        could mean several, or text that matches nothing, is refused and nothing is recorded,
        unless ``force`` (text not captured yet, kept from ever being indexed). The
        transcript turns the units came from (a fact's ``turn:`` tag, or the turn a transcript
        hit belongs to) are tombstoned too, tied to their unit: undoing it brings them back.
        """
        if units is None and hit is not None:
            units = await asyncio.to_thread(self.hit_units, hit)
        if units is None and source_type is None:  # typed text: exactly one memory, or refused (forget_match.py)
            text = await forget_match.exact_target(self.indexer, text, force=force)
        if units is None:
            units = await self.units_to_forget(text, source_type=source_type, path=path)
        if not any(u.strip() for u in units):
            raise ValueError("nothing to forget: the text is empty")
        norms = await asyncio.to_thread(self.tombstones.add_many, units)
        removed = await self.indexer.remove_texts(norms)
        removed += await self._forget_source_turns(norms)
        changes = ChangeSet(tombstones=True, rows_removed=removed, index=removed > 0, forgotten=list(norms))
        changes.merge(await self.take_off_pages(norms))
        if from_notes:
            notes = None if from_notes is True else [Path(p) for p in from_notes]
            changes.merge(await self.take_off_pages(norms, notes, from_notes=True))
        return changes

    def notes_holding(self, units: Iterable[str], paths: Iterable[Path | str] | None = None) -> list[Path]:
        """Which of ``paths`` (default: the vault's pages) are notes the person wrote that hold one of
        ``units`` (reads those files): the notes a forget leaves as written unless asked."""
        rule = Forgotten(units)
        if paths is None:
            paths = self.vault.current(parsed=False).files(Kind.PAGE)
        found: list[Path] = []
        for path in dict.fromkeys(Path(p) for p in paths):
            if not self.layout.persons_note(path) or not self._ours(path):
                continue
            try:
                text = path.read_bytes().decode("utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if forgetting.find_forgotten(text, rule):
                found.append(path)
        return found

    async def _forget_source_turns(self, norms: list[str]) -> int:
        """Tombstone the source turn of each forgotten unit, and the facts of a forgotten turn; rows removed.

        Every such tombstone names its unit (``of``), so undoing the unit lifts them all.
        """
        turns, facts = await asyncio.to_thread(self.source_turns, set(norms))
        removed = 0
        for norm in dict.fromkeys([*turns.values(), *facts.values()]):
            keys = [turn_key(t) for t, n in turns.items() if n == norm] + [f for f, n in facts.items() if n == norm]
            await asyncio.to_thread(
                self.tombstones.add_many, keys, reason="source turn of a forgotten text, and its facts", of=norm
            )
            removed += await self.indexer.remove_texts([normalize(k) for k in keys])
        return removed

    def source_turns(self, norms: set[str]) -> tuple[dict[str, str], dict[str, str]]:
        """What else forgetting ``norms`` reaches (blocking: run in a thread).

        Returns turn id → forgotten text (the turns of fact lines with that text, and turns
        with a side or an index piece of that text), and fact text → forgotten text for the
        facts extracted from a forgotten turn.
        """
        turns: dict[str, str] = {}
        by_turn: dict[str, list[str]] = {}
        for date in self.archive.dates():
            try:
                parsed = self.archive.read(date)
            except (ArchiveError, OSError):
                continue
            for line in parsed.facts:
                if not line.fact.turn:
                    continue
                norm = normalize(line.fact.content)
                by_turn.setdefault(line.fact.turn.lower(), []).append(norm)
                if norm in norms:
                    turns.setdefault(line.fact.turn.lower(), norm)
        facts: dict[str, str] = {}
        for turn in self.transcripts.turns():
            texts = [clean_text(turn.user), clean_text(turn.assistant), *turn_chunks(turn)]
            match = next((n for n in map(normalize, texts) if n in norms), None)
            if match is not None:
                turns.setdefault(turn.id, match)
                facts.update({f: match for f in by_turn.get(turn.id, []) if f not in norms})
        return turns, facts

    # -- the page strip --------------------------------------------------------------------------
    async def take_off_pages(
        self, stones: Iterable[str], pages: Iterable[Path] | None = None, *, from_notes: bool = False
    ) -> ChangeSet:
        """Remove forgotten paragraphs and items from notebook pages and core files (all, or these).

        Notes the person wrote are left as written unless ``from_notes`` (they asked for it).
        Each removal is journalled, so undo puts the lines back where they stood.
        """
        changed, outside = await asyncio.to_thread(
            self._strip_pages, Forgotten.of(stones), None if pages is None else list(pages), from_notes
        )
        core = set(self.layout.core_files)
        changes = ChangeSet(pages={p for p in changed if p not in core}, memory_md=any(p in core for p in changed))
        changes.errors += [
            f"forgotten text remains on {p}: it is outside the vault (reached through a link), which the app "
            "never writes; search no longer shows it"
            for p in outside
        ]
        if changed:
            changes.merge(await self.indexer.sync_paths(changed))
        return changes

    async def take_off_synced_back(self, changes: ChangeSet) -> ChangeSet:
        """Forgotten text an index pass found on a page (another device's page written before the
        forget reached it, or a forget synced in after the page) is taken off that page now, as a
        forget takes it (journalled, so undo puts it back), not at the next productive dream."""
        pages = self.indexer.take_holding_forgotten()
        if pages:
            changes.merge(await self.take_off_pages(self.tombstones.contents(), pages))
        return changes

    def _strip_pages(
        self, rule: Forgotten, pages: list[Path] | None, from_notes: bool = False
    ) -> tuple[list[Path], list[Path]]:
        """Pages rewritten, and pages holding forgotten text left alone because they lie outside the vault."""
        if not rule:
            return [], []
        changed: list[Path] = []
        outside: list[Path] = []
        if pages is None:  # MEMORY.md too: the agent sees it on every turn
            vault = self.vault.current(parsed=False)  # the model; walked again only where nothing watches
            pages = [*vault.files(Kind.PAGE), *(p for p in self.layout.core_files if p.is_file())]
        for page in pages:
            try:
                text = read_regular(page).decode("utf-8")
            except (OSError, UnicodeDecodeError):
                continue  # never rewrite what cannot be read exactly
            kept, removals = forgetting.strip_forgotten(str(page), text, rule)
            if not removals:
                continue
            if not self._ours(page):
                outside.append(page)
                continue
            if self.layout.persons_note(page) and not from_notes:
                continue  # the person's own words: forgotten from memory, not from their note
            self.journal.record(removals)
            forgetting.rewrite_page(page, kept)
            changed.append(page)
        return changed, outside

    def _ours(self, page: Path) -> bool:
        """Whether forget and undo may rewrite ``page``: it really lives in the vault (core files: the memory folder).

        Folder links out of the vault are followed for reading, as Obsidian does, but what they
        lead to belongs to someone else and is never edited.
        """
        root = self.layout.memory_dir if page in self.layout.core_files else self.layout.notebook_dir
        return inside_vault(root, page)

    # -- undo ----------------------------------------------------------------------------------
    async def undo(self, text: str) -> ChangeSet:
        """Lift the tombstones ``text`` names, put their lines back on pages, and make them findable.

        A fact forgotten while its day was pending is in no live file once that day is
        consolidated (the dream left it out), so it is captured again in today's log: it is
        searchable at once and the next dream files it.
        """
        targets = await asyncio.to_thread(self._undo_targets, text)
        if not targets:
            raise ValueError(f"nothing to undo: {text.strip()[:80]!r} is not forgotten")
        for content in targets:
            await asyncio.to_thread(self.tombstones.undo, content)
        changes = ChangeSet(tombstones=True, restored=list(targets))
        pages, outside = await asyncio.to_thread(self._restore_pages, set(targets))
        changes.errors += [self._not_put_back(p) for p in outside]
        core = set(self.layout.core_files)
        changes.pages |= {p for p in pages if p not in core}
        changes.memory_md = any(p in core for p in pages)
        self.indexer.note_changed(pages)  # a watched index reads just these
        changes.merge(await self.indexer.sync())
        orphans = [c for c in targets if not await asyncio.to_thread(self.indexer.sources_holding, c)]
        facts = await asyncio.to_thread(self._consolidated_facts, orphans)
        if facts:
            changes.merge(await append_and_index(self.archive, self.indexer, facts, session_id="restored",
                                                 when=self.clock.now()))
        return changes

    def _not_put_back(self, page: Path) -> str:
        """Why an undo left a journalled page alone: a link leads it out of the vault, or the forget
        was recorded with a path no page of this vault answers to (another device's, an old place)."""
        if page.is_relative_to(self.layout.notebook_dir) or page.is_relative_to(self.layout.memory_dir):
            return (f"forgotten text not put back on {page}: it is outside the vault (reached through a link), "
                    "which the app never writes")
        return (f"forgotten text not put back on {page}: the forget recorded that page, and no page of this vault "
                "stands there (the forget was made on another device, or the page has moved); it is searchable "
                "again, add its line back by hand if you want it on a page")

    def _undo_targets(self, text: str) -> list[str]:
        """The live tombstones ``text`` names: itself (a tombstone as listed) or its paragraphs and items,
        read in every form ``forget`` reads (a pasted log line, a trailing full stop: ``forget_match``)."""
        live = self.tombstones.contents()
        forms = [v for typed in (text, forget_match.as_logged(text)) for v in forget_match.variants(typed)]
        wanted = [normalize(f) for f in forms] + [normalize(u) for f in forms for u in forgetting.units_for(f)]
        return [c for c in dict.fromkeys(wanted) if c in live]

    def _restore_pages(self, contents: set[str]) -> tuple[list[Path], list[Path]]:
        """Pages given their lines back, and journalled pages left alone because they now lie outside the vault."""
        removals = self.journal.outstanding(contents)
        by_path: dict[str, list[forgetting.Removal]] = {}
        for removal in removals:
            by_path.setdefault(removal.path, []).append(removal)
        changed: list[Path] = []
        outside: list[Path] = []
        done: list[str] = []
        for raw, items in by_path.items():
            page = Path(raw)
            if not self._ours(page):
                outside.append(page)
                continue
            try:
                text = read_regular(page).decode("utf-8") if page.exists() else ""
            except (OSError, UnicodeDecodeError):
                continue
            restored = text
            for removal in sorted(items, key=lambda r: r.line):
                restored = forgetting.restore_lines(restored, removal)
            if restored != text:
                forgetting.rewrite_page(page, restored)
                changed.append(page)
            done += [r.id for r in items]
        self.journal.mark_restored(done)
        return changed, outside

    def _consolidated_facts(self, contents: list[str]) -> list[Fact]:
        """The newest fact line of each content found in a daily log (for those no live file holds)."""
        wanted = set(contents)
        found: dict[str, Fact] = {}
        for date in reversed(self.archive.dates()):
            if not wanted - set(found):
                break
            try:
                parsed = self.archive.read(date)
            except (ArchiveError, OSError):
                continue
            for line in parsed.facts:
                norm = normalize(line.fact.content)
                if norm in wanted and norm not in found:
                    found[norm] = line.fact
        return [found[c] for c in contents if c in found]
