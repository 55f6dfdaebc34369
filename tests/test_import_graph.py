"""The package's import rules, checked on its source (docs/development.md):

* no import cycle anywhere in the package (runtime imports, function-level ones included);
* the core (and the settings module) never imports Qt, the UI, or a front end (cli, mcp_server);
* a front end (the UI, the command line, the MCP server and their helper modules) imports a name of the
  core from the module that defines it (its data types, errors, constants and functions), never through
  a module that only imports it (a re-export): the name's home is where a reader looks;
* no front end imports the index's internals (the coordinator, its table and its rows: LanceDB stays
  behind the Search service and the manager), the composition root or the language model door;
* no front end imports, at run time, a class the home builds (a store, a service, the vault model, the
  indexer, a dream runner): ``open_home`` builds each once and the front ends reach it through the
  manager; a type hint may name one;
* the UI does not import the command line or the MCP server; these two may import each other's helper
  modules, and the command line may start the window (``ui/base/app.py``);
* no front end reads a store (index, logs, notebook, tombstones, transcripts, the vault model) through
  ``manager.<store>`` or ``getattr(manager, "<store>")``;
* the core is built in layers, one folder each (``CORE_LAYERS``, lowest first), with the front door
  (the modules at ``core/`` top level) above them all: no core module imports a higher layer at run
  time (function-level imports included; an import only for type checkers loads nothing and is exempt).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import suzent_desktop

PACKAGE = "suzent_desktop"
QT = ("PySide6", "shiboken6", "qasync", "pytestqt")
FRONT_ENDS = frozenset({"suzent_desktop.cli", "suzent_desktop.mcp_server"})  # built on the core, never under it
FRONT_END_MODULES = frozenset({  # the command line and the MCP server, with their helper modules
    "suzent_desktop.cli", "suzent_desktop.cli_vault", "suzent_desktop.cli_review", "suzent_desktop.cli_progress",
    "suzent_desktop.cli_output", "suzent_desktop.cli_window",
    "suzent_desktop.mcp_server", "suzent_desktop.mcp_http",
})
WINDOW_START = "suzent_desktop.ui.base.app"  # `gui`, `open` and `demo` start the window
# What no front end imports, not even for a type hint: the index's coordinator, its table and its rows
# (LanceDB stays behind the Search service and the manager), the composition root (``MemoryManager.open``
# builds a home) and the one door to language models.
INTERNALS = (
    "suzent_desktop.core.index.indexer", "suzent_desktop.core.index.storage", "suzent_desktop.core.index.rows",
    "suzent_desktop.core.home", "suzent_desktop.core.llm",
)
# The classes a front end never builds: the parts of ``Home`` (read from core/home.py, so a new store or
# service is covered as it is added) but these plain values, with the home itself, the dream runner and
# the index table.
PLAIN_PARTS = frozenset({"Settings", "Layout", "Clock", "Embedder"})
BUILT_ELSEWHERE = frozenset({"Home", "DreamRunner", "IndexStore"})

# The layers of the core, lowest first: each folder of core/ is one, and the modules at core/ top level
# (manager, operations, home, ...) are the front door above them all. A module imports its own layer
# and the ones below it, never one above.
CORE_LAYERS = ("files", "vault", "index", "engines", "services")
FRONT_DOOR = "front door (core/ top level)"
# core/llm.py keeps the path the house rule names for the one module that imports litellm; the
# embedder (index) and the engines call it, so it stands on the ground floor.
PINNED = {"suzent_desktop.core.llm": "files"}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, module: str, is_package: bool) -> list[tuple[str, bool]]:
    """(imported name, only for type checkers) for every import statement, at any depth."""
    return [(target, typing_only) for target, _bound, typing_only in _bindings(tree, module, is_package)]


def _bindings(tree: ast.AST, module: str, is_package: bool) -> list[tuple[str, str | None, bool]]:
    """(imported dotted name, the local name it is bound to, only for type checkers) for every import
    statement, at any depth; the bound name is None for ``import a.b`` (which binds ``a``)."""
    found: list[tuple[str, str | None, bool]] = []

    def visit(node: ast.AST, typing_only: bool) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.body:
                visit(child, True)
            for child in node.orelse:
                visit(child, typing_only)
            return
        if isinstance(node, ast.Import):
            found.extend((alias.name, alias.asname or (alias.name if "." not in alias.name else None), typing_only)
                         for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".")
                anchor = parts if is_package else parts[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            found.extend((f"{base}.{alias.name}", alias.asname or alias.name, typing_only) for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child, typing_only)

    visit(tree, False)
    return found


def _files(root: Path, package: str) -> dict[str, tuple[Path, bool]]:
    """Each module of the package by dotted name: (its file, whether it is a package's ``__init__``)."""
    files = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).with_suffix("")
        parts = [package, *rel.parts]
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        files[".".join(parts)] = (path, is_package)
    return files


