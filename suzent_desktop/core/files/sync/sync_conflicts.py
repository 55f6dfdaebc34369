"""Files a sync tool left beside another one when two devices changed it at once.

A home carried between devices by a file-sync tool gets *conflict copies* when the same file
changed on two sides before they met. Each tool names them its own way:

* Syncthing: ``Work.sync-conflict-20261205-142233-7ZXQ3RT.md``;
* rclone bisync: ``Work.md.conflict1`` (``--conflict-suffix``, default ``conflict``, then a number);
* Dropbox: ``Work (Laptop's conflicted copy 2026-12-05).md``;
* Nextcloud: ``Work (conflicted copy 2026-12-05 142233).md``.

git leaves its conflicts inside the file instead, as ``<<<<<<<`` / ``=======`` / ``>>>>>>>``
marker lines. This module only *recognises* them; what a copy means is decided by its kind:
a copy of a daily log, a transcript or a ``.state`` stream is one more part of that stream
(its lines are facts, merged by the readers in ``core/files/sync/streams.py``), a copy of a page is listed
by ``doctor`` and the window for the user to compare and resolve.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from suzent_desktop.core.files.disk.regular import read_regular

SYNCTHING, RCLONE, DROPBOX, NEXTCLOUD, GIT = "Syncthing", "rclone", "Dropbox", "Nextcloud", "git"

_SYNCTHING_RE = re.compile(r"^(?P<stem>.+?)\.sync-conflict-\d{8}-\d{6}-[A-Za-z0-9]{7}(?P<ext>\.[^.]+)?$")
_RCLONE_RE = re.compile(r"^(?P<name>.+?)\.conflict\d+(?P<ext>\.[^.]+)?$")
_DROPBOX_RE = re.compile(r"^(?P<stem>.+?) \((?P<who>[^()]*?'s )?conflicted copy(?: [^()]*)?\)(?P<ext>\.[^.]+)?$",
                         re.IGNORECASE)
_GIT_START, _GIT_MIDDLE, _GIT_END = "<<<<<<< ", "=======", ">>>>>>> "
_FENCE_RE = re.compile(r"^\s{0,3}(```|~~~)")


@dataclass(frozen=True)
class ConflictCopy:
    """A conflict copy (or a page holding git's markers) and the file it belongs to."""

    path: Path
    original: Path  # for git markers: the page itself
    tool: str

    @property
    def kind(self) -> str:
        """``markers`` for a page with git's conflict markers, else ``copy``."""
        return "markers" if self.tool == GIT else "copy"


def original_name(name: str) -> tuple[str, str] | None:
    """(the name the copy stands for, the tool that made it), or None for an ordinary name."""
    match = _SYNCTHING_RE.match(name)
    if match:
        return match.group("stem") + (match.group("ext") or ""), SYNCTHING
    match = _DROPBOX_RE.match(name)
    if match:
        return match.group("stem") + (match.group("ext") or ""), DROPBOX if match.group("who") else NEXTCLOUD
    match = _RCLONE_RE.match(name)
    if match:
        return match.group("name") + (match.group("ext") or ""), RCLONE
    return None


def page_name(name: str) -> str:
    """The name a file counts as for its kind: a conflict copy of ``Work.md`` counts as a
    markdown page (``Work.md.conflict1`` too), so its text stays searchable until resolved."""
    if ".conflict" not in name and "onflicted copy" not in name:
        return name
    known = original_name(name)
    return known[0] if known is not None else name


def is_conflict_copy(name: str) -> bool:
    return original_name(name) is not None


def has_git_markers(text: str) -> bool:
    """True when a page holds a whole git conflict (start, middle and end marker lines, in order,
    outside fenced code, where a tutorial may quote them)."""
    stage = 0
    fenced = False
    for line in text.splitlines():
        if _FENCE_RE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        if stage == 0 and line.startswith(_GIT_START):
            stage = 1
        elif stage == 1 and line.rstrip() == _GIT_MIDDLE:
            stage = 2
        elif stage == 2 and line.startswith(_GIT_END):
            return True
    return False


def _walk(root: Path) -> Iterator[Path]:
    """Every file under ``root``, hidden folders included (``.state`` streams have copies too),
    except the index, the trash and version-control folders. Read from the disk: the vault model
    holds neither hidden folders nor the memory folder (:func:`conflicts_among` takes the rest
    from the model where a watcher keeps one current), and doctor runs without one."""
    if not root.is_dir():
        return
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in (".git", ".trash", ".suzent", ".stversions", ".obsidian")]
        for name in files:
            yield Path(folder) / name


def conflicts_among(files: Iterable[Path], text_of: Callable[[Path], str | None]) -> list[ConflictCopy]:
    """:func:`find_conflicts` over files already listed (the vault model's): conflict copies by name,
    and the markdown pages whose text (``text_of``, read from the disk when it gives None) holds git markers."""
    found: list[ConflictCopy] = []
    for path in files:
        known = original_name(path.name)
        if known is not None:
            found.append(ConflictCopy(path, path.with_name(known[0]), known[1]))
        elif path.suffix.lower() == ".md":
            text = text_of(path)
            if text is None:
                try:
                    text = read_regular(path).decode("utf-8", errors="replace")
                except OSError:
                    continue
            if _GIT_START in text and has_git_markers(text):
                found.append(ConflictCopy(path, path, GIT))
    return found


def find_conflicts(roots: list[Path], *, markers_in: Path | None = None) -> list[ConflictCopy]:
    """Conflict copies under ``roots``, and the markdown pages under ``markers_in`` holding git markers."""
    found: dict[Path, ConflictCopy] = {}
    for root in roots:
        for path in _walk(root):
            known = original_name(path.name)
            if known is not None:
                found[path] = ConflictCopy(path, path.with_name(known[0]), known[1])
    if markers_in is not None:
        for path in _walk(markers_in):
            if path in found or path.suffix.lower() != ".md" or any(
                part.startswith(".") for part in path.relative_to(markers_in).parts
            ):
                continue
            try:
                text = read_regular(path).decode("utf-8", errors="replace")
            except OSError:
                continue
            if _GIT_START in text and has_git_markers(text):
                found[path] = ConflictCopy(path, path, GIT)
    return sorted(found.values(), key=lambda c: str(c.path))
