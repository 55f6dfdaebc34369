"""The vault's state, owned once: every file with its kind, every page's links, tags, aliases and headings.

Before this model each consumer (the window's panes, the editor, lint, the dream's tools, vault
operations) walked the vault and parsed its pages on its own, each cache stale in its own way,
and the command line and the MCP server could not ask for backlinks or tags at all. A
:class:`Vault` is built lazily, with one walk of the vault on first use and one read of each page
the first time a question needs page contents. After that it is kept current by
:meth:`Vault.apply`, fed by the file watcher, by operations and by the engines' change-sets: only
the paths they name are looked at again.

Questions are answered by a :class:`VaultSnapshot`: an immutable copy a worker thread may read
while the window applies the next change. :meth:`Vault.snapshot` hands out the current one
(built again only after a change).

The kind of every path is decided here, by :func:`classify`, and nowhere else: a daily log or a
core file kept inside the vault is a log or a core file, never a page.
"""

from __future__ import annotations

import enum
import os
import stat as stat_module
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from suzent_desktop.core.files.disk.confine import UNREADABLE, Confinement
from suzent_desktop.core.files.disk.confine import walk as confine_walk
from suzent_desktop.core.files.disk.regular import read_page
from suzent_desktop.core.files.disk.text_hygiene import decode_lenient
from suzent_desktop.core.files.language.markdown import Link, Outline, outline
from suzent_desktop.core.files.paths.layout import ROOT_NAV_FILES, Layout
from suzent_desktop.core.files.sync.sync_conflicts import page_name
from suzent_desktop.core.vault.canvas import canvas_markdown, is_canvas
from suzent_desktop.core.vault.links import VaultIndex
from suzent_desktop.core.vault.mentions import Mention, unlinked_mentions
from suzent_desktop.core.vault.query import normalize_tag, tag_matches
from suzent_desktop.core.vault.tags import TagNode, tag_tree

T = TypeVar("T")
MENTIONS_LIMIT = 200  # a very common name (a page called "A") would list every page
UNREADABLE_ENTRY = f"{UNREADABLE} read"  # a file the walk found and could not stat (not a folder it could not list)
WATCH_WAIT_S = 30.0  # the first walk waits this long at most for a watcher being put in place


class Kind(enum.Enum):
    """What a path is to the program: one classifier, used by every part of it."""

    PAGE = "page"  # a markdown content page of the vault
    CANVAS = "canvas"  # a JSON Canvas board of the vault
    ATTACHMENT = "attachment"  # any other vault file (an image, a PDF)
    NAV = "nav"  # the program's own index.md, log.md or schema.md at the vault's root
    LOG = "log"  # a daily log
    CORE = "core"  # MEMORY.md, persona.md, user.md
    TRANSCRIPT = "transcript"  # a day's conversation transcript
    HIDDEN = "hidden"  # inside a hidden folder of the vault (.state, .obsidian, .trash) or a hidden file
    OUTSIDE = "outside"  # none of the above: outside the vault, or another file of the memory folder


def classify(layout: Layout, path: Path) -> Kind:
    """The kind of ``path``, from its place alone (the disk is read only to tell the program's own
    navigation files from a user's file of the same name).

    The memory folder is looked at before the vault, so a daily log or a core file kept inside
    the vault is a log or a core file, not a page.
    """
    return Classifier(layout).kind(path)


