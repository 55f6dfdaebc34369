"""Where every file lives. Nothing else in the program builds a path from the home folder."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from suzent_desktop.core.files.disk.confine import Confinement, parse_targets
from suzent_desktop.settings import CONFIG_NAME, Settings

# The vault's navigation files at its root. The program keeps them (index.md by the engines'
# own entry point, log.md by the runner's appends); content tools never write them.
INDEX_MD, LOG_MD, SCHEMA_MD = "index.md", "log.md", "schema.md"
ROOT_NAV_FILES: frozenset[str] = frozenset({INDEX_MD, LOG_MD, SCHEMA_MD})
DEFAULT_ALT_NAMES: tuple[str, str, str] = ("suzent-index.md", "suzent-log.md", "suzent-schema.md")

# The seed's zones. In a fresh vault (or one the app set up before) they stand at the vault
# root; in a vault that already held notes they stand under the app's one folder (``app_folder``).
ZONES: tuple[str, ...] = (
    "0_Inbox",
    "1_Projects",
    "2_Wiki",
    "2_Wiki/Concepts",
    "2_Wiki/Literature",
    "2_Wiki/Syntheses",
    "2_Wiki/Entities",
    "3_Personal",
    "4_Assets",
    "5_Archives",
)
INBOX_ZONE, PERSONAL_ZONE, ASSETS_ZONE = "0_Inbox", "3_Personal", "4_Assets"

# Every navigation file the program seeds carries a ``<!-- suzent:… -->`` comment. Files of
# earlier versions are recognised by their seeded text or by the runner's own entries.
APP_MARKER = "<!-- suzent:"
_LEGACY_SIGNS: dict[str, tuple[str, ...]] = {
    LOG_MD: ("Append-only record of consolidation (`ingest`) and audit (`lint`) runs.",),
    SCHEMA_MD: ("the consolidation runner (\"dream\")",),
    INDEX_MD: (),
}
# An ingest entry with a watermark, or a lint entry: the runner's own format in a log.md.
_RUNNER_ENTRY_RE = re.compile(r"^##\s+\[\d{4}-\d{2}-\d{2}\]\s+(ingest\b.*\bwatermark=|lint\b)", re.MULTILINE)
_HEAD_BYTES = 256 * 1024
_OWNER_CACHE: dict[tuple[str, int, int], bool] = {}


def is_app_file(path: Path, plain_name: str) -> bool:
    """True when the program may write ``path``: it carries the program's marker (or the text
    of an earlier version's seed). A root index.md/log.md/schema.md without it is the user's."""
    try:
        stat = path.stat()
    except OSError:
        return False
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    known = _OWNER_CACHE.get(key)
    if known is not None:
        return known
    try:
        with path.open("rb") as handle:
            head = handle.read(_HEAD_BYTES).decode("utf-8", errors="replace").lstrip("\ufeff")
    except OSError:
        return False
    mine = APP_MARKER in head or any(sign in head for sign in _LEGACY_SIGNS.get(plain_name, ())) or (
        plain_name == LOG_MD and _RUNNER_ENTRY_RE.search(head) is not None
    )
    if len(_OWNER_CACHE) > 256:
        _OWNER_CACHE.clear()
    _OWNER_CACHE[key] = mine
    return mine


def app_dir_for(root: Path, folder: str, alt_names: tuple[str, str, str] = DEFAULT_ALT_NAMES) -> Path:
    """Where the app's zones and navigation files live in the vault ``root``.

    The root itself for a new or empty vault (the seed layout) and for a vault the app set up
    before (its navigation files or zones stand at the root); ``root/folder`` for a folder of
    notes the app has not set up, so opening someone's vault adds no entry to its root but that
    one folder, and only once the app writes a page.
    """
    if not root.is_dir():
        return root
    for plain, alt in zip((INDEX_MD, LOG_MD, SCHEMA_MD), (alt_names[0], alt_names[1], alt_names[2]), strict=True):
        if is_app_file(root / plain, plain) or (root / alt).is_file():
            return root
    if any((root / zone).is_dir() for zone in ZONES if "/" not in zone):
        return root
    try:
        visible = any(not entry.name.startswith(".") for entry in os.scandir(root))
    except OSError:
        return root
    return root / folder if visible else root


class LayoutError(ValueError):
    """A configured folder cannot be used (for example it is an existing file)."""


def default_home() -> Path:
    """``$SUZENT_HOME``, else the platform's user-data folder."""
    env = os.environ.get("SUZENT_HOME", "").strip()
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("suzent-desktop", appauthor=False))


