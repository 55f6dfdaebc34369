"""The promotion guard: each line of a model's MEMORY.md must be one source fact, in other words.

A model asked to summarise the personal pages can fuse two facts into one line ("Sister Ana:
User just started a new job at Airbus"), copy the list's bookkeeping ("Ursula K. Le Guin
(recalled 0x, latest unknown)"), or write a line no fact supports. Each bullet of its answer is
matched against the source facts by content words (stems, as the coverage check of
:mod:`~suzent_desktop.core.engines.memory_md.promotion` counts them):

* a line matches a fact when it carries most of the fact's words (:data:`FACT_RECALL`) and is
  mostly made of them (:data:`LINE_PRECISION`);
* a line that also carries most of another fact's words, beyond the first one's, is two facts
  fused, and a line with the list's recall counters is debris.

Lines that match no single fact are dropped and counted; headings and blank lines stay. The rest
is then judged as before: it is written only if it keeps what the offline promoter keeps.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

FACT_RECALL = 0.6  # share of a fact's content words a line must carry to state it
LINE_PRECISION = 0.5  # share of a line's content words that must come from that fact
_DEBRIS_RE = re.compile(r"\brecalled\s+\d+\s*x\b|\blatest\s+(?:unknown|\d{4}-\d{2}-\d{2})\b", re.IGNORECASE)
_BULLET_RE = re.compile(r"^\s*[-*+]\s+(?P<text>.*)$")


@dataclass
class Screened:
    lines: list[str] = field(default_factory=list)  # the answer's lines that may be written
    dropped: list[str] = field(default_factory=list)  # bullets that match no single fact


def screen(lines: list[str], facts: list[str], stems) -> Screened:  # noqa: ANN001 - stems: str -> set[str]
    """Keep headings, blank lines and the bullets that state exactly one of ``facts``."""
    fact_stems = [s for s in (stems(f) for f in facts) if s]
    result = Screened()
    for line in lines:
        match = _BULLET_RE.match(line)
        if match is None:
            result.lines.append(line)
            continue
        text = match.group("text")
        if _DEBRIS_RE.search(text) or not _one_fact(stems(text), fact_stems):
            result.dropped.append(line)
        else:
            result.lines.append(line)
    return result


def _one_fact(words: set[str], facts: list[set[str]]) -> bool:
    if not words:
        return False
    scored = [(len(words & f) / len(words | f), f) for f in facts if words & f]
    if not scored:
        return False
    _score, best = max(scored, key=lambda item: item[0])
    shared = words & best
    if len(shared) < FACT_RECALL * len(best) or len(shared) < LINE_PRECISION * len(words):
        return False
    rest = words - best
    return not any(f is not best and f & rest and len(words & f) >= FACT_RECALL * len(f) for f in facts)


def describe(dropped: list[str], limit: int = 2) -> str:
    """The warning for lines left out of a model's MEMORY.md ('' when none were)."""
    if not dropped:
        return ""
    shown = "; ".join(repr(line.strip()[:80]) for line in dropped[:limit])
    return (f"MEMORY.md: left out {len(dropped)} line(s) of the model's summary that match no single fact "
            f"(fused facts, list bookkeeping or text no fact supports), e.g. {shown}")
