"""Every place that keeps forgotten text out gives the same answer: the write guard, the index,
the page strip, the read doors, the log view and ``doctor`` all follow ``core/vault/forgotten.py``."""

from __future__ import annotations

from pathlib import Path

import pytest
from dream_support import make_manager

from suzent_desktop.core.doctor import run_doctor
from suzent_desktop.core.engines.forgetting import shown, strip_forgotten
from suzent_desktop.core.files.records.log_grammar import parse_log
from suzent_desktop.core.files.records.tombstones import ForgottenTextError
from suzent_desktop.core.index.rows.chunking import chunk_markdown
from suzent_desktop.core.operations import is_forgotten, shown_page
from suzent_desktop.core.vault.forgotten import Forgotten

STONES = ["User likes green tea", "Tea"]
NEIGHBOUR = "User walks to work every day."
CASES = [  # (text written somewhere, whether it is forgotten)
    ("USER LIKES GREEN TEA", True),  # case
    ("User likes green tea!", True),  # punctuation
    ("User likes **green** tea", True),  # markup
    ("On Mondays the user likes green tea, and coffee after lunch.", True),  # inside a longer paragraph
    ("- [preference] User likes green tea `drinks, food`", True),  # a pasted log line, category and tags
    ("- ~~User likes green tea~~ (2026-07-01)", True),  # a consolidated bullet, struck through and dated
    ("- tea (2026-07-01)", True),  # a short tombstone as a whole item
    ("User likes green teapots", False),  # a word boundary, not a prefix
    ("The user drinks tea at noon", False),  # a short tombstone only ever matches a whole text
]


def _page(text: str) -> str:
    return f"# Notes\n\n{text}\n\n{NEIGHBOUR}\n"


@pytest.mark.parametrize(("text", "forgotten"), CASES)
def test_the_index_the_page_strip_the_read_door_and_doctor_agree(text: str, forgotten: bool) -> None:
    rule = Forgotten(STONES)
    page = _page(text)
    indexed = "\n".join(c.text for c in chunk_markdown(page, tombstones=rule))
    stripped = strip_forgotten("", page, rule)[0]
    answers = {
        "rule": rule.holds(text),
        "index": text not in indexed,
        "page strip": text not in stripped,
        "read door": text not in shown(page, rule),
    }
    assert answers == dict.fromkeys(answers, forgotten)
    assert NEIGHBOUR in indexed and NEIGHBOUR in stripped  # the paragraph next to it stays


@pytest.mark.parametrize(("text", "forgotten"), [c for c in CASES if not c[0].startswith("- ~~")])
async def test_the_write_guard_the_log_view_and_doctor_agree(home: Path, clock, text: str, forgotten: bool) -> None:
    manager = make_manager(home, clock)
    for stone in STONES:
        manager.tombstones.add(stone)
    entry = parse_log(f"# 2026-07-01\n\n## 10:00 (manual)\n{text if text.startswith('- ') else '- ' + text}\n")
    assert is_forgotten(entry.facts[0], manager.tombstones.contents()) is forgotten
    if forgotten:
        with pytest.raises(ForgottenTextError):
            await manager.capturing.remember(text)
    else:
        await manager.capturing.remember(text)
    page = manager.layout.notebook_dir / "Notes.md"
    page.write_text(_page(text), encoding="utf-8")
    assert (text not in shown_page(manager, page.read_text(encoding="utf-8"))) is forgotten
    still = [p.line for p in run_doctor(home, clock=clock, check_index=False) if p.path == str(page)]
    assert still == ([3] if forgotten else [])


def test_a_list_forgotten_after_one_of_its_items_stays_forgotten_when_the_item_comes_back() -> None:
    """The item forgotten first, then the list left; a sync puts the item back in the middle."""
    left = "- User sings in a choir\n- User paints on Sundays"
    rule = Forgotten(["User keeps a diary", left])
    page = "# Hobbies\n\n- User sings in a choir\n- User keeps a diary\n- User paints on Sundays\n\nUser walks.\n"
    assert [c.text for c in chunk_markdown(page, tombstones=rule)] == ["User walks."]
    assert strip_forgotten("", page, rule)[0] == "# Hobbies\n\nUser walks.\n"


def _indexed(layout, clock, text: str):
    """An indexer over a vault holding ``_page(text)``, indexed before anything was forgotten."""
    from suzent_desktop.core.index.embedding import HashingEmbedder
    from suzent_desktop.core.index.indexer import Indexer
    from suzent_desktop.core.vault.notebook import Notebook

    Notebook(layout).bootstrap()
    layout.memory_dir.mkdir(parents=True, exist_ok=True)
    page = layout.notebook_dir / "Notes.md"
    page.write_text(_page(text), encoding="utf-8")
    return Indexer(layout, HashingEmbedder(), clock)


async def _shown(indexer) -> tuple[bool, bool]:
    """(whether search shows a row holding the case's text, whether it shows the neighbour)."""
    hits = (await indexer.search("user likes green tea noon teapots walks", limit=20)).hits
    return any("tea" in h.text.lower() for h in hits), any("walks to work" in h.text for h in hits)


@pytest.mark.parametrize(("text", "forgotten"), CASES)
async def test_a_forget_takes_out_of_search_what_the_rule_forgets(layout, clock, text: str, forgotten: bool) -> None:
    """The rows a forget drops at once are the ones an index pass would leave out, and doctor's
    "still findable" then finds none (it used to drop only rows named exactly, and report by substring)."""
    from suzent_desktop.core.files.records.tombstones import Tombstones

    indexer = _indexed(layout, clock, text)
    await indexer.sync()
    assert await _shown(indexer) == (True, True)
    await indexer.remove_texts(Tombstones(layout).add_many(STONES))
    assert await _shown(indexer) == (not forgotten, True)
    assert await indexer.findable(STONES) == []


@pytest.mark.parametrize(("text", "forgotten"), CASES)
async def test_doctor_calls_findable_what_search_shows_and_the_next_pass_leaves_out(
    layout, clock, text: str, forgotten: bool
) -> None:
    """Tombstones synced in from another device, no pass since: doctor names the rows the rule
    forgets (and only those), and a pass takes exactly those out of search."""
    from suzent_desktop.core.files.records.tombstones import Tombstones

    indexer = _indexed(layout, clock, text)
    await indexer.sync()
    Tombstones(layout).add_many(STONES)
    found = await indexer.findable(STONES)
    assert [(Path(path).name, source) for path, _line, source, _stone in found] == (
        [("Notes.md", "notebook")] if forgotten else []
    )
    await indexer.sync()
    assert await _shown(indexer) == (not forgotten, True)
    assert await indexer.findable(STONES) == []
