"""What ``doctor`` and the window say about a home carried by a file-sync tool.

* every conflict copy a sync tool left, and every page holding git's conflict markers, with
  what the program already does about it (a stream's copy is merged; a page's waits for you);
* an index folder inside a synced folder: the index is derived and local (LanceDB rewrites
  its files constantly, and two devices' indexes would overwrite each other), so it must be
  excluded from sync or kept elsewhere (``index_path``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from suzent_desktop.core.files.disk.regular import read_regular
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.sync import streams
from suzent_desktop.core.files.sync.sync_conflicts import ConflictCopy, conflicts_among, find_conflicts

if TYPE_CHECKING:
    from suzent_desktop.core.vault.model import VaultSnapshot

# Files and folders a sync tool keeps at the root of what it syncs.
_SYNC_ROOT_SIGNS: tuple[tuple[str, str], ...] = (
    (".stfolder", "Syncthing"),
    (".dropbox", "Dropbox"),
    (".dropbox.cache", "Dropbox"),
    (".nextcloudsync.log", "Nextcloud"),
    (".owncloudsync.log", "ownCloud"),
    (".git", "git"),
)
_SYNC_FOLDER_NAMES = {"dropbox": "Dropbox", "nextcloud": "Nextcloud", "onedrive": "OneDrive",
                      "mobile documents": "iCloud Drive", "icloud drive": "iCloud Drive", "google drive": "Google Drive"}
_IGNORE_FILES = (".stignore", ".gitignore")


@dataclass(frozen=True)
class SyncFinding:
    severity: str  # "warning" | "info"
    path: str
    message: str


def conflicts(layout: Layout, model: VaultSnapshot | None = None) -> list[ConflictCopy]:
    """Conflict copies under the memory folder and the vault, and pages with git markers.

    With ``model`` (the vault model, current where a watcher keeps it so) the vault's files and its
    pages' texts come from it, and only what it does not hold is walked: the memory folder and the
    vault's ``.state``. Without one (doctor), or where one folder holds the other, all is read from disk."""
    roots = [layout.memory_dir]
    if not layout.notebook_dir.is_relative_to(layout.memory_dir):
        roots.append(layout.notebook_dir)
    if model is None or layout.memory_dir.is_relative_to(layout.notebook_dir) or len(roots) == 1:
        return find_conflicts(roots, markers_in=layout.notebook_dir)
    found = find_conflicts([layout.memory_dir, layout.state_dir]) + conflicts_among(model.files(), model.text)
    return sorted(found, key=lambda c: str(c.path))


def is_stream_copy(layout: Layout, copy: ConflictCopy) -> bool:
    """A copy of a daily log, a transcript or a ``.state`` stream: the readers merge its lines."""
    folder = copy.path.parent
    if folder == layout.archive_dir:
        return streams.parse_part(copy.path.name, ".md") is not None
    if folder in (layout.transcripts_dir, layout.state_dir, layout.lease_dir):
        return streams.parse_part(copy.path.name, ".jsonl" if folder != layout.lease_dir else ".json") is not None
    return False


def describe(layout: Layout, copy: ConflictCopy) -> str:
    if copy.kind == "markers":
        return "holds git conflict markers (<<<<<<< … >>>>>>>): edit the page to keep what you want"
    if is_stream_copy(layout, copy):
        return (f"conflict copy left by {copy.tool} of {copy.original.name}: its lines are read with the "
                "original's (nothing is lost); delete it once both devices have synced")
    return (f"conflict copy left by {copy.tool} of {copy.original.name}: compare the two and keep what you "
            "want (it is searchable meanwhile)")


def synced_root(folder: Path) -> tuple[Path, str] | None:
    """The nearest folder at or above ``folder`` that a sync tool syncs, and the tool's name."""
    current = folder.resolve() if folder.exists() else folder.absolute()
    for candidate in (current, *current.parents):
        for sign, tool in _SYNC_ROOT_SIGNS:
            if (candidate / sign).exists():
                return candidate, tool
        if candidate.name.lower() in _SYNC_FOLDER_NAMES:
            return candidate, _SYNC_FOLDER_NAMES[candidate.name.lower()]
    return None


def _excluded(root: Path, folder: Path) -> bool:
    """True when an ignore file at the synced root names the index folder (or a folder above it)."""
    try:
        relative = folder.resolve().relative_to(root)
    except ValueError:
        return False
    names = {part for part in relative.parts}
    for ignore in _IGNORE_FILES:
        try:
            lines = (root / ignore).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            pattern = line.strip().removeprefix("(?d)").strip("/")
            if pattern and not pattern.startswith(("#", "!", "//")) and (
                pattern in names or pattern == relative.as_posix()
            ):
                return True
    return False


def findings(layout: Layout, model: VaultSnapshot | None = None) -> list[SyncFinding]:
    """Conflict copies (the vault's files from ``model`` when given: doctor's one walk) and an index synced along."""
    found = [SyncFinding("warning", str(c.path), describe(layout, c)) for c in conflicts(layout, model)]
    synced = synced_root(layout.index_dir)
    if synced is not None and not _excluded(synced[0], layout.index_dir):
        found.append(SyncFinding(
            "warning", str(layout.index_dir),
            f"the index folder is inside {synced[0]}, which {synced[1]} syncs: exclude it (docs/devices.md has a ready "
            ".stignore and .gitignore) or set index_path to a folder outside it",
        ))
    return found


@dataclass(frozen=True)
class ConflictEntry:
    """One line of the window's list: the file, what it is, and its diff against the file it belongs to."""

    path: Path
    label: str  # the path inside the home
    note: str
    diff: str


def compare(copy: ConflictCopy) -> str:
    """The unified diff from the file a copy belongs to, to the copy (for git markers: the page itself)."""
    import difflib

    def lines(path: Path) -> list[str]:
        try:
            return read_regular(path).decode("utf-8", errors="replace").splitlines(keepends=True)
        except OSError:
            return []

    if copy.kind == "markers":
        return "".join(lines(copy.path))
    return "".join(difflib.unified_diff(lines(copy.original), lines(copy.path), fromfile=copy.original.name,
                                        tofile=copy.path.name)) or "(the two files hold the same text)\n"


def conflict_entries(layout: Layout, model: VaultSnapshot | None = None) -> list[ConflictEntry]:
    def label(path: Path) -> str:
        for root in (layout.home, layout.notebook_dir, layout.memory_dir):
            if path.is_relative_to(root):
                return path.relative_to(root).as_posix()
        return str(path)

    return [ConflictEntry(c.path, label(c.path), describe(layout, c), compare(c)) for c in conflicts(layout, model)]
