"""What one file gives the index (its rows), what a pass must do about it, and vectors for new rows:
one part of the indexer.

Row ids are derived from the source path, the row's content and its occurrence number, so
unchanged rows keep their ids and their vectors; a row whose text an indexed row already has (a
renamed or moved file) takes that row's vector. Plans made without the file lock are checked
against the state as it is when they are written (:meth:`Planner.checked`): another pass of this
or another process may have written the same files meanwhile.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from suzent_desktop.core.files.disk.regular import FileTooLarge, NotRegularFile, read_page
from suzent_desktop.core.files.disk.text_hygiene import clean, decode_lenient, looks_binary
from suzent_desktop.core.files.records.log_grammar import parse_log
from suzent_desktop.core.files.records.tombstones import Tombstones, normalize
from suzent_desktop.core.files.records.transcripts import clean_text, turn_chunks, turn_key
from suzent_desktop.core.files.records.transcripts import parse as parse_transcript
from suzent_desktop.core.index.embedding import EmbeddingError
from suzent_desktop.core.index.ranking.title_rows import page_title
from suzent_desktop.core.index.rows.chunking import chunk_markdown, embedding_text
from suzent_desktop.core.index.rows.sources import Source, Sources, stat_of
from suzent_desktop.core.index.storage.state import FileState, content_hash
from suzent_desktop.core.index.storage.store import Row, norm_key
from suzent_desktop.core.index.storage.table import IndexTable
from suzent_desktop.core.vault.canvas import canvas_markdown, is_canvas
from suzent_desktop.core.vault.forgotten import Forgotten

log = logging.getLogger(__name__)

EMBEDDING_FAILED = "not indexed, embedding failed"
NOT_CONSOLIDATED = "not consolidated"  # the heading of a kept row of a consolidated day (no page holds it)
EMBED_SLICE = 256  # texts per embedder call; the cancel flag is checked between calls (~0.4 s apart)


class Cancelled(Exception):
    """Raised inside a worker thread when the user cancelled the pass (before anything is written)."""


@dataclass
class Plan:
    """What one file needs: new rows to embed, kept rows whose line moved, and rows to drop."""

    source: Source
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

    def rediff(self, current: FileState | None) -> None:
        """Diff the rows again against ``current`` (what another pass left)."""
        known = current.rows if current is not None else {}
        wanted = {r.id for r in self.rows}
        self.prior = current
        self.stale_ids = [rid for rid in known if rid not in wanted]
        self.new_rows = [r for r in self.rows if r.id not in known]
        self.moved_rows = [r for r in self.rows if r.id in known and known[r.id] != r.line]


def vectors_of(table: pa.Table, dim: int) -> np.ndarray:
    """The ``vector`` column of an arrow table as an (n, dim) float32 matrix."""
    column = table.column("vector").combine_chunks()
    return np.asarray(column.flatten(), dtype=np.float32).reshape(-1, dim)


def row_id(source_type: str, path: str, content: str, occurrence: int) -> str:
    """Stable across reindexes: the same text at the same place keeps its id (and its vector)."""
    key = f"{source_type}\x00{path}\x00{content}\x00{occurrence}".encode()
    return hashlib.blake2b(key, digest_size=16).hexdigest()


class Planner:
    """Planning rows and embedding them (worker threads)."""

    def __init__(self, table: IndexTable, sources: Sources, tombstones: Tombstones) -> None:
        self.table = table
        self.sources = sources
        self.tombstones = tombstones
        # files a pass is embedding, with the (mtime, size) it read: a pass let in skips them
        # while they are still as that pass read them
        self.inflight: dict[str, tuple[float, int]] = {}
        self.cancel: threading.Event | None = None  # the running pass's cancel flag, checked between slices
        # pages and core files a pass found still holding forgotten text (see take_holding_forgotten)
        self.holding_forgotten: set[str] = set()

    def take_holding_forgotten(self) -> set[str]:
        """The files found holding forgotten text since the last call, once each."""
        keys, self.holding_forgotten = self.holding_forgotten, set()
        return keys

    def cancelled(self) -> bool:
        return self.cancel is not None and self.cancel.is_set()

    def rows_for(self, source: Source, text: str, stones: set[str]) -> list[Row]:
        """The rows ``text`` (the file of ``source``) gives, leaving out what ``stones`` forgot."""
        key = source.key
        rows: list[Row] = []
        seen: dict[str, int] = {}
        if source.source_type == "archive":
            forgotten = Forgotten.of(stones).within(text)
            for fact_line in parse_log(text).facts:
                content = fact_line.fact.content
                norm = normalize(content)
                if not norm or forgotten.holds(content) or (source.only is not None and norm not in source.only):
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
            content = embedding_text(chunk, source.path.stem)
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
    def _transcript_rows(source: Source, text: str, stones: set[str]) -> list[Row]:
        """One row per turn (long turns split); a forgotten turn or piece has no row.

        Every row of a turn lists the turn's key (``turn:ID``) among its norms, so one
        tombstone takes the whole turn out, and a fact's forget can reach its source turn.
        """
        key = source.key
        rows: list[Row] = []
        seen: dict[str, int] = {}
        forgotten = Forgotten.of(stones)  # (not narrowed to the file: its JSON escapes run words together)
        for turn in parse_transcript(text, source.path).turns:
            whole = turn_key(turn.id)
            if forgotten.holds(whole):
                continue
            said = [clean_text(turn.user), clean_text(turn.assistant)]
            if any(side.strip() and forgotten.holds(side) for side in said):
                continue
            sides = [normalize(side) for side in said]
            for content in turn_chunks(turn):
                norm = normalize(content)
                if forgotten.holds(content):
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

    def plan(self, source: Source, prior: FileState | None, stones: set[str], recheck: bool) -> Plan | None:
        """None when the file is unchanged; otherwise what must be embedded, moved and dropped."""
        plan = Plan(source, prior=prior)
        if source.stat is not None:
            plan.mtime, plan.size = source.stat
        else:
            try:
                stat = source.path.stat()
            except OSError as exc:
                plan.error, plan.unreadable = f"{source.path}: cannot read ({exc.strerror or exc})", True
                return plan
            plan.mtime, plan.size = stat.st_mtime, stat.st_size
        if self.inflight.get(source.key) == (plan.mtime, plan.size):
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
        plan.rows = self.rows_for(source, text, stones)
        known = prior.rows if prior else {}
        wanted = {r.id for r in plan.rows}
        plan.stale_ids = [rid for rid in known if rid not in wanted]
        for row in plan.rows:
            if row.id not in known:
                plan.new_rows.append(row)
            elif known[row.id] != row.line:
                plan.moved_rows.append(row)
        return plan

    def read_rows(self, source: Source, stones: set[str]) -> list[Row]:
        """The rows the file gives now (nothing when it cannot be read): for checks that write nothing."""
        try:
            data = read_page(source.path)
        except OSError:
            return []
        if looks_binary(data):
            return []
        return self.rows_for(source, clean(decode_lenient(data)[0]), stones)

    def embed_plans(self, plans: list[Plan]) -> tuple[list[Plan], list[Plan]]:
        """Embed the new rows of several files in one call; on failure retry file by file to isolate it."""
        todo = [p for p in plans if p.new_rows]
        try:
            self._embed_into([r for p in todo for r in p.new_rows])
            return plans, []
        except EmbeddingError as exc:
            if len(todo) == 1:
                todo[0].error = f"{todo[0].source.path}: {EMBEDDING_FAILED}: {exc}"
                return [p for p in plans if p is not todo[0]], todo
        ok: list[Plan] = [p for p in plans if not p.new_rows]
        failed: list[Plan] = []
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

    def embed_rows(self, rows: list[Row]) -> None:
        """One embedder call; its vectors go onto the rows."""
        dim = self.table.current_store().dim
        vectors = np.asarray(self.table.embedder.embed([r.embed_text for r in rows]), dtype=np.float32)
        if vectors.shape != (len(rows), dim):
            raise EmbeddingError(f"embedder returned shape {vectors.shape}, expected ({len(rows)}, {dim})")
        for row, vector in zip(rows, vectors, strict=True):
            row.vector = vector

    def _reuse_vectors(self, plans: list[Plan]) -> None:
        """Rows whose text is unchanged but whose line moved keep their vector; a lost one is re-embedded."""
        moved = [r for p in plans for r in p.moved_rows]
        if not moved:
            return
        store = self.table.current_store()
        old = store.fetch([r.id for r in moved], ["id", "vector"])
        vectors = dict(zip(old.column("id").to_pylist(), vectors_of(old, store.dim), strict=True))
        for plan in plans:
            for row in plan.moved_rows:
                row.vector = vectors.get(row.id)
            plan.new_rows += [r for r in plan.moved_rows if r.vector is None]
            plan.moved_rows = [r for r in plan.moved_rows if r.vector is not None]

    def _reuse_by_content(self, plans: list[Plan]) -> None:
        """New rows whose text an indexed row already has (a renamed or moved file, a paragraph moved
        to another page) take that row's vector: a vector depends on the text only."""
        rows = [r for p in plans for r in p.new_rows if r.vector is None]
        if not rows:
            return
        donors = {r.id: d for r in rows if (d := self.table.donor(content_hash(r.embed_text)))}
        if not donors:
            return
        store = self.table.current_store()
        found = store.fetch(sorted(set(donors.values())), ["id", "vector"])  # a donor may be gone: embed
        vectors = dict(zip(found.column("id").to_pylist(), vectors_of(found, store.dim), strict=True))
        for row in rows:
            row.vector = vectors.get(donors.get(row.id, ""))

    def reuse(self, plans: list[Plan]) -> None:
        """Vectors the table already holds for the plans' rows: a moved row's own, else a row of the same text."""
        self._reuse_vectors(plans)
        self._reuse_by_content(plans)

    def _embed_into(self, rows: list[Row]) -> None:
        """Vectors for ``rows``, in slices so a cancel request is honoured within seconds.

        Rows are sorted by length first so each slice pads its texts to similar lengths.
        """
        rows = sorted((r for r in rows if r.vector is None), key=lambda r: len(r.embed_text))
        for start in range(0, len(rows), EMBED_SLICE):
            if self.cancelled():
                raise Cancelled
            self.embed_rows(rows[start : start + EMBED_SLICE])

    def embedded(self, plans: list[Plan]) -> tuple[list[Plan], list[Plan]]:
        """The plans with vectors for all their new rows, and those that failed (small work, such as
        after a forget, done under the file lock)."""
        errored = [p for p in plans if p.error]
        ready = [p for p in plans if not p.error]
        self.reuse(ready)
        ok, failed = self.embed_plans(ready)
        return ok, failed + errored

    # -- checked against the state when written --------------------------------------------------
    def checked(self, plans: list[Plan], stones: set[str]) -> tuple[list[Plan], list[Plan]] | None:
        """Under the file lock: what of a window embedded without it can be written, and what failed;
        None when the index was rebuilt for another model meanwhile (these vectors do not belong in it).

        Each plan is checked against the state as it is now: when another pass (of this or
        another process) wrote the file meanwhile, the plan is diffed again against what that
        pass left, so its rows are neither doubled nor deleted by mistake; the few rows that
        this leaves without a vector are embedded here. Text forgotten meanwhile (a forget in
        this or another process) is never written: the files are chunked again without it.
        Touched files are recorded here and are in neither list.
        """
        table = self.table
        with table.state_lock:
            if table.state.model != table.embedder.name or table.state.dim != int(table.embedder.dim):
                return None
        now = self.tombstones.contents()  # another process may have forgotten text meanwhile
        if now != stones:
            plans = self._replanned(plans, now)
        ok: list[Plan] = []
        failed: list[Plan] = []
        for plan in plans:
            current = table.entry(plan.source.key)
            same = current is plan.prior or (
                current is not None
                and plan.prior is not None
                and (current.sha256, current.variant, current.rows) == (plan.prior.sha256, plan.prior.variant, plan.prior.rows)
            )
            if plan.error:
                failed.append(plan)
            elif plan.touch_only:
                if same:
                    table.touch(plan)
            elif same:
                ok.append(plan)
            else:
                again = self._against(plan, current, now)
                if again is not None:
                    (failed if again.error else ok).append(again)
        redone = [p for p in ok if any(r.vector is None for r in (*p.new_rows, *p.moved_rows))]
        if redone:
            self.reuse(redone)
            lost = self.embed_plans(redone)[1]
            ok = [p for p in ok if p not in lost]
            failed += lost
        return ok, failed

    def _against(self, plan: Plan, current: FileState | None, stones: set[str]) -> Plan | None:
        """A plan whose file another pass wrote meanwhile, made right against what that pass left;
        None when there is nothing left for this one to write.

        The newer of the two reads wins: when the file changed again after this plan read it,
        it is read again here rather than letting older text delete rows the other pass added.
        """
        stat = stat_of(plan.source.key)
        if current is not None and stat == (current.mtime, current.size):
            return None  # the other pass indexed the file as it is now: newer than what we read
        source = self.sources.source_for(plan.source.path)
        if source is None or source.variant != plan.source.variant:
            return None  # the file gives other rows now (a watermark moved meanwhile): the next pass decides
        if stat == (plan.mtime, plan.size):
            plan.rediff(current)
            return plan
        return self._read_again(source, current, stones, {r.id: r.vector for r in plan.rows if r.vector is not None})

    def _read_again(
        self, source: Source, current: FileState | None, stones: set[str], vectors: dict[str, np.ndarray]
    ) -> Plan | None:
        """A plan of ``source`` made anew against ``current``, keeping the vectors already embedded."""
        self.inflight.pop(source.key, None)  # ours: written right after this
        again = self.plan(source, current, stones, True)
        if again is not None:
            for row in again.rows:
                row.vector = vectors.get(row.id)
        return again

    def _replanned(self, plans: list[Plan], stones: set[str]) -> list[Plan]:
        """The window's files planned again with the tombstones as they are now; vectors carried over."""
        vectors = {r.id: r.vector for p in plans for r in p.rows if r.vector is not None}
        fresh: list[Plan] = []
        for plan in plans:
            current = self.table.entry(plan.source.key)
            again = plan if plan.error else self._read_again(plan.source, current, stones, vectors)
            if again is not None:
                fresh.append(again)
        return fresh
