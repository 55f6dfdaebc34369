"""The window's answer to a config.toml it cannot read.

The desktop entry has no terminal, so a settings error printed on stderr is never seen.
Before the main window opens, a dialog names the file, line and key, and offers to open the
file, to try again after fixing it, or to start with defaults for what could not be read
(config.toml itself is never changed by that choice).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMessageBox, QWidget

from suzent_desktop.settings import CONFIG_NAME, Settings, SettingsError, load_settings, load_settings_lenient

OPEN, RETRY, DEFAULTS, QUIT = "open", "retry", "defaults", "quit"


def describe(error: SettingsError) -> str:
    """File, line and key of the error, one per line, then the message."""
    lines = []
    if error.file:
        lines.append(f"File: {error.file}")
    if error.line:
        lines.append(f"Line: {error.line}")
    if error.key:
        lines.append(f"Setting: {error.key}")
    return "\n".join([*lines, "", str(error)])


class ConfigErrorDialog(QMessageBox):
    """One question: open the file, try again, start with defaults, or quit."""

    def __init__(self, error: SettingsError, parent: QWidget | None = None) -> None:
        super().__init__(QMessageBox.Icon.Warning, "Suzent: a setting cannot be read", "", QMessageBox.StandardButton.NoButton, parent)
        self.error = error
        self.setText("Suzent cannot use its settings file as it is.")
        self.setInformativeText(
            describe(error) + "\n\nStart with defaults uses the default value for what could not be read, "
            "for this session only; the file is not changed."
        )
        self.choices = {
            OPEN: self.addButton("Open the file", QMessageBox.ButtonRole.ActionRole),
            RETRY: self.addButton("Try again", QMessageBox.ButtonRole.ActionRole),
            DEFAULTS: self.addButton("Start with defaults", QMessageBox.ButtonRole.AcceptRole),
            QUIT: self.addButton("Quit", QMessageBox.ButtonRole.RejectRole),
        }
        if not error.file:
            self.choices[OPEN].setEnabled(False)  # an environment variable: there is no file to open
        self.setDefaultButton(self.choices[OPEN] if error.file else self.choices[DEFAULTS])

    def ask(self) -> str:
        self.exec()
        clicked = self.clickedButton()
        return next((name for name, button in self.choices.items() if button is clicked), QUIT)


def open_file(path: str) -> None:
    QDesktopServices.openUrl(QUrl.fromLocalFile(path))


def resolve_settings(
    home: Path,
    error: SettingsError,
    ask: Callable[[SettingsError], str] | None = None,
    opener: Callable[[str], None] = open_file,
) -> Settings | None:
    """Ask until the settings can be used: the settings to start with, or None to quit."""
    ask = ask or (lambda err: ConfigErrorDialog(err).ask())
    while True:
        choice = ask(error)
        if choice == OPEN:
            opener(error.file or str(home / CONFIG_NAME))
            continue
        if choice == RETRY:
            try:
                return load_settings(home)
            except SettingsError as again:
                error = again
                continue
        if choice == DEFAULTS:
            return load_settings_lenient(home)[0]
        return None
