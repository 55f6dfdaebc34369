"""Coverage: before the watermark moves, every fact of the batch must stand on a page.

A run counts as productive when a content page changed, but a model can change a page
and still drop facts (or write one page of junk). Once the watermark covers a day its log
rows leave the index, so a dropped fact would vanish from search. The runner therefore
checks each fact of the batch against the vault after the engine finishes:

* **on a page**: a line (a bullet without its dates or strike-through, or one sentence of a
  paragraph) that is the same fact by the offline consolidator's own rules
  (:mod:`suzent_desktop.core.vault.facts.fact_pages`): equal after :func:`dup_norm`, the same subject
  and value (:func:`restates`), or a near duplicate (:func:`near_duplicate`) among the pages
  the run changed and the personal pages;
* **accounted for** by the engine through the ``account_for_fact`` tool, checked against the
  page it names, since a model's word alone is not enough (a prompt injected through a captured
  turn could otherwise account for every fact of a batch): *merged* into a named bullet that
  stands on the page and holds the fact (:func:`holds_fact`: the same fact, or most of its words,
  numbers and negations included); *superseded*, standing struck through under the page's
  History; or *dropped* with a reason a person can read (recorded in the run's history). A
  dropped fact stays in search until a person confirms the drop (``core/index/dropped.py``).

Whatever is left is *uncovered*: ``core/engines/ledger/uncovered.py`` keeps it searchable and the next
run offers it again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
from rapidfuzz import fuzz, process

from suzent_desktop.core.engines.dream.model import BatchFact
from suzent_desktop.core.engines.dream.tools import Accounting, UnreadablePage, VaultTools, readable_reason
from suzent_desktop.core.files.records.tombstones import normalize
from suzent_desktop.core.vault.facts.fact_bullets import HistoryTracker
from suzent_desktop.core.vault.facts.fact_pages import (
    Bullet,
    CodeLine,
    PageDoc,
    content_words,
    dup_norm,
    near_duplicate,
    negations,
    restates,
)
from suzent_desktop.core.vault.facts.page_lines import PageLines, line_texts, vault_of, where

Embed = Callable[[list[str]], np.ndarray]


@dataclass
class CoverageReport:
    on_pages: list[BatchFact] = field(default_factory=list)
    accounted: list[tuple[BatchFact, Accounting]] = field(default_factory=list)
    uncovered: list[BatchFact] = field(default_factory=list)
    out_of_time: bool = False  # the near-duplicate check was cut off by the run's time limit
    # (date, normalized fact) -> (page, line text) that holds it: on a page, or merged into a named bullet
    held: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    vault: PageLines | None = field(default=None, repr=False)  # the pages as the check read them

    @property
    def dropped(self) -> list[tuple[BatchFact, str]]:
        return [(f, a.reason) for f, a in self.accounted if a.how == "dropped"]


def read_vault(tools: VaultTools, changed: Iterable[str] = ()) -> PageLines:
    """Every page the tools can read, as the coverage check matches facts against it."""
    pages: dict[str, str] = {}
    for rel in tools.list(""):
        if rel.endswith("/") or rel.lower() in tools.reserved:
            continue
        try:
            pages[rel] = tools.read(rel)
        except (UnreadablePage, OSError):
            continue
    changed = set(changed)
    return vault_of(pages, lambda rel: rel in changed or rel.startswith(tools.personal_zone + "/"))


def _key(fact: BatchFact) -> tuple[str, str]:
    return fact.date, normalize(fact.fact.content)


def _near_duplicates(facts: list[BatchFact], vault: PageLines, embed: Embed | None) -> dict[int, tuple[str, str]]:
    """Indexes of ``facts`` that have a near duplicate among the candidate lines -> (page, that line)."""
    if embed is None or not facts or not vault.near:
        return {}
    texts = [" ".join(f.fact.content.split()) for f in facts]
    lines = list(vault.near)
    fact_vectors = np.asarray(embed(texts), dtype=np.float32)
    line_vectors = np.asarray(embed(lines), dtype=np.float32)
    scores = fact_vectors @ line_vectors.T
    found: dict[int, tuple[str, str]] = {}
    for index, text in enumerate(texts):
        for column in np.argsort(-scores[index])[:16]:
            line = lines[int(column)]
            if near_duplicate(line, text, float(scores[index, column])):
                found[index] = (vault.near[line], line)
                break
    return found


MERGED_WORD_SHARE = 2 / 3  # of the fact's content words a bullet must hold for the fact to be merged into it
SAME_WORD_RATIO = 80.0  # rapidfuzz ratio at which two words count as one ("works"/"work", "lived"/"lives")


def holds_fact(line: str, fact: str) -> bool:
    """Whether a bullet says ``fact``: the same fact by the consolidator's rules, or a bullet that
    carries most of its content words (a merged bullet says more, never less), with the fact's
    numbers and without a negation added or taken away."""
    if dup_norm(line) == dup_norm(fact) or restates(line, fact):
        return True
    if negations(line) != negations(fact) or not _numbers(fact) <= _numbers(line):
        return False
    words, have = content_words(fact), list(content_words(line))
    if not words or not have:
        return False
    found = sum(1 for word in words
                if process.extractOne(word, have, scorer=fuzz.ratio, score_cutoff=SAME_WORD_RATIO) is not None)
    return found >= MERGED_WORD_SHARE * len(words)


def _numbers(text: str) -> set[str]:
    return {w for w in dup_norm(text).split() if w.isdigit()}


def _holds(page: str, text: str) -> bool:
    """Whether a line of ``page`` is ``text`` (equal after :func:`dup_norm`)."""
    wanted = dup_norm(text)
    return any(dup_norm(p) == wanted for line in page.splitlines() for p in line_texts(line))


def _struck_in_history(page: str) -> list[Bullet]:
    """The struck-through bullets that stand under the page's History heading."""
    history = HistoryTracker()
    found: list[Bullet] = []
    for item in PageDoc.parse(page).items:
        if isinstance(item, Bullet):
            if history.feed("") and item.struck:
                found.append(item)
        elif not isinstance(item, CodeLine):
            history.feed(item)
    return found


