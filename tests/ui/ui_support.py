"""Helpers shared by the main-window tests (kept out of conftest so test modules can import them)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Sequence
from typing import Any

WAIT_MS = 20_000


class FakePrompter:
    """Scripted answers for every question the window asks; records what was asked."""

    def __init__(self) -> None:
        self.confirm_answer = True
        self.texts: list[str | None] = []
        self.choices: list[str | None] = []
        self.asked: list[tuple[str, str]] = []
        self.errors: list[str] = []
        self.folders: list[str] = []
        self.from_notes = False  # the forget dialog's answer for the person's own notes
        self.conflict_answers: list[str] = []  # "keep", "discard" or "cancel", one a page

    def confirm(self, title: str, text: str, *, ok: str = "OK") -> bool:
        self.asked.append((title, text))
        return self.confirm_answer

    def keep_or_discard(self, name: str) -> str:
        self.asked.append(("Unsaved edits", name))
        return self.conflict_answers.pop(0) if self.conflict_answers else "discard"

    def ask_text(self, title: str, label: str, default: str = "") -> str | None:
        self.asked.append((title, label))
        return self.texts.pop(0) if self.texts else None

    def choose(self, title: str, label: str, items: Sequence[str], current: int = 0) -> str | None:
        self.asked.append((title, label))
        return self.choices.pop(0) if self.choices else None

    def choose_lines(self, units: list[str], notes: list[str] | tuple = ()) -> Any:
        from suzent_desktop.ui.dialogs.forget_dialog import ForgetChoice

        self.asked.append(("Forget", "\n".join([*units, *notes])))
        return ForgetChoice(list(units), self.from_notes and bool(notes)) if self.confirm_answer else ForgetChoice()

    def error(self, title: str, text: str) -> None:
        self.errors.append(text)

    def choose_folder(self, title: str, start: str = "") -> str | None:
        self.asked.append((title, start))
        return self.folders.pop(0) if self.folders else None


def run(qtbot: Any, coro: Coroutine[Any, Any, Any], timeout: int = WAIT_MS) -> Any:
    """Run a coroutine on the qasync loop while Qt keeps processing events."""
    task = asyncio.ensure_future(coro)
    qtbot.waitUntil(task.done, timeout=timeout)
    return task.result()


def open_at_end(qtbot: Any, root: Any, page: Any, size: tuple[int, int] = (800, 700)) -> Any:
    """An editor area on ``root`` showing ``page`` with the cursor on its last line, so every other line is
    previewed as Live Preview draws it; the area is held on the editor (``editor.area``) for the test."""
    from PySide6.QtGui import QTextCursor

    from suzent_desktop.ui.workspace.editor_area import EditorArea

    area = EditorArea(root)
    area.resize(*size)
    area.show()
    qtbot.waitExposed(area)
    editor = area.open(page)
    editor.area = area
    cursor = editor.source.textCursor()
    cursor.movePosition(QTextCursor.MoveOperation.End)
    editor.source.setTextCursor(cursor)
    return editor
