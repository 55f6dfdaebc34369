"""MEMORY.md changes a person approves before the agent reads them.

MEMORY.md is what an agent is told on every turn. With ``memory_md_needs_approval = true``,
promotion writes its new version to ``.state/MEMORY.proposed.md`` instead: a hidden file the
index, search, MCP and the agent's context never read. MEMORY.md stays the approved version
until the person accepts the proposal (the Review pane, or ``review --accept-memory``), which
puts the proposal in its place in one atomic write. A proposal that matches MEMORY.md again is
no proposal. Turning the setting off leaves a waiting proposal where it is, to be accepted or not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from suzent_desktop.core.files.disk.atomic import atomic_write_text
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.settings import Settings


class Approving(Protocol):
    """What a MEMORY.md write looks at: the home's layout and whether a person approves first."""

    @property
    def settings(self) -> Settings: ...
    @property
    def layout(self) -> Layout: ...

PROPOSED_NAME = "MEMORY.proposed.md"


def proposed_path(layout: Layout) -> Path:
    return layout.state_dir / PROPOSED_NAME


def _read(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return None


def proposal(layout: Layout) -> str | None:
    """The MEMORY.md waiting for approval, or None."""
    return _read(proposed_path(layout))


def working_path(home: Approving) -> Path:
    """The MEMORY.md promotion builds on: the waiting proposal when approval is on and one waits."""
    proposed = proposed_path(home.layout)
    if home.settings.memory_md_needs_approval and proposed.is_file():
        return proposed
    return home.layout.memory_md


def write(home: Approving, text: str) -> bool:
    """Write promotion's new MEMORY.md where it belongs; True when the approved MEMORY.md changed."""
    if not home.settings.memory_md_needs_approval:
        atomic_write_text(home.layout.memory_md, text)
        return True
    proposed = proposed_path(home.layout)
    if text == _read(home.layout.memory_md):
        proposed.unlink(missing_ok=True)  # nothing left to approve
    else:
        proposed.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(proposed, text)
    return False


def accept(layout: Layout) -> bool:
    """Put the proposal in MEMORY.md's place; False when none waits."""
    text = proposal(layout)
    if text is None:
        return False
    atomic_write_text(layout.memory_md, text)
    proposed_path(layout).unlink(missing_ok=True)
    return True


def reject(layout: Layout) -> bool:
    """Drop the proposal (the next promotion proposes again); False when none waits."""
    path = proposed_path(layout)
    if not path.is_file():
        return False
    path.unlink()
    return True
