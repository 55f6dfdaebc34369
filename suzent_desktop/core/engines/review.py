"""Review: what the memory learned since the person last looked, items the engine is unsure of first.

Someone who checks their agent's memory once a week wants the list of what changed, not a
diff per dream run. The list is worked out from the files each time, so changes another
device's dream made (arriving by sync) are on it too:

* page bullets the dream wrote, by what the provenance record says of them
  (``core/engines/provenance.py``): **added** (one source fact), **merged** (several; a fact that
  merges into a kept bullet brings it back for review), **superseded** (struck through or under
  ``## History``);
* MEMORY.md lines **gained** and **lost** since the last review, or, with
  ``memory_md_needs_approval``, in the proposal waiting for approval against MEMORY.md;
* facts the dream could **not consolidate** (no page holds them), and facts a dream **dropped**
  with a reason, which stay in search until a person agrees (``core/index/dropped.py``).

What a person has seen is an append-only stream, ``.state/reviewed.jsonl`` (per device, read as
one), of item ids; an id names the item's kind, words and number of sources, so a bullet that
gains a source is new again while a renamed page changes nothing. MEMORY.md's reviewed state is
``.state/MEMORY.reviewed.md``, the file as it was last marked reviewed.

Item kinds are a registry (:func:`register_kind`): another part of the engine adds its own (facts
waiting for confirmation, say) with one function that lists them.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from suzent_desktop.core.engines import provenance
from suzent_desktop.core.engines.memory_md import memory_approval
from suzent_desktop.core.files.disk.atomic import atomic_write_text
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.records.tombstones import normalize
from suzent_desktop.core.files.sync import streams
from suzent_desktop.core.vault.facts.fact_bullets import HistoryTracker
from suzent_desktop.core.vault.facts.fact_pages import Bullet, CodeLine, PageDoc, dup_norm, subject_value
from suzent_desktop.core.vault.forgotten import Forgotten

if TYPE_CHECKING:
    from suzent_desktop.core.services.forget import Forget
    from suzent_desktop.core.vault.days import Days

STREAM = "reviewed"
MEMORY_REVIEWED = "MEMORY.reviewed.md"
LOW_SCORE = 0.35  # a source fact the judge scored below this makes its line an unsure item


class Reviewing(provenance.Tracing, Protocol):
    """What the list reads and its actions write through (the Review service, or a whole home): what a
    card reads, where each day stands, and forget for an item the person lets go."""

    @property
    def forget(self) -> Forget: ...
    def days(self) -> Days: ...


@dataclass
class ReviewItem:
    """One change to look at. ``unsure`` says why the engine doubts it ("" when it does not)."""

    kind: str
    id: str
    text: str
    page: str | None = None  # vault-relative page, "MEMORY.md", or a daily log's path
    line: int | None = None
    date: str | None = None
    unsure: str = ""
    sources: int = 0

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Context:
    """The files read once for every kind's lister."""

    home: Reviewing
    record: provenance.Record
    logs: provenance.LogFacts
    pages: dict[str, str] = field(default_factory=dict)


Lister = Callable[[Context], list[ReviewItem]]
_KINDS: dict[str, Lister] = {}


def register_kind(name: str, lister: Lister) -> None:
    """Add a kind of item (its lister returns the items; reviewed ones are left out for it)."""
    _KINDS[name] = lister


def item_id(*parts: object) -> str:
    return hashlib.blake2b("\x00".join(str(p) for p in parts).encode("utf-8"), digest_size=6).hexdigest()


# -- page bullets ---------------------------------------------------------------------------------
def _score(logs: provenance.LogFacts, source: provenance.Source) -> float | None:
    fact = logs.find(source.date, source.text)
    return fact.fact.importance if fact is not None else None


