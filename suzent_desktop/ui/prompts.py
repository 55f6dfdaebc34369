"""Questions the window asks the user, behind one small object tests can replace.

Every confirmation or name prompt goes through a :class:`Prompter`, so tests answer them
with a scripted fake instead of blocking on a modal dialog.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QFileDialog, QInputDialog, QLineEdit, QMessageBox, QWidget

if TYPE_CHECKING:
    from suzent_desktop.ui.forget_dialog import ForgetChoice


class Prompter:
    """Modal dialogs parented to a widget (the main window)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        self.parent = parent

    def confirm(self, title: str, text: str, *, ok: str = "OK") -> bool:
        box = QMessageBox(QMessageBox.Icon.Question, title, text, QMessageBox.StandardButton.Cancel, self.parent)
        yes = box.addButton(ok, QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(yes)
        box.exec()
        return box.clickedButton() is yes

    def ask_text(self, title: str, label: str, default: str = "") -> str | None:
        text, accepted = QInputDialog.getText(self.parent, title, label, QLineEdit.EchoMode.Normal, default)
        return text if accepted and text.strip() else None

    def choose(self, title: str, label: str, items: Sequence[str], current: int = 0) -> str | None:
        if not items:
            return None
        item, accepted = QInputDialog.getItem(self.parent, title, label, list(items), current, False)
        return item if accepted else None

    def choose_lines(self, units: list[str], notes: list[str] | tuple = ()) -> ForgetChoice:
        """What to forget, one paragraph or fact per checkable line, and whether to delete it from
        the person's own ``notes`` too; an empty choice when cancelled."""
        from suzent_desktop.ui.forget_dialog import choose_units

        return choose_units(self.parent, units, notes)

    def error(self, title: str, text: str) -> None:
        QMessageBox.warning(self.parent, title, text)

    def choose_folder(self, title: str, start: str = "") -> str | None:
        folder = QFileDialog.getExistingDirectory(self.parent, title, start)
        return folder or None
