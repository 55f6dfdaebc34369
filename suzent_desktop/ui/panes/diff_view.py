"""A small unified-diff viewer: the pages a run changed on one side, the selected diff on the other."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument, QTextOption
from PySide6.QtWidgets import (
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

PAGE_ROLE = Qt.ItemDataRole.UserRole + 1
NO_DIFF = (
    "No diff was recorded for this page (runs from earlier sessions keep only the page list).\n"
    "Double-click the page to open it."
)


class DiffHighlighter(QSyntaxHighlighter):
    """Colours added, removed and hunk lines the way every diff tool does."""

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        self._formats: dict[str, QTextCharFormat] = {}
        for prefix, color in (("+", "#2e7d32"), ("-", "#c62828"), ("@", "#6a1b9a")):
            fmt = QTextCharFormat()
            fmt.setForeground(QColor(color))
            self._formats[prefix] = fmt
        header = QTextCharFormat()
        header.setFontWeight(QFont.Weight.Bold)
        self._header = header

    def highlightBlock(self, text: str) -> None:  # noqa: N802 - Qt override
        if text.startswith(("+++", "---")):
            self.setFormat(0, len(text), self._header)
            return
        fmt = self._formats.get(text[:1])
        if fmt is not None:
            self.setFormat(0, len(text), fmt)


class DiffView(QWidget):
    """Pages on top, the selected page's unified diff below."""

    # A vault-relative page path the user wants to open.
    open_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._diffs: dict[str, str] = {}
        self.pages = QListWidget(self)
        self.pages.currentItemChanged.connect(self._page_selected)
        self.pages.itemActivated.connect(lambda item: self.open_requested.emit(item.data(PAGE_ROLE)))
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)  # long lines wrap, never scroll away
        self.text.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.text.setFont(QFont("monospace"))
        self._highlighter = DiffHighlighter(self.text.document())
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self.pages)
        splitter.addWidget(self.text)
        splitter.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)

    def set_pages(self, pages: list[str], diffs: dict[str, str] | None = None, *, empty: str = "") -> None:
        """Show these pages; ``diffs`` maps a page to its unified diff where one is known.

        ``empty`` says why there is nothing to show, so a blank pane never reads as a fault.
        """
        self._diffs = dict(diffs or {})
        names = list(dict.fromkeys(list(pages) + sorted(self._diffs)))
        self.pages.clear()
        self.text.clear()
        self.text.setPlaceholderText("" if names else empty)
        for name in names:
            marker = "" if name in self._diffs else "  (no diff)"
            item = QListWidgetItem(name + marker, self.pages)
            item.setData(PAGE_ROLE, name)
        if names:
            self.pages.setCurrentRow(0)

    def page_names(self) -> list[str]:
        return [self.pages.item(i).data(PAGE_ROLE) for i in range(self.pages.count())]

    def diff_text(self) -> str:
        return self.text.toPlainText()

    def select_page(self, name: str) -> None:
        for i in range(self.pages.count()):
            if self.pages.item(i).data(PAGE_ROLE) == name:
                self.pages.setCurrentRow(i)
                return

    def _page_selected(self, current: QListWidgetItem | None, _previous: object = None) -> None:
        if current is None:
            self.text.clear()
            return
        self.text.setPlainText(self._diffs.get(current.data(PAGE_ROLE)) or NO_DIFF)
