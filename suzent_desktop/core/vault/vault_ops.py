"""File rules of the vault: create, rename/move with link rewriting, trash and restore.

The UI reaches them through :mod:`suzent_desktop.core.operations`, which turns each into a
:class:`~suzent_desktop.core.files.events.ChangeSet`. Links are read with the one grammar
(:mod:`suzent_desktop.core.files.language.markdown`) and resolved with the one resolver
(:mod:`suzent_desktop.core.vault.links`, Obsidian's rules). A rename or move rewrites every link
that pointed at the old file — wikilinks, embeds and markdown links, an escaped ``\\|`` kept as
written, nothing inside code — in all vault markdown files and JSON Canvas boards (text nodes
as pages, file nodes by their path), prepared in memory first and
written atomically file by file, with the already-written files restored if one write fails,
so a failure never leaves half the vault rewritten. Files reached through a symlink that
leads out of the vault are read, never rewritten.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from suzent_desktop.core.files.disk.atomic import atomic_write_text
from suzent_desktop.core.files.disk.text_hygiene import loads_json
from suzent_desktop.core.files.language.markdown import Link, line_of, links, rewrite_links
from suzent_desktop.core.vault.canvas import is_canvas
from suzent_desktop.core.vault.links import VaultIndex, inside_vault, is_page, relative_href, vault_files

if TYPE_CHECKING:
    from suzent_desktop.core.vault.model import Vault, VaultSnapshot

_INVALID_NAME = re.compile(r'[\\/:*?"<>|#^\[\]]')


class VaultOpError(ValueError):
    """A vault operation was refused; the message says why in the user's terms."""


def markdown_files(root: Path) -> list[Path]:
    """Every ``.md`` file in the vault outside hidden folders (root navigation files included)."""
    return [p for p in vault_files(root) if is_page(p)]


def linking_files(root: Path) -> list[Path]:
    """Every vault file that can hold links: markdown pages and JSON Canvas boards."""
    return [p for p in vault_files(root) if is_page(p) or is_canvas(p)]


MAX_DEPTH = 32  # folders below the vault root a path may name (a model once asked for 1,200)
MAX_PATH_BYTES = 1024  # a vault-relative path, so the whole path stays far below the system's limit


def depth_fault(parts: Sequence[str]) -> str | None:
    """Why a vault path of these parts is too deep or too long to make (None when it is not).

    Folders are made one per level by recursive library code, so a path 1,200 levels deep
    ended in RecursionError, and one 400 deep made 400 folders; both are refused up front.
    """
    if len(parts) - 1 > MAX_DEPTH:
        return f"is {len(parts) - 1} folders deep; a vault path may go at most {MAX_DEPTH} deep"
    size = len("/".join(parts).encode("utf-8", "surrogatepass"))
    if size > MAX_PATH_BYTES:
        return f"is {size} bytes long; a vault path may have at most {MAX_PATH_BYTES}"
    return None


def shorten(path: str, limit: int = 80) -> str:
    """A path as a message shows it: a path hundreds of folders deep is cut, with "…"."""
    return path if len(path) <= limit else path[:limit] + "…"


def check_depth(root: Path, path: Path) -> Path:
    """``path`` when it is not too deep or long below ``root``, else :class:`VaultOpError`."""
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return path
    fault = depth_fault(parts)
    if fault is not None:
        raise VaultOpError(f"{shorten('/'.join(parts))}: {fault}")
    return path


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


# -- link rewriting ---------------------------------------------------------------------------
def _rewrite(text: str, source: Path, new_source: Path, old: Path, new: Path,
             before: VaultIndex, after: VaultIndex) -> str:
    """``text`` of ``source`` with every link to ``old`` naming ``new``; a moved page's own
    relative markdown links are re-based on its new folder."""

    def replacement(link: Link) -> str | None:
        if not link.target:
            return None
        resolved = before.resolve_link(link, source)
        if resolved is None or (resolved != old and source == new_source):
            return None
        target = new if resolved == old else resolved
        if not link.wiki_syntax:
            if resolved != old and before.relative(link.target, source) is None:
                return None  # found by name, not by path: the move does not change it
            return link.retarget(relative_href(target, new_source))
        if resolved != old:
            return None
        if "/" in link.target:
            rel = after.rel(new)
            written = rel if not is_page(rel) or link.target.lower().endswith(".md") else rel[:-3]
        else:
            written = after.link_target_for(new)
            if link.target.lower().endswith(".md") and is_page(new) and "/" not in written:
                written += ".md"
        return link.retarget(written)

    return rewrite_links(text, replacement)


def _rewrite_board(text: str, source: Path, new_source: Path, old: Path, new: Path,
                   before: VaultIndex, after: VaultIndex) -> str:
    """A JSON Canvas board with its text nodes' links and file nodes' paths naming ``new``.

    Text nodes go through the same rewrite as pages. A board that is not a JSON object with a
    list of nodes is the editor's file, not ours to guess at, so it is left as it is; a board
    with nothing to change keeps its bytes.
    """
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    try:
        data: Any = loads_json(text[len(bom):])
    except json.JSONDecodeError:
        return text
    nodes = data.get("nodes") if isinstance(data, dict) else None
    if not isinstance(nodes, list):
        return text
    changed = False
    for node in (n for n in nodes if isinstance(n, dict)):
        if node.get("type") == "text" and isinstance(node.get("text"), str):
            key, value = "text", _rewrite(node["text"], source, new_source, old, new, before, after)
        elif node.get("type") == "file" and isinstance(node.get("file"), str):
            # Obsidian writes a file node's full vault path, with its extension.
            key, value = "file", after.rel(new) if before.resolve(node["file"], source) == old else node["file"]
        else:
            continue
        changed = changed or value != node[key]
        node[key] = value
    return bom + _json_like(data, text[len(bom):]) if changed else text


