"""Counts of what makes the code costly to change, read from the source (no import, nothing run).

Prints, so a refactoring can give its figures before and after (``python scripts/maintainability.py
[--list] [ROOT]``, ROOT a checkout, default this one):

* **one-line forwards in front doors**: methods of ``MemoryManager`` (``core/manager.py``) and
  functions of ``core/operations.py`` whose body, past the docstring, is one call handed on
  (``return self.x.y(...)``, ``return await f(...)``, ``f(...)``);
* **re-exports**: names a module only imports that another module imports from it
  (``from suzent_desktop.core.operations import Filters`` where operations did not define ``Filters``);
* **private-name reads across modules**: ``_name`` imported from another module, ``obj._name`` on
  anything but ``self``/``cls``, and ``self._name`` that the module itself never defines (a mixin
  reading its partner's state);
* **forgotten-text matchers**: functions that take the tombstones (a parameter named ``stones``,
  ``tombstones``, ``forgotten`` or ``is_dead``) and test text against them themselves (``in``, ``==``,
  an arrow comparison such as ``pc.equal``, or calling the parameter; a loop variable over them
  counts as them), rather than asking another matcher; and the methods of a class built from the
  tombstones (its constructor takes them) that test text against ``self`` itself (``text in self``);
* **vault walks by doctor**: calls in ``core/doctor.py`` that read the whole vault or the days
  (``Days.read``, ``Notebook.content_pages``, the vault model's ``snapshot``/``current``, the indexer's
  ``stats`` and ``audit_rows`` when handed nothing doctor read (they then look at the vault and the
  days themselves), ``refused_entries``, ``markdown_files``, ``walk``, ``rglob``, ``os.walk``) and store
  constructions there;
* **lines of the indexer's coordinator**: ``class Indexer`` in ``core/index/indexer.py``, and its
  parts with their method counts: the mixins it inherits from, and the classes of ``core/index`` its
  ``__init__`` builds (the parts it is composed of).

Heuristics over the syntax tree: ``--list`` prints every item counted, so a figure can be checked.
"""

from __future__ import annotations

import argparse
import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = "suzent_desktop"
FRONT_DOORS = {"core/manager.py": "MemoryManager", "core/operations.py": None}
STONE_PARAMS = {"stones", "tombstones", "forgotten", "is_dead"}
ARROW_TESTS = {"equal", "is_in", "match_substring", "match_substring_regex", "starts_with"}  # pyarrow.compute
WALKERS = {"markdown_files", "walk", "rglob", "content_pages", "stats", "snapshot", "current",  # stats: stale files
           "refused_entries", "audit_rows"}
LOOK_THEMSELVES = {"stats", "audit_rows"}  # walkers only when handed nothing: given what doctor read, they read the index

STORES = {"Notebook", "Archive", "Tombstones", "Transcripts", "Indexer", "IndexStore", "Days", "VaultModel", "Vault"}


def modules(root: Path) -> dict[str, ast.Module]:
    """Each module of the package by dotted name, parsed."""
    out = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return out


def _body(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.stmt]:
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    return body


