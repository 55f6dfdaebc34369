"""CPU time of the first keystrokes in a fresh quick switcher, names cold and warmed (GUI thread).

    python bench/switcher_first_key.py [--pages 5000]

Writes a vault of ``--pages`` generated pages in a temporary folder, takes a snapshot of the vault
model as the window does, then types "g", "a" in a new switcher twice: once with the fuzzy
matcher's name cache cold (as before the window warmed it), once after
``quick_switcher.warm_matching`` ran, as the window now runs it on a worker thread when the
names are scanned. Prints the thread CPU time of each keystroke and of the warming itself.
CPU time, not wall time, because the machine is shared.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402
from ui_launch import make_vault  # noqa: E402

from suzent_desktop.core import operations  # noqa: E402
from suzent_desktop.core.files.language import fuzzy  # noqa: E402
from suzent_desktop.core.vault.model import VaultSnapshot  # noqa: E402
from suzent_desktop.ui.dialogs.quick_switcher import QuickSwitcher, warm_matching  # noqa: E402
from suzent_desktop.ui.editing.link_completer import link_names  # noqa: E402


def _ms(work) -> float:  # noqa: ANN001 - a callable
    start = time.thread_time()
    work()
    return (time.thread_time() - start) * 1000


def keystrokes(snapshot: VaultSnapshot, root: Path, keys: str = "ga") -> list[float]:
    """CPU ms of each key typed into a new switcher (its rows are built before the first key)."""
    switcher = QuickSwitcher(snapshot, root)
    try:
        return [_ms(lambda k=key: QTest.keyClicks(switcher.input, k)) for key in keys]
    finally:
        switcher.deleteLater()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=5000)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([sys.argv[0]])
    with tempfile.TemporaryDirectory() as folder:
        notebook = Path(folder) / "home" / "notebook"
        make_vault(notebook.parent, args.pages, days=1)
        snapshot = operations.folder_vault(notebook).snapshot()  # the vault model, as the window holds it
        names = link_names(snapshot)
        fuzzy._prepare.cache_clear()
        cold = keystrokes(snapshot, notebook)
        fuzzy._prepare.cache_clear()
        warming = _ms(lambda: warm_matching(names))
        warm = keystrokes(snapshot, notebook)
    print(f"{len(names)} names")
    print(f"cold cache:   first key {cold[0]:6.1f} ms CPU, second {cold[1]:6.1f} ms")
    print(f"warmed cache: first key {warm[0]:6.1f} ms CPU, second {warm[1]:6.1f} ms "
          f"(warming: {warming:.1f} ms CPU, spent by the window on a worker thread)")
    app.processEvents()


if __name__ == "__main__":
    main()
