"""Search hits, and the order that answers a question rather than listing matches.

The index ranks rows; a person asking their memory wants answers. Three rules turn the
ranked rows into that, in the core so every front end (command line, Search pane) gets
the same list:

* **One answer once.** Rows that say the same thing (a MEMORY.md line repeating a page
  bullet, the same fact in a daily log and on a page) fold into one hit that names every
  place it stands, the page first.
* **Current before history.** A superseded row (struck through, or under a page's
  ``History`` heading, or a daily-log fact a newer log fact replaced: ``core.log_currency``) ranks
  below current facts; when its page holds the current value on
  the same subject, that value takes the rank the old one earned, just above it, and is named on it.
  A question about the past ("where did the user work before") lifts history instead, the value
  superseded last first.
* Ties in the fused rank go to the hit whose own text holds the query's words that matter.
* Each hit keeps the fact's own date (its provenance date on a page, the log's day).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache

from suzent_desktop.core.files.sync.sync_conflicts import is_conflict_copy
from suzent_desktop.core.index.ranking.log_currency import supersede_older_log_facts
from suzent_desktop.core.index.ranking.terms import (
    asks_about_the_past,
    content_stems,
    coverage,
    names_another_relation,
)
from suzent_desktop.core.index.ranking.tie_order import rounded
from suzent_desktop.core.vault.facts.fact_pages import (
    content_words,
    dup_norm,
    may_be_same_fact,
    subject_value,
)

SUPERSEDED_WEIGHT = 0.7  # a superseded fact's score is scaled by this, unless the query asks about the past
PAST_WEIGHT = 1.5  # ... and by this when it does
NEAR_IDENTICAL = 0.8  # content-word overlap (Jaccard) at which two short facts are one
# Fused ranks tie often (every bullet of a page named "Work" matches "work" through its title):
# a hit whose own text holds the query's words that matter wins such ties.
COVERAGE_BONUS = 0.1
# A hit about the user's brother-in-law when the question asks about their brother shares the word, not the person.
OTHER_RELATION_WEIGHT = 0.6
FOLD_MAX_CHARS = 400  # longer texts (prose chunks) fold only when identical
EVIDENCE_SOURCES = frozenset({"transcript"})  # raw turns: the evidence a page's fact was taken from
MIN_EVIDENCE_STEMS = 2
# A turn much longer than the fact says more than the fact: folded into it, its other words would
# leave the results (the answer to "what did the user find at the library?" sat next to the fact).
EVIDENCE_MAX_RATIO = 4
_NEGATIONS = frozenset({"not", "no", "never", "nor", "don't", "doesn't", "didn't", "isn't", "wasn't", "won't", "can't"})
SOURCE_ORDER = {"notebook": 0, "core": 1, "archive": 2, "transcript": 3}  # where a folded fact is named first


@dataclass
class HitPlace:
    """Where a fact stands: a file, a line, the date it carries there, and its text there."""

    source_type: str
    path: str
    line: int | None
    date: str | None
    text: str


@dataclass
class SearchHit:
    text: str
    source_type: str  # "archive" | "notebook" | "core"
    path: str  # absolute
    line: int | None
    date: str | None  # the fact's source date (provenance on a page, the day of a log), not the file's
    score: float
    heading: str | None
    row_id: str
    superseded: bool = False
    until: str | None = None  # the date it was superseded on, when the page says
    current: HitPlace | None = None  # for a superseded hit: the current value on the same subject
    also: list[HitPlace] = field(default_factory=list)  # other places holding the same fact

    @property
    def place(self) -> HitPlace:
        return HitPlace(self.source_type, self.path, self.line, self.date, self.text)

    @property
    def places(self) -> list[HitPlace]:
        """Every place this fact stands, the primary one (a page, when one holds it) first."""
        return [self.place, *self.also]


CurrentFinder = Callable[[SearchHit], SearchHit | None]


def _source_rank(hit: SearchHit) -> int:
    return SOURCE_ORDER.get(hit.source_type, len(SOURCE_ORDER))


def _lead_order(hit: SearchHit) -> tuple:
    """Which place of a folded fact is named first: a page before a log, the page itself before its
    sync-conflict copy (the copy is listed for compare, not an answer), then the best score, then
    the place (so equal scores never depend on the order the index holds its rows in)."""
    return _source_rank(hit), is_conflict_copy(os.path.basename(hit.path)), -rounded(hit.score), hit.path, hit.line or 0


# Folding compares every hit with every group: each text's normal form, words and stems are computed once.
@lru_cache(maxsize=4096)
def _norm(text: str) -> str:
    return dup_norm(text)


@lru_cache(maxsize=4096)
def _words(text: str) -> frozenset[str]:
    return frozenset(content_words(text))


@lru_cache(maxsize=4096)
def _stems(text: str) -> frozenset[str]:
    return frozenset(content_stems(text))


def _same_fact(a: str, b: str) -> bool:
    """Near-identical: the same words up to case, punctuation and 'now', or nearly the same content words."""
    if _norm(a) == _norm(b):
        return True
    if len(a) > FOLD_MAX_CHARS or len(b) > FOLD_MAX_CHARS:
        return False
    wa, wb = _words(a), _words(b)
    if not wa or not wb:
        return False
    return len(wa & wb) / len(wa | wb) >= NEAR_IDENTICAL and may_be_same_fact(a, b)


def _states(fact: SearchHit, turn: SearchHit) -> bool:
    """A raw turn states a page's fact: every word of the fact that matters is in it (by stem,
    numbers included), it has no negation the fact lacks ("I live in Lisbon" → "User lives in Lisbon"),
    and it is not much longer than the fact (then it says more, and stays a hit of its own)."""
    if fact.source_type != "notebook" or turn.source_type not in EVIDENCE_SOURCES or len(turn.text) > FOLD_MAX_CHARS:
        return False
    if len(turn.text) > EVIDENCE_MAX_RATIO * len(fact.text):
        return False
    stems = _stems(fact.text)
    if len(stems) < MIN_EVIDENCE_STEMS or not stems <= _stems(turn.text):
        return False
    negated = {w for w in re.findall(r"[\w']+", turn.text.lower()) if w in _NEGATIONS}
    return not negated - {w for w in re.findall(r"[\w']+", fact.text.lower()) if w in _NEGATIONS}


def fold(hits: list[SearchHit]) -> list[SearchHit]:
    """Near-identical hits as one: the page's copy leads, the best score counts, every place is named.

    A raw transcript turn that states a page bullet's fact folds into that bullet too (it is the
    fact's evidence), so an old value's turn sinks with its superseded bullet.
    """
    groups: list[list[SearchHit]] = []
    ordered = sorted(hits, key=lambda h: h.score, reverse=True)
    for hit in ordered:
        for group in groups:
            if _same_fact(group[0].text, hit.text):
                group.append(hit)
                break
        else:
            groups.append([hit])
    for group in [g for g in groups if g[0].source_type in EVIDENCE_SOURCES and len(g) == 1]:
        # whichever place of a fact scores best (a MEMORY.md line may), its page bullet owns the turn
        owner = next((g for g in groups if g is not group and any(_states(h, group[0]) for h in g)), None)
        if owner is not None:
            owner.append(group[0])
            groups.remove(group)
    folded: list[SearchHit] = []
    for group in groups:
        ordered = sorted(group, key=_lead_order)
        lead = ordered[0]
        others = [h.place for h in ordered[1:]] + [p for h in ordered for p in h.also]
        seen = {(lead.path, lead.line)}
        also = []
        for place in others:
            if (place.path, place.line) not in seen:
                seen.add((place.path, place.line))
                also.append(place)
        date = lead.date or next((h.date for h in ordered if h.date), None)
        folded.append(replace(lead, score=max(h.score for h in group), date=date, also=also))
    return folded


def answer_order(hits: list[SearchHit], query: str, limit: int, find_current: CurrentFinder) -> list[SearchHit]:
    """Fold, weigh superseded facts, put the current value above its history; at most ``limit`` hits."""
    past = asks_about_the_past(query)
    folded, logged = supersede_older_log_facts(fold(hits))
    currents: dict[str, SearchHit] = {}
    earned: dict[tuple[str, int | None], float] = {}  # a current value's place: the best score of its old values
    weighted = []
    for hit in folded:
        hit.score *= 1.0 + COVERAGE_BONUS * coverage(hit.text, query)
        if names_another_relation(hit.text, query):
            hit.score *= OTHER_RELATION_WEIGHT
        if hit.superseded:
            current = logged.get(hit.row_id) or find_current(hit)
            if current is not None:
                currents[hit.row_id] = current
                key = (current.path, current.line)
                earned[key] = max(earned.get(key, 0.0), hit.score)
            hit = replace(
                hit,
                score=hit.score * (PAST_WEIGHT if past else SUPERSEDED_WEIGHT),
                current=current.place if current else None,
            )
        weighted.append(hit)
    if past:
        _latest_history_first(weighted)
    else:
        # The question an old value matched is answered by its current value: "where does Hana live now?"
        # finds "Hana lives in Leeds" by its words, and "Hana moved to Ghent" takes the rank it earned.
        for hit in weighted:
            hit.score = max(hit.score, earned.get((hit.path, hit.line), 0.0))
    ordered = sorted(weighted, key=lambda h: h.score, reverse=True)
    if not past:
        ordered = _current_first(ordered, currents)
    return ordered[:limit]


def _latest_history_first(hits: list[SearchHit]) -> None:
    """The old values of one subject on one page, best score to the one superseded last: "where did Anna
    work before?" asks for the value just before the current one, and the oldest, sharing the question's
    words as much, often outranked it."""
    groups: dict[tuple[str, str], list[SearchHit]] = {}
    for hit in hits:
        subject = subject_value(hit.text) if hit.superseded else None
        if subject is not None:
            groups.setdefault((hit.path, subject.key), []).append(hit)
    for group in groups.values():
        if len(group) < 2 or not all(h.until for h in group):
            continue
        scores = sorted((h.score for h in group), reverse=True)
        for hit, score in zip(sorted(group, key=lambda h: h.until or "", reverse=True), scores, strict=True):
            hit.score = score


def _current_first(hits: list[SearchHit], currents: dict[str, SearchHit]) -> list[SearchHit]:
    """Each superseded hit whose current value is known gets that value just above it (moved up or added)."""
    out: list[SearchHit] = []
    placed: set[tuple[str, int | None]] = set()
    pending = list(hits)
    while pending:
        hit = pending.pop(0)
        key = (hit.path, hit.line)
        if key in placed:
            continue
        current = currents.get(hit.row_id)
        if current is not None and (current.path, current.line) not in placed:
            ckey = (current.path, current.line)
            existing = next((h for h in pending if (h.path, h.line) == ckey), None)
            if existing is not None:
                pending.remove(existing)
                current = existing
            out.append(replace(current, score=max(current.score, hit.score)))
            placed.add(ckey)
        out.append(hit)
        placed.add(key)
    return out
