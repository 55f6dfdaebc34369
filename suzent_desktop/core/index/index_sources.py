"""Which files should have index rows now, and which of them the index is behind on.

Part of :class:`~suzent_desktop.core.index.indexer.Indexer` (a mixin: it uses the attributes the
indexer's ``__init__`` sets): core files, the vault's pages and boards, daily logs after the
watermark (or not consolidated) and transcripts. While a watcher reports changes, the files the
index may be behind on are kept in a cache it feeds, so asking never walks the vault.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from suzent_desktop.core.files import streams
from suzent_desktop.core.files.sync_conflicts import page_name
from suzent_desktop.core.index import uncovered
from suzent_desktop.core.index.index_state import FileState, digest
from suzent_desktop.core.index.index_store import TABLE_NAME
from suzent_desktop.core.vault.canvas import CANVAS_SUFFIX
from suzent_desktop.core.vault.days import Days
from suzent_desktop.core.vault.model import Kind

log = logging.getLogger(__name__)


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


def _stat_of(key: str) -> tuple[float, int] | None:
    try:
        stat = os.stat(key)
    except OSError:
        return None
    return stat.st_mtime, stat.st_size


_Source = Source  # the name the indexer's methods use


class SourceDiscovery:
    """Sources: what should be indexed, and what is behind."""

    def _sources(self, fresh: bool | None = None) -> dict[str, _Source]:
        """Every file that should have rows now: core files, content pages, logs after the watermark."""
        return {**self._vault_sources(fresh=fresh), **self._memory_sources()}

    def _vault_sources(self, under: Path | None = None, fresh: bool | None = None) -> dict[str, _Source]:
        """The vault's pages and boards (or those under one folder of it), with their mtime and size.

        From the vault model (``core/vault/model.py``), whose walk takes the stat with the listing and
        whose one classifier says which files are pages and boards.
        """
        root = str(self.notebook.root)
        found: dict[str, _Source] = {}
        if under is not None and (
            not self._in_vault(os.path.join(under, "x"))
            or any(part.startswith(".") for part in Path(under).relative_to(root).parts)
        ):
            return found  # outside the vault, hidden, or the memory folder: no pages there
        inside = os.path.join(str(under), "") if under is not None else root + os.sep
        # The vault model, walked once per process; walked again where no watcher keeps it current
        # (the command line, the MCP server) or when ``fresh`` asks (a user's "reindex changed files").
        snapshot = self.vault.walk(under, force=bool(fresh))
        for file in snapshot.entries(Kind.PAGE, Kind.CANVAS):
            key = file.key
            if not key.startswith(inside):
                continue
            head, sep, _ = key[len(root) + 1 :].partition(os.sep)
            found[key] = _Source(key, "notebook", zone=head if sep else "", stat=file.stat)
        for key in snapshot.unreadable():  # a dangling link or a loop: the pass names it (and drops its rows)
            if key.startswith(inside) and self.vault.kind(key) in (Kind.PAGE, Kind.CANVAS):
                head, sep, _ = key[len(root) + 1 :].partition(os.sep)
                found[key] = _Source(key, "notebook", zone=head if sep else "")
        return found

    def _memory_sources(self) -> dict[str, _Source]:
        """Core files, daily logs after the watermark (or not consolidated), transcripts: few, and cheap."""
        found: dict[str, _Source] = {}
        for path in self.layout.core_files:
            if path.is_file():
                found[str(path)] = _Source(str(path), "core")
        days = Days.read(self.notebook, self.clock.today())
        kept = uncovered.by_date(uncovered.searchable(self.layout, days))
        for part in streams.dated_parts(self.layout.archive_dir, ".md"):  # every device's log of a day
            source = self._archive_source(part.base, days, kept, part.path)
            if source is not None:
                found[source.key] = source
        for part in streams.dated_parts(self.layout.transcripts_dir, ".jsonl"):  # every day: evidence behind pages
            found[str(part.path)] = _Source(str(part.path), "transcript", date=part.base)
        return {key: source for key, source in found.items() if self.layout.confinement.allows(key)}

    def _archive_source(self, date: str, days: Days, kept: dict[str, set[str]], path: Path) -> _Source | None:
        """A log after the watermark (or skipped) gives all its facts; a consolidated one only
        those no page holds (``core/index/uncovered.py``); otherwise none."""
        if days.indexed(date):
            return _Source(str(path), "archive", date=date)
        if date in kept:
            return _Source(str(path), "archive", date=date, only=frozenset(kept[date]))
        return None

    def _source_for(self, path: Path) -> _Source | None:
        """The source a single path stands for now, or None when it should have no rows."""
        path = Path(path)
        if not self.layout.confinement.allows(path):
            return None  # a link out of the vault or into a program folder (core/files/confine.py)
        kind = self.vault.kind(path)
        if kind is Kind.CORE:
            return _Source(str(path), "core") if path.is_file() else None
        if kind in (Kind.PAGE, Kind.CANVAS):
            if not path.is_file():
                return None
            parts = Path(self.notebook.relative(path)).parts
            return _Source(str(path), "notebook", zone=parts[0] if len(parts) > 1 else "")
        if kind is Kind.LOG and (part := streams.parse_part(path.name, ".md")) is not None:
            if part.base not in self.archive.dates() or not path.is_file():
                return None
            days = Days.read(self.notebook, self.clock.today())
            kept = uncovered.by_date(uncovered.searchable(self.layout, days))
            return self._archive_source(part.base, days, kept, path)
        if kind is Kind.TRANSCRIPT and (part := streams.parse_part(path.name, ".jsonl")) is not None:
            if part.base in self.transcripts.dates() and path.is_file():
                return _Source(str(path), "transcript", date=part.base)
        return None

    def _expand(self, paths: list[Path]) -> list[Path]:
        """Folders stand for the files under them: those there now and those indexed there before."""
        found: dict[str, Path] = {}
        with self._state_lock:
            known = set(self.state.files)
        for path in paths:
            key = str(path)
            if path.is_dir():
                found.update((k, s.path) for k, s in self._vault_sources(path).items())
            elif key in known or path.exists():
                found[key] = path
                continue
            prefix = key + os.sep  # a folder now, or one that was renamed or deleted
            found.update((k, Path(k)) for k in known if k.startswith(prefix))
            if not path.is_dir():
                found.setdefault(key, path)
        return list(found.values())

    def _named(
        self, keys: set[str], files: dict[str, FileState], failed: set[str]
    ) -> tuple[dict[str, _Source], set[str], list[str]]:
        """Vault files named by the watcher's cache: those there now, which of them are behind,
        and those gone that still have rows."""
        candidates = {k: self._source_for(Path(k)) for k in keys}
        present = {k: src for k, src in candidates.items() if src is not None}
        gone = [k for k, src in candidates.items() if src is None and k in files]
        return present, self._behind(present, files, failed), gone

    def stale_paths(self, *, refresh: bool = False) -> list[Path]:
        """Files the index is behind on: changed since indexed (mtime or size), never indexed, failed, gone.

        While a watcher reports changes (:meth:`watch`, :meth:`note_changed`), the vault's part
        comes from a cache that it and the passes keep, so asking after every search or status
        refresh never walks the vault: only the cached candidates are looked at again. The vault
        is walked the first time, when ``refresh`` asks, and in a process that watches nothing
        (the command line). Core files and daily logs are few and always checked.
        """
        self._take_notes()
        epoch = self._watch_epoch
        with self._state_lock:
            trusted = self._watched and not refresh and self._stale_vault is not None
            cached = set(self._stale_vault) if trusted else None
            files = dict(self.state.files)
            failed = set(self.state.errors)
        try:
            memory = self._memory_sources()
            table_gone = bool(files) and not (self.layout.index_dir / f"{TABLE_NAME}.lance").exists()
            vault = self._vault_sources(fresh=refresh) if cached is None or table_gone else None
        except OSError:
            return []
        if table_gone:  # the table was deleted: everything is behind
            return sorted(s.path for s in {**vault, **memory}.values())
        stale = self._behind(memory, files, failed) | {k for k in files if k not in memory and not self._in_vault(k)}
        if vault is not None:
            found = self._behind(vault, files, failed) | {k for k in files if k not in vault and self._in_vault(k)}
        else:
            _present, behind, gone = self._named(cached, files, failed)
            found = behind | set(gone)
        with self._state_lock:
            self._stale_vault = found
            self._cache_epoch = epoch
        return sorted(Path(k) for k in stale | found)

    @staticmethod
    def _behind(sources: dict[str, _Source], files: dict[str, FileState], failed: set[str]) -> set[str]:
        stale: set[str] = set()
        for key, source in sources.items():
            prior = files.get(key)
            if prior is None or prior.dirty or key in failed or prior.variant != source.variant:
                stale.add(key)
                continue
            if source.stat is None:
                try:
                    stat = os.stat(key)
                except OSError:
                    stale.add(key)
                    continue
                source.stat = (stat.st_mtime, stat.st_size)
            if source.stat != (prior.mtime, prior.size):
                stale.add(key)
        return stale

    def _in_vault(self, key: str) -> bool:
        """A path of the vault's own files (not of a memory folder kept inside it)."""
        root, memory = self._prefixes
        return key.startswith(root) and (memory is None or not key.startswith(memory))

    @cached_property
    def _prefixes(self) -> tuple[str, str | None]:
        """The vault's path and, when the memory folder is inside it, that folder's (as string prefixes)."""
        root, memory = self.notebook.root, self.layout.memory_dir
        return f"{root}{os.sep}", None if memory == root else f"{memory}{os.sep}"

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

    def _take_notes(self) -> None:
        """Move the paths the watcher reported into the stale cache (under the state lock)."""
        with self._state_lock:
            noted, self._noted = self._noted, []
            if self._cache_epoch != self._watch_epoch:  # made before the watcher started or stopped
                self._stale_vault = None
            if self._stale_vault is None:
                return  # not known yet: the first look walks the vault anyway
            for key in noted:
                if not self._in_vault(key):
                    continue
                page = page_name(os.path.basename(key).lower()).endswith((".md", CANVAS_SUFFIX))  # conflict copies too
                if key in self.state.files or page:
                    self._stale_vault.add(key)
                if key not in self.state.files and not page:
                    prefix = key + os.sep  # a folder: the files indexed under it
                    self._stale_vault.update(k for k in self.state.files if k.startswith(prefix))