@dataclass(frozen=True)
class Layout:
    home: Path
    memory_dir: Path
    notebook_dir: Path
    index_dir: Path
    # The program's own names for index.md, log.md, schema.md when the user already has those.
    alt_names: tuple[str, str, str] = DEFAULT_ALT_NAMES
    # Real paths outside the vault that links may lead into (setting outside_link_targets).
    outside_targets: tuple[str, ...] = ()
    # Where the zones and navigation files live: the vault root, or its app folder (see app_dir_for).
    app_dir: Path | None = None
    # This device's id, and ``"@ID"`` when it is not the home's first device: the per-device
    # name of every append-only stream this install writes (``core/files/sync/devices.py``).
    device: str = ""
    device_suffix: str = ""

    def __post_init__(self) -> None:
        if self.app_dir is None:
            object.__setattr__(self, "app_dir", self.notebook_dir)

    @classmethod
    def from_settings(cls, home: Path, settings: Settings) -> Layout:
        home = home.expanduser().resolve()

        def pick(value: str, default: Path) -> Path:
            if not value:
                return default
            path = Path(value).expanduser()
            return path if path.is_absolute() else home / path

        notebook_dir = pick(settings.notebook_path, home / "notebook")
        alt_names = (settings.alt_index_name, settings.alt_log_name, settings.alt_schema_name)
        return cls(
            home=home,
            memory_dir=pick(settings.memory_path, home / "memory"),
            notebook_dir=notebook_dir,
            index_dir=pick(settings.index_path, home / ".suzent" / "memory"),
            alt_names=alt_names,
            app_dir=app_dir_for(notebook_dir, settings.app_folder, alt_names),
            outside_targets=parse_targets(settings.outside_link_targets),
        )

    @cached_property
    def confinement(self) -> Confinement:
        """What may be read, indexed and served: the vault and memory folder, by resolved path."""
        return Confinement.of(self.notebook_dir, self.memory_dir, outside=self.outside_targets)

    # the app's part of the vault
    @property
    def app_prefix(self) -> str:
        """The app folder as a vault-relative prefix: ``""`` at the root, else ``"Memory/"``."""
        assert self.app_dir is not None
        rel = self.app_dir.relative_to(self.notebook_dir).as_posix()
        return "" if rel == "." else rel + "/"

    def persons_note(self, path: Path | str) -> bool:
        """A note the person wrote, in a vault the app was opened on: outside the app folder
        (``Memory/``). Forgetting leaves such a note as written unless the person asks otherwise.
        In the app's own home every page is the app's."""
        assert self.app_dir is not None
        path = Path(path)
        return bool(self.app_prefix) and path.is_relative_to(self.notebook_dir) and not path.is_relative_to(self.app_dir)

    def zone(self, name: str) -> Path:
        """A zone's folder (``3_Personal``), at the root or under the app folder."""
        assert self.app_dir is not None
        return self.app_dir / name

    def zone_rel(self, name: str) -> str:
        """A zone's vault-relative path, as engines and links name it."""
        return self.app_prefix + name

    @property
    def new_page_dir(self) -> Path:
        """Where a page made from a bare name goes: the inbox zone, or the root of someone's own vault."""
        return self.zone(INBOX_ZONE) if not self.app_prefix else self.notebook_dir

    # memory side
    @property
    def config_file(self) -> Path:
        return self.home / CONFIG_NAME

    @property
    def archive_dir(self) -> Path:
        return self.memory_dir / "archive"

    @property
    def memory_md(self) -> Path:
        return self.memory_dir / "MEMORY.md"

    @property
    def core_files(self) -> list[Path]:
        return [self.memory_dir / "persona.md", self.memory_dir / "user.md", self.memory_md]

    def daily_log(self, date_iso: str) -> Path:
        """The log this device appends to for that day (readers take every device's: ``core/files/sync/streams.py``)."""
        return self.archive_dir / f"{date_iso}{self.device_suffix}.md"

    @property
    def transcripts_dir(self) -> Path:
        return self.memory_dir / "transcripts"

    def transcript(self, date_iso: str) -> Path:
        return self.transcripts_dir / f"{date_iso}{self.device_suffix}.jsonl"

    # notebook side
    @property
    def state_dir(self) -> Path:
        return self.notebook_dir / ".state"

    @property
    def tombstones_file(self) -> Path:
        return self.state_dir / f"tombstones{self.device_suffix}.jsonl"

    @property
    def forget_journal_file(self) -> Path:
        """Lines that forgetting took off pages, so undo can put them back."""
        return self.state_dir / f"forgotten_lines{self.device_suffix}.jsonl"

    @property
    def recall_log(self) -> Path:
        return self.state_dir / f"recall_log{self.device_suffix}.jsonl"

    @property
    def runner_state_file(self) -> Path:
        """This device's dream attempts, retry counts and runs (each device writes only its own)."""
        return self.state_dir / f"dream_state{self.device_suffix}.json"

    @property
    def uncovered_file(self) -> Path:
        return self.state_dir / "uncovered.json"

    @property
    def lease_dir(self) -> Path:
        """One dream at a time across devices: each device's lease file (``core/engines/dream/runs/lease.py``)."""
        return self.state_dir / "dream-lease"

    @property
    def mcp_activity_file(self) -> Path:
        """Where an MCP server notes its last call, so an open window can show the agent is connected."""
        return self.state_dir / "mcp_activity.json"

    # The navigation files are resolved here and nowhere else: the watermark lives in the
    # program's log file, so every reader and writer must agree on which file that is.
    def _nav(self, plain: str, alt: str) -> Path:
        """``plain`` in the app's folder unless it holds a user's own file of that name, then ``alt``."""
        assert self.app_dir is not None
        path = self.app_dir / plain
        if not path.exists() or is_app_file(path, plain):
            return path
        return self.app_dir / alt

    @property
    def log_md(self) -> Path:
        return self._nav(LOG_MD, self.alt_names[1])

    @property
    def index_md(self) -> Path:
        return self._nav(INDEX_MD, self.alt_names[0])

    @property
    def schema_md(self) -> Path:
        return self._nav(SCHEMA_MD, self.alt_names[2])

    def nav_files(self) -> list[Path]:
        """The program's index, log and schema files as they resolve now."""
        return [self.index_md, self.log_md, self.schema_md]

    def app_nav_names(self) -> frozenset[str]:
        """Root file names the program keeps now (content tools never write them)."""
        return frozenset(p.name for p in self.nav_files())

    def reserved_root_names(self) -> frozenset[str]:
        """Vault-relative paths (lower case) no engine may write: the plain navigation names (the
        program's or the user's) and the alternates, in the app's folder."""
        return frozenset(self.app_prefix.lower() + name for name in ROOT_NAV_FILES | {n.lower() for n in self.alt_names})

    def user_nav_files(self) -> list[tuple[Path, Path]]:
        """(the user's own file, the program's file used instead) for each name the user already had."""
        assert self.app_dir is not None
        pairs = []
        for plain, own in ((INDEX_MD, self.index_md), (LOG_MD, self.log_md), (SCHEMA_MD, self.schema_md)):
            if own.name != plain:
                pairs.append((self.app_dir / plain, own))
        return pairs

    @property
    def trash_dir(self) -> Path:
        return self.notebook_dir / ".trash"

    # derived index
    @property
    def index_state_file(self) -> Path:
        return self.index_dir / "index_state.sqlite"

    def check(self) -> None:
        """Refuse folders that exist as files, with a message naming the path and the setting."""
        for name, path in (
            ("home", self.home),
            ("memory_path", self.memory_dir),
            ("notebook_path", self.notebook_dir),
            ("index_path", self.index_dir),
            ("memory_path/archive", self.archive_dir),
            ("memory_path/transcripts", self.transcripts_dir),
            ("notebook_path/.state", self.state_dir),
        ):
            if path.exists() and not path.is_dir():
                raise LayoutError(f"{path}: {name} must be a folder, but it is a file")
        self._check_memory_not_hidden()

    def _check_memory_not_hidden(self) -> None:
        """Refuse a memory folder inside a hidden folder of the vault (``.state``, ``.obsidian``, ...).

        Every door leaves hidden folders unread (``core/files/disk/confine.py``), so each fact written
        there would be saved and never found: ``remember`` said yes and search found nothing.
        Judged as spelled and as resolved, so a link into ``.state`` is refused too.
        """
        spelled = (os.path.abspath(self.memory_dir), os.path.abspath(self.notebook_dir))
        real = (os.path.realpath(self.memory_dir), os.path.realpath(self.notebook_dir))
        for memory, vault in (spelled, real):
            if memory == vault or not memory.startswith(vault.rstrip(os.sep) + os.sep):
                continue
            hidden = next((part for part in Path(memory).relative_to(vault).parts if part.startswith(".")), None)
            if hidden is not None:
                raise LayoutError(
                    f"{self.memory_dir}: memory_path lies inside the vault's hidden folder {hidden}/, which is never "
                    "read or searched, so every fact kept there would be lost to search; set memory_path to a "
                    "folder that is not hidden (or leave it empty for HOME/memory)")
