"""scripts/maintainability.py counts what it says on a small package written for the purpose."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from test_import_graph import STORES

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "maintainability.py"


def _script() -> ModuleType:
    """scripts/maintainability.py as a module, to ask it for the lists it counts."""
    spec = importlib.util.spec_from_file_location("maintainability", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

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
    maintainability = _script()
    watched = ("suzent_desktop.core.index.", "suzent_desktop.core.engines.ledger.lost_facts",
               "suzent_desktop.core.engines.ledger.late_facts", "suzent_desktop.core.engines.ledger.uncovered")
    reads = [r for r in maintainability.private_reads(maintainability.modules(SCRIPT.parents[1]))
             if r.startswith(watched) and "_core._MODELS" not in r]  # onnxruntime's own model table
    assert reads == []


def test_no_module_reads_a_name_through_a_module_that_only_imports_it() -> None:
    """Each name is imported from where it is written: ``core/operations.py`` re-exports nothing, so a
    reader looking for ``Filters`` or ``VaultSnapshot`` is led to the module that defines it."""
    maintainability = _script()
    assert maintainability.re_exports(maintainability.modules(SCRIPT.parents[1])) == []


def _crosses_the_front_door(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a function hands the manager on, or reads one of the home's stores off it."""
    for node in ast.walk(function):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "manager"
                and node.attr in STORES):
            return True
        if isinstance(node, ast.Call) and any(isinstance(arg, ast.Name) and arg.id == "manager"
                                              for arg in [*node.args, *(k.value for k in node.keywords)]):
            return True
    return False


def test_a_function_of_operations_that_only_hands_on_reaches_what_the_front_ends_may_not() -> None:
    """operations.py keeps a one-line function only where it crosses the front door for the window, the
    command line or the MCP server: it hands the manager on, or reads one of the home's stores
    (``manager.vault``, ``manager.home``), which they may not reach. One that only passes its arguments
    on, or reads what they can read themselves (``manager.layout``), is called where it is defined."""
    root = SCRIPT.parents[1]
    forwards = {line.split()[-1] for line in _script().forwards(root) if line.startswith("core/operations.py:")}
    tree = ast.parse((root / "suzent_desktop" / "core" / "operations.py").read_text(encoding="utf-8"))
    loose = [node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
             and node.name in forwards and not _crosses_the_front_door(node)]
    assert loose == []
