"""Screenshots for the README: the main window on the demo home (light and dark), and the dream panel.

Writes the demo home to a temporary folder with one extra page that shows the reading view
(a callout and an image embed), opens the real window (offscreen, or on the X display when
DISPLAY is set, e.g. under Xvfb), lets the background index catch up, shows the outline and
types ``[[Vec`` so the link autocomplete list is open, then grabs the window (popups are
separate windows, so they are painted onto the grab where they stand) into docs/.

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

SHOWCASE = "2_Wiki/Concepts/Lantern Field Notes.md"
SHOWCASE_TEXT = """# Lantern Field Notes

> [!tip] Keep the wick trimmed
> A short wick burns cleaner and longer. Anna's lantern list is in [[Gift ideas for Anna]].

![[lantern.png|360]]

## Observations

Brass lanterns hold their heat; glass ones show the flame. %%check the old shed%%

## Next steps

- [x] Buy lamp oil
- [ ] Compare [[Vector Search|search notes]] for the lantern catalogue

"""


def _parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    parser.add_argument("--today", default="2026-07-20", help="the demo's 'today' (pinned for reproducible shots)")
    parser.add_argument("--size", default="1440x880")
    return parser.parse_args()


def _write_showcase(notebook: Path) -> None:
    """A page that uses a callout and an image embed, and the picture it embeds (drawn here)."""
    from PySide6.QtCore import QPointF, QRectF, Qt
    from PySide6.QtGui import QBrush, QColor, QImage, QLinearGradient, QPainter, QRadialGradient

    page = notebook / SHOWCASE
    page.write_text(SHOWCASE_TEXT, encoding="utf-8")
    image = QImage(720, 400, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    sky = QLinearGradient(0, 0, 0, 400)
    sky.setColorAt(0, QColor("#1b1f3b"))
    sky.setColorAt(1, QColor("#4b3f72"))
    painter.fillRect(image.rect(), QBrush(sky))
    glow = QRadialGradient(QPointF(360, 190), 170)
    glow.setColorAt(0, QColor(255, 214, 102, 230))
    glow.setColorAt(1, QColor(255, 214, 102, 0))
    painter.setBrush(QBrush(glow))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.drawEllipse(QPointF(360, 190), 170, 170)
    painter.setBrush(QColor("#2b2d30"))
    painter.drawRoundedRect(QRectF(320, 110, 80, 170), 14, 14)
    painter.setBrush(QColor("#ffd666"))
    painter.drawEllipse(QPointF(360, 200), 24, 36)
    painter.setBrush(QColor("#14162b"))
    painter.drawRect(QRectF(0, 330, 720, 70))
    painter.end()
    image.save(str(page.parent / "lantern.png"))


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

    from suzent_desktop.ui import theme
    from suzent_desktop.ui.main_window import MainWindow
    from suzent_desktop.ui.services import AppServices

    services = AppServices.open(home)
    window = MainWindow(services)
    width, height = (int(v) for v in args.size.split("x"))
    window.resize(width, height)
    window.show()
    window.start_background(watch=False, serve=False, index=True)
    editor = window.editors.open(services.layout.notebook_dir / SHOWCASE)
    if "outline" in window.docks:
        window.show_dock("outline")
    await _settle(services, 2.0)
    window.refresh_status()
    editor.source.setFocus()
    cursor = editor.source.textCursor()
    cursor.movePosition(QTextCursor.MoveOperation.End)
    editor.source.setTextCursor(cursor)
    QTest.keyClicks(editor.source, "See [[Vec")
    await asyncio.sleep(1.0)
    popups = [editor.completer.popup] if editor.completer is not None else []
    args.out.mkdir(parents=True, exist_ok=True)
    shots = []
    main_png = args.out / "screenshot-main.png"
    _grab_with_popups(window, popups).save(str(main_png))
    shots.append(main_png)

    QTest.keyClick(editor.source, Qt.Key.Key_Escape)
    editor.load()  # drop the typed text: the page stays as written
    window.show_dock("dream")
    await asyncio.sleep(2.0)
    dream_png = args.out / "screenshot-dream.png"
    window.grab().save(str(dream_png))
    shots.append(dream_png)

    manager = theme.current()
    manager.set_mode("dark")
    window.show_dock("outline" if "outline" in window.docks else "backlinks")
    await asyncio.sleep(1.5)
    dark_png = args.out / "screenshot-dark.png"
    window.grab().save(str(dark_png))
    shots.append(dark_png)
    manager.set_mode("system")
    await window.shutdown()
    window.close()
    return shots


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
    theme.install(app).set_mode("light")  # the README's shots do not depend on the machine's scheme
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with tempfile.TemporaryDirectory(prefix="suzent-shot-") as tmp:
        home = Path(tmp) / "demo"
        write_demo_home(home, dt.date.fromisoformat(args.today))
        _write_showcase(home / "notebook")
        with loop:
            paths = loop.run_until_complete(_shoot(args, home))
    for path in paths:
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
