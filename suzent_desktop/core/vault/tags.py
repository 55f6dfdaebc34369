"""The tags of every page, kept file by file, and the tree they form.

Tags come from the one grammar (``core.markdown.tags``: frontmatter ``tags`` and inline
``#tags`` outside code and links). Reading a vault's pages is the slow part, so each file's
tags are kept with a fingerprint of the file (the index's content hash, or mtime and size)
and re-read only when that changes: search's ``tag:`` and the tags pane pay for a full read
once, then only for the files that changed.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from suzent_desktop.core.files.disk.regular import read_page
from suzent_desktop.core.files.disk.text_hygiene import decode_lenient
from suzent_desktop.core.files.language.markdown import tags
from suzent_desktop.core.vault.query import normalize_tag

TAGGED_SUFFIXES = frozenset({".md", ".markdown"})


def read_tags(path: Path) -> tuple[str, ...]:
    """A markdown file's tags as written (first spelling of each); () for other files or unreadable ones."""
    if path.suffix.lower() not in TAGGED_SUFFIXES:
        return ()
    try:
        text = decode_lenient(read_page(path))[0]
    except OSError:
        return ()
    return tuple(tags(text))


def stat_fingerprint(path: Path) -> tuple[int, int] | None:
    """(mtime, size) of a file, None when it is gone: what a file event changes."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


class FileTags:
    """Each file's tags with the fingerprint they were read at; thread-safe."""

    def __init__(self, reader: Callable[[Path], tuple[str, ...]] = read_tags) -> None:
        self._read = reader
        self._files: dict[str, tuple[object, tuple[str, ...]]] = {}
        self._lock = threading.Lock()

    def update(self, path: Path | str, fingerprint: object | None = None) -> bool:
        """Re-read ``path`` unless its fingerprint is the one its tags were read at; True when re-read.

        Without a fingerprint the file's mtime and size are used; a missing file is forgotten,
        and so is every file under a missing folder (a folder moved or trashed whole).
        """
        key = str(path)
        if fingerprint is None:
            fingerprint = stat_fingerprint(Path(key))
            if fingerprint is None:
                return self.forget_under(key)
        with self._lock:
            known = self._files.get(key)
        if known is not None and known[0] == fingerprint:
            return False
        found = self._read(Path(key))
        with self._lock:
            self._files[key] = (fingerprint, found)
        return True

    def forget(self, path: Path | str) -> bool:
        with self._lock:
            return self._files.pop(str(path), None) is not None

    def forget_under(self, path: Path | str) -> bool:
        """Forget ``path`` and every file inside it; True when anything was known."""
        key = str(path)
        inside = os.path.join(key, "")
        with self._lock:
            gone = [p for p in self._files if p == key or p.startswith(inside)]
            for known in gone:
                del self._files[known]
        return bool(gone)

    def keep_only(self, paths: Iterable[Path | str]) -> None:
        keep = {str(p) for p in paths}
        with self._lock:
            for gone in [p for p in self._files if p not in keep]:
                del self._files[gone]

    def paths(self) -> list[Path]:
        """Every file whose tags are known."""
        with self._lock:
            return [Path(p) for p in self._files]

    def tags_of(self, path: Path | str) -> tuple[str, ...]:
        with self._lock:
            known = self._files.get(str(path))
        return known[1] if known else ()

    def snapshot(self) -> dict[str, tuple[str, ...]]:
        """Every known file and its tags."""
        with self._lock:
            return {path: found for path, (_fp, found) in self._files.items()}


@dataclass
class TagNode:
    """One level of a nested tag: ``trip`` in ``#trip/japan``; ``count`` is the files under it."""

    name: str
    tag: str  # the full tag, as first written (``Trip/Japan``)
    count: int = 0
    children: list[TagNode] = field(default_factory=list)


def tag_tree(files: Iterable[Iterable[str]]) -> list[TagNode]:
    """The tags of ``files`` as a tree; a file counts once for each tag and each parent of its tags.

    Tags differing only in case are one tag (Obsidian's rule), shown as first written.
    Siblings are sorted by name, ignoring case.
    """
    spelled: dict[str, str] = {}
    counts: dict[str, int] = {}
    for file_tags in files:
        levels: set[str] = set()
        for raw in file_tags:
            written = raw.strip().lstrip("#").strip("/")
            if not written:
                continue
            parts = written.split("/")
            for depth in range(1, len(parts) + 1):
                prefix = "/".join(parts[:depth])
                key = normalize_tag(prefix)
                spelled.setdefault(key, prefix)
                levels.add(key)
        for key in levels:
            counts[key] = counts.get(key, 0) + 1
    nodes: dict[str, TagNode] = {}
    roots: list[TagNode] = []
    for key in sorted(counts, key=lambda k: (k.count("/"), k)):
        written = spelled[key]
        node = TagNode(written.rsplit("/", 1)[-1], written, counts[key])
        nodes[key] = node
        parent = key.rsplit("/", 1)[0] if "/" in key else None
        (nodes[parent].children if parent in nodes else roots).append(node)
    for node in [*nodes.values()]:
        node.children.sort(key=lambda n: n.name.lower())
    roots.sort(key=lambda n: n.name.lower())
    return roots
