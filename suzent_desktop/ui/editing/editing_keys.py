"""The keys that edit markdown as Obsidian does, for the page editor: which key goes to which of
:mod:`~suzent_desktop.ui.editing.list_editing` and :mod:`~suzent_desktop.ui.editing.auto_pairs`. A key none of
them takes is left to the plain text editor."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QPlainTextEdit

from suzent_desktop.ui.editing import auto_pairs, list_editing

_ENTER = (Qt.Key.Key_Return, Qt.Key.Key_Enter)
_IGNORED = Qt.KeyboardModifier.KeypadModifier


def handle_key(edit: QPlainTextEdit, event: QKeyEvent) -> bool:
    """True when the key was taken (the edit is made, as one undo step)."""
    if edit.isReadOnly():
        return False
    key, modifiers = event.key(), event.modifiers() & ~_IGNORED
    none, ctrl = Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.ControlModifier
    if key in _ENTER and modifiers == none:
        return list_editing.continue_item(edit)
    if key in _ENTER and modifiers == Qt.KeyboardModifier.ShiftModifier:  # a new line, the list not continued
        edit.textCursor().insertText("\n")  # a line of its own, not the text edit's in-line break
        return True
    if key in _ENTER and modifiers == ctrl:  # Cmd+Enter on macOS
        return list_editing.toggle_checkbox(edit)
    if key == Qt.Key.Key_Tab and modifiers == none:
        return list_editing.indent(edit)
    if key == Qt.Key.Key_Backtab or (key == Qt.Key.Key_Tab and modifiers == Qt.KeyboardModifier.ShiftModifier):
        return list_editing.indent(edit, outdent=True)
    if key in (Qt.Key.Key_Up, Qt.Key.Key_Down) and modifiers == Qt.KeyboardModifier.AltModifier:
        return list_editing.move_lines(edit, up=key == Qt.Key.Key_Up)
    cursor = edit.textCursor()
    if key == Qt.Key.Key_Backspace and modifiers == none:
        taken = auto_pairs.backspace(cursor)
    elif len(event.text()) == 1 and not modifiers & (ctrl | Qt.KeyboardModifier.AltModifier | Qt.KeyboardModifier.MetaModifier):
        taken = auto_pairs.type_char(cursor, event.text())
    else:
        return False
    if taken:
        edit.setTextCursor(cursor)
    return taken
