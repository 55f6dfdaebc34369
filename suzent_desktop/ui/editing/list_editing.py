"""Lists and lines as an Obsidian user edits them, in Live Preview and Source mode alike.

- Enter continues a list item, a task (unchecked) or a numbered item (the next number, the items
  after it renumbered), and a quote; Enter on an empty item ends the list (outdents it first
  when it is nested);
- Tab / Shift+Tab indent and outdent list items, or every line of a selection;
- Alt+Up / Alt+Down move the line (or the selected lines) past its neighbour;
- Ctrl+Enter toggles a task's checkbox, makes a list item a task, a plain line a task item.

Each is one undoable edit. Text in a fenced code block is left to the plain editor.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from PySide6.QtGui import QTextBlock, QTextCursor
from PySide6.QtWidgets import QPlainTextEdit

from suzent_desktop.ui.live.highlighter import NORMAL, prose_state

ITEM_RE = re.compile(
    r"^(?P<lead>(?:[ \t]*>[ \t]?)*[ \t]*)(?P<marker>[-*+]|(?P<number>\d{1,9})(?P<delim>[.)]))"
    r"(?P<space>[ \t]+|$)(?P<task>\[[ xX]\](?:[ \t]+|$))?")
QUOTE_RE = re.compile(r"^(?:[ \t]*>[ \t]?)+")
INDENT = "\t"  # Obsidian's default ("Use tabs")
TAB_WIDTH = 4


def _prose(block: QTextBlock) -> bool:
    return prose_state(block.userState()) in (-1, NORMAL)


def _depth(lead: str) -> int:
    """The indentation of an item, in columns, after any quote marks."""
    indent = lead[quotes.end():] if (quotes := QUOTE_RE.match(lead)) else lead
    return len(indent.expandtabs(TAB_WIDTH))


def _quote_part(lead: str) -> str:
    quote = QUOTE_RE.match(lead)
    return quote.group(0) if quote else ""


def _lines(cursor: QTextCursor) -> Iterator[QTextBlock]:
    """The blocks a cursor's selection covers (a selection ending at a line's start leaves that line out)."""
    document = cursor.document()
    first = document.findBlock(cursor.selectionStart())
    last = document.findBlock(cursor.selectionEnd())
    if cursor.hasSelection() and last != first and cursor.selectionEnd() == last.position():
        last = last.previous()
    block = first
    while block.isValid():
        yield block
        if block == last:
            break
        block = block.next()


# -- Enter -------------------------------------------------------------------------------------------
def continue_item(edit: QPlainTextEdit) -> bool:
    """Enter on a list item or quote line: the next item, or the end of the list on an empty one."""
    cursor = edit.textCursor()
    block = cursor.block()
    if cursor.hasSelection() or not _prose(block):
        return False
    text, column = block.text(), cursor.positionInBlock()
    item = ITEM_RE.match(text)
    if item is not None and item.group("space") and column >= item.end():  # "-" alone is no item yet
        if not text[item.end():].strip() and column == len(text):
            _end_item(edit, block, item)
            return True
        number = item.group("number")
        marker = f"{int(number) + 1}{item.group('delim')}" if number else item.group("marker")
        task = "[ ] " if item.group("task") else ""
        cursor.beginEditBlock()
        cursor.insertText("\n" + item.group("lead") + marker + (item.group("space") or " ") + task)
        if number:
            renumber(cursor.block())
        cursor.endEditBlock()
        edit.setTextCursor(cursor)
        return True
    quote = QUOTE_RE.match(text)
    if quote is None or column < quote.end():
        return False
    cursor.beginEditBlock()
    if not text[quote.end():].strip() and column == len(text):  # an empty quote line ends the quote
        cursor.movePosition(QTextCursor.MoveOperation.StartOfBlock, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
    else:
        cursor.insertText("\n" + quote.group(0))
    cursor.endEditBlock()
    edit.setTextCursor(cursor)
    return True


def _end_item(edit: QPlainTextEdit, block: QTextBlock, item: re.Match[str]) -> None:
    """An empty item: outdented when nested, else its marker removed (the list ends there)."""
    cursor = QTextCursor(block)
    cursor.beginEditBlock()
    if _depth(item.group("lead")) > 0:
        _shift(block, outdent=True)
        renumber(block)
        cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock)
    else:
        cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
        cursor.insertText(_quote_part(item.group("lead")))
    cursor.endEditBlock()
    edit.setTextCursor(cursor)


# -- numbers -----------------------------------------------------------------------------------------
def _item(block: QTextBlock) -> re.Match[str] | None:
    return ITEM_RE.match(block.text()) if block.isValid() else None


def _siblings(block: QTextBlock) -> list[QTextBlock]:
    """The numbered items of the list ``block`` is an item of, at its depth, in order (children and
    their lines skipped; a blank line, a shallower line or another kind of item ends the list)."""
    item = _item(block)
    if item is None or not item.group("number"):
        return []
    depth = _depth(item.group("lead"))

    def sibling(other: QTextBlock) -> bool | None:
        """True: an item of this list; False: a line inside one (deeper); None: past the list."""
        text = other.text()
        if not other.isValid() or not text.strip():
            return None
        found = ITEM_RE.match(text)
        indent = _depth(found.group("lead")) if found else len(text[: len(text) - len(text.lstrip())].expandtabs(TAB_WIDTH))
        if indent > depth:
            return False
        if found and indent == depth and found.group("number"):
            return True
        return None

    first = block
    other = block.previous()
    while (kind := sibling(other)) is not None:
        if kind:
            first = other
        other = other.previous()
    found, other = [], first
    while (kind := sibling(other)) is not None:
        if kind:
            found.append(other)
        other = other.next()
    return found


def renumber(block: QTextBlock) -> None:
    """Number the list ``block`` is in 1, 2, 3… from its first item's number (a nested list from 1)."""
    items = _siblings(block)
    if not items:
        return
    first = _item(items[0])
    assert first is not None
    parent = items[0].previous()
    nested = parent.isValid() and (above := _item(parent)) is not None and _depth(above.group("lead")) < _depth(
        first.group("lead"))
    number = 1 if nested else int(first.group("number"))
    for block in items:
        item = _item(block)
        assert item is not None
        if int(item.group("number")) != number or item.group("number") != str(number):
            cursor = QTextCursor(block)
            cursor.setPosition(block.position() + item.start("number"))
            cursor.setPosition(block.position() + item.end("number"), QTextCursor.MoveMode.KeepAnchor)
            cursor.insertText(str(number))
        number += 1