def import_graph(root: Path, package: str) -> tuple[dict[str, set[str]], dict[str, set[str]], dict[str, set[str]]]:
    """(runtime edges inside the package, all edges inside it, outside top-level names) per module."""
    files = _files(root, package)
    runtime: dict[str, set[str]] = {name: set() for name in files}
    every: dict[str, set[str]] = {name: set() for name in files}
    outside: dict[str, set[str]] = {name: set() for name in files}
    for name, (path, is_package) in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for target, typing_only in _imports(tree, name, is_package):
            if target.split(".")[0] != package:
                outside[name].add(target.split(".")[0])
                continue
            while target not in files:  # `from pkg import name`: the module, else its package
                target = target.rpartition(".")[0]
            if target == name:
                continue
            every[name].add(target)
            if not typing_only:
                runtime[name].add(target)
    return runtime, every, outside


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def violations(root: Path, package: str) -> list[str]:
    """Every broken rule, as a sentence naming the modules."""
    runtime, every, outside = import_graph(root, package)
    problems = [f"import cycle: {' <-> '.join(group)}" for group in cycles(runtime)]
    core, ui = f"{package}.core", f"{package}.ui"
    for module in sorted(every):
        inside = lambda pkg, name=module: name == pkg or name.startswith(pkg + ".")  # noqa: E731
        if inside(core) or module == f"{package}.settings":
            problems += [f"{module} imports Qt ({name})" for name in sorted(outside[module] & set(QT))]
            problems += [f"{module} imports the UI ({target})" for target in sorted(every[module])
                         if target == ui or target.startswith(ui + ".")]
            problems += [f"{module} imports a front end ({target})" for target in sorted(every[module])
                         if target in FRONT_ENDS]
        if inside(ui):
            problems += [f"{module} imports {target}, a front end the UI may not use"
                         for target in sorted(every[module]) if target in FRONT_END_MODULES]
        if module in FRONT_END_MODULES:
            problems += [f"{module} imports {target}, which a front end may not use"
                         " (the command line starts the window through ui/base/app.py)"
                         for target in sorted(every[module])
                         if (target == ui or target.startswith(ui + ".")) and target != WINDOW_START]
    return problems + core_reads(root, package)


