"""Questions the window asks the user, behind one small object tests can replace.

Every confirmation or name prompt goes through a :class:`Prompter`, so tests answer them
with a scripted fake instead of blocking on a modal dialog.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QFileDialog, QInputDialog, QLineEdit, QMessageBox, QWidget

if TYPE_CHECKING:
    from suzent_desktop.ui.dialogs.forget_dialog import ForgetChoice


KEEP_MINE, DISCARD_MINE, CANCEL = "keep", "discard", "cancel"


def ask_keep_or_discard(parent: QWidget | None, name: str) -> str:
    """Closing a page whose file changed on disk while it held unsaved edits: whose words stay?
    :data:`KEEP_MINE` (the user's text is saved over the disk's), :data:`DISCARD_MINE` (the disk's
    text stays) or :data:`CANCEL` (nothing closes). Tests replace this function."""
    box = QMessageBox(QMessageBox.Icon.Warning, "Unsaved edits",
                      f"{name} changed on disk while you had unsaved edits.", QMessageBox.StandardButton.Cancel,
                      parent)
    keep = box.addButton("Keep mine", QMessageBox.ButtonRole.AcceptRole)
    discard = box.addButton("Discard mine", QMessageBox.ButtonRole.DestructiveRole)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    clicked = box.clickedButton()
    return KEEP_MINE if clicked is keep else DISCARD_MINE if clicked is discard else CANCEL


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

    def keep_or_discard(self, name: str) -> str:
        return ask_keep_or_discard(self.parent, name)

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
        from suzent_desktop.ui.dialogs.forget_dialog import choose_units

        return choose_units(self.parent, units, notes)

    def error(self, title: str, text: str) -> None:
        QMessageBox.warning(self.parent, title, text)

    def choose_folder(self, title: str, start: str = "") -> str | None:
        folder = QFileDialog.getExistingDirectory(self.parent, title, start)
        return folder or None
