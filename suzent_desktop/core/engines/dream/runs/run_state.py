"""The dream runner's own bookkeeping in ``.state/``: attempt times, retry counts and run
history, one file per device (a file every device wrote got sync-conflict copies), read back
merged so nothing a restart or a sync brings is lost."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from suzent_desktop.core.files.disk.atomic import atomic_write_text
from suzent_desktop.core.files.disk.text_hygiene import loads_json
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.sync import streams

STATE_VERSION = 1
STATE_BASE = "dream_state"  # .state/dream_state.json, or dream_state@ID.json for a device not the home's first
HISTORY_KEEP = 200


def _empty_state() -> dict[str, Any]:
    return {"version": STATE_VERSION, "last_attempt": None, "last_success": None, "retries": {}, "history": []}


def load_state(path: Path) -> dict[str, Any]:
    """The runner's state; a missing or unreadable file starts fresh (it is only bookkeeping)."""
    try:
        data = loads_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return _empty_state()
    if not isinstance(data, dict):
        return _empty_state()
    state = _empty_state()
    state.update({k: v for k, v in data.items() if k in state or k in ("last_lint_attempt", "device")})
    if not isinstance(state["retries"], dict):
        state["retries"] = {}
    if not isinstance(state["history"], list):
        state["history"] = []
    return state


def save_state(path: Path, state: dict[str, Any]) -> None:
    state["history"] = state["history"][-HISTORY_KEEP:]
    atomic_write_text(path, json.dumps(state, ensure_ascii=False, indent=1) + "\n")


def _merge_states(states: list[dict[str, Any]]) -> dict[str, Any]:
    """One state from several files of it: the latest times, the highest retry count of each
    batch, every history record once, in time order."""
    merged = _empty_state()
    for state in states:
        for key in ("last_attempt", "last_success", "last_lint_attempt"):
            value = state.get(key)
            if isinstance(value, int | float) and not (isinstance(merged.get(key), int | float) and merged[key] >= value):
                merged[key] = value
        for batch, tries in state["retries"].items():
            if isinstance(tries, int) and tries > int(merged["retries"].get(batch, 0)):
                merged["retries"][batch] = tries
        merged["history"] += state["history"]
    unique = {json.dumps(r, sort_keys=True, ensure_ascii=False): r for r in merged["history"] if isinstance(r, dict)}
    merged["history"] = sorted(unique.values(), key=lambda r: r["ts"] if isinstance(r.get("ts"), int | float) else 0.0)
    return merged


def _state_parts(layout: Layout, devices: set[str | None] | None = None) -> list[streams.Part]:
    """The files of the runner's state in ``.state/`` (of ``devices`` only: None is the plain name)."""
    found = streams.parts(layout.state_dir, ".json", base=STATE_BASE)
    return [part for part in found if devices is None or part.device in devices]


def load_device_state(layout: Layout) -> dict[str, Any]:
    """This device's state, ``.state/dream_state.json`` for the home's first device and
    ``dream_state@ID.json`` for any other, with the conflict copies a sync tool left of it.

    Each device writes only its own file (one file that every device wrote got conflict
    copies). A device with no file of its own yet starts from the shared ``dream_state.json``
    an earlier version wrote, and its copies, so no retry count or attempt time is lost.
    Reading writes nothing; :func:`save_device_state` removes the copies it folded in.
    """
    mine = layout.device if layout.device_suffix else None
    migrating = not layout.runner_state_file.exists()
    read = [(part, load_state(part.path)) for part in _state_parts(layout, {mine, None} if migrating else {mine})]
    # A file this version wrote names its device: another device's is not this one's to take over.
    kept = [(part, state) for part, state in read if part.device == mine or state.get("device") is None]
    state = _merge_states([state for _part, state in kept])
    state["_folded"] = [str(part.path) for part, _state in kept if part.conflict and part.device == mine]
    return state


def save_device_state(layout: Layout, state: dict[str, Any]) -> None:
    """Write this device's state; the conflict copies of its file that were read into it go."""
    folded = state.pop("_folded", [])
    save_state(layout.runner_state_file, {**state, "device": layout.device})
    for copy in folded:
        Path(copy).unlink(missing_ok=True)


def home_history(layout: Layout) -> list[dict[str, Any]]:
    """Every device's run records, oldest first (a record two files hold is listed once)."""
    return _merge_states([load_state(part.path) for part in _state_parts(layout)])["history"]