def _page_items(rel: str, text: str, ctx: Context) -> list[ReviewItem]:
    doc = PageDoc.parse(text)
    history = HistoryTracker()
    current: list[tuple[int, Bullet]] = []
    items: list[ReviewItem] = []
    for number, item in enumerate(doc.items, start=1):
        if not isinstance(item, Bullet):
            if not isinstance(item, CodeLine):
                history.feed(item)
            continue
        is_current = not history.feed("") and not item.struck
        if is_current:
            current.append((number, item))
        keys = provenance.line_keys(item.text)
        sources = ctx.record.of(keys[0]) if keys else {}
        if not sources:
            continue  # a line the dream never wrote: the person's own
        kind = "superseded" if not is_current else "merged" if len(sources) > 1 else "added"
        low = [s for s in sources.values() if (score := _score(ctx.logs, s)) is not None and score < LOW_SCORE]
        items.append(ReviewItem(
            kind, item_id(kind, keys[0], len(sources)), item.text, rel, number,
            item.until if kind == "superseded" else item.latest,
            f"the judge scored its fact low ({_score(ctx.logs, low[0]):.2f})" if low else "", len(sources)))
    _two_values(current, items)
    return items


def _two_values(current: list[tuple[int, Bullet]], items: list[ReviewItem]) -> None:
    """Mark the items of a page that hold two current values on one subject as unsure."""
    by_subject: dict[str, list[Bullet]] = {}
    for _number, bullet in current:
        relation = subject_value(bullet.text)
        if relation is not None:
            by_subject.setdefault(relation.key, []).append(bullet)
    for bullets in by_subject.values():
        if len({dup_norm(b.text) for b in bullets}) < 2:
            continue
        texts = {b.text for b in bullets}
        for item in items:
            if item.text in texts and item.kind != "superseded" and not item.unsure:
                item.unsure = "two current values on one subject: " + " / ".join(sorted(texts))


def bullet_items(ctx: Context) -> list[ReviewItem]:
    items: list[ReviewItem] = []
    for rel, text in ctx.pages.items():
        items += _page_items(rel, text, ctx)
    return items


# -- MEMORY.md ------------------------------------------------------------------------------------
def _reviewed_memory_path(layout: Layout) -> Path:
    return layout.state_dir / MEMORY_REVIEWED


def _bullet_lines(text: str | None) -> dict[str, tuple[int, str]]:
    found: dict[str, tuple[int, str]] = {}
    for number, line in enumerate((text or "").splitlines(), start=1):
        if line.lstrip().startswith(("- ", "* ")):
            keys = provenance.line_keys(line)
            if keys:
                found.setdefault(keys[0], (number, line.strip()[2:].strip()))
    return found


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return None


def memory_items(ctx: Context) -> list[ReviewItem]:
    layout = ctx.home.layout
    proposed = memory_approval.proposal(layout)
    approved = _read(layout.memory_md)
    before: str | None
    after: str | None
    if proposed is not None:
        before, after, where = approved, proposed, "MEMORY.md (proposed)"
    else:
        before, after, where = _read(_reviewed_memory_path(layout)), approved, "MEMORY.md"
    old, new = _bullet_lines(before), _bullet_lines(after)
    items = [ReviewItem("memory_gained", item_id("memory_gained", key, proposed is not None), text, where, number)
             for key, (number, text) in new.items() if key not in old]
    items += [ReviewItem("memory_lost", item_id("memory_lost", key, proposed is not None), text, where, None)
              for key, (number, text) in old.items() if key not in new]
    return items


# -- facts no page holds -----------------------------------------------------------------------------
def not_consolidated_items(ctx: Context) -> list[ReviewItem]:
    from suzent_desktop.core.engines.ledger import uncovered

    home = ctx.home
    forgotten = Forgotten(home.tombstones.contents())
    return [ReviewItem("not_consolidated", item_id("not_consolidated", f.date, normalize(f.text)), f.text,
                       str(home.archive.path_for(f.date)), f.line, f.date)
            for f in uncovered.consolidated(home.layout, home.days()) if not forgotten.holds(f.text)]


def dropped_items(ctx: Context) -> list[ReviewItem]:
    """Facts a dream dropped with a reason: they stay in search until a person agrees
    (``core/index/dropped.py``); the engine doubts them by definition, so they come first."""
    from suzent_desktop.core.index import dropped

    home = ctx.home
    return [ReviewItem("dropped", item_id("dropped", f.id), f.text, str(home.archive.path_for(f.date)), f.line,
                       f.date, f"a dream dropped it: {f.reason}" if f.reason else "a dream dropped it")
            for f in dropped.pending(home.layout, home.days(), home.tombstones.contents())]


