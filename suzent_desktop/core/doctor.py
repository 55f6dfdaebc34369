"""``doctor``: find what is wrong with a home, and say where, without changing anything.

The home is opened read-only (``open_home(bootstrap=False)``: nothing is bootstrapped, repaired or
reindexed), so it is safe to run on a broken home or on a vault that another program is editing.
Every check reads the home's own stores, and the vault is walked once, by its model, and the days
read once: the pages, the entries the confinement rule refuses, the conflict copies, the facts that
left their pages and the index's stale files and rows all come from that one walk (a
:class:`~suzent_desktop.core.index.rows.sources.Moment` handed to the index). Forgotten text search
still shows is found by the one rule (``core/vault/forgotten.py``). Each finding names the file
and, where there is one, the line.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from suzent_desktop.core.engines.forgetting import find_forgotten
from suzent_desktop.core.engines.ledger.lost_facts import LostFacts
from suzent_desktop.core.files.clock import Clock
from suzent_desktop.core.files.disk.regular import read_regular
from suzent_desktop.core.files.paths.layout import Layout, LayoutError
from suzent_desktop.core.files.records.archive import Archive
from suzent_desktop.core.files.records.log_grammar import parse_log
from suzent_desktop.core.files.records.transcripts import Transcripts
from suzent_desktop.core.files.sync import sync_check
from suzent_desktop.core.files.sync.devices import DeviceError
from suzent_desktop.core.home import Home, open_home, prepare
from suzent_desktop.core.index.rows.sources import Moment
from suzent_desktop.core.vault.days import Days
from suzent_desktop.core.vault.forgotten import Forgotten
from suzent_desktop.core.vault.links import inside_vault
from suzent_desktop.core.vault.model import Kind, VaultSnapshot
from suzent_desktop.core.vault.notebook import Notebook
from suzent_desktop.settings import SettingsError

ERROR, WARNING, INFO = "error", "warning", "info"
NOT_FOLLOWED = "left out of the index, search, the dream and the agent's tools"
_STILL_STANDS = "forgotten text still stands in this page (kept out of search)"
_KEPT_IN_NOTE = ("forgotten from memory and kept in your note as you wrote it (out of search and the model's "
                 "prompts; forget --from-notes deletes it here too)")
# Forget follows a folder link out of the vault for reading only (core/manager.py MemoryManager._ours).
_REMAINS_OUTSIDE = (
    "forgotten text remains on this page, outside the vault (reached through a link; forget never writes "
    "there); search no longer shows it"
)


@dataclass(frozen=True)
class Problem:
    severity: str  # "error" | "warning" | "info"
    path: str | None
    line: int | None
    message: str

    def format(self) -> str:
        where = self.path or "(home)"
        if self.line is not None:
            where = f"{where}:{self.line}"
        return f"{where}: {self.severity}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"severity": self.severity, "path": self.path, "line": self.line, "message": self.message}


@dataclass(frozen=True)
class DoctorReport:
    """What ``doctor`` prints: the problems, and the transcript counts (None when the home's
    settings or folders cannot be used, or its transcripts cannot be read)."""

    problems: list[Problem]
    transcripts: dict[str, int] | None = None


def run_doctor(home: Path, *, clock: Clock | None = None, check_index: bool = True) -> list[Problem]:
    """All findings for ``home``, most severe first within each file, files in a stable order."""
    return doctor_report(home, clock=clock, check_index=check_index).problems


def doctor_report(home: Path, *, clock: Clock | None = None, check_index: bool = True) -> DoctorReport:
    """The findings and transcript counts for ``home``. Its settings and layout come from the
    home's own rules (``core/home.prepare``, writing nothing), once: the device's stream names are
    the ones the app would use."""
    home = Path(home).expanduser()
    if home.exists() and not home.is_dir():
        return DoctorReport([Problem(ERROR, str(home), None, "the home must be a folder, but it is a file")])
    if not home.exists():
        return DoctorReport([Problem(INFO, str(home), None, "the home does not exist yet; opening the app or a writing command (remember, capture, dream, …) creates it")])
    try:
        prepared = prepare(home, bootstrap=False)
    except SettingsError as exc:
        return DoctorReport([Problem(ERROR, exc.file or str(home / "config.toml"), exc.line, str(exc))])
    except (LayoutError, DeviceError) as exc:
        return DoctorReport([Problem(ERROR, None, None, str(exc))])
    try:
        opened = open_home(prepared=prepared, clock=clock or Clock())
    except ValueError as exc:  # the embedding model setting names no model
        return DoctorReport([Problem(ERROR, str(home / "config.toml"), None, str(exc))])
    try:
        transcripts = opened.transcripts.counts()
    except (ValueError, OSError):
        transcripts = None
    return DoctorReport(_findings(opened, check_index), transcripts)


def _findings(home: Home, check_index: bool) -> list[Problem]:
    problems: list[Problem] = []
    layout = home.layout
    try:
        today = home.clock.today()
    except ValueError as exc:
        return [Problem(ERROR, None, None, str(exc))]
    stones, stone_problems = home.tombstones.load()
    problems += [Problem(WARNING, str(p.path), p.line, p.reason) for p in stone_problems]
    forgotten = Forgotten(s.content for s in stones)
    # The report is of one moment: the model's walk here and the days read here stand for the whole
    # run, the index's stale files and rows and the lost facts included (as where a watcher keeps the
    # model current), so the vault is walked once and the days are read once.
    home.indexer.watch(True)
    vault = home.vault.snapshot()  # the one walk of the vault (its pages read once, for conflict markers)
    days = Days.read(home.notebook, today)
    moment = Moment(vault, days)
    problems += check_archive(home.archive)
    problems += check_transcripts(home.transcripts)
    problems += check_core_files(layout)
    problems += check_notebook(layout, vault, forgotten)
    problems += check_watermark(home.notebook, days, today)
    problems += [Problem(f.severity, f.path, None, f.message) for f in sync_check.findings(layout, vault)]
    problems += check_not_consolidated(layout, days, forgotten, LostFacts(layout, home.vault))
    problems += check_dropped(layout, days, forgotten)
    if check_index:
        problems += _without_repeats(check_index_health(home, forgotten, moment), problems)
    return problems


def _without_repeats(index_problems: list[Problem], file_problems: list[Problem]) -> list[Problem]:
    """An undecodable file is reported once, by the file check, not again as an index error and a stale file."""
    bad = {p.path for p in file_problems if p.severity == ERROR and p.path}
    kept: list[Problem] = []
    for problem in index_problems:
        if problem.path in bad:
            continue
        if problem.message.startswith("index error: ") and any(
            problem.message[len("index error: ") :].startswith(f"{path}:") for path in bad
        ):
            continue
        kept.append(problem)
    return kept


def _decode(path: Path) -> tuple[str | None, Problem | None]:
    try:
        data = read_regular(path)
    except OSError as exc:
        return None, Problem(ERROR, str(path), None, f"cannot be read: {exc.strerror or exc}")
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return None, Problem(ERROR, str(path), line, f"not valid UTF-8 (byte {exc.start}); the file is not indexed")


def check_archive(archive: Archive) -> list[Problem]:
    """Badly named files, undecodable logs and lines that are not fact lines."""
    problems = [Problem(WARNING, str(bad.path), None, bad.reason) for bad in archive.invalid_files()]
    for date, path in ((d, p) for d in archive.dates() for p in archive.parts(d)):
        text, problem = _decode(path)
        if problem is not None:
            problems.append(problem)
            continue
        assert text is not None
        parsed = parse_log(text)
        if parsed.date is not None and parsed.date != date:
            problems.append(Problem(WARNING, str(path), 1, f"header names {parsed.date}, but the file is {date}"))
        for number, line in parsed.malformed:
            problems.append(
                Problem(WARNING, str(path), number, f"not a fact line (kept, not indexed): {line.strip()[:120]}")
            )
    return problems


def check_transcripts(transcripts: Transcripts) -> list[Problem]:
    """Transcript lines that are not whole turns (a write cut short by a crash, a hand edit)."""
    from suzent_desktop.core.files.records.transcripts import parse as parse_transcript

    problems: list[Problem] = []
    for path in (p for d in transcripts.dates() for p in transcripts.parts(d)):
        text, problem = _decode(path)
        if problem is not None:
            problems.append(problem)
            continue
        assert text is not None
        for number, reason in parse_transcript(text, path).bad_lines:
            problems.append(Problem(WARNING, str(path), number, f"{reason}; kept, not indexed"))
    return problems


def check_core_files(layout: Layout) -> list[Problem]:
    problems: list[Problem] = []
    for path in layout.core_files:
        if path.is_file():
            _, problem = _decode(path)
            if problem is not None:
                problems.append(problem)
    return problems


def check_notebook(layout: Layout, vault: VaultSnapshot, tombstones: Forgotten) -> list[Problem]:
    """Undecodable pages, and forgotten text that still stands in a page (it stays out of the index)."""
    problems: list[Problem] = []
    for nav in (layout.log_md, layout.index_md, layout.schema_md):
        if nav.is_file():
            _, problem = _decode(nav)
            if problem is not None:
                problems.append(problem)
    for user_file, own in layout.user_nav_files():
        problems.append(Problem(INFO, str(user_file), None,
                                f"your own {user_file.name} is left alone; the app keeps {own.name} instead"))
    problems += [Problem(WARNING, str(layout.notebook_dir / rel), None, f"{NOT_FOLLOWED}: {reason}")
                 for rel, reason in vault.refused()]
    for page in vault.files(Kind.PAGE):
        text, problem = _decode(page)
        if problem is not None:
            problems.append(problem)
            continue
        if tombstones and text is not None:
            why = _STILL_STANDS if inside_vault(layout.notebook_dir, page) else _REMAINS_OUTSIDE
            level = WARNING
            if why is _STILL_STANDS and layout.persons_note(page):  # left as written on purpose
                why, level = _KEPT_IN_NOTE, INFO
            problems += [
                Problem(level, str(page), number, f"{why}: {stone[:100]!r}")
                for number, stone in _tombstoned_in(text, tombstones)
            ]
    return problems


def _tombstoned_in(text: str, forgotten: Forgotten) -> list[tuple[int, str]]:
    """(line, tombstone) where forgotten text still stands in ``text``: the first line of each
    paragraph or item the page strip would take off (``core/engines/forgetting.py``)."""
    dead = find_forgotten(text, forgotten)
    return [(i + 1, stone) for i, stone in sorted(dead.items()) if dead.get(i - 1) != stone]


def check_watermark(notebook: Notebook, days: Days, today: dt.date) -> list[Problem]:
    layout = notebook.layout
    if not layout.log_md.is_file():
        return []
    problems: list[Problem] = [
        Problem(WARNING, str(layout.log_md), e.line,
                "this ingest entry's watermark is not a valid date; it does not move the watermark")
        for e in notebook.entries()
        if e.kind == "ingest" and e.watermark is None and "watermark=" in e.headline
    ]
    future = notebook.future_watermarks(today)
    problems += [
        Problem(ERROR, str(layout.log_md), e.line,
                f"watermark={e.watermark} is in the future (today is {today.isoformat()}); it is ignored and "
                "no dream runs until the line is corrected")
        for e in future
    ]
    honoured = [e for e in notebook.entries() if e.watermark and e not in future]
    effective = days.watermark
    if honoured and honoured[-1].watermark != effective:
        problems.append(Problem(WARNING, str(layout.log_md), honoured[-1].line,
                                f"watermark={honoured[-1].watermark} is on or after today; treated as {effective}"))
    skipped = notebook.skipped_dates()
    if skipped:
        problems.append(
            Problem(INFO, str(layout.log_md), None, f"daily logs skipped by the dream runner: {', '.join(skipped)}")
        )
    return problems


def check_dropped(layout: Layout, days: Days, tombstones: Iterable[str]) -> list[Problem]:
    """Facts a dream dropped that stay in search until the person confirms (``core/index/dropped.py``)."""
    from suzent_desktop.core.engines.ledger import uncovered
    from suzent_desktop.core.index import dropped

    pending = dropped.pending(layout, days, tombstones)
    places = uncovered.located(layout, [uncovered.UncoveredFact(f.date, f.text, f.line) for f in pending])
    return [
        Problem(INFO, place.path, place.line,
                f"dropped by a dream ({fact.reason}); it stays searchable until you confirm with "
                f"`dropped --confirm {fact.id}`: {fact.text[:120]!r}")
        for fact, place in zip(pending, places, strict=True)
    ]


def check_not_consolidated(
    layout: Layout, days: Days, tombstones: Forgotten, check: LostFacts | None = None
) -> list[Problem]:
    """Facts of consolidated days that the last dream left on no page (``core/engines/ledger/uncovered.py``;
    ``check``: the lost-facts check over the vault model already walked)."""
    from suzent_desktop.core.engines.ledger import uncovered

    left = [fact for fact in uncovered.consolidated(layout, days, check) if not tombstones.holds(fact.text)]
    return [
        Problem(WARNING, fact.path, fact.line,
                f"not consolidated: no page holds this fact of a consolidated day; it stays searchable and the "
                f"next dream offers it again: {fact.text[:120]!r}")
        for fact in uncovered.located(layout, left)
    ]


def check_index_health(home: Home, tombstones: Iterable[str] = (), at: Moment | None = None) -> list[Problem]:
    """Stale or missing files, recorded errors, and forgotten text search still finds; read-only
    (``at``: against the vault and days already read, which are then not read again)."""
    layout = home.layout
    if not layout.index_dir.is_dir():
        return [Problem(INFO, str(layout.index_dir), None, "the search index is not built yet; run `reindex`")]
    try:
        stats, findable, strays = asyncio.run(_index_stats(home, Forgotten.of(tombstones), at))
    except Exception as exc:  # noqa: BLE001 - any failure to open the index is a finding, not a crash
        return [Problem(ERROR, str(layout.index_dir), None, f"the search index cannot be opened: {exc}; run `reindex --full`")]
    problems = [Problem(ERROR, str(layout.index_dir), None, f"index error: {error}") for error in stats.errors]
    stale = _sorted(stats.stale_files)
    problems += [
        Problem(WARNING, path, None, "changed since it was indexed (stale rows); run `reindex`") for path in stale
    ]
    problems += [
        Problem(WARNING, path, None, f"{why}; `reindex` removes them")
        for path, why in strays
        if path not in stale
    ]
    problems += [
        Problem(WARNING, path, line, f"forgotten text is still findable in search ({source}): {stone[:100]!r}; "
                "run `reindex`, or `forget` it again from the hit")
        for path, line, source, stone in sorted(findable, key=lambda f: (f[0], f[1] or 0, f[3]))
    ]
    return problems


def _sorted(paths: Iterable[Any]) -> list[str]:
    return sorted(str(p) for p in paths)


async def _index_stats(home: Home, tombstones: Forgotten, at: Moment | None) -> Any:
    from suzent_desktop.core.index.embedding import EmbeddingError
    from suzent_desktop.core.index.storage.store import TABLE_NAME, IndexStoreError

    layout, indexer = home.layout, home.indexer
    stats = await indexer.stats(at)
    findable = await indexer.findable(tombstones)
    if stats.errors or not (layout.index_dir / f"{TABLE_NAME}.lance").exists():
        return stats, findable, []  # an unreadable or missing table is reported as such, not row by row
    try:
        return stats, findable, await asyncio.to_thread(indexer.audit_rows, at)
    except (IndexStoreError, EmbeddingError) as exc:
        stats.errors.append(f"index rows cannot be checked: {exc}")
        return stats, findable, []
