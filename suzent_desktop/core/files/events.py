"""Change-sets: what an operation changed, so each view redraws only what it shows."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class ChangeSet:
    """What an operation, a pass of an engine or the watcher changed: the one record every view
    and the vault model take in. A pass accumulates into one (:meth:`merge`); a file operation
    hands its record over whole (``added`` … ``message``, ``refresh`` names the index sources to sync)."""

    pages: set[Path] = field(default_factory=set)  # notebook pages written, created or removed
    logs: set[str] = field(default_factory=set)  # daily-log dates appended to
    rows_added: int = 0
    rows_removed: int = 0
    watermark: str | None = None  # set when the watermark moved
    tombstones: bool = False
    memory_md: bool = False
    index: bool = False  # the index changed (search results may differ)
    errors: list[str] = field(default_factory=list)
    log_lines: list[int] = field(default_factory=list)  # where appended fact lines landed in their log
    forgotten: list[str] = field(default_factory=list)  # tombstones a forget wrote (normalized)
    restored: list[str] = field(default_factory=list)  # tombstones an undo lifted (normalized)
    # Who asked for the change ("watcher", a pane's name, "" when nobody said): a view that made a
    # change shows it itself and may ignore its echo on the bus.
    initiator: str = ""
    # A file operation's record (the tree, the tabs and the vault model apply it in one place).
    added: frozenset[Path] = frozenset()
    folders: frozenset[Path] = frozenset()  # empty folders made (the tree shows them; nothing to index)
    changed: frozenset[Path] = frozenset()
    removed: frozenset[Path] = frozenset()
    moved: tuple[tuple[Path, Path], ...] = ()  # (old, new), a folder as one pair
    trashed: tuple[tuple[Path, Path], ...] = ()  # (original, its copy in the trash); also in ``removed``
    refresh: frozenset[Path] = frozenset()  # index sources to sync
    message: str = ""  # what the status bar says

    def __post_init__(self) -> None:
        self.pages = set(self.pages) | self.paths  # a pane listening for pages hears of every file the operation touched

    @property
    def paths(self) -> frozenset[Path]:
        """Every file an operation made, changed or took away (a move's old place; its new files are in ``changed``)."""
        return self.added | self.changed | self.removed | frozenset(old for old, _new in self.moved)

    def merge(self, other: ChangeSet) -> ChangeSet:
        self.pages |= other.pages
        self.logs |= other.logs
        self.rows_added += other.rows_added
        self.rows_removed += other.rows_removed
        self.watermark = other.watermark or self.watermark
        self.tombstones = self.tombstones or other.tombstones
        self.memory_md = self.memory_md or other.memory_md
        self.index = self.index or other.index
        self.errors += other.errors
        self.log_lines += other.log_lines
        self.forgotten += other.forgotten
        self.restored += other.restored
        self.initiator = self.initiator or other.initiator
        self.added |= other.added
        self.folders |= other.folders
        self.changed |= other.changed
        self.removed |= other.removed
        self.moved += other.moved
        self.trashed += other.trashed
        self.refresh |= other.refresh
        self.message = other.message or self.message
        return self

    @property
    def empty(self) -> bool:
        return not (
            self.pages or self.logs or self.rows_added or self.rows_removed or self.watermark
            or self.tombstones or self.memory_md or self.index or self.errors or self.folders
            or self.moved or self.trashed or self.refresh
        )
