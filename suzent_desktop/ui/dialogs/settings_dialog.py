"""Every key of the Settings object, grouped, validated with ``settings.coerce``, saved to config.toml.

The form is generated from ``field_types()`` so a new setting shows up without UI work;
labels and one-line descriptions come from a table here. The wheel scrolls the form and never
edits a field the person has not clicked into, and Save writes only the keys changed here. Path changes take effect on the next start
(the engine's layout is fixed for a running window), which the dialog says.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt
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

from suzent_desktop.core.index.embedding import E5_INT8_SETTING, MULTILINGUAL_SETTING
from suzent_desktop.settings import CHOICES, LOCAL_CPU_PROFILE, Settings, SettingsError, coerce, field_types
from suzent_desktop.ui.base.services import AppServices

GROUPS: list[tuple[str, list[str]]] = [
    ("Vault and folders (take effect on restart)", ["notebook_path", "app_folder", "memory_path", "index_path",
                                                    "outside_link_targets"]),
    ("Models (empty: the built-in offline engine)",
     ["extraction_model", "memory_consolidation_model", "embedding_model", "window_embedding_threads",
      "llm_timeout_seconds"]),
    (
        "Dreaming (consolidation)",
        [
            "memory_consolidation_enabled",
            "memory_consolidation_interval_seconds",
            "memory_consolidation_min_hours",
            "memory_consolidation_min_facts",
            "memory_consolidation_max_days",
            "memory_consolidation_max_retries",
            "memory_consolidation_timeout_seconds",
            "memory_consolidation_max_write_kb",
            "memory_consolidation_lease_seconds",
            "memory_consolidation_lease_settle_seconds",
        ],
    ),
    ("Lint", ["memory_lint_enabled", "memory_lint_min_days"]),
    ("MEMORY.md", ["memory_md_max_lines", "memory_md_max_chars", "memory_md_needs_approval"]),
    ("Conversations and agents", ["memory_keep_transcripts", "mcp_allow_maintenance", "mcp_allowed_hosts",
                                  "mcp_allowed_origins"]),
    ("Appearance", ["editor_mode", "theme"]),
    ("Names of the app's own files beside yours",
     ["alt_index_name", "alt_log_name", "alt_schema_name"]),
]

# key → (label, one-line description). The raw key stays in the label's tooltip for config.toml.
LABELS: dict[str, tuple[str, str]] = {
    "notebook_path": ("Vault folder", "The notes folder; may be an existing Obsidian vault. Empty: notebook in the home."),
    "app_folder": ("Folder for the app's pages",
                   "In a vault that already has notes, the app keeps its pages and files in this one folder."),
    "outside_link_targets": ("Folders links may lead into",
                             "Folders outside the vault whose files links may show, separated by ':'. "
                             "Empty: a link out of the vault is never followed."),
    "memory_path": ("Memory folder", "Daily logs, transcripts and MEMORY.md. Empty: memory in the home."),
    "index_path": ("Search index folder", "Derived from the files and safe to delete. Empty: .suzent/memory in the home."),
    "extraction_model": ("Fact extraction model", "A litellm model that pulls facts out of each conversation turn."),
    "memory_consolidation_model": ("Dreaming model", "A litellm model that files facts into pages while dreaming."),
    "embedding_model": ("Embedding model",
                        "Empty: the bundled English model. multilingual-e5-small also reads Chinese, Japanese, "
                        "Korean and 100 languages; multilingual-e5-small-int8 is the same model as int8 ONNX, "
                        "downloaded once (about 118 MB; the status bar shows it and Cancel stops it). A change re-embeds the index."),
    "window_embedding_threads": ("Embedding threads in the window",
                                 "0: one fewer than the cores, so the window always keeps one."),
    "llm_timeout_seconds": ("Model call time limit (seconds)", "Longest one model call may take; 0 means no limit."),
    "memory_consolidation_enabled": ("Dream on a schedule", "Consolidate past days' facts into pages in the background."),
    "memory_consolidation_interval_seconds": ("Check every (seconds)", "How often the schedule looks for work."),
    "memory_consolidation_min_hours": ("Hours between dreams", "Least time since the last dream that changed pages."),
    "memory_consolidation_min_facts": ("Facts needed to dream", "Pending facts needed before a scheduled dream."),
    "memory_consolidation_max_days": ("Days per dream", "Most daily logs consolidated in one batch."),
    "memory_consolidation_max_retries": ("Attempts before skipping", "Failed attempts before a batch of days is skipped."),
    "memory_consolidation_timeout_seconds": ("Dream time limit (seconds)",
                                             "A longer dream is cancelled and its changes rolled back."),
    "memory_consolidation_max_write_kb": ("Largest model write (KB)", "Bigger writes from the dreaming model are refused."),
    "memory_lint_enabled": ("Lint the notebook", "Look for broken links, orphans and contradictions after dreams."),
    "memory_lint_min_days": ("Days between lint passes", "Least number of days between two automatic lint passes."),
    "memory_md_max_lines": ("Most lines", "MEMORY.md is rewritten to stay within this many lines."),
    "memory_md_max_chars": ("Most characters", "MEMORY.md is rewritten to stay within this many characters."),
    "memory_md_needs_approval": ("Approve changes first", "Promotion proposes MEMORY.md changes; the agent keeps "
                                 "reading the approved file until you accept them in the Review pane."),
    "memory_keep_transcripts": ("Keep conversation transcripts", "Every turn kept word for word and searchable."),
    "mcp_allow_maintenance": ("Agents may dream and lint", "Lets an agent connected over MCP run dream and lint."),
    "mcp_allowed_hosts": ("More host names for agents",
                          "Extra Host names the MCP HTTP server answers, space-separated (your reverse proxy's)."),
    "mcp_allowed_origins": ("More browser origins for agents",
                            "Extra browser Origins the MCP HTTP server accepts, space-separated."),
    "memory_consolidation_lease_seconds": ("Dream lease (seconds)",
                                           "Several devices on one home: a dead device's lease holds others up "
                                           "at most this long."),
    "memory_consolidation_lease_settle_seconds": ("Wait for other devices (seconds)",
                                                  "Several devices: after taking the lease, wait this long for the "
                                                  "sync tool to bring another device's, before dreaming."),
    "editor_mode": ("Editing view", "Live preview hides markup away from the cursor; source shows it all."),
    "theme": ("Theme", "System follows the desktop's light or dark setting (also View ▸ Theme)."),
    "alt_index_name": ("Index file", "Used when your vault has its own index.md."),
    "alt_log_name": ("Log file", "Used when your vault has its own log.md; the dream's watermark lives in it."),
    "alt_schema_name": ("Schema file", "Used when your vault has its own schema.md."),
}

PATH_KEYS = {"notebook_path", "memory_path", "index_path"}
# Text keys offered as a list that still takes any value typed (a litellm model id).
SUGGESTIONS: dict[str, tuple[str, ...]] = {"embedding_model": ("", MULTILINGUAL_SETTING, E5_INT8_SETTING)}
_DESCRIPTION_STYLE = "color: palette(placeholder-text); font-size: small;"


def _label(key: str) -> tuple[str, str]:
    """The key's words and description; a key missing from the table still reads as words."""
    if key in LABELS:
        return LABELS[key]
    return key.replace("_", " ").capitalize(), ""


