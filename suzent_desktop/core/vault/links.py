"""Which file a link names: one resolver with Obsidian's rules, used by every part of the app.

The rules, in order (all case-insensitive, ``.md`` optional, attachments of any extension):

1. a markdown link, or a target starting ``./`` or ``../``, is first tried relative to the
   linking page's folder;
2. an exact vault path (``[[2_Wiki/Concepts/Foo]]``, ``[[4_Assets/cat.png]]``);
3. a path ending (``[[Concepts/Foo]]``) or a bare name (``[[Foo]]``): among the files with
   that name, one in the linking page's own folder wins, then the shortest path, then the
   alphabetically first, so a choice is stable.

Aliases do not resolve a link (Obsidian offers them when a link is typed, then writes
``[[Page|alias]]``); they are returned by :meth:`VaultIndex.aliases` for pickers.

The vault is walked once with :func:`vault_files`: hidden folders are skipped, symlinked
folders are followed (Obsidian does) with loops cut by the real path of each folder.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePath

from suzent_desktop.core.files.disk.confine import Confinement, walk
from suzent_desktop.core.files.language.markdown import MARKDOWN, Link, frontmatter, meta_list

_DRIVE_RE = re.compile(r"^[A-Za-z]:")


def vault_files(root: Path, confinement: Confinement | None = None) -> Iterator[Path]:
    """Every file of the vault the confinement rule allows (``core/files/disk/confine.py``: hidden folders and
    links that lead out of the vault or into a program folder are left out), sorted per folder,
    symlinked folders inside the vault followed with loops cut; files are yielded under the path
    through the link, as Obsidian shows them. ``confinement`` defaults to the vault alone.
    """
    root = Path(root)
    if not root.is_dir():
        return
    for path, _stat in walk(root, confinement or Confinement.of(root)):
        yield Path(path)


def is_page(path: Path | str) -> bool:
    return str(path).lower().endswith(".md")


def _strip_md(text: str) -> str:
    return text[:-3] if text.lower().endswith(".md") else text


@dataclass
class VaultIndex:
    """Names and paths of every vault file, for resolving links (cheap to rebuild, cheap to update)."""

    root: Path
    by_rel: dict[str, Path] = field(default_factory=dict)  # lower-case vault path (with extension)
    by_name: dict[str, list[Path]] = field(default_factory=dict)  # lower-case file name, and stem of pages

    @classmethod
    def scan(cls, root: Path, confinement: Confinement | None = None) -> VaultIndex:
        index = cls(Path(root))
        for path in vault_files(index.root, confinement):
            index.add(path)
        return index

    def copy(self) -> VaultIndex:
        """An index of its own to change (the lists of names are never changed in place, so they are shared)."""
        return VaultIndex(self.root, dict(self.by_rel), dict(self.by_name))

    def rel(self, path: Path) -> str:
        """Vault-relative posix path (string slicing: cheap on big vaults)."""
        text, root = str(path), str(self.root)
        if not text.startswith(root + os.sep):
            raise ValueError(f"{path} is not inside {self.root}")
        return text[len(root) + 1 :].replace(os.sep, "/")

    def _names(self, path: Path) -> list[str]:
        name = path.name.lower()
        return [name, _strip_md(name)] if is_page(name) else [name]

    def add(self, path: Path) -> None:
        key = self.rel(path).lower()
        if key in self.by_rel:
            return
        self.by_rel[key] = path
        for name in self._names(path):
            # a new list, never one changed in place: a copy of ``by_name`` (a snapshot) stays as it was
            self.by_name[name] = [*self.by_name.get(name, ()), path]

    def remove(self, path: Path) -> None:
        self.by_rel.pop(self.rel(path).lower(), None)
        for name in self._names(path):
            paths = self.by_name.get(name, [])
            if path in paths:
                self.by_name[name] = [p for p in paths if p != path]

    def under(self, path: Path) -> list[Path]:
        """The indexed files that are ``path`` or inside it (a folder), from memory: no disk access."""
        try:
            key = self.rel(path).lower()
        except ValueError:
            return []
        if key in self.by_rel:  # a file (a folder is never a key): no walk over every entry
            return [self.by_rel[key]]
        if any(part.startswith(".") for part in key.split("/")):  # hidden: nothing in it is indexed
            return []
        inside = key + "/"
        return [p for k, p in self.by_rel.items() if k.startswith(inside)]

    def remove_tree(self, path: Path) -> None:
        """A file or a whole folder left the vault."""
        for found in self.under(path):
            self.remove(found)

    def move(self, old: Path, new: Path) -> None:
        """A file or folder was renamed or moved: its entries follow without a rescan (a move keeps
        the tree under it as it was)."""
        for found in self.under(old):
            self.remove(found)
            try:
                self.add(new if found == old else new / found.relative_to(old))
            except ValueError:  # moved out of the vault
                pass

    def files(self) -> list[Path]:
        return sorted(self.by_rel.values())

    def pages(self) -> list[Path]:
        return [p for p in self.files() if is_page(p)]

    # -- resolution ----------------------------------------------------------------------------
    def resolve(self, target: str, source: Path | None = None, *, relative_first: bool = False) -> Path | None:
        """The file a link target names, or None (an empty target names the linking page)."""
        target = target.strip().replace("\\", "/")
        if not target:
            return source
        if (relative_first or target.startswith(("./", "../"))) and source is not None:
            found = self.relative(target, source)
            if found is not None:
                return found
        key = target.lstrip("/").lower()
        for candidate in (key, key + ".md"):
            if candidate in self.by_rel:
                return self.by_rel[candidate]
        name = key.rsplit("/", 1)[-1]
        matches = list(dict.fromkeys(self.by_name.get(name, []) + self.by_name.get(name + ".md", [])))
        if "/" in key:
            matches = [p for p in matches if self._ends_with(p, key)]
        if not matches:
            return None
        if len(matches) == 1:
            return matches[0]
        return min(matches, key=lambda p: (source is None or p.parent != source.parent, len(p.parts), str(p).lower()))

    def resolve_link(self, link: Link, source: Path | None = None) -> Path | None:
        """A parsed link: markdown links are relative to their page first."""
        return self.resolve(link.target, source, relative_first=link.kind == MARKDOWN or not link.wiki_syntax)

    def relative(self, target: str, source: Path) -> Path | None:
        """The file ``target`` names as a path relative to ``source``'s folder, or None."""
        try:
            base = posixpath.dirname(self.rel(source))
        except ValueError:
            return None
        joined = posixpath.normpath(posixpath.join(base, target)).lower()
        if joined.startswith("../"):
            return None
        for candidate in (joined, joined + ".md"):
            if candidate in self.by_rel:
                return self.by_rel[candidate]
        return None

    def _ends_with(self, path: Path, key: str) -> bool:
        rel = self.rel(path).lower()
        return any(r == key or r.endswith("/" + key) for r in (rel, _strip_md(rel)))

    # -- naming --------------------------------------------------------------------------------
    def link_target_for(self, page: Path) -> str:
        """The shortest wikilink target that names ``page`` from anywhere in the vault."""
        rel = self.rel(page)
        bare = _strip_md(rel) if is_page(rel) else rel
        parts = bare.split("/")
        for count in range(1, len(parts) + 1):
            target = "/".join(parts[-count:])
            if self.resolve(target) == page and all(
                self.resolve(target, other) == page for other in self._same_named(page)
            ):
                return target
        return bare

    def _same_named(self, page: Path) -> list[Path]:
        """Pages that share ``page``'s name: from their folder a bare name would pick them."""
        return [p for p in self.by_name.get(page.name.lower(), []) if p != page]

    def name_taken(self, name: str, *, ignore: Path | None = None) -> bool:
        """True when a file already answers to ``name`` (a page stem or a file name)."""
        return any(p != ignore for p in self.by_name.get(name.lower(), []))

    def aliases(self, page: Path) -> list[str]:
        try:
            text = page.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return []
        return meta_list(frontmatter(text), "aliases")


