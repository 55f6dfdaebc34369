"""The same files answer a question the same way, whatever history built the index.

Two devices syncing one home hold the same files but build their indexes in different orders
(pages arrive in another order, rows are replaced and deleted as edits come in). Their answers
must not depend on that: rows the ranking cannot tell apart (a page and its sync-conflict copy
holding the same bullet) come in a fixed order, and the real page, not its copy, leads.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from suzent_desktop.core.files.clock import Clock
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.records.archive import Archive
from suzent_desktop.core.index.embedding import HashingEmbedder
from suzent_desktop.core.index.indexer import Indexer
from suzent_desktop.core.index.ranking.fusion import TitleCache
from suzent_desktop.core.index.storage.store import IndexStore, Row
from suzent_desktop.core.vault.notebook import Notebook
from suzent_desktop.settings import load_settings

NAMES = ["Olu", "Farid", "Mei", "Ines", "Jonas", "Priya"]
PLACES = ["Bergen", "Oslo", "Lagos", "Riga", "Perth", "Porto"]
THINGS = ["old radios", "paper kites", "vintage maps", "chess clocks"]
QUESTIONS = ["who collects old radios", "friend from Oslo", "vintage maps", "paper kites", "Bergen",
             "chess clocks hobby", "Farid", "where does Priya live"]


def _pages() -> dict[str, str]:
    """Friends' pages with bullets that tie often, and conflict copies repeating a page."""
    pages = {}
    for i, name in enumerate(NAMES):
        bullets = [f"- User's friend {name} from {PLACES[(i + k) % len(PLACES)]} collects "
                   f"{THINGS[(i + 2 * k) % len(THINGS)]} (2026-07-0{k + 1})" for k in range(3)]
        pages[f"3_Personal/{name}.md"] = f"# {name}\n\n" + "\n".join(bullets) + "\n"
    pages["3_Personal/Farid.md.conflict1"] = pages["3_Personal/Farid.md"]
    pages["3_Personal/Olu.sync-conflict-20260705-101010-ABCDEFG.md"] = pages["3_Personal/Olu.md"]
    return pages


def _indexer(home: Path, clock: Clock) -> Indexer:
    home.mkdir(parents=True)
    layout = Layout.from_settings(home, load_settings(home))
    notebook = Notebook(layout)
    notebook.bootstrap()
    layout.memory_dir.mkdir(parents=True, exist_ok=True)
    return Indexer(layout, HashingEmbedder(384), clock, notebook=notebook, archive=Archive(layout))


def _write(indexer: Indexer, relative: str, text: str) -> None:
    path = indexer.layout.notebook_dir / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


async def _answers(indexer: Indexer) -> dict[str, list[tuple[str, str, list[str]]]]:
    out = {}
    home = indexer.layout.home
    for question in QUESTIONS:
        hits = (await indexer.search(question, limit=5)).hits
        out[question] = [(h.text, Path(h.path).relative_to(home).as_posix(),
                          [Path(p.path).relative_to(home).as_posix() for p in h.also]) for h in hits]
    return out


def test_two_histories_of_the_same_files_give_the_same_answers(tmp_path: Path, clock: Clock) -> None:
    pages = _pages()

    async def run() -> tuple[dict, dict]:
        # One device indexes every page in one pass.
        first = _indexer(tmp_path / "a", clock)
        for relative, text in pages.items():
            _write(first, relative, text)
        await first.sync()
        # The other gets them one by one, in reverse, with an edit and a page that comes and goes between.
        second = _indexer(tmp_path / "b", clock)
        for relative, text in reversed(pages.items()):
            _write(second, relative, text.replace("collects", "collected") if "Mei" in relative else text)
            await second.sync()
        _write(second, "3_Personal/Radios.md", "# Radios\n\n" + "- old radios from Bergen and Oslo\n" * 3)
        await second.sync()
        (second.layout.notebook_dir / "3_Personal/Radios.md").unlink()
        _write(second, "3_Personal/Mei.md", pages["3_Personal/Mei.md"])
        await second.sync()
        return await _answers(first), await _answers(second)

    first, second = asyncio.run(run())
    assert first == second
    # A bullet on a page and on its conflict copy is one answer, led by the page.
    radios = first["who collects old radios"]
    assert radios, "the question finds the friends who collect radios"
    leads = [path for _, path, _ in radios]
    assert not any("conflict" in path for path in leads), leads
    farid = next(hit for hit in first["Farid"] if hit[1].endswith("Farid.md"))
    assert "notebook/3_Personal/Farid.md.conflict1" in farid[2]


def _page_row(path: str, text: str, embedder: HashingEmbedder) -> Row:
    return Row(id=f"{path}#1", text=text, source_type="notebook", path=path, zone="3_Personal", line=3,
               date=None, heading=None, norm=text.lower(), norm_keys=[], embed_text=text,
               vector=embedder.embed([text])[0], title=Path(path).stem)


def test_names_of_a_rebuilt_table_are_read_again(tmp_path: Path) -> None:
    """A rebuilt table counts its versions from 1 again: names cached for the old one must not answer."""
    embedder = HashingEmbedder(384)
    store = IndexStore(tmp_path / "index", 384)
    cache = TitleCache()
    store.reset()
    store.add([_page_row("/v/3_Personal/Olu.md", "Olu collects old radios", embedder)])
    assert [path for path, _ in cache.get(store).titles.pages.ranked("Olu", 5)] == ["/v/3_Personal/Olu.md"]
    store.reset()  # a full reindex: the same number of writes ends on the same version
    store.add([_page_row("/v/3_Personal/Farid.md", "Farid collects paper kites", embedder)])
    names = cache.get(store)
    assert [path for path, _ in names.titles.pages.ranked("Farid", 5)] == ["/v/3_Personal/Farid.md"]
    assert names.titles.pages.ranked("Olu", 5) == []
    assert [path for path, _ in names.pages.ranked(frozenset({"kite"}), 5)] == ["/v/3_Personal/Farid.md"]


def test_deleted_rows_leave_the_full_text_statistics(tmp_path: Path) -> None:
    """A table that once held more rows ranks its rows as a table built with only these would."""
    embedder = HashingEmbedder(384)
    texts = [f"User's friend {name} from {place} collects old radios and {thing}"[: 40 + 7 * i]
             for i, (name, place, thing) in enumerate(zip(NAMES, PLACES, THINGS * 2, strict=False))]
    rows = [_page_row(f"/v/3_Personal/{NAMES[i]}.md", text, embedder) for i, text in enumerate(texts)]
    gone = [_page_row(f"/v/3_Personal/Gone{i}.md", "old radios " * (i + 1), embedder) for i in range(6)]
    fresh = IndexStore(tmp_path / "fresh", 384)
    fresh.reset()
    fresh.add(rows)
    fresh.optimize(force=True)
    lived = IndexStore(tmp_path / "lived", 384)
    lived.reset()
    lived.add(gone + rows)
    lived.optimize(force=True)  # the rows that go were in the full-text index
    lived.delete_paths([row.path for row in gone])
    lived.optimize()  # as an index pass ends
    for question in ("old radios", "friend from Oslo", "collects"):
        assert ([(r["path"], round(r["score"], 5)) for r in lived.fts_search(question, 10)]
                == [(r["path"], round(r["score"], 5)) for r in fresh.fts_search(question, 10)])
