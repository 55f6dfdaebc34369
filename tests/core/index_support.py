"""An indexer over a notebook written from a dict of pages, for the search tests."""

from __future__ import annotations

import numpy as np

from suzent_desktop.core.files.clock import Clock
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.records.archive import Archive
from suzent_desktop.core.index.embedding import HashingEmbedder
from suzent_desktop.core.index.indexer import Indexer
from suzent_desktop.core.index.ranking import fusion
from suzent_desktop.core.index.ranking.filters import Filters
from suzent_desktop.core.index.storage.store import IndexStore
from suzent_desktop.core.vault.notebook import Notebook


def indexer_over(layout: Layout, clock: Clock, pages: dict[str, str]) -> Indexer:
    """The notebook bootstrapped, ``pages`` (notebook-relative path → text) written, and an indexer with
    the deterministic hashing embedder; nothing indexed yet."""
    notebook = Notebook(layout)
    notebook.bootstrap()
    layout.memory_dir.mkdir(parents=True, exist_ok=True)
    for relative, text in pages.items():
        path = layout.notebook_dir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return Indexer(layout, HashingEmbedder(384), clock, notebook=notebook, archive=Archive(layout))


def ranked(store: IndexStore, vector: np.ndarray, query: str, limit: int, filters: Filters | None = None) -> list[dict]:
    """``store``'s rows for ``query`` in the order search gives them (``core.index.fusion``, the one ranking path)."""
    plan = fusion.plan_for(query, fusion.ALL_SCRIPTS)
    return fusion.search(store, fusion.TitleCache().get(store), plan, query, vector, limit, filters)
