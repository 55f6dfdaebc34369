"""Ctrl+F / Ctrl+H: find and replace in the open note, with a match count, case and whole-word options.

Matches are found in the editor's plain text with one regular expression (the query taken
literally), so the count, the highlights and what Replace all changes always agree. Replace
all is one edit: a single Ctrl+Z brings the text back.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QColor, QKeyEvent, QTextCursor, QTextFormat
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QGridLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTextEdit,
)

from suzent_desktop.ui.base import theme
from suzent_desktop.ui.base.icons import icon


def find_spans(text: str, query: str, *, case: bool = False, whole_word: bool = False) -> list[tuple[int, int]]:
    """(start, end) of every non-overlapping occurrence of ``query`` taken literally."""
    if not query:
        return []
    pattern = re.escape(query)
    if whole_word:
        pattern = rf"(?<!\w){pattern}(?!\w)"
    flags = 0 if case else re.IGNORECASE
    return [m.span() for m in re.finditer(pattern, text, flags)]


class FindBar(QFrame):
    """The bar above one editor; hidden until Ctrl+F (find) or Ctrl+H (find and replace)."""

    def __init__(self, edit: QPlainTextEdit) -> None:
        super().__init__()
        self.setObjectName("findBar")
        self.edit = edit
        self.spans: list[tuple[int, int]] = []
        self.current = -1
        self._replacing = False  # one recount after a replace, not one per edit
        self.find_input = QLineEdit()
        self.find_input.setPlaceholderText("Find in note")
        self.replace_input = QLineEdit()
        self.replace_input.setPlaceholderText("Replace with")
        self.count_label = QLabel("")
        self.case_box = QCheckBox("Match case")
        self.word_box = QCheckBox("Whole word")
        self.previous_button = QPushButton("Previous")
        self.next_button = QPushButton("Next")
        self.replace_button = QPushButton("Replace")
        self.replace_all_button = QPushButton("Replace all")
        self.close_button = QPushButton(icon("close"), "")
        self.close_button.setToolTip("Close (Esc)")
        layout = QGridLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.addWidget(self.find_input, 0, 0)
        layout.addWidget(self.count_label, 0, 1)
        layout.addWidget(self.previous_button, 0, 2)
        layout.addWidget(self.next_button, 0, 3)
        layout.addWidget(self.case_box, 0, 4)
        layout.addWidget(self.word_box, 0, 5)
        layout.addWidget(self.close_button, 0, 6)
        layout.addWidget(self.replace_input, 1, 0)
        layout.addWidget(self.replace_button, 1, 2)
        layout.addWidget(self.replace_all_button, 1, 3)
        layout.setColumnStretch(0, 1)

        self.find_input.textChanged.connect(lambda _t: self.search(from_cursor=True))
        self.case_box.toggled.connect(lambda _c: self.search(from_cursor=True))
        self.word_box.toggled.connect(lambda _c: self.search(from_cursor=True))
        self.previous_button.clicked.connect(self.find_previous)
        self.next_button.clicked.connect(self.find_next)
        self.replace_button.clicked.connect(self.replace_current)
        self.replace_all_button.clicked.connect(self.replace_all)
        self.close_button.clicked.connect(self.close_bar)
        edit.textChanged.connect(self._text_changed)
        for field in (self.find_input, self.replace_input):
            field.installEventFilter(self)
        self.hide()

    # -- opening and closing ----------------------------------------------------------------------
    def open_bar(self, *, replace: bool = False) -> None:
        """Show the bar (the replace row only for Ctrl+H), seeded with the selected text."""
        for widget in (self.replace_input, self.replace_button, self.replace_all_button):
            widget.setVisible(replace and not self.edit.isReadOnly())
        selected = self.edit.textCursor().selectedText()
        if selected and "\u2029" not in selected:
            self.find_input.setText(selected)
        self.show()
        self.find_input.setFocus()
        self.find_input.selectAll()
        self.search(from_cursor=True)

    def close_bar(self) -> None:
        self.hide()
        self.edit.setExtraSelections([])
        self.edit.setFocus()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            key = event.key()
            if key == Qt.Key.Key_Escape:
                self.close_bar()
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                if watched is self.replace_input:
                    self.replace_current()
                elif event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                    self.find_previous()
                else:
                    self.find_next()
                return True
        return False

    # -- finding ---------------------------------------------------------------------------------------
    def search(self, *, from_cursor: bool = False) -> None:
        """Recount the matches; with ``from_cursor`` select the first one at or after the cursor."""
        self.spans = find_spans(
            self.edit.toPlainText(), self.find_input.text(),
            case=self.case_box.isChecked(), whole_word=self.word_box.isChecked(),
        )
        if not self.spans:
            self.current = -1
        elif from_cursor or not 0 <= self.current < len(self.spans):
            start = self.edit.textCursor().selectionStart()
            self.current = next((i for i, (s, _e) in enumerate(self.spans) if s >= start), 0)
        self._show()

    def _text_changed(self) -> None:
        if self.isVisible() and not self._replacing:
            self.search()

    def find_next(self) -> None:
        self._step(1)

    def find_previous(self) -> None:
        self._step(-1)

    def _step(self, delta: int) -> None:
        if not self.spans:
            self.search()
        if self.spans:
            self.current = (self.current + delta) % len(self.spans) if self._on_current() else self.current
            self._show()

    def _on_current(self) -> bool:
        """True when the current match is the one selected in the editor (so Next moves past it)."""
        cursor = self.edit.textCursor()
        return 0 <= self.current < len(self.spans) and (cursor.selectionStart(), cursor.selectionEnd()) == self.spans[
            self.current
        ]

    def _show(self) -> None:
        """Select the current match, highlight the others and update the count."""
        query = self.find_input.text()
        if not query:
            self.count_label.setText("")
        elif not self.spans:
            self.count_label.setText("No matches")
        else:
            self.count_label.setText(f"{self.current + 1} of {len(self.spans)}")
        if 0 <= self.current < len(self.spans):
            start, end = self.spans[self.current]
            cursor = self.edit.textCursor()
            cursor.setPosition(start)
            cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
            self.edit.setTextCursor(cursor)
            self.edit.centerCursor()
        self._highlight()

    def _highlight(self) -> None:
        colour = QColor("#6b5a1e" if theme.is_dark() else "#fff3a8")
        selections = []
        for start, end in self.spans[:2000]:
            selection = QTextEdit.ExtraSelection()
            cursor = QTextCursor(self.edit.document())
            cursor.setPosition(start)
            cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
            selection.cursor = cursor
            selection.format.setBackground(colour)
            selection.format.setProperty(QTextFormat.Property.FullWidthSelection, False)
            selections.append(selection)
        self.edit.setExtraSelections(selections)

    def match_count(self) -> int:
        return len(self.spans)

    # -- replacing -------------------------------------------------------------------------------------
    def replace_current(self) -> None:
        """Replace the selected match, then select the next one."""
        if self.edit.isReadOnly():
            return
        if not self._on_current():
            self.search(from_cursor=True)
            return
        start = self.spans[self.current][0]
        cursor = self.edit.textCursor()
        self._replacing = True
        try:
            cursor.insertText(self.replace_input.text())
        finally:
            self._replacing = False
        cursor.setPosition(start + len(self.replace_input.text()))
        self.edit.setTextCursor(cursor)
        self.search(from_cursor=True)

    def replace_all(self) -> int:
        """Replace every match as one undoable edit; returns how many were replaced."""
        if self.edit.isReadOnly():
            return 0
        self.search()
        spans = list(self.spans)
        if not spans:
            return 0
        replacement = self.replace_input.text()
        cursor = QTextCursor(self.edit.document())
        self._replacing = True
        try:
            cursor.beginEditBlock()
            for start, end in reversed(spans):
                cursor.setPosition(start)
                cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
                cursor.insertText(replacement)
            cursor.endEditBlock()
        finally:
            self._replacing = False
        self.search()
        self.count_label.setText(f"Replaced {len(spans)}")
        return len(spans)
