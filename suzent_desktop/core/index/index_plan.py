"""What one file gives the index (its rows), what a pass must do about it, and vectors for new rows.

Part of :class:`~suzent_desktop.core.index.indexer.Indexer` (a mixin: it uses the attributes the
indexer's ``__init__`` sets). Row ids are derived from the source path, the row's content and
its occurrence number, so unchanged rows keep their ids and their vectors; a row whose text an
indexed row already has (a renamed or moved file) takes that row's vector.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field

import numpy as np

from suzent_desktop.core.files.facts import parse_log
from suzent_desktop.core.files.regular import FileTooLarge, NotRegularFile, read_page
from suzent_desktop.core.files.text import clean, decode_lenient, looks_binary
from suzent_desktop.core.files.tombstones import normalize
from suzent_desktop.core.files.transcripts import clean_text, turn_chunks, turn_key
from suzent_desktop.core.files.transcripts import parse as parse_transcript
from suzent_desktop.core.index.chunking import chunk_markdown, embedding_text
from suzent_desktop.core.index.embedding import EmbeddingError
from suzent_desktop.core.index.index_sources import Source as _Source
from suzent_desktop.core.index.index_state import FileState, content_hash
from suzent_desktop.core.index.index_store import Row, norm_key
from suzent_desktop.core.index.title_rows import page_title
from suzent_desktop.core.vault.canvas import canvas_markdown, is_canvas

log = logging.getLogger(__name__)


EMBEDDING_FAILED = "not indexed, embedding failed"


NOT_CONSOLIDATED = "not consolidated"  # the heading of a kept row of a consolidated day (no page holds it)


@dataclass
class Plan:
    """What one file needs: new rows to embed, kept rows whose line moved, and rows to drop."""

    source: _Source
    mtime: float = 0.0
    size: int = 0
    sha256: str = ""
    rows: list[Row] = field(default_factory=list)
    error: str | None = None
    notes: list[str] = field(default_factory=list)  # indexed all the same; reported once per change
    touch_only: bool = False
    prior: FileState | None = None  # the state it was planned against; a pass let in may replace it
    new_rows: list[Row] = field(default_factory=list)
    moved_rows: list[Row] = field(default_factory=list)
    stale_ids: list[str] = field(default_factory=list)
    unreadable: bool = False  # the file can no longer be read: its old rows leave the index


def _vectors(table, dim: int) -> np.ndarray:
    """The ``vector`` column of an arrow table as an (n, dim) float32 matrix."""
    column = table.column("vector").combine_chunks()
    return np.asarray(column.flatten(), dtype=np.float32).reshape(-1, dim)


def row_id(source_type: str, path: str, content: str, occurrence: int) -> str:
    """Stable across reindexes: the same text at the same place keeps its id (and its vector)."""
    key = f"{source_type}\x00{path}\x00{content}\x00{occurrence}".encode()
    return hashlib.blake2b(key, digest_size=16).hexdigest()


_Plan = Plan  # the name the indexer's methods use


class RowPlanning:
    """Planning rows and embedding them (worker threads)."""

    def _rows_for(self, source: _Source, text: str, stones: set[str]) -> list[Row]:
        key = source.key
        rows: list[Row] = []
        seen: dict[str, int] = {}
        if source.source_type == "archive":
            for fact_line in parse_log(text).facts:
                content = fact_line.fact.content
                norm = normalize(content)
                if not norm or norm in stones or (source.only is not None and norm not in source.only):
                    continue
                occurrence = seen.get(content, 0)
                seen[content] = occurrence + 1
                rows.append(
                    Row(
                        id=row_id("archive" if source.only is None else "archive:kept", key, content, occurrence),
                        text=content,
                        source_type="archive",
                        path=key,
                        zone=None,
                        line=fact_line.line,
                        date=source.date,
                        heading=None if source.only is None else NOT_CONSOLIDATED,
                        norm=norm,
                        norm_keys=[],
                        embed_text=content,
                    )
                )
            return rows
        if source.source_type == "transcript":
            return self._transcript_rows(source, text, stones)
        keys: dict[str, str] = {}  # pieces of one long paragraph share its (long) normalized text
        if is_canvas(source.path):
            text = canvas_markdown(text)  # a board is searched by its text nodes
        title = page_title(key, text)
        dead: list[str] = []
        for chunk in chunk_markdown(text, tombstones=stones, dead=dead):
            content = embedding_text(chunk)
            # A bullet's id covers what is written around its text (strike-through, dates, History),
            # so striking a fact through re-indexes it as superseded.
            identity = content if chunk.source_text == chunk.text else f"{content}\x00{chunk.source_text}"
            occurrence = seen.get(identity, 0)
            seen[identity] = occurrence + 1
            rows.append(
                Row(
                    id=row_id(source.source_type, key, identity, occurrence),
                    text=chunk.text,
                    source_type=source.source_type,
                    path=key,
                    zone=source.zone,
                    line=chunk.line,
                    date=chunk.date,
                    heading=chunk.heading,
                    norm=normalize(chunk.text),
                    norm_keys=[keys.get(n) or keys.setdefault(n, norm_key(n)) for n in chunk.norms()],
                    embed_text=content,
                    superseded=chunk.superseded,
                    until=chunk.until,
                    title=title,
                )
            )
        if dead and not is_canvas(source.path):  # a sync brought forgotten text back: taken off after the pass
            self.holding_forgotten.add(key)
        return rows

    @staticmethod
    def _transcript_rows(source: _Source, text: str, stones: set[str]) -> list[Row]:
        """One row per turn (long turns split); a forgotten turn or piece has no row.

        Every row of a turn lists the turn's key (``turn:ID``) among its norms, so one
        tombstone takes the whole turn out, and a fact's forget can reach its source turn.
        """
        key = source.key
        rows: list[Row] = []
        seen: dict[str, int] = {}
        for turn in parse_transcript(text, source.path).turns:
            whole = turn_key(turn.id)
            if whole in stones:
                continue
            sides = [normalize(clean_text(turn.user)), normalize(clean_text(turn.assistant))]
            for content in turn_chunks(turn):
                norm = normalize(content)
                if norm in stones or any(side and side in stones for side in sides):
                    continue
                occurrence = seen.get(content, 0)
                seen[content] = occurrence + 1
                keys = [whole, *[side for side in sides if side]]
                rows.append(
                    Row(
                        id=row_id("transcript", key, content, occurrence),
                        text=content,
                        source_type="transcript",
                        path=key,
                        zone=None,
                        line=turn.line,
                        date=source.date,
                        heading=None,
                        norm=norm,
                        norm_keys=[norm_key(k) for k in keys],
                        embed_text=content,
                    )
                )
        return rows

    def _plan(
        self, source: _Source, prior: FileState | None, stones: set[str], recheck: bool
    ) -> _Plan | None:
        """None when the file is unchanged; otherwise what must be embedded, moved and dropped."""
        plan = _Plan(source, prior=prior)
        if source.stat is not None:
            plan.mtime, plan.size = source.stat
        else:
            try:
                stat = source.path.stat()
            except OSError as exc:
                plan.error, plan.unreadable = f"{source.path}: cannot read ({exc.strerror or exc})", True
                return plan
            plan.mtime, plan.size = stat.st_mtime, stat.st_size
        if self._inflight_paths.get(source.key) == (plan.mtime, plan.size):
            return None  # another pass of this process is adding the file as it is now
        same_variant = prior is not None and prior.variant == source.variant
        if (
            prior
            and not prior.dirty
            and not recheck
            and same_variant
            and prior.mtime == plan.mtime
            and prior.size == plan.size
        ):
            return None
        try:
            data = read_page(source.path)
        except (NotRegularFile, FileTooLarge) as exc:  # named, and its old rows leave (a page grown too big)
            plan.error, plan.unreadable = str(exc), True
            return plan
        except OSError as exc:
            plan.error, plan.unreadable = f"{source.path}: cannot read ({exc.strerror or exc})", True
            return plan
        plan.sha256 = hashlib.sha256(data).hexdigest()
        if prior and not prior.dirty and not recheck and same_variant and prior.sha256 == plan.sha256:
            plan.touch_only = True  # touched, not changed: remember the new mtime, embed nothing
            return plan
        if looks_binary(data):
            plan.error = f"{source.path}: looks like a binary file; skipped, file left untouched"
            plan.unreadable = True
            return plan
        text, bad = decode_lenient(data)
        if bad:
            lines = ", ".join(str(n) for n in bad[:5]) + (f" and {len(bad) - 5} more" if len(bad) > 5 else "")
            plan.notes.append(
                f"{source.path}: line {lines} not valid UTF-8; left out of the index, the rest is indexed"
            )
        text = clean(text)
        plan.rows = self._rows_for(source, text, stones)
        known = prior.rows if prior else {}
        wanted = {r.id for r in plan.rows}
        plan.stale_ids = [rid for rid in known if rid not in wanted]
        for row in plan.rows:
            if row.id not in known:
                plan.new_rows.append(row)
            elif known[row.id] != row.line:
                plan.moved_rows.append(row)
        return plan

    def _read_rows(self, source: _Source, stones: set[str]) -> list[Row]:
        try:
            data = read_page(source.path)
        except OSError:
            return []
        if looks_binary(data):
            return []
        return self._rows_for(source, clean(decode_lenient(data)[0]), stones)

    def _embed_plans(self, plans: list[_Plan]) -> tuple[list[_Plan], list[_Plan]]:
        """Embed the new rows of several files in one call; on failure retry file by file to isolate it."""
        todo = [p for p in plans if p.new_rows]
        try:
            self._embed_into([r for p in todo for r in p.new_rows])
            return plans, []
        except EmbeddingError as exc:
            if len(todo) == 1:
                todo[0].error = f"{todo[0].source.path}: {EMBEDDING_FAILED}: {exc}"
                return [p for p in plans if p is not todo[0]], todo
        ok: list[_Plan] = [p for p in plans if not p.new_rows]
        failed: list[_Plan] = []
        streak, last_error = 0, ""
        for plan in todo:
            if streak >= 3:  # the embedder is down, not this file: do not hammer it once per file
                plan.error = f"{plan.source.path}: {EMBEDDING_FAILED}: {last_error}"
                failed.append(plan)
                continue
            try:
                self._embed_into(plan.new_rows)
                ok.append(plan)
                streak = 0
            except EmbeddingError as exc:
                streak, last_error = streak + 1, str(exc)
                plan.error = f"{plan.source.path}: {EMBEDDING_FAILED}: {exc}"
                failed.append(plan)
        return ok, failed

    def _embed_rows(self, rows: list[Row]) -> None:
        """One embedder call; its vectors go onto the rows."""
        dim = self._current_store().dim
        vectors = np.asarray(self.embedder.embed([r.embed_text for r in rows]), dtype=np.float32)
        if vectors.shape != (len(rows), dim):
            raise EmbeddingError(f"embedder returned shape {vectors.shape}, expected ({len(rows)}, {dim})")
        for row, vector in zip(rows, vectors, strict=True):
            row.vector = vector

    def _reuse_vectors(self, plans: list[_Plan]) -> None:
        """Rows whose text is unchanged but whose line moved keep their vector; a lost one is re-embedded."""
        moved = [r for p in plans for r in p.moved_rows]
        if not moved:
            return
        store = self._current_store()
        old = store.fetch([r.id for r in moved], ["id", "vector"])
        vectors = dict(zip(old.column("id").to_pylist(), _vectors(old, store.dim), strict=True))
        for plan in plans:
            for row in plan.moved_rows:
                row.vector = vectors.get(row.id)
            plan.new_rows += [r for r in plan.moved_rows if r.vector is None]
            plan.moved_rows = [r for r in plan.moved_rows if r.vector is not None]

    def _reuse_by_content(self, plans: list[_Plan]) -> None:
        """New rows whose text an indexed row already has (a renamed or moved file, a paragraph moved
        to another page) take that row's vector: a vector depends on the text only."""
        rows = [r for p in plans for r in p.new_rows if r.vector is None]
        if not rows:
            return
        with self._state_lock:
            if self._by_hash is None:
                self._by_hash = {h: rid for f in self.state.files.values() for rid, h in f.hashes.items()}
            donors = {r.id: d for r in rows if (d := self._by_hash.get(content_hash(r.embed_text)))}
        if not donors:
            return
        store = self._current_store()
        found = store.fetch(sorted(set(donors.values())), ["id", "vector"])  # a donor may be gone: embed
        vectors = dict(zip(found.column("id").to_pylist(), _vectors(found, store.dim), strict=True))
        for row in rows:
            row.vector = vectors.get(donors.get(row.id, ""))

    def _reuse(self, plans: list[_Plan]) -> None:
        self._reuse_vectors(plans)
        self._reuse_by_content(plans)
