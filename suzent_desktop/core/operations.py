"""What the desktop app does to the vault and the memory, one function per user action.

The window, the command line and the MCP server call these, the manager and its services, never a
store or an engine: a rule then has one home, and a headless test can drive every action the
windows offer. The data types, errors and pure rules they need (``Filters``, ``VaultSnapshot``,
``normalize``) they import from the module that defines them; nothing is re-exported here. A write
returns a :class:`~suzent_desktop.core.files.events.ChangeSet` naming what was added, changed,
removed, moved or trashed and which index sources need a sync, and who asked for it (``initiator``:
each function that changes files takes it, so the view that made a change can ignore its echo); the
app applies it in one place (``AppServices.apply``). Reads a pane needs from the home's stores (a
day's log, the tombstone list, the vault model) are here too. No Qt.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from suzent_desktop.core.engines.forgetting import shown
from suzent_desktop.core.files.disk.atomic import atomic_write_text
from suzent_desktop.core.files.disk.regular import read_regular
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.records.archive import ArchiveError
from suzent_desktop.core.files.records.log_grammar import FactLine, ParsedLog, parse_log
from suzent_desktop.core.files.records.tombstones import Tombstone, TombstoneProblem
from suzent_desktop.core.files.sync import sync_check
from suzent_desktop.core.vault import vault_ops
from suzent_desktop.core.vault.forgotten import Forgotten
from suzent_desktop.core.vault.graph import Graph, build_graph
from suzent_desktop.core.vault.model import Kind, Vault, VaultSnapshot
from suzent_desktop.core.vault.vault_ops import TrashRecord, check_name

if TYPE_CHECKING:
    from suzent_desktop.core.engines.dream.runner import Snapshot
    from suzent_desktop.core.home import PreparedHome
    from suzent_desktop.core.index.embedding import Embedder
    from suzent_desktop.core.manager import MemoryManager
    from suzent_desktop.settings import Settings


def _rel(root: Path, path: Path) -> str:
    """A path as the user sees it in messages: relative to the vault, the root by name."""
    if path == root:
        return "the vault root"
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


# -- vault files ---------------------------------------------------------------------------------
def create_page(root: Path, folder: Path, name: str, body: str | None = None, *, initiator: str = "") -> ChangeSet:
    """A new page ``folder/name.md`` (never overwriting one), with a title heading."""
    path = vault_ops.new_page(folder, name, body)
    return ChangeSet(added=frozenset({path}), refresh=frozenset({path}), message=f"Created {_rel(root, path)}",
                     initiator=initiator)


def create_folder(root: Path, parent: Path, name: str, *, initiator: str = "") -> ChangeSet:
    """A new, empty folder (nothing to index)."""
    path = vault_ops.new_folder(parent, name)
    return ChangeSet(folders=frozenset({path}), initiator=initiator)


def move(root: Path, old: Path, new: Path, *, initiator: str = "", vault: Vault | None = None) -> ChangeSet:
    """Move or rename a page, folder or attachment; every link to it is rewritten across the vault.
    ``vault``: the home's model (:func:`vault_model`): only the files linking to it are read, and the
    model is told of each file written. Without it the vault is listed and read (a bare folder)."""
    if new == old:
        return ChangeSet(initiator=initiator)
    touched = vault_ops.move_path(root, old, new, vault)
    links = len([p for p in touched if p != new and not p.is_relative_to(new)])
    suffix = f"; links updated in {links} file{'s' if links != 1 else ''}" if links else ""
    return ChangeSet(
        changed=frozenset(touched), moved=((old, new),), refresh=frozenset({old, *touched}),
        message=f"Moved {_rel(root, old)} → {_rel(root, new)}{suffix}", initiator=initiator,
    )


def rename(root: Path, path: Path, name: str, *, initiator: str = "", vault: Vault | None = None) -> ChangeSet:
    """Rename in place: a file keeps its extension, a folder takes the name as typed."""
    name = check_name(name)
    new = path.with_name(name + path.suffix if path.is_file() else name)
    return move(root, path, new, initiator=initiator, vault=vault)


def trash(root: Path, trash_dir: Path, path: Path, *, initiator: str = "") -> ChangeSet:
    """Move a page or folder into the vault's hidden trash, where :func:`restore` finds it."""
    record = vault_ops.move_to_trash(root, trash_dir, path)
    return ChangeSet(
        removed=frozenset({path}), trashed=((record.original, record.trashed),), refresh=frozenset({path}),
        message=f"Moved {_rel(root, path)} to trash — Ctrl+Z in the tree to undo", initiator=initiator,
    )


