"""Chinese and Japanese search: hit@5 on a small notebook and question set (bench/data/cjk_questions.json).

    python bench/cjk_search.py                       # the shipped full-text tokenizer
    python bench/cjk_search.py --tokenizer simple    # the previous one, for comparison
    python bench/cjk_search.py --model hashing       # the test embedder instead of the bundled model

Prints, per question, the rank of the page that answers it (or "miss"), and hit@5 for
Chinese, Japanese and all, for full-text search alone and for the hybrid search the app runs.
Figures are from one run on a shared machine; timings are not the point here.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from suzent_desktop.core import index_store  # noqa: E402
from suzent_desktop.core.clock import Clock  # noqa: E402
from suzent_desktop.core.embedding import HashingEmbedder  # noqa: E402
from suzent_desktop.core.manager import MemoryManager  # noqa: E402


def japanese(text: str) -> bool:
    return any("\u3040" <= ch <= "\u30ff" for ch in text)


async def run(args: argparse.Namespace) -> None:
    data = json.loads((ROOT / "bench" / "data" / "cjk_questions.json").read_text(encoding="utf-8"))
    index_store.FTS_TOKENIZER = args.tokenizer
    with tempfile.TemporaryDirectory() as tmp:
        extra = {"embedder": HashingEmbedder()} if args.model == "hashing" else {}
        manager = MemoryManager.open(Path(tmp) / "home", clock=Clock(), **extra)
        root = manager.layout.notebook_dir
        for rel, text in data["pages"].items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        await manager.reindex()
        results: dict[str, list[tuple[str, bool]]] = {"fts": [], "hybrid": []}
        for question, page in data["questions"]:
            want = str(root / page)
            fts = manager.indexer._open_store(manager.indexer._read_dim(), repair=False).fts_search(question, 5)
            hybrid = (await manager.search(question, limit=5, record_recall=False)).hits
            for name, paths in (("fts", [r["path"] for r in fts]), ("hybrid", [h.path for h in hybrid])):
                rank = paths.index(want) + 1 if want in paths else None
                results[name].append((question, rank is not None))
                print(f"{name:6} {question:24} {'rank ' + str(rank) if rank else 'miss'}")
    print(f"tokenizer {args.tokenizer}, embedder {args.model}")
    for name, rows in results.items():
        zh = [hit for q, hit in rows if not japanese(q)]
        ja = [hit for q, hit in rows if japanese(q)]
        print(f"{name:6} hit@5: Chinese {sum(zh)}/{len(zh)}  Japanese {sum(ja)}/{len(ja)}  "
              f"all {sum(zh) + sum(ja)}/{len(rows)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tokenizer", default=index_store.FTS_TOKENIZER, help="LanceDB FTS base tokenizer")
    parser.add_argument("--model", choices=("bundled", "hashing"), default="bundled")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
