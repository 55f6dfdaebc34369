"""A fact that stands in several places (its page, MEMORY.md, another page) is one answer: its copies share
a rank, so they never take the room of other answers in the first hits, and the hit names every place."""

from __future__ import annotations

import pytest

from suzent_desktop.core.files.records.archive import Archive
from suzent_desktop.core.index.embedding import HashingEmbedder
from suzent_desktop.core.index.indexer import Indexer
from suzent_desktop.core.vault.notebook import Notebook

AUNTS = ["Amara", "Bram", "Cosima", "Dario"]
OTHER_PAGES = ["Emeka", "Fintan"]
FACTS = [f"User's aunt {name} lives in the city" for name in AUNTS]
ANSWER = "User's aunt Nadia is a carpenter in Bilbao, a city by the sea"
OTHERS = ["User's aunt enjoys long walks", "User's aunt has a red bicycle", "User's aunt bakes bread on Sundays"]


@pytest.fixture
def indexer(layout, clock) -> Indexer:
    notebook = Notebook(layout)
    notebook.bootstrap()
    layout.memory_dir.mkdir(parents=True, exist_ok=True)
    return Indexer(layout, HashingEmbedder(384), clock, notebook=notebook, archive=Archive(layout))


def _page(layout, name: str, facts: list[str]) -> None:
    path = layout.notebook_dir / "3_Personal" / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"# {name}\n\n" + "".join(f"- {f} (2026-05-0{i})\n" for i, f in enumerate(facts, 1)),
                    encoding="utf-8")


async def test_copies_of_a_fact_take_one_place_among_the_first_hits(layout, indexer) -> None:
    """After a dream every fact stands on its page and in MEMORY.md: each copy took a rank of its own, so
    the candidates held fewer facts and a copied fact's hit lost the places it stands."""
    _page(layout, "People", [*FACTS, ANSWER, *OTHERS])
    for name in OTHER_PAGES:
        _page(layout, name, FACTS)
    memory = layout.memory_dir / "MEMORY.md"
    memory.write_text("# Memory\n\n## People\n" + "".join(f"- {f}\n" for f in FACTS), encoding="utf-8")
    await indexer.sync()
    hits = (await indexer.search("Which city does the user's aunt live in?", limit=5)).hits
    assert ANSWER in [h.text for h in hits]
    copied = [h for h in hits if h.text in FACTS]
    assert len(copied) == len(FACTS)
    assert all(str(memory) in [p.path for p in h.places] for h in copied)
