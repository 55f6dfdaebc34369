"""Vault model benchmark: tags and backlinks answered from the one model of the vault.

    python bench/vault_model.py                         # 5,000 and 20,000 pages
    python bench/vault_model.py --pages 5000 --search   # also the first ``tag:`` search (builds the index)
    python bench/vault_model.py --legacy                # the per-pane caches of earlier versions
    python bench/vault_model.py --pages 5000 --rename   # also a rename of a much-linked page

Per vault size it prints, in milliseconds: the model's first walk alone (files and folders, no
page read: what the window's vault tree fills from), the first question on a fresh model (one walk of the
vault and one read of each page), the same question again, after one page changed (``apply``),
and for ``--legacy`` the walk-and-read each window pane did on its own (``LinkCache`` of the
backlinks pane, ``FileTags`` of the tags pane and of ``tag:``), when those classes exist.
``--search`` builds the index with the hashing embedder and times the first and the next
``tag:`` query through the indexer. Timings are wall clock on whatever else the machine is doing.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import importlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _genhome import PEOPLE, generate_home  # noqa: E402

from suzent_desktop.core.files.paths.layout import Layout  # noqa: E402
from suzent_desktop.settings import Settings  # noqa: E402

TODAY = dt.date(2026, 7, 20)


def ms(began: float) -> float:
    return (time.perf_counter() - began) * 1000


def median_ms(fn, runs: int = 5) -> float:  # noqa: ANN001
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        fn()
        times.append(ms(began))
    return statistics.median(times)


def target_page(root: Path) -> Path:
    """A page many others link to: the generated pages link people by name, so one of them gets a page."""
    page = root / "2_Wiki" / "Entities" / f"{PEOPLE[0]}.md"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(f"# {PEOPLE[0]}\n", encoding="utf-8")
    return page


def model(layout: Layout, tag: str, target: Path) -> None:
    from suzent_desktop.core.vault.model import Vault

    began = time.perf_counter()
    walked = Vault(layout).snapshot(parsed=False, names=False)
    folders = len(walked.folders()) if hasattr(walked, "folders") else "no"
    print(f"  model: first walk, no page read (the tree's fill) {ms(began):8.1f} ms  ({len(walked)} files, {folders} folders)")
    vault = Vault(layout)
    began = time.perf_counter()
    tagged = vault.pages_with_tag(tag)
    print(f"  model: tag first query (walk + read every page)  {ms(began):9.1f} ms  ({len(tagged)} pages)")
    print(f"  model: tag query again                          {median_ms(lambda: vault.pages_with_tag(tag)):9.1f} ms")
    print(f"  model: tag tree with counts                     {median_ms(lambda: vault.snapshot().tag_tree()):9.1f} ms")
    vault = Vault(layout)
    began = time.perf_counter()
    links = vault.backlinks(target)
    print(f"  model: backlinks first (walk + read every page)  {ms(began):9.1f} ms  ({len(links)} backlinks)")
    print(f"  model: backlinks again                          {median_ms(lambda: vault.backlinks(target)):9.1f} ms")
    page = vault.snapshot().pages()[0]
    page.write_text(page.read_text(encoding="utf-8") + f"\nSee [[{target.stem}]].\n", encoding="utf-8")
    began = time.perf_counter()
    vault.apply([page])
    links = vault.backlinks(target)
    print(f"  model: one page changed, apply + backlinks      {ms(began):9.1f} ms  ({len(links)} backlinks)")
    print(f"  model: walks of the vault                       {vault.walks:9d}")


def legacy(layout: Layout, target: Path) -> None:
    try:
        backlinks = importlib.import_module("suzent_desktop.ui.panes.backlinks")
        tags = importlib.import_module("suzent_desktop.core.vault.tags")
        notebook = importlib.import_module("suzent_desktop.core.vault.notebook").Notebook(layout)
    except ImportError as exc:
        print(f"  legacy: not in this version ({exc})")
        return
    if hasattr(tags, "FileTags"):
        pages = list(notebook.content_pages())
        file_tags = tags.FileTags()
        began = time.perf_counter()
        for page in pages:
            file_tags.update(page)
        print(f"  legacy: FileTags reads every page (first tag:)  {ms(began):9.1f} ms")
    if hasattr(backlinks, "LinkCache"):
        cache = backlinks.LinkCache()
        began = time.perf_counter()
        cache.walk([*notebook.content_pages(), *notebook.canvases()])
        found = cache.backlinks(target, layout.notebook_dir)
        print(f"  legacy: LinkCache walk + backlinks first        {ms(began):9.1f} ms  ({len(found)} backlinks)")
        print(f"  legacy: LinkCache backlinks again               "
              f"{median_ms(lambda: cache.backlinks(target, layout.notebook_dir)):9.1f} ms")


def rename(layout: Layout, target: Path) -> None:
    """A rename of a much-linked page, every link to it rewritten, and back: by reading the whole
    vault (a folder no home models) and by asking a walked vault model (the window)."""
    import inspect

    from suzent_desktop.core.vault import vault_ops
    from suzent_desktop.core.vault.model import Vault

    root, moved = layout.notebook_dir, target.with_name(f"{target.stem} renamed.md")
    began = time.perf_counter()
    touched = vault_ops.move_path(root, target, moved)
    vault_ops.move_path(root, moved, target)
    print(f"  rename + back, reading the vault               {ms(began):9.1f} ms  ({len(touched)} files written each way)")
    if "vault" not in inspect.signature(vault_ops.move_path).parameters:
        print("  rename through the model: not in this version")
        return
    vault = Vault(layout)
    vault.snapshot()  # walked and read, as in a window that has been open a moment
    began = time.perf_counter()
    touched = vault_ops.move_path(root, target, moved, vault)
    vault_ops.move_path(root, moved, target, vault)
    print(f"  rename + back, through the model               {ms(began):9.1f} ms  ({len(touched)} files written each way)")


async def search(layout: Layout, tag: str) -> None:
    from suzent_desktop.core.files.clock import Clock
    from suzent_desktop.core.index.embedding import HashingEmbedder
    from suzent_desktop.core.index.indexer import Indexer

    indexer = Indexer(layout, HashingEmbedder(384), Clock(fixed_today=TODAY))
    began = time.perf_counter()
    await indexer.sync()
    print(f"  index built in {ms(began) / 1000:.1f} s")
    for label in ("first", "again"):
        began = time.perf_counter()
        response = await indexer.search(f"tag:{tag}", limit=10)
        print(f"  search: tag:{tag} {label:5}                      {ms(began):9.1f} ms  ({len(response.hits)} hits)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, nargs="+", default=[5000, 20000])
    parser.add_argument("--legacy", action="store_true", help="also time the per-pane caches, when present")
    parser.add_argument("--search", action="store_true", help="also build the index and time the first tag: search")
    parser.add_argument("--rename", action="store_true", help="also time a rename of a much-linked page")
    args = parser.parse_args()
    for pages in args.pages:
        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp) / "home"
            generate_home(home, days=3, facts_per_day=10, pages=pages, today=TODAY)
            layout = Layout.from_settings(home, Settings())
            target = target_page(layout.notebook_dir)
            print(f"{pages} pages (backlinks of {target.relative_to(layout.notebook_dir)}):")
            if args.legacy:
                legacy(layout, target)
            if importlib.util.find_spec("suzent_desktop.core.vault.model") is not None:
                model(layout, "sourdough", target)
            if args.rename:
                rename(layout, target)
            if args.search:
                asyncio.run(search(layout, "sourdough"))


if __name__ == "__main__":
    main()
