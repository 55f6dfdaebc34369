"""Screenshots for the README: the main window on the demo home, and the dream panel.

Writes the demo home to a temporary folder, opens the real window (offscreen, or on the
X display when DISPLAY is set, e.g. under Xvfb), opens a page, lets the background index
catch up, then grabs the window into docs/screenshot-main.png and docs/screenshot-dream.png.

    python scripts/screenshot.py [--out docs] [--page "3_Personal/Preferences.md"] [--dark]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    parser.add_argument("--page", default="3_Personal/Preferences.md")
    parser.add_argument("--today", default="2026-07-20", help="the demo's 'today' (pinned for reproducible shots)")
    parser.add_argument("--dark", action="store_true", help="force the dark palette")
    parser.add_argument("--size", default="1440x880")
    return parser.parse_args()


async def _shoot(args: argparse.Namespace, home: Path) -> list[Path]:
    from suzent_desktop.ui.main_window import MainWindow
    from suzent_desktop.ui.services import AppServices

    services = AppServices.open(home)
    window = MainWindow(services)
    width, height = (int(v) for v in args.size.split("x"))
    window.resize(width, height)
    window.show()
    window.start_background(watch=False, serve=False, index=True)
    window.open_path(services.layout.notebook_dir / args.page, None)
    # Let the initial index finish so the status bar and panes show real figures.
    for _ in range(600):
        await asyncio.sleep(0.05)
        if not services.busy:
            break
    window.refresh_status()
    await asyncio.sleep(2.0)  # let panes finish their refreshes (never processEvents inside a task)
    args.out.mkdir(parents=True, exist_ok=True)
    main_png = args.out / "screenshot-main.png"
    window.grab().save(str(main_png))
    window.show_dock("dream")
    await asyncio.sleep(2.0)  # let panes finish their refreshes (never processEvents inside a task)
    dream_png = args.out / "screenshot-dream.png"
    window.grab().save(str(dream_png))
    await window.shutdown()
    window.close()
    return [main_png, dream_png]


def main() -> int:
    args = _parse()
    if not os.environ.get("DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["SUZENT_TODAY"] = args.today
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import qasync
    from PySide6.QtWidgets import QApplication

    from suzent_desktop.core.demo import write_demo_home
    from suzent_desktop.ui import theme

    app = QApplication.instance() or QApplication(sys.argv[:1])
    manager = theme.install(app)
    if args.dark:
        manager.apply(True)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with tempfile.TemporaryDirectory(prefix="suzent-shot-") as tmp:
        home = Path(tmp) / "demo"
        write_demo_home(home, dt.date.fromisoformat(args.today))
        with loop:
            paths = loop.run_until_complete(_shoot(args, home))
    for path in paths:
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