def _holder(account: Accounting, fact: str, vault: PageLines) -> str | None:
    """The line that holds ``fact`` as the account says (the merged-into bullet, the struck-through
    History bullet, "" for a drop with a readable reason), or None when the page does not bear it out."""
    if account.how == "dropped":
        return "" if readable_reason(account.reason, fact) else None
    page = vault.pages.get(account.page.strip().replace("\\", "/"))
    if page is None:
        return None
    if account.bullet.strip() and not _holds(page, account.bullet):
        return None  # it names a bullet that is not there
    if account.how == "merged":
        bullet = account.bullet.strip()
        return bullet if bullet and holds_fact(bullet, fact) else None
    return next((b.text for b in _struck_in_history(page) if holds_fact(b.text, fact)), None)


def check_coverage(
    facts: list[BatchFact],
    tools: VaultTools,
    *,
    changed: Iterable[str] = (),
    embed: Embed | None = None,
) -> CoverageReport:
    """Sort the batch's facts into on a page, accounted for by the engine, and uncovered (blocking)."""
    vault = read_vault(tools, changed)
    report = CoverageReport(vault=vault)
    rest: list[BatchFact] = []
    for fact in facts:
        found = where(" ".join(fact.fact.content.split()), vault)
        if found is None:
            rest.append(fact)
            continue
        report.on_pages.append(fact)
        report.held[_key(fact)] = found
    try:
        near = _near_duplicates(rest, vault, embed)
    except TimeoutError:  # the run's time is up: the exact rules alone judge (stricter, never lossy)
        near, report.out_of_time = {}, True
    for index, found in near.items():
        report.on_pages.append(rest[index])
        report.held[_key(rest[index])] = found
    rest = [f for i, f in enumerate(rest) if i not in near]
    accounts = {dup_norm(a.fact): a for a in tools.accounted}
    for fact in rest:
        account = accounts.get(dup_norm(fact.fact.content))
        line = None if account is None else _holder(account, fact.fact.content, vault)
        if account is None or line is None:
            report.uncovered.append(fact)
            continue
        report.accounted.append((fact, account))
        if line:
            report.held[_key(fact)] = (account.page.strip().replace("\\", "/"), line)
    return report