class Classifier:
    """:func:`classify` with the layout's folders taken once, as strings (a walk asks for every file)."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self._core = {str(p) for p in layout.core_files}
        self._archive = str(layout.archive_dir)
        self._transcripts = str(layout.transcripts_dir)
        self._root = os.path.join(str(layout.notebook_dir), "")
        self._app = str(layout.app_dir) if layout.app_dir is not None else str(layout.notebook_dir)
        memory = layout.memory_dir
        self._memory = os.path.join(str(memory), "") if memory != layout.notebook_dir else None

    def kind(self, path: Path | str) -> Kind:
        text = str(path)
        if text in self._core:
            return Kind.CORE
        folder, _sep, name = text.rpartition(os.sep)
        lower = name.lower()
        counted = page_name(lower)  # a sync tool's conflict copy counts as the file it copies
        if folder == self._archive and counted.endswith(".md"):
            return Kind.LOG  # every device's part of a day's log, and conflict copies of them
        if folder == self._transcripts and counted.endswith(".jsonl"):
            return Kind.TRANSCRIPT
        if self._memory is not None and text.startswith(self._memory):
            return Kind.OUTSIDE  # the memory folder's other files are not the vault's, even inside it
        if not text.startswith(self._root) or len(text) == len(self._root):
            return Kind.OUTSIDE
        if self.hidden(text):
            return Kind.HIDDEN
        if is_canvas(lower):
            return Kind.CANVAS
        if not counted.endswith(".md"):
            return Kind.ATTACHMENT
        if folder == self._app and _program_nav(self.layout, name):
            return Kind.NAV
        return Kind.PAGE


    def hidden(self, path: Path | str) -> bool:
        """Whether a path inside the vault has a hidden part below the vault (``.state``, ``.obsidian``,
        ``.trash``, a dot file): files and folders are hidden by this one rule."""
        relative = str(path)[len(self._root) :]
        return relative.startswith(".") or f"{os.sep}." in relative


def _program_nav(layout: Layout, name: str) -> bool:
    """A file of the app's folder the program keeps (its index/log/schema, plain or alternate name)."""
    lower = name.lower()
    if lower not in {n.rpartition("/")[2] for n in layout.reserved_root_names()}:  # names in the app's folder
        return False
    # The user's own index.md/log.md/schema.md stays a page; the program then uses its alternate name.
    return not (name not in layout.app_nav_names() and lower in ROOT_NAV_FILES)


LINKING_KINDS = frozenset({Kind.PAGE, Kind.CANVAS, Kind.NAV})  # files whose links are read
BACKLINK_KINDS = frozenset({Kind.PAGE, Kind.CANVAS})  # files whose links are a page's backlinks


@dataclass(frozen=True)
class VaultFile:
    """One file of the vault as the walk found it (its path kept as the walk's string: a big vault's
    walk builds no ``Path`` per file)."""

    key: str
    kind: Kind
    stat: tuple[float, int] | None  # (mtime, size); None when it could not be read

    @property
    def path(self) -> Path:
        return Path(self.key)


@dataclass(frozen=True)
class PageFacts:
    """A page's outline and its text (for unlinked mentions), read at ``stat``."""

    stat: tuple[float, int] | None
    outline: Outline
    text: str


@dataclass(frozen=True)
class Backlink:
    """A page linking to another: where the first such link stands, and its line as context."""

    source: Path
    line: int
    context: str


