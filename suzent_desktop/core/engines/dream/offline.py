"""The offline consolidator: daily-log facts → ``3_Personal/`` pages, deterministically, no LLM.

For each fact of the batch, oldest first:

1. **Exact duplicate** (same text once case, punctuation and "now/currently" are ignored) of a
   current bullet on any personal page → the bullet gains the fact's date as provenance.
2. **Same subject, new value** (``User works at Contoso`` then ``User works at Microsoft``):
   the old bullet moves to its page's ``## History`` as ``~~old~~ (dates, until DATE)`` and
   the new fact takes its place, so the newer value wins and the old one is kept.
3. **Near duplicate** (embedding cosine ≥ :data:`NEAR_DUPLICATE_THRESHOLD`, and no negation,
   number or swapped word between them) → merged like an exact duplicate.
4. Otherwise a new bullet ``- text (DATE)`` on the page for its category (tags refine
   ``general``; a recognised relation such as "works at" picks the page itself).

New pages link to the ``About Me`` hub and the hub links back, so nothing is orphaned; the
hub also holds the identity facts (name, age, where the user is from),
and ``index.md`` is refreshed between its markers. Every write goes through
:class:`VaultTools` (atomic, confined to the vault); the runner calls :func:`consolidate`
in a worker thread.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from suzent_desktop.core.engines.dream.guards import lookalikes
from suzent_desktop.core.engines.dream.model import Batch, BatchFact, EngineReport, clean_summary
from suzent_desktop.core.engines.dream.placement import sections
from suzent_desktop.core.engines.dream.placement.employers import (
    JOB_KEYS,
    employer_of,
    employers,
    names_organisation,
)
from suzent_desktop.core.engines.dream.placement.page_names import names_elsewhere
from suzent_desktop.core.engines.dream.placement.plans import ends_search, fulfils, may_end_something, replans
from suzent_desktop.core.engines.dream.placement.sections import file_by_heading, file_by_person
from suzent_desktop.core.engines.dream.placement.subjects import (
    GENERAL,
    PEOPLE,
    PLANS,
    SUBJECTLESS,
    TIMELINE,
    Person,
    link_people,
    person_page,
    title_for,
    topic_page,
)
from suzent_desktop.core.engines.dream.tools import ToolsClosed, UnreadablePage, VaultTools
from suzent_desktop.core.files.language.markdown import links, only_links
from suzent_desktop.core.files.paths.layout import PERSONAL_ZONE
from suzent_desktop.core.vault.facts.fact_pages import (
    NEAR_DUPLICATE_THRESHOLD,
    Bullet,
    PageDoc,
    dup_norm,
    near_duplicate,
    restates,
    subject_value,
)
from suzent_desktop.core.vault.links import VaultIndex

ANCHOR_CANDIDATES = 64  # nearest bullets searched for a same-page neighbour to file a new fact next to
ROOT_GROUP = "Vault root"
HUB_TITLE = "About Me"
INDEX_START = "<!-- suzent:index:start -->"
INDEX_END = "<!-- suzent:index:end -->"

log = logging.getLogger(__name__)
_TITLE_RE = re.compile(r"[^\w -]+")
MAX_TITLE_CHARS = 60

Embed = Callable[[list[str]], np.ndarray]


def page_title_for(fact_category: str, tags: tuple[str, ...], text: str) -> str:
    """The page a new fact is filed on (see :mod:`core.dream.subjects`), as a bounded file name."""
    title, _ = title_for(fact_category, tags, text)
    return bounded_title(title) or GENERAL


def bounded_title(title: str) -> str:
    """At most MAX_TITLE_CHARS, cut at a word: a category is a label, and it becomes a file name."""
    if len(title) <= MAX_TITLE_CHARS:
        return title
    cut = title.rfind(" ", 0, MAX_TITLE_CHARS + 1)
    return title[: cut if cut > MAX_TITLE_CHARS // 2 else MAX_TITLE_CHARS].rstrip()


@dataclass
class _Page:
    rel: str
    doc: PageDoc
    original: str | None  # None: a page this run creates


@dataclass
class _Stats:
    added: int = 0
    merged: int = 0
    superseded: int = 0
    pages: set[str] = field(default_factory=set)


class OfflineConsolidator:
    def __init__(self, tools: VaultTools, embed: Embed | None) -> None:
        self.tools = tools
        self.embed = embed
        self.pages: dict[str, _Page] = {}  # title (lower) -> page
        self.owner: dict[int, _Page] = {}  # id(bullet) -> page
        self.by_norm: dict[str, Bullet] = {}
        self.by_key: dict[str, Bullet] = {}
        self.rows: list[Bullet | None] = []  # row i of the vector matrix belongs to rows[i]
        self.matrix: np.ndarray | None = None
        self.stats = _Stats()
        self._names: VaultIndex | None = None  # the vault's file names, read when a page is created
        self.people: set[str] = set()  # titles of person pages, linked from the timeline
        self.topics: set[str] = set()  # titles of place and activity pages, linked from the timeline and plans
        self.dated: list[Bullet] = []  # this run's new Timeline and Plans bullets, linked once all pages exist
        self.new: list[Bullet] = []  # every bullet this run adds: it links the pages kept elsewhere it names
        self.employers: set[str] = set()  # organisations someone works for: never a place page
        self._hub: str | None = None
        self.unreadable: list[str] = []  # pages left out of the candidates (not UTF-8, unreadable)

    # -- loading ------------------------------------------------------------------------
    def _load(self) -> None:
        if not self.tools.resolve(self.tools.personal_zone).is_dir():
            return
        existing: list[Bullet] = []
        for rel in self.tools.list(self.tools.personal_zone):
            if rel.endswith("/") or not rel.lower().endswith(".md"):
                continue
            try:
                text = self.tools.read(rel)
            except (UnreadablePage, OSError) as exc:  # left out of the candidates; the batch goes on
                log.warning("skipping %s while consolidating: %s", rel, exc)
                self.unreadable.append(rel)
                continue
            title = rel.rsplit("/", 1)[-1][:-3]
            page = _Page(rel=rel, doc=PageDoc.parse(text), original=text)
            self.pages.setdefault(title.lower(), page)
            if person_page(text, title):
                self.people.add(title)
            elif topic_page(title, text, self._hub_title()):
                self.topics.add(title)
            for bullet in page.doc.current_bullets():
                self._track(bullet, page)
                existing.append(bullet)
            self.employers |= employers(b.text for b in page.doc.items if isinstance(b, Bullet))
        if self.embed is not None and existing:
            vectors = self.embed([b.text for b in existing])
            for bullet, vector in zip(existing, vectors, strict=True):
                self._add_vector(bullet, vector)

    def _track(self, bullet: Bullet, page: _Page, vector: np.ndarray | None = None) -> None:
        self.owner[id(bullet)] = page
        self.by_norm.setdefault(dup_norm(bullet.text), bullet)
        relation = subject_value(bullet.text)
        if relation is not None:
            self.by_key[relation.key] = bullet
        if vector is not None:
            self._add_vector(bullet, vector)

    def _add_vector(self, bullet: Bullet, vector: np.ndarray) -> None:
        row = np.asarray(vector, dtype=np.float32)
        if self.matrix is None:
            self.matrix = np.zeros((64, row.shape[0]), dtype=np.float32)
        if len(self.rows) == self.matrix.shape[0]:
            self.matrix = np.concatenate([self.matrix, np.zeros_like(self.matrix)])
        self.matrix[len(self.rows)] = row
        self.rows.append(bullet)

    def _untrack(self, bullet: Bullet) -> None:
        self.owner.pop(id(bullet), None)
        norm = dup_norm(bullet.text)
        if self.by_norm.get(norm) is bullet:
            del self.by_norm[norm]
        for key, known in list(self.by_key.items()):
            if known is bullet:
                del self.by_key[key]
        for index, row in enumerate(self.rows):
            if row is bullet and self.matrix is not None:
                self.rows[index] = None
                self.matrix[index] = 0.0

    # -- page access --------------------------------------------------------------------------
    def _page(self, title: str, person: Person | None = None) -> _Page:
        """The page titled ``title``, created when missing: a person's page says who they are on its
        first line; other pages carry no intro (a template sentence is not a fact), only a link to the hub."""
        key = title.lower()
        if key not in self.pages:
            title = self._free_title(title)
            if title.lower() in self.pages:
                self.pages[key] = self.pages[title.lower()]
                return self.pages[key]
            rel = f"{self.tools.personal_zone}/{title}.md"
            intro = person.intro if person is not None else ""
            head = f"# {title}\n\n" + (f"{intro}\n\n" if intro else "")
            hub = self._hub_title()
            # the way back to the hub, not a fact; the hub itself (identity facts) starts bare
            doc = PageDoc.parse(f"# {title}\n" if title == hub else f"{head}[[{hub}]]\n")
            self.pages[key] = _Page(rel=rel, doc=doc, original=None)
            if person is not None:
                self.people.add(title)
            elif title not in SUBJECTLESS and title != hub:
                self.topics.add(title)
        return self.pages[key]

    def _hub_title(self) -> str:
        """The hub page's title: ``About Me``, unless that name is the user's elsewhere."""
        if self._hub is None:
            exists = self.tools.exists(f"{self.tools.personal_zone}/{HUB_TITLE}.md")
            self._hub = HUB_TITLE if exists else self._free_title(HUB_TITLE)
        return self._hub

    def _free_title(self, title: str) -> str:
        """``title``, or a qualified one (``Work (Personal)``) when a file elsewhere in the vault
        already answers to the name: a new page must never make the user's ``[[Work]]`` open
        something else. The qualified page, once written, is found again by its own name."""
        rel = f"{self.tools.personal_zone}/{title}.md"
        if self.tools.exists(rel) and rel not in self.unreadable:
            return title  # the zone's own page; an unreadable one is never rewritten, so a new name is taken
        if self._names is None:
            self._names = self.tools.names()
        zone = PERSONAL_ZONE.split("_", 1)[-1]
        candidate, number = title, 1
        while ((self._names.name_taken(candidate) or lookalikes.twin(candidate, self._names.by_name))
               and candidate.lower() not in self.pages):
            number += 1
            candidate = f"{title} ({zone})" if number == 2 else f"{title} ({zone} {number - 1})"
        return candidate

    # -- the merge ------------------------------------------------------------------------------
    def run(self, batch: Batch) -> EngineReport:
        self._load()
        facts = sorted(batch.facts, key=lambda f: (f.date, f.line))
        self.employers |= employers(f.fact.content for f in facts)
        vectors: np.ndarray | None = None
        if self.embed is not None and facts:
            vectors = self.embed([" ".join(f.fact.content.split()) for f in facts])
        for index, item in enumerate(facts):
            if self.tools.closed:  # the run timed out or was cancelled: stop the worker thread now
                raise ToolsClosed("the run was stopped")
            self._merge_fact(item, None if vectors is None else vectors[index])
        for bullet in self.dated:  # every page of the run exists now: link the people, places, activities
            bullet.text = link_people(bullet.text, self.people, self.topics)
        if self.new:
            if self._names is None:
                self._names = self.tools.names()
            pages = [self._names.rel(path) for path in self._names.pages()]
            elsewhere = names_elsewhere(pages, self.tools.personal_zone)
            for bullet in self.new:
                bullet.text = link_people(bullet.text, elsewhere)
        written = self._write_pages()
        hub = self._write_hub()
        self._write_index()
        return EngineReport(summary=self._summary(batch, written), pages_written=sorted({*written, *hub}))

    def _merge_fact(self, item: BatchFact, vector: np.ndarray | None) -> None:
        text = " ".join(item.fact.content.split())
        self._close_plans(text, item.date)
        same = self.by_norm.get(dup_norm(text))
        if same is not None:
            self._merge_into(same, item.date)
            return
        relation = subject_value(text)
        if relation is not None and relation.key in JOB_KEYS:
            self._left_job_said_otherwise(relation.key, text, item.date)
        if relation is not None and relation.key in self.by_key:
            bullet = self.by_key[relation.key]
            if restates(bullet.text, text):
                # The same value, or a shorter mention of it: provenance for the richer bullet, not a change.
                self._merge_into(bullet, item.date)
            else:
                new = self._supersede(bullet, text, item.date, vector)
                if relation.key in JOB_KEYS and (bullet.latest or "") <= item.date:
                    self._end_job(bullet.text, text, item.date, self.owner.get(id(new)))  # the old job's facts
            return
        if vector is not None:
            best = self._nearest(vector, text)
            if best is not None:
                self._merge_into(best, item.date)
                return
        duplicated: list[str] = []  # topic names a page elsewhere in the vault holds: linked, not copied

        def elsewhere(name: str) -> bool:
            taken = self._held_elsewhere(name)
            if taken:
                duplicated.append(name)
            return taken

        title, person = title_for(item.fact.category, item.fact.tags, text, self.people, self.topics,
                                  self.employers, elsewhere)
        if duplicated:
            text = link_people(text, set(), set(duplicated))
        if person is not None and person.relation is None and title not in self.people and self._people_kept_together():
            title, person = PEOPLE, None  # the user keeps people as sections of one page: a new one joins it
        if title == HUB_TITLE:  # identity facts stand on the hub, whatever its name in this vault
            title = self._hub_title()
        title = bounded_title(title) or GENERAL
        if lookalikes.refusal(title) is not None:  # a name a reader cannot tell from another: no page of its own
            title, person = GENERAL, None
        page = self._page(title, person)
        if title == PLANS:
            replaced = next((b for b in page.doc.current_bullets() if replans(b.text, text)
                             and (b.latest or "") <= item.date), None)
            if replaced is not None:  # the same plan, said again with a change
                self.dated.append(self._supersede(replaced, text, item.date, vector))  # linked like a new plan
                return
        bullet = Bullet(raw="", text=text, dates=[item.date], dirty=True)
        if title in (TIMELINE, PLANS):  # dated lists link the people, places and activities they name
            self.dated.append(bullet)
        if title == TIMELINE or not (file_by_person(page.doc, text, bullet)  # a person's fact: their section
                                     or file_by_heading(page.doc, text, item.fact.tags, bullet)):
            anchor = None if title == TIMELINE else self._anchor(page, vector)
            later = _first_later(page.doc, bullet) if title == TIMELINE else None
            if later is not None:
                page.doc.items.insert(later, bullet)  # the Timeline stays oldest first
            elif anchor is not None:
                page.doc.add_near(anchor, bullet)  # into the section of the most similar fact
            else:
                page.doc.add_current(bullet)
        self._track(bullet, page, vector)
        self.new.append(bullet)
        self.stats.added += 1
        self.stats.pages.add(page.rel)

    def _nearest(self, vector: np.ndarray, text: str) -> Bullet | None:
        if self.matrix is None or not self.rows:
            return None
        scores = self.matrix[: len(self.rows)] @ np.asarray(vector, dtype=np.float32)
        candidates = np.flatnonzero(scores >= NEAR_DUPLICATE_THRESHOLD)
        for index in candidates[np.argsort(-scores[candidates])]:
            bullet = self.rows[int(index)]
            if bullet is not None and near_duplicate(bullet.text, text, float(scores[index])):
                return bullet
        return None

    def _anchor(self, page: _Page, vector: np.ndarray | None) -> Bullet | None:
        """The most similar current bullet on ``page`` among the nearest rows, if any."""
        if vector is None or self.matrix is None or not self.rows:
            return None
        scores = self.matrix[: len(self.rows)] @ np.asarray(vector, dtype=np.float32)
        top = min(ANCHOR_CANDIDATES, len(scores))
        nearest = np.argpartition(-scores, top - 1)[:top]
        for index in nearest[np.argsort(-scores[nearest])]:
            bullet = self.rows[int(index)]
            if bullet is not None and self.owner.get(id(bullet)) is page:
                return bullet
        return None

    def _merge_into(self, bullet: Bullet, date: str) -> None:
        page = self.owner[id(bullet)]
        if bullet.add_date(date):
            self.stats.pages.add(page.rel)
        self.stats.merged += 1

    def _supersede(self, old: Bullet, text: str, date: str, vector: np.ndarray | None) -> Bullet:
        """``text`` replaces ``old`` (which moves to History); the bullet that holds ``text``."""
        page = self.owner[id(old)]
        old_latest = old.latest
        new = Bullet(raw="", text=text, dates=[date], dirty=True)
        if old_latest is not None and old_latest > date:
            # The page already holds a newer value (a hand edit, say): the older fact is history.
            older = Bullet(raw="", text=text, dates=[date], until=old_latest, struck=True, dirty=True)
            page.doc.add_history(older)
            self.stats.pages.add(page.rel)
            self.stats.superseded += 1
            return older
        retired = Bullet(raw="", text=old.text, dates=list(old.dates), until=date, struck=True, dirty=True)
        page.doc.replace(old, new)
        page.doc.add_history(retired)
        self._untrack(old)
        self._track(new, page, vector)
        self.stats.superseded += 1
        self.stats.pages.add(page.rel)
        return new

    def _close_plans(self, text: str, date: str) -> None:
        """A fact saying a plan happened ends it, and one saying the user got what they looked for ends
        the search: the plan or the search moves to its page's History."""
        if not may_end_something(text):
            return
        for page in {id(p): p for p in self.pages.values()}.values():
            plans = page is self.pages.get(PLANS.lower())
            for bullet in page.doc.current_bullets():
                if (bullet.latest or "") < date and (ends_search(text, bullet.text)
                                                     or plans and fulfils(text, bullet.text)):
                    self._retire(page, bullet, date)

    def _retire(self, page: _Page, bullet: Bullet, until: str) -> None:
        """``bullet`` stops being current on ``until``: it moves to its page's History, struck through."""
        page.doc.items = [item for item in page.doc.items if item is not bullet]
        page.doc.add_history(Bullet(raw="", text=bullet.text, dates=list(bullet.dates), until=until,
                                    struck=True, dirty=True))
        self._untrack(bullet)
        self.stats.pages.add(page.rel)

    def _left_job_said_otherwise(self, key: str, text: str, date: str) -> None:
        """A new job said one way ("User is now a UX designer at Brightpath") ends the job said the other
        way ("User works at Contoso") when they name different organisations: one job, two phrasings."""
        for other in JOB_KEYS:
            bullet = self.by_key.get(other)
            if other == key or bullet is None or (bullet.latest or "") > date:
                continue
            before, after = employer_of(bullet.text), employer_of(text)
            page = self.owner.get(id(bullet))
            if before and after and before != after and page is not None:
                self._retire(page, bullet, date)
                self.stats.superseded += 1
                self._end_job(bullet.text, text, date, page)

    def _end_job(self, old: str, new: str, date: str, page: _Page | None) -> None:
        """The user changed employer: the facts of the old job on the work page (they name the old
        employer, not the new one, and are no newer than the change) become its history."""
        before, after = employer_of(old), employer_of(new)
        if not before or not after or before == after or page is None:
            return
        for bullet in page.doc.current_bullets():
            if (names_organisation(bullet.text, before) and not names_organisation(bullet.text, after)
                    and (bullet.latest or "") <= date):
                self._retire(page, bullet, date)
                self.stats.superseded += 1

    def _people_kept_together(self) -> bool:
        """Whether the vault already keeps a ``People`` page the user wrote, one section per person."""
        page = self.pages.get(PEOPLE.lower())
        return page is not None and page.original is not None and sections.by_person(page.doc)

    def _held_elsewhere(self, name: str) -> bool:
        """Whether a page outside the personal zone answers to ``name`` (a new page would copy it)."""
        if name.lower() in self.pages or self.tools.exists(f"{self.tools.personal_zone}/{name}.md"):
            return False
        if self._names is None:
            self._names = self.tools.names()
        return self._names.name_taken(name)

    # -- writing ----------------------------------------------------------------------------------
    def _write_pages(self) -> list[str]:
        written: list[str] = []
        for page in self.pages.values():
            text = page.doc.render()
            if text != page.original:
                self.tools.write(page.rel, text)
                written.append(page.rel)
        return sorted(written)

    def _write_hub(self) -> list[str]:
        hub = self._hub_title()
        rel = f"{self.tools.personal_zone}/{hub}.md"
        existing = self.tools.read(rel) if self.tools.exists(rel) else None
        text = existing if existing is not None else (
            f"# {hub}\n\n"
        )
        linked = {link.target.lower() for link in links(text)}
        titles = sorted(
            p.rel.rsplit("/", 1)[-1][:-3] for p in self.pages.values() if p.rel != rel
        )
        missing = [t for t in titles if t.lower() not in linked and t.lower() != hub.lower()]
        if not missing or not titles:
            return []
        if not text.endswith("\n"):
            text += "\n"
        text += "".join(f"- [[{t}]]\n" for t in missing)
        self.tools.write(rel, text)
        return [rel]

    def _write_index(self) -> None:
        name = self.tools.index_name
        current = self.tools.read(name) if self.tools.exists(name) else "# Index\n"
        updated = render_index(current, self.tools)
        if updated != current:
            self.tools.write_index(updated)

    def _summary(self, batch: Batch, written: list[str]) -> str:
        s = self.stats
        span = batch.dates[0] if len(batch.dates) == 1 else f"{batch.dates[0]}..{batch.dates[-1]}"
        pages = ", ".join(p.rsplit("/", 1)[-1][:-3] for p in written) or "none"
        return clean_summary(
            f"Offline consolidation of {len(batch.facts)} facts from {span}: {s.added} added, "
            f"{s.merged} duplicates merged, {s.superseded} superseded. Pages: {pages}."
            + (f" Left out (cannot be read): {', '.join(self.unreadable)}." if self.unreadable else "")
        )


