"""Forget by what the user sees: one tombstone per paragraph or item, off pages, and undo."""

from __future__ import annotations

from pathlib import Path

import pytest
from dream_support import make_manager, write_log

from suzent_desktop.core.engines.forgetting import Removal, restore_lines, strip_forgotten, units_for
from suzent_desktop.core.files.records.tombstones import normalize
from suzent_desktop.core.index.rows.chunking import chunk_markdown

# Prose by its chunking (half its lines are bullets, none dated), so a bullet and a paragraph share a row.
PREFERENCES = (
    "---\ntags: [personal]\n---\n# Preferences\n\n## Tools\n- User prefers dark mode in every editor\n\n"
    "## Travel\n- User prefers window seats on flights\n\n"
    "Allergies are on [[Health#Allergies|the health page]]. See also [[Work]],\n[[Trail Guide]].\n"
)
WINDOW = "User prefers window seats on flights"
ALLERGIES = "Allergies are on [[Health#Allergies|the health page]]. See also [[Work]],\n[[Trail Guide]]."


@pytest.fixture
def manager(home, clock):
    return make_manager(home, clock)


def write_page(manager, rel: str, text: str):
    path = manager.layout.notebook_dir / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


async def hit_for(manager, query: str, needle: str):
    response = await manager.searching.search(query, limit=20, record_recall=False)
    return next((h for h in response.hits if needle.lower() in h.text.lower()), None)


# -- units ------------------------------------------------------------------------------
def test_a_merged_chunk_stands_for_each_of_its_paragraphs_and_items() -> None:
    merged = [c for c in chunk_markdown(PREFERENCES) if "window seats" in c.text]
    assert len(merged) == 1 and "Allergies" in merged[0].text  # the two paragraphs share one row
    assert merged[0].units() == [WINDOW, ALLERGIES]
    assert units_for(merged[0].text, source_type="notebook") == [WINDOW, ALLERGIES]
    assert units_for("User prefers jazz", source_type="archive") == ["User prefers jazz"]


def test_a_piece_of_a_long_paragraph_stands_for_the_whole_paragraph() -> None:
    long = " ".join(f"Sentence number {i} about the long trip to Lisbon." for i in range(60))
    page = f"# Trip\n\n{long}\n"
    pieces = chunk_markdown(page)
    assert len(pieces) > 1
    assert units_for(pieces[1].text, source_type="notebook", page_text=page) == [long]


def test_paragraph_forgotten_after_one_of_its_items_still_leaves_the_index() -> None:
    page = "Intro line\n- first item\n- second item\n"
    stones = {normalize("first item"), normalize("Intro line\n- second item")}
    assert chunk_markdown(page, tombstones=stones) == []


# -- pages --------------------------------------------------------------------------------
def test_strip_and_restore_give_the_page_back_byte_for_byte_with_crlf() -> None:
    page = PREFERENCES.replace("\n", "\r\n")
    stones = {normalize(WINDOW), normalize(ALLERGIES)}
    kept, removals = strip_forgotten("P.md", page, stones)
    assert "window seats" not in kept and "Allergies" not in kept and "dark mode" in kept
    assert "\r\n" in kept and "\n" not in kept.replace("\r\n", "")
    for removal in removals:
        kept = restore_lines(kept, removal)
    assert kept == page


@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_adjacent_items_restored_one_at_a_time_in_either_order(order) -> None:
    page = "# P\n\n- alpha fact\n- beta fact\n- gamma fact\n"
    kept, removals = strip_forgotten("P.md", page, {"alpha fact", "beta fact"})
    assert kept == "# P\n\n- gamma fact\n"
    for index in order:
        kept = restore_lines(kept, removals[index])
    assert kept == page


def test_restore_skips_a_block_already_back_on_the_page() -> None:
    removal = Removal("P.md", "alpha fact", 3, "- alpha fact\n", "", "- beta fact")
    page = "# P\n\n- alpha fact\n- beta fact\n"
    assert restore_lines(page, removal) == page


# -- the manager: forget a hit, undo --------------------------------------------------------
async def test_forgetting_a_two_paragraph_hit_forgets_each_paragraph_for_good(manager) -> None:
    page = write_page(manager, "3_Personal/Preferences.md", PREFERENCES)
    await manager.indexing.reindex()
    hit = await hit_for(manager, "window seats on flights", "window seats")
    assert hit is not None and "Allergies" in hit.text

    assert await manager.forgetting.units_to_forget(hit.text, source_type=hit.source_type, path=hit.path) == [WINDOW, ALLERGIES]
    changes = await manager.forgetting.forget(hit.text, source_type=hit.source_type, path=hit.path)
    assert changes.forgotten == [normalize(WINDOW), normalize(ALLERGIES)]
    assert changes.rows_removed >= 1 and page in changes.pages

    text = page.read_text(encoding="utf-8")
    assert "window seats" not in text and "Allergies" not in text and "dark mode" in text
    for full in (False, True):
        await manager.indexing.reindex(full=full)
        assert await hit_for(manager, "window seats on flights", "window seats") is None
        assert await hit_for(manager, "Allergies health page", "allergies") is None
    assert await hit_for(manager, "dark mode editor", "dark mode") is not None

    undone = await manager.forgetting.undo(hit.text)
    assert set(undone.restored) == {normalize(WINDOW), normalize(ALLERGIES)}
    assert page.read_text(encoding="utf-8") == PREFERENCES
    assert await hit_for(manager, "window seats on flights", "window seats") is not None


