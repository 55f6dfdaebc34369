"""File operations behind the vault tree: resolve links, create, rename/move with link rewriting, trash.

No Qt here, so every rule is testable on plain folders. Links are resolved the way Obsidian
does it: ``[[Name]]`` by file name anywhere in the vault (the closest one to the linking page
wins when names repeat), ``[[folder/Name]]`` by path. A rename or move rewrites every link
that pointed at the old page — wikilinks and relative markdown links — in all vault markdown
files, prepared in memory first and written atomically file by file, with the already-written
files restored if one write fails, so a failure never leaves half the vault rewritten.
"""

from __future__ import annotations

import os
import posixpath
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, unquote

from suzent_desktop.core.atomic import atomic_write_text
from suzent_desktop.ui.markdown_render import WikiLink, find_wikilinks

_MD_LINK_RE = re.compile(r"(?<!!)\[(?P<text>[^\]\n]*)\]\((?P<href>[^)\s]+)(?P<title>\s+\"[^\"]*\")?\)")
_INVALID_NAME = re.compile(r'[\\/:*?"<>|#^\[\]]')


class VaultOpError(ValueError):
    """A vault operation was refused; the message says why in the user's terms."""


def markdown_files(root: Path) -> list[Path]:
    """Every ``.md`` file in the vault outside hidden folders (root navigation files included)."""
    found: list[Path] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.lower().endswith(".md") and not name.startswith("."):
                found.append(Path(folder) / name)
    return found


def check_name(name: str) -> str:
    """A page or folder name a user typed; refuse characters that break links or paths."""
    name = name.strip()
    if name.lower().endswith(".md"):
        name = name[:-3].strip()
    if not name or name in (".", "..") or name.startswith("."):
        raise VaultOpError("A name must not be empty or start with a dot.")
    if _INVALID_NAME.search(name):
        raise VaultOpError(f"'{name}' contains a character not allowed in page names (\\ / : * ? \" < > | # ^ [ ]).")
    return name


@dataclass
class PageIndex:
    """Stem and path lookup for link resolution, rebuilt cheaply from a file list."""

    root: Path
    by_stem: dict[str, list[Path]] = field(default_factory=dict)
    by_rel: dict[str, Path] = field(default_factory=dict)

    @classmethod
    def scan(cls, root: Path) -> PageIndex:
        index = cls(root)
        for path in markdown_files(root):
            index.add(path)
        return index

    def _key(self, path: Path) -> str:
        """Vault-relative path without ``.md``, lower-cased (string slicing: cheap on big vaults)."""
        text, root = str(path), str(self.root)
        if not text.startswith(root + os.sep):
            raise ValueError(f"{path} is not inside {self.root}")
        rel = text[len(root) + 1 :].replace(os.sep, "/")
        return (rel[:-3] if rel.lower().endswith(".md") else rel).lower()

    def add(self, path: Path) -> None:
        rel = self._key(path)
        if rel in self.by_rel:
            return
        self.by_rel[rel] = path
        self.by_stem.setdefault(path.stem.lower(), []).append(path)

    def remove(self, path: Path) -> None:
        rel = self._key(path)
        self.by_rel.pop(rel, None)
        paths = self.by_stem.get(path.stem.lower(), [])
        if path in paths:
            paths.remove(path)

    def resolve(self, target: str, source: Path | None = None) -> Path | None:
        """The page a link target names, or None."""
        target = target.strip().replace("\\", "/")
        if target.lower().endswith(".md"):
            target = target[:-3]
        if not target:
            return source
        key = target.strip("/").lower()
        if "/" in key:
            if key in self.by_rel:
                return self.by_rel[key]
            matches = [p for rel, p in self.by_rel.items() if rel.endswith("/" + key)]
            return min(matches, key=lambda p: len(p.parts)) if matches else None
        candidates = list(self.by_stem.get(key, []))
        if not candidates:
            return None
        if len(candidates) == 1 or source is None:
            return min(candidates, key=lambda p: (len(p.parts), str(p)))
        return min(candidates, key=lambda p: (_distance(source.parent, p.parent), len(p.parts), str(p)))

    def link_target_for(self, page: Path) -> str:
        """The shortest wikilink target that names ``page`` unambiguously."""
        if len(self.by_stem.get(page.stem.lower(), [])) <= 1:
            return page.stem
        return page.relative_to(self.root).with_suffix("").as_posix()


def _distance(a: Path, b: Path) -> int:
    common = len(os.path.commonpath([a, b]).split(os.sep))
    return (len(a.parts) - common) + (len(b.parts) - common)


# -- link rewriting ---------------------------------------------------------------------------

def _rewrite_wikilinks(text: str, source: Path, old: Path, new: Path, index: PageIndex, new_target: str) -> str:
    pieces: list[str] = []
    last = 0
    for start, end, link in find_wikilinks(text):
        if not link.target or index.resolve(link.target, source) != old:
            continue
        keep_path = "/" in link.target
        target = new.relative_to(index.root).with_suffix("").as_posix() if keep_path else new_target
        pieces.append(text[last:start])
        pieces.append(_format_wikilink(WikiLink(target, link.heading, link.alias)))
        last = end
    if not pieces:
        return text
    pieces.append(text[last:])
    return "".join(pieces)


def _format_wikilink(link: WikiLink) -> str:
    inner = link.target
    if link.heading:
        inner += "#" + link.heading
    if link.alias:
        inner += "|" + link.alias
    return f"[[{inner}]]"


