"""Which memory a typed forget names: exactly one, or a refusal that lists the candidates.

A forget that guesses forgets the wrong thing: ``forget "User …"`` once took one fact out of
fifty starting with "User". So typed text is read the way the daily-log grammar reads a fact
line (a pasted ``- [preference] User likes tea `tags``` names the fact ``User likes tea``),
a trailing full stop or other punctuation is tried without it, and then:

* text cut short with "…" must begin exactly one memory; several are listed and refused;
* whole text must be a memory: an indexed row or place, or a fact line, paragraph or item
  of a file that would be indexed; otherwise nothing is recorded, unless ``force`` (for text
  not captured yet, so it is never indexed when it arrives).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from suzent_desktop.core.files.records.log_grammar import parse_fact_line
from suzent_desktop.core.files.records.tombstones import normalize

if TYPE_CHECKING:
    from suzent_desktop.core.index.indexer import Indexer
    from suzent_desktop.core.index.ranking.hits import SearchHit

MAX_LISTED = 10
_TRAILING = " .!?;:,"


class ForgetRefused(ValueError):
    """A forget that would not be exact: nothing was recorded. ``candidates`` are the memories it could mean."""

    def __init__(self, message: str, candidates: list[str] | None = None) -> None:
        super().__init__(message)
        self.candidates = list(candidates or [])


def as_logged(text: str) -> str:
    """Typed text as the log grammar reads a fact line: bullet, ``[category]`` and tag span left out."""
    stripped = text.strip()
    if not stripped:
        return stripped
    fact = parse_fact_line(stripped if stripped[0] in "-*+" else f"- {stripped}")
    return fact.content if fact is not None else stripped


def variants(text: str) -> list[str]:
    """The text as typed, then without trailing punctuation (a fact is logged without its full stop)."""
    bare = text.rstrip(_TRAILING)
    return list(dict.fromkeys(v for v in (text, bare) if v.strip()))


def _places(hit: Any) -> list[Any]:
    return list(getattr(hit, "places", None) or [hit])


async def hit_named(indexer: Indexer, text: str) -> SearchHit | None:
    """The search hit whose text (or one of whose places) is ``text``, also cut short with "…"."""
    wanted = normalize(text)
    cut = wanted.endswith("…")
    wanted = wanted.rstrip("…").strip()
    if not wanted:
        return None
    try:
        response = await indexer.search(text.strip().rstrip("…"), limit=10, operators=False)
    except Exception:  # noqa: BLE001 - no search, no hit: the text is then read as typed
        return None
    for hit in response.hits:
        for place in _places(hit):
            norm = normalize(place.text)
            if norm == wanted or (cut and norm.startswith(wanted)):
                return hit
    return None


async def exact_target(indexer: Indexer, text: str, *, force: bool = False) -> str:
    """The text a forget of ``text`` should tombstone, or :class:`ForgetRefused` (the index's rows,
    places and search are looked at)."""
    logged = as_logged(text)
    if not logged:
        raise ValueError("nothing to forget: the text is empty")
    if logged.endswith("…"):
        return await _cut_short(indexer, logged, force)
    for variant in variants(logged):
        if await indexer.row_with_text(variant) is not None or await hit_named(indexer, variant) is not None:
            return variant
    for variant in variants(logged):
        if await asyncio.to_thread(indexer.sources_holding, variant):
            return variant
    if force:
        return logged
    raise ForgetRefused(
        f"nothing remembered matches {logged[:120]!r}; nothing was recorded. Search for it and forget the hit "
        "as shown, or use --force to record it anyway (for text not captured yet)"
    )


async def _cut_short(indexer: Indexer, logged: str, force: bool) -> str:
    prefix = normalize(logged.rstrip("…"))
    if not prefix:
        raise ValueError("nothing to forget: the text is empty")
    response = await indexer.search(logged.rstrip("…").strip(), limit=50, operators=False)
    found: dict[str, str] = {}
    for hit in response.hits:
        for place in _places(hit):
            norm = normalize(place.text)
            if norm.startswith(prefix):
                found.setdefault(norm, place.text)
    if len(found) == 1:
        return logged
    if not found:
        if force:
            return logged.rstrip("…").strip()
        raise ForgetRefused(f"nothing remembered begins with {logged[:120]!r}; nothing was recorded")
    names = list(found.values())
    listed = "; ".join(repr(" ".join(n.split())[:100]) for n in names[:MAX_LISTED])
    more = f" and {len(names) - MAX_LISTED} more" if len(names) > MAX_LISTED else ""
    raise ForgetRefused(
        f"{logged[:120]!r} is cut short and could mean {len(names)} memories: {listed}{more}. "
        "Nothing was forgotten; give the whole text of the one you mean", names)
