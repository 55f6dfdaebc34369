"""The forget dialog: what forgetting a hit means, one paragraph or fact per line, each one optional.

A search hit can stand for several paragraphs of a page; the user sees each of them and
keeps the ones they did not mean, so nothing is forgotten behind their back.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

UNIT_ROLE = Qt.ItemDataRole.UserRole + 1


class ForgetDialog(QDialog):
    """Checkable lines (all checked); Forget is enabled while at least one stays checked."""

    def __init__(self, units: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Forget")
        intro = QLabel(
            f"Forget {'these' if len(units) > 1 else 'this'} everywhere you can look? "
            "Each line leaves search for good and is taken off notebook pages (daily logs keep their "
            "history). You can undo this in the Forgotten list.",
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
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        self.forget_button = self.buttons.addButton("Forget", QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.lines.itemChanged.connect(lambda *_: self.forget_button.setEnabled(bool(self.chosen())))
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.lines, 1)
        layout.addWidget(self.buttons)
        self.resize(560, 320)

    def shown(self) -> list[str]:
        return [self.lines.item(i).data(UNIT_ROLE) for i in range(self.lines.count())]

    def chosen(self) -> list[str]:
        items = (self.lines.item(i) for i in range(self.lines.count()))
        return [item.data(UNIT_ROLE) for item in items if item.checkState() == Qt.CheckState.Checked]


def choose_units(parent: QWidget | None, units: list[str]) -> list[str]:
    """Ask; the units the user kept checked, or [] when they cancelled."""
    dialog = ForgetDialog(units, parent)
    return dialog.chosen() if dialog.exec() == QDialog.DialogCode.Accepted else []
