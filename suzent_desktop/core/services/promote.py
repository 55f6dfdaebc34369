"""Promote: MEMORY.md, what an agent is told on every turn, rewritten from the personal pages,
the recalls and the recent important facts (``core/engines/memory_md/promotion.py``).

Asked for by a person (a menu, ``promote``), by a dream, and by a capture whose facts are
important; a person who approves MEMORY.md first gets a proposal instead of a rewrite.
"""

from __future__ import annotations

import dataclasses
from dataclasses import KW_ONLY, dataclass

from suzent_desktop.core.engines.memory_md import promotion
from suzent_desktop.core.engines.memory_md.recall import RecallLog
from suzent_desktop.core.files.clock import Clock
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.records.archive import Archive
from suzent_desktop.core.files.records.log_grammar import Fact
from suzent_desktop.core.files.records.tombstones import Tombstones
from suzent_desktop.core.vault.days import Days
from suzent_desktop.core.vault.model import Vault
from suzent_desktop.core.vault.notebook import Notebook
from suzent_desktop.settings import Settings


@dataclass(eq=False)  # a service is itself, not its parts
class Promote:
    """MEMORY.md promotion over one home's pages, logs, recalls and tombstones."""

    settings: Settings
    layout: Layout
    clock: Clock
    _: KW_ONLY
    notebook: Notebook
    archive: Archive
    tombstones: Tombstones
    vault: Vault
    recall: RecallLog

    def with_settings(self, settings: Settings) -> Promote:
        """This service under new settings (a home's settings are replaced, never edited)."""
        return dataclasses.replace(self, settings=settings)

    def days(self) -> Days:
        """Where each day stands now: recent important facts come from days not yet consolidated."""
        return Days.read(self.notebook, self.clock.today())

    async def run(self, *, model_timeout: float | None = None) -> ChangeSet:
        """Rewrite MEMORY.md; ``model_timeout`` caps the model's summary call (a dream passes the time its run has left)."""
        return await promotion.promote(self, model_timeout=model_timeout)

    async def important(self, facts: list[Fact]) -> ChangeSet:
        """High-importance facts just captured refresh MEMORY.md before any dream has run; a failure
        is reported, never raised: the facts are captured and MEMORY.md stays as it is."""
        try:
            return await promotion.refresh_from_important(self, facts)
        except promotion.PromotionError as exc:
            return ChangeSet(errors=[str(exc)])
