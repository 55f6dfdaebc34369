"""Search in English, Japanese and Korean on the Obsidian help vault, against plain BM25.

    SUZENT_HELP_VAULTS=/path/to/obsidian-help python bench/cjk_search.py
    SUZENT_HELP_VAULTS=... python bench/cjk_search.py --models bundled,multilingual --langs ja,ko
    python bench/cjk_search.py --toy     # the small Chinese/Japanese notebook of bench/data/cjk_questions.json

``SUZENT_HELP_VAULTS`` names a folder holding one vault per language (``en/``, ``ja/``, ``ko/``);
each is copied to a temporary home and opened as its own vault. The questions are in
``bench/data/cjk_questions/{lang}.jsonl`` (written before any run; ``split`` says which were
used while tuning, ``dev``, and which were held out, ``test``).

For each language and in the same run, prints hit@1 and hit@5 (the expected page is the first
hit / among the first five hits) for the app's search with each embedder, and for plain BM25
over the pages (file name + text) and over paragraphs (blank-line blocks), both on the terms of
``core.scripts.terms``: character bigrams for CJK, lower-cased words otherwise. Without the
folder the vault part is skipped with a message and exit code 0.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from suzent_desktop.core.files.clock import Clock  # noqa: E402
from suzent_desktop.core.files.language.writing_systems import terms  # noqa: E402
from suzent_desktop.core.index.embedding import HashingEmbedder  # noqa: E402
from suzent_desktop.core.index.storage import store as index_store  # noqa: E402
from suzent_desktop.core.manager import MemoryManager  # noqa: E402
from suzent_desktop.settings import Settings  # noqa: E402

QUESTIONS = ROOT / "bench" / "data" / "cjk_questions"
ENV = "SUZENT_HELP_VAULTS"
MODELS = {"bundled": "", "multilingual": "multilingual-e5-small", "hashing": "hashing"}


class BM25:
    """Okapi BM25 (k1 1.2, b 0.75) over term lists: the baseline a few lines of code give."""

    def __init__(self, docs: list[list[str]], k1: float = 1.2, b: float = 0.75) -> None:
        self.tfs = [Counter(d) for d in docs]
        self.lengths = [len(d) for d in docs]
        self.avg = sum(self.lengths) / max(1, len(docs))
        df = Counter(t for tf in self.tfs for t in tf)
        n = len(docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        self.k1, self.b = k1, b

    def rank(self, query: list[str]) -> list[int]:
        scores = []
        for i, tf in enumerate(self.tfs):
            norm = self.k1 * (1 - self.b + self.b * self.lengths[i] / self.avg)
            s = sum(self.idf[t] * tf[t] * (self.k1 + 1) / (tf[t] + norm) for t in set(query) if t in tf)
            scores.append(s)
        return [i for i in sorted(range(len(scores)), key=lambda i: -scores[i]) if scores[i] > 0]


def pages_of(vault: Path) -> dict[str, str]:
    return {str(p.relative_to(vault)): p.read_text(encoding="utf-8") for p in sorted(vault.rglob("*.md"))}


def bm25_rankers(pages: dict[str, str]):
    names = list(pages)
    by_page = BM25([terms(Path(n).stem + "\n" + pages[n]) for n in names])
    paras: list[tuple[str, str]] = [
        (n, block) for n in names for block in pages[n].replace("\r\n", "\n").split("\n\n") if block.strip()
    ]
    by_para = BM25([terms(text) for _, text in paras])

    def page_rank(q: str) -> list[str]:
        return [names[i] for i in by_page.rank(terms(q))]

    def para_rank(q: str) -> list[str]:
        return [paras[i][0] for i in by_para.rank(terms(q))]

    return page_rank, para_rank


def score(ranked: list[str], want: str) -> tuple[bool, bool]:
    """(hit@1, hit@5) for a ranked list of pages (rows of one page may repeat)."""
    top5 = ranked[:5]
    return bool(top5) and top5[0] == want, want in top5


async def app_ranker(vault: Path, base: Path, model: str):
    """Index a copy of the vault with ``model`` and return a question → ranked pages function.

    The copy and its home live in ``base`` (``vault/``, ``home/``); a kept ``base`` is reused,
    and the indexing pass then only reads what changed.
    """
    copy = base / "vault"
    if not copy.is_dir():
        shutil.copytree(vault, copy)
    settings = Settings(notebook_path=str(copy), embedding_model=MODELS[model])
    extra = {"embedder": HashingEmbedder()} if model == "hashing" else {}
    manager = MemoryManager.open(base / "home", settings=settings, clock=Clock(), **extra)
    start = time.perf_counter()
    await manager.indexing.reindex()
    built = time.perf_counter() - start

    async def rank(q: str) -> list[str]:
        hits = (await manager.searching.search(q, limit=5, record_recall=False)).hits
        return [str(Path(h.path).relative_to(copy)) for h in hits]

    return rank, built


def report(name: str, rows: list[tuple[str, bool, bool]]) -> str:
    parts = []
    for split in ("dev", "test"):
        chosen = [r for r in rows if r[0] == split]
        parts.append(f"{split} {sum(r[1] for r in chosen):2}/{sum(r[2] for r in chosen):2}")
    parts.append(f"all {sum(r[1] for r in rows):2}/{sum(r[2] for r in rows):2} of {len(rows)}")
    return f"  {name:24} hit@1/hit@5  " + "   ".join(parts)


async def run_vaults(args: argparse.Namespace, folder: Path) -> None:
    models = [m for m in args.models.split(",") if m]
    for lang in args.langs.split(","):
        vault = folder / lang
        file = QUESTIONS / f"{lang}.jsonl"
        if not vault.is_dir() or not file.is_file():
            print(f"{lang}: no vault at {vault} or no questions at {file}; skipped")
            continue
        questions = [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines() if line.strip()]
        pages = pages_of(vault)
        page_rank, para_rank = bm25_rankers(pages)
        results: dict[str, list[tuple[str, bool, bool]]] = {"bm25 pages": [], "bm25 paragraphs": []}
        misses: dict[str, list[str]] = {}
        with tempfile.TemporaryDirectory() as tmp:
            for model in models:
                rank, built = await app_ranker(vault, Path(args.keep or tmp) / f"{lang}-{model}", model)
                name = f"app ({model})"
                results[name] = []
                start = time.perf_counter()
                for q in questions:
                    h1, h5 = score(await rank(q["q"]), q["page"])
                    results[name].append((q["split"], h1, h5))
                    if not h1:
                        misses.setdefault(name, []).append(f"{'miss' if not h5 else 'not first'}: {q['q']}")
                per_query = (time.perf_counter() - start) / len(questions) * 1000
                print(f"{lang}: {name} index pass over {len(pages)} pages {built:.1f} s, {per_query:.0f} ms a question")
        for q in questions:
            for name, ranker in (("bm25 pages", page_rank), ("bm25 paragraphs", para_rank)):
                h1, h5 = score(ranker(q["q"]), q["page"])
                results[name].append((q["split"], h1, h5))
        print(f"{lang}: {len(questions)} questions")
        for name, rows in results.items():
            print(report(name, rows))
        if args.verbose:
            for name, lines in misses.items():
                for line in lines:
                    print(f"    {name}: {line}")


async def run_toy(args: argparse.Namespace) -> None:
    """The older small set: a 39-page Chinese/Japanese notebook, hit@5 of full-text and the app."""
    data = json.loads((ROOT / "bench" / "data" / "cjk_questions.json").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        extra = {"embedder": HashingEmbedder()} if args.models.startswith("hashing") else {}
        manager = MemoryManager.open(Path(tmp) / "home", clock=Clock(), **extra)
        root = manager.layout.notebook_dir
        for rel, text in data["pages"].items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        await manager.indexing.reindex()
        found = {"fts": 0, "app": 0}
        for question, page in data["questions"]:
            want = str(root / page)
            store = manager.indexer.table.open_store(manager.indexer.table.read_dim(), repair=False)
            fts = [r["path"] for r in store.fts_search(question, 5)]
            app = [h.path for h in (await manager.searching.search(question, limit=5, record_recall=False)).hits]
            found["fts"] += want in fts
            found["app"] += want in app
        n = len(data["questions"])
        print(f"toy notebook, tokenizer {index_store.FTS_TOKENIZER}: full-text hit@5 {found['fts']}/{n}, "
              f"app hit@5 {found['app']}/{n}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="bundled,multilingual", help="comma list of: " + ", ".join(MODELS))
    parser.add_argument("--langs", default="en,ja,ko")
    parser.add_argument("--toy", action="store_true", help="the small bench/data/cjk_questions.json set instead")
    parser.add_argument("--keep", metavar="DIR", help="keep each language's vault copy and index under DIR "
                        "and reuse them on the next run (building the multilingual index takes minutes)")
    parser.add_argument("-v", "--verbose", action="store_true", help="list the questions whose page was not first")
    args = parser.parse_args()
    if args.toy:
        asyncio.run(run_toy(args))
        return
    folder = os.environ.get(ENV)
    if not folder or not Path(folder).is_dir():
        print(f"{ENV} is not set to a folder of help vaults (en/, ja/, ko/); skipped")
        return
    asyncio.run(run_vaults(args, Path(folder)))


if __name__ == "__main__":
    main()