def _rewrite_md_links(text: str, source: Path, new_source: Path, old: Path, new: Path) -> str:
    """Relative markdown links: retarget links to the moved page, and fix a moved page's own links."""

    def replace(match: re.Match[str]) -> str:
        href = match.group("href")
        if "://" in href or href.startswith(("#", "mailto:", "wikilink:")):
            return match.group(0)
        path_part, hash_, anchor = href.partition("#")
        if not path_part:
            return match.group(0)
        resolved = Path(os.path.normpath(source.parent / unquote(path_part)))
        if resolved == old:
            resolved = new
        elif source == new_source:
            return match.group(0)
        rel = posixpath.relpath(resolved.as_posix(), new_source.parent.as_posix())
        new_href = quote(rel) + (hash_ + anchor if hash_ else "")
        if new_href == href:
            return match.group(0)
        return f"[{match.group('text')}]({new_href}{match.group('title') or ''})"

    return _MD_LINK_RE.sub(replace, text)


@dataclass
class RenamePlan:
    old: Path
    new: Path
    rewrites: dict[Path, tuple[str, str]]  # file (current path) -> (old text, new text)


def plan_rename(root: Path, old: Path, new: Path) -> RenamePlan:
    """Read the vault and compute every rewritten file, touching nothing on disk."""
    if not old.is_file():
        raise VaultOpError(f"{old.name} no longer exists.")
    if new.exists() and new.resolve() != old.resolve():
        raise VaultOpError(f"{new.relative_to(root).as_posix()} already exists.")
    index = PageIndex.scan(root)
    after = PageIndex.scan(root)
    after.remove(old)
    after.add(new)
    new_target = after.link_target_for(new)
    rewrites: dict[Path, tuple[str, str]] = {}
    for path in markdown_files(root):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # a file we cannot read cannot link to anything we can rewrite
        new_source = new if path == old else path
        updated = _rewrite_wikilinks(text, path, old, new, index, new_target)
        updated = _rewrite_md_links(updated, path, new_source, old, new)
        if updated != text:
            rewrites[path] = (text, updated)
    return RenamePlan(old, new, rewrites)


def rename_page(root: Path, old: Path, new: Path) -> list[Path]:
    """Rename or move a page and rewrite links to it. Returns every file written (new paths)."""
    plan = plan_rename(root, old, new)
    written: list[tuple[Path, str]] = []
    try:
        for path, (before, after) in plan.rewrites.items():
            atomic_write_text(path, after)
            written.append((path, before))
        new.parent.mkdir(parents=True, exist_ok=True)
        os.replace(old, new)
    except OSError as exc:
        for path, before in reversed(written):
            atomic_write_text(path, before)
        raise VaultOpError(f"Could not rename {old.name}: {exc}") from exc
    touched = [new if p == old else p for p in plan.rewrites]
    return sorted({new, *touched})


def rename_folder(root: Path, old: Path, new: Path) -> list[Path]:
    """Rename or move a folder; path-style links into it are rewritten page by page first."""
    if new.exists():
        raise VaultOpError(f"{new.relative_to(root).as_posix()} already exists.")
    if new.is_relative_to(old):
        raise VaultOpError("A folder cannot be moved into itself.")
    pages = [p for p in markdown_files(old)]
    touched: set[Path] = set()
    new.mkdir(parents=True)
    try:
        for page in pages:
            target = new / page.relative_to(old)
            touched.update(rename_page(root, page, target))
        for leftover in sorted(old.rglob("*"), key=lambda p: len(p.parts)):
            dest = new / leftover.relative_to(old)
            if leftover.is_dir():
                dest.mkdir(parents=True, exist_ok=True)
            elif leftover.exists():
                dest.parent.mkdir(parents=True, exist_ok=True)
                os.replace(leftover, dest)
        shutil.rmtree(old)
    except OSError as exc:
        raise VaultOpError(f"Could not move folder {old.name}: {exc}") from exc
    return sorted(touched)


def new_page(folder: Path, name: str, body: str | None = None) -> Path:
    """Create ``folder/name.md`` (never overwriting) with a title heading."""
    name = check_name(name)
    path = folder / f"{name}.md"
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with path.open("x", encoding="utf-8") as handle:
            handle.write(body if body is not None else f"# {name}\n\n")
    except FileExistsError:
        raise VaultOpError(f"{path.name} already exists in {folder.name}.") from None
    return path


@dataclass(frozen=True)
class TrashRecord:
    original: Path
    trashed: Path


def move_to_trash(root: Path, trash_dir: Path, path: Path) -> TrashRecord:
    """Move a page or folder into the vault's hidden trash, keeping its relative path."""
    rel = path.relative_to(root)
    dest = trash_dir / rel
    if dest.exists():
        dest = dest.with_name(f"{dest.stem} {time.strftime('%Y%m%d-%H%M%S')}{dest.suffix}")
        counter = 1
        while dest.exists():
            dest = dest.with_name(f"{dest.stem}-{counter}{dest.suffix}")
            counter += 1
    dest.parent.mkdir(parents=True, exist_ok=True)
    os.replace(path, dest)
    return TrashRecord(path, dest)


def restore_from_trash(record: TrashRecord) -> Path:
    """Undo a delete; refuses to overwrite a file created at the old place meanwhile."""
    if record.original.exists():
        raise VaultOpError(f"{record.original.name} exists again; the trashed copy stays in .trash.")
    if not record.trashed.exists():
        raise VaultOpError(f"The trashed copy of {record.original.name} is gone.")
    record.original.parent.mkdir(parents=True, exist_ok=True)
    os.replace(record.trashed, record.original)
    return record.original


def backlinks(root: Path, page: Path) -> list[tuple[Path, int, str]]:
    """(file, line, text) of every wikilink or markdown link that resolves to ``page``."""
    index = PageIndex.scan(root)
    hits: list[tuple[Path, int, str]] = []
    for path in markdown_files(root):
        if path == page:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if any(link.target and index.resolve(link.target, path) == page for _, _, link in find_wikilinks(line)):
                hits.append((path, number, line.strip()))
    return hits
