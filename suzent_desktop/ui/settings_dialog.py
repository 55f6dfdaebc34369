"""Every key of the Settings object, grouped, validated with ``settings.coerce``, saved to config.toml.

The form is generated from ``field_types()`` so a new setting shows up without UI work;
labels and help come from a small table here. Path changes take effect on the next start
(the engine's layout is fixed for a running window), which the dialog says.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from suzent_desktop.core.operations import MULTILINGUAL_SETTING
from suzent_desktop.settings import CHOICES, Settings, SettingsError, coerce, field_types
from suzent_desktop.ui.services import AppServices

GROUPS: list[tuple[str, list[str]]] = [
    ("Paths (take effect on restart)", ["notebook_path", "memory_path", "index_path"]),
    ("Models (empty = built-in offline engine)",
     ["extraction_model", "embedding_model", "window_embedding_threads", "memory_consolidation_model",
      "llm_timeout_seconds"]),
    (
        "Consolidation (dreaming)",
        [
            "memory_consolidation_enabled",
            "memory_consolidation_interval_seconds",
            "memory_consolidation_min_hours",
            "memory_consolidation_min_facts",
            "memory_consolidation_max_days",
            "memory_consolidation_max_retries",
            "memory_consolidation_timeout_seconds",
        ],
    ),
    ("Lint", ["memory_lint_enabled", "memory_lint_min_days"]),
    ("MEMORY.md", ["memory_md_max_lines", "memory_md_max_chars"]),
    ("Agents (MCP server)", ["mcp_allow_maintenance"]),
    ("Capture", ["memory_keep_transcripts"]),
    ("Appearance", ["theme"]),
    ("The app's own files when the vault has its own index.md, log.md, schema.md",
     ["alt_index_name", "alt_log_name", "alt_schema_name"]),
]

HELP: dict[str, str] = {
    "notebook_path": "The vault folder (may be an existing Obsidian vault). Empty: <home>/notebook.",
    "memory_path": "Daily logs and core files. Empty: <home>/memory.",
    "index_path": "The derived search index (safe to delete). Empty: <home>/.suzent/memory.",
    "extraction_model": "litellm model id used to pull facts out of a conversation turn.",
    "embedding_model": "Empty: bundled local MiniLM (English, 22 MB). multilingual-e5-small: the multilingual "
    "model (Chinese, Japanese, Korean and 100 languages; 72 MB, offline, slower). 'hashing' for tests; else a "
    "litellm embedding model. A change re-embeds the whole index (progress bar, Cancel).",
    "window_embedding_threads": "Threads the bundled model uses while this window is open; 0: one fewer than "
    "the cores, so the window keeps one. The command line uses every core.",
    "memory_consolidation_model": "litellm model id for the dream agent.",
    "llm_timeout_seconds": "Limit for one model call (no retries inside litellm); 0 means none.",
    "alt_index_name": "Used instead of index.md when the vault root has your own index.md.",
    "alt_log_name": "Used instead of log.md (the watermark lives here) when the vault root has your own log.md.",
    "alt_schema_name": "Used instead of schema.md when the vault root has your own schema.md.",
    "memory_consolidation_interval_seconds": "How often the background runner checks its gates.",
    "memory_consolidation_min_hours": "Minimum hours since the last productive run.",
    "memory_consolidation_min_facts": "Pending facts needed before a scheduled run.",
    "memory_consolidation_max_days": "Most daily logs consolidated in one batch.",
    "memory_consolidation_max_retries": "Failed attempts before a batch is skipped.",
    "memory_consolidation_timeout_seconds": "A run taking longer is cancelled and rolled back.",
    "memory_lint_min_days": "Days between lint passes.",
    "memory_md_max_lines": "MEMORY.md line bound.",
    "memory_md_max_chars": "MEMORY.md character bound.",
    "mcp_allow_maintenance": "Let an agent connected through `suzent-desktop mcp` run dream and lint.",
    "theme": "system, light or dark (also View ▸ Theme).",
    "memory_keep_transcripts": "Keep every conversation turn verbatim in memory/transcripts/ (searchable).",
}

PATH_KEYS = {"notebook_path", "memory_path", "index_path"}
# Text keys offered as a list that still takes any value typed (a litellm model id).
SUGGESTIONS: dict[str, tuple[str, ...]] = {"embedding_model": ("", MULTILINGUAL_SETTING)}


def _label(key: str) -> str:
    text = key.removeprefix("memory_consolidation_").removeprefix("memory_lint_").removeprefix("memory_md_").removeprefix("mcp_")
    return text.replace("_", " ").capitalize()


class SettingsDialog(QDialog):
    """Edit, validate and save every setting."""

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.setWindowTitle("Settings")
        self.resize(620, 640)
        self.editors: dict[str, QWidget] = {}
        self.saved_settings: Settings | None = None
        current = services.settings
        types = field_types()

        body = QWidget()
        body_layout = QVBoxLayout(body)
        grouped = {k for _, keys in GROUPS for k in keys}
        groups = GROUPS + [("Other", [f.name for f in fields(Settings) if f.name not in grouped])]
        for title, keys in groups:
            keys = [k for k in keys if k in types]
            if not keys:
                continue
            box = QGroupBox(title)
            form = QFormLayout(box)
            for key in keys:
                editor = self._make_editor(key, types[key], getattr(current, key))
                self.editors[key] = editor
                label = QLabel(_label(key))
                label.setToolTip(key)
                if HELP.get(key):
                    editor.setToolTip(HELP[key])
                row: QWidget = editor
                if key in PATH_KEYS:
                    row = self._with_browse(editor)
                form.addRow(label, row)
            body_layout.addWidget(box)
        body_layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(body)

        self.error_label = QLabel("")
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #d9534f;")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.error_label)
        layout.addWidget(buttons)

    def _make_editor(self, key: str, kind: type, value: Any) -> QWidget:
        if kind is bool:
            box = QCheckBox()
            box.setChecked(bool(value))
            return box
        if kind is int:
            spin = QSpinBox()
            spin.setRange(0, 2_000_000_000)
            spin.setValue(int(value))
            return spin
        if kind is float:
            dspin = QDoubleSpinBox()
            dspin.setRange(0.0, 1e9)
            dspin.setDecimals(2)
            dspin.setValue(float(value))
            return dspin
        if key in CHOICES:
            combo = QComboBox()
            combo.addItems(list(CHOICES[key]))
            combo.setCurrentText(str(value))
            return combo
        if key in SUGGESTIONS:
            combo = QComboBox()
            combo.setEditable(True)
            combo.addItems(list(SUGGESTIONS[key]))
            combo.setCurrentText(str(value))
            combo.lineEdit().setPlaceholderText("built-in")
            return combo
        line = QLineEdit(str(value))
        if key in PATH_KEYS:
            line.setPlaceholderText("default")
        elif key.endswith("_model"):
            line.setPlaceholderText("built-in")
        return line

    def _with_browse(self, line: QWidget) -> QWidget:
        holder = QWidget()
        row = QHBoxLayout(holder)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(line, 1)
        button = QPushButton("Browse…")
        button.clicked.connect(lambda: self._browse(line))
        row.addWidget(button)
        return holder

    def _browse(self, line: QWidget) -> None:
        if isinstance(line, QLineEdit):
            folder = QFileDialog.getExistingDirectory(self, "Choose a folder", line.text() or str(self.services.layout.home))
            if folder:
                line.setText(folder)

    def value(self, key: str) -> Any:
        editor = self.editors[key]
        if isinstance(editor, QCheckBox):
            return editor.isChecked()
        if isinstance(editor, QSpinBox | QDoubleSpinBox):
            return editor.value()
        if isinstance(editor, QLineEdit):
            return editor.text().strip()
        if isinstance(editor, QComboBox):
            return editor.currentText().strip()
        raise TypeError(key)

    def set_value(self, key: str, value: Any) -> None:
        """Used by tests and by the command palette's shortcuts."""
        editor = self.editors[key]
        if isinstance(editor, QCheckBox):
            editor.setChecked(bool(value))
        elif isinstance(editor, QSpinBox | QDoubleSpinBox):
            editor.setValue(value)
        elif isinstance(editor, QLineEdit):
            editor.setText(str(value))
        elif isinstance(editor, QComboBox):
            editor.setCurrentText(str(value))

    def collect(self) -> Settings:
        """Every field validated with the same rules as config.toml; raises SettingsError."""
        values = {key: coerce(key, self.value(key), "Settings dialog") for key in self.editors}
        return Settings(**values)

    def save(self) -> bool:
        try:
            settings = self.collect()
            path = self.services.save_settings(settings)
        except (SettingsError, OSError) as exc:
            self.error_label.setText(str(exc))
            return False
        self.saved_settings = settings
        self.services.bridge.status_message.emit(f"Settings saved to {path}")
        self.accept()
        return True
