"""The ``doctor`` audit of the index: rows that no file gives as it is now. Reads only."""

from __future__ import annotations

from suzent_desktop.core.index.rows.planner import Planner
from suzent_desktop.core.index.rows.sources import Moment, Sources
from suzent_desktop.core.index.storage.table import IndexTable


def audit_rows(
    table: IndexTable, sources: Sources, planner: Planner, at: Moment | None = None
) -> list[tuple[str, str]]:
    """``(path, why)`` for every index row the files do not give now (``doctor``; ``at``: the vault and
    days it read); reads only.

    Rows of files that are merely stale (changed since the last pass, or failed to
    embed) are reported too; callers that list stale files separately may drop those.
    """
    rows = table.reader().scan(["id", "path"])
    wanted_sources = sources.all(at=at)
    stones = planner.tombstones.contents()
    wanted: dict[str, set[str]] = {}
    counts: dict[tuple[str, str], int] = {}
    for rid, path in zip(rows.column("id").to_pylist(), rows.column("path").to_pylist(), strict=True):
        counts[(path, rid)] = counts.get((path, rid), 0) + 1
    problems: dict[str, list[str]] = {}
    for (path, rid), times in sorted(counts.items()):
        source = wanted_sources.get(path)
        if source is None:
            problems.setdefault(path, []).append("none")
            continue
        if path not in wanted:
            wanted[path] = {r.id for r in planner.read_rows(source, stones)}
        if rid not in wanted[path]:
            problems.setdefault(path, []).append("other")
        elif times > 1:
            problems.setdefault(path, []).append("double")
    found: list[tuple[str, str]] = []
    for path, kinds in sorted(problems.items()):
        if "none" in kinds:
            why = (f"{len(kinds)} index row(s) of a file that should have none (deleted, or a daily log "
                   "the watermark covers)")
        else:
            parts = []
            if kinds.count("other"):
                parts.append(f"{kinds.count('other')} index row(s) not derivable from the file as it is")
            if kinds.count("double"):
                parts.append(f"{kinds.count('double')} duplicated index row(s)")
            why = "; ".join(parts)
        found.append((path, why))
    return found