def _defines(tree: ast.Module) -> set[str]:
    """The names a module binds at its top level other than by importing them (an ``if``/``try`` looked into)."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If | ast.Try):
            inner = ast.Module(body=[*node.body, *node.orelse, *getattr(node, "finalbody", []),
                                     *(line for handler in getattr(node, "handlers", []) for line in handler.body)],
                               type_ignores=[])
            names |= _defines(inner)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


def _built_by_the_home(root: Path) -> frozenset[str]:
    """The classes of the parts ``Home`` holds (its annotated fields), but the plain ones, and the others
    a front end never builds."""
    path = root / "core" / "home.py"
    tree = ast.parse(path.read_text(encoding="utf-8")) if path.exists() else ast.Module(body=[], type_ignores=[])
    home = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Home"), None)
    parts = {node.annotation.id for node in (home.body if home else [])
             if isinstance(node, ast.AnnAssign) and isinstance(node.annotation, ast.Name)}
    return frozenset(parts - PLAIN_PARTS) | BUILT_ELSEWHERE


def core_reads(root: Path, package: str) -> list[str]:
    """What the front ends take from the core: each name from the module that defines it, never the
    internals, and no class the home builds at run time. ``from core.x import name`` and, for a module
    imported whole (``from suzent_desktop.core import operations``), each ``operations.name`` read."""
    files = _files(root, package)
    trees = {name: ast.parse(path.read_text(encoding="utf-8"), str(path)) for name, (path, _pkg) in files.items()}
    built = _built_by_the_home(root)
    core, ui = f"{package}.core", f"{package}.ui"
    problems: list[str] = []
    for module, (_path, is_package) in files.items():
        if not (module == ui or module.startswith(ui + ".") or module in FRONT_END_MODULES):
            continue
        reads: list[tuple[str, str | None, bool]] = []  # (core module, name read from it or None, typing only)
        whole: dict[str, tuple[str, bool]] = {}  # local name -> (core module imported whole, typing only)
        for target, bound, typing_only in _bindings(trees[module], module, is_package):
            if not target.startswith(core + "."):
                continue
            if target in files:
                reads.append((target, None, typing_only))
                if bound is not None:
                    whole[bound] = (target, typing_only)
            else:
                source, _dot, name = target.rpartition(".")
                reads.append((source, name, typing_only))
        for node in ast.walk(trees[module]):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in whole:
                source, typing_only = whole[node.value.id]
                reads.append((source, node.attr, typing_only))
        for source, name, typing_only in sorted(set(reads), key=lambda r: (r[0], r[1] or "", r[2])):
            if any(source == part or source.startswith(part + ".") for part in INTERNALS):
                problems.append(f"{module} imports {source}, the core's internals a front end may not use"
                                " (ask the manager or one of its services)")
                continue
            if name is None or source not in trees:
                continue
            if name not in _defines(trees[source]):
                origin = _imported_from(trees[source], name, source, files[source][1])
                problems.append(f"{module} reads {name} through {source}, which only imports it"
                                f"{f' (from {origin})' if origin else ''}: import it from where it is defined")
            elif name in built and not typing_only:
                problems.append(f"{module} imports {name} ({source}) at run time, a class the home builds:"
                                " reach it through the manager")
    return problems


def _imported_from(tree: ast.Module, name: str, module: str, is_package: bool) -> str | None:
    """The module ``module`` imports ``name`` from, if it does."""
    for target, bound, _typing_only in _bindings(tree, module, is_package):
        if bound == name:
            return target.rpartition(".")[0]
    return None


def _layer(module: str, core: str) -> str | None:
    """The layer a core module stands in; None outside the core and for the core package itself."""
    if module in PINNED:
        return PINNED[module]
    if not module.startswith(core + "."):
        return None
    first = module[len(core) + 1:].split(".")[0]
    return first if first in CORE_LAYERS else FRONT_DOOR


def upward_imports(root: Path, package: str) -> list[str]:
    """Every run-time import of a higher layer by a core module, and every core folder that is no layer."""
    runtime, _every, _outside = import_graph(root, package)
    core = f"{package}.core"
    order = [*CORE_LAYERS, FRONT_DOOR]
    problems = [f"core/{folder.name}/ is in no layer (add it to CORE_LAYERS, or move its modules into one)"
                for folder in sorted((root / "core").iterdir())
                if folder.is_dir() and folder.name not in CORE_LAYERS and folder.name != "__pycache__"]
    for module in sorted(runtime):
        layer = _layer(module, core)
        if layer is None:
            continue
        for target in sorted(runtime[module]):
            above = _layer(target, core)
            if above is not None and order.index(above) > order.index(layer):
                problems.append(f"{module} ({layer}) imports {target} ({above}), a higher layer:"
                                " move the function down, or the module up")
    return problems


def test_no_core_module_imports_a_higher_layer() -> None:
    assert upward_imports(Path(suzent_desktop.__file__).parent, PACKAGE) == []


@pytest.mark.parametrize(("files", "expected"), [
    ({"core/files/a.py": "def f():\n    from suzent_desktop.core.vault.links import B\n", "core/vault/links.py": ""},
     ["suzent_desktop.core.files.a (files) imports suzent_desktop.core.vault.links (vault), a higher layer:"
      " move the function down, or the module up"]),
    ({"core/index/a.py": "from suzent_desktop.core import manager\n", "core/manager.py": ""},
     ["suzent_desktop.core.index.a (index) imports suzent_desktop.core.manager (front door (core/ top level)),"
      " a higher layer: move the function down, or the module up"]),
    ({"core/engines/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                           "    from suzent_desktop.core.home import Home\n",
      "core/home.py": "from suzent_desktop.core.engines import a\n",
      "core/index/b.py": "from suzent_desktop.core.vault.tags import C\nfrom suzent_desktop.core import llm\n",
      "core/vault/tags.py": "", "core/llm.py": "from suzent_desktop.core.files import d\n", "core/files/d.py": ""},
     []),
    ({"core/files/a.py": "from suzent_desktop.core import llm\n",
      "core/llm.py": "from suzent_desktop.core.index.e import embed\n", "core/index/e.py": ""},
     ["suzent_desktop.core.llm (files) imports suzent_desktop.core.index.e (index), a higher layer:"
      " move the function down, or the module up"]),
    ({"core/misc/a.py": ""}, ["core/misc/ is in no layer (add it to CORE_LAYERS, or move its modules into one)"]),
])
def test_the_layer_check_finds_an_upward_import(tmp_path: Path, files: dict[str, str], expected: list[str]) -> None:
    assert upward_imports(_package(tmp_path, files), PACKAGE) == expected


STORES = frozenset({"indexer", "archive", "notebook", "tombstones", "transcripts", "recall", "forget_journal",
                    "index_store", "home", "vault"})
FRONT_END_FILES = ("cli.py", "cli_vault.py", "cli_review.py", "cli_window.py", "mcp_server.py")  # besides every module of ui/


def _manager(node: ast.expr) -> bool:
    return (node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")) == "manager"


def store_reaches(root: Path) -> list[str]:
    """``<...>.manager.<store>`` or ``getattr(<...>.manager, "<store>")`` in a front end: reading a store
    past the front door."""
    found = []
    files = [*sorted((root / "ui").rglob("*.py")), *(root / name for name in FRONT_END_FILES if (root / name).exists())]
    for path in files:
        where = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Attribute) and node.attr in STORES and _manager(node.value):
                found.append(f"{where}:{node.lineno} manager.{node.attr}")
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
                  and len(node.args) >= 2 and _manager(node.args[0]) and isinstance(node.args[1], ast.Constant)
                  and node.args[1].value in STORES):
                found.append(f"{where}:{node.lineno} getattr(manager, {node.args[1].value!r})")
    return found


def test_no_view_reads_a_store_past_the_front_door() -> None:
    assert store_reaches(Path(suzent_desktop.__file__).parent) == []


def test_the_store_check_finds_a_reach(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "ui/w.py": "def f(self):\n    return self.services.manager.indexer.sync()\n",
        "ui/g.py": "def f(self):\n    return getattr(self.services.manager, 'indexer', None)\n",
        "cli.py": "def f(manager):\n    return manager.archive.path_for('x')\n",
        "mcp_server.py": "def f(self):\n    return self.manager.home.vault\n",
    })
    assert store_reaches(root) == [
        "ui/g.py:2 getattr(manager, 'indexer')", "ui/w.py:2 manager.indexer", "cli.py:2 manager.archive",
        "mcp_server.py:2 manager.home",
    ]


def test_the_package_keeps_its_import_rules() -> None:
    root = Path(suzent_desktop.__file__).parent
    assert violations(root, PACKAGE) == []


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "suzent_desktop"
    for rel, text in {"__init__.py": "", "core/__init__.py": "", "ui/__init__.py": "", **files}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


INTERNAL = ", the core's internals a front end may not use (ask the manager or one of its services)"
BUILT = ", a class the home builds: reach it through the manager"
HOME = "from dataclasses import dataclass\n@dataclass\nclass Home:\n    layout: Layout\n    tombstones: Tombstones\n"


@pytest.mark.parametrize(("files", "expected"), [
    ({"core/a.py": "def f():\n    from suzent_desktop.core import b\n", "core/b.py": "from . import a\n"},
     ["import cycle: suzent_desktop.core.a <-> suzent_desktop.core.b"]),
    ({"core/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from suzent_desktop.core.b import B\n",
      "core/b.py": "import suzent_desktop.core.a\n"}, []),
    ({"core/a.py": "from PySide6.QtCore import QObject\n"}, ["suzent_desktop.core.a imports Qt (PySide6)"]),
    ({"core/a.py": "from suzent_desktop.ui import w\n", "ui/w.py": ""},
     ["suzent_desktop.core.a imports the UI (suzent_desktop.ui.w)"]),
    ({"core/a.py": "def f():\n    from suzent_desktop.cli import hit_dict\n", "cli.py": ""},
     ["suzent_desktop.core.a imports a front end (suzent_desktop.cli)"]),
    ({"settings.py": "import PySide6\n"}, ["suzent_desktop.settings imports Qt (PySide6)"]),
    # the index's internals, even for a type hint
    ({"ui/w.py": "from suzent_desktop.core.index.indexer import Indexer\n", "core/index/indexer.py": ""},
     ["suzent_desktop.ui.w imports suzent_desktop.core.index.indexer" + INTERNAL]),
    ({"mcp_server.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                       "    from suzent_desktop.core.index.storage.table import Table\n",
      "core/index/storage/table.py": "class Table: ...\n"},
     ["suzent_desktop.mcp_server imports suzent_desktop.core.index.storage.table" + INTERNAL]),
    # a name read through a module that only imports it, whether imported by name or read off the module
    ({"ui/w.py": "from suzent_desktop.core.operations import Filters\n",
      "core/operations.py": "from suzent_desktop.core.index.ranking.filters import Filters\n",
      "core/index/ranking/filters.py": "class Filters: ...\n"},
     ["suzent_desktop.ui.w reads Filters through suzent_desktop.core.operations, which only imports it"
      " (from suzent_desktop.core.index.ranking.filters): import it from where it is defined"]),
    ({"cli.py": "from suzent_desktop.core import operations\ndef f():\n    return operations.normalize('x')\n",
      "core/operations.py": "from suzent_desktop.core.files.records.tombstones import normalize\n",
      "core/files/records/tombstones.py": "def normalize(t): ...\n"},
     ["suzent_desktop.cli reads normalize through suzent_desktop.core.operations, which only imports it"
      " (from suzent_desktop.core.files.records.tombstones): import it from where it is defined"]),
    # a store or an engine built at run time; a type hint may name it
    ({"ui/w.py": "from typing import TYPE_CHECKING\nfrom suzent_desktop.core.files.records.tombstones import Tombstone\n"
                 "if TYPE_CHECKING:\n    from suzent_desktop.core.files.records.tombstones import Tombstones\n",
      "core/files/records/tombstones.py": "class Tombstone: ...\nclass Tombstones: ...\n", "core/home.py": HOME},
     []),
    ({"ui/w.py": "from suzent_desktop.core.files.records import tombstones\nT = tombstones.Tombstones\n",
      "core/files/records/tombstones.py": "class Tombstones: ...\n", "core/home.py": HOME},
     ["suzent_desktop.ui.w imports Tombstones (suzent_desktop.core.files.records.tombstones) at run time" + BUILT]),
    ({"cli.py": "def f():\n    from suzent_desktop.core.engines.dream.runner import DreamRunner\n",
      "core/engines/dream/__init__.py": "", "core/engines/dream/runner.py": "class DreamRunner: ...\n"},
     ["suzent_desktop.cli imports DreamRunner (suzent_desktop.core.engines.dream.runner) at run time" + BUILT]),
    # a data type, an error, a pure function from the module that defines it
    ({"mcp_server.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                       "    from suzent_desktop.core.index.ranking.hits import SearchHit\n"
                       "from suzent_desktop.core.vault.mentions import MentionError, link_mention\n",
      "core/index/ranking/hits.py": "class SearchHit: ...\n",
      "core/vault/mentions.py": "class MentionError(Exception): ...\ndef link_mention(): ...\n"}, []),
    ({"cli.py": "from suzent_desktop.core.operations import dream_cycle\nfrom suzent_desktop import mcp_server\n"
                "from suzent_desktop.core.documents import hit_dict\nfrom suzent_desktop.ui.base import app\n",
      "mcp_server.py": "from suzent_desktop.core.manager import MemoryManager\n",
      "core/operations.py": "def dream_cycle(): ...\n", "core/documents.py": "def hit_dict(): ...\n",
      "core/manager.py": "class MemoryManager: ...\n", "ui/base/app.py": ""}, []),
    ({"ui/w.py": "from suzent_desktop.core import operations\nfrom suzent_desktop.core.files.events import ChangeSet\n"
                 "operations.save_page\n",
      "core/operations.py": "def save_page(): ...\n", "core/files/events.py": "class ChangeSet: ...\n"}, []),
    # the UI does not reach the command line; the command line reaches the window only to start it
    ({"ui/w.py": "from suzent_desktop.cli_output import Output\n", "cli_output.py": "class Output: ...\n"},
     ["suzent_desktop.ui.w imports suzent_desktop.cli_output, a front end the UI may not use"]),
    ({"cli.py": "from suzent_desktop.ui.panes import tags\n", "ui/panes/tags.py": ""},
     ["suzent_desktop.cli imports suzent_desktop.ui.panes.tags, which a front end may not use"
      " (the command line starts the window through ui/base/app.py)"]),
])
def test_the_check_finds_each_kind_of_break(tmp_path: Path, files: dict[str, str], expected: list[str]) -> None:
    assert violations(_package(tmp_path, files), PACKAGE) == expected


def test_every_part_the_home_holds_but_the_plain_ones_is_a_class_a_front_end_never_builds() -> None:
    """The list is read from ``Home`` itself, so a store or service added to the home is covered."""
    built = _built_by_the_home(Path(suzent_desktop.__file__).parent)
    assert {"Indexer", "Tombstones", "Vault", "Forget", "Search", "DreamRunner", "Home"} <= built
    assert not built & PLAIN_PARTS
