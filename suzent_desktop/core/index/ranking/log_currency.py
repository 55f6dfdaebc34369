"""Current before superseded among daily-log facts, before any dream has run.

A page records a change of value itself (the old bullet moves to History, struck through).
Daily logs are append-only and hold both values until the dream: "User works at Contoso" on one
day (or on a page, from days already consolidated), "User now works at Microsoft" in a log weeks
later. Among the hits of one search, a log fact or a current page bullet that sets the same
subject and relation (``core.dream.pages.subject_value``) as a *newer* log fact is superseded by
it: it is marked the way page history is (``superseded``, ``until`` the newer fact's date) so it
ranks below the newer value and says it is older. Two pages that disagree are lint's business.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from suzent_desktop.core.vault.facts.fact_pages import restates, subject_value

if TYPE_CHECKING:
    from suzent_desktop.core.index.ranking.hits import SearchHit

LOG_SOURCES = frozenset({"archive"})  # where a newer value can come from before a dream
OLDER_SOURCES = frozenset({"archive", "notebook"})  # what it can replace


def _when(hit: SearchHit) -> tuple[str, int]:
    return hit.date or "", hit.line or 0


def supersede_older_log_facts(hits: list[SearchHit]) -> tuple[list[SearchHit], dict[str, SearchHit]]:
    """The hits with older log values marked superseded, and for each such hit (by row id) the newer
    hit that replaced it. Hits of other sources, and values restated rather than changed, are left alone."""
    newest: dict[str, SearchHit] = {}
    keyed: list[tuple[SearchHit, str | None]] = []
    for hit in hits:
        relation = subject_value(hit.text) if hit.source_type in OLDER_SOURCES and not hit.superseded else None
        key = relation.key if relation is not None else None
        keyed.append((hit, key))
        if key is not None and (key not in newest or _when(hit) > _when(newest[key])):
            newest[key] = hit
    out: list[SearchHit] = []
    currents: dict[str, SearchHit] = {}
    for hit, key in keyed:
        newer = newest.get(key) if key is not None else None
        if (newer is None or newer is hit or newer.source_type not in LOG_SOURCES or _when(newer) <= _when(hit)
                or restates(newer.text, hit.text)):
            out.append(hit)
            continue
        currents[hit.row_id] = newer
        out.append(replace(hit, superseded=True, until=newer.date))
    return out, currents
