"""Where every file lives. Nothing else in the program builds a path from the home folder."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from suzent_desktop.settings import CONFIG_NAME, Settings

# The vault's navigation files at its root. The program keeps them (index.md by the engines'
# own entry point, log.md by the runner's appends); content tools never write them.
INDEX_MD, LOG_MD, SCHEMA_MD = "index.md", "log.md", "schema.md"
ROOT_NAV_FILES: frozenset[str] = frozenset({INDEX_MD, LOG_MD, SCHEMA_MD})


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

    @classmethod
    def from_settings(cls, home: Path, settings: Settings) -> Layout:
        home = home.expanduser().resolve()

        def pick(value: str, default: Path) -> Path:
            if not value:
                return default
            path = Path(value).expanduser()
            return path if path.is_absolute() else home / path

        return cls(
            home=home,
            memory_dir=pick(settings.memory_path, home / "memory"),
            notebook_dir=pick(settings.notebook_path, home / "notebook"),
            index_dir=pick(settings.index_path, home / ".suzent" / "memory"),
        )

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
        return self.archive_dir / f"{date_iso}.md"

    @property
    def transcripts_dir(self) -> Path:
        return self.memory_dir / "transcripts"

    def transcript(self, date_iso: str) -> Path:
        return self.transcripts_dir / f"{date_iso}.jsonl"

    # notebook side
    @property
    def state_dir(self) -> Path:
        return self.notebook_dir / ".state"

    @property
    def tombstones_file(self) -> Path:
        return self.state_dir / "tombstones.jsonl"

    @property
    def forget_journal_file(self) -> Path:
        """Lines that forgetting took off pages, so undo can put them back."""
        return self.state_dir / "forgotten_lines.jsonl"

    @property
    def recall_log(self) -> Path:
        return self.state_dir / "recall_log.jsonl"

    @property
    def runner_state_file(self) -> Path:
        return self.state_dir / "dream_state.json"

    @property
    def uncovered_file(self) -> Path:
        return self.state_dir / "uncovered.json"

    @property
    def mcp_activity_file(self) -> Path:
        """Where an MCP server notes its last call, so an open window can show the agent is connected."""
        return self.state_dir / "mcp_activity.json"

    @property
    def log_md(self) -> Path:
        return self.notebook_dir / LOG_MD

    @property
    def index_md(self) -> Path:
        return self.notebook_dir / INDEX_MD

    @property
    def schema_md(self) -> Path:
        return self.notebook_dir / SCHEMA_MD

    @property
    def trash_dir(self) -> Path:
        return self.notebook_dir / ".trash"

    # derived index
    @property
    def index_state_file(self) -> Path:
        return self.index_dir / ".index_state.json"

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
