"""One fact-bullet grammar: search (the chunker), the consolidator, promotion and lint read a page alike."""

from __future__ import annotations

import pytest

from suzent_desktop.core.index.rows.chunking import chunk_markdown
from suzent_desktop.core.vault.facts.fact_bullets import (
    HistoryTracker,
    in_history,
    is_history_heading,
    item_fact,
    list_item,
)
from suzent_desktop.core.vault.facts.fact_pages import PageDoc, parse_bullet


def current_for_search(page: str) -> list[str]:
    return [c.text for c in chunk_markdown(page) if not c.superseded]


def current_for_consolidator(page: str) -> list[str]:
    return [b.text for b in PageDoc.parse(page).current_bullets()]


PAGES = {
    "ordered list": "# Work\n\n1. works at Contoso (2026-01-02)\n2. likes tea (2026-01-03)\n",
    "task boxes": "# Todo\n\n- [ ] call the dentist (2026-02-01)\n- [x] renew passport (2026-02-02)\n",
    "level-one History": "# Work\n\n- works at Contoso (2026-03-01)\n\n# History\n\n- works at Fabrikam (2025-01-01)\n",
    "closed lower-case history": "## Work\n\n- works at Contoso (2026-03-01)\n\n### history ###\n\n- works at Fabrikam (2025-01-01)\n",
    "a section after History": "# Me\n\n## History\n\n- lived in Oslo (2024-01-01)\n\n## Places\n\n- lives in Bergen (2026-01-01)\n",
    "struck": "# Work\n\n- ~~works at Fabrikam~~ (2025-01-01, until 2026-01-01)\n- works at Contoso (2026-01-01)\n",
}
CURRENT = {
    "ordered list": ["works at Contoso", "likes tea"],
    "task boxes": ["call the dentist", "renew passport"],
    "level-one History": ["works at Contoso"],
    "closed lower-case history": ["works at Contoso"],
    "a section after History": ["lives in Bergen"],
    "struck": ["works at Contoso"],
}


@pytest.mark.parametrize("case", sorted(PAGES))
def test_search_and_the_consolidator_agree_on_current_facts(case: str) -> None:
    assert current_for_search(PAGES[case]) == CURRENT[case]
    assert current_for_consolidator(PAGES[case]) == CURRENT[case]


def test_an_ordered_fact_is_a_bullet_with_its_dates_and_keeps_its_number_when_edited() -> None:
    bullet = parse_bullet("1. works at Contoso (2026-01-02)")
    assert bullet is not None and (bullet.text, bullet.dates) == ("works at Contoso", ["2026-01-02"])
    bullet.add_date("2026-02-03")
    assert bullet.render() == "1. works at Contoso (2026-01-02, 2026-02-03)"
    [chunk] = chunk_markdown("1. works at Contoso (2026-01-02)\n")
    assert (chunk.text, chunk.date) == ("works at Contoso", "2026-01-02")


def test_a_task_box_is_not_part_of_the_fact_and_is_kept_on_edit() -> None:
    bullet = parse_bullet("- [ ] call the dentist (2026-02-01)")
    assert bullet is not None and bullet.text == "call the dentist"
    bullet.add_date("2026-02-05")
    assert bullet.render() == "- [ ] call the dentist (2026-02-01, 2026-02-05)"
    page = "- [ ] call the dentist (2026-02-01)\n"
    assert PageDoc.parse(page).render() == page  # untouched bullets are written back byte for byte


def test_history_headings_of_any_level_and_spelling() -> None:
    for line in ("# History", "## history", "### history ###", "###### HISTORY"):
        assert is_history_heading(line)
    for line in ("## Historical notes", "History", "#History"):
        assert not is_history_heading(line)
    assert in_history("Work > history") and not in_history("Work > Places")
    tracker = HistoryTracker()
    seen = [tracker.feed(line) for line in ("## History", "- a", "### Older", "- b", "## Now", "- c")]
    assert seen == [True, True, True, True, False, False]


def test_a_history_heading_inside_code_is_not_history() -> None:
    page = "# Work\n\n```\n# History\n```\n\n- works at Contoso (2026-03-01)\n"
    assert current_for_consolidator(page) == ["works at Contoso"]
    assert current_for_search(page)[-1] == "works at Contoso"


def test_list_item_and_item_fact() -> None:
    assert list_item("  3) [x] ~~old~~ (2025-01-01, until 2026-01-01)") is not None
    fact = item_fact("~~old~~ (2025-01-01, until 2026-01-01)")
    assert (fact.text, fact.dates, fact.until, fact.struck) == ("old", ("2025-01-01",), "2026-01-01", True)
    assert list_item("plain line") is None and list_item("-no space") is None
