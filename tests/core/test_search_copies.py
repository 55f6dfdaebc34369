"""A fact that stands in several places (its page, MEMORY.md, a question asked on many days) is one answer:
its copies share a rank, so they never push other answers out of the first hits."""

from __future__ import annotations

import pytest

from suzent_desktop.core.files.records.archive import Archive
from suzent_desktop.core.index.embedding import HashingEmbedder
from suzent_desktop.core.index.indexer import Indexer
from suzent_desktop.core.vault.notebook import Notebook

RELATIVES = [("cousin", "Amara"), ("uncle", "Bram"), ("niece", "Cosima"), ("nephew", "Dario"),
             ("godson", "Emeka"), ("stepdad", "Fintan")]

OTHERS = ["User's aunt enjoys long walks", "User's aunt has a red bicycle", "User's aunt bakes bread on Sundays"]


@pytest.fixture
def indexer(layout, clock) -> Indexer:
    notebook = Notebook(layout)
    notebook.bootstrap()
    layout.memory_dir.mkdir(parents=True, exist_ok=True)
    return Indexer(layout, HashingEmbedder(384), clock, notebook=notebook, archive=Archive(layout))


async def test_a_fact_copied_into_memory_md_does_not_push_the_answer_out(layout, indexer) -> None:
    """After a dream every fact stands on its page and in MEMORY.md: the copies of facts that share the
    question's words took a rank each, so the pool of candidates held fewer facts (and lost places)."""
    facts = [f"User's aunt {name} lives in the city" for _, name in RELATIVES[:4]]
    answer = "User's aunt Nadia is a carpenter in Bilbao, a city by the sea"
    people = layout.notebook_dir / "3_Personal" / "People.md"
    people.parent.mkdir(parents=True, exist_ok=True)
    people.write_text("# People\n\n" + "".join(f"- {f} (2026-05-0{i})\n" for i, f in enumerate([*facts, answer, *OTHERS], 1)),
                      encoding="utf-8")
    (layout.memory_dir / "MEMORY.md").write_text(
        "# Memory\n\n## People\n" + "".join(f"- {f}\n" for f in facts), encoding="utf-8")
    for relation, name in RELATIVES[4:]:
        (layout.notebook_dir / "3_Personal" / f"{name}.md").write_text(
            f"# {name}\n\n" + "".join(f"- {f} (2026-05-0{i})\n" for i, f in enumerate(facts, 1)), encoding="utf-8")
    await indexer.sync()
    hits = (await indexer.search("Which city does the user's aunt live in?", limit=5)).hits
    assert answer in [h.text for h in hits]
    copied = [h for h in hits if h.text in facts]
    assert len(copied) == len(facts) and all(str(layout.memory_dir / "MEMORY.md") in [p.path for p in h.places] for h in copied)
