"""The notebook vault: bootstrap, content pages, and the ``log.md`` operations log.

``log.md`` is append-only and carries the consolidation watermark. The watermark is the
last ``watermark=YYYY-MM-DD`` token that stands on an *ingest entry line*
(``## [DATE] ingest ...``) outside fenced code: a token in prose, a quoted example or a
code block never moves it, which is how the original system lost today's facts.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from suzent_desktop.core.files.disk.regular import read_regular
from suzent_desktop.core.files.language.markdown import FenceTracker
from suzent_desktop.core.files.paths.layout import INDEX_MD, LOG_MD, SCHEMA_MD, ZONES, Layout
from suzent_desktop.core.vault.links import vault_files
from suzent_desktop.core.vault.model import Classifier, Kind

_SEEDS = ("schema.md", "index.md", "log.md")

_ENTRY_RE = re.compile(r"^##\s+\[(?P<date>\d{4}-\d{2}-\d{2})\]\s+(?P<kind>[A-Za-z_-]+)\b(?P<rest>.*)$")
_WATERMARK_RE = re.compile(r"(?<!\S)watermark=(?P<date>\d{4}-\d{2}-\d{2})(?!\S)")
_SKIPPED_RE = re.compile(r"(?<!\S)skipped=(?P<dates>[\d,-]+)")


class NotebookError(ValueError):
    """The vault cannot be used as configured; the message names the path."""


@dataclass
class LogEntry:
    """One ``## [date] kind ...`` entry of ``log.md`` with the lines that follow it."""

    date: str
    kind: str
    line: int
    headline: str
    watermark: str | None = None
    skipped: list[str] = field(default_factory=list)
    body: list[str] = field(default_factory=list)

    @property
    def summary(self) -> str:
        return "\n".join(self.body).strip()


def _seed_text(name: str) -> str:
    return resources.files("suzent_desktop.resources").joinpath("vault", name).read_text(encoding="utf-8")


def is_hidden(relative: Path) -> bool:
    return any(part.startswith(".") for part in relative.parts)