def _first_later(doc: PageDoc, bullet: Bullet) -> int | None:
    """Where on a dated list a fact told on an earlier day than the list's last goes: before the
    first current bullet told after it (a late fact from another device, a fact offered again)."""
    end = doc.history_index()
    for index, item in enumerate(doc.items[:end]):
        if isinstance(item, Bullet) and item.dates and not only_links(item.text) and min(item.dates) > min(bullet.dates):
            return index
    return None


def render_index(current: str, tools: VaultTools) -> str:
    """index.md with the catalogue between its markers rebuilt from the vault's pages.

    Each page is listed once, under its zone (root pages under "Vault root"), by the shortest
    link that names it unambiguously, so two pages called ``Work`` get two different links.
    """
    names = tools.names()
    groups: dict[str, list[str]] = {}
    for rel in tools.list(""):
        if rel.endswith("/") or rel.lower() in tools.reserved:
            continue
        zone = rel.split("/", 1)[0] if "/" in rel else ROOT_GROUP
        groups.setdefault(zone, []).append(rel)
    lines = [INDEX_START]
    for zone in sorted(groups, key=lambda z: (z == ROOT_GROUP, z)):
        lines += ["", f"## {zone}", ""]
        for rel in sorted(groups[zone], key=lambda r: r.lower()):
            target = names.link_target_for(tools.resolve(rel))
            where = rel.rsplit("/", 1)[0] if "/" in rel else zone
            shown = f"[[{target}]]" if "/" not in target else f"[[{target}|{Path(rel).stem}]]"
            lines.append(f"- {shown}" + (f" ({where})" if where != zone else ""))
    lines += ["", INDEX_END] if groups else [INDEX_END]
    block = "\n".join(lines)
    if INDEX_START in current and INDEX_END in current and current.index(INDEX_START) < current.index(INDEX_END):
        head, _, rest = current.partition(INDEX_START)
        _, _, tail = rest.partition(INDEX_END)
        return head + block + tail
    return current.rstrip("\n") + "\n\n" + block + "\n"


def consolidate(batch: Batch, tools: VaultTools, embed: Embed | None) -> EngineReport:
    """Blocking entry point (run it with ``asyncio.to_thread``)."""
    return OfflineConsolidator(tools, embed).run(batch)
