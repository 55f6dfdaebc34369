"""The one typed settings object, read in one place.

Sources, later ones winning: the defaults below, ``config.toml`` in the home, then
``SUZENT_<KEY>`` environment variables. Anything a user could mistype (an unknown key,
a wrong type, a broken TOML file) raises :class:`SettingsError` naming the file, line and
key, because a silently ignored setting is worse than a refusal to start. Types are strict
in the file (``"no"`` is not a bool, ``"24"`` is not a number: TOML has real booleans and
numbers); only environment variables, which are always text, are parsed. A ``SUZENT_*``
variable that names no setting is reported by :func:`unknown_environment`.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import os
import re
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import tomli_w

from suzent_desktop.core.files.paths.config_record import PATH_KEYS, record_written

CONFIG_NAME = "config.toml"


# SUZENT_* variables that are not settings keys but are read elsewhere (never warned about).
OTHER_ENVIRONMENT = frozenset({"SUZENT_HOME", "SUZENT_DEBUG", "SUZENT_TODAY", "SUZENT_QUIT_AFTER_START", "SUZENT_CRASH_AT",
                               "SUZENT_DEVICE", "SUZENT_LOCAL_CONFIG", "SUZENT_MODEL_DIR"})


class SettingsError(ValueError):
    """A setting is unknown, of the wrong type, or the config file cannot be read.

    ``file``, ``line`` and ``key`` locate the fault when it is known (None otherwise), so the
    command line can answer ``--json`` with them and the window can offer to open the file.
    """

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 key: str | None = None) -> None:
        super().__init__(message)
        self.file = file
        self.line = line
        self.key = key


@dataclass(frozen=True)
class Settings:
    """Every user-tunable knob. Empty model strings mean the built-in offline engine."""

    notebook_path: str = ""
    # In a vault that already holds notes, the app's zones and navigation files live in this one folder.
    app_folder: str = "Memory"
    memory_path: str = ""
    index_path: str = ""
    extraction_model: str = ""
    embedding_model: str = ""
    # Threads of the bundled model while the window is up; 0: one fewer than the cores (at least 1).
    window_embedding_threads: int = 0
    memory_keep_transcripts: bool = True
    memory_consolidation_enabled: bool = True
    memory_consolidation_interval_seconds: int = 1800
    memory_consolidation_min_hours: float = 24.0
    memory_consolidation_min_facts: int = 20
    memory_consolidation_max_days: int = 14
    memory_consolidation_max_retries: int = 3
    memory_consolidation_timeout_seconds: float = 600.0
    memory_consolidation_model: str = ""
    memory_consolidation_max_write_kb: int = 256
    # One dream at a time across devices (core/engines/dream/runs/lease.py): how long a lease lasts unless renewed,
    # and how long a device waits after taking one for the sync tool to show a rival's.
    memory_consolidation_lease_seconds: float = 300.0
    memory_consolidation_lease_settle_seconds: float = 10.0
    memory_lint_enabled: bool = True
    memory_lint_min_days: int = 7
    memory_md_max_lines: int = 60
    memory_md_max_chars: int = 4000
    # Promotion proposes MEMORY.md changes; the agent reads the approved file until they are accepted.
    memory_md_needs_approval: bool = False
    mcp_allow_maintenance: bool = False
    # Extra Host / Origin values the HTTP server accepts (space-separated), for a reverse proxy's name.
    mcp_allowed_hosts: str = ""
    mcp_allowed_origins: str = ""
    llm_timeout_seconds: float = 60.0
    # The app's own index/log/schema names when the vault root already holds the user's own
    # index.md / log.md / schema.md (files without the app's marker are never written).
    alt_index_name: str = "suzent-index.md"
    alt_log_name: str = "suzent-log.md"
    alt_schema_name: str = "suzent-schema.md"
    theme: str = "system"  # the window's colours: "system" follows the platform, else "light" or "dark"
    # Folders outside the vault that links may lead into (separated like $PATH); none by default.
    outside_link_targets: str = ""
    editor_mode: str = "live"  # how pages open for editing: "live" (Live Preview) or "source"

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)


def field_types() -> dict[str, type]:
    """Key → Python type, for validation and for the settings dialog."""
    hints = {"str": str, "bool": bool, "int": int, "float": float}
    return {f.name: hints[f.type] if isinstance(f.type, str) else f.type for f in fields(Settings)}


def coerce(key: str, value: Any, source: str, *, parse_text: bool = False, file: str | None = None,
           line: int | None = None) -> Any:
    """Check one value against its key's type. Only ``parse_text`` sources (environment
    variables, which are always text) have strings parsed into bools and numbers."""
    types = field_types()
    where: dict[str, Any] = {"file": file, "line": line, "key": key}
    if key not in types:
        raise SettingsError(f"{source}: unknown setting '{key}' (known: {', '.join(sorted(types))})", **where)
    want: Any = types[key]  # a type known only at run time: the checks below are on the value
    if isinstance(value, str) and want is not str and parse_text:
        value = _parse_env_value(key, value, want, source)
    if want is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if want is int and isinstance(value, bool) or want is float and isinstance(value, bool) \
            or not isinstance(value, want):
        hint = " (write it without quotes)" if isinstance(value, str) and want in (bool, int, float) else ""
        raise SettingsError(
            f"{source}: setting '{key}' must be {want.__name__}, got {type(value).__name__} {value!r}{hint}", **where
        )
    if want is float and not math.isfinite(value):  # nan would disable every comparison made with it
        raise SettingsError(f"{source}: setting '{key}' must be a finite number, got {value!r}", **where)
    if want in (int, float) and value < 0:
        raise SettingsError(f"{source}: setting '{key}' must not be negative, got {value!r}", **where)
    if key in _MUST_BE_POSITIVE and value <= 0:  # a dream always has a time limit
        raise SettingsError(f"{source}: setting '{key}' must be more than 0 seconds, got {value!r}", **where)
    if key in CHOICES and value not in CHOICES[key]:
        raise SettingsError(f"{source}: setting '{key}' must be one of {', '.join(CHOICES[key])}, got {value!r}",
                            **where)
    paths = value.split(os.pathsep) if key == "outside_link_targets" else [value] if key in PATH_KEYS else []
    if fault := next((f for f in map(_path_fault, paths) if f), None):
        raise SettingsError(f"{source}: setting '{key}' {fault}", **where)
    if key == "app_folder" and not _FOLDER_NAME_RE.fullmatch(value):
        raise SettingsError(f"{source}: setting 'app_folder' must be one folder name (no '/', not hidden), "
                            f"got {value!r}", **where)
    if key.startswith("alt_") and key.endswith("_name") and not _ALT_NAME_RE.fullmatch(value):
        raise SettingsError(f"{source}: setting '{key}' must be a file name ending in .md, got {value!r}", **where)
    return value


CHOICES: dict[str, tuple[str, ...]] = {"theme": ("system", "light", "dark"), "editor_mode": ("live", "source")}  # text keys with fixed values

# Values for a small model run on the CPU of this machine (a 1.5B model on two cores reads a dream's
# first prompt in 2-3 minutes): a longer base per call (a local call also gets time per character of
# prompt, core/files/llm_limits.py), an hour per dream, and smaller batches so each prompt stays short.
LOCAL_CPU_PROFILE: dict[str, Any] = {
    "llm_timeout_seconds": 180.0,
    "memory_consolidation_timeout_seconds": 3600.0,
    "memory_consolidation_max_days": 3,
}
# PATH_KEYS, the settings that name folders: each is checked as a path before any folder is made or opened.
_PATH_MAX_BYTES = 4096  # PATH_MAX on Linux; longer paths fail every call that gets them
_NAME_MAX_BYTES = 255  # one folder name, on every common file system


def _path_fault(value: str) -> str | None:
    """What makes ``value`` unusable as a path (None when nothing does), in words that follow the key."""
    if "\x00" in value:
        return "contains a NUL character, which no path can hold"
    if any(ch in value for ch in "\n\r"):
        return "contains a line break; give one path on one line"
    try:
        encoded = os.fsencode(value)
    except UnicodeError:
        return "cannot be written as a file name on this system"
    if len(encoded) > _PATH_MAX_BYTES:
        return f"is {len(encoded)} bytes long, over the {_PATH_MAX_BYTES} a path may have"
    longest = max((len(part) for part in re.split(rb"[/\\]", encoded)), default=0)
    if longest > _NAME_MAX_BYTES:
        return f"has a folder name of {longest} bytes, over the {_NAME_MAX_BYTES} a name may have"
    return None


_MUST_BE_POSITIVE = frozenset({"memory_consolidation_timeout_seconds", "memory_consolidation_lease_seconds"})
_ALT_NAME_RE = re.compile(r"[^/\\\x00]+\.md")
_FOLDER_NAME_RE = re.compile(r"[^./\\\x00][^/\\\x00]*")


def _key_line(text: str, key: str) -> int | None:
    """The 1-based line of ``key = ...`` in a TOML text, for messages that point at it."""
    pattern = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=")
    for number, line in enumerate(text.splitlines(), start=1):
        if pattern.match(line):
            return number
    return None


def unknown_environment(environ: dict[str, str] | None = None) -> list[str]:
    """``SUZENT_*`` variables that name no setting (a misspelt override is otherwise silently ignored)."""
    env = os.environ if environ is None else environ
    known = {f"SUZENT_{key.upper()}" for key in field_types()} | OTHER_ENVIRONMENT
    return sorted(
        f"environment variable {name} is not a setting and is ignored"
        + (f" (did you mean {close[0]}?)" if (close := difflib.get_close_matches(name, known, n=1)) else "")
        for name in env
        if name.upper().startswith("SUZENT_") and name not in known
    )


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
    return _load(home, environ, strict=True)[0]


def load_settings_lenient(home: Path, environ: dict[str, str] | None = None) -> tuple[Settings, list[SettingsError]]:
    """Every setting that can be read, defaults for the rest, and what could not be read.

    For "start with defaults" after a config error: the vault paths and models that are
    fine stay as configured (a default notebook_path would open a different, empty vault);
    only the faulty keys (or, for a file that is not TOML, the whole file) fall back.
    """
    return _load(home, environ, strict=False)


def _load(home: Path, environ: dict[str, str] | None, *, strict: bool) -> tuple[Settings, list[SettingsError]]:
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    errors: list[SettingsError] = []

    def take(key: str, value: Any, source: str, **where: Any) -> None:
        try:
            values[key] = coerce(key, value, source, **where)
        except SettingsError as exc:
            if strict:
                raise
            errors.append(exc)

    try:
        data, text, config = _read_config(home)
    except SettingsError as exc:
        if strict:
            raise
        errors.append(exc)
        data, text, config = {}, "", home / CONFIG_NAME
    for key, value in data.items():
        line = _key_line(text, key)
        take(key, value, f"{config}:{line}" if line else str(config), file=str(config), line=line)
    for key in field_types():
        env_key = f"SUZENT_{key.upper()}"
        if env_key in env:
            take(key, env[env_key], f"environment variable {env_key}", parse_text=True)
    return Settings(**values), errors


def _read_config(home: Path) -> tuple[dict[str, Any], str, Path]:
    """The parsed config.toml (empty when missing), its text and path; SettingsError names file and line."""
    config = home / CONFIG_NAME
    if not config.exists():
        return {}, "", config
    if not config.is_file():
        what = "a folder" if config.is_dir() else "a special file (a FIFO, socket or device)"
        raise SettingsError(f"{config}: the settings file must be a regular file, but it is {what}", file=str(config))
    try:
        text = config.read_bytes().decode("utf-8-sig")
        return tomllib.loads(text), text, config
    except UnicodeDecodeError as exc:
        line = config.read_bytes()[: exc.start].count(b"\n") + 1
        raise SettingsError(f"{config}:{line}: not valid UTF-8 (byte {exc.start})", file=str(config),
                            line=line) from exc
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"line (\d+)", str(exc))
        raise SettingsError(f"{config}: cannot be read as TOML: {exc}", file=str(config),
                            line=int(found.group(1)) if found else None) from exc
    except RecursionError:  # tomllib recurses once per level: 50,000 nested arrays exhaust the stack
        raise SettingsError(f"{config}: cannot be read as TOML: arrays or tables nested too deeply",
                            file=str(config)) from None
    except OSError as exc:
        raise SettingsError(f"{config}: cannot be read: {exc.strerror or exc}", file=str(config)) from exc


def save_settings(home: Path, settings: Settings, *, since: Settings | None = None) -> Path:
    """Write config.toml atomically.

    With ``since`` (the settings the person started editing from), only the keys that differ
    from it are written, into the file as it stands: a key the file already held stays as
    written, and a value that came from an environment variable is not copied into the file.
    Without it, the keys that differ from the defaults are written (a small, readable file).
    """
    from suzent_desktop.core.files.disk.atomic import atomic_write_text

    if since is None:
        base: dict[str, Any] = {}
        reference = Settings()
    else:
        base = dict(_read_config(home)[0])
        reference = since
    data = base | {
        f.name: getattr(settings, f.name)
        for f in fields(Settings)
        if getattr(settings, f.name) != getattr(reference, f.name)
    }
    path = home / CONFIG_NAME
    atomic_write_text(path, tomli_w.dumps(data))
    record_written(path)  # the app wrote these paths: ``open`` may adopt them (core/files/paths/config_record.py)
    return path
