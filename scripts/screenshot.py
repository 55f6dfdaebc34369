"""Screenshots for the README: the main window on the demo home in Live Preview (light and
dark), the dream panel, the graph view, the settings dialog, and a folder of someone's notes opened as a vault.

Writes the demo home to a temporary folder and opens the real window (offscreen, or on the X
display when DISPLAY is set, e.g. under Xvfb) on the demo's own "Beta launch plan" page: its
properties view, a callout, an image and a note embed, tasks and tags in Live Preview. It lets
the background index catch up, shows the outline and types ``[[Vec`` so the link autocomplete
list is open, then grabs the window (popups are separate windows, so they are painted onto the
grab where they stand) into docs/. The opened vault is a small folder of notes written here;
its tree is shown as it was, with nothing of the app's at its root, then split into three panes.

    python scripts/screenshot.py [--out docs] [--today 2026-07-20] [--size 1440x880]
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

OWN_VAULT = {  # a folder of someone's notes, opened as a vault
    "Home.md": "# Home\n\nStart here: [[Reading list]], [[Garden]] and the [[2026-07-19|last daily note]].\n",
    "Daily notes/2026-07-19.md": "# 2026-07-19\n\n- Watered the beans #garden\n- Finished *Piranesi*\n",
    "Projects/Garden.md": "---\ntags: [garden]\nstarted: 2026-04-01\n---\n# Garden\n\n- [x] Beans\n- [ ] Tomatoes\n",
    "Reading/Reading list.md": "# Reading list\n\n- Piranesi\n- The Overstory\n",
    "Templates/Daily note.md": "# {{date}}\n\n",
}


def _parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    parser.add_argument("--today", default="2026-07-20", help="the demo's 'today' (pinned for reproducible shots)")
    parser.add_argument("--size", default="1440x880")
    return parser.parse_args()


def _grab_with_popups(window, popups) -> object:  # noqa: ANN001 - QWidget, list[QWidget] -> QPixmap
    """The window's pixels with each visible popup window painted where it stands on screen."""
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QPainter

    pixmap = window.grab()
    painter = QPainter(pixmap)
    origin = window.mapToGlobal(QPoint(0, 0))
    for popup in popups:
        if popup.isVisible():
            painter.drawPixmap(popup.mapToGlobal(QPoint(0, 0)) - origin, popup.grab())
    painter.end()
    return pixmap


async def _settle(services, seconds: float) -> None:  # noqa: ANN001
    for _ in range(600):  # let the initial index finish so the status bar and panes show real figures
        await asyncio.sleep(0.05)
        if not services.busy:
            break
    await asyncio.sleep(seconds)  # let panes finish their refreshes (never processEvents inside a task)


