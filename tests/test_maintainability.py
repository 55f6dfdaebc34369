"""scripts/maintainability.py counts what it says on a small package written for the purpose."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "maintainability.py"
FILES = {
    "core/__init__.py": "",
    "core/helpers.py": "def _secret():\n    return 1\n\ndef fuse(x):\n    return x\n",
    "core/operations.py": (
        "from suzent_desktop.core.helpers import fuse, _secret\n\n"
        "def forward(x):\n    \"\"\"Only hands on.\"\"\"\n    return fuse(x)\n\n"
        "def real(x):\n    y = x + 1\n    return fuse(y)\n\n"
        "def gone(text, stones):\n    return text in stones\n\n"
        "class Rule(frozenset):\n    def __new__(cls, stones):\n        return super().__new__(cls, stones)\n\n"
        "    def holds(self, text):\n        return text in self\n\n    def size(self):\n        return len(self)\n\n"
        "class Planner:\n    def __init__(self, tombstones):\n        self.tombstones, self.busy = tombstones, {}\n\n"
        "    def plan(self, key, stat):\n        return self.busy.get(key) == stat\n\n"
        "def table_rows(norms, stones):\n    return [pc.equal(norms, stone) for stone in sorted(stones)]\n"
    ),
    "cli.py": "from suzent_desktop.core.operations import fuse\n",
    "core/doctor.py": (
        "async def run(home, indexer, moment):\n    home.vault.snapshot()\n    Days.read(home.notebook)\n"
        "    await indexer.stats()\n    await asyncio.to_thread(indexer.audit_rows)\n"
        "    await indexer.stats(moment)\n    await asyncio.to_thread(indexer.audit_rows, moment)\n"
    ),
}


def test_counts_forwards_re_exports_private_reads_and_matchers(tmp_path: Path) -> None:
    for relative, text in FILES.items():
        path = tmp_path / "suzent_desktop" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    out = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True,
                         check=True).stdout
    counts = {line[:36].strip(): int(line[36:42]) for line in out.splitlines() if not line.startswith(" ")}
    assert counts["one-line forwards in front doors"] == 1  # forward, not real
    assert counts["re-exports"] == 1  # fuse, read by cli through operations
    assert counts["private-name reads across modules"] == 1  # _secret
    assert counts["forgotten-text matchers"] == 3  # gone, Rule.holds and table_rows; not Planner.plan
    assert counts["vault walks by doctor"] == 4  # stats and audit_rows handed what doctor read do not walk


def test_the_indexers_parts_and_the_memory_ledger_read_no_private_name_of_another_module() -> None:
    """The indexer is composed of parts (table, sources, planner, searcher) that talk through public
    methods only, so each can be changed alone; the ledger reads the vault through the model."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("maintainability", SCRIPT)
    assert spec is not None and spec.loader is not None
    maintainability = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(maintainability)
    watched = ("suzent_desktop.core.index.", "suzent_desktop.core.engines.ledger.lost_facts",
               "suzent_desktop.core.engines.ledger.late_facts", "suzent_desktop.core.engines.ledger.uncovered")
    reads = [r for r in maintainability.private_reads(maintainability.modules(SCRIPT.parents[1]))
             if r.startswith(watched) and "_core._MODELS" not in r]  # onnxruntime's own model table
    assert reads == []