async def test_typed_text_of_a_hit_is_read_as_that_hit(manager) -> None:
    write_page(manager, "3_Personal/Preferences.md", PREFERENCES)
    await manager.indexing.reindex()
    hit = await hit_for(manager, "window seats on flights", "window seats")
    flat = " ".join(hit.text.split())  # as the human form of `search` prints it
    assert await manager.forgetting.units_to_forget(flat) == [WINDOW, ALLERGIES]


async def test_undo_of_a_fact_forgotten_while_pending_after_its_day_is_consolidated(manager, today) -> None:
    write_log(manager, "2026-07-10", ["User collects vintage fountain pens", "User likes green tea"])
    await manager.indexing.reindex()
    await manager.forgetting.forget("User collects vintage fountain pens")
    result = await manager.dreaming.runner().run_once(force=True)
    assert result.outcome == "productive" and manager.dreaming.watermark() == "2026-07-10"
    assert await hit_for(manager, "vintage fountain pens", "fountain pens") is None

    changes = await manager.forgetting.undo("User collects vintage fountain pens")
    assert changes.restored == [normalize("User collects vintage fountain pens")]
    assert changes.logs == {today.isoformat()}  # captured again: pending, so the next dream files it
    hit = await hit_for(manager, "vintage fountain pens", "fountain pens")
    assert hit is not None and hit.source_type == "archive"
    assert manager.dreaming.pending_dates() == []  # today's log is never consolidated, but it is searchable


async def test_undo_of_text_not_forgotten_is_an_error(manager) -> None:
    with pytest.raises(ValueError, match="not forgotten"):
        await manager.forgetting.undo("never forgotten")


async def test_forget_of_a_consolidated_fact_takes_it_off_its_page_and_undo_puts_it_back(manager) -> None:
    write_log(manager, "2026-07-10", ["User collects vintage fountain pens", "User likes green tea"])
    assert (await manager.dreaming.runner().run_once(force=True)).outcome == "productive"
    pages = {p: p.read_bytes() for p in manager.notebook.content_pages() if b"fountain pens" in p.read_bytes()}
    assert pages

    changes = await manager.forgetting.forget("User collects vintage fountain pens")
    assert set(pages) <= changes.pages
    assert all(b"fountain pens" not in p.read_bytes() for p in pages)
    assert await hit_for(manager, "vintage fountain pens", "fountain pens") is None

    undone = await manager.forgetting.undo("user collects vintage fountain pens")
    assert undone.logs == set()  # the page holds it again: nothing to capture
    assert {p: p.read_bytes() for p in pages} == pages
    assert await hit_for(manager, "vintage fountain pens", "fountain pens") is not None


@pytest.mark.parametrize("recorded", ["vault-relative", "absolute (earlier versions)", "absolute, page gone"])
async def test_undo_on_another_device_puts_the_line_back_on_its_page(home, clock, tmp_path, monkeypatch,
                                                                      recorded) -> None:
    import json
    import shutil

    monkeypatch.setenv("SUZENT_DEVICE", "laptop")
    laptop = make_manager(home, clock)
    write_log(laptop, "2026-07-10", ["User collects vintage fountain pens", "User likes green tea"])
    assert (await laptop.dreaming.runner().run_once(force=True)).outcome == "productive"
    pages = {p.relative_to(home): p.read_bytes() for p in laptop.notebook.content_pages()
             if b"fountain pens" in p.read_bytes()}
    await laptop.forgetting.forget("User collects vintage fountain pens")
    journal = laptop.layout.forget_journal_file
    records = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    assert records and all(not Path(r["path"]).is_absolute() for r in records)
    if recorded != "vault-relative":  # as an earlier version wrote it: the laptop's absolute path
        def absolute(r: dict) -> dict:  # a core file (MEMORY.md holds the line too) by its own folder, no root
            core = r.pop("root", None) == "memory"
            return {**r, "path": str((laptop.layout.memory_dir if core else laptop.layout.notebook_dir) / r["path"])}

        journal.write_text("".join(json.dumps(absolute(r)) + "\n" for r in records), encoding="utf-8")

    # The home reaches the desktop, where it lives in another folder.
    elsewhere = tmp_path / "desktop" / "Sync" / "home"
    shutil.move(str(home), elsewhere)
    if recorded == "absolute, page gone":
        for rel in pages:
            (elsewhere / rel).unlink()
    monkeypatch.setenv("SUZENT_DEVICE", "desktop")
    desktop = make_manager(elsewhere, clock)
    undone = await desktop.forgetting.undo("User collects vintage fountain pens")
    if recorded == "absolute, page gone":
        assert undone.errors and all("outside the vault" not in e and "another device" in e for e in undone.errors)
    else:
        assert undone.errors == []
        assert {rel: (elsewhere / rel).read_bytes() for rel in pages} == pages
    assert await hit_for(desktop, "vintage fountain pens", "fountain pens") is not None