def _stat(path: Path | str) -> tuple[float, int] | None:
    """(mtime, size) as the index records them; None when the file cannot be stat'ed (a dangling link)."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_mtime, stat.st_size


def _walk_entries(root: Path | str, confinement: Confinement, refused: list[tuple[str, str]] | None = None,
                  folders: list[str] | None = None) -> Iterator[tuple[str, tuple[float, int]]]:
    """Every file under ``root`` the confinement rule allows (``core/files/disk/confine.py``: hidden folders and
    files, links out of the vault or into a program folder are left out), with its (mtime, size). An
    entry that cannot be had (a dangling link, a loop) is no file of the model: it is left out too
    (:meth:`VaultSnapshot.unreadable` lists it, so the index pass names it).

    One ``os.scandir`` per folder, the stat taken with the listing: this is the cost of opening a
    big vault. Symlinked folders inside the rule are followed, as Obsidian does, with loops cut.
    Every entry left out is appended to ``refused`` with why (the window and lint name them); every
    folder the rule allows is appended to ``folders`` (empty ones too: the vault tree shows them).
    """
    for key, stat in confine_walk(root, confinement, refused, folders=folders):
        yield key, (stat.st_mtime, stat.st_size)


def _link_name(target: str) -> str:
    """The key a link is filed under: its last path part, lower case, ``.md`` dropped (what it can name)."""
    name = target.strip().replace("\\", "/").rstrip("/").rsplit("/", 1)[-1].lower()
    return name[:-3] if name.endswith(".md") else name


def read_facts(path: Path, stat: tuple[float, int] | None) -> PageFacts:
    """A page or board read and outlined (an unreadable file has no links, tags or headings)."""
    try:
        text = decode_lenient(read_page(path))[0]
    except OSError:
        text = ""
    source = canvas_markdown(text) if is_canvas(path) else text
    return PageFacts(stat, outline(source), source)


class VaultSnapshot:
    """The vault as it stood at one moment: safe to read from any thread, never changed."""

    def __init__(
        self,
        root: Path,
        files: dict[str, VaultFile],
        names: VaultIndex | None,
        facts: dict[str, PageFacts] | None,
        linkers: dict[str, frozenset[str]],
        tagged: dict[str, tuple[str, ...]],
        refused: dict[str, str] | None = None,
        folders: frozenset[str] = frozenset(),
    ) -> None:
        self.root = root
        self._folders = folders  # every folder below the root the walk entered, empty ones too
        self._refused = refused or {}  # entries the confinement rule left out -> why
        self._files = files
        self._names = names
        self._facts = facts
        self._linkers = linkers  # link name -> pages holding a link with that name
        self._tagged = tagged  # page -> its tags (pages without tags left out)
        self._views: dict[str, object] = {}  # lists built from this snapshot for a view (view())

    @classmethod
    def empty(cls, root: Path) -> VaultSnapshot:
        """The model of a vault before its first walk has come back: no files, no names."""
        root = Path(root)
        return cls(root, {}, VaultIndex(root), {}, {}, {}, {})

    def view(self, key: str, build: Callable[[VaultSnapshot], T]) -> T:
        """A value built from this snapshot (the switcher's rows, the names ``[[`` offers), built once:
        the snapshot never changes, so neither does the value. Two threads asking at once may both build."""
        if key not in self._views:
            self._views[key] = build(self)
        return self._views[key]  # type: ignore[return-value]

    # -- files ---------------------------------------------------------------------------------
    @property
    def parsed(self) -> bool:
        """Whether the pages' contents are in this snapshot (links, tags, aliases, headings)."""
        return self._facts is not None

    def files(self, *kinds: Kind) -> list[Path]:
        """The vault's files (of these kinds), sorted by path."""
        wanted = set(kinds)
        return sorted(f.path for f in self._files.values() if not wanted or f.kind in wanted)

    def pages(self) -> list[Path]:
        return self.files(Kind.PAGE)

    def folders(self) -> list[Path]:
        """The vault's folders below its root, empty ones too (hidden ones and those the confinement rule
        refuses left out), sorted by path: what the vault tree shows besides the files."""
        return sorted(Path(key) for key in self._folders)

    def files_under(self, folder: Path, *kinds: Kind) -> list[Path]:
        """The files (of these kinds) inside ``folder``, sorted by path."""
        inside = os.path.join(str(folder), "")
        wanted = set(kinds)
        return sorted(f.path for key, f in self._files.items() if key.startswith(inside) and (not wanted or f.kind in wanted))

    def refused(self) -> list[tuple[str, str]]:
        """The entries the confinement rule leaves out (``core/files/disk/confine.py``), as vault-relative posix
        paths with why: links out of the vault or into a program folder, loops, unreadable folders.
        A link that is not followed is never silent: the window and lint name them."""
        base = str(self.root)
        return sorted((os.path.relpath(key, base).replace(os.sep, "/"), why) for key, why in self._refused.items())

    def unreadable(self) -> list[str]:
        """Entries the walk found but could not read or resolve (a dangling link, a loop), as path strings."""
        return [key for key, why in self._refused.items() if why.startswith(UNREADABLE_ENTRY)]

    def entries(self, *kinds: Kind) -> list[VaultFile]:
        """The files of these kinds with their kind and stat, in no particular order."""
        wanted = set(kinds)
        return [f for f in self._files.values() if f.kind in wanted]

    def kind(self, path: Path | str) -> Kind | None:
        """The kind of a file the walk found, None for one it did not (a path string is fine: no Path built)."""
        found = self._files.get(str(path))
        return found.kind if found else None

    def stat(self, path: Path) -> tuple[float, int] | None:
        found = self._files.get(str(path))
        return found.stat if found else None

    def __len__(self) -> int:
        return len(self._files)

    def rel(self, path: Path) -> str:
        """A path as the vault shows it (``2_Wiki/Kyoto.md``)."""
        return self.index.rel(Path(path))

    def find_page(self, name: str) -> Path:
        """The page or file a user names, as a vault path or as a link names it (``Kyoto``,
        ``2_Wiki/Kyoto.md``); ValueError naming it when the vault has no such file."""
        found = self.index.resolve(name.strip().lstrip("/")) if name.strip() else None
        if found is None:
            raise ValueError(f"{name}: no page or file of that name in the vault {self.root}")
        return found

    # -- names and links -----------------------------------------------------------------------
    @property
    def index(self) -> VaultIndex:
        """The resolver over every file (do not change it: it belongs to this snapshot)."""
        if self._names is None:
            raise RuntimeError("this snapshot holds no names; ask Vault.snapshot(names=True)")
        return self._names

    def resolve(self, target: str, source: Path | None = None) -> Path | None:
        return self.index.resolve(target, source)

    def resolve_link(self, link: Link, source: Path | None = None) -> Path | None:
        return self.index.resolve_link(link, source)

    def link_target_for(self, page: Path) -> str:
        return self.index.link_target_for(page)

    def _need_facts(self) -> dict[str, PageFacts]:
        if self._facts is None:
            raise RuntimeError("this snapshot holds no page contents; ask Vault.snapshot(parsed=True)")
        return self._facts

    def _page_facts(self, path: Path) -> PageFacts | None:
        return self._need_facts().get(str(path))

    def text(self, page: Path) -> str | None:
        """A page's text as the model read it (a board's as the markdown it stands for); None for a
        file whose text the model does not hold."""
        facts = self._page_facts(page)
        return facts.text if facts else None

    def links(self, page: Path) -> list[tuple[int, Link]]:
        """(line, link) of every link of a page or board."""
        facts = self._page_facts(page)
        return list(facts.outline.links) if facts else []

    def backlinks(self, target: Path) -> list[Backlink]:
        """Pages and boards whose links name ``target`` (by the one resolver), one entry each, by path."""
        target = Path(target)
        keys = {_link_name(target.name)}
        found: list[Backlink] = []
        sources: set[str] = set()
        for key in keys:
            sources |= self._linkers.get(key, frozenset())
        for source in sorted(sources):
            file = self._files.get(source)
            if source == str(target) or file is None or file.kind not in BACKLINK_KINDS:
                continue
            facts = self._page_facts(Path(source))
            if facts is None:
                continue
            page = Path(source)
            for line, link in facts.outline.links:
                if _link_name(link.target) in keys and self.index.resolve_link(link, page) == target:
                    board = is_canvas(page)  # a board's lines are its JSON's: open it at the top
                    found.append(Backlink(page, 1 if board else line, "" if board else _line_text(facts.text, line)))
                    break
        return found

    def linking(self, target: Path) -> list[Path]:
        """The files whose links may name ``target`` (pages, boards and the program's navigation
        files holding a link filed under its name), and ``target`` itself when it holds links: every
        file a rename of ``target`` may have to rewrite. Whether a link resolves to it is the caller's."""
        target = Path(target)
        keys = set(self._linkers.get(_link_name(target.name), frozenset()))
        if self.kind(target) in LINKING_KINDS:
            keys.add(str(target))
        self._need_facts()
        return sorted(Path(k) for k in keys if self.kind(k) in LINKING_KINDS)

    def unlinked_mentions(self, target: Path, limit: int = MENTIONS_LIMIT) -> list[Mention]:
        """Where other pages write ``target``'s name or one of its aliases without a link."""
        names = self.names_of(target)
        found: list[Mention] = []
        facts = self._need_facts()
        for key in sorted(facts):
            file = self._files.get(key)
            if key == str(target) or file is None or file.kind != Kind.PAGE:
                continue
            found += unlinked_mentions(file.path, facts[key].text, names)
            if len(found) >= limit:
                return found[:limit]
        return found

    # -- aliases, names, headings --------------------------------------------------------------
    def aliases(self, page: Path) -> list[str]:
        facts = self._page_facts(page)
        return list(facts.outline.aliases) if facts else []

    def all_aliases(self) -> dict[Path, list[str]]:
        """Every page with frontmatter aliases, and them."""
        return {Path(k): list(f.outline.aliases) for k, f in (self._facts or {}).items() if f.outline.aliases}

    def names_of(self, page: Path) -> list[str]:
        """What a page answers to in prose: its name and its aliases."""
        names = [Path(page).stem, *self.aliases(page)] if str(page) in self._files else [Path(page).stem]
        return list(dict.fromkeys(n.strip() for n in names if n.strip()))

    def headings(self, page: Path) -> list[tuple[int, int, str]]:
        facts = self._page_facts(page)
        return list(facts.outline.headings) if facts else []

    # -- tags ----------------------------------------------------------------------------------
    def tags_of(self, path: Path | str) -> tuple[str, ...]:
        return self._tagged.get(str(path), ())

    def tag_counts(self) -> dict[str, int]:
        """Every tag (and each parent of a nested one), as first written, with the pages carrying it."""
        counts: dict[str, int] = {}

        def walk(nodes: list[TagNode]) -> None:
            for node in nodes:
                counts[node.tag] = node.count
                walk(node.children)

        walk(self.tag_tree())
        return counts

    def tag_tree(self) -> list[TagNode]:
        self._need_facts()
        return tag_tree(self._tagged[key] for key in self._tagged if self._page_kind(key))

    def pages_tagged(self) -> list[Path]:
        """Pages carrying any tag, by path."""
        self._need_facts()
        return sorted(Path(key) for key in self._tagged if self._page_kind(key))

    def pages_with_tag(self, tag: str) -> list[Path]:
        """Pages carrying ``tag`` or a tag nested under it (any case), by path."""
        self._need_facts()
        wanted = normalize_tag(tag)
        return sorted(
            Path(key) for key, found in self._tagged.items()
            if self._page_kind(key) and any(tag_matches(wanted, t) for t in found)
        )

    def _page_kind(self, key: str) -> bool:
        file = self._files.get(key)
        return file is not None and file.kind == Kind.PAGE


def _line_text(text: str, line: int) -> str:
    lines = text.splitlines()
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


@dataclass
class _State:
    """The mutable model a :class:`Vault` keeps under its lock."""

    files: dict[str, VaultFile] = field(default_factory=dict)
    names: VaultIndex | None = None
    facts: dict[str, PageFacts] | None = None
    linkers: dict[str, frozenset[str]] = field(default_factory=dict)
    tagged: dict[str, tuple[str, ...]] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)  # entries the confinement rule leaves out -> why
    folders: set[str] = field(default_factory=set)  # folders below the root, empty ones too


