"""The lines of pages as facts are matched against them: one fact stands on a page when a line holds it.

A line holds a fact when, by the offline consolidator's own rules (``core/vault/facts/fact_pages.py``),
it is the same text after :func:`dup_norm` or states the same subject and value
(:func:`restates`); a bullet counts without its dates or strike-through, a paragraph line by each
of its sentences too. The dream's coverage check (``core/engines/dream/guards/coverage.py``) and the
record of facts pages hold (``core/engines/ledger/lost_facts.py``) ask the same question, so the rule
lives here, below both.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from suzent_desktop.core.vault.facts.fact_pages import dup_norm, parse_bullet, restates, subject_value

MAX_LINE_CHARS = 600  # longer lines are prose, not one fact; they still count by exact sentences
_SENTENCE_RE = re.compile(r"(?<=[.!?;])\s+")


@dataclass
class PageLines:
    """The lines of pages, as the coverage check matches facts against them."""

    norms: dict[str, tuple[str, str]] = field(default_factory=dict)  # dup_norm -> (page, line text)
    by_relation: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # -> [(line text, page)]
    near: dict[str, str] = field(default_factory=dict)  # candidate lines for near duplicates -> page
    pages: dict[str, str] = field(default_factory=dict)  # rel -> text


def line_texts(line: str) -> list[str]:
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


def vault_of(pages: dict[str, str], candidate: Callable[[str], bool] = lambda rel: False) -> PageLines:
    """Pages (path -> text) as the coverage check matches facts against them; the lines of the
    ``candidate`` pages are looked at for near duplicates too."""
    vault = PageLines(pages=pages)
    for rel, text in pages.items():
        near = candidate(rel)
        for line in text.splitlines():
            for piece in line_texts(line):
                vault.norms.setdefault(dup_norm(piece), (rel, piece))
                if len(piece) > MAX_LINE_CHARS:
                    continue
                relation = subject_value(piece)
                if relation is not None:
                    vault.by_relation.setdefault(relation.key, []).append((piece, rel))
                if near:
                    vault.near.setdefault(piece, rel)
    return vault


def where(text: str, vault: PageLines) -> tuple[str, str] | None:
    """(page, line text) of a line that holds ``text`` by the exact rules, or None."""
    found = vault.norms.get(dup_norm(text))
    if found is not None:
        return found
    relation = subject_value(text)
    if relation is None:
        return None
    return next(((rel, line) for line, rel in vault.by_relation.get(relation.key, ()) if restates(line, text)), None)