def _json_like(data: Any, original: str) -> str:
    """``data`` as JSON laid out as ``original`` was (indent, separators, final newline), so a
    board's diff shows only the links that changed."""
    lines = original.splitlines()
    indent = lines[1][: len(lines[1]) - len(lines[1].lstrip())] if len(lines) > 1 else ""
    spaced = '": ' in original  # Python's default (spaced) against JSON.stringify's (compact)
    separators = (", " if spaced and not indent else ",", ": " if spaced else ":")
    text = json.dumps(data, indent=indent or None, separators=separators, ensure_ascii=False)
    return text + "\n" if original.endswith("\n") else text


@dataclass
class RenamePlan:
    old: Path
    new: Path
    rewrites: dict[Path, tuple[str, str]]  # file (current path) -> (old text, new text)


def plan_rename(root: Path, old: Path, new: Path, model: VaultSnapshot | None = None) -> RenamePlan:
    """Compute every rewritten file, touching nothing on disk.

    With ``model`` (the home's vault model as it stands) the names come from it and only the files
    whose links can name ``old`` are read: ``old`` itself and the files the model files under its
    link name. Without one (a folder no home models) the vault is listed and every file that can
    hold links is read."""
    if not old.is_file():
        raise VaultOpError(f"{old.name} no longer exists.")
    if new.exists() and new.resolve() != old.resolve():
        raise VaultOpError(f"{new.relative_to(root).as_posix()} already exists.")
    before = VaultIndex.scan(root) if model is None else model.index
    after = before.copy()
    after.remove(old)
    after.add(new)
    rewrites: dict[Path, tuple[str, str]] = {}
    for path in linking_files(root) if model is None else _linking(model, old):
        if not inside_vault(root, path):
            continue  # reached through a link out of the vault: never written
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # a file we cannot read cannot link to anything we can rewrite
        new_source = new if path == old else path
        rewrite = _rewrite_board if is_canvas(path) else _rewrite
        updated = rewrite(text, path, new_source, old, new, before, after)
        if updated != text:
            rewrites[path] = (text, updated)
    return RenamePlan(old, new, rewrites)


def _linking(model: VaultSnapshot, old: Path) -> list[Path]:
    """The files a rename of ``old`` may rewrite, by the model; ``old`` itself whenever it can hold
    links (re-based), even if the model has not heard of it yet."""
    found = model.linking(old)
    return found if old in found or not (is_page(old) or is_canvas(old)) else [*found, old]


def rename_page(root: Path, old: Path, new: Path, vault: Vault | None = None) -> list[Path]:
    """Rename or move a page and rewrite links to it. Returns every file written (new paths).
    ``vault``: the home's model, asked which files link here and told what was written."""
    if vault is not None:
        vault.apply([old, new])  # a page made a moment ago is known before its links are looked at
    plan = plan_rename(root, old, new, None if vault is None else vault.snapshot())
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
    if vault is not None:  # the next file of a folder's move asks it again
        vault.apply([old, new, *touched])
    return sorted({new, *touched})


def rename_folder(root: Path, old: Path, new: Path, vault: Vault | None = None) -> list[Path]:
    """Rename or move a folder; path-style links into it are rewritten page by page first."""
    if new.exists():
        raise VaultOpError(f"{new.relative_to(root).as_posix()} already exists.")
    if new.is_relative_to(old):
        raise VaultOpError("A folder cannot be moved into itself.")
    # pages and attachments: links to both follow the move (what else is there moves as it is)
    pages = list(vault_files(old)) if vault is None else vault.snapshot(parsed=False).files_under(old)
    touched: set[Path] = set()
    new.mkdir(parents=True)
    try:
        for page in pages:
            target = new / page.relative_to(old)
            touched.update(rename_page(root, page, target, vault))
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
    finally:
        if vault is not None:
            vault.apply([old, new])
    return sorted(touched)


def move_path(root: Path, old: Path, new: Path, vault: Vault | None = None) -> list[Path]:
    """Move a page, a folder or an attachment; links to it follow. Returns every file written.
    ``vault``: the home's model (see :func:`plan_rename`), kept current as files move."""
    check_depth(root, new)
    if old.is_dir():
        return rename_folder(root, old, new, vault)
    if not old.is_file():
        raise VaultOpError(f"{old.name} no longer exists.")
    if not is_page(old) and new.exists():
        raise VaultOpError(f"{new.name} already exists there.")
    return rename_page(root, old, new, vault)  # an attachment's links (embeds, markdown links) follow it too


def new_folder(parent: Path, name: str) -> Path:
    """Create ``parent/name`` (never an existing folder)."""
    path = parent / check_name(name)
    path.mkdir(parents=True)
    return path


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
    """(file, line, text) of every link (wikilink, embed or markdown link) that resolves to ``page``."""
    index = VaultIndex.scan(root)
    hits: list[tuple[Path, int, str]] = []
    for path in markdown_files(root):
        if path == page:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        lines = text.splitlines()
        seen: set[int] = set()
        for link in links(text):
            number = line_of(text, link.start)
            if number not in seen and link.target and index.resolve_link(link, path) == page:
                seen.add(number)
                hits.append((path, number, lines[number - 1].strip()))
    return hits
