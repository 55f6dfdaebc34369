"""Which device this is, and which devices write into a home.

A home can be carried between devices by any file-sync tool. Two installs appending to the
same file would leave the sync tool to pick one side, so every append-only stream is
written per device (``core/files/sync/streams.py``): the home's first device keeps the plain names
(``archive/2026-12-05.md``), every other device writes ``archive/2026-12-05@ID.md``.

* **The device id** lives in local configuration, never in the synced home: the file
  ``device.toml`` in the platform's user-config folder (``~/.config/suzent-desktop`` on Linux;
  ``$SUZENT_LOCAL_CONFIG`` names another file), created on first use from the host name and the
  machine's id. ``$SUZENT_DEVICE`` overrides it (two installs on one machine, a test).
* **The registry** is ``.state/devices/ID.json`` in the vault, one file per device, each written
  only by its own device (so a sync tool never has two sides of it). The device that found no
  registry claims the plain names; if two devices did so before they first synced, the one
  that registered first (then the smaller id) keeps them and the other switches to ``@ID``
  names (the files both wrote meanwhile are conflict copies, which the readers merge).

Opening an existing home registers its first device and changes nothing else: no file is
renamed, so an earlier version still opens the home (it reads only the plain names).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
import secrets
import socket
import tomllib
import uuid
from dataclasses import dataclass
from pathlib import Path

from suzent_desktop.core.files.disk.atomic import atomic_write_text
from suzent_desktop.core.files.disk.text_hygiene import loads_json

DEVICE_ENV = "SUZENT_DEVICE"
LOCAL_CONFIG_ENV = "SUZENT_LOCAL_CONFIG"
REGISTRY_DIR = "devices"
_ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
_JUNK_RE = re.compile(r"[^a-z0-9-]+")


class DeviceError(ValueError):
    """A device id (in the environment or the local config) cannot be used; the message says where."""


def local_config_path() -> Path:
    """The per-machine config file (never inside a home, so a sync tool never carries it)."""
    env = os.environ.get(LOCAL_CONFIG_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    from platformdirs import user_config_dir

    return Path(user_config_dir("suzent-desktop", appauthor=False)) / "device.toml"


def valid_id(value: str) -> bool:
    return bool(_ID_RE.match(value))


def new_id(host: str | None = None) -> str:
    """``host-1a2b``: readable in a file name, unique enough between one person's devices.

    The tail comes from the machine's id, so every install and process on one machine (the app,
    the command line, an MCP server, whichever config file it reads) is the same device.
    """
    base = _JUNK_RE.sub("-", (host if host is not None else socket.gethostname()).lower()).strip("-")[:24]
    return f"{base or 'device'}-{_machine_tail()}"


def _machine_tail() -> str:
    for source in ("/etc/machine-id", "/var/lib/dbus/machine-id"):
        try:
            text = Path(source).read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            continue
        if text:
            return hashlib.sha256(text.encode()).hexdigest()[:4]
    node = uuid.getnode()  # a random number when the machine has no hardware address to give
    return hashlib.sha256(str(node).encode()).hexdigest()[:4] if not node & (1 << 40) else secrets.token_hex(2)


def device_id() -> str:
    """This device's id: ``$SUZENT_DEVICE``, else the local config file's, else a new one saved there."""
    env = os.environ.get(DEVICE_ENV, "").strip()
    if env:
        if not valid_id(env):
            raise DeviceError(f"{DEVICE_ENV}={env!r}: a device id is lower-case letters, digits and '-' "
                              "(at most 40), starting with a letter or digit")
        return env
    path = local_config_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        data = {}
    except (OSError, ValueError, RecursionError) as exc:  # RecursionError: arrays nested thousands deep
        why = "nested too deeply" if isinstance(exc, RecursionError) else exc
        raise DeviceError(f"{path}: cannot be read ({why}); fix or delete it (a new device id is then made)") from None
    value = data.get("device")
    if isinstance(value, str) and valid_id(value):
        return value
    if value is not None:
        raise DeviceError(f"{path}: device = {value!r} is not a device id (lower-case letters, digits and '-')")
    made = new_id()
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, f'# This machine\'s id in every home it opens (see "Use it on several devices").\n'
                            f'device = "{made}"\n')
    return made


@dataclass(frozen=True)
class Device:
    id: str
    first_seen: str  # ISO time this device registered in the home
    plain_names: bool  # claimed the home's plain file names when it registered

    @property
    def order(self) -> tuple[str, str]:
        return self.first_seen, self.id


def registry(state_dir: Path) -> list[Device]:
    """Every registered device, as its own file says (unreadable files are skipped: a half-synced one)."""
    folder = state_dir / REGISTRY_DIR
    found: list[Device] = []
    if not folder.is_dir():
        return found
    for entry in sorted(folder.glob("*.json")):
        try:
            data = loads_json(entry.read_text(encoding="utf-8"))
            device = Device(str(data["device"]), str(data["first_seen"]), bool(data.get("plain_names")))
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if valid_id(device.id) and entry.stem == device.id:
            found.append(device)
    return found


def plain_owner(devices: list[Device]) -> str | None:
    """The device that keeps the plain names: the first to claim them."""
    claims = sorted((d for d in devices if d.plain_names), key=lambda d: d.order)
    return claims[0].id if claims else None


def register(state_dir: Path, device: str, *, write: bool = True) -> bool:
    """Register ``device`` in the home (once) and say whether it writes the plain names.

    With ``write=False`` (a read-only open) nothing is written: an unregistered device then
    writes nothing anyway, and it reads as the plain names' owner only in a home nobody registered.
    """
    devices = registry(state_dir)
    if not any(d.id == device for d in devices):
        mine = Device(device, dt.datetime.now(dt.UTC).isoformat(timespec="microseconds"), not devices)
        if write and state_dir.is_dir():
            folder = state_dir / REGISTRY_DIR
            folder.mkdir(exist_ok=True)
            record = {"device": mine.id, "first_seen": mine.first_seen, "plain_names": mine.plain_names,
                      "host": socket.gethostname()}
            atomic_write_text(folder / f"{device}.json", json.dumps(record, indent=1) + "\n")
        devices.append(mine)
    owner = plain_owner(devices)
    return owner is None or owner == device
