"""Which files should have index rows now, and which of them the index is behind on: one part of the indexer.

The sources are the core files, the vault's pages and boards (from the vault model's snapshot), the
daily logs after the watermark (and, of a consolidated day, only the facts the memory ledger keeps:
``kept``, given by the home) and the transcripts. While a watcher reports changes, the vault files the
index may be behind on are kept in a cache it feeds, so asking never walks the vault.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from suzent_desktop.core.files.clock import Clock
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.records.archive import Archive
from suzent_desktop.core.files.records.transcripts import Transcripts
from suzent_desktop.core.files.sync import streams
from suzent_desktop.core.files.sync.sync_conflicts import page_name
from suzent_desktop.core.index.storage.state import FileState, digest
from suzent_desktop.core.index.storage.table import IndexTable
from suzent_desktop.core.vault.canvas import CANVAS_SUFFIX
from suzent_desktop.core.vault.days import Days
from suzent_desktop.core.vault.model import Kind, Vault, VaultSnapshot
from suzent_desktop.core.vault.notebook import Notebook

log = logging.getLogger(__name__)

# Day -> normalized facts of a consolidated day whose log rows stay in search (no page holds them).
KeptFacts = Callable[[Days], dict[str, set[str]]]


@dataclass(frozen=True)
class Moment:
    """The vault (one snapshot of its model) and the days as a reader already took them (``doctor``):
    the sources asked with it read neither again, so a report of the index and of the files
    describes one moment, and the vault is walked once."""

    vault: VaultSnapshot
    days: Days


@dataclass
class Source:
    key: str  # the path as a string: the state's and the table's key (a big vault makes many)
    source_type: str
    date: str | None = None
    zone: str | None = None
    # A consolidated day's log gives rows only for these facts (normalized): the ones no page holds.
    only: frozenset[str] | None = None
    stat: tuple[float, int] | None = None  # (mtime, size) when the scan that found it read them

    @cached_property
    def path(self) -> Path:
        return Path(self.key)

    @property
    def variant(self) -> str:
        """Which rows the file gives besides its bytes: a change re-plans the file."""
        return "" if self.only is None else "only:" + digest(self.only)


def stat_of(key: str) -> tuple[float, int] | None:
    """(mtime, size) of a file, None when it cannot be read."""
    try:
        stat = os.stat(key)
    except OSError:
        return None
    return stat.st_mtime, stat.st_size


def behind(sources: dict[str, Source], files: dict[str, FileState], failed: set[str]) -> set[str]:
    """The sources the index is behind on: never indexed, failed, another variant, or another mtime or size."""
    stale: set[str] = set()
    for key, source in sources.items():
        prior = files.get(key)
        if prior is None or prior.dirty or key in failed or prior.variant != source.variant:
            stale.add(key)
            continue
        if source.stat is None:
            source.stat = stat_of(key)
            if source.stat is None:
                stale.add(key)
                continue
        if source.stat != (prior.mtime, prior.size):
            stale.add(key)
    return stale


class Sources:
    """What should be indexed, what is behind, and the cache a watcher keeps of the vault's part."""

    def __init__(
        self,
        layout: Layout,
        table: IndexTable,
        *,
        notebook: Notebook,
        archive: Archive,
        transcripts: Transcripts,
        vault: Vault,
        clock: Clock,
        kept: KeptFacts | None = None,
    ) -> None:
        self.layout = layout
        self.table = table
        self.notebook = notebook
        self.archive = archive
        self.transcripts = transcripts
        self.vault = vault
        self.clock = clock
        self.kept: KeptFacts = kept or (lambda days: {})
        self._stale_vault: set[str] | None = None  # vault files the index may be behind on; None: walk to know
        self._watched = False  # a watcher feeds note_changed: the cache above can be trusted
        # watch() counts its calls; the cache is trusted only if made after the latest (no lock: GUI thread)
        self._watch_epoch = 0
        self._cache_epoch = 0
        self._noted: list[str] = []  # paths the watcher reported, not yet taken into the cache

    # -- what should have rows -------------------------------------------------------------------
    def all(self, fresh: bool | None = None, at: Moment | None = None) -> dict[str, Source]:
        """Every file that should have rows now (or ``at`` a moment already read): core files, content
        pages, logs after the watermark."""
        return {**self.vault_sources(fresh=fresh, at=at), **self.memory_sources(at)}

    def vault_sources(
        self, under: Path | None = None, fresh: bool | None = None, at: Moment | None = None
    ) -> dict[str, Source]:
        """The vault's pages and boards (or those under one folder of it), with their mtime and size.

        From the vault model (``core/vault/model.py``), whose walk takes the stat with the listing and
        whose one classifier says which files are pages and boards.
        """
        root = str(self.notebook.root)
        found: dict[str, Source] = {}
        if under is not None and (
            not self.in_vault(os.path.join(under, "x"))
            or any(part.startswith(".") for part in Path(under).relative_to(root).parts)
        ):
            return found  # outside the vault, hidden, or the memory folder: no pages there
        inside = os.path.join(str(under), "") if under is not None else root + os.sep
        # The vault model, walked once per process; walked again where no watcher keeps it current
        # (the command line, the MCP server) or when ``fresh`` asks (a user's "reindex changed files").
        snapshot = at.vault if at is not None else self.vault.walk(under, force=bool(fresh))
        for file in snapshot.entries(Kind.PAGE, Kind.CANVAS):
            key = file.key
            if key.startswith(inside):
                found[key] = self._page(key, file.stat)
        for key in snapshot.unreadable():  # a dangling link or a loop: the pass names it (and drops its rows)
            if key.startswith(inside) and self.vault.kind(Path(key)) in (Kind.PAGE, Kind.CANVAS):
                found[key] = self._page(key, None)
        return found

    def _page(self, key: str, stat: tuple[float, int] | None) -> Source:
        head, sep, _ = key[len(str(self.notebook.root)) + 1 :].partition(os.sep)
        return Source(key, "notebook", zone=head if sep else "", stat=stat)

    def memory_sources(self, at: Moment | None = None) -> dict[str, Source]:
        """Core files, daily logs after the watermark (or not consolidated), transcripts: few, and cheap."""
        found: dict[str, Source] = {}
        for path in self.layout.core_files:
            if path.is_file():
                found[str(path)] = Source(str(path), "core")
        days = at.days if at is not None else Days.read(self.notebook, self.clock.today())
        kept = self.kept(days)
        for part in streams.dated_parts(self.layout.archive_dir, ".md"):  # every device's log of a day
            source = self._archive_source(part.base, days, kept, part.path)
            if source is not None:
                found[source.key] = source
        for part in streams.dated_parts(self.layout.transcripts_dir, ".jsonl"):  # every day: evidence behind pages
            found[str(part.path)] = Source(str(part.path), "transcript", date=part.base)
        return {key: source for key, source in found.items() if self.layout.confinement.allows(key)}

    @staticmethod
    def _archive_source(date: str, days: Days, kept: dict[str, set[str]], path: Path) -> Source | None:
        """A log after the watermark (or skipped) gives all its facts; a consolidated one only
        those no page holds (``core/engines/ledger/uncovered.py``); otherwise none."""
        if days.indexed(date):
            return Source(str(path), "archive", date=date)
        if date in kept:
            return Source(str(path), "archive", date=date, only=frozenset(kept[date]))
        return None

    def source_for(self, path: Path) -> Source | None:
        """The source a single path stands for now, or None when it should have no rows."""
        path = Path(path)
        if not self.layout.confinement.allows(path):
            return None  # a link out of the vault or into a program folder (core/files/disk/confine.py)
        kind = self.vault.kind(path)
        if kind is Kind.CORE:
            return Source(str(path), "core") if path.is_file() else None
        if kind in (Kind.PAGE, Kind.CANVAS):
            if not path.is_file():
                return None
            parts = Path(self.notebook.relative(path)).parts
            return Source(str(path), "notebook", zone=parts[0] if len(parts) > 1 else "")
        if kind is Kind.LOG and (part := streams.parse_part(path.name, ".md")) is not None:
            if part.base not in self.archive.dates() or not path.is_file():
                return None
            days = Days.read(self.notebook, self.clock.today())
            return self._archive_source(part.base, days, self.kept(days), path)
        if kind is Kind.TRANSCRIPT and (part := streams.parse_part(path.name, ".jsonl")) is not None:
            if part.base in self.transcripts.dates() and path.is_file():
                return Source(str(path), "transcript", date=part.base)
        return None

    def expand(self, paths: list[Path]) -> list[Path]:
        """Folders stand for the files under them: those there now and those indexed there before."""
        found: dict[str, Path] = {}
        known = set(self.table.files())
        for path in paths:
            key = str(path)
            if path.is_dir():
                found.update((k, s.path) for k, s in self.vault_sources(path).items())
            elif key in known or path.exists():
                found[key] = path
                continue
            prefix = key + os.sep  # a folder now, or one that was renamed or deleted
            found.update((k, Path(k)) for k in known if k.startswith(prefix))
            if not path.is_dir():
                found.setdefault(key, path)
        return list(found.values())

    def in_vault(self, key: str) -> bool:
        """A path of the vault's own files (not of a memory folder kept inside it)."""
        root, memory = self._prefixes
        return key.startswith(root) and (memory is None or not key.startswith(memory))

    @cached_property
    def _prefixes(self) -> tuple[str, str | None]:
        """The vault's path and, when the memory folder is inside it, that folder's (as string prefixes)."""
        root, memory = self.notebook.root, self.layout.memory_dir
        return f"{root}{os.sep}", None if memory == root else f"{memory}{os.sep}"

    # -- what is behind --------------------------------------------------------------------------
    def _named(
        self, keys: set[str], files: dict[str, FileState], failed: set[str]
    ) -> tuple[dict[str, Source], set[str], list[str]]:
        """Vault files named by the watcher's cache: those there now, which of them are behind,
        and those gone that still have rows."""
        candidates = {k: self.source_for(Path(k)) for k in keys}
        present = {k: src for k, src in candidates.items() if src is not None}
        gone = [k for k, src in candidates.items() if src is None and k in files]
        return present, behind(present, files, failed), gone

    def targets(self, everything: bool, walk: bool) -> tuple[list[Source], list[str], set[str]]:
        """The files a pass must read (``everything``: all of them), the indexed files that are
        gone, and the cached candidates it took (those the watcher notes while it runs stay cached).

        The vault is walked on the first pass, on request and where no watcher reports changes
        (the command line); while one does, its cache names the only vault files that can be
        behind, so a pass after a dream or an undo costs what changed, not the vault's size.
        """
        self.take_notes()
        with self.table.state_lock:
            files, failed = self.table.files(), self.table.failed()
            trusted = self._watched and not (walk or everything) and self._stale_vault is not None
            cached = set(self._stale_vault) if self._stale_vault is not None else set()
        if not trusted:
            sources = self.all(fresh=walk)
            late = set(sources) if everything else behind(sources, files, failed)
            return [s for s in sources.values() if s.key in late], [k for k in files if k not in sources], cached
        memory = self.memory_sources()
        # besides what the watcher named: files a pass failed on or found rows missing for
        redo = {k for k, f in files.items() if (f.dirty or k in failed) and self.in_vault(k)}
        present, late, vanished = self._named(cached | redo, files, failed)
        late |= behind(memory, files, failed)
        gone = [k for k in files if not self.in_vault(k) and k not in memory] + vanished
        return [s for s in {**present, **memory}.values() if s.key in late], gone, cached

    def stale_paths(self, *, refresh: bool = False, at: Moment | None = None) -> list[Path]:
        """Files the index is behind on: changed since indexed (mtime or size), never indexed, failed, gone
        (``at``: against the vault and days of that moment, read by the caller).

        While a watcher reports changes (:meth:`watch`, :meth:`note_changed`), the vault's part
        comes from a cache that it and the passes keep, so asking after every search or status
        refresh never walks the vault: only the cached candidates are looked at again. The vault
        is walked the first time, when ``refresh`` asks, and in a process that watches nothing
        (the command line). Core files and daily logs are few and always checked.
        """
        self.take_notes()
        epoch = self._watch_epoch
        with self.table.state_lock:
            trusted = self._watched and not refresh and at is None and self._stale_vault is not None
            cached = set(self._stale_vault) if trusted and self._stale_vault is not None else None
            files, failed = self.table.files(), self.table.failed()
        try:
            memory = self.memory_sources(at)
            table_gone = bool(files) and not self.table.exists
            vault = self.vault_sources(fresh=refresh, at=at) if cached is None or table_gone else None
        except OSError:
            return []
        if table_gone and vault is not None:  # the table was deleted: everything is behind
            return sorted(s.path for s in {**vault, **memory}.values())
        stale = behind(memory, files, failed) | {k for k in files if k not in memory and not self.in_vault(k)}
        if vault is not None:
            found = behind(vault, files, failed) | {k for k in files if k not in vault and self.in_vault(k)}
        else:
            _present, late, gone = self._named(cached or set(), files, failed)
            found = late | set(gone)
        with self.table.state_lock:
            self._stale_vault = found
            self._cache_epoch = epoch
        return sorted(Path(k) for k in stale | found)

    # -- the watcher's cache ---------------------------------------------------------------------
    @property
    def epoch(self) -> int:
        """How many times watching started or stopped: a pass notes it before it looks."""
        return self._watch_epoch

    def watch(self, watching: bool) -> None:
        """A watcher reports every change from now on (or stopped): only then is the cache trusted,
        and the vault model, which the watcher feeds too. Either way the next look walks the vault
        once. Called on the GUI thread, so it takes no lock a pass may hold (a first pass holds it
        for seconds): the next look drops the cache."""
        self._watched = watching
        self.vault.watch(watching)
        self._watch_epoch += 1

    def note_changed(self, paths: Iterable[Path]) -> None:
        """The watcher saw these change (files, or folders: every file indexed under them counts):
        they count as behind until a pass takes them. Called on the GUI thread per event, so it
        only queues them (no lock a pass may hold); the next look at the cache takes them in."""
        self._noted.extend(str(p) for p in paths)

    def take_notes(self) -> None:
        """Move the paths the watcher reported into the stale cache (under the state lock)."""
        with self.table.state_lock:
            noted, self._noted = self._noted, []
            if self._cache_epoch != self._watch_epoch:  # made before the watcher started or stopped
                self._stale_vault = None
            if self._stale_vault is None:
                return  # not known yet: the first look walks the vault anyway
            files = self.table.state.files
            for key in noted:
                if not self.in_vault(key):
                    continue
                page = page_name(os.path.basename(key).lower()).endswith((".md", CANVAS_SUFFIX))  # conflict copies too
                if key in files or page:
                    self._stale_vault.add(key)
                if key not in files and not page:
                    prefix = key + os.sep  # a folder: the files indexed under it
                    self._stale_vault.update(k for k in files if k.startswith(prefix))

    def after_pass(self, cached: set[str], epoch: int, cancelled: bool) -> None:
        """After a whole pass that took ``cached`` (at ``epoch``): what is still behind is what it failed
        on and what the watcher noted meanwhile; a cancelled pass leaves the next look to walk."""
        self.take_notes()
        with self.table.state_lock:
            noted = set() if self._stale_vault is None else self._stale_vault - cached
            errors = {k for k in self.table.state.errors if self.in_vault(k)}
            self._stale_vault = None if cancelled else errors | noted
            self._cache_epoch = epoch

    def after_paths(self, paths: Iterable[Path], gone: list[str], sources: list[Source]) -> None:
        """After a pass over named paths: they are behind no more, unless it failed on them."""
        self.take_notes()
        with self.table.state_lock:
            if self._stale_vault is None:
                return
            self._stale_vault.difference_update([*gone, *(str(p) for p in paths)])
            errors = self.table.state.errors
            for key in (s.key for s in sources):
                (self._stale_vault.add if key in errors else self._stale_vault.discard)(key)
