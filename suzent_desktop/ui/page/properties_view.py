"""The properties view above a page in Live Preview: its frontmatter as typed fields, as in Obsidian.

Each key gets a field for its type: text, list (comma-separated), number, checkbox or date; a
map is shown as text and edited in Source mode. The key's name is itself a field (edit it to
rename the key) and its type mark opens a menu that deletes it. "Add property" (the last line, or
Ctrl+; on a page without frontmatter) adds a key. Every change is written into the page's text as
one undoable change of that key's lines only (:mod:`suzent_desktop.core.vault.properties`); the page is
saved as any edit is. The YAML lines themselves are folded away in Live Preview (the cursor is
kept out of them) and shown in Source mode.
"""

from __future__ import annotations

import datetime as dt
import functools
from typing import Any

import yaml
from PySide6.QtCore import QDate, QEvent, QObject, QRect, Qt, Signal
from PySide6.QtGui import QFocusEvent, QMouseEvent, QPainter, QPaintEvent, QPalette, QTextCursor
from PySide6.QtWidgets import (
    QCheckBox,
    QDateEdit,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QSizePolicy,
    QStyle,
    QStyleOptionFrame,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from suzent_desktop.core.files.language.markdown import frontmatter_block, frontmatter_lines, meta_text
from suzent_desktop.core.vault.properties import (
    delete_property,
    properties,
    property_kind,
    rename_property,
    set_property,
)

KIND_MARKS = {"text": "Aa", "list": "≡", "number": "#", "checkbox": "☑", "date": "▦", "map": "{}"}


class _NoWheel(QObject):
    """Scrolling the page past a date field never changes the date."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Wheel and isinstance(watched, QWidget) and not watched.hasFocus():
            event.ignore()
            return True
        return super().eventFilter(watched, event)


class ValueLine(QLineEdit):
    """A property's value: edited as text when focused; otherwise shown from its start, a value too
    long for the field cut at its end with "…" (a plain line edit shows the end and hides the start)."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setFrame(False)
        self.setCursorPosition(0)
        self.setToolTip(text)
        self.textChanged.connect(self.setToolTip)

    def shown_text(self) -> str:
        """What the field shows while it is not being edited."""
        room = self.contentsRect().width() - 8
        return self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, max(room, 0))

    def focusOutEvent(self, event: QFocusEvent) -> None:  # noqa: N802 - Qt override
        super().focusOutEvent(event)
        self.setCursorPosition(0)

    def _panel(self, painter: QPainter) -> None:
        option = QStyleOptionFrame()
        self.initStyleOption(option)
        self.style().drawPrimitive(QStyle.PrimitiveElement.PE_PanelLineEdit, option, painter, self)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        if self.hasFocus() or not self.text():
            super().paintEvent(event)
            return
        painter = QPainter(self)
        self._panel(painter)
        rect = self.contentsRect().adjusted(4, 0, -4, 0)
        painter.setPen(self.palette().color(QPalette.ColorRole.Text))
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft), self.shown_text())


PILL_GAP, PILL_PAD = 4, 7


class PillLine(ValueLine):
    """A list property (tags, aliases…) shown as pills, one per item, wrapping onto more rows when
    the field is narrow; click a pill of ``tags`` to search the tag, elsewhere to edit the list as
    comma-separated text."""

    pill_clicked = Signal(str)

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        policy = self.sizePolicy()
        policy.setVerticalPolicy(QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.textChanged.connect(self.updateGeometry)
        self.clickable = False  # a tags list: a click on a pill says which (``pill_clicked``)
        self._editing = False  # shown as text: focused from the keyboard, or clicked beside the pills

    def editing(self) -> bool:
        return self.hasFocus() and self._editing

    def items(self) -> list[str]:
        return [item.strip() for item in self.text().split(",") if item.strip()]

    def _row_height(self) -> int:
        return self.fontMetrics().height() + 6

    def pills(self, width: int | None = None) -> list[tuple[str, QRect]]:
        """Each item and where its pill is drawn; a pill wider than the field is cut with "…"."""
        room = (self.contentsRect().width() if width is None else width) - 4
        metrics = self.fontMetrics()
        x, y, placed = 2, 2, []
        for item in self.items():
            label = metrics.elidedText(item, Qt.TextElideMode.ElideRight, max(room - 2 * PILL_PAD, 8))
            wide = metrics.horizontalAdvance(label) + 2 * PILL_PAD
            if x > 2 and x + wide > room:
                x, y = 2, y + self._row_height() + PILL_GAP
            placed.append((label, QRect(x, y, wide, self._row_height())))
            x += wide + PILL_GAP
        return placed

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt override
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt override
        if self.editing():
            return super().sizeHint().height()
        pills = self.pills(width)
        bottom = max((rect.bottom() for _label, rect in pills), default=0)
        return max(super().sizeHint().height(), bottom + 4)

    def resizeEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        super().resizeEvent(event)
        if self.heightForWidth(self.width()) != self.height():
            self.updateGeometry()

    def _set_editing(self, editing: bool) -> None:
        self._editing = editing
        self.updateGeometry()
        self.update()

    def focusInEvent(self, event: QFocusEvent) -> None:  # noqa: N802 - Qt override
        super().focusInEvent(event)
        self._set_editing(event.reason() != Qt.FocusReason.MouseFocusReason)  # a click decides (below)

    def focusOutEvent(self, event: QFocusEvent) -> None:  # noqa: N802 - Qt override
        super().focusOutEvent(event)
        self._set_editing(False)

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        if not self._editing and event.button() == Qt.MouseButton.LeftButton:
            for (_label, rect), item in zip(self.pills(), self.items(), strict=True):
                if self.clickable and rect.contains(event.position().toPoint()):
                    self.clearFocus()
                    self.pill_clicked.emit(item)
                    return
        self._set_editing(True)
        super().mousePressEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        if self.editing() or not self.text():
            QLineEdit.paintEvent(self, event)
            return
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        self._panel(painter)
        palette = self.palette()
        painter.setPen(Qt.PenStyle.NoPen)
        for label, rect in self.pills():
            painter.setBrush(palette.color(QPalette.ColorRole.AlternateBase))
            painter.drawRoundedRect(rect, rect.height() / 2, rect.height() / 2)
            painter.setPen(palette.color(QPalette.ColorRole.Link))
            painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), label)
            painter.setPen(Qt.PenStyle.NoPen)


