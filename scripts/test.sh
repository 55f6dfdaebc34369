#!/usr/bin/env bash
# Installs the project with its [dev] extra (the test tools, the type checker, and PyInstaller for the
# packaging spec's check) into .venv, type-checks the package ([tool.mypy] in pyproject.toml) and runs
# the whole suite, one worker a core up to four (pytest-xdist; pass -n 0 to run in one process).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-system-deps.sh
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[dev]'
.venv/bin/python -m mypy
QT_QPA_PLATFORM=offscreen .venv/bin/python -m pytest -q -p no:cacheprovider --numprocesses=auto --maxprocesses=4 "$@"
