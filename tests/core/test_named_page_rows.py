"""A page named by the question gets its vote on its best-matching row, not on every row: the page's
other rows stay below a row elsewhere that answers ("Where does Anna live now?" is not answered by
her cats, her cello and her job)."""

from __future__ import annotations

from index_support import indexer_over

ANNA = """# Anna

- Anna works at Globex as a product designer (2026-05-02)
- Anna plays the cello in a quartet (2026-05-03)
- Anna has two cats, Miso and Tofu (2026-05-04)
- Anna works from home on Fridays (2026-05-05)
- Anna bakes sourdough bread at weekends (2026-05-06)
"""
FRIENDS = """# Friends

- Anna lives in Lisbon now (2026-06-11)
- Ben lives in Porto (2026-05-02)
"""


async def test_a_named_page_does_not_lift_its_other_rows_above_the_answer(layout, clock) -> None:  # noqa: ANN001
    indexer = indexer_over(layout, clock, {"3_Personal/People/Anna.md": ANNA, "3_Personal/Friends.md": FRIENDS})
    await indexer.sync()
    texts = [h.text for h in (await indexer.search("Where does Anna live now?", limit=5)).hits]
    answer = next((i for i, text in enumerate(texts) if "Lisbon" in text), None)
    assert answer is not None and answer <= 1, texts  # at most the page's best row above it, not all five
