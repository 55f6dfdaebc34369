"""Light and dark palettes, chosen by the ``theme`` setting: "system", "light" or "dark".

"system" follows the platform's colour scheme (QStyleHints.colorScheme) and keeps following
it; on a bare X11 session that has none, it is light, which is why a fixed choice exists
(View ▸ Theme). Fusion is used on every platform so both palettes look the same everywhere;
the preview's CSS is derived from the same choice. ``theme_changed`` lets views re-render.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

_STYLE_SHEET = """
QMainWindow::separator { width: 1px; height: 1px; background: palette(mid); }
QDockWidget::title { padding: 4px 6px; background: palette(window); font-weight: 600; }
QTabBar::tab { padding: 5px 12px; }
QTreeView { border: none; }
QTreeView::item { padding: 2px 0; }
QPlainTextEdit, QTextBrowser { border: none; }
QStatusBar QLabel { padding: 0 6px; }
QFrame#conflictBar { background: palette(highlight); border-radius: 4px; }
QFrame#conflictBar QLabel { color: palette(highlighted-text); font-weight: 600; }
QLineEdit#paletteInput { padding: 6px; font-size: 12pt; }
QLabel#paletteHint { font-size: 9pt; }
"""

MODES = ("system", "light", "dark")


def system_is_dark() -> bool:
    """True when the platform asks for a dark scheme (unknown counts as light)."""
    hints = QGuiApplication.styleHints()
    return hints.colorScheme() == Qt.ColorScheme.Dark


def dark_palette() -> QPalette:
    palette = QPalette()
    base, window, text, mid = QColor("#1e1f22"), QColor("#2b2d30"), QColor("#dfe1e5"), QColor("#3c3f41")
    accent = QColor("#6c5ce7")  # white text on it keeps a 4.5:1 contrast
    for role, color in (
        (QPalette.ColorRole.Window, window),
        (QPalette.ColorRole.WindowText, text),
        (QPalette.ColorRole.Base, base),
        (QPalette.ColorRole.AlternateBase, window),
        (QPalette.ColorRole.ToolTipBase, window),
        (QPalette.ColorRole.ToolTipText, text),
        (QPalette.ColorRole.Text, text),
        (QPalette.ColorRole.Button, window),
        (QPalette.ColorRole.ButtonText, text),
        (QPalette.ColorRole.BrightText, QColor("#ff6b6b")),
        (QPalette.ColorRole.Link, QColor("#8ab4f8")),
        (QPalette.ColorRole.Highlight, accent),
        (QPalette.ColorRole.HighlightedText, QColor("#ffffff")),
        (QPalette.ColorRole.Mid, mid),
        (QPalette.ColorRole.PlaceholderText, QColor("#8b8e94")),
    ):
        palette.setColor(role, color)
    _disabled(palette, QColor("#6f737a"))
    return palette


def _disabled(palette: QPalette, text: QColor) -> None:
    """Greyed text (and a muted highlight) for disabled controls; without it a palette built with
    setColor gives every group the active colours, and disabled buttons look enabled."""
    group = QPalette.ColorGroup.Disabled
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText, QPalette.ColorRole.WindowText,
                 QPalette.ColorRole.HighlightedText):
        palette.setColor(group, role, text)
    palette.setColor(group, QPalette.ColorRole.Highlight, palette.color(QPalette.ColorRole.Mid))


def light_palette() -> QPalette:
    palette = QPalette()
    base, window, text = QColor("#ffffff"), QColor("#f4f5f7"), QColor("#1f2328")
    accent = QColor("#6a5acd")
    for role, color in (
        (QPalette.ColorRole.Window, window),
        (QPalette.ColorRole.WindowText, text),
        (QPalette.ColorRole.Base, base),
        (QPalette.ColorRole.AlternateBase, window),
        (QPalette.ColorRole.ToolTipBase, base),
        (QPalette.ColorRole.ToolTipText, text),
        (QPalette.ColorRole.Text, text),
        (QPalette.ColorRole.Button, window),
        (QPalette.ColorRole.ButtonText, text),
        (QPalette.ColorRole.Link, QColor("#0b57d0")),
        (QPalette.ColorRole.Highlight, accent),
        (QPalette.ColorRole.HighlightedText, QColor("#ffffff")),
        (QPalette.ColorRole.Mid, QColor("#d0d7de")),
        (QPalette.ColorRole.PlaceholderText, QColor("#8c959f")),
    ):
        palette.setColor(role, color)
    _disabled(palette, QColor("#a0a7b0"))
    return palette


class ThemeManager(QObject):
    """Applies the palette of the chosen mode now, and again when the system scheme changes in "system" mode."""

    theme_changed = Signal(bool)  # dark?

    def __init__(self, app: QApplication, parent: QObject | None = None) -> None:
        super().__init__(parent or app)
        self.app = app
        self.dark = False
        self.mode = "system"
        app.setStyle("Fusion")
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._on_scheme)
        self.apply(system_is_dark())

    def _on_scheme(self, _scheme: Qt.ColorScheme) -> None:
        if self.mode == "system":
            self.apply(system_is_dark())

    def set_mode(self, mode: str) -> None:
        """"system", "light" or "dark" (the ``theme`` setting); applied at once."""
        if mode not in MODES:
            raise ValueError(f"unknown theme {mode!r} (known: {', '.join(MODES)})")
        self.mode = mode
        self.apply(system_is_dark() if mode == "system" else mode == "dark")

    def apply(self, dark: bool) -> None:
        self.dark = dark
        self.app.setPalette(dark_palette() if dark else light_palette())
        self.app.setStyleSheet(_STYLE_SHEET)
        self.theme_changed.emit(dark)


_manager: ThemeManager | None = None


def install(app: QApplication) -> ThemeManager:
    """One theme manager per application."""
    global _manager
    if _manager is None or _manager.app is not app:
        _manager = ThemeManager(app)
    return _manager


def current() -> ThemeManager | None:
    return _manager


def is_dark() -> bool:
    return _manager.dark if _manager is not None else False
