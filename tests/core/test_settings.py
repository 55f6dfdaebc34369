"""Settings: defaults of the design document, config.toml, SUZENT_* overrides, errors that name the key."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from suzent_desktop.settings import Settings, SettingsError, coerce, field_types, load_settings, save_settings


def test_defaults_follow_the_design_document(home: Path):
    s = load_settings(home, environ={})
    assert s.memory_consolidation_enabled is True
    assert s.memory_consolidation_interval_seconds == 1800
    assert s.memory_consolidation_min_hours == 24
    assert s.memory_consolidation_min_facts == 20
    assert s.memory_consolidation_max_days == 14
    assert s.memory_consolidation_max_retries == 3
    assert s.memory_consolidation_timeout_seconds == 600
    assert s.memory_lint_enabled is True and s.memory_lint_min_days == 7
    assert s.extraction_model == "" and s.memory_consolidation_model == "" and s.embedding_model == ""
    assert s.notebook_path == s.memory_path == s.index_path == ""


def test_every_interface_key_exists():
    keys = set(field_types())
    for key in (
        "notebook_path", "memory_path", "index_path", "extraction_model", "embedding_model",
        "memory_consolidation_enabled", "memory_consolidation_interval_seconds", "memory_consolidation_min_hours",
        "memory_consolidation_min_facts", "memory_consolidation_max_days", "memory_consolidation_max_retries",
        "memory_consolidation_timeout_seconds", "memory_consolidation_model", "memory_lint_enabled",
        "memory_lint_min_days",
    ):
        assert key in keys


def test_config_file_is_read(home: Path):
    (home / "config.toml").write_text(
        'memory_consolidation_max_days = 7\nmemory_consolidation_min_hours = 2\nextraction_model = "gpt-4o-mini"\n',
        encoding="utf-8",
    )
    s = load_settings(home, environ={})
    assert s.memory_consolidation_max_days == 7
    assert s.memory_consolidation_min_hours == 2.0 and isinstance(s.memory_consolidation_min_hours, float)
    assert s.extraction_model == "gpt-4o-mini"


def test_environment_overrides_the_file(home: Path):
    (home / "config.toml").write_text("memory_consolidation_max_days = 7\n", encoding="utf-8")
    env = {
        "SUZENT_MEMORY_CONSOLIDATION_MAX_DAYS": "3",
        "SUZENT_MEMORY_LINT_ENABLED": "off",
        "SUZENT_MEMORY_CONSOLIDATION_TIMEOUT_SECONDS": "12.5",
        "SUZENT_NOTEBOOK_PATH": "/vault",
        "SUZENT_HOME": "/ignored",  # not a settings key: never an error
    }
    s = load_settings(home, environ=env)
    assert s.memory_consolidation_max_days == 3
    assert s.memory_lint_enabled is False
    assert s.memory_consolidation_timeout_seconds == 12.5
    assert s.notebook_path == "/vault"


def test_process_environment_is_used_by_default(home: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("SUZENT_MEMORY_CONSOLIDATION_MIN_FACTS", "5")
    assert load_settings(home).memory_consolidation_min_facts == 5
    assert os.environ["SUZENT_EMBEDDING_MODEL"] == "hashing"
    assert load_settings(home).embedding_model == "hashing"


def test_unknown_key_names_the_file_and_key(home: Path):
    (home / "config.toml").write_text("memory_consolidation_max_dayz = 3\n", encoding="utf-8")
    with pytest.raises(SettingsError) as err:
        load_settings(home, environ={})
    assert "memory_consolidation_max_dayz" in str(err.value) and "config.toml" in str(err.value)


@pytest.mark.parametrize(
    "line, key",
    [
        ('memory_consolidation_max_days = "many"', "memory_consolidation_max_days"),
        ("memory_consolidation_enabled = 1", "memory_consolidation_enabled"),
        ("memory_consolidation_max_retries = true", "memory_consolidation_max_retries"),
        ("notebook_path = 42", "notebook_path"),
        ("memory_consolidation_min_hours = -1", "memory_consolidation_min_hours"),
        ("memory_consolidation_max_days = 2.5", "memory_consolidation_max_days"),
    ],
)
def test_wrong_type_names_the_key(home: Path, line: str, key: str):
    (home / "config.toml").write_text(line + "\n", encoding="utf-8")
    with pytest.raises(SettingsError) as err:
        load_settings(home, environ={})
    assert key in str(err.value)


def test_bad_environment_value_names_the_variable(home: Path):
    with pytest.raises(SettingsError) as err:
        load_settings(home, environ={"SUZENT_MEMORY_LINT_ENABLED": "maybe"})
    assert "SUZENT_MEMORY_LINT_ENABLED" in str(err.value)


def test_broken_toml_names_the_file(home: Path):
    (home / "config.toml").write_text("memory_consolidation_max_days = \n[[[", encoding="utf-8")
    with pytest.raises(SettingsError) as err:
        load_settings(home, environ={})
    assert str(home / "config.toml") in str(err.value)


def test_non_utf8_config_names_the_file(home: Path):
    (home / "config.toml").write_bytes(b"notebook_path = \"\xff\xfe\"\n")
    with pytest.raises(SettingsError, match="config.toml"):
        load_settings(home, environ={})


def test_config_that_is_a_folder_is_an_error(home: Path):
    (home / "config.toml").mkdir()
    with pytest.raises(SettingsError, match="config.toml"):
        load_settings(home, environ={})


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads unreadable files")
def test_unreadable_config_names_the_file(home: Path):
    config = home / "config.toml"
    config.write_text("memory_consolidation_max_days = 3\n", encoding="utf-8")
    config.chmod(0)
    try:
        with pytest.raises(SettingsError, match="config.toml"):
            load_settings(home, environ={})
    finally:
        config.chmod(0o644)


def test_save_writes_only_changed_keys_and_round_trips(home: Path):
    changed = Settings().replace(memory_consolidation_max_days=5, notebook_path="/vault")
    path = save_settings(home, changed)
    text = path.read_text(encoding="utf-8")
    assert "memory_consolidation_max_days = 5" in text
    assert "memory_lint_min_days" not in text
    assert load_settings(home, environ={}) == changed


def test_coerce_accepts_ints_for_floats_and_rejects_bools_for_ints():
    assert coerce("memory_consolidation_min_hours", 3, "test") == 3.0
    with pytest.raises(SettingsError, match="memory_consolidation_min_facts"):
        coerce("memory_consolidation_min_facts", True, "test")
    with pytest.raises(SettingsError, match="unknown setting 'nope'"):
        coerce("nope", 1, "test")


@pytest.mark.parametrize(
    "line, key",
    [
        ('memory_consolidation_enabled = "no"', "memory_consolidation_enabled"),
        ('memory_consolidation_min_hours = "24"', "memory_consolidation_min_hours"),
        ('memory_consolidation_max_days = "7"', "memory_consolidation_max_days"),
        ("memory_consolidation_min_hours = true", "memory_consolidation_min_hours"),
    ],
)
def test_types_in_the_file_are_strict_and_the_error_names_file_line_and_key(home: Path, line: str, key: str):
    (home / "config.toml").write_text('# my settings\n\nextraction_model = ""\n' + line + "\n", encoding="utf-8")
    with pytest.raises(SettingsError) as err:
        load_settings(home, environ={})
    assert err.value.file == str(home / "config.toml") and err.value.line == 4 and err.value.key == key
    assert f"config.toml:4: setting '{key}'" in str(err.value)


def test_broken_toml_error_carries_its_line(home: Path):
    (home / "config.toml").write_text("memory_lint_enabled = true\nmemory_lint_min_days = \n", encoding="utf-8")
    with pytest.raises(SettingsError) as err:
        load_settings(home, environ={})
    assert err.value.file == str(home / "config.toml") and err.value.line == 2


def test_unknown_suzent_variables_are_reported_with_a_suggestion():
    from suzent_desktop.settings import unknown_environment

    env = {"SUZENT_MEMORY_CONSOLIDATION_ENABLE": "0", "SUZENT_HOME": "/h", "SUZENT_TODAY": "2026-01-01",
           "SUZENT_LLM_TIMEOUT_SECONDS": "30", "PATH": "/bin"}
    warnings = unknown_environment(env)
    assert len(warnings) == 1
    assert "SUZENT_MEMORY_CONSOLIDATION_ENABLE " in warnings[0]
    assert "did you mean SUZENT_MEMORY_CONSOLIDATION_ENABLED" in warnings[0]


def test_llm_timeout_has_a_default_and_is_read_from_the_environment(home: Path):
    assert load_settings(home, environ={}).llm_timeout_seconds == 60.0
    assert load_settings(home, environ={"SUZENT_LLM_TIMEOUT_SECONDS": "5"}).llm_timeout_seconds == 5.0
@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_non_finite_numbers_are_refused_in_the_file_and_the_environment(home: Path, value: str):
    (home / "config.toml").write_text(f"memory_consolidation_timeout_seconds = {value}\n", encoding="utf-8")
    with pytest.raises(SettingsError, match="memory_consolidation_timeout_seconds.*finite"):
        load_settings(home, environ={})
    (home / "config.toml").unlink()
    with pytest.raises(SettingsError, match="finite"):
        load_settings(home, environ={"SUZENT_MEMORY_CONSOLIDATION_MIN_HOURS": value})


@pytest.mark.parametrize("value", ["0", "0.0", "-5"])
def test_a_timeout_must_be_more_than_zero(home: Path, value: str):
    (home / "config.toml").write_text(f"memory_consolidation_timeout_seconds = {value}\n", encoding="utf-8")
    with pytest.raises(SettingsError, match="memory_consolidation_timeout_seconds"):
        load_settings(home, environ={})
