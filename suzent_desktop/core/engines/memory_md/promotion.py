"""MEMORY.md promotion: a bounded, always-visible summary built from ``3_Personal/``.

Candidates are the current bullets of the personal pages (not History, not struck out) that
:mod:`memory_selection` finds stable and precise, one per fact (:func:`merge_restated`), ranked by
how often they were recalled (``.state/recall_log.jsonl``), on how many days they were said, then
by their most recent source date. The offline summary files them in a few sections by subject
(:data:`SECTIONS`), each person's facts together under People. With ``memory_consolidation_model`` set, the model writes the summary
from the ranked list, and its answer is checked before anything is written
(:func:`answer_problem`): an empty, echoed, bullet-less answer, or one that keeps fewer facts
than the offline promoter would, is replaced by the offline result and the reason is reported.
Either way the code, not the prompt, enforces
``memory_md_max_lines`` / ``memory_md_max_chars`` by cutting whole lines. A section the user
marks ``<!-- protected -->`` … ``<!-- /protected -->`` is kept verbatim at the top (it counts
against the budget first; if it alone is over the limit it is still kept whole, because the
user's own words outrank the bound).

``refresh_from_important`` is the capture-time compatibility path: high-importance facts
from days not consolidated yet go into a marked "Recent" block until a dream takes over.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from suzent_desktop.core.engines.memory_md import memory_approval
from suzent_desktop.core.engines.memory_md.promotion_guard import describe, screen
from suzent_desktop.core.files.disk.regular import read_regular
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.language import english
from suzent_desktop.core.files.language.markdown import links
from suzent_desktop.core.files.language.words import count
from suzent_desktop.core.files.records.log_grammar import Fact
from suzent_desktop.core.files.records.tombstones import normalize
from suzent_desktop.core.vault.forgotten import Forgotten
from suzent_desktop.core.vault.model import Kind

if TYPE_CHECKING:
    from suzent_desktop.core.engines.memory_md.recall import RecallLog
    from suzent_desktop.core.files.records.archive import Archive
    from suzent_desktop.core.files.records.tombstones import Tombstones
    from suzent_desktop.core.vault.days import Days
    from suzent_desktop.core.vault.model import Vault


class Promoting(memory_approval.Approving, Protocol):
    """The stores a promotion reads (the Promote service, or a whole home): personal pages, logs,
    recalls and tombstones."""

    @property
    def tombstones(self) -> Tombstones: ...
    @property
    def vault(self) -> Vault: ...
    @property
    def archive(self) -> Archive: ...
    @property
    def recall(self) -> RecallLog: ...
    def days(self) -> Days: ...

PERSONAL_ZONE = "3_Personal"
PROTECTED_RE = re.compile(r"<!--\s*protected\s*-->.*?<!--\s*/protected\s*-->", re.DOTALL | re.IGNORECASE)
RECENT_START = "<!-- suzent:recent:start -->"
RECENT_END = "<!-- suzent:recent:end -->"
HEADER = "# Memory"
MAX_CANDIDATES = 200


class PromotionError(ValueError):
    """MEMORY.md cannot be rewritten without losing what the user wrote in it."""


@dataclass
class Candidate:
    text: str
    page: str
    latest: str
    recalls: int
    order: int
    said: int = 1  # on how many days the fact was said: what is said again and again is stable
    section: str = ""  # the MEMORY.md heading it goes under (:func:`section`, People); '' for its page
    person: bool = False  # on a person's page (or who they are): under People, beside that person's other facts
    who: str = ""  # the person's page, for a person's fact: People groups each person's lines, who they are first


# Each page's best few facts, at most: a page of forty tastes would fill MEMORY.md, and an agent
# needs every subject's best lines more than one subject's every line. A section (several pages: the
# hobbies, the routines and every project page) holds at most MAX_PER_SECTION.
MAX_PER_PAGE = 6
MAX_PER_SECTION = 12


# Subjects an agent needs first when the bound cuts: who the user is, their people, work, health.
PAGE_PRIORITY = ("about me", "identity", "people", "work", "health", "places", "preferences", "projects",
                 "activities", "hobbies", "routines", "dates")

# who the user is, their people (who each is), work, health and home: these pages take turns first
USER_CORE = frozenset(PAGE_PRIORITY[:6])
HEAD_START = MAX_PER_SECTION

# MEMORY.md's sections: the stable things an agent must know, in the order it reads them.
SECTIONS = ("About me", "People", "Work", "Health", "Home and places", "Projects and pastimes", "Tastes")
_PAGE_SECTIONS = {"about me": "About me", "identity": "About me", "dates": "About me", "people": "People",
                  "work": "Work", "health": "Health", "places": "Home and places",
                  "hobbies": "Projects and pastimes", "projects": "Projects and pastimes",
                  "routines": "Projects and pastimes", "preferences": "Tastes"}
# a fact on a page named by its topic ("Piano", "Galway", "Basketball") goes by the judge's subject
_SUBJECT_SECTIONS = {"identity": "About me", "work": "Work", "health": "Health", "place": "Home and places",
                     "hobby": "Projects and pastimes", "preference": "Tastes", "plan": "Projects and pastimes",
                     "event": "Projects and pastimes"}


def section(page: str, text: str) -> str:
    """The MEMORY.md section of a fact on a page that is no person's: a subject page under its own
    section (Preferences under Tastes, Hobbies and Routines under Projects and pastimes), a page named
    by its topic ("Piano", "Galway") by the learned judge's subject class of the line (a judge's
    "person" goes by its next subject, as the dream files it): a few sections a reader scans, not one
    heading per page."""
    from suzent_desktop.core.engines.dream.placement.subjects import PERSON_CLASSES, next_subject

    if page.lower() in _PAGE_SECTIONS:
        return _PAGE_SECTIONS[page.lower()]
    return _SUBJECT_SECTIONS[next_subject(text, PERSON_CLASSES)]


def about_person(title: str, body: str, texts: list[str]) -> bool:
    """A page the dream keeps about a person: its first line says who they are, or half its facts or
    more are about the name it bears ("Chen plays the trombone", "Chen's favourite book is Dune"; "Italy is
    on User's list of places to visit" is the user's) or about the relative it is named after ("User's
    grandpa was a fisherman" on Grandpa: the user did not say his name)."""
    from suzent_desktop.core.engines.capture.fact_judge import judge
    from suzent_desktop.core.engines.dream.placement.subjects import named_person, person_page, places_in

    if person_page(body, title):
        return True
    relative = (f"user's {title.lower()} ", f"user's {title.lower()}'s ")  # "User's grandma's 100th birthday …"
    naming = [text for text in texts if title.lower() in text.lower()]  # only these can be about the name
    about = [named_person(text, subject, places_in(text))  # "… in Hackney, just off …" names a place
             for text, subject in zip(naming, judge().subjects(naming), strict=True)]
    by_name = sum(p is not None and p.name == title for p in about)
    by_relation = sum(text.lower().startswith(relative) for text in texts)
    return len(texts) > 0 and (by_name + by_relation) * 2 >= len(texts)


def _personal_candidates(home: Promoting) -> list[Candidate]:
    """Current facts of the personal pages that are stable and precise enough to be read every turn
    (:mod:`core.memory_selection`: the judge weighs them all at once), links read as their text, and
    the first line of a person's page (who they are: the program wrote it from a kept fact). A
    person's facts go under People, the others under their subject's section (:func:`section`). People
    is one heading, not one a person: a dozen people with a fact each would otherwise spend three lines
    each of the bound (heading, fact, blank) and cut the user's second allergy."""
    from suzent_desktop.core.engines.dream.placement.subjects import person_page
    from suzent_desktop.core.engines.memory_md.memory_selection import judged, memory_worthy, promoted_page
    from suzent_desktop.core.files.language.markdown import plain_text
    from suzent_desktop.core.vault.facts.fact_pages import PageDoc

    root = home.layout.zone(PERSONAL_ZONE)
    if not root.is_dir():
        return []
    forgotten = Forgotten(home.tombstones.contents())
    found: list[Candidate] = []
    seen: set[str] = set()
    # the first lines of person pages, by their index in ``found``: one line each under People, who the
    # user's people are, first when the bound cuts; their other facts stand under their names
    intros: set[int] = set()
    people: set[str] = {"People"}  # the pages of people
    whose: dict[int, str] = {}  # index in ``found`` -> the person page an intro says who is

    def add(text: str, page: str, latest: str, said: int = 1) -> bool:
        key = normalize(text)
        if not text or key in seen or forgotten.holds(text):
            return False
        seen.add(key)
        found.append(Candidate(text, page, latest, 0, len(found), said))
        return True

    # The personal pages as the vault model has them: kept current by the window's watcher; where nothing
    # watches, the model looks at this folder of the disk again (a page may have been written since it
    # last looked). It lists only what the confinement rule allows, never a log or core file.
    vault = home.vault
    model = vault.snapshot(parsed=False, names=False) if vault.watched else vault.walk(root)
    for path in model.files_under(root, Kind.PAGE):
        if not promoted_page(path.stem):
            continue
        try:
            body = read_regular(path).decode("utf-8-sig")
        except (UnicodeDecodeError, OSError):
            continue  # doctor names it; promotion only reads pages
        doc = PageDoc.parse(body)
        bullets = doc.current_bullets()
        texts = [" ".join(plain_text(b.text).split()) if links(b.text) else b.text.strip() for b in bullets]
        if about_person(path.stem, body, texts):
            people.add(path.stem)
        if person_page(body, path.stem):
            intro = next(ln.strip() for ln in body.splitlines() if ln.strip() and not ln.startswith("#"))
            if add(intro.rstrip("."), "People", max((b.latest or "" for b in bullets), default="")):
                intros.add(len(found) - 1)
                whose[len(found) - 1] = path.stem
        if (path.stem in people - {"People"} and not person_page(body, path.stem)
                and not any(says_who(t) for t in texts)):
            continue  # someone named without saying who they are: their page keeps them
        for bullet, text in zip(bullets, texts, strict=True):
            if text and memory_worthy(text):
                add(text, path.stem, bullet.latest or "", len(bullet.dates))
    # weighed first, in one batch: the judge's sentence vectors are then at hand for each line's section
    weighed = [index for index in range(len(found)) if index not in intros]
    kept = dict(zip(weighed, judged([found[index].text for index in weighed]), strict=True))
    for index, cand in enumerate(found):
        cand.person = index in intros or cand.page in people
        cand.who = whose.get(index, cand.page) if cand.person else ""
        cand.section = "People" if cand.person else section(cand.page, cand.text)
    return [cand for index, cand in enumerate(found) if kept.get(index, True)]


def says_who(text: str) -> bool:
    """Whether a line names the user ("User's dog Max …", "Ana (the user's sister) …"). A person's page none of
    whose lines does ("Max is awesome at catching frisbees") is of someone named without saying who they are
    to the user: at the start of a session it tells the agent of nobody it knows, and MEMORY.md is bounded."""
    return any(w.lower().removesuffix("'s").removesuffix("’s") == "user" for w in english.words(text))


RESTATED = 0.8  # share of the shorter line's content words the longer must carry to say the same fact


def _content(text: str) -> frozenset[str]:
    """The stems of a line's content words and its numbers (the English layer's words and stemmer)."""
    return frozenset(english.stem(w) for w in english.words(text.lower())
                     if w not in english.STOPWORDS and w not in ("user", "user's"))


def _subject(text: str) -> str:
    """Whom a line is about, by its first word: "User now works at Hooli" and "Chen now works at Hooli"
    share every other word and are two facts."""
    first = english.words(text)[:1]
    return first[0].lower().removesuffix("'s").removesuffix("’s") if first else ""


def _names(text: str) -> set[str]:
    """The capitalised words after the first: "User's friend Ada moved to Lisbon" and "User's friend
    Bram moved to Lisbon" share all but one word and are two facts, about two people."""
    return {word for word in english.words(text)[1:] if word[:1].isupper()}


def _restates(longer: frozenset[str], shorter: frozenset[str]) -> bool:
    """The longer line carries most of the shorter one's words (:data:`RESTATED`) and adds at most as
    many again: "User loves quinces from the market in Ghent" restates "User loves quinces", a line
    about one record by Nina Simone found at a flea market does not restate "User loves jazz and
    vinyl records"."""
    return (len(shorter) >= 2 and len(longer) <= 2 * len(shorter) + 1
            and len(longer & shorter) >= RESTATED * len(shorter))


def merge_restated(candidates: list[Candidate]) -> list[Candidate]:
    """One candidate per fact: a line that restates another about the same person (:func:`_restates`:
    "User is allergic to penicillin" on Health, "User is allergic to penicillin and carries a card"
    on Hiking) is shown once: the line that says most, filed with the page an agent looks at first
    (:data:`PAGE_PRIORITY`: the allergy stays under Health), said on the days of both (what is said
    again is stable)."""
    first = {name: index for index, name in enumerate(PAGE_PRIORITY)}

    def rank_of(page: str) -> int:
        return first.get(page.lower(), first["projects"])

    contents = [_content(cand.text) for cand in candidates]
    order = sorted(range(len(candidates)), key=lambda i: (-len(contents[i]), rank_of(candidates[i].page), i))
    kept: list[tuple[Candidate, frozenset[str]]] = []
    by_stem: dict[str, list[int]] = {}
    for index in order:
        cand, words = candidates[index], contents[index]
        near = {k for w in words for k in by_stem.get(w, ())}
        twin = next((k for k in sorted(near) if _restates(kept[k][1], words)
                     and _subject(kept[k][0].text) == _subject(cand.text)
                     and _names(cand.text) <= _names(kept[k][0].text)), None)
        if twin is None:
            for w in words:
                by_stem.setdefault(w, []).append(len(kept))
            kept.append((cand, words))
            continue
        same = kept[twin][0]
        same.said += cand.said
        same.latest = max(same.latest, cand.latest)
        if rank_of(cand.page) < rank_of(same.page):
            same.page, same.section, same.person, same.who = cand.page, cand.section, cand.person, cand.who
    return sorted((cand for cand, _ in kept), key=lambda c: c.order)


def rank(candidates: list[Candidate], recall_counts: dict[str, int]) -> list[Candidate]:
    """Most recalled first, then said on most days, then most recent source date, then page order."""
    snippets = [(normalize(s), n) for s, n in recall_counts.items()]
    for cand in candidates:
        key = normalize(cand.text)
        cand.recalls = sum(
            n for snippet, n in snippets if key and len(snippet) >= 8 and (key in snippet or snippet in key)
        )
    return sorted(candidates, key=lambda c: (-c.recalls, -c.said, _neg_date(c.latest), c.order))


def round_robin(ranked: list[Candidate]) -> list[Candidate]:
    """Each page's best fact, then each page's second best, …: under a tight cap every subject
    keeps its top facts instead of the newest page crowding out an old allergy note. Pages take
    turns in :data:`PAGE_PRIORITY` order (identity, people, work, health first); a page named by
    its subject (a person, a place, an ongoing project or activity) takes its turn with the projects.
    The user's own core pages (:data:`USER_CORE`) take all their turns, up to :data:`MAX_PER_SECTION`
    facts each, before the others start: with twenty people each giving a fact a turn, the user's own
    allergy lost its place to a friend's dog's ear infection, and a Health page of ten facts kept only
    its six newest (type 1 diabetes since childhood was cut).
    Any other page gives at most :data:`MAX_PER_PAGE` facts, a section :data:`MAX_PER_SECTION` (each
    person counts as their own; who each person is comes at once, up to :data:`MAX_PER_SECTION`)."""
    groups: dict[str, list[Candidate]] = {}
    for cand in ranked:
        groups.setdefault(cand.page, []).append(cand)
    first = {name: index for index, name in enumerate(PAGE_PRIORITY)}
    groups = dict(sorted(groups.items(), key=lambda item: first.get(item[0].lower(), first["projects"])))
    # a page gives one fact a turn; who the user's people are (the People lines) comes at once, in its
    # first turn: it says whom the other lines are about, and six of them once cut the seventh person
    turns = {page: [sorted(items, key=_closeness)] if page == "People" else [[cand] for cand in items]
             for page, items in groups.items()}
    ordered: list[Candidate] = []
    per_section: dict[str, int] = {}
    for turn in range(MAX_PER_SECTION + HEAD_START):
        for page, page_turns in turns.items():
            core = page.lower() in USER_CORE
            depth = turn if core else turn - HEAD_START
            for cand in page_turns[depth] if 0 <= depth < min(len(page_turns), MAX_PER_SECTION if core else MAX_PER_PAGE) else []:
                capped = _capped_as(cand)
                if per_section.get(capped, 0) < MAX_PER_SECTION:
                    ordered.append(cand)
                    per_section[capped] = per_section.get(capped, 0) + 1
    return ordered


# Who is closest, for the order of the People lines when the bound cuts: partner, children, parents,
# siblings, grandparents, best friends; then everyone else (a cousin, a colleague, an in-law, a pet).
_CLOSEST = ({"wife", "husband", "partner", "girlfriend", "boyfriend", "fiance", "fiancee", "fiancé", "fiancée"},
            {"son", "daughter", "kid", "kids", "children", "baby"},
            {"mother", "mom", "mum", "father", "dad", "parents"},
            {"brother", "sister"},
            {"grandmother", "grandfather", "grandma", "grandpa"},
            {"best friend", "best mate"})


def _closeness(cand: Candidate) -> int:
    """How close the person a People line says who is stands to the user (0 closest); a line that says
    no relation ("User's sister Ana moved to Leeds" on the People page) ranks with the farthest."""
    relation = cand.text.partition("the user's ")[2].strip().lower() if cand.who != "People" else ""
    return next((tier for tier, relations in enumerate(_CLOSEST) if relation in relations), len(_CLOSEST))


def _neg_date(date: str) -> tuple[int, ...]:
    digits = [int(p) for p in date.split("-")] if re.fullmatch(r"\d{4}-\d{2}-\d{2}", date or "") else [0, 0, 0]
    return tuple(-d for d in digits)


def protected_sections(text: str) -> list[str]:
    return [m.group(0) for m in PROTECTED_RE.finditer(text)]


def fit(lines: list[str], max_lines: int, max_chars: int) -> list[str]:
    """The longest prefix of ``lines`` within both bounds (the hard cap, whole lines only)."""
    kept: list[str] = []
    used = 0
    for line in lines:
        cost = len(line) + 1
        if len(kept) + 1 > max_lines or used + cost > max_chars:
            break
        kept.append(line)
        used += cost
    return kept


def _drop_dangling_headings(lines: list[str]) -> list[str]:
    result: list[str] = []
    for index, line in enumerate(lines):
        if line.startswith("## "):
            following = lines[index + 1:]
            nxt = next((x for x in following if x.strip()), None)
            if nxt is None or nxt.startswith("## "):
                continue
        result.append(line)
    while result and not result[-1].strip():
        result.pop()
    return result


def compose(
    generated: list[str], protected: list[str], recent: list[str], max_lines: int, max_chars: int
) -> str:
    """The whole file: header, protected sections, generated lines, recent block, within the cap."""
    head = [HEADER, ""]
    for section in protected:
        head += section.split("\n") + [""]
    budget_lines = max(0, max_lines - len(head))
    budget_chars = max(0, max_chars - sum(len(x) + 1 for x in head))
    recent_block = [RECENT_START, "## Recent (not consolidated yet)", *recent, RECENT_END] if recent else []
    body_lines = fit(generated, budget_lines, budget_chars)
    body_lines = _drop_dangling_headings(body_lines)
    if recent_block:
        used_lines = len(body_lines) + (1 if body_lines else 0)
        used_chars = sum(len(x) + 1 for x in body_lines) + (1 if body_lines else 0)
        room = fit(recent_block[2:-1], budget_lines - used_lines - 3, budget_chars - used_chars - 80)
        if room:
            body_lines = [*body_lines, *([""] if body_lines else []), RECENT_START, recent_block[1], *room,
                          RECENT_END]
    lines = [*head, *body_lines]
    while lines and not lines[-1].strip():
        lines.pop()
    text = "\n".join(lines) + "\n"
    if protected:
        return text
    # Safety net: whatever happened above, the written file never exceeds the bound.
    return "\n".join(fit(text.rstrip("\n").split("\n"), max_lines, max_chars)) + "\n"


def _heading(cand: Candidate) -> str:
    return cand.section or cand.page


def _capped_as(cand: Candidate) -> str:
    """What :data:`MAX_PER_SECTION` counts a fact against: its heading, but each person on their own
    (People holds everyone: one cap for all would leave out the twelfth person's only fact)."""
    return cand.page if cand.person and cand.page != "People" else _heading(cand)


def extractive_lines(ranked: list[Candidate]) -> list[str]:
    """Bullets grouped under their sections in :data:`SECTIONS` order (a candidate without a section
    under its page title, last); bullets keep the given order, except under People, where each person's
    lines stand together, who they are first, people in the order they first come."""
    first_seen: dict[str, int] = {}
    for cand in ranked:
        first_seen.setdefault(cand.who, len(first_seen))
    people = sorted((c for c in ranked if _heading(c) == "People"),
                    key=lambda c: (first_seen[c.who], c.page != "People" or c.who == "People"))  # who first
    groups: dict[str, list[str]] = {"People": [f"- {c.text}" for c in people]} if people else {}
    place = {name: index for index, name in enumerate(SECTIONS)}
    for cand in ranked:
        if _heading(cand) != "People":
            groups.setdefault(_heading(cand), []).append(f"- {cand.text}")
            place.setdefault(_heading(cand), len(SECTIONS))
    lines: list[str] = []
    for title, bullets in sorted(groups.items(), key=lambda item: place[item[0]]):
        lines += [f"## {title}", *bullets, ""]
    return lines


def _ranked_fit_lines(ranked: list[Candidate], max_lines: int, max_chars: int) -> list[str]:
    """Extractive body that keeps the highest-ranked bullets when the cap cuts.

    Counts what :func:`extractive_lines` will render (a heading and a blank line per section,
    one line per bullet) without rendering, so it stays linear in the candidates.
    """
    chosen: list[Candidate] = []
    groups: set[str] = set()
    lines = chars = 0
    for cand in ranked:
        new_group = _heading(cand) not in groups
        add_lines = 1 + (2 if new_group else 0)
        add_chars = len(cand.text) + 3 + ((len(_heading(cand)) + 4 + 1) if new_group else 0)
        if lines + 1 > max_lines:
            break  # not even one more bullet fits
        if lines + add_lines > max_lines or chars + add_chars > max_chars:
            continue
        chosen.append(cand)
        groups.add(_heading(cand))
        lines += add_lines
        chars += add_chars
    return extractive_lines(chosen)


SCHEMA_HINT = '{"markdown": "the MEMORY.md body: ## headings and - bullets, no title"}'
_WORD_RE = re.compile(r"[^\W_]+")
_STOPWORDS = frozenset(
    "the and for with that this from have has are was were user user's users about into over than then "
    "their there they them his her its our your you who what when where which will would".split()
)


async def _llm_answer(home: Promoting, ranked: list[Candidate], system: str, timeout: float) -> str:
    """The model's raw ``markdown`` text (LLMFormatError when the answer has no such field)."""
    from suzent_desktop.core import llm

    facts = "\n".join(f"- {c.text}" + (f" (recalled {c.recalls}x)" if c.recalls else "") for c in ranked)
    payload = await llm.complete_json(
        home.settings.memory_consolidation_model,
        [{"role": "system", "content": system}, {"role": "user", "content": facts}],
        schema_hint=SCHEMA_HINT,
        timeout=timeout,
    )
    if not isinstance(payload, dict) or not isinstance(payload.get("markdown"), str):
        raise llm.LLMFormatError('expected {"markdown": "..."}')
    return payload["markdown"]


def _answer_lines(markdown: str) -> list[str]:
    """The model's markdown as body lines: no title, no protected or recent blocks of its own."""
    text = PROTECTED_RE.sub("", markdown).replace(RECENT_START, "").replace(RECENT_END, "")
    return [line.rstrip() for line in text.strip().splitlines() if not line.startswith("# ")]


def _stems(text: str) -> set[str]:
    """Content words cut to five letters: 'allergic'/'allergy' and 'peanut'/'peanuts' meet."""
    return {w[:5] for w in _WORD_RE.findall(text.lower()) if len(w) > 2 and w not in _STOPWORDS}


def _is_covered(fact: str, stems: set[str]) -> bool:
    wanted = _stems(fact)
    return not wanted or len(wanted & stems) * 2 >= len(wanted)


def _bullet_texts(lines: list[str]) -> list[str]:
    return [line.strip()[2:].strip() for line in lines if line.strip()[:2] in ("- ", "* ", "+ ")]


def answer_problem(markdown: str, composed: str, offline_body: list[str], instructions: str) -> str:
    """Why a model's MEMORY.md must not be written ('' when it may).

    The model's text is judged as it would be written (after the hard cap cut it): it must
    be non-empty, not a copy of the instructions it was given, made of bullets, and keep
    every fact the offline promoter would keep, so a model can reword and regroup MEMORY.md
    but never shrink it below the offline result.
    """
    lines = [line for line in _answer_lines(markdown) if line.strip()]
    if not lines:
        return "the model returned an empty summary"
    told = " ".join(_WORD_RE.findall(instructions.lower()))
    copied = [line for line in lines if " ".join(_WORD_RE.findall(line.lower())) in told]
    if len(copied) * 2 >= len(lines):
        return f"the model echoed its instructions instead of summarising ({lines[0][:80]!r})"
    if not _bullet_texts(lines):
        return "the model's summary has no '- ' bullet lines"
    stems = _stems(composed)
    missing = [fact for fact in _bullet_texts(offline_body) if not _is_covered(fact, stems)]
    if missing:
        sample = "; ".join(repr(f[:60]) for f in missing[:3])
        return (f"the model's summary drops {count(len(missing), 'fact')} the offline summary keeps "
                f"(for example {sample})")
    return ""


def _recent_important(home: Promoting, extra: list[Fact]) -> list[str]:
    """Important facts of days after the watermark (and the given ones), newest first."""
    forgotten = Forgotten(home.tombstones.contents())
    days = home.days()
    seen: set[str] = set()
    lines: list[str] = []

    def add(fact: Fact) -> None:
        key = normalize(fact.content)
        if fact.is_important and key not in seen and not forgotten.holds(fact.content):
            seen.add(key)
            lines.append(f"- {fact.content}")

    for fact in extra:
        add(fact)
    for date in reversed(home.archive.dates()):
        if days.is_consolidated(date):
            break
        try:
            parsed = home.archive.read(date)
        except (OSError, ValueError):
            continue
        for line in reversed(parsed.facts):
            add(line.fact)
    return lines[:20]


def _existing(home: Promoting) -> str:
    path = memory_approval.working_path(home)
    if not path.is_file():
        return ""
    try:
        return read_regular(path).decode("utf-8-sig")
    except UnicodeDecodeError as exc:  # its protected section must survive byte for byte
        raise PromotionError(
            f"{path}: not valid UTF-8 (byte {exc.start}); MEMORY.md left untouched, fix its encoding"
        ) from exc


def _generated_part(text: str) -> list[str]:
    """The lines of an existing MEMORY.md outside the header, protected and recent blocks."""
    text = PROTECTED_RE.sub("", text)
    if RECENT_START in text and RECENT_END in text:
        head, _, rest = text.partition(RECENT_START)
        _, _, tail = rest.partition(RECENT_END)
        text = head + tail
    lines = [line for line in text.splitlines() if not line.startswith("# ")]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


async def promote(
    home: Promoting, *, llm_errors: list[str] | None = None, model_timeout: float | None = None
) -> ChangeSet:
    """Rewrite MEMORY.md from ``3_Personal/`` and recall signals, within the hard cap.

    ``model_timeout`` (seconds) caps the model call below ``llm_timeout_seconds``; 0 means no
    time is left (the offline summary is written and the reason reported).
    """
    s = home.settings
    max_lines, max_chars = max(1, s.memory_md_max_lines), max(1, s.memory_md_max_chars)

    def gather() -> tuple[list[Candidate], str, list[str]]:
        candidates = rank(merge_restated(_personal_candidates(home)), dict(home.recall.counts()))
        return candidates, _existing(home), _recent_important(home, [])

    ranked, existing, recent = await asyncio.to_thread(gather)
    protected = protected_sections(existing)
    changes = ChangeSet()
    if not ranked and not recent:
        return changes  # nothing to promote yet: keep whatever MEMORY.md says
    head = [HEADER, ""] + [line for sec in protected for line in [*sec.split("\n"), ""]]
    budget = (max_lines - len(head), max_chars - sum(len(x) + 1 for x in head))
    offline_body = await asyncio.to_thread(_ranked_fit_lines, round_robin(ranked), *budget)
    text = await asyncio.to_thread(compose, offline_body, protected, recent, max_lines, max_chars)
    if s.memory_consolidation_model and ranked:
        problem = ""
        timeout = s.llm_timeout_seconds if model_timeout is None else model_timeout
        if s.llm_timeout_seconds > 0 and model_timeout is not None:
            timeout = min(s.llm_timeout_seconds, model_timeout)
        try:
            if model_timeout is not None and model_timeout < 1.0:
                raise TimeoutError("no time was left in the run for the model's summary")
            from suzent_desktop.core.engines.dream.agent import load_prompt

            system = load_prompt("promote_system.md").format(max_lines=max_lines, max_chars=max_chars)
            markdown = await _llm_answer(home, ranked[:MAX_CANDIDATES], system, timeout)
            answer, taken = Forgotten(home.tombstones.contents()).take_out("\n".join(_answer_lines(markdown)))
            if taken:  # the model wrote forgotten text back: it never reaches MEMORY.md
                changes.errors.append(f"MEMORY.md: {taken} line(s) of the model's summary held forgotten text "
                                      "and were left out")
            # Each bullet must state one source fact (promotion_guard.py); the others are left out.
            answer_lines = answer.split("\n") if answer else []
            screened = screen(answer_lines, [c.text for c in ranked[:MAX_CANDIDATES]], _stems)
            markdown = "\n".join(screened.lines)
            composed = await asyncio.to_thread(compose, screened.lines, protected, recent, max_lines, max_chars)
            problem = answer_problem(markdown, composed, offline_body, f"{system}\n{SCHEMA_HINT}")
            if screened.dropped and not problem:
                changes.errors.append(describe(screened.dropped))
        except Exception as exc:  # fall back to the extractive summary, and say so
            problem = f"the model call failed: {exc}"
        if problem:
            if llm_errors is not None:
                llm_errors.append(problem)
            changes.errors.append(f"MEMORY.md: used the offline summary because {problem}")
        else:
            text = composed
    if text != existing:
        changes.memory_md = await asyncio.to_thread(memory_approval.write, home, text)
    return changes


async def refresh_from_important(home: Promoting, facts: list[Fact]) -> ChangeSet:
    """Capture-time path: keep the promoted body, refresh the block of recent important facts."""
    s = home.settings
    max_lines, max_chars = max(1, s.memory_md_max_lines), max(1, s.memory_md_max_chars)

    def build() -> tuple[str, str]:
        existing = _existing(home)
        recent = _recent_important(home, list(facts))
        return existing, compose(_generated_part(existing), protected_sections(existing), recent, max_lines, max_chars)

    existing, text = await asyncio.to_thread(build)
    changes = ChangeSet()
    if text != existing:
        changes.memory_md = await asyncio.to_thread(memory_approval.write, home, text)
    return changes


def memory_md_stats(text: str) -> dict[str, Any]:
    return {"lines": len(text.splitlines()), "chars": len(text)}