class Notebook:
    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self._kinds = Classifier(layout)

    @property
    def root(self) -> Path:
        return self.layout.notebook_dir

    # -- bootstrap -------------------------------------------------------------
    def bootstrap(self) -> list[Path]:
        """Create missing zones and seed files; never touch a file that exists. Returns what was created.

        In a vault that already held notes (the app's folder is not the root) only the hidden
        ``.state/`` is made: the app's folder appears with the first page the app writes.
        """
        if self.root.exists() and not self.root.is_dir():
            raise NotebookError(f"{self.root}: notebook_path must be a folder, but it is a file")
        self.root.mkdir(parents=True, exist_ok=True)
        self.layout.state_dir.mkdir(exist_ok=True)
        if self.layout.app_prefix:
            return []
        return self.seed_app_folder()

    def seed_app_folder(self) -> list[Path]:
        """The zones and the seed navigation files in the app's folder, where missing."""
        created: list[Path] = []
        for zone in ZONES:
            folder = self.layout.zone(zone)
            if not folder.exists():
                folder.mkdir(parents=True)
                created.append(folder)
        for name, target in zip(_SEEDS, self._seed_targets(), strict=True):
            if not target.exists():
                try:
                    with target.open("x", encoding="utf-8") as handle:
                        handle.write(_seed_text(name))
                    created.append(target)
                except FileExistsError:
                    pass
        return created

    def _seed_targets(self) -> list[Path]:
        """Where each seed goes: its plain name, or the program's own name when the user has that file."""
        by_name = {INDEX_MD: self.layout.index_md, LOG_MD: self.layout.log_md, SCHEMA_MD: self.layout.schema_md}
        return [by_name[name] for name in _SEEDS]

    # -- pages -------------------------------------------------------------------
    def is_content_page(self, path: Path) -> bool:
        """A markdown page of the vault: not hidden, not the program's root files, not a daily log or
        core file kept inside the vault (the one classifier, ``core/vault/model.py``, decides)."""
        return self._kinds.kind(path) is Kind.PAGE

    def is_canvas(self, path: Path) -> bool:
        """A JSON Canvas board of the vault (indexed by its text nodes, its links checked)."""
        return self._kinds.kind(path) is Kind.CANVAS

    def canvases(self) -> Iterator[Path]:
        for path in vault_files(self.root, self.layout.confinement):
            if self.is_canvas(path):
                yield path

    def content_pages(self) -> Iterator[Path]:
        """Every markdown content page, sorted per folder, skipping hidden folders (``.obsidian``, ``.trash``, ``.state``)."""
        for path in vault_files(self.root, self.layout.confinement):  # links judged by core/files/disk/confine.py
            if self.is_content_page(path):
                yield path

    def relative(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    # -- log.md ------------------------------------------------------------------
    def log_text(self) -> str:
        path = self.layout.log_md
        if not path.is_file():
            return ""
        return read_regular(path).decode("utf-8-sig", errors="replace")

    def entries(self) -> list[LogEntry]:
        """Entry lines outside fenced code, in file order, each with its body."""
        result: list[LogEntry] = []
        fences = FenceTracker()
        current: LogEntry | None = None
        for number, raw in enumerate(self.log_text().splitlines(), start=1):
            line = raw.rstrip("\r")
            if fences.feed(line):
                if current is not None:
                    current.body.append(line)
                continue
            match = None if fences.open is not None else _ENTRY_RE.match(line)
            if match:
                kind = match.group("kind").lower()
                watermark = None
                skipped: list[str] = []
                if kind == "ingest":
                    marks = _WATERMARK_RE.findall(match.group("rest"))
                    watermark = _valid_date(marks[-1]) if marks else None
                    skip = _SKIPPED_RE.search(match.group("rest"))
                    if skip:
                        skipped = [d for d in skip.group("dates").split(",") if _valid_date(d)]
                current = LogEntry(
                    date=match.group("date"),
                    kind=kind,
                    line=number,
                    headline=line,
                    watermark=watermark,
                    skipped=skipped,
                )
                result.append(current)
            elif current is not None:
                if line.startswith("#"):
                    current = None
                else:
                    current.body.append(line)
        return result

    def raw_watermark(self) -> str | None:
        """The last watermark on an ingest entry line, as written (may be in the future)."""
        marks = [e.watermark for e in self.entries() if e.watermark]
        return marks[-1] if marks else None

    def future_watermarks(self, today: dt.date) -> list[LogEntry]:
        """Ingest entries whose watermark is after today: typed by hand or from a wrong clock."""
        return [e for e in self.entries() if e.watermark and e.watermark > today.isoformat()]

    def watermark_error(self, today: dt.date) -> str | None:
        """Why the watermark cannot be trusted, naming the line (None when it can)."""
        future = self.future_watermarks(today)
        if not future:
            return None
        lines = ", ".join(f"{self.layout.log_md}:{e.line}" for e in future)
        marks = ", ".join(sorted({f"watermark={e.watermark}" for e in future}))
        return (
            f"{lines}: {marks} is in the future (today is {today.isoformat()}); it is ignored and no dream "
            "runs until the line is corrected"
        )

    def watermark(self, today: dt.date) -> str | None:
        """The effective watermark: the last one not in the future; one on today counts as yesterday.

        A watermark after today is refused (see :meth:`watermark_error`) rather than read as
        "everything is consolidated", which would silently take pending facts out of search.
        """
        marks = [e.watermark for e in self.entries() if e.watermark and e.watermark <= today.isoformat()]
        if not marks:
            return None
        yesterday = (today - dt.timedelta(days=1)).isoformat()
        return min(marks[-1], yesterday)

    def skipped_dates(self) -> list[str]:
        dates: set[str] = set()
        for entry in self.entries():
            dates.update(entry.skipped)
        return sorted(dates)

    def last_entry(self, kind: str) -> LogEntry | None:
        matches = [e for e in self.entries() if e.kind == kind]
        return matches[-1] if matches else None

    def _append_log(self, text: str) -> None:
        """Append to ``log.md`` (an append-only file, like the daily logs), starting on a fresh line."""
        path = self.layout.log_md
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink():  # the watermark's file is the vault's own, never wherever a link points
            raise NotebookError(f"{path}: is a link; log.md must be a plain file in the vault to be appended to")
        existing = read_regular(path) if path.exists() else b""
        prefix = "" if not existing or existing.endswith(b"\n\n") else ("\n" if existing.endswith(b"\n") else "\n\n")
        fences = FenceTracker()
        for line in existing.decode("utf-8-sig", errors="replace").splitlines():
            fences.feed(line.rstrip("\r"))
        if fences.open is not None:
            # A code block left open (a hand edit, a pasted example) would swallow this entry
            # and the watermark on it; close the block first so the entry always counts.
            prefix = ("\n" if existing and not existing.endswith(b"\n") else "") + fences.open + "\n\n"
        with path.open("a", encoding="utf-8", newline="") as handle:
            handle.write(prefix + text)

    def append_ingest(self, run_date: dt.date, watermark: str, summary: str = "") -> None:
        """Written by the dream runner alone, after a productive run."""
        body = f"\n{summary.strip()}\n" if summary.strip() else ""
        self._append_log(f"## [{run_date.isoformat()}] ingest | daily logs  watermark={watermark}\n{body}")

    def append_skip(self, run_date: dt.date, skipped: list[str], attempts: int) -> None:
        """A batch given up after the retry limit: the watermark moves past it and the dates are named."""
        end = max(skipped)
        self._append_log(
            f"## [{run_date.isoformat()}] ingest | skipped daily logs after {attempts} failed attempts"
            f"  skipped={','.join(sorted(skipped))}  watermark={end}\n"
        )

    def append_lint(self, run_date: dt.date, summary: str = "") -> None:
        body = f"{summary.strip()}\n" if summary.strip() else ""
        self._append_log(f"## [{run_date.isoformat()}] lint\n{body}")


def _valid_date(text: str) -> str | None:
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return None
    return text
