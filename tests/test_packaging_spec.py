"""The PyInstaller spec's module collection works with exactly what ``pip install -e '.[dev]'`` installs.

PyInstaller imports every package it is asked to collect submodules of, in a child process. An
optional front end of a dependency (``mcp.cli`` exits when ``typer`` is missing) stopped the build
during analysis on a fresh machine, and nothing noticed because nothing built the app. The full
build takes minutes (``packaging/build_and_smoke.sh``); these checks take seconds:

* the spec's collection code runs to the end in a clean interpreter, with PyInstaller's build
  steps replaced by recorders;
* every module it lists as a hidden import imports in a clean interpreter without raising or
  exiting, so no optional module whose extra is not installed ends up in the collection.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("PyInstaller", reason="the packaging checks need the [dev] extra (PyInstaller)")

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "packaging" / "suzent-desktop.spec"
TIMEOUT = 600  # seconds; about 10 s each on an idle 2-core machine

# Runs the spec as PyInstaller would, but with Analysis/PYZ/EXE/COLLECT recording instead of
# building, and prints the hidden imports handed to Analysis as the last line of stdout.
RUN_SPEC = """
import json, sys
from pathlib import Path
spec = Path(sys.argv[1])
seen = {}
def analysis(scripts, **kwargs):
    seen.update(kwargs)
    class Recorded:
        pure = scripts = binaries = datas = ()
    return Recorded()
def step(*args, **kwargs):
    return None
namespace = {"__name__": "__main__", "__file__": str(spec), "SPECPATH": str(spec.parent),
             "Analysis": analysis, "PYZ": step, "EXE": step, "COLLECT": step}
exec(compile(spec.read_text(encoding="utf-8"), str(spec), "exec"), namespace)
print(json.dumps(sorted({str(Path(source).relative_to(spec.parent.parent)) for source, _ in seen["datas"]
                         if Path(source).is_relative_to(spec.parent.parent)})))
print(json.dumps(sorted(set(seen["hiddenimports"]))))
"""

# Imports each module named on stdin; a module that raises or exits is recorded, not fatal. The
# name goes to stderr first, so a module that kills or hangs the interpreter is named in the output.
IMPORT_EACH = """
import importlib, json, sys
failed = {}
for name in json.load(sys.stdin):
    if name.rpartition(".")[2] == "__main__":
        continue  # runs a program when imported; test_no_main_module_is_collected names it
    print("importing", name, file=sys.stderr, flush=True)
    try:
        importlib.import_module(name)
    except BaseException as error:  # SystemExit included: that is what stopped the build
        failed[name] = f"{type(error).__name__}: {error}"
print(json.dumps(failed))
"""


def _clean_run(code: str, args: list[str], stdin: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("SUZENT_", "PYTHON"))}
    env.update(
        PYTHONPATH=str(ROOT),  # this checkout's package, not an installed copy
        LITELLM_LOCAL_MODEL_COST_MAP="True",  # as packaging/build.sh and the frozen app set it
        QT_QPA_PLATFORM="offscreen",
        SUZENT_HOME=str(tmp_path / "home"),  # a module that starts the app must not touch a real home
    )
    return subprocess.run(
        [sys.executable, "-c", code, *args], input=stdin, capture_output=True, text=True,
        cwd=tmp_path, env=env, timeout=TIMEOUT, check=False,
    )


def _tail(text: str, lines: int = 25) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


@pytest.fixture(scope="module")
def spec_run(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    run = _clean_run(RUN_SPEC, [str(SPEC)], "", tmp_path_factory.mktemp("spec"))
    assert run.returncode == 0, f"the spec's module collection died (exit {run.returncode}):\n{_tail(run.stderr)}"
    return run.stdout.strip().splitlines()


@pytest.fixture(scope="module")
def hidden_imports(spec_run: list[str]) -> list[str]:
    return json.loads(spec_run[-1])


def test_the_frozen_app_carries_every_data_file_an_install_has(spec_run: list[str]) -> None:
    """The dream's prompts and the icons: a model dream in the packaged app reads its prompt from the bundle."""
    bundled = set(json.loads(spec_run[-2]))
    installed = {str(path.relative_to(ROOT)) for pattern in ("suzent_desktop/resources/**/*",
                                                             "suzent_desktop/core/engines/dream/prompts/*.md",
                                                             "suzent_desktop/core/engines/prompts/*.md")
                 for path in ROOT.glob(pattern) if path.is_file() and path.suffix not in {".py", ".pyc"}}
    assert installed and any(name.endswith(".md") and "prompts" in name for name in installed)
    assert installed <= bundled, sorted(installed - bundled)


def test_the_spec_collects_the_app_and_its_lazy_imports(hidden_imports: list[str]) -> None:
    """The modules the frozen app loads by name are in the collection (the app's own, litellm's, mcp's, uvicorn's)."""
    for name in ("suzent_desktop.cli", "suzent_desktop.ui.base.app", "suzent_desktop.mcp_server", "litellm.main",
                 "mcp.server.streamable_http", "uvicorn.protocols.http.h11_impl", "uvicorn.lifespan.on"):
        assert name in hidden_imports


def test_no_main_module_is_collected(hidden_imports: list[str]) -> None:
    """A ``__main__`` module runs its program when imported; the frozen app's entry is packaging/launch.py."""
    assert [name for name in hidden_imports if name.rpartition(".")[2] == "__main__"] == []


def test_every_collected_module_imports_in_a_clean_interpreter(
    hidden_imports: list[str], tmp_path: Path
) -> None:
    run = _clean_run(IMPORT_EACH, [], json.dumps(hidden_imports), tmp_path)
    assert run.returncode == 0, f"importing the collected modules died (exit {run.returncode}):\n{_tail(run.stderr)}"
    failed = json.loads(run.stdout.strip().splitlines()[-1])
    report = "\n".join(f"  {name}: {error[:200]}" for name, error in sorted(failed.items()))
    assert not failed, f"{len(failed)} collected modules fail on import; filter them in the spec:\n{report}"