# -- the dream ----------------------------------------------------------------------------------
def echoing_engine(extra: str):
    """An engine that files the batch and also writes ``extra`` back, as a model might from a search."""

    async def engine(batch, tools):
        from suzent_desktop.core.engines.dream.model import EngineReport

        lines = "".join(f"- {f.fact.content} ({f.date})\n" for f in batch.facts)
        tools.write("3_Personal/Hobbies.md", f"# Hobbies\n\n{lines}- {extra} (2026-07-01)\n")
        return EngineReport(summary="filed")

    return engine


async def test_the_dream_never_writes_forgotten_text_and_cleans_older_pages(manager) -> None:
    old = write_page(manager, "2_Wiki/Old.md", "# Old\n\n- User collects vintage fountain pens\n- User sails\n")
    await manager.forgetting.forget("User collects vintage fountain pens")
    assert old.read_text(encoding="utf-8") == "# Old\n\n- User sails\n"
    old.write_text("# Old\n\n- User collects vintage fountain pens\n- User sails\n", encoding="utf-8")  # typed back

    write_log(manager, "2026-07-10", ["User likes green tea"])
    runner = manager.dreaming.runner(engine=echoing_engine("User collects vintage fountain pens"))
    dry = await runner.run_once(force=True, dry_run=True)
    assert "fountain pens" not in "".join(dry.diffs.values())
    result = await runner.run_once(force=True)
    assert result.outcome == "productive" and manager.dreaming.watermark() == "2026-07-10"
    hobbies = manager.layout.notebook_dir / "3_Personal/Hobbies.md"
    assert hobbies.read_text(encoding="utf-8") == "# Hobbies\n\n- User likes green tea (2026-07-10)\n"
    assert old.read_text(encoding="utf-8") == "# Old\n\n- User sails\n"  # after the dream, off every page

    await manager.forgetting.undo("User collects vintage fountain pens")
    assert "fountain pens" in old.read_text(encoding="utf-8")
    assert "fountain pens" in hobbies.read_text(encoding="utf-8")  # where the dream put it


async def test_a_run_that_only_wrote_forgotten_text_changed_nothing(manager) -> None:
    await manager.forgetting.forget("User collects vintage fountain pens", force=True)
    write_log(manager, "2026-07-10", ["User likes green tea", "User sails on Sundays"])
    write_page(manager, "3_Personal/Hobbies.md", "# Hobbies\n\n- User likes green tea (2026-07-10)\n")

    async def engine(batch, tools):  # rewrites the page as it was, plus the forgotten text only
        from suzent_desktop.core.engines.dream.model import EngineReport

        tools.write("3_Personal/Hobbies.md", "# Hobbies\n\n- User likes green tea (2026-07-10)\n"
                                             "- User collects vintage fountain pens (2026-07-01)\n")
        return EngineReport(summary="filed")

    result = await manager.dreaming.runner(engine=engine).run_once(force=True)
    assert result.outcome == "no_change" and manager.dreaming.watermark() is None


async def test_forgotten_text_leaves_memory_md_and_undo_puts_it_back(manager) -> None:
    memory = manager.layout.memory_md
    original = "# Memory\n\n- Allergic to peanuts\n- Prefers window seats\n"
    memory.write_text(original, encoding="utf-8")
    await manager.indexing.reindex()
    changes = await manager.forgetting.forget("Prefers window seats")
    assert changes.memory_md and memory.read_text(encoding="utf-8") == "# Memory\n\n- Allergic to peanuts\n"
    undone = await manager.forgetting.undo("Prefers window seats")
    assert undone.memory_md and memory.read_text(encoding="utf-8") == original


async def test_a_hit_of_another_source_type_is_one_unit(manager) -> None:
    text = "- a turn's words\n\nand more words"
    assert await manager.forgetting.units_to_forget(text, source_type="transcript", path=None) == [text]


async def test_a_folded_hit_is_forgotten_in_every_place_it_stands(manager) -> None:
    page = write_page(manager, "3_Personal/Travel.md", "# Travel\n\n- User prefers window seats on flights (2026-07-10)\n")
    manager.layout.memory_md.write_text("# Memory\n\n- User prefers window seats on flights.\n", encoding="utf-8")
    await manager.indexing.reindex()
    hit = await hit_for(manager, "window seats on flights", "window seats")
    assert len(hit.places) == 2  # one answer, named in both places

    units = manager.forgetting.hit_units(hit)
    assert sorted(normalize(u) for u in units) == [
        "user prefers window seats on flights", "user prefers window seats on flights."
    ]
    await manager.forgetting.forget(hit.text, hit=hit)
    assert "window seats" not in page.read_text(encoding="utf-8")
    assert "window seats" not in manager.layout.memory_md.read_text(encoding="utf-8")
    await manager.indexing.reindex(full=True)
    assert await hit_for(manager, "window seats on flights", "window seats") is None
