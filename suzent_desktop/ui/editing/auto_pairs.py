"""Brackets and markdown marks typed in pairs, as Obsidian's "Auto pair brackets" and "Auto pair
Markdown syntax" do, and a web address pasted over a selection made into a link.

- ``(``, ``[``, ``{`` and a backtick insert their closer after the cursor (so ``[[`` gives
  ``[[]]``), when what follows is a space, the line's end or a closer; typing the closer that is
  already there steps over it; Backspace between an empty pair removes both;
- a second ``*`` makes ``**|**``; with a selection, a bracket, backtick or ``*`` wraps it and the
  selection stays on the words;
- pasting ``https://…`` (or ``mailto:``) over a selection on one line writes ``[selection](url)``.

Each edit is one undo step.
"""

from __future__ import annotations

import re

from PySide6.QtGui import QTextCursor

PAIRS = {"(": ")", "[": "]", "{": "}", "`": "`"}
CLOSERS = set(PAIRS.values())
WRAPS = {**PAIRS, "*": "*"}
URL_RE = re.compile(r"^(?:https?://|mailto:)\S+$")


def _around(cursor: QTextCursor) -> tuple[str, str]:
    """The line's text before and after the cursor."""
    text = cursor.block().text()
    column = cursor.positionInBlock()
    return text[:column], text[column:]


def type_char(cursor: QTextCursor, char: str) -> bool:
    """Handle one typed character; False leaves it to the editor (it is typed as is)."""
    if cursor.hasSelection():
        return _wrap(cursor, char)
    before, after = _around(cursor)
    if char in CLOSERS and after[:1] == char and (char != "`" or before[-1:] != "`" or after[:1] == "`"):
        cursor.movePosition(QTextCursor.MoveOperation.NextCharacter)
        return True
    if char == "*":
        return _stars(cursor, before, after)
    if char not in PAIRS or not (after[:1] == "" or after[:1].isspace() or after[:1] in CLOSERS):
        return False
    if char == "`" and before[-1:] == "`":
        return False  # a run of backticks (a fence) is typed as is
    cursor.beginEditBlock()
    cursor.insertText(char + PAIRS[char])
    cursor.movePosition(QTextCursor.MoveOperation.PreviousCharacter)
    cursor.endEditBlock()
    return True


def _stars(cursor: QTextCursor, before: str, after: str) -> bool:
    """``**`` closes itself; typing ``*`` before a closing ``*`` steps over it."""
    if after[:1] == "*" and before.strip(" \t*"):
        cursor.movePosition(QTextCursor.MoveOperation.NextCharacter)
        return True
    if before[-1:] != "*" or before[-2:] == "**" or not before[:-1].strip() or (after[:1] and not after[:1].isspace()):
        return False  # one star (a list bullet, italics), a rule or a bullet at the line's start: as typed
    cursor.beginEditBlock()
    cursor.insertText("***")
    cursor.movePosition(QTextCursor.MoveOperation.PreviousCharacter, n=2)
    cursor.endEditBlock()
    return True


def _wrap(cursor: QTextCursor, char: str) -> bool:
    if char not in WRAPS:
        return False
    start, end = cursor.selectionStart(), cursor.selectionEnd()
    selected = cursor.selectedText()
    if "\u2029" in selected:
        return False  # across lines: typed over, as usual
    cursor.beginEditBlock()
    cursor.insertText(char + selected + WRAPS[char])
    cursor.endEditBlock()
    cursor.setPosition(start + 1)
    cursor.setPosition(end + 1, QTextCursor.MoveMode.KeepAnchor)
    return True


def backspace(cursor: QTextCursor) -> bool:
    """Backspace between an empty pair (``(|)``, ``[|]``, ``**|**``) removes both halves."""
    if cursor.hasSelection():
        return False
    before, after = _around(cursor)
    width = 2 if before.endswith("**") and after.startswith("**") else 1
    if width == 1 and not (before[-1:] in PAIRS and PAIRS[before[-1:]] == after[:1]):
        return False
    cursor.beginEditBlock()
    cursor.movePosition(QTextCursor.MoveOperation.PreviousCharacter, n=width)
    cursor.movePosition(QTextCursor.MoveOperation.NextCharacter, QTextCursor.MoveMode.KeepAnchor, 2 * width)
    cursor.removeSelectedText()
    cursor.endEditBlock()
    return True


def paste_link(cursor: QTextCursor, pasted: str) -> bool:
    """A web address pasted over a selection on one line becomes ``[selection](address)``."""
    url = pasted.strip()
    selected = cursor.selectedText()
    if not cursor.hasSelection() or "\u2029" in selected or not URL_RE.match(url) or URL_RE.match(selected.strip()):
        return False
    cursor.insertText(f"[{selected}]({url})")
    return True
