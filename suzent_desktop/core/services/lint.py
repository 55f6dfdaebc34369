"""Lint: one pass over the notebook reporting broken links, stale and duplicate pages and
rewordings of forgotten text (``core/engines/dream/lint.py``); it finds, it never edits.

Asked for by a person (a menu, ``lint``, the MCP tool) and by a dream when one is due.
"""

from __future__ import annotations

import dataclasses
from dataclasses import KW_ONLY, dataclass
from typing import TYPE_CHECKING

from suzent_desktop.core.engines.dream.lint import run_lint
from suzent_desktop.core.engines.dream.model import LintResult
from suzent_desktop.core.files.clock import Clock
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.records.tombstones import Tombstones
from suzent_desktop.core.vault.model import Vault
from suzent_desktop.core.vault.notebook import Notebook

if TYPE_CHECKING:
    from suzent_desktop.core.index.embedding import Embedder


@dataclass(eq=False)  # a service is itself, not its parts
class Lint:
    """Lint over one home's pages, tombstones and embedder."""

    layout: Layout
    clock: Clock
    _: KW_ONLY
    notebook: Notebook
    embedder: Embedder
    tombstones: Tombstones
    vault: Vault

    def with_embedder(self, embedder: Embedder) -> Lint:
        """This service comparing pages with another model (a home's embedder is replaced, never edited)."""
        return dataclasses.replace(self, embedder=embedder)

    async def run(self) -> LintResult:
        """One lint pass over the notebook (findings only; ``## [TODAY] lint`` after a clean pass)."""
        return await run_lint(self)
