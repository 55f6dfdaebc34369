"""The settings dialog as a person uses it: scrolling never edits, Save keeps the file as written
except for what was changed, and every field reads as words with a line that explains it."""

from __future__ import annotations

import tomllib

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QComboBox, QSpinBox
from ui_support import WAIT_MS


def _dialog(qtbot, services):
    from suzent_desktop.ui.dialogs.settings_dialog import SettingsDialog

    dialog = SettingsDialog(services)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def _wheel(widget, steps: int = -3) -> None:
    centre = QPointF(widget.rect().center())
    for _ in range(abs(steps)):
        event = QWheelEvent(centre, QPointF(widget.mapToGlobal(centre.toPoint())), QPoint(0, 0),
                            QPoint(0, 120 if steps > 0 else -120), Qt.MouseButton.NoButton,
                            Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
        QApplication.sendEvent(widget, event)


def test_the_wheel_scrolls_the_form_and_changes_no_unfocused_field(qtbot, small_services) -> None:
    dialog = _dialog(qtbot, small_services)
    spin = dialog.editors["memory_consolidation_interval_seconds"]
    combo = dialog.editors["theme"]
    assert isinstance(spin, QSpinBox) and isinstance(combo, QComboBox)
    dialog.error_label.setFocus()
    before_spin, before_combo = spin.value(), combo.currentText()
    _wheel(spin)
    _wheel(combo)
    assert (spin.value(), combo.currentText()) == (before_spin, before_combo)
    # Once the person clicks into the field, the wheel is theirs to use there.
    spin.setFocus()
    qtbot.waitUntil(spin.hasFocus, timeout=WAIT_MS)
    _wheel(spin, 1)
    assert spin.value() == before_spin + 1


def test_save_writes_only_what_was_changed(qtbot, small_services, monkeypatch) -> None:
    home = small_services.layout.home
    (home / "config.toml").write_text("memory_lint_min_days = 7\nmemory_md_max_lines = 80\n", encoding="utf-8")
    # An override from the environment is shown but is not the person's edit: it stays out of the file.
    small_services.manager.settings = small_services.settings.replace(memory_md_max_lines=80, memory_md_max_chars=9000)
    dialog = _dialog(qtbot, small_services)
    dialog.set_value("memory_consolidation_min_facts", 5)
    assert dialog.save()
    saved = tomllib.loads((home / "config.toml").read_text(encoding="utf-8"))
    assert saved == {"memory_lint_min_days": 7, "memory_md_max_lines": 80, "memory_consolidation_min_facts": 5}


def test_every_field_has_words_a_description_and_one_label_column(qtbot, small_services) -> None:
    from suzent_desktop.ui.dialogs.settings_dialog import LABELS

    dialog = _dialog(qtbot, small_services)
    for key in dialog.editors:
        label, description = LABELS[key]
        assert "_" not in label and label[0].isupper(), key
        assert description.endswith("."), key
        assert dialog.label_for(key).text() == label
        assert dialog.description_for(key).text() == description
    lefts = {dialog.editors[key].mapTo(dialog, QPoint(0, 0)).x() for key in dialog.editors
             if key not in dialog.PATH_KEYS}
    assert len(lefts) == 1, lefts  # every field starts at the same x, across groups