class _WheelGuard(QObject):
    """Wheel turns over a field that does not have the focus scroll the form instead of
    editing the field (the event is passed on to the parents, ending at the scroll area)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Wheel and isinstance(watched, QWidget) and not watched.hasFocus():
            event.ignore()
            return True
        return super().eventFilter(watched, event)


class SettingsDialog(QDialog):
    """Edit, validate and save every setting."""

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.setWindowTitle("Settings")
        self.resize(720, 680)
        self.editors: dict[str, QWidget] = {}
        self.saved_settings: Settings | None = None
        current = services.settings
        types = field_types()

        body = QWidget()
        body_layout = QVBoxLayout(body)
        self.local_profile_button = QPushButton("Use the profile for a local CPU model")
        self.local_profile_button.setToolTip(
            "For a small model served on this computer: "
            + ", ".join(f"{k} = {v:g}" for k, v in LOCAL_CPU_PROFILE.items())
            + ". A model on localhost also gets time to read its prompt. Save to keep.")
        self.local_profile_button.clicked.connect(self.use_local_cpu_profile)
        body_layout.addWidget(self.local_profile_button)
        self._wheel_guard = _WheelGuard(self)
        self.labels: dict[str, QLabel] = {}
        self.descriptions: dict[str, QLabel] = {}
        grouped = {k for _, keys in GROUPS for k in keys}
        groups = GROUPS + [("Other", [f.name for f in fields(Settings) if f.name not in grouped])]
        forms: list[QFormLayout] = []
        for title, keys in groups:
            keys = [k for k in keys if k in types]
            if not keys:
                continue
            box = QGroupBox(title)
            form = QFormLayout(box)
            form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
            form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
            form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.DontWrapRows)
            forms.append(form)
            for key in keys:
                form.addRow(*self._row(key, types[key], getattr(current, key)))
            body_layout.addWidget(box)
        body_layout.addStretch(1)
        widest = max(label.sizeHint().width() for label in self.labels.values())
        for label in self.labels.values():
            label.setMinimumWidth(widest)  # one label column across every group
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

    PATH_KEYS = PATH_KEYS

    def _row(self, key: str, kind: type, value: Any) -> tuple[QLabel, QWidget]:
        """The label and the field (the editor, a Browse button for folders, the description below)."""
        text, description = _label(key)
        editor = self._make_editor(key, kind, value)
        editor.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # the wheel alone never focuses (and edits) a field
        editor.installEventFilter(self._wheel_guard)
        self.editors[key] = editor
        label = QLabel(text)
        label.setToolTip(f"{key} in config.toml")
        label.setBuddy(editor)
        self.labels[key] = label
        note = QLabel(description)
        note.setWordWrap(True)
        note.setStyleSheet(_DESCRIPTION_STYLE)
        self.descriptions[key] = note
        cell = QWidget()
        column = QVBoxLayout(cell)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(1)
        column.addWidget(self._with_browse(editor) if key in PATH_KEYS else editor)
        if description:
            column.addWidget(note)
        return label, cell

    def label_for(self, key: str) -> QLabel:
        return self.labels[key]

    def description_for(self, key: str) -> QLabel:
        return self.descriptions[key]

    def _make_editor(self, key: str, kind: type, value: Any) -> QWidget:
        if kind is bool:
            box = QCheckBox()
            box.setChecked(bool(value))
            return box
        if kind is int:
            spin = QSpinBox()
            spin.setRange(0, 2_000_000_000)
            spin.setValue(int(value))
            spin.setMaximumWidth(160)
            return spin
        if kind is float:
            dspin = QDoubleSpinBox()
            dspin.setRange(0.0, 1e9)
            dspin.setDecimals(2)
            dspin.setValue(float(value))
            dspin.setMaximumWidth(160)
            return dspin
        if key in CHOICES:
            combo = QComboBox()
            combo.addItems(list(CHOICES[key]))
            combo.setCurrentText(str(value))
            combo.setMaximumWidth(160)
            return combo
        if key in SUGGESTIONS:
            combo = QComboBox()
            combo.setEditable(True)
            combo.addItems(list(SUGGESTIONS[key]))
            combo.setCurrentText(str(value))
            if (line := combo.lineEdit()) is not None:  # editable: it has one
                line.setPlaceholderText("built-in")
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

    def use_local_cpu_profile(self) -> None:
        """Fill in the limits that fit a small model on this machine's CPU (saved with Save)."""
        for key, value in LOCAL_CPU_PROFILE.items():
            self.set_value(key, value)

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
