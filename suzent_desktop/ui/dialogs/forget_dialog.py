"""The forget dialog: what forgetting a hit means, one paragraph or fact per line, each one optional.

A search hit can stand for several paragraphs of a page; the user sees each of them and
keeps the ones they did not mean, so nothing is forgotten behind their back. When the text
stands in a note the person wrote (in a vault the app was opened on, outside its folder), the
dialog asks whether to forget it from memory only (the default: the note stays as written) or
to delete it from the note too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

UNIT_ROLE = Qt.ItemDataRole.UserRole + 1


@dataclass
class ForgetChoice:
    """The lines to forget, and whether to delete them from the person's own notes too."""

    units: list[str] = field(default_factory=list)
    from_notes: bool = False

    def __bool__(self) -> bool:
        return bool(self.units)


class ForgetDialog(QDialog):
    """Checkable lines (all checked); Forget is enabled while at least one stays checked.

    ``notes``: the person's own notes that hold the text, as they are named to them."""

    def __init__(self, units: list[str], parent: QWidget | None = None, notes: list[str] | tuple = ()) -> None:
        super().__init__(parent)
        self.setWindowTitle("Forget")
        where = ("Each line leaves search and the model's prompts for good, and is taken off the app's pages and "
                 "MEMORY.md" if notes else
                 "Each line leaves search for good and is taken off notebook pages")
        intro = QLabel(
            f"Forget {'these' if len(units) > 1 else 'this'} everywhere you can look? {where} (daily logs keep "
            "their history). You can undo this in the Forgotten list.",
            self,
        )
        intro.setWordWrap(True)
        self.lines = QListWidget(self)
        self.lines.setWordWrap(True)
        for unit in units:
            item = QListWidgetItem(unit, self.lines)
            item.setData(UNIT_ROLE, unit)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked)
        named = ", ".join(notes[:3]) + (f" and {len(notes) - 3} more" if len(notes) > 3 else "")
        self.memory_only = QRadioButton(f"Forget from memory only: {named} stays as you wrote it", self)
        self.also_notes = QRadioButton(f"Also delete it from {named}", self)
        self.memory_only.setChecked(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        self.forget_button = self.buttons.addButton("Forget", QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.lines.itemChanged.connect(lambda *_: self.forget_button.setEnabled(bool(self.chosen())))
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.lines, 1)
        for choice in (self.memory_only, self.also_notes):
            choice.setVisible(bool(notes))
            layout.addWidget(choice)
        layout.addWidget(self.buttons)
        self.resize(560, 320)

    def shown(self) -> list[str]:
        return [self.lines.item(i).data(UNIT_ROLE) for i in range(self.lines.count())]

    def chosen(self) -> list[str]:
        items = (self.lines.item(i) for i in range(self.lines.count()))
        return [item.data(UNIT_ROLE) for item in items if item.checkState() == Qt.CheckState.Checked]

    def choice(self) -> ForgetChoice:
        return ForgetChoice(self.chosen(), self.also_notes.isVisibleTo(self) and self.also_notes.isChecked())


def choose_units(parent: QWidget | None, units: list[str], notes: list[str] | tuple = ()) -> ForgetChoice:
    """Ask; what the user kept checked and chose, or an empty choice when they cancelled."""
    dialog = ForgetDialog(units, parent, notes)
    return dialog.choice() if dialog.exec() == QDialog.DialogCode.Accepted else ForgetChoice()