def _is_forward(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    body = _body(function)
    if len(body) != 1 or not isinstance(body[0], ast.Return | ast.Expr) or body[0].value is None:
        return False
    value = body[0].value
    if isinstance(value, ast.Await):
        value = value.value
    return isinstance(value, ast.Call)


def forwards(root: Path) -> list[str]:
    found = []
    for relative, cls in FRONT_DOORS.items():
        path = root / PACKAGE / relative
        if not path.exists():
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        scope: list[ast.stmt] = tree.body
        if cls is not None:
            scope = next((n.body for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls), [])
        for node in scope:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _is_forward(node):
                found.append(f"{relative}:{node.lineno} {node.name}")
    return found


def _defined(tree: ast.Module) -> set[str]:
    """Names a module binds other than by importing them."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


def _imports(tree: ast.Module) -> Iterator[ast.ImportFrom]:
    yield from (n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module and not n.level)


def re_exports(mods: dict[str, ast.Module]) -> list[str]:
    found = set()
    for name, tree in mods.items():
        for node in _imports(tree):
            source = mods.get(node.module or "")
            if source is None:
                continue
            defined = _defined(source)
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}" in mods
                if alias.name != "*" and alias.name not in defined and not submodule:
                    found.add(f"{node.module}.{alias.name} (read by {name})")
    return sorted(found)


def _self_defined(tree: ast.Module) -> set[str]:
    names = _defined(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def private_reads(mods: dict[str, ast.Module]) -> list[str]:
    found = []
    for name, tree in mods.items():
        own = _self_defined(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(PACKAGE):
                found += [f"{name}:{node.lineno} imports {node.module}.{a.name}" for a in node.names
                          if _private(a.name)]
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and _private(node.attr):
                base = node.value.id if isinstance(node.value, ast.Name) else None
                if base in ("self", "cls"):
                    if node.attr not in own:
                        found.append(f"{name}:{node.lineno} self.{node.attr} (defined in another module)")
                elif base is None or base not in ("os", "sys"):
                    found.append(f"{name}:{node.lineno} {ast.unparse(node)}")
    return found


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def matchers(mods: dict[str, ast.Module]) -> list[str]:
    found = []
    for name, tree in mods.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and _built_from_stones(node):
                found += [f"{name}:{m.lineno} {node.name}.{m.name}" for m in node.body
                          if isinstance(m, ast.FunctionDef) and m.name not in ("__init__", "__new__")
                          and _tests_against(m, {"self"}, itself=True)]
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            params = {a.arg for a in node.args.args + node.args.kwonlyargs} & STONE_PARAMS
            if params and _tests_against(node, params):
                found.append(f"{name}:{node.lineno} {node.name}")
    return found


def _built_from_stones(cls: ast.ClassDef) -> bool:
    """A class whose constructor takes the tombstones: its methods that test text against ``self`` match."""
    return any(isinstance(m, ast.FunctionDef) and m.name in ("__init__", "__new__")
               and {a.arg for a in m.args.args} & STONE_PARAMS for m in cls.body)


def _bound(function: ast.AST, params: set[str]) -> set[str]:
    """``params`` and the loop variables that run over them (``for stone in stones``)."""
    names = set(params)
    for node in ast.walk(function):
        if isinstance(node, ast.For | ast.comprehension) and _over(node.iter) in params:
            names |= _names(node.target)
    return names


def _over(iterable: ast.expr) -> str | None:
    """The name a loop runs over, through ``sorted``, ``set`` and the like (``sorted(set(stones))``)."""
    while isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.args and (
            iterable.func.id in ("sorted", "set", "list", "tuple", "frozenset", "reversed")):
        iterable = iterable.args[0]
    return iterable.id if isinstance(iterable, ast.Name) else None


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _tests_against(function: ast.AST, params: set[str], *, itself: bool = False) -> bool:
    """Whether ``function`` compares text with ``params`` (``itself``: with them as a whole operand,
    ``text in self``, not with something they hold, ``self.cache == ...``)."""
    names = params if itself else _bound(function, params)
    for node in ast.walk(function):
        if isinstance(node, ast.Compare) and any(isinstance(op, ast.In | ast.NotIn | ast.Eq) for op in node.ops):
            operands = [node.left, *node.comparators]
            used = {ast.unparse(o) for o in operands} if itself else _names(node)
            if used & names:
                return True
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id in names:
                return True
            if (isinstance(node.func, ast.Attribute) and node.func.attr in ARROW_TESTS
                    and any(_names(arg) & names for arg in node.args)):
                return True
    return False


def doctor(root: Path) -> tuple[list[str], list[str]]:
    path = root / PACKAGE / "core" / "doctor.py"
    if not path.exists():
        return [], []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    walks, stores = [], []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func, args = node.func, [*node.args, *node.keywords]
        if ast.unparse(func).endswith("to_thread") and node.args:  # asyncio.to_thread(f, *args): a call of f
            func, args = node.args[0], args[1:]
        text = ast.unparse(func)
        last = text.split(".")[-1]
        handed = bool(args)
        if (last in WALKERS and not (last in LOOK_THEMSELVES and handed)) or text in ("Days.read", "os.walk"):
            walks.append(f"doctor.py:{node.lineno} {text}")
        if last in STORES:
            stores.append(f"doctor.py:{node.lineno} {text}")
    return walks, stores


def indexer(root: Path) -> tuple[int, list[str]]:
    path = root / PACKAGE / "core" / "index" / "indexer.py"
    if not path.exists():
        return 0, []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Indexer"), None)
    if cls is None:
        return 0, []
    bases = {ast.unparse(b) for b in cls.bases}
    init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    built = {ast.unparse(n.func) for n in ast.walk(init) if isinstance(n, ast.Call)} if init else set()
    parts = []
    for file in sorted((root / PACKAGE / "core" / "index").rglob("*.py")):
        for node in ast.parse(file.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and node.name in bases | built:
                methods = sum(isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) for n in node.body)
                how = "mixin" if node.name in bases else "composed"
                parts.append(f"{file.name} {node.name} ({how}): {_lines(node)} lines, {methods} methods")
    return _lines(cls), parts


def _lines(node: ast.AST) -> int:
    return (node.end_lineno or node.lineno) - node.lineno + 1  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", nargs="?", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--list", action="store_true", help="print every item counted")
    args = parser.parse_args()
    root = Path(args.root)
    mods = modules(root)
    walks, stores = doctor(root)
    coordinator, parts = indexer(root)
    rows = [
        ("one-line forwards in front doors", forwards(root)),
        ("re-exports", re_exports(mods)),
        ("private-name reads across modules", private_reads(mods)),
        ("forgotten-text matchers", matchers(mods)),
        ("vault walks by doctor", walks),
        ("store constructions by doctor", stores),
    ]
    for label, items in rows:
        print(f"{label:36} {len(items):5}")
        if args.list:
            print("".join(f"    {item}\n" for item in items), end="")
    print(f"{'lines of the indexer coordinator':36} {coordinator:5}  (class Indexer)")
    for part in parts:
        print(f"    its part {part}")


if __name__ == "__main__":
    main()
