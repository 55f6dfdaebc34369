"""What a dream run reads, declared where the runner can import it: the home's stores, the services a
run ends with, the settings and the embedder in use, and where the days stand.

The Dream service (``core/services/dream.py``) provides them; declaring them in the engine layer lets the
runner import neither the service nor any front door above it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from suzent_desktop.core.engines.dream.model import LintResult
from suzent_desktop.core.files.events import ChangeSet

if TYPE_CHECKING:
    from suzent_desktop.core.engines.forgetting import ForgetJournal
    from suzent_desktop.core.files.clock import Clock
    from suzent_desktop.core.files.paths.layout import Layout
    from suzent_desktop.core.files.records.archive import Archive
    from suzent_desktop.core.files.records.tombstones import Tombstones
    from suzent_desktop.core.index.dropped import DroppedFact
    from suzent_desktop.core.index.embedding import Embedder
    from suzent_desktop.core.index.indexer import Indexer
    from suzent_desktop.core.index.ranking.search import SearchResponse
    from suzent_desktop.core.vault.days import Days
    from suzent_desktop.core.vault.model import Vault
    from suzent_desktop.core.vault.notebook import Notebook
    from suzent_desktop.settings import Settings


class PageStrip(Protocol):
    """What the runner uses of the Forget service: its journal of removed lines, and the page strip."""

    journal: ForgetJournal

    async def take_off_pages(self, stones: Iterable[str], pages: Iterable[Path] | None = None) -> ChangeSet: ...


class Searching(Protocol):
    """What the runner uses of the Search service: a query whose hits are no recall signal."""

    async def search(self, query: str, *, limit: int = ..., record_recall: bool = ...) -> SearchResponse: ...


class Promoting(Protocol):
    """What the runner uses of the Promote service: MEMORY.md rewritten within the run's time."""

    async def run(self, *, model_timeout: float | None = None) -> ChangeSet: ...


class Linting(Protocol):
    """What the runner uses of the Lint service: one pass when a lint is due."""

    async def run(self) -> LintResult: ...


class DreamParts(Protocol):
    """What the runner reads (the Dream service, ``core/services/dream.py``)."""

    settings: Settings
    layout: Layout
    clock: Clock
    embedder: Embedder
    archive: Archive
    notebook: Notebook
    tombstones: Tombstones
    indexer: Indexer
    vault: Vault

    # The services, read-only here: the runner takes the part of each that it uses.
    @property
    def forget(self) -> PageStrip: ...
    @property
    def search(self) -> Searching: ...
    @property
    def promote(self) -> Promoting: ...
    @property
    def lint(self) -> Linting: ...

    def days(self) -> Days: ...
    def watermark(self) -> str | None: ...
    def pending_dates(self) -> list[str]: ...
    def count_facts(self, dates: Iterable[str]) -> int: ...
    def pending_dropped(self) -> list[DroppedFact]: ...
