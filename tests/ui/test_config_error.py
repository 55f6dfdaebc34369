"""A config.toml the app cannot read: a dialog with file, line and key, that opens the file or starts with defaults."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QTimer

from suzent_desktop.settings import SettingsError, load_settings
from suzent_desktop.ui.dialogs.config_error import (
    DEFAULTS,
    OPEN,
    QUIT,
    RETRY,
    ConfigErrorDialog,
    resolve_settings,
)

BAD = 'notebook_path = "/my/vault"\nmemory_consolidation_enabled = "no"\n'


def _error(home: Path) -> SettingsError:
    (home / "config.toml").write_text(BAD, encoding="utf-8")
    with pytest.raises(SettingsError) as err:
        load_settings(home, environ={})
    return err.value


def test_the_dialog_names_file_line_and_key_and_its_buttons_answer(qtbot, home: Path):
    error = _error(home)
    dialog = ConfigErrorDialog(error)
    qtbot.addWidget(dialog)
    text = dialog.informativeText()
    assert f"File: {home / 'config.toml'}" in text and "Line: 2" in text
    assert "Setting: memory_consolidation_enabled" in text
    for choice in (OPEN, DEFAULTS, QUIT):
        QTimer.singleShot(0, dialog.choices[choice].click)
        assert dialog.ask() == choice


def test_open_then_try_again_after_the_fix(home: Path):
    error = _error(home)
    opened: list[str] = []
    answers = [OPEN, RETRY]

    def ask(err: SettingsError) -> str:
        if answers[0] == RETRY:  # the person fixed the file in their editor
            (home / "config.toml").write_text(BAD.replace('"no"', "false"), encoding="utf-8")
        return answers.pop(0)

    settings = resolve_settings(home, error, ask=ask, opener=opened.append)
    assert opened == [str(home / "config.toml")]
    assert settings is not None and settings.memory_consolidation_enabled is False


def test_start_with_defaults_keeps_what_could_be_read_and_leaves_the_file(home: Path):
    error = _error(home)
    settings = resolve_settings(home, error, ask=lambda err: DEFAULTS)
    assert settings is not None
    assert settings.notebook_path == "/my/vault" and settings.memory_consolidation_enabled is True
    assert (home / "config.toml").read_text(encoding="utf-8") == BAD


def test_quit_starts_nothing(home: Path):
    assert resolve_settings(home, _error(home), ask=lambda err: QUIT) is None


def test_the_window_says_when_the_vault_has_its_own_root_files(qtbot, loop, small_home: Path):
    from ui_support import FakePrompter

    from suzent_desktop.ui.base.services import AppServices
    from suzent_desktop.ui.window.main_window import MainWindow

    (small_home / "notebook" / "index.md").write_text("# My own index\n", encoding="utf-8")
    services = AppServices.open(small_home)
    window = MainWindow(services, prompter=FakePrompter())
    qtbot.addWidget(window)
    window.show()
    try:
        label = window.own_files_label
        assert label.isVisible() and label.text() == "Your index.md left alone (app uses suzent-index.md)"
        assert (small_home / "notebook" / "index.md").read_text(encoding="utf-8") == "# My own index\n"
        assert (small_home / "notebook" / "suzent-index.md").is_file()
    finally:
        from ui_support import run

        run(qtbot, window.shutdown())
        window.close()


def test_the_window_names_links_it_does_not_follow(qtbot, loop, small_home: Path, tmp_path: Path):
    import os

    from ui_support import WAIT_MS, FakePrompter, run

    from suzent_desktop.ui.base.services import AppServices
    from suzent_desktop.ui.window.main_window import MainWindow

    (tmp_path / "secret.md").write_text("key\n", encoding="utf-8")
    os.symlink(tmp_path / "secret.md", small_home / "notebook" / "2_Wiki" / "notes.md")
    os.symlink("../.state", small_home / "notebook" / "2_Wiki" / "state")
    os.mkfifo(small_home / "notebook" / "2_Wiki" / "pipe.md")  # never opened: the walk would hang on it
    window = MainWindow(AppServices.open(small_home), prompter=FakePrompter())
    qtbot.addWidget(window)
    window.show()
    try:
        with qtbot.waitSignal(window.names_ready, timeout=WAIT_MS):
            window.start_background(watch=False, serve=False, index=False)
        label = window.not_followed_label
        assert label.isVisible() and label.text() == "2 link(s) not followed, 1 special file(s) left out"
        assert "2_Wiki/pipe.md: is a FIFO (named pipe)" in label.toolTip()
        assert "2_Wiki/notes.md: a link leads outside the vault" in label.toolTip()
        assert "2_Wiki/state: a link leads into the hidden folder .state/" in label.toolTip()
    finally:
        run(qtbot, window.shutdown())
        window.close()
