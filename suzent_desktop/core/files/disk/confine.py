"""Which files of the home may be read, indexed, listed or served: one rule, judged by resolved path.

Every door that reads the vault or the memory folder asks :meth:`Confinement.refusal` (the
indexer's walk and single-file reads, search results and the operator listing, the dream
tools' ``read``/``list``, MCP ``read_page``/``list_pages``/resources, lint, link resolution
for the preview and embeds). The rule:

* a path is spelled under one of the roots (the vault, the memory folder);
* no part of it *as spelled* is hidden (``.state``, ``.trash``, ``.obsidian``, ``.suzent``,
  any name starting with a dot);
* it *resolves* (links followed) inside one of the roots, again with no hidden part there, so
  ``2_Wiki/statelink.md -> ../.state/tombstones.jsonl`` is refused like ``.state/`` itself;
* or it resolves inside a link target the user allowed (setting ``outside_link_targets``),
  with no hidden part below that target. Everything else a link leads to (``/etc/passwd``,
  ``~/.ssh/id_rsa``, the home's ``config.toml``) is not followed;
* a path that cannot be resolved (a symlink loop) is refused, and named, never a crash;
* the walk yields regular files only: a FIFO, socket or device is named and never opened
  (``core/files/disk/regular.py``).

Why by resolved path: the spelled path is what a vault cloned from someone else controls.
The rule is pure string and ``os.path`` work, without Qt, so the window uses it too.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from suzent_desktop.core.files.disk.regular import not_regular_reason, special_kind

OUTSIDE_HINT = "outside_link_targets"
UNREADABLE = "cannot be"  # how the reason for an entry that cannot be read, resolved or listed starts


def _inside(path: str, root: str) -> str | None:
    """``path`` relative to ``root`` ('' for the root itself), or None when it is not inside."""
    if path == root:
        return ""
    prefix = root if root.endswith(os.sep) else root + os.sep
    return path[len(prefix):] if path.startswith(prefix) else None


def _hidden(relative: str) -> str | None:
    """The first hidden part of a relative path, or None."""
    return next((part for part in relative.split(os.sep) if part.startswith(".")), None)


def parse_targets(value: str) -> tuple[str, ...]:
    """The setting's text (paths separated like ``$PATH``) as real paths."""
    paths = (p.strip() for p in value.split(os.pathsep))
    return tuple(os.path.realpath(os.path.expanduser(p)) for p in paths if p)


@dataclass(frozen=True)
class Confinement:
    """The roots a path may be spelled under and the outside targets the user allowed."""

    roots: tuple[str, ...]
    outside: tuple[str, ...] = ()
    _real_roots: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        roots = tuple(os.path.abspath(r) for r in self.roots)
        object.__setattr__(self, "roots", roots)
        object.__setattr__(self, "_real_roots", tuple(os.path.realpath(r) for r in roots))

    @classmethod
    def of(cls, *roots: Path | str, outside: Iterable[str] = ()) -> Confinement:
        return cls(tuple(str(r) for r in roots), tuple(outside))

    def refusal(self, path: Path | str, *, real: str | None = None) -> str | None:
        """Why ``path`` may not be read, indexed, listed or served; None when it may.

        ``real`` is the resolved path when the caller already has it (a walk knows its folder's
        real path and whether an entry is a link), to save resolving every file again.
        """
        spelled = os.path.abspath(path)
        relative = next((r for r in (_inside(spelled, root) for root in self._by_length()) if r is not None), None)
        if relative is None:
            return "not inside the vault"
        hidden = _hidden(relative)
        if hidden is not None:
            return f"{hidden}/ is a hidden folder; hidden folders belong to the program and are never read or served"
        if real is None:
            try:
                real = os.path.realpath(spelled, strict=True)
            except FileNotFoundError:
                real = os.path.realpath(spelled)  # a dangling link or a file to be created: judged by its target
            except OSError as exc:  # a symlink loop, an unreadable folder on the way
                return f"cannot be resolved ({exc.strerror or exc})"
        for root in (*self._real_roots, *self.outside):
            below = _inside(real, root)
            if below is None:
                continue
            hidden = _hidden(below)
            if hidden is not None:
                return (f"a link leads into the hidden folder {hidden}/; hidden folders belong to the program "
                        "and are never read or served")
            return None
        return f"a link leads outside the vault (to {real}); not followed unless {OUTSIDE_HINT} allows it"

    def allows(self, path: Path | str, *, real: str | None = None) -> bool:
        return self.refusal(path, real=real) is None

    def _by_length(self) -> tuple[str, ...]:
        """Roots longest first, so a memory folder kept inside the vault is judged as itself."""
        return tuple(sorted(self.roots, key=len, reverse=True))


