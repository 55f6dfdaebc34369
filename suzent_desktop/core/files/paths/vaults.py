"""Folders opened as vaults: the home each one gets, and the list of recently opened vaults.

A folder of notes (an Obsidian vault, say) is opened without putting the app's home into it:
its home (settings, daily logs, the search index) is a folder of its own in the user-data
folder, named after the vault, whose ``config.toml`` points ``notebook_path`` at the vault.
Inside the vault the app adds only the hidden ``.state/`` and, once it writes a page, its one
folder (``app_folder``, see :func:`suzent_desktop.core.files.paths.layout.app_dir_for`). A folder that is
itself a home (it has ``config.toml``, or ``notebook/`` and ``memory/``) opens as that home.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from suzent_desktop.core.files.disk.atomic import atomic_write_text
from suzent_desktop.core.files.disk.text_hygiene import loads_json
from suzent_desktop.core.files.paths.config_record import foreign_path_settings, record_written
from suzent_desktop.settings import (  # the settings ``open`` never adopts unless the app wrote them
    CONFIG_NAME,
)

RECENT_FILE = "recent.json"
WRITTEN_FILE = "configs-written.json"
MAX_RECENT = 10


class VaultError(ValueError):
    """The folder cannot be opened as a vault; the message names it."""


def vaults_dir() -> Path:
    """Where the homes of opened vaults and the recent list live (beside the default home)."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("suzent-desktop-vaults", appauthor=False))


def is_home(folder: Path) -> bool:
    """A home the app made: settings, or both a notebook and a memory folder."""
    return (folder / CONFIG_NAME).is_file() or ((folder / "notebook").is_dir() and (folder / "memory").is_dir())


def vault_home(vault: Path) -> Path:
    """The home of ``vault`` (made, with its config.toml, the first time)."""
    vault = vault.expanduser().resolve()
    if not vault.is_dir():
        raise VaultError(f"{vault}: there is no folder here to open as a vault")
    slug = re.sub(r"[^\w.-]+", "-", vault.name).strip("-.") or "vault"
    digest = hashlib.sha256(str(vault).encode("utf-8")).hexdigest()[:8]
    home = vaults_dir() / f"{slug}-{digest}"
    config = home / CONFIG_NAME
    if not config.is_file():
        import tomli_w

        atomic_write_text(config, tomli_w.dumps({"notebook_path": str(vault)}))
        record_written(config)
    return home


def home_for(folder: Path) -> Path:
    """The home to open for ``folder``: the folder itself when it is a home, else its vault home."""
    folder = folder.expanduser()
    if folder.is_dir() and is_home(folder):
        return folder.resolve()
    return vault_home(folder)


@dataclass(frozen=True)
class RecentVault:
    vault: Path
    home: Path
    opened: str  # ISO time


class RecentVaults:
    """The most recently opened vaults, newest first (at most :data:`MAX_RECENT`)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.file = (folder or vaults_dir()) / RECENT_FILE

    def entries(self) -> list[RecentVault]:
        """Recent vaults whose folder still exists."""
        try:
            raw = loads_json(self.file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        found = []
        for item in raw if isinstance(raw, list) else []:
            try:
                entry = RecentVault(Path(item["vault"]), Path(item["home"]), str(item.get("opened", "")))
            except (KeyError, TypeError):
                continue
            if entry.vault.is_dir():
                found.append(entry)
        return found

    def add(self, vault: Path, home: Path) -> None:
        vault = vault.expanduser().resolve()
        now = dt.datetime.now().astimezone().isoformat(timespec="seconds")
        kept = [e for e in self.entries() if e.vault != vault]
        entries = [RecentVault(vault, home, now), *kept][:MAX_RECENT]
        atomic_write_text(self.file, json.dumps(
            [{"vault": str(e.vault), "home": str(e.home), "opened": e.opened} for e in entries], indent=1) + "\n")


def untrusted_config(folder: Path) -> str | None:
    """Why ``folder`` may not be opened as it is (a home whose config.toml sets paths this app did not
    write: ``core/files/paths/config_record.py``), in words for the person; None when it may."""
    folder = folder.expanduser()
    if not (folder.is_dir() and is_home(folder)):
        return None
    foreign = foreign_path_settings(folder / CONFIG_NAME)
    if not foreign:
        return None
    settings = ", ".join(f"{key} = {value!r}" for key, value in foreign.items())
    return (f"{folder / CONFIG_NAME}: sets {settings}, and this app did not write that file. A folder "
            "copied or cloned from elsewhere could point the app at any folder, so it is not opened. "
            "Remove those settings to open it as it is, or, if you trust the file, start the app on it "
            f"with: suzent-desktop --home {str(folder)!r} gui")


def open_folder(folder: Path) -> Path:
    """Resolve ``folder`` to its home and record it as recently opened; VaultError when it is no folder,
    or when it is a home whose config.toml sets paths this app did not write (:func:`untrusted_config`)."""
    folder = folder.expanduser()
    if not folder.is_dir():
        raise VaultError(f"{folder}: there is no folder here to open as a vault")
    refusal = untrusted_config(folder)
    if refusal is not None:
        raise VaultError(refusal)
    home = home_for(folder)
    vault = folder if not is_home(folder) else _vault_of(home)
    RecentVaults().add(vault, home)
    return home


def _vault_of(home: Path) -> Path:
    from suzent_desktop.core.files.paths.layout import Layout
    from suzent_desktop.settings import load_settings

    return Layout.from_settings(home, load_settings(home)).notebook_dir