def inside_vault(root: Path, path: Path) -> bool:
    """True when ``path`` really lives in the vault (not reached through a symlink leading out)."""
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    return real == real_root or real.startswith(real_root + os.sep)


def walkable_rel(rel: str) -> bool:
    """True when a vault-relative path names a place :func:`vault_files` walks: not absolute, no drive,
    no ``..`` step and no hidden part.

    A link's target is checked this way rather than by its real path, so a symlinked folder of
    the vault (which the walk follows) is reachable while ``../`` or ``/etc`` never is.
    """
    posix = rel.replace("\\", "/")
    parts = posix.split("/")
    if not posix or posix.startswith("/") or _DRIVE_RE.match(parts[0]):
        return False
    return not any(part.startswith(".") for part in parts if part)


def in_vault_walk(root: Path, path: Path) -> bool:
    """True when ``path`` is ``root`` joined with a :func:`walkable_rel` path (compared as text, as joined:
    ``..`` is never folded away, since through a symlinked folder it would lead somewhere else)."""
    try:
        rel = PurePath(path).relative_to(PurePath(root))
    except ValueError:
        return False
    return walkable_rel(rel.as_posix())


def relative_href(target: Path, source: Path) -> str:
    """The relative path a markdown link in ``source`` writes to reach ``target``."""
    return posixpath.relpath(target.as_posix(), source.parent.as_posix())
