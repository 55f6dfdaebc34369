"""What the index holds, per source file, kept in a small SQLite database beside the table.

One row per indexed file (its mtime, size, content hash and the ids of its index rows), so a
pass writes only the files it changed: a one-page edit rewrites one row, a no-op pass writes
nothing. The whole state is read into memory once per process (and again when another
process wrote it: every save bumps a generation number that a pass compares on entry).

A state left by an older version (``.index_state.json``, rewritten whole on every save) is
moved in on first open and removed; an unreadable database is replaced by an empty state,
which makes the next pass rebuild the index from the files and say so.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from suzent_desktop.core.files.disk.text_hygiene import loads_json

log = logging.getLogger(__name__)

STATE_VERSION = 2  # 2: fact pages one row per bullet, superseded rows marked
DB_NAME = "index_state.sqlite"
LEGACY_NAME = ".index_state.json"
BUSY_TIMEOUT_SECONDS = 10.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    key TEXT PRIMARY KEY, type TEXT NOT NULL, mtime REAL NOT NULL, size INTEGER NOT NULL,
    sha256 TEXT NOT NULL, variant TEXT NOT NULL, rows TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS errors (key TEXT PRIMARY KEY, message TEXT NOT NULL);
"""


def digest(values: Iterable[str]) -> str:
    return hashlib.sha256("\n".join(sorted(values)).encode("utf-8")).hexdigest()[:32]


def content_hash(embed_text: str) -> str:
    """The key a vector is reused by: the same text embeds to the same vector, wherever it lives."""
    return hashlib.blake2b(embed_text.encode("utf-8"), digest_size=8).hexdigest()


@dataclass
class FileState:
    source_type: str
    mtime: float
    size: int
    sha256: str
    rows: dict[str, int | None]  # row id -> line it was written with
    variant: str = ""  # the source's variant when it was indexed
    hashes: dict[str, str] = field(default_factory=dict)  # row id -> content_hash of its embedded text

    @property
    def dirty(self) -> bool:
        return not self.sha256

    def rows_json(self) -> str:
        return json.dumps(
            [[rid, line, self.hashes.get(rid, "")] for rid, line in self.rows.items()], separators=(",", ":")
        )

    @classmethod
    def from_db(cls, kind: str, mtime: float, size: int, sha256: str, variant: str, rows: str) -> FileState:
        triples = loads_json(rows)
        return cls(
            kind, float(mtime), int(size), str(sha256), {r[0]: r[1] for r in triples}, str(variant),
            {r[0]: r[2] for r in triples if r[2]},
        )

    @classmethod
    def from_legacy(cls, data: dict) -> FileState:
        return cls(
            data["type"], float(data["mtime"]), int(data["size"]), str(data["sha256"]), dict(data["rows"]),
            str(data.get("variant", "")),
        )


@dataclass
class IndexState:
    model: str = ""
    dim: int = 0
    tombstones: str = field(default_factory=lambda: digest([]))
    files: dict[str, FileState] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    problem: str | None = None  # why the stored state could not be used (the next pass says so)
    changed: set[str] = field(default_factory=set)  # file keys to write (or delete) on the next save
    whole: bool = True  # write every file on the next save (a new or reset state)

    def mark(self, key: str) -> None:
        """Remember that this file's entry changed (added, updated or removed) since the last save."""
        self.changed.add(key)


def _inode(path: Path) -> int:
    try:
        return path.stat().st_ino
    except OSError:
        return 0


