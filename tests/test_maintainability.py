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
        "def gone(text, stones):\n    return text in stones\n"
    ),
    "cli.py": "from suzent_desktop.core.operations import fuse\n",
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
    assert counts["forgotten-text matchers"] == 1  # gone