def restore(root: Path, original: Path, trashed: Path, *, initiator: str = "") -> ChangeSet:
    """Undo :func:`trash`; refuses to overwrite what was created at the old place meanwhile."""
    path = vault_ops.restore_from_trash(TrashRecord(original, trashed))
    return ChangeSet(added=frozenset({path}), refresh=frozenset({path}), message=f"Restored {_rel(root, path)}",
                     initiator=initiator)


def save_page(path: Path, text: str, *, initiator: str = "") -> ChangeSet:
    """Write what the user typed, atomically (a crash leaves the old or the new text, never half)."""
    atomic_write_text(path, text)
    return ChangeSet(changed=frozenset({path}), refresh=frozenset({path}), initiator=initiator)


# -- the vault model ------------------------------------------------------------------------------
def vault_snapshot(manager: MemoryManager, changed: Iterable[Path] = (), *, parsed: bool = True) -> VaultSnapshot:
    """(worker thread) The vault model as it stands, with ``changed`` paths taken in first: a pane
    passes what change-sets named since it last looked, so a change the watcher has not reported
    yet is seen too. Walks the vault only the first time anything asks, in this process."""
    vault = manager.vault
    paths = list(changed)
    if paths:
        vault.apply(paths)
    return vault.snapshot(parsed=parsed)


def vault_graph(manager: MemoryManager, changed: Iterable[Path] = ()) -> Graph:
    """(worker thread) The vault's notes and links as a graph (``core/vault/graph.py``), built once per
    snapshot of the vault model: the graph view's filters and local graphs all start from it."""
    return vault_snapshot(manager, changed).view("graph", build_graph)


def vault_model(manager: MemoryManager) -> Vault | None:
    """The home's vault model for a file operation run on the GUI thread, when it is walked and a
    watcher keeps it current; else None, and the operation reads the disk (it must not start or wait
    for the first walk, nor trust a model that does not hear of other programs' changes)."""
    vault = manager.vault
    return vault if vault.built and vault.watched else None


def walked_snapshot(manager: MemoryManager) -> VaultSnapshot | None:
    """The vault model's files and folders when it is walked already (asking then lists nothing), else
    None: for the vault tree, which fills on the GUI thread and must not walk the vault there."""
    vault = manager.vault
    return vault.snapshot(parsed=False, names=False) if vault.built else None


def vault_walks_held(manager: MemoryManager) -> bool:
    """Whether the vault model's first walk waits for a watcher (the window's start): whoever shows the
    vault then waits for that walk rather than listing the vault on its own."""
    return manager.vault.held


def folder_vault(root: Path, outside: Iterable[str] = ()) -> Vault:
    """A vault model of a bare folder, for an editor opened on it outside any home (no memory folder;
    links may lead out of it only into ``outside``). The caller keeps it current with ``apply``."""
    root = Path(root)
    program = root / ".suzent"  # hidden: never a file of the model
    return Vault(Layout(home=root, memory_dir=program / "memory", notebook_dir=root, index_dir=program / "index",
                        outside_targets=tuple(outside)))


def path_kind(manager: MemoryManager, path: Path) -> Kind:
    """What a path is to the program (page, board, daily log, core file…): the one classifier."""
    return manager.vault.kind(path)


def hold_vault_walks(manager: MemoryManager, seconds: float | None = None) -> None:
    """A watcher is being put in place: the vault model's first walk waits for it (released when the
    index is told the watcher reports changes), ``seconds`` at most."""
    if seconds is None:
        manager.vault.hold_walks()
    else:
        manager.vault.hold_walks(seconds)


def release_vault_walks(manager: MemoryManager) -> None:
    """No watcher is coming (or the window closes): walks of the vault model go ahead."""
    manager.vault.release_walks()


def apply_to_vault(manager: MemoryManager, changes: object) -> None:
    """(worker thread) Tell the vault model what changed: watcher events, an operation's ``ChangeSet``."""
    manager.vault.apply(changes)


# -- core files ----------------------------------------------------------------------------------
def read_memory_md(manager: MemoryManager) -> str | None:
    """MEMORY.md as it is on disk (undecodable bytes shown as U+FFFD) without forgotten text, None
    before the first dream writes it; a special file there (a FIFO) is refused by name, never opened."""
    try:
        return shown_page(manager, read_regular(manager.layout.memory_md).decode("utf-8", errors="replace"))
    except FileNotFoundError:
        return None


def shown_page(manager: MemoryManager, text: str) -> str:
    """(worker thread) A page's text as every door shows it (an agent's ``read_page``, the
    ``memory://`` resources, the window): without the paragraphs and items the user forgot, even
    while a file still holds them (a sync brought them back; the next index pass takes them off)."""
    return shown(text, Forgotten(manager.tombstones.contents()))