# -- Tab, Shift+Tab ------------------------------------------------------------------------------------
def _shift(block: QTextBlock, *, outdent: bool) -> bool:
    """Indent or outdent one line by one level (after its quote marks); False when nothing to remove."""
    text = block.text()
    quote = QUOTE_RE.match(text)
    at = quote.end() if quote else 0
    cursor = QTextCursor(block)
    cursor.setPosition(block.position() + at)
    if not outdent:
        cursor.insertText(INDENT)
        return True
    if text[at:at + 1] == "\t":
        width = 1
    else:
        width = min(TAB_WIDTH, len(text[at:]) - len(text[at:].lstrip(" ")))
    if width == 0:
        return False
    cursor.setPosition(block.position() + at + width, QTextCursor.MoveMode.KeepAnchor)
    cursor.removeSelectedText()
    return True


def indent(edit: QPlainTextEdit, *, outdent: bool = False) -> bool:
    """Tab / Shift+Tab on list items or a selection of lines: each line one level in or out, the
    lists around them renumbered. A plain line without a selection keeps the usual Tab."""
    cursor = edit.textCursor()
    blocks = list(_lines(cursor))
    if not all(_prose(block) for block in blocks):
        return False
    if not cursor.hasSelection() and _item(blocks[0]) is None and not outdent:
        return False
    edit_cursor = QTextCursor(cursor)
    edit_cursor.beginEditBlock()
    changed = [block for block in blocks if _shift(block, outdent=outdent)]
    for block in changed:
        renumber(block)
        following = block.next()
        if following.isValid() and _item(following) is not None:
            renumber(following)  # the list the line left, or the one it joined
    edit_cursor.endEditBlock()
    return bool(changed) or outdent


# -- Alt+Up, Alt+Down ------------------------------------------------------------------------------------
def move_lines(edit: QPlainTextEdit, *, up: bool) -> bool:
    """The line under the cursor (or the selected lines) swapped with the line above or below, the
    cursor and selection moving with them."""
    cursor = edit.textCursor()
    blocks = list(_lines(cursor))
    first, last = blocks[0], blocks[-1]
    neighbour = first.previous() if up else last.next()
    if not neighbour.isValid():
        return True  # the first line cannot go higher: nothing to do, the key is still taken
    moved = "\n".join(block.text() for block in blocks)
    other = neighbour.text()
    start = neighbour.position() if up else first.position()
    end = (last.position() + last.length() - 1) if up else (neighbour.position() + neighbour.length() - 1)
    anchor, position = cursor.anchor(), cursor.position()
    shift = -(len(other) + 1) if up else len(other) + 1
    edit_cursor = QTextCursor(cursor.document())
    edit_cursor.beginEditBlock()
    edit_cursor.setPosition(start)
    edit_cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
    edit_cursor.insertText(moved + "\n" + other if up else other + "\n" + moved)
    edit_cursor.endEditBlock()
    cursor.setPosition(anchor + shift)
    cursor.setPosition(position + shift, QTextCursor.MoveMode.KeepAnchor)
    edit.setTextCursor(cursor)
    return True


# -- Ctrl+Enter ------------------------------------------------------------------------------------------
def toggle_checkbox(edit: QPlainTextEdit) -> bool:
    """``[ ]`` ⇄ ``[x]`` on each task line of the selection; a list item becomes a task, a plain line a
    task item (as Obsidian's "Toggle checkbox status")."""
    cursor = edit.textCursor()
    blocks = [block for block in _lines(cursor) if _prose(block)]
    if not blocks:
        return False
    edit_cursor = QTextCursor(cursor.document())
    edit_cursor.beginEditBlock()
    for block in blocks:
        text = block.text()
        item = ITEM_RE.match(text)
        edit_cursor.setPosition(block.position())
        if item is not None and item.group("task"):
            at = block.position() + item.start("task") + 1
            edit_cursor.setPosition(at)
            edit_cursor.setPosition(at + 1, QTextCursor.MoveMode.KeepAnchor)
            edit_cursor.insertText(" " if text[item.start("task") + 1] in "xX" else "x")
        elif item is not None:
            edit_cursor.setPosition(block.position() + item.end("space"))
            edit_cursor.insertText(("" if item.group("space") else " ") + "[ ] ")
        else:
            lead = re.match(r"(?:[ \t]*>[ \t]?)*[ \t]*", text)
            edit_cursor.setPosition(block.position() + (lead.end() if lead else 0))
            edit_cursor.insertText("- [ ] ")
    edit_cursor.endEditBlock()
    return True
