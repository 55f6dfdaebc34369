"""Which path settings of a home's config.toml this app wrote, recorded on this machine.

``open FOLDER`` opens what it finds on disk: a clone, a download, a synced copy. A config.toml
in it saying ``notebook_path = "/elsewhere"`` once made the app index that folder, serve it
over MCP and write ``.state/`` into it. So ``open`` adopts a home's path settings only when
this app wrote them here: every time the app writes a config.toml (the first home of a vault,
a change saved in the settings dialog) it records the file's path settings in a file beside
the per-machine config (``device.toml``), outside every home, where no sync tool or clone can
bring a record of its own. Settings that are not paths (models, intervals) are adopted as
before, and ``--home FOLDER`` still opens a home exactly as it says.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from suzent_desktop.core.files.disk.atomic import atomic_write_text
from suzent_desktop.core.files.disk.text_hygiene import loads_json
from suzent_desktop.core.files.sync.devices import local_config_path

WRITTEN_FILE = "configs-written.json"
# Settings that point the app at folders (each is also checked as a path when read).
PATH_KEYS = ("notebook_path", "memory_path", "index_path", "outside_link_targets")


def _record_file() -> Path:
    return local_config_path().parent / WRITTEN_FILE


def path_settings(config: Path) -> dict[str, str]:
    """The path settings ``config`` sets; none when it cannot be read (the settings loader names that)."""
    try:
        data = tomllib.loads(config.read_bytes().decode("utf-8-sig"))
    except (OSError, ValueError, RecursionError):
        return {}
    return {key: value for key in PATH_KEYS if (value := data.get(key))}


def _recorded() -> dict[str, Any]:
    try:
        data = loads_json(_record_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _key(config: Path) -> str:
    return str(config.expanduser().resolve())


def record_written(config: Path) -> None:
    """The app has just written ``config``: its path settings are the app's own."""
    record = _recorded()
    record[_key(config)] = path_settings(config)
    atomic_write_text(_record_file(), json.dumps(record, indent=1, sort_keys=True) + "\n")


def foreign_path_settings(config: Path) -> dict[str, str]:
    """The path settings ``config`` sets that this app did not write on this machine (empty when none)."""
    found = path_settings(config)
    if not found or _recorded().get(_key(config)) == found:
        return {}
    return found