async def _shoot(args: argparse.Namespace, home: Path) -> list[Path]:
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QTextCursor
    from PySide6.QtTest import QTest

    from suzent_desktop.core.demo import SHOWCASE_PAGE
    from suzent_desktop.ui.base import theme
    from suzent_desktop.ui.base.services import AppServices
    from suzent_desktop.ui.dialogs.settings_dialog import SettingsDialog
    from suzent_desktop.ui.window.main_window import MainWindow

    services = AppServices.open(home)
    window = MainWindow(services)
    width, height = (int(v) for v in args.size.split("x"))
    window.resize(width, height)
    window.show()
    window.start_background(watch=False, serve=False, index=True)
    editor = window.editors.open(services.layout.notebook_dir / SHOWCASE_PAGE)
    if "outline" in window.docks:
        window.show_dock("outline")
    await _settle(services, 2.0)
    window.refresh_status()
    editor.source.setFocus()
    document = editor.source.document()
    line = next(b for b in _blocks(document) if b.text().startswith("Tiles come from"))
    cursor = editor.source.textCursor()
    cursor.setPosition(line.position() + line.length() - 1)
    editor.source.setTextCursor(cursor)
    QTest.keyClicks(editor.source, " See [[Vec")
    await asyncio.sleep(1.5)
    popups = [editor.completer.popup] if editor.completer is not None else []
    args.out.mkdir(parents=True, exist_ok=True)
    shots = []
    main_png = args.out / "screenshot-main.png"
    _grab_with_popups(window, popups).save(str(main_png))
    shots.append(main_png)

    QTest.keyClick(editor.source, Qt.Key.Key_Escape)
    editor.load()  # drop the typed text: the page stays as written
    cursor = editor.source.textCursor()
    cursor.movePosition(QTextCursor.MoveOperation.End)
    editor.source.setTextCursor(cursor)
    window.show_dock("dream")
    await asyncio.sleep(2.0)
    dream_png = args.out / "screenshot-dream.png"
    window.grab().save(str(dream_png))
    shots.append(dream_png)

    settled = asyncio.Event()
    window.graph.laid_out.connect(settled.set)
    window.actions_by_name["graph_view"].trigger()  # Ctrl+G: the whole demo vault
    window.graph.refresh()  # read and laid out now, even when it was shown before: its end is awaited
    await asyncio.wait_for(settled.wait(), 60)
    await asyncio.sleep(0.5)
    graph_png = args.out / "screenshot-graph.png"
    window.grab().save(str(graph_png))
    shots.append(graph_png)
    window.show_dock("dream")

    dialog = SettingsDialog(services, window)
    dialog.resize(760, 720)
    dialog.show()
    await asyncio.sleep(0.5)
    settings_png = args.out / "screenshot-settings.png"
    dialog.grab().save(str(settings_png))
    shots.append(settings_png)
    dialog.close()

    manager = theme.current()
    manager.set_mode("dark")
    window.show_dock("outline" if "outline" in window.docks else "backlinks")
    await asyncio.sleep(1.5)
    editor.source.verticalScrollBar().setValue(0)  # the top of the page: callout, picture, checklist
    await asyncio.sleep(0.5)
    dark_png = args.out / "screenshot-dark.png"
    window.grab().save(str(dark_png))
    shots.append(dark_png)
    manager.set_mode("light")
    await window.shutdown()
    window.close()
    return shots


async def _shoot_own_vault(args: argparse.Namespace, vault: Path) -> list[Path]:
    """A folder of notes opened as a vault: its own tree, nothing of the app's at its root."""
    from suzent_desktop.core.files.paths.vaults import vault_home
    from suzent_desktop.ui.base.services import AppServices
    from suzent_desktop.ui.window.main_window import MainWindow

    for rel, text in OWN_VAULT.items():
        path = vault / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    services = AppServices.open(vault_home(vault))
    window = MainWindow(services)
    width, height = (int(v) for v in args.size.split("x"))
    window.resize(width, height)
    window.show()
    window.start_background(watch=False, serve=False, index=True)
    window.editors.open(vault / "Projects" / "Garden.md")
    window.tree.expandAll()
    await _settle(services, 1.5)
    window.refresh_status()
    out = args.out / "screenshot-open-vault.png"
    window.grab().save(str(out))
    window.editors.split("right", vault / "Home.md")  # two notes side by side
    window.editors.split("down", vault / "Reading" / "Reading list.md")
    await asyncio.sleep(1.0)
    split = args.out / "screenshot-split.png"
    window.grab().save(str(split))
    await window.shutdown()
    window.close()
    return [out, split]


def _blocks(document):  # noqa: ANN001, ANN202 - QTextDocument -> blocks
    block = document.firstBlock()
    while block.isValid():
        yield block
        block = block.next()


def main() -> int:
    args = _parse()
    if not os.environ.get("DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["SUZENT_TODAY"] = args.today
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import qasync
    from PySide6.QtWidgets import QApplication

    from suzent_desktop.core.demo import write_demo_home
    from suzent_desktop.ui.base import theme

    app = QApplication.instance() or QApplication(sys.argv[:1])
    theme.install(app).set_mode("light")  # the README's shots do not depend on the machine's scheme
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with tempfile.TemporaryDirectory(prefix="suzent-shot-") as tmp:
        home = Path(tmp) / "demo"
        write_demo_home(home, dt.date.fromisoformat(args.today))
        os.environ["XDG_DATA_HOME"] = str(Path(tmp) / "data")  # the opened vault's home goes here
        with loop:
            paths = loop.run_until_complete(_shoot(args, home))
            paths += loop.run_until_complete(_shoot_own_vault(args, Path(tmp) / "My notes"))
    for path in paths:
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
