"""Lint's broken-link and orphan findings on tests/data/lint_vault, scored against the list beside it.

    python bench/lint_vault.py            # the test vault
    python bench/lint_vault.py --vault /path/to/vault --expected findings.json

Prints true positives, false positives and false negatives for broken links and orphans,
precision and recall, and each wrong finding, so a regression names the link that caused it.
The expected file lists ``broken_link`` as [page, link as written] pairs and ``orphan`` as
pages (see tests/data/lint_vault.expected.json).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from suzent_desktop.core.engines.dream.lint import link_audit  # noqa: E402
from suzent_desktop.core.files.clock import Clock  # noqa: E402
from suzent_desktop.core.index.embedding import HashingEmbedder  # noqa: E402
from suzent_desktop.core.manager import MemoryManager  # noqa: E402

_WRITTEN = re.compile(r"^(?P<link>.+) \(line \d+\) matches no (?:page|file) in the vault$")


def score(name: str, found: set, expected: set) -> None:
    tp, fp, fn = found & expected, found - expected, expected - found
    precision = len(tp) / len(found) if found else 1.0
    recall = len(tp) / len(expected) if expected else 1.0
    print(f"{name}: TP {len(tp)}  FP {len(fp)}  FN {len(fn)}  precision {precision:.1%}  recall {recall:.1%}")
    for item in sorted(fp):
        print(f"  false alarm: {item}")
    for item in sorted(fn):
        print(f"  missed:      {item}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--vault", type=Path, default=ROOT / "tests" / "data" / "lint_vault")
    parser.add_argument("--expected", type=Path, default=ROOT / "tests" / "data" / "lint_vault.expected.json")
    args = parser.parse_args()
    expected = json.loads(args.expected.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        manager = MemoryManager.open(Path(tmp) / "home", clock=Clock(), embedder=HashingEmbedder())
        shutil.copytree(args.vault, manager.layout.notebook_dir, dirs_exist_ok=True, symlinks=True)
        findings = link_audit(manager.home)
    broken = {(f.path, _WRITTEN.match(f.detail).group("link")) for f in findings if f.kind == "broken_link"}
    pages = sum(1 for p in args.vault.rglob("*") if p.suffix in (".md", ".canvas"))
    print(f"vault: {args.vault} ({pages} pages and boards)")
    score("broken links", broken, {tuple(b) for b in expected["broken_link"]})
    score("orphans", {f.path for f in findings if f.kind == "orphan"}, set(expected["orphan"]))


if __name__ == "__main__":
    main()
