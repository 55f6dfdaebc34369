"""Light markdown highlighting for the source pane: headings, links, code, emphasis, front matter.

Line-based (QSyntaxHighlighter works per block), with block state for fenced code and the
front-matter block, so it costs little per keystroke even on long pages. Fences and inline
code follow the one grammar (:mod:`suzent_desktop.core.files.language.markdown`): a fence closes only with
its own character and length, and a link inside code is shown as code.
"""

from __future__ import annotations

import re

from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument

from suzent_desktop.core.files.language.markdown import FenceTracker, inline_code_spans, line_links
from suzent_desktop.ui.base import theme

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s.*$")
_BOLD = re.compile(r"\*\*[^*\n]+\*\*|__[^_\n]+__")
_ITALIC = re.compile(r"(?<![*\w])\*[^*\n]+\*(?!\*)|(?<![_\w])_[^_\n]+_(?!\w)")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])(?:\s\[[ xX]\])?\s")
_QUOTE = re.compile(r"^\s*>.*$")

NORMAL, IN_FRONT_MATTER = 0, 2
_FENCE_BASE = 16  # block states from here on carry the open fence: 16 + 2 * length + (1 for ~)
CALLOUT_SHIFT = 1024  # Live Preview adds (callout colour family) * this to a prose line's state


def prose_state(state: int) -> int:
    """A block state without Live Preview's callout part: NORMAL, IN_FRONT_MATTER or a fence state."""
    return state % CALLOUT_SHIFT if state >= 0 else state


def _fence_state(fence: str) -> int:
    return _FENCE_BASE + 2 * len(fence) + (fence[0] == "~")


def _open_fence(state: int) -> str | None:
    if state < _FENCE_BASE:
        return None
    return ("~" if (state - _FENCE_BASE) % 2 else "`") * ((state - _FENCE_BASE) // 2)


def _fmt(color: str, *, bold: bool = False, italic: bool = False, mono: bool = False) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(QColor(color))
    if bold:
        fmt.setFontWeight(QFont.Weight.Bold)
    if italic:
        fmt.setFontItalic(True)
    if mono:
        fmt.setFontFixedPitch(True)
    return fmt


class MarkdownHighlighter(QSyntaxHighlighter):
    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        self.set_dark(theme.is_dark())

    def set_dark(self, dark: bool) -> None:
        if dark:
            accent, link, code, muted, text = "#b4a7ff", "#8ab4f8", "#e6b673", "#8b8e94", "#dfe1e5"
        else:
            accent, link, code, muted, text = "#5b3fd1", "#0b57d0", "#a15c00", "#6e7781", "#1f2328"
        self.formats = {
            "heading": _fmt(accent, bold=True),
            "link": _fmt(link),
            "code": _fmt(code, mono=True),
            "bold": _fmt(text, bold=True),
            "italic": _fmt(text, italic=True),
            "bullet": _fmt(accent, bold=True),
            "quote": _fmt(muted, italic=True),
            "meta": _fmt(muted),
        }
        self.rehighlight()

    def line_state(self, text: str) -> tuple[int, str | None]:
        """The current line's block state (front matter, an open fence) and its whole-line style
        ("meta", "code", or None for prose): cheap, so a line styled later still hands the lines
        after it the right state."""
        previous = prose_state(self.previousBlockState())
        if self.currentBlock().blockNumber() == 0 and text.strip() == "---":
            return IN_FRONT_MATTER, "meta"
        if previous == IN_FRONT_MATTER:
            return (NORMAL if text.strip() == "---" else IN_FRONT_MATTER), "meta"
        fences = FenceTracker(_open_fence(previous))
        was_open = fences.open is not None
        if fences.feed(text) or was_open:
            return (_fence_state(fences.open) if fences.open else NORMAL), "code"
        return NORMAL, None

    def highlightBlock(self, text: str) -> None:  # noqa: N802 - Qt override
        state, whole = self.line_state(text)
        self.setCurrentBlockState(state)
        if whole is not None:
            self.setFormat(0, len(text), self.formats[whole])
            return
        if _HEADING.match(text):
            self.setFormat(0, len(text), self.formats["heading"])
            return
        if _QUOTE.match(text):
            self.setFormat(0, len(text), self.formats["quote"])
        bullet = _BULLET.match(text)
        if bullet:
            self.setFormat(0, bullet.end(), self.formats["bullet"])
        for pattern, key in ((_BOLD, "bold"), (_ITALIC, "italic")):
            for match in pattern.finditer(text):
                self.setFormat(match.start(), match.end() - match.start(), self.formats[key])
        for link in line_links(text):
            self.setFormat(link.start, link.end - link.start, self.formats["link"])
        for start, end in inline_code_spans(text):
            self.setFormat(start, end - start, self.formats["code"])
