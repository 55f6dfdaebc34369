"""Search: the index's answer to a query, as a person or an agent is shown it."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any

from suzent_desktop.core.engines.memory_md.recall import Recall, RecallLog
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.index.ranking.filters import Filters

if TYPE_CHECKING:
    from suzent_desktop.core.index.indexer import Indexer
    from suzent_desktop.core.index.ranking.hits import SearchHit
    from suzent_desktop.core.index.ranking.search import SearchResponse


class Search:
    """Queries over one home's index; each hit shown is a recall signal (``core/engines/memory_md/recall.py``)."""

    def __init__(self, layout: Layout, indexer: Indexer, recall: RecallLog) -> None:
        self.layout = layout
        self.indexer = indexer
        self.recall = recall

    async def search(
        self, query: str, *, limit: int = 10, filters: Filters | None = None, record_recall: bool = True
    ) -> SearchResponse:
        """The hits for ``query``; each is a recall signal unless the caller is the dream runner itself."""
        response = await self.indexer.search(query, limit=limit, filters=filters)
        allowed = [hit for hit in response.hits if self.layout.confinement.allows(hit.path)]
        if len(allowed) < len(response.hits):  # rows a pass before the rule left behind (core/files/disk/confine.py)
            response = dataclasses.replace(response, hits=allowed)
        if record_recall and response.hits:
            recalls = [Recall(hit.text, hit.source_type) for hit in response.hits]
            try:
                await asyncio.to_thread(self.recall.record, recalls)
            except OSError:
                pass  # recall signals are best-effort; a read-only vault must not break search
        return response

    async def related(self, page: Path, *, limit: int = 8) -> list[Any]:
        """Index rows nearest to a page's own chunks, from other files (a "see also")."""
        return await self.indexer.related(page, limit=limit)

    async def hit_by_id(self, row_id: str) -> SearchHit | None:
        """The indexed row ``row_id`` as a hit (ids derive from source and content: they outlive a restart)."""
        return await self.indexer.hit_by_id(row_id)
