"""The one typed settings object, read in one place.

Sources, later ones winning: the defaults below, ``config.toml`` in the home, then
``SUZENT_<KEY>`` environment variables. Anything a user could mistype (an unknown key,
a wrong type, a broken TOML file) raises :class:`SettingsError` naming the file and key,
because a silently ignored setting is worse than a refusal to start.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import tomli_w

CONFIG_NAME = "config.toml"


class SettingsError(ValueError):
    """A setting is unknown, of the wrong type, or the config file cannot be read."""


@dataclass(frozen=True)
class Settings:
    """Every user-tunable knob. Empty model strings mean the built-in offline engine."""

    notebook_path: str = ""
    memory_path: str = ""
    index_path: str = ""
    extraction_model: str = ""
    embedding_model: str = ""
    memory_consolidation_enabled: bool = True
    memory_consolidation_interval_seconds: int = 1800
    memory_consolidation_min_hours: float = 24.0
    memory_consolidation_min_facts: int = 20
    memory_consolidation_max_days: int = 14
    memory_consolidation_max_retries: int = 3
    memory_consolidation_timeout_seconds: float = 600.0
    memory_consolidation_model: str = ""
    memory_lint_enabled: bool = True
    memory_lint_min_days: int = 7
    memory_md_max_lines: int = 60
    memory_md_max_chars: int = 4000
    mcp_allow_maintenance: bool = False

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)


def field_types() -> dict[str, type]:
    """Key → Python type, for validation and for the settings dialog."""
    hints = {"str": str, "bool": bool, "int": int, "float": float}
    return {f.name: hints[f.type] if isinstance(f.type, str) else f.type for f in fields(Settings)}


def coerce(key: str, value: Any, source: str) -> Any:
    """Check one value against its key's type; strings from the environment are parsed."""
    types = field_types()
    if key not in types:
        raise SettingsError(f"{source}: unknown setting '{key}' (known: {', '.join(sorted(types))})")
    want = types[key]
    if isinstance(value, str) and want is not str:
        value = _parse_env_value(key, value, want, source)
    if want is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if want is int and isinstance(value, bool) or not isinstance(value, want):
        raise SettingsError(
            f"{source}: setting '{key}' must be {want.__name__}, got {type(value).__name__} {value!r}"
        )
    if want in (int, float) and value < 0:
        raise SettingsError(f"{source}: setting '{key}' must not be negative, got {value!r}")
    return value


def _parse_env_value(key: str, raw: str, want: type, source: str) -> Any:
    text = raw.strip()
    try:
        if want is bool:
            lowered = text.lower()
            if lowered in ("1", "true", "yes", "on"):
                return True
            if lowered in ("0", "false", "no", "off"):
                return False
            raise ValueError(raw)
        return want(text)
    except ValueError:
        raise SettingsError(f"{source}: setting '{key}' must be {want.__name__}, got {raw!r}") from None


def load_settings(home: Path, environ: dict[str, str] | None = None) -> Settings:
    """Read ``home/config.toml`` then ``SUZENT_*`` overrides. A missing file is fine."""
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    config = home / CONFIG_NAME
    if config.exists():
        if not config.is_file():
            raise SettingsError(f"{config}: the settings file must be a file, but it is a folder")
        try:
            data = tomllib.loads(config.read_text(encoding="utf-8-sig"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise SettingsError(f"{config}: cannot be read as TOML: {exc}") from exc
        except OSError as exc:
            raise SettingsError(f"{config}: cannot be read: {exc.strerror or exc}") from exc
        for key, value in data.items():
            values[key] = coerce(key, value, str(config))
    known = field_types()
    for key in known:
        env_key = f"SUZENT_{key.upper()}"
        if env_key in env:
            values[key] = coerce(key, env[env_key], f"environment variable {env_key}")
    return Settings(**values)


def save_settings(home: Path, settings: Settings) -> Path:
    """Write the keys that differ from the defaults, atomically, keeping the file small and readable."""
    from suzent_desktop.core.atomic import atomic_write_text

    defaults = Settings()
    data = {
        f.name: getattr(settings, f.name)
        for f in fields(Settings)
        if getattr(settings, f.name) != getattr(defaults, f.name)
    }
    path = home / CONFIG_NAME
    atomic_write_text(path, tomli_w.dumps(data))
    return path
