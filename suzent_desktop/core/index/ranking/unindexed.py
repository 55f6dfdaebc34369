"""Text matching over files the index could not take, so a search still reaches them.

Fail-closed indexing adds no row for a file whose embedding failed. When the embedder has
been down since a file was written (a remote embedding model while offline), the index's
full-text fallback cannot see that file either. These files are few and already listed as
failed, so a plain word match over their rows, read from disk, stands in until a pass
succeeds.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from suzent_desktop.core.index.ranking.filters import Filters
from suzent_desktop.core.index.storage.store import Row

_WORD = re.compile(r"\w+", re.UNICODE)


def words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.casefold()) if len(w) > 1}


def _passes(row: Row, filters: Filters) -> bool:
    if filters.source and row.source_type != filters.source:
        return False
    if filters.zone and row.zone != filters.zone:
        return False
    if filters.exclude_path and row.path == filters.exclude_path:
        return False
    if (filters.paths is not None and row.path not in filters.paths) or row.path in filters.skip_paths:
        return False
    text = row.text.lower()
    if not all(p in text for p in filters.phrases) or any(w in text for w in filters.without):
        return False
    if (filters.date_from or filters.date_to) and row.date is None:
        return False
    if filters.date_from and row.date is not None and row.date < filters.date_from:
        return False
    return not (filters.date_to and row.date is not None and row.date > filters.date_to)


def text_matches(rows: Iterable[Row], query: str, limit: int, filters: Filters) -> list[dict]:
    """Rows holding at least half of the query's words (and one at least), best first."""
    wanted = words(query)
    if not wanted:
        return []
    need = max(1, (len(wanted) + 1) // 2)
    scored: list[tuple[float, Row]] = []
    for row in rows:
        found = len(wanted & words(row.text))
        if found >= need and _passes(row, filters):
            scored.append((found / len(wanted), row))
    scored.sort(key=lambda pair: pair[0], reverse=True)
    return [
        {
            "id": row.id,
            "text": row.text,
            "source_type": row.source_type,
            "path": row.path,
            "line": row.line,
            "date": row.date,
            "heading": row.heading,
            "superseded": row.superseded,
            "until": row.until,
            "score": score,
        }
        for score, row in scored[:limit]
    ]


class RowCache:
    """A failed file's rows, re-read only when the file or the tombstones change."""

    def __init__(self) -> None:
        self._rows: dict[str, tuple[tuple[int, int, str], list[Row]]] = {}
        self._lock = threading.Lock()

    def rows(self, path: Path, stones_digest: str, read: Callable[[], list[Row]]) -> list[Row]:
        try:
            st = path.stat()
        except OSError:
            return []
        key = (st.st_mtime_ns, st.st_size, stones_digest)
        with self._lock:
            cached = self._rows.get(str(path))
        if cached is not None and cached[0] == key:
            return cached[1]
        rows = read()
        with self._lock:
            self._rows[str(path)] = (key, rows)
        return rows

    def keep_only(self, paths: Iterable[str]) -> None:
        """Forget files that are no longer failing."""
        keep = set(paths)
        with self._lock:
            for stale in [p for p in self._rows if p not in keep]:
                del self._rows[stale]
