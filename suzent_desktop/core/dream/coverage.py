"""Coverage: before the watermark moves, every fact of the batch must stand on a page.

A run counts as productive when a content page changed, but a model can change a page
and still drop facts (or write one page of junk). Once the watermark covers a day its log
rows leave the index, so a dropped fact would vanish from search. The runner therefore
checks each fact of the batch against the vault after the engine finishes:

* **on a page**: a line (a bullet without its dates or strike-through, or one sentence of a
  paragraph) that is the same fact by the offline consolidator's own rules
  (:mod:`suzent_desktop.core.dream.pages`): equal after :func:`dup_norm`, the same subject
  and value (:func:`restates`), or a near duplicate (:func:`near_duplicate`) among the pages
  the run changed and the personal pages;
* **accounted for** by the engine through the ``account_for_fact`` tool: merged into a named
  bullet that stands on the named page, superseded on a page that keeps a History section,
  or dropped with a reason (recorded in the run's history).

Whatever is left is *uncovered*: ``core/uncovered.py`` keeps it searchable and the next
run offers it again.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from suzent_desktop.core.dream.model import BatchFact
from suzent_desktop.core.dream.pages import (
    PageDoc,
    dup_norm,
    near_duplicate,
    parse_bullet,
    restates,
    subject_value,
)
from suzent_desktop.core.dream.tools import Accounting, UnreadablePage, VaultTools

MAX_LINE_CHARS = 600  # longer lines are prose, not one fact; they still count by exact sentences
_SENTENCE_RE = re.compile(r"(?<=[.!?;])\s+")

Embed = Callable[[list[str]], np.ndarray]


@dataclass
class CoverageReport:
    on_pages: list[BatchFact] = field(default_factory=list)
    accounted: list[tuple[BatchFact, Accounting]] = field(default_factory=list)
    uncovered: list[BatchFact] = field(default_factory=list)
    out_of_time: bool = False  # the near-duplicate check was cut off by the run's time limit

    @property
    def dropped(self) -> list[tuple[BatchFact, str]]:
        return [(f, a.reason) for f, a in self.accounted if a.how == "dropped"]


@dataclass
class _Vault:
    norms: set[str] = field(default_factory=set)
    by_relation: dict[str, list[str]] = field(default_factory=dict)
    near: list[str] = field(default_factory=list)  # candidate lines for near duplicates
    pages: dict[str, str] = field(default_factory=dict)  # rel -> text


def _line_texts(line: str) -> list[str]:
    """The texts one page line can hold a fact as: the line itself and each of its sentences."""
    stripped = line.strip()
    if not stripped:
        return []
    bullet = parse_bullet(stripped)
    text = bullet.text if bullet is not None else stripped.lstrip("#>|").strip()
    texts = [text]
    parts = [p for p in _SENTENCE_RE.split(text) if p.strip()]
    if len(parts) > 1:
        texts += parts
    return texts


def _read_vault(tools: VaultTools, changed: Iterable[str]) -> _Vault:
    vault = _Vault()
    changed = set(changed)
    for rel in tools.list(""):
        if rel.endswith("/") or rel.lower() in tools.reserved:
            continue
        try:
            text = tools.read(rel)
        except (UnreadablePage, OSError):
            continue
        vault.pages[rel] = text
        candidate = rel in changed or rel.startswith(tools.personal_zone + "/")
        for line in text.splitlines():
            for piece in _line_texts(line):
                vault.norms.add(dup_norm(piece))
                if len(piece) > MAX_LINE_CHARS:
                    continue
                relation = subject_value(piece)
                if relation is not None:
                    vault.by_relation.setdefault(relation.key, []).append(piece)
                if candidate:
                    vault.near.append(piece)
    vault.near = list(dict.fromkeys(vault.near))
    return vault


def _on_page(text: str, vault: _Vault) -> bool:
    if dup_norm(text) in vault.norms:
        return True
    relation = subject_value(text)
    return relation is not None and any(restates(line, text) for line in vault.by_relation.get(relation.key, ()))


def _near_duplicates(facts: list[BatchFact], vault: _Vault, embed: Embed | None) -> set[int]:
    """Indexes of ``facts`` that have a near duplicate among the candidate lines."""
    if embed is None or not facts or not vault.near:
        return set()
    texts = [" ".join(f.fact.content.split()) for f in facts]
    fact_vectors = np.asarray(embed(texts), dtype=np.float32)
    line_vectors = np.asarray(embed(vault.near), dtype=np.float32)
    scores = fact_vectors @ line_vectors.T
    found: set[int] = set()
    for index, text in enumerate(texts):
        for column in np.argsort(-scores[index])[:16]:
            if near_duplicate(vault.near[int(column)], text, float(scores[index, column])):
                found.add(index)
                break
    return found


def _valid(account: Accounting, vault: _Vault) -> bool:
    """An account holds when what it names is there: the bullet on its page, a History section."""
    if account.how == "dropped":
        return len(account.reason.strip()) >= 3
    page = vault.pages.get(account.page.strip().replace("\\", "/"))
    if page is None:
        return False
    if account.bullet.strip():
        wanted = dup_norm(account.bullet)
        if not any(dup_norm(p) == wanted for line in page.splitlines() for p in _line_texts(line)):
            return False
    elif account.how == "merged":
        return False
    if account.how == "superseded":
        return PageDoc.parse(page).history_index() is not None
    return True


def check_coverage(
    facts: list[BatchFact],
    tools: VaultTools,
    *,
    changed: Iterable[str] = (),
    embed: Embed | None = None,
) -> CoverageReport:
    """Sort the batch's facts into on a page, accounted for by the engine, and uncovered (blocking)."""
    vault = _read_vault(tools, changed)
    report = CoverageReport()
    rest: list[BatchFact] = []
    for fact in facts:
        (report.on_pages if _on_page(" ".join(fact.fact.content.split()), vault) else rest).append(fact)
    try:
        near = _near_duplicates(rest, vault, embed)
    except TimeoutError:  # the run's time is up: the exact rules alone judge (stricter, never lossy)
        near, report.out_of_time = set(), True
    report.on_pages += [f for i, f in enumerate(rest) if i in near]
    rest = [f for i, f in enumerate(rest) if i not in near]
    accounts = {dup_norm(a.fact): a for a in tools.accounted}
    for fact in rest:
        account = accounts.get(dup_norm(fact.fact.content))
        if account is not None and _valid(account, vault):
            report.accounted.append((fact, account))
        else:
            report.uncovered.append(fact)
    return report
