"""Review: what the dream learned since the person last looked, to keep, reword or forget
(``core/engines/review.py``), and provenance: why a memory exists, the log facts and the
conversation turns it came from (``core/engines/provenance.py``).

Asked for by the window (the Review pane, the Source pane, a page's source card), the command
line (``review``, ``why``) and the MCP tools (``review_memory``, ``settle_review``,
``memory_source``). The reads are blocking (each reads the logs and the pages): call them off the
GUI thread.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import KW_ONLY, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from suzent_desktop.core.engines import provenance, review
from suzent_desktop.core.engines.provenance import Card, Provenance
from suzent_desktop.core.engines.review import ReviewItem
from suzent_desktop.core.files.clock import Clock
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.records.archive import Archive
from suzent_desktop.core.files.records.tombstones import Tombstones
from suzent_desktop.core.files.records.transcripts import Transcripts, TranscriptTurn
from suzent_desktop.core.services.forget import Forget
from suzent_desktop.core.services.search import Search
from suzent_desktop.core.vault.days import Days
from suzent_desktop.core.vault.model import Vault
from suzent_desktop.core.vault.notebook import Notebook

if TYPE_CHECKING:
    from suzent_desktop.core.index.ranking.hits import SearchHit


@dataclass(eq=False)  # a service is itself, not its parts
class Review:
    """Review and provenance over one home's pages, logs, transcripts and tombstones, with search
    (a hit named by id) and forget (an item let go)."""

    layout: Layout
    clock: Clock
    _: KW_ONLY
    notebook: Notebook
    archive: Archive
    transcripts: Transcripts
    tombstones: Tombstones
    vault: Vault
    search: Search
    forget: Forget

    def days(self) -> Days:
        """Where each day stands now: facts of consolidated days no page holds are review items."""
        return Days.read(self.notebook, self.clock.today())

    # -- what the dream learned ------------------------------------------------------------------
    def items(self) -> list[ReviewItem]:
        """What to review, unsure items first (blocking)."""
        return review.items(self)

    def keep(self, ids: Iterable[str]) -> None:
        """Mark items reviewed: they leave the list until they change (blocking)."""
        review.keep(self.layout, list(ids))

    def mark_all(self) -> int:
        """Every item listed now is reviewed, and MEMORY.md as it stands too; how many were (blocking)."""
        return review.mark_all_reviewed(self)

    def edit(self, item: ReviewItem, text: str) -> ChangeSet:
        """Reword a page bullet the dream wrote, its dates kept (blocking); the caller syncs the page."""
        path = review.edit_line(self, item, text)
        return ChangeSet(changed=frozenset({path}), refresh=frozenset({path}), message=f"Edited {path.name}")

    async def forget_item(self, item: ReviewItem) -> ChangeSet:
        """Forget the item's memory (a tombstone, as every forget) and mark it reviewed."""
        return await review.forget(self, item)

    def accept_memory(self) -> ChangeSet | None:
        """Accept the proposed MEMORY.md (None when none waits): the agent reads it from now on."""
        if not review.accept_memory(self):
            return None
        return ChangeSet(changed=frozenset({self.layout.memory_md}), memory_md=True, message="Accepted MEMORY.md")

    # -- why a memory exists -----------------------------------------------------------------------
    async def why(self, what: str) -> Card:
        """The provenance card of a memory: ``PATH:LINE``, a hit's id, or its words."""
        return await provenance.why(self, what)

    def provenance(self) -> Provenance:
        """The files read once for many cards (blocking; build it again after changes)."""
        return Provenance(self)

    def card(self, path: Path | None, line: int | None, text: str = "", *,
             hit: SearchHit | None = None, index: Provenance | None = None) -> Card:
        """A card for a line of a file, a search hit, or words (blocking)."""
        if hit is not None:
            return provenance.card_for_hit(self, hit, index)
        if path is not None and line is not None:
            return (index or Provenance(self)).card_at(path, line)
        return provenance.card_for(self, text, index)

    def turns(self, date: str) -> list[TranscriptTurn]:
        """A day's conversation turns, forgotten ones left out (one day's file)."""
        return provenance.visible_turns(self, date)
