"""The core runs where the README says the app builds (macOS, Windows): no POSIX-only module is
needed to import it, and every package it imports is one the project declares, so a fresh install
has it."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import suzent_desktop

ROOT = Path(suzent_desktop.__file__).resolve().parent.parent
POSIX_ONLY = ("fcntl", "termios", "pwd", "grp", "resource")

IMPORT_ALL_WITHOUT_POSIX = f"""
import importlib, pkgutil, sys
for name in {POSIX_ONLY!r}:
    sys.modules[name] = None  # "import fcntl" now fails as it does on Windows
import suzent_desktop.core as core
failed = []
for info in pkgutil.walk_packages(core.__path__, "suzent_desktop.core."):
    try:
        importlib.import_module(info.name)
    except ImportError as exc:
        failed.append(f"{{info.name}}: {{exc}}")
print("\\n".join(failed))
"""


def test_the_whole_core_imports_without_posix_only_modules() -> None:
    done = subprocess.run([sys.executable, "-c", IMPORT_ALL_WITHOUT_POSIX], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def _imported_packages() -> set[str]:
    """Top-level names the package imports (at any depth of a module), its own and the stdlib's left out."""
    names: set[str] = set()
    for path in (ROOT / "suzent_desktop").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n != "suzent_desktop"}


def _declared() -> set[str]:
    """Distributions the project depends on (every extra included), normalised as the registry does."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        requirements += extra
    return {_norm(re.split(r"[\s<>=!~\[;]", r, maxsplit=1)[0]) for r in requirements}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_imported_package_is_declared() -> None:
    owners = packages_distributions()
    undeclared = sorted(
        name for name in _imported_packages()
        if not any(_norm(dist) in _declared() for dist in owners.get(name, [name]))
    )
    assert undeclared == [], f"imported but not declared in pyproject.toml: {undeclared}"
