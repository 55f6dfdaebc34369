"""What a search is narrowed to: one typed object from the Search pane (or ``--source``, or the
MCP tool's arguments) down to the table query.

A user picks ``source``, ``zone`` and a date range; the query's operators add the rest
(``core/vault/query.py``: files kept or skipped for ``tag:``/``path:``, phrases and excluded terms)
before the store applies them all, ahead of the limit. No heavy import: the window builds one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import PurePosixPath


@dataclass(frozen=True)
class Filters:
    source: str | None = None
    zone: str | None = None
    date_from: str | None = None
    date_to: str | None = None
    exclude_path: str | None = None
    # Search operators (``core.query``), applied before the limit so they never empty a page of hits:
    paths: frozenset[str] | None = None  # only rows of these files (``tag:``, ``path:``)
    skip_paths: frozenset[str] = frozenset()  # no rows of these files (``-tag:``, ``-path:``)
    phrases: tuple[str, ...] = ()  # lower-case text every row holds (``"phrase"``)
    without: tuple[str, ...] = ()  # lower-case text no row holds (``-term``)

    def narrowed(self) -> Filters:
        """The filters as the store compares them: a zone is the first folder of the path it names."""
        zone = PurePosixPath(self.zone.strip("/")).parts[0] if self.zone and self.zone.strip("/") else None
        return replace(self, source=self.source or None, zone=zone)