class PropertiesView(QFrame):
    """Typed fields for the frontmatter of ``editor``'s text."""

    edited = Signal(str, object)  # key, new value
    tag_clicked = Signal(str)  # a pill of the tags property (without '#')

    def __init__(self, editor: QPlainTextEdit, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("propertiesView")
        self.editor = editor
        outer = QVBoxLayout(self)
        outer.setContentsMargins(16, 6, 16, 6)
        outer.setSpacing(2)
        self.form = QFormLayout()
        self.form.setContentsMargins(0, 0, 0, 0)
        outer.addLayout(self.form)
        self.form.setLabelAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.fields: dict[str, QWidget] = {}
        self.kinds: dict[str, str] = {}
        self.names: dict[str, QLineEdit] = {}  # the key's name, editable: renames the key
        self.menus: dict[str, QMenu] = {}  # the type mark's menu: delete the key
        self.adding = False  # "Add property" asked on a page that has none yet: the view shows
        self.new_key = QLineEdit(self)  # "Add property": a name, then Enter
        self.new_key.setPlaceholderText("+ Add property (name, then Enter)")
        self.new_key.returnPressed.connect(self._add)
        self.new_key.editingFinished.connect(self._adding_done)
        self.new_key.setFrame(False)
        outer.addWidget(self.new_key)
        self._block: str | None = None
        self._wheel = _NoWheel(self)
        self.edited.connect(self._write)
        self.hide()

    # -- reading --------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Rebuild the fields when the frontmatter's text changed (typing elsewhere costs nothing)."""
        text = self.editor.toPlainText()
        block, _body = frontmatter_block(text)
        if block == self._block:
            return
        self._block = block
        while self.form.rowCount():  # taken out now, deleted later: a field may be the one whose signal runs
            taken = self.form.takeRow(0)
            for item in (taken.labelItem, taken.fieldItem):
                widget = item.widget() if item is not None else None
                if widget is not None:
                    widget.hide()
                    widget.deleteLater()
        self.fields.clear()
        self.kinds.clear()
        self.names.clear()
        self.menus.clear()
        for key, value in properties(text):
            kind = property_kind(value)
            field = self._field(key, kind, value)
            self.fields[key] = field
            self.kinds[key] = kind
            self.form.addRow(self._key_cell(key, kind), field)
        self.setVisible(bool(self.fields) or self.adding)

    def _key_cell(self, key: str, kind: str) -> QWidget:
        """The type mark (its menu deletes the key) and the key's name (edit it to rename)."""
        cell = QWidget()
        row = QHBoxLayout(cell)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(2)
        mark = QToolButton(cell)
        mark.setText(KIND_MARKS[kind])
        mark.setAutoRaise(True)
        mark.setToolTip(f"{kind}: click for the property's menu")
        mark.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(mark)
        menu.addAction("Delete property", functools.partial(self.delete, key))
        mark.setMenu(menu)
        name = QLineEdit(key, cell)
        name.setFrame(False)
        name.setStyleSheet("QLineEdit { background: transparent; }")  # reads as a label until edited
        name.setToolTip("The property's name: edit it to rename the property")
        name.editingFinished.connect(lambda k=key, e=name: self._rename_done(k, e))
        row.addWidget(mark)
        row.addWidget(name, 1)
        self.names[key] = name
        self.menus[key] = menu
        return cell

    def start_adding(self) -> None:
        """"Add property": the view shows (also on a page without frontmatter) with its name line focused."""
        self.adding = True
        self.show()
        self.new_key.setFocus()

    def _adding_done(self) -> None:
        if not self.new_key.text().strip():
            self.adding = False
            self.setVisible(bool(self.fields))

    def _add(self) -> None:
        """A new text property, last in the YAML; an existing name just moves the focus to its field."""
        key = self.new_key.text().strip().rstrip(":")
        self.new_key.clear()
        if not key or key.startswith(("#", "-")) or ":" in key:
            return
        if key not in self.fields:
            self.edited.emit(key, "")
        field = self.fields.get(key)
        if field is not None:
            field.setFocus()

    def _field(self, key: str, kind: str, value: Any) -> QWidget:
        if kind == "checkbox":
            box = QCheckBox()
            box.setChecked(bool(value))
            box.toggled.connect(lambda checked, k=key: self.edited.emit(k, checked))
            return box
        if kind == "date":
            day = value if isinstance(value, dt.date) else dt.date.fromisoformat(str(value))
            edit = QDateEdit(QDate(day.year, day.month, day.day))
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("yyyy-MM-dd")
            edit.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
            edit.installEventFilter(self._wheel)
            edit.editingFinished.connect(lambda k=key, e=edit: self._date_done(k, e))
            return edit
        if kind == "map":  # nested YAML: shown, edited in Source mode
            shown = QLineEdit(yaml.safe_dump(value, default_flow_style=True, allow_unicode=True).strip())
            shown.setReadOnly(True)
            shown.setToolTip("A map of values: edit it in Source mode")
            return shown
        line = PillLine(meta_text(value)) if kind == "list" else ValueLine(meta_text(value))
        if kind == "list":
            line.setPlaceholderText("items, separated by commas")
            if key in ("tags", "tag") and isinstance(line, PillLine):
                line.clickable = True
                line.pill_clicked.connect(lambda tag: self.tag_clicked.emit(tag.lstrip("#")))
        line.editingFinished.connect(lambda k=key, e=line, kd=kind: self._text_done(k, kd, e))
        return line

    # -- writing ------------------------------------------------------------------------------------
    def _date_done(self, key: str, edit: QDateEdit) -> None:
        chosen = edit.date()
        day = dt.date(chosen.year(), chosen.month(), chosen.day())
        if day.isoformat() != meta_text(dict(properties(self.editor.toPlainText())).get(key)):
            self.edited.emit(key, day)

    def _text_done(self, key: str, kind: str, edit: QLineEdit) -> None:
        raw = edit.text().strip()
        current = dict(properties(self.editor.toPlainText())).get(key)
        if raw == meta_text(current):
            return
        if kind == "list":
            value: Any = [item.strip() for item in raw.split(",") if item.strip()]
        elif kind == "number":
            try:
                value = int(raw) if raw.lstrip("-").isdigit() else float(raw)
            except ValueError:
                edit.setText(meta_text(current))  # not a number: the field goes back to the page's value
                return
        else:
            value = raw
        self.edited.emit(key, value)

    def _rename_done(self, key: str, edit: QLineEdit) -> None:
        new_key = edit.text().strip().rstrip(":").strip()
        if new_key == key or key not in self.names:
            return
        if not new_key or new_key.startswith(("#", "-")):
            edit.setText(key)
            return
        try:
            updated = rename_property(self.editor.toPlainText(), key, new_key)
        except ValueError as exc:  # the name is taken: the field goes back and says why
            edit.setText(key)
            edit.setToolTip(f"Not renamed: {exc}")
            return
        self._replace_head(updated)

    def delete(self, key: str) -> None:
        self._replace_head(delete_property(self.editor.toPlainText(), key))

    def _write(self, key: str, value: Any) -> None:
        self._replace_head(set_property(self.editor.toPlainText(), key, value))

    def _replace_head(self, updated: str) -> None:
        """Replace the frontmatter lines as one edit (one Ctrl+Z undoes it); the body is not touched."""
        text = self.editor.toPlainText()
        old_lines, new_lines = frontmatter_lines(text), frontmatter_lines(updated)
        document = self.editor.document()
        cursor = QTextCursor(document)
        cursor.setPosition(0)
        end = document.findBlockByNumber(old_lines).position() if old_lines else 0
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        head = "".join(updated.splitlines(keepends=True)[:new_lines])
        cursor.insertText(head)
        self._block = None
        self.refresh()


def fold_frontmatter(editor: QPlainTextEdit, fold: bool) -> None:
    """Hide (or show) the YAML lines in the editor; the cursor is moved out of hidden lines."""
    document = editor.document()
    lines = frontmatter_lines(editor.toPlainText())
    changed = False
    block = document.firstBlock()
    number = 0
    while block.isValid() and (number < lines or not block.isVisible()):
        visible = not (fold and number < lines)
        if block.isVisible() != visible:
            block.setVisible(visible)
            changed = True
        block = block.next()
        number += 1
    if changed:
        # Lay the lines out again without telling listeners the text changed: it did not (the page
        # must not turn unsaved because its YAML was folded).
        blocked = document.blockSignals(True)
        try:
            document.markContentsDirty(0, document.characterCount())
        finally:
            document.blockSignals(blocked)
        editor.viewport().update()
    if fold and lines and editor.textCursor().blockNumber() < lines:
        first = document.findBlockByNumber(lines)
        if first.isValid():
            cursor = editor.textCursor()
            cursor.setPosition(first.position())
            editor.setTextCursor(cursor)