class Vault:
    """The one model of the vault a home owns; built on first use, then kept current by :meth:`apply`."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.root = layout.notebook_dir
        self._lock = threading.RLock()
        self._kinds = Classifier(layout)
        self._inside = os.path.join(str(self.root), "")
        self._state: _State | None = None
        self._snapshot: VaultSnapshot | None = None
        self.walks = 0  # full walks of the vault so far (one per open, unless refresh() is asked)
        # True while a file watcher feeds apply() every change (the window): the model is then current.
        self.watched = False
        # Cleared while a watcher is being put in place (the window's start): the first walk waits for
        # it, so nothing changed between the walk and the watch goes unseen, and nothing walks twice.
        self._ready = threading.Event()
        self._ready.set()
        self._hold_until = 0.0  # monotonic time the first walk waits until at most, while held
        self._look_again = False

    # -- building ------------------------------------------------------------------------------
    @property
    def built(self) -> bool:
        """Whether the first walk is done (asking then never walks the whole vault, nor waits for a watcher)."""
        return self._state is not None

    @property
    def held(self) -> bool:
        """Whether the first walk is waiting for a watcher being put in place (:meth:`hold_walks`)."""
        return self._state is None and not self._ready.is_set() and time.monotonic() < self._hold_until

    def hold_walks(self, seconds: float = WATCH_WAIT_S) -> None:
        """A watcher is about to be put in place: the first walk waits until :meth:`release_walks` (or
        :meth:`watch`), ``seconds`` at most from now. Never call a walking method on the GUI thread."""
        self._hold_until = time.monotonic() + seconds
        self._ready.clear()

    def release_walks(self) -> None:
        self._ready.set()

    def watch(self, watching: bool) -> None:
        """A watcher feeds :meth:`apply` every change from now on (or stopped). A model built before it
        was in place looks at the disk once more (on the next question, in that worker thread): a change
        made between that walk and the watch would otherwise never be seen."""
        self.watched = watching
        if watching and self._state is not None:
            self._look_again = True
        self.release_walks()

    def _walked(self) -> _State:
        if self._state is None:
            while not self._ready.is_set() and time.monotonic() < self._hold_until:
                self._ready.wait(timeout=min(0.1, max(0.0, self._hold_until - time.monotonic())))
            state = _State()
            refused: list[tuple[str, str]] = []
            folders: list[str] = []
            for key, stat in _walk_entries(self.root, self.layout.confinement, refused, folders):
                self._add_file(state, key, stat)
            state.refused = dict(refused)
            state.folders.update(f for f in folders if self._keeps_folder(f))
            self.walks += 1
            self._state = state
        return self._state

    def walk(self, folder: Path | None = None, *, force: bool = True) -> VaultSnapshot:
        """Look at the disk again, the whole vault or one folder of it, and take in what changed
        (pages whose size or mtime changed are read again): for a user's "reindex changed files".
        ``force=False`` looks only where no watcher keeps the model current (:meth:`current`)."""
        with self._lock:
            if self._state is None:
                self._walked()
            elif folder is None and not force and self.watched:
                pass
            elif folder is None:
                self._rescan(self._state, self.root)
                self.walks += 1
            else:
                self._apply_path(self._state, Path(folder))
            self._snapshot = None
            return self.snapshot(parsed=False, names=False)

    def current(self, *, parsed: bool = True) -> VaultSnapshot:
        """The vault as the disk has it now, for a reader that needs every change (lint, a dream run): the
        model itself while a watcher keeps it current, else after one look at the disk (a process that
        watches nothing cannot know what other programs changed since its last look)."""
        with self._lock:
            if self._state is not None and not self.watched:
                self._rescan(self._state, self.root)
                self.walks += 1
                self._snapshot = None
            return self.snapshot(parsed=parsed)

    def _rescan(self, state: _State, folder: Path) -> None:
        """Files under ``folder`` as the disk has them now: added, changed, gone."""
        inside = os.path.join(str(folder), "")
        present: set[str] = set()
        files = state.files
        whole = folder == self.root
        for key in [k for k in state.refused if whole or k == str(folder) or k.startswith(inside)]:
            del state.refused[key]
        reason = None if whole else self.layout.confinement.refusal(folder)
        folders: list[str] = []
        if reason is not None:  # a folder linked out of the vault or into a program folder
            if self._kinds.kind(folder) not in (Kind.HIDDEN, Kind.OUTSIDE):
                state.refused[str(folder)] = reason
        elif self._kinds.kind(os.path.join(inside, "x")) not in (Kind.HIDDEN, Kind.OUTSIDE) or whole:
            refused: list[tuple[str, str]] = []
            for key, stat in _walk_entries(folder, self.layout.confinement, refused, folders):
                present.add(key)
                known = files.get(key)
                if known is None or known.stat != stat:  # most files are as they were: nothing to do
                    self._update_file(state, key, stat)
            state.refused.update(refused)
            if not whole:
                folders.append(str(folder))
        kept = {f for f in folders if self._keeps_folder(f)}
        for gone in [f for f in state.folders if (whole or f == str(folder) or f.startswith(inside)) and f not in kept]:
            state.folders.discard(gone)
        for found in kept:
            self._add_folder(state, found)
        for gone in [k for k in files if (whole or k.startswith(inside)) and k not in present]:
            self._remove_file(state, gone)

    def _parsed(self) -> _State:
        state = self._walked()
        if state.facts is None:
            state.facts = {}
            for key, file in state.files.items():
                if file.kind in LINKING_KINDS:
                    self._read_page(state, key, file)
        return state

    def _add_file(self, state: _State, key: str, stat: tuple[float, int] | None) -> None:
        kind = self._kinds.kind(key)
        if kind in (Kind.HIDDEN, Kind.OUTSIDE) or not key.startswith(self._inside):
            return  # a daily log or core file outside the vault is no file of it
        state.files[key] = VaultFile(key, kind, stat)
        self._add_folder(state, key.rpartition(os.sep)[0])  # a file written into a folder not seen yet
        if state.names is not None:
            state.names.add(Path(key))

    def _keeps_folder(self, key: str) -> bool:
        """A folder below the root that is not hidden, by the classifier's rule for files."""
        return key.startswith(self._inside) and not self._kinds.hidden(key)

    def _add_folder(self, state: _State, key: str) -> None:
        """A folder and those holding it, up to the root (a folder made with its parents at once)."""
        while key not in state.folders and self._keeps_folder(key):
            state.folders.add(key)
            key = key.rpartition(os.sep)[0]

    def _read_page(self, state: _State, key: str, file: VaultFile) -> None:
        assert state.facts is not None
        self._drop_facts(state, key)
        facts = read_facts(file.path, file.stat)
        state.facts[key] = facts
        for name in {_link_name(link.target) for _line, link in facts.outline.links}:
            state.linkers[name] = state.linkers.get(name, frozenset()) | {key}
        if facts.outline.tags:
            state.tagged[key] = facts.outline.tags

    def _drop_facts(self, state: _State, key: str) -> None:
        old = state.facts.pop(key, None) if state.facts is not None else None
        state.tagged.pop(key, None)
        if old is None:
            return
        for name in {_link_name(link.target) for _line, link in old.outline.links}:
            left = state.linkers.get(name, frozenset()) - {key}
            if left:
                state.linkers[name] = left
            else:
                state.linkers.pop(name, None)

    def _remove_file(self, state: _State, key: str) -> None:
        file = state.files.pop(key, None)
        if file is None:
            return
        if state.names is not None:
            state.names.remove(file.path)
        self._drop_facts(state, key)

    # -- reading -------------------------------------------------------------------------------
    def snapshot(self, *, parsed: bool = True, names: bool = True) -> VaultSnapshot:
        """The vault as it stands now, for any thread. ``parsed=False`` spares reading the pages when
        only files, kinds and names are needed (the first call then walks without reading);
        ``names=False`` spares building the resolver when only files and kinds are (the index's walk)."""
        with self._lock:
            if self._look_again and self._state is not None:
                self._look_again = False
                self._rescan(self._state, self.root)
                self.walks += 1
                self._snapshot = None
            state = self._parsed() if parsed else self._walked()
            known = self._snapshot
            if known is not None and (known.parsed or not parsed) and (known._names is not None or not names):
                return known
            if names and state.names is None:
                state.names = VaultIndex(self.root)
                for key in state.files:
                    state.names.add(Path(key))
            resolver = None if state.names is None else state.names.copy()  # the name lists never change in place
            self._snapshot = VaultSnapshot(
                self.root,
                dict(state.files),
                resolver,
                dict(state.facts) if state.facts is not None else None,
                dict(state.linkers),
                dict(state.tagged),
                dict(state.refused),
                frozenset(state.folders),
            )
            return self._snapshot

    # Shortcuts for one question; several questions should share one snapshot.
    def resolve(self, target: str, source: Path | None = None) -> Path | None:
        return self.snapshot(parsed=False).resolve(target, source)

    def backlinks(self, target: Path) -> list[Backlink]:
        return self.snapshot().backlinks(target)

    def unlinked_mentions(self, target: Path, limit: int = MENTIONS_LIMIT) -> list[Mention]:
        return self.snapshot().unlinked_mentions(target, limit)

    def tag_tree(self) -> list[TagNode]:
        return self.snapshot().tag_tree()

    def pages_with_tag(self, tag: str) -> list[Path]:
        return self.snapshot().pages_with_tag(tag)

    def kind(self, path: Path) -> Kind:
        """The kind of any path (found by the walk or not): the one classifier."""
        return self._kinds.kind(path)

    # -- keeping current -----------------------------------------------------------------------
    def apply(self, changes: object) -> None:
        """Bring the model in line with what changed: paths (files or folders, present or gone), a
        ``ChangeSet`` of an operation or an engine. Nothing else is read.

        Before the first walk there is nothing to keep current: the walk will see the change.
        """
        paths = changed_paths(changes)
        with self._lock:
            if self._state is None or not paths:
                return
            state = self._state
            for path in paths:
                self._apply_path(state, path)
            self._snapshot = None

    def _apply_path(self, state: _State, path: Path) -> None:
        key = str(path)
        try:
            found = os.stat(key)  # one call tells a folder, a file and a path that is gone apart
        except OSError:
            found = None
            state.refused.pop(key, None)
        if found is not None and stat_module.S_ISDIR(found.st_mode):
            self._rescan(state, path)
        elif found is not None and not self._confined(state, key):
            self._remove_file(state, key)  # a link out of the vault or into a program folder
        elif found is not None and stat_module.S_ISREG(found.st_mode):
            self._update_file(state, key, (found.st_mtime, found.st_size))
        elif key in state.files and found is None:
            self._remove_file(state, key)  # a file gone (the common case: no scan of every key)
        else:
            inside = os.path.join(key, "")
            for gone in [k for k in state.files if k == key or k.startswith(inside)]:
                self._remove_file(state, gone)
            state.folders -= {f for f in state.folders if f == key or f.startswith(inside)}

    def _confined(self, state: _State, key: str) -> bool:
        """Whether the confinement rule allows this file (``core/files/disk/confine.py``); a refusal is recorded."""
        state.refused.pop(key, None)
        if self._kinds.kind(key) in (Kind.HIDDEN, Kind.OUTSIDE):
            return True  # never a file of the model anyway (and hidden names are not named)
        reason = self.layout.confinement.refusal(key)
        if reason is not None:
            state.refused[key] = reason
        return reason is None

    def _update_file(self, state: _State, key: str, stat: tuple[float, int] | None) -> None:
        known = state.files.get(key)
        if known is None:
            self._add_file(state, key, stat)
            known = state.files.get(key)
            if known is None:
                return
        elif known.stat != stat:
            known = VaultFile(key, known.kind, stat)
            state.files[key] = known
        if state.facts is not None and known.kind in LINKING_KINDS:
            facts = state.facts.get(key)
            if facts is None or facts.stat != stat:
                self._read_page(state, key, known)

    def refresh(self) -> None:
        """Forget everything: the next question walks the vault again (asked by the user)."""
        with self._lock:
            self._state = None
            self._snapshot = None


def changed_paths(changes: object) -> list[Path]:
    """The paths a change names, whatever form it comes in (paths, a ``ChangeSet``)."""
    if changes is None:
        return []
    if isinstance(changes, str | Path):
        return [Path(changes)]
    moved = getattr(changes, "moved", None)
    if moved is not None:  # a ChangeSet: an operation's files, a pass's pages
        found = [*changes.added, *changes.changed, *changes.removed, *changes.folders]  # type: ignore[attr-defined]
        for old, new in moved:
            found += [old, new]
        for original, _copy in changes.trashed:  # type: ignore[attr-defined]
            found.append(original)
        found += sorted(changes.pages, key=str)  # type: ignore[attr-defined]
        return list(dict.fromkeys(Path(p) for p in found))
    if isinstance(changes, Iterable):
        return [Path(p) for p in changes]
    raise TypeError(f"not a change: {changes!r}")

