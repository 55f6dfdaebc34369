"""A page's three views, as in Obsidian: Live Preview and Source mode (editing) and Reading view.

One pane shows one view at a time. Ctrl+E switches between Reading view and the editing view
last used; the button at the top right (and its menu) picks any of the three. The editing
view a page opens in is the ``editor_mode`` setting.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QFont, QFontDatabase, QKeySequence, QShortcut, QTextCursor
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QHBoxLayout,
    QLabel,
    QMenu,
    QStackedWidget,
    QToolButton,
    QWidget,
)

from suzent_desktop.ui.live.live_preview import LiveEditor
from suzent_desktop.ui.page.head import PageHead, ScrollingHead
from suzent_desktop.ui.page.properties_view import PropertiesView, fold_frontmatter
from suzent_desktop.ui.reading.preview import PreviewBrowser

LIVE, SOURCE, READING = "live", "source", "reading"
VIEW_NAMES = {LIVE: "Live Preview", SOURCE: "Source mode", READING: "Reading view"}
TOGGLE_READING_KEY = "Ctrl+E"
ADD_PROPERTY_KEY = "Ctrl+;"  # as in Obsidian
LIVE_MARGIN, SOURCE_MARGIN = 18, 4  # Live Preview reads like a page; Source mode keeps every column


def live_font() -> QFont:
    """The proportional text font Live Preview writes in (Source mode keeps the fixed font)."""
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.GeneralFont)
    font.setPointSizeF(max(font.pointSizeF(), 11.0))
    return font


def source_font() -> QFont:
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setPointSize(max(font.pointSize(), 10))
    return font


class PageViews(QObject):
    """The stack of the editor and the rendered page, and the control that switches them."""

    view_changed = Signal(str)  # LIVE, SOURCE or READING

    def __init__(self, editor: LiveEditor, preview: PreviewBrowser, mode: str = LIVE,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.editor = editor
        self.preview = preview
        self.stack = QStackedWidget(parent)
        self.stack.addWidget(editor)
        self.stack.addWidget(preview)
        self.editing = mode if mode in (LIVE, SOURCE) else LIVE
        self.view = ""
        self.properties = PropertiesView(editor, parent)
        self._properties_timer = QTimer(self)
        self._properties_timer.setSingleShot(True)
        self._properties_timer.setInterval(300)
        self._properties_timer.timeout.connect(self.sync_properties)
        editor.textChanged.connect(self._properties_timer.start)
        self._cursor_at = 0
        editor.cursorPositionChanged.connect(self._out_of_hidden_lines)
        self.head = PageHead(self.properties, parent)  # the inline title and the properties, in the page
        self._head_place = ScrollingHead(self.head)
        self.header = QWidget(parent)
        row = QHBoxLayout(self.header)
        row.setContentsMargins(6, 0, 6, 0)
        self.caption = QLabel("")
        self.caption.setObjectName("viewCaption")
        self.button = QToolButton(self.header)
        self.button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        self.button.setAutoRaise(True)
        self.button.clicked.connect(self.toggle_reading)
        menu = QMenu(self.button)
        group = QActionGroup(menu)
        self.actions: dict[str, QAction] = {}
        for view in (READING, LIVE, SOURCE):
            action = menu.addAction(VIEW_NAMES[view] + (f"\t{TOGGLE_READING_KEY}" if view == READING else ""))
            action.setCheckable(True)
            group.addAction(action)
            action.triggered.connect(lambda _=False, v=view: self.set_view(v))
            self.actions[view] = action
        menu.addSeparator()
        menu.addAction(f"Add property\t{ADD_PROPERTY_KEY}", self.add_property)
        self.button.setMenu(menu)
        row.addStretch(1)
        row.addWidget(self.caption)
        row.addWidget(self.button)
        if parent is not None:
            shortcut = QShortcut(QKeySequence(TOGGLE_READING_KEY), parent)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(self.toggle_reading)
            adding = QShortcut(QKeySequence(ADD_PROPERTY_KEY), parent)
            adding.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            adding.activated.connect(self.add_property)
        self.set_view(self.editing)

    @property
    def reading(self) -> bool:
        return self.view == READING

    def set_view(self, view: str) -> None:
        if view == self.view:
            return
        before = self.stack.currentWidget()
        had_focus = before is not None and before.hasFocus()
        self.view = view
        if view == READING:
            self.stack.setCurrentWidget(self.preview)
        else:
            self.editing = view
            live = view == LIVE
            if self.editor.live != live or self.editor.font() != (live_font() if live else source_font()):
                document = self.editor.document()
                blocked = document.blockSignals(True)  # a new look is no edit: the page stays saved
                try:
                    self.editor.setFont(live_font() if live else source_font())
                    document.setDocumentMargin(LIVE_MARGIN if live else SOURCE_MARGIN)
                    self.editor.set_live(live)
                finally:
                    document.blockSignals(blocked)
            self.stack.setCurrentWidget(self.editor)
        if isinstance(shown_view := self.stack.currentWidget(), QAbstractScrollArea):  # the editor or the reading view
            self._head_place.attach(shown_view)
        self.actions[view].setChecked(True)
        other = VIEW_NAMES[self.editing] if view == READING else VIEW_NAMES[READING]
        self.button.setText(VIEW_NAMES[view])
        self.button.setToolTip(f"{VIEW_NAMES[view]}: click for {other} ({TOGGLE_READING_KEY})")
        self.sync_properties()
        if had_focus and (shown := self.stack.currentWidget()) is not None:
            shown.setFocus()
        self.view_changed.emit(view)

    def sync_properties(self) -> None:
        """Live Preview shows the frontmatter as the properties view and folds its YAML lines away;
        Source mode shows the YAML; Reading view renders it as a table."""
        live = self.view == LIVE
        if live:
            self.properties.refresh()
        else:
            self.properties.hide()
        fold_frontmatter(self.editor, live and bool(self.properties.fields))

    def _out_of_hidden_lines(self) -> None:
        """The cursor never rests in a folded line (the YAML under the properties, a folded callout):
        it would edit text nobody sees. Ctrl+Home lands on the first line shown; a move up that
        lands in one goes on to the line shown above it, any other move to the line shown below."""
        cursor = self.editor.textCursor()
        block, upward = cursor.block(), cursor.position() < self._cursor_at
        self._cursor_at = cursor.position()
        if block.isVisible():
            return
        found = block
        while found.isValid() and not found.isVisible():
            found = found.previous() if upward else found.next()
        if not found.isValid():  # nothing shown that way: the other way
            found = block
            while found.isValid() and not found.isVisible():
                found = found.next() if upward else found.previous()
        if not found.isValid():
            return
        mode = QTextCursor.MoveMode.KeepAnchor if cursor.hasSelection() else QTextCursor.MoveMode.MoveAnchor
        cursor.setPosition(found.position() if found.blockNumber() > block.blockNumber()
                           else found.position() + found.length() - 1, mode)
        self.editor.setTextCursor(cursor)

    def add_property(self) -> None:
        """Ctrl+;: the properties view's "Add property" line, in Live Preview (a page without
        frontmatter gets one when the name is entered)."""
        if self.editor.isReadOnly():
            return
        self.set_view(LIVE)
        self.properties.start_adding()

    def toggle_reading(self) -> None:
        """Ctrl+E: Reading view, or back to the editing view last used."""
        self.set_view(self.editing if self.view == READING else READING)
