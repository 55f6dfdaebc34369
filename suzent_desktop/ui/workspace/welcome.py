"""What the editor area shows while no page is open: what the app is, which home it uses, where to start.

A blank editor at launch or on a new home says nothing about what to do next; this page
names the home and its vault and offers the four ways in (the demo, the quick switcher,
search, the dream panel). The window decides what each button does.
"""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

INTRO = (
    "Suzent keeps an AI agent's long-term memory as plain Markdown files you can see, search, edit "
    "and trust. Conversations become daily logs; dreaming consolidates them into the pages of this "
    "vault; everything stays on this computer."
)


class WelcomePage(QWidget):
    """Intro, the home in use, and buttons; each button emits its own signal."""

    demo_requested = Signal()
    open_vault_requested = Signal()
    recent_vault_requested = Signal(object)  # Path of a recently opened vault
    switcher_requested = Signal()
    search_requested = Signal()
    dream_requested = Signal()

    def __init__(self, home: Path, notebook: Path, *, demo_home: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("welcomePage")
        title = QLabel("<h1>Suzent</h1>")
        intro = QLabel(INTRO)
        intro.setWordWrap(True)
        self.home_label = QLabel(
            f"Home: <code>{html.escape(str(home))}</code><br>Vault: <code>{html.escape(str(notebook))}</code>"
            + ("<br>This is the demo home: weeks of daily logs are waiting for their first dream." if demo_home else "")
        )
        self.home_label.setWordWrap(True)
        self.home_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.demo_button = QPushButton("Open a demo page" if demo_home else "Try the demo")
        self.demo_button.setToolTip(
            "Open a page of this demo vault" if demo_home
            else "Write a demo home (a seeded vault and weeks of logs) and open it in a new window; this home is untouched"
        )
        self.switcher_button = QPushButton("Find or create a page (Ctrl+O)")
        self.search_button = QPushButton("Search memories (Ctrl+Shift+F)")
        self.dream_button = QPushButton("Open the dream panel")
        self.open_vault_button = QPushButton("Open a folder as vault…")
        self.open_vault_button.setToolTip("Open a folder of notes, such as an Obsidian vault, in a new window; "
                                          "its files stay as they are")
        self.open_vault_button.clicked.connect(self.open_vault_requested.emit)
        self.recent_title = QLabel("<b>Recent vaults</b>")
        self.recent_box = QVBoxLayout()
        self.recent_buttons: list[QPushButton] = []
        self.demo_button.clicked.connect(self.demo_requested.emit)
        self.switcher_button.clicked.connect(self.switcher_requested.emit)
        self.search_button.clicked.connect(self.search_requested.emit)
        self.dream_button.clicked.connect(self.dream_requested.emit)

        buttons = QHBoxLayout()
        for button in (self.switcher_button, self.search_button, self.dream_button, self.demo_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        column = QVBoxLayout()
        column.addWidget(title)
        column.addWidget(intro)
        column.addSpacing(8)
        column.addWidget(self.home_label)
        column.addSpacing(12)
        column.addLayout(buttons)
        column.addSpacing(16)
        vault_row = QHBoxLayout()
        vault_row.addWidget(self.open_vault_button)
        vault_row.addStretch(1)
        column.addLayout(vault_row)
        column.addWidget(self.recent_title)
        column.addLayout(self.recent_box)
        column.addStretch(1)
        self.refresh_recent()
        holder = QWidget()
        holder.setMaximumWidth(720)
        holder.setLayout(column)
        outer = QHBoxLayout(self)
        outer.setContentsMargins(32, 48, 32, 32)
        outer.addWidget(holder, 0, Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignHCenter)

    def refresh_recent(self) -> None:
        """One flat button per recently opened vault (its path in the tooltip); hidden when there is none."""
        from suzent_desktop.ui.window.recent_vaults import recent_vaults

        for button in self.recent_buttons:
            self.recent_box.removeWidget(button)
            button.deleteLater()
        self.recent_buttons = []
        for vault in recent_vaults():
            button = QPushButton(vault.name)
            button.setFlat(True)
            button.setToolTip(str(vault))
            button.setStyleSheet("text-align: left;")
            button.clicked.connect(lambda _=False, v=vault: self.recent_vault_requested.emit(v))
            self.recent_box.addWidget(button)
            self.recent_buttons.append(button)
        self.recent_title.setVisible(bool(self.recent_buttons))

    def buttons(self) -> dict[str, QPushButton]:
        return {
            "open_vault": self.open_vault_button,
            "demo": self.demo_button,
            "switcher": self.switcher_button,
            "search": self.search_button,
            "dream": self.dream_button,
        }
