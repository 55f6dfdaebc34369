"""What comes in at the front doors (a turn on stdin, config.toml, path settings) is refused with a
message naming the file or setting: never a traceback, never a silent guess."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from test_cli import run

from suzent_desktop.core.files.disk.text_hygiene import loads_json
from suzent_desktop.core.vault.canvas import canvas_markdown
from suzent_desktop.settings import SettingsError, load_settings

DEEP_JSON = "[" * 100_000 + "]" * 100_000


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace"))


def test_capture_of_json_nested_100000_deep_names_stdin(home: Path, capsys, monkeypatch: pytest.MonkeyPatch):
    _stdin(monkeypatch, DEEP_JSON.encode())
    code, _out, err = run(capsys, home, "capture", "-")
    assert code == 1 and "stdin" in err and "nested too deeply" in err and "Recursion" not in err


def test_capture_of_a_deep_json_file_names_the_file(home: Path, capsys, tmp_path: Path):
    turn = tmp_path / "turn.json"
    turn.write_text(DEEP_JSON, encoding="utf-8")
    code, _out, err = run(capsys, home, "capture", str(turn))
    assert code == 1 and str(turn) in err and "nested too deeply" in err


def test_capture_from_stdin_refuses_invalid_utf8_like_a_file(home: Path, capsys, monkeypatch, tmp_path: Path):
    raw = b'{"user": "I drink \xff tea every day", "assistant": "Noted.", "session_id": "s1"}'
    _stdin(monkeypatch, raw)
    code, _out, err = run(capsys, home, "capture", "-")
    assert code == 1 and "stdin: not valid UTF-8 at byte 18" in err
    turn = tmp_path / "turn.json"
    turn.write_bytes(raw)
    code, _out, err = run(capsys, home, "capture", str(turn))
    assert code == 1 and "not valid UTF-8 at byte 18" in err
    logs = list((home / "memory" / "archive").glob("*.md")) if (home / "memory" / "archive").is_dir() else []
    assert not any("\ufffd" in p.read_text(encoding="utf-8") for p in logs)


def test_a_config_with_arrays_50000_deep_names_the_file(home: Path, capsys):
    config = home / "config.toml"
    config.write_text("x = " + "[" * 50_000 + "]" * 50_000 + "\n", encoding="utf-8")
    with pytest.raises(SettingsError, match="nested too deeply") as caught:
        load_settings(home)
    assert caught.value.file == str(config)
    code, _out, err = run(capsys, home, "status")
    assert code == 1 and str(config) in err and "Recursion" not in err


@pytest.mark.parametrize("key", ["notebook_path", "memory_path", "index_path", "outside_link_targets"])
def test_a_nul_byte_in_a_path_setting_names_the_setting(home: Path, capsys, key: str):
    (home / "config.toml").write_text(f'{key} = "/tmp/a\\u0000b"\n', encoding="utf-8")
    code, _out, err = run(capsys, home, "status")
    assert code == 1 and f"config.toml:1: setting '{key}'" in err and "NUL" in err


def test_an_overlong_path_setting_names_the_setting(home: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("SUZENT_INDEX_PATH", "/tmp/" + "a" * 300)
    with pytest.raises(SettingsError, match="SUZENT_INDEX_PATH: setting 'index_path' has a folder name of 300 bytes"):
        load_settings(home)


def test_a_deep_board_or_state_file_reads_as_bad_json_not_a_crash():
    with pytest.raises(json.JSONDecodeError, match="nested too deeply"):
        loads_json(DEEP_JSON)
    assert canvas_markdown(DEEP_JSON) == ""


@pytest.mark.parametrize("memory", ["notebook/.state/memory", "notebook/.obsidian/mem", "notebook/2_Wiki/.facts"])
def test_a_memory_path_inside_a_hidden_vault_folder_is_refused_at_start(home: Path, capsys, memory: str):
    (home / "config.toml").write_text(f'memory_path = "{home / memory}"\n', encoding="utf-8")
    code, _out, err = run(capsys, home, "remember", "User keeps bees on the roof")
    assert code == 1 and "memory_path" in err and "hidden folder" in err
    assert not (home / memory).exists()  # refused before anything was written
    code, out, _err = run(capsys, home, "doctor")
    assert code == 1 and "memory_path" in out


def test_a_memory_path_linked_into_a_hidden_folder_is_refused(home: Path, capsys):
    run(capsys, home, "lint")  # the vault is made
    (home / "notebook" / ".state" / "mem").mkdir(parents=True)
    (home / "memlink").symlink_to(home / "notebook" / ".state" / "mem")
    (home / "config.toml").write_text(f'memory_path = "{home / "memlink"}"\n', encoding="utf-8")
    code, _out, err = run(capsys, home, "remember", "User keeps bees on the roof")
    assert code == 1 and "memory_path" in err and ".state/" in err


def test_a_model_answer_nested_100000_deep_is_a_format_error():
    from suzent_desktop.core.llm import LLMFormatError, parse_json_text

    with pytest.raises(LLMFormatError, match="nested too deeply"):
        parse_json_text(DEEP_JSON)