class StateStore:
    """The database of one index folder; thread-safe, one connection per process."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / DB_NAME
        self.legacy = folder / LEGACY_NAME
        self._conn: sqlite3.Connection | None = None
        self._inode = 0
        self._lock = threading.RLock()

    # -- connection ------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        if self._conn is not None and _inode(self.path) != self._inode:
            self.close()  # the file was deleted or replaced under us (the index folder removed)
        if self._conn is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_SECONDS, check_same_thread=False)
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.executescript(_SCHEMA)
            except sqlite3.Error:
                conn.close()
                raise
            self._conn = conn
            self._inode = _inode(self.path)
        return self._conn

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def _forget_file(self) -> None:
        """Drop an unreadable database (it is derived: the index is rebuilt from the files)."""
        self.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)

    # -- reading ---------------------------------------------------------------------------
    def generation(self) -> int | None:
        """Bumped by every save, in any process; None when there is no state yet."""
        if not self.path.exists():
            return None
        with self._lock:
            try:
                row = self._connect().execute("SELECT value FROM meta WHERE key='generation'").fetchone()
            except sqlite3.Error:
                return -1  # unreadable: differs from any number seen, so the state is reloaded
            return int(row[0]) if row else 0

    def load(self) -> IndexState:
        """The stored state; a legacy JSON state is moved in; an unreadable one means "rebuild"."""
        with self._lock:
            if not self.path.exists() and self.legacy.exists():
                return self._migrate()
            if not self.path.exists():
                return IndexState()
            try:
                return self._read()
            except (sqlite3.Error, ValueError, KeyError, TypeError, IndexError) as exc:
                log.warning("index state %s unreadable (%s); the index will be rebuilt", self.path, exc)
                self._forget_file()
                return IndexState(problem=f"the index state ({self.path.name}) was unreadable ({exc}); "
                                          "the index is rebuilt from the files")

    def _read(self) -> IndexState:
        conn = self._connect()
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        if not meta:
            return IndexState()
        if int(meta.get("version", 0)) != STATE_VERSION:
            return IndexState()  # an older format: the model check below rebuilds
        files = {
            key: FileState.from_db(*rest)
            for key, *rest in conn.execute("SELECT key, type, mtime, size, sha256, variant, rows FROM files")
        }
        errors = dict(conn.execute("SELECT key, message FROM errors").fetchall())
        return IndexState(
            model=meta.get("model", ""), dim=int(meta.get("dim", 0)), tombstones=meta.get("tombstones", ""),
            files=files, errors=errors, whole=False,
        )

    def _migrate(self) -> IndexState:
        """Move a JSON state in (keeping every row id, so nothing is re-embedded), then remove it."""
        try:
            data = loads_json(self.legacy.read_text(encoding="utf-8"))
            if data.get("version") != STATE_VERSION:
                return IndexState()
            state = IndexState(
                model=str(data.get("model", "")),
                dim=int(data.get("dim", 0)),
                tombstones=str(data.get("tombstones", "")),
                files={k: FileState.from_legacy(v) for k, v in data.get("files", {}).items()},
                errors={str(k): str(v) for k, v in data.get("errors", {}).items()},
            )
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            log.warning("old index state %s unreadable (%s); the index will be rebuilt", self.legacy, exc)
            self.legacy.unlink(missing_ok=True)  # derived, and of no use now
            return IndexState(problem=f"the old index state ({self.legacy.name}) was unreadable ({exc}); "
                                      "the index is rebuilt from the files")
        self.save(state)
        self.legacy.unlink(missing_ok=True)
        log.info("index state moved from %s to %s", self.legacy.name, self.path.name)
        return state

    # -- writing ---------------------------------------------------------------------------
    def save(self, state: IndexState) -> int:
        """Write the files marked as changed (all of them after a reset), the errors and the meta,
        in one transaction; clears the marks. Returns the new generation."""
        with self._lock:
            whole = state.whole or _inode(self.path) != self._inode  # a new file holds nothing yet
            conn = self._connect()
            keys = list(state.files) if whole else sorted(state.changed)
            with conn:
                if whole:
                    conn.execute("DELETE FROM files")
                gone = [(k,) for k in keys if k not in state.files]
                conn.executemany("DELETE FROM files WHERE key=?", gone)
                conn.executemany(
                    "INSERT OR REPLACE INTO files VALUES (?,?,?,?,?,?,?)",
                    [
                        (k, f.source_type, f.mtime, f.size, f.sha256, f.variant, f.rows_json())
                        for k in keys
                        if (f := state.files.get(k)) is not None
                    ],
                )
                conn.execute("DELETE FROM errors")
                conn.executemany("INSERT INTO errors VALUES (?,?)", list(state.errors.items()))
                last = conn.execute("SELECT value FROM meta WHERE key='generation'").fetchone()
                number = int(last[0]) + 1 if last else 1
                meta = {
                    "version": str(STATE_VERSION),
                    "model": state.model,
                    "dim": str(state.dim),
                    "tombstones": state.tombstones,
                    "generation": str(number),
                }
                conn.executemany("INSERT OR REPLACE INTO meta VALUES (?,?)", list(meta.items()))
            state.changed.clear()
            state.whole = False
            return number

    def size_bytes(self) -> int:
        """The database and its write-ahead log on disk (for the benchmarks)."""
        return sum(p.stat().st_size for p in self.folder.glob(f"{DB_NAME}*") if p.is_file())