# -- daily logs and tombstones ------------------------------------------------------------------
@dataclass
class DayLog:
    """One day's log as the Daily logs pane shows it; ``error`` says why it could not be read."""

    date: str
    raw: str = ""
    parsed: ParsedLog | None = None
    forgotten: Forgotten = field(default_factory=Forgotten)
    error: str | None = None


def log_dates(manager: MemoryManager) -> list[str]:
    """Every date that has a daily log."""
    return manager.archive.dates()


def read_day(manager: MemoryManager, date: str) -> DayLog:
    """A day's log parsed, with the tombstones that hide some of its facts."""
    day = DayLog(date=date)
    try:
        day.raw = manager.archive.read_text(date)
    except (ArchiveError, OSError) as exc:
        day.error = str(exc)
        return day
    day.parsed = parse_log(day.raw)
    day.forgotten = Forgotten(manager.tombstones.contents())
    return day


def is_forgotten(entry: FactLine, forgotten: Iterable[str]) -> bool:
    """A fact line whose content (or whole line) was forgotten (``core/vault/forgotten.py``)."""
    rule = Forgotten.of(forgotten)
    return rule.holds(entry.fact.content) or rule.holds(entry.raw)


def sync_conflicts(manager: MemoryManager) -> list[sync_check.ConflictEntry]:
    """(worker thread) Conflict copies a sync tool left and pages with git markers, each with its diff.
    Where a watcher keeps the vault model current, or is being put in place (the window's start: the
    model's first walk then waits for it, and listing the vault here too would list it twice), the
    vault's files and texts come from the model (the memory folder and ``.state`` are walked); else
    everything is read from the disk."""
    vault = manager.vault
    return sync_check.conflict_entries(manager.layout, vault.snapshot() if vault.watched or vault.held else None)


def forgotten_list(manager: MemoryManager) -> tuple[list[Tombstone], list[TombstoneProblem]]:
    """Every tombstone in file order, and the lines that could not be read."""
    return manager.tombstones.load()


# -- the dream, the agent, the embedder ------------------------------------------------------------
def vault_texts(manager: MemoryManager) -> Snapshot:
    """(worker thread) The vault's pages and the program's index as the vault model holds them, to
    diff a dream's changes against: what ``snapshot_vault`` (``core/engines/dream/runner.py``) reads, without reading the vault
    again where a watcher keeps the model current (else after one look at the disk)."""
    model = manager.vault.current()
    index = manager.layout.index_md
    return {
        model.rel(path): text.encode("utf-8")
        for path in model.files(Kind.PAGE, Kind.NAV)
        if (path.suffix.lower() == ".md" and (path == index or model.kind(path) is Kind.PAGE))
        and (text := model.text(path)) is not None
    }


def prepare_home(home: Path) -> PreparedHome:
    """Fail with a named setting or path before a window opens, and bootstrap a new home; the
    window opens on what this returns (``MemoryManager.open(prepared=...)``), not preparing again."""
    from suzent_desktop.core.home import prepare

    return prepare(home)


def leave_the_window_a_core(embedder: Embedder, settings: Settings) -> None:
    """While the window is up the bundled model runs on ``window_embedding_threads`` (by default
    one core fewer than the machine has), so the GUI thread never waits for a core."""
    from suzent_desktop.core.index.embedding import use_window_threads

    use_window_threads(embedder, settings.window_embedding_threads)


def download_model(
    embedder: Embedder,
    progress: Callable[[int, int, str], None] | None = None,
    cancel: threading.Event | None = None,
) -> None:
    """Fetch the model files an embedder still lacks (blocking: call off the GUI thread), reporting
    ``progress(bytes done, bytes in all, file name)``. Raises ``DownloadCancelled`` when ``cancel``
    stops it (nothing kept) and ``EmbeddingError`` when a file cannot be had. Models that need no
    download return at once."""
    download = getattr(embedder, "download_files", None)
    if download is not None:
        download(progress, cancel)


# -- the window's layout, kept in the home (never in the vault) -------------------------------------
def workspace_file(layout: Layout) -> Path:
    """The window's panes and open tabs (``HOME/.suzent/workspace.json``)."""
    return layout.home / ".suzent" / "workspace.json"


def read_workspace(layout: Layout) -> dict[str, Any]:
    """The layout saved at the last close, or {} (none yet, or a file that is not one: the window
    then opens as new, and the file is rewritten at the next close)."""
    import json

    try:
        state = json.loads(workspace_file(layout).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


def save_workspace(layout: Layout, state: dict[str, Any]) -> None:
    import json

    path = workspace_file(layout)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(state, indent=1) + "\n")