register_kind("bullets", bullet_items)
register_kind("memory", memory_items)
register_kind("not_consolidated", not_consolidated_items)
register_kind("dropped", dropped_items)


# -- what was reviewed --------------------------------------------------------------------------------
def reviewed_ids(layout: Layout) -> set[str]:
    paths = [p.path for p in streams.parts(layout.state_dir, ".jsonl", STREAM)]
    return {str(r["id"]) for r in streams.merge_records(streams.read_texts(paths)) if "id" in r}


def _mark(layout: Layout, ids: list[str]) -> None:
    if not ids:
        return
    path = layout.state_dir / f"{STREAM}{layout.device_suffix}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    now = dt.datetime.now().astimezone().isoformat(timespec="seconds")
    with path.open("a", encoding="utf-8") as handle:  # append-only, like every stream
        handle.write("".join(json.dumps({"ts": now, "id": i}) + "\n" for i in ids))


def _order(item: ReviewItem) -> tuple:
    newest = "".join(chr(0x10FFFF - ord(c)) for c in item.date) if item.date else "\U0010ffff"
    return not item.unsure, newest, item.page or "", item.line or 0


def items(home: Reviewing, *, include_reviewed: bool = False) -> list[ReviewItem]:
    """Everything to review, unsure items first, then newest first."""
    ctx = Context(home, provenance.load_record(home.layout), provenance.LogFacts.read(home.layout),
                  provenance.page_texts(home))
    found: list[ReviewItem] = []
    for lister in _KINDS.values():
        found += lister(ctx)
    if not include_reviewed:
        seen = reviewed_ids(home.layout)
        found = [i for i in found if i.id not in seen]
    return sorted(found, key=_order)


def keep(layout: Layout, ids: list[str]) -> None:
    """Mark items reviewed: they leave the list until they change (only the review record is written)."""
    _mark(layout, list(ids))


def mark_all_reviewed(home: Reviewing) -> int:
    """Every item listed now is reviewed, and MEMORY.md as it stands is the reviewed version."""
    listed = items(home)
    _mark(home.layout, [i.id for i in listed])
    approved = _read(home.layout.memory_md)
    if approved is not None:
        atomic_write_text(_reviewed_memory_path(home.layout), approved)
    return len(listed)


def accept_memory(home: Reviewing) -> bool:
    """Accept the waiting MEMORY.md proposal: the agent reads it from now on."""
    accepted = memory_approval.accept(home.layout)
    if accepted:
        atomic_write_text(_reviewed_memory_path(home.layout), _read(home.layout.memory_md) or "")
    return accepted


def edit_line(home: Reviewing, item: ReviewItem, new_text: str) -> Path:
    """Reword a page bullet the dream wrote: its dates stay, its sources follow the new words."""
    if item.page is None or item.line is None or item.kind not in ("added", "merged", "superseded"):
        raise provenance.ProvenanceError(f"only a page bullet can be edited here, not a {item.kind} item")
    words = " ".join(new_text.split())
    if not words:
        raise provenance.ProvenanceError("the new text is empty (use Forget to remove a memory)")
    path = home.layout.notebook_dir / item.page
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    doc_line = lines[item.line - 1] if 0 < item.line <= len(lines) else ""
    bullet = PageDoc.parse(doc_line).items[0] if doc_line.strip() else None
    if not isinstance(bullet, Bullet) or dup_norm(bullet.text) != dup_norm(item.text):
        raise provenance.ProvenanceError(f"{item.page}:{item.line} no longer reads {item.text!r}; it changed since "
                                         "the list was made")
    bullet.text, bullet.dirty = words, True
    lines[item.line - 1] = bullet.render()
    atomic_write_text(path, "\n".join(lines))
    provenance.record_alias(home.layout, words, item.text)
    keys = provenance.line_keys(words)
    _mark(home.layout, [item.id] + [item_id(k, keys[0], item.sources) for k in ("added", "merged", "superseded")
                                    if keys])
    return path


async def forget(home: Reviewing, item: ReviewItem) -> ChangeSet:
    """Forget the item's memory (a tombstone, as forget always does) and mark it reviewed."""
    changes = await home.forget.forget(item.text)
    keep(home.layout, [item.id])
    return changes