class Refused(PermissionError):
    """A path the confinement rule refuses; the message names the path and why."""


def check(confinement: Confinement, path: Path | str, shown: str | None = None) -> Path:
    """``path`` when the rule allows it, else :class:`Refused` naming it as ``shown``."""
    reason = confinement.refusal(path)
    if reason is not None:
        raise Refused(f"{shown or path}: {reason}")
    return Path(path)


def walk(root: Path | str, confinement: Confinement, refused: list[tuple[str, str]] | None = None,
         *, skip: str | None = None, folders: list[str] | None = None) -> Iterator[tuple[str, os.stat_result]]:
    """Every file under ``root`` the rule allows, with its stat, symlinked folders followed with
    loops cut; entries the rule refuses (or that cannot be statted) are left out and, when
    ``refused`` is given, appended to it with the reason, so a caller can name them. The folder
    ``skip`` (a memory folder kept inside the vault) is not entered. Every folder the rule allows
    below ``root`` is appended to ``folders`` when given (a tree shows empty ones too).

    Hidden names are skipped silently: they are the program's own (or Obsidian's), not a fault.
    """
    seen: set[str] = set()
    stack = [(str(root), os.path.realpath(root))]
    while stack:  # depth first, each folder's files before its subfolders (as os.walk goes)
        folder, real_folder = stack.pop()
        if real_folder in seen or folder == skip:
            continue
        seen.add(real_folder)
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError as exc:
            if refused is not None:
                refused.append((folder, f"cannot be listed ({exc.strerror or exc})"))
            continue
        below: list[tuple[str, str]] = []
        for entry in entries:
            if not entry.name.startswith("."):
                yield from _entry(entry, real_folder, confinement, below, refused)
        if folders is not None:
            folders.extend(path for path, _real in below)
        stack.extend(reversed(below))


def _entry(entry: os.DirEntry, real_folder: str, confinement: Confinement, folders: list[tuple[str, str]],
           refused: list[tuple[str, str]] | None) -> Iterator[tuple[str, os.stat_result]]:
    try:
        link = entry.is_symlink()
        real = os.path.realpath(entry.path, strict=True) if link else os.path.join(real_folder, entry.name)
        reason = confinement.refusal(entry.path, real=real)
        if reason is None:
            if entry.is_dir():
                folders.append((entry.path, real))
                return
            info = entry.stat()
            kind = special_kind(info.st_mode)
            if kind is None:
                yield entry.path, info
                return
            reason = not_regular_reason(kind)  # a FIFO would hang the first read: named, never opened
    except OSError as exc:  # a loop, a dangling link, an entry that vanished or cannot be statted
        reason = f"cannot be read ({exc.strerror or exc})"
    if refused is not None:
        refused.append((entry.path, reason))


def refused_entries(root: Path | str, confinement: Confinement) -> list[tuple[str, str]]:
    """The entries under ``root`` the rule leaves out, as root-relative posix paths with why
    (``doctor``, lint and the window name them: a link that is not followed is never silent)."""
    refused: list[tuple[str, str]] = []
    for _ in walk(root, confinement, refused):
        pass
    base = os.path.abspath(root)
    return [(os.path.relpath(path, base).replace(os.sep, "/"), reason) for path, reason in refused]
