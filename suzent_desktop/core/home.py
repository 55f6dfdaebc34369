"""The composition root: one function opens a home and returns every part, wired once.

``open_home`` loads the settings (one typed object, read in one place), checks and
bootstraps the folders, builds the layout, the stores, the embedder and the indexer, and
returns a frozen :class:`Home` with its services (capture, index, search, forget,
promote, lint, dream, review), each built on only the stores it uses. The CLI and the app both go through it (via
``MemoryManager.open``); no service or engine imports the manager, so the core's import graph
has no cycle. A ``Home`` never changes: switching the embedder or saving settings makes a
new one (``dataclasses.replace``), its services rebuilt on the new parts.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from suzent_desktop.core.engines.forgetting import ForgetJournal
from suzent_desktop.core.engines.ledger.uncovered import Kept
from suzent_desktop.core.engines.memory_md.recall import RecallLog
from suzent_desktop.core.files.clock import SYSTEM_CLOCK, Clock
from suzent_desktop.core.files.paths.layout import Layout, LayoutError, default_home
from suzent_desktop.core.files.records.archive import Archive
from suzent_desktop.core.files.records.tombstones import Tombstones
from suzent_desktop.core.files.records.transcripts import Transcripts
from suzent_desktop.core.files.sync import devices
from suzent_desktop.core.services.capture import Capture
from suzent_desktop.core.services.dream import Dream
from suzent_desktop.core.services.forget import Forget
from suzent_desktop.core.services.index import Index
from suzent_desktop.core.services.lint import Lint
from suzent_desktop.core.services.promote import Promote
from suzent_desktop.core.services.review import Review
from suzent_desktop.core.services.search import Search
from suzent_desktop.core.vault.days import Days
from suzent_desktop.core.vault.model import Vault
from suzent_desktop.core.vault.notebook import Notebook
from suzent_desktop.settings import Settings, load_settings

if TYPE_CHECKING:
    from suzent_desktop.core.index.embedding import Embedder
    from suzent_desktop.core.index.indexer import Indexer

log = logging.getLogger(__name__)

# Only a heading: a prose placeholder would be indexed and show up in every search.
MEMORY_MD_HEADER = "# Memory\n"


@dataclass(frozen=True)
class Home:
    """Everything one home folder is made of, built once by :func:`open_home`."""

    settings: Settings
    layout: Layout
    clock: Clock
    embedder: Embedder
    indexer: Indexer
    archive: Archive
    notebook: Notebook
    tombstones: Tombstones
    transcripts: Transcripts
    recall: RecallLog
    vault: Vault  # the vault's files, links, tags, aliases and headings, walked on first use
    forget: Forget  # forget, undo, the page strip and the one forgotten-text rule
    index: Index  # passes keeping the index in line with the files, and what it is behind on
    search: Search  # queries over the index, as a person or an agent is shown them
    capture: Capture  # remember, and each conversation turn, into the logs and the index
    promote: Promote  # MEMORY.md rewritten from the personal pages, recalls and important facts
    lint: Lint  # findings over the notebook: broken links, stale and duplicate pages
    dream: Dream  # past daily logs consolidated into pages, and where consolidation stands
    review: Review  # what the dream learned, to keep or forget, and the words each memory came from

    def with_settings(self, settings: Settings) -> Home:
        """This home under new settings (saved in the settings dialog): a new Home, its services told."""
        promote = self.promote.with_settings(settings)
        return dataclasses.replace(self, settings=settings, capture=self.capture.with_settings(settings),
                                   promote=promote, dream=self.dream.with_parts(settings=settings, promote=promote))

    def with_embedder(self, embedder: Embedder) -> Home:
        """This home with another embedding model: a new Home, its services told."""
        lint = self.lint.with_embedder(embedder)
        return dataclasses.replace(self, embedder=embedder, lint=lint,
                                   dream=self.dream.with_parts(embedder=embedder, lint=lint))

    def days(self) -> Days:
        """Where each day stands now (the one place for today/pending/consolidated/skipped)."""
        return Days.read(self.notebook, self.clock.today())



@dataclass(frozen=True)
class PreparedHome:
    """A home whose settings were read and whose folders were checked (and bootstrapped): what
    :func:`prepare` did once, handed on to :func:`open_home` so it is not done again."""

    settings: Settings
    layout: Layout


def prepare(home: Path | None = None, *, bootstrap: bool = True) -> PreparedHome:
    """:func:`prepare_home` keeping the settings it read: the command line checks a home before
    a window opens, and the window opens on this (one read of the settings, one bootstrap and one
    temp-file sweep per open). Raises as :func:`prepare_home` does."""
    home = Path(home).expanduser() if home is not None else default_home()
    settings = None if home.is_file() else load_settings(home)
    layout = prepare_home(home, settings, bootstrap=bootstrap)  # a home that is a file fails here
    assert settings is not None
    return PreparedHome(settings, layout)


def prepare_home(home: Path | None = None, settings: Settings | None = None, *, bootstrap: bool = True) -> Layout:
    """Settings and folders checked, the home bootstrapped: what must hold before anything opens.

    Raises ``SettingsError`` (naming the file and key), ``LayoutError`` or ``NotebookError``
    (naming the path) before anything is written.
    """
    home = Path(home).expanduser() if home is not None else default_home()
    if home.exists() and not home.is_dir():
        raise LayoutError(f"{home}: the home must be a folder, but it is a file")
    layout = Layout.from_settings(home, settings if settings is not None else load_settings(home))
    layout.check()
    if bootstrap:
        bootstrap_home(layout)
        remove_stale_temp_files(layout)
    return with_device(layout, register=bootstrap)


def with_device(layout: Layout, *, register: bool = True) -> Layout:
    """The layout with this device's id and stream names (``core/files/sync/devices.py``); ``register``
    records the device in the home (the first open of an existing home: nothing is renamed)."""
    device = devices.device_id()
    plain = devices.register(layout.state_dir, device, write=register)
    return dataclasses.replace(layout, device=device, device_suffix="" if plain else f"@{device}")


def open_home(
    home: Path | None = None,
    *,
    settings: Settings | None = None,
    clock: Clock = SYSTEM_CLOCK,
    embedder: Embedder | None = None,
    bootstrap: bool = True,
    prepared: PreparedHome | None = None,
) -> Home:
    """Open a home: ``bootstrap=False`` writes nothing (a read-only server on an existing home).
    ``prepared``: what :func:`prepare` did for this home just before (its settings and layout are
    used as they are; ``settings`` and ``bootstrap`` are then not looked at)."""
    if prepared is not None:
        settings, layout = prepared.settings, prepared.layout
    else:
        home = Path(home).expanduser() if home is not None else default_home()
        if settings is None and not home.is_file():
            settings = load_settings(home)
        layout = prepare_home(home, settings, bootstrap=bootstrap)  # a home that is a file fails here
    assert settings is not None
    if embedder is None:
        from suzent_desktop.core.index.embedding import make_embedder  # loads onnxruntime: only when opening

        embedder = make_embedder(settings)
    from suzent_desktop.core.index.indexer import Indexer  # lancedb: only when opening

    archive, notebook, tombstones, transcripts = Archive(layout), Notebook(layout), Tombstones(layout), Transcripts(layout)
    vault = Vault(layout)
    indexer = Indexer(
        layout, embedder, clock, notebook=notebook, archive=archive, tombstones=tombstones, transcripts=transcripts,
        vault=vault, kept=Kept(layout, vault),
    )
    recall = RecallLog(layout)
    journal = ForgetJournal(layout.forget_journal_file, vault=layout.notebook_dir, memory=layout.memory_dir)
    forget = Forget(layout, clock, indexer=indexer, tombstones=tombstones, journal=journal, vault=vault,
                    archive=archive, transcripts=transcripts)
    search = Search(layout, indexer, recall)
    promote = Promote(settings, layout, clock, notebook=notebook, archive=archive, tombstones=tombstones,
                      vault=vault, recall=recall)
    lint = Lint(layout, clock, notebook=notebook, embedder=embedder, tombstones=tombstones, vault=vault)
    return Home(
        settings=settings,
        layout=layout,
        clock=clock,
        embedder=embedder,
        indexer=indexer,
        archive=archive,
        notebook=notebook,
        tombstones=tombstones,
        transcripts=transcripts,
        recall=recall,
        vault=vault,
        forget=forget,
        index=Index(indexer, forget),
        search=search,
        capture=Capture(settings, clock, archive=archive, transcripts=transcripts, notebook=notebook, indexer=indexer,
                        tombstones=tombstones),
        promote=promote,
        lint=lint,
        dream=Dream(settings, layout, clock, embedder=embedder, archive=archive, notebook=notebook,
                    tombstones=tombstones, indexer=indexer, vault=vault, forget=forget, search=search,
                    promote=promote, lint=lint),
        review=Review(layout, clock, notebook=notebook, archive=archive, transcripts=transcripts, tombstones=tombstones,
                      vault=vault, search=search, forget=forget),
    )


def remove_stale_temp_files(layout: Layout) -> list[Path]:
    """Temp files of atomic writes that a killed process left behind (``.People.md.x1y2z3w4.tmp``)."""
    from suzent_desktop.core.files.disk.atomic import sweep_temp_files

    removed = sweep_temp_files(
        [(layout.home, False), (layout.memory_dir, True), (layout.notebook_dir, True), (layout.index_dir, False)]
    )
    for path in removed:
        log.info("removed %s, left behind by an interrupted write", path)
    return removed


def bootstrap_home(layout: Layout) -> list[Path]:
    """Create the vault, the memory folders and a MEMORY.md header when missing; never overwrite."""
    created = Notebook(layout).bootstrap()
    for folder in (layout.home, layout.memory_dir, layout.archive_dir):
        if not folder.exists():
            folder.mkdir(parents=True, exist_ok=True)
            created.append(folder)
    if not layout.memory_md.exists():
        try:
            with layout.memory_md.open("x", encoding="utf-8") as handle:
                handle.write(MEMORY_MD_HEADER)
            created.append(layout.memory_md)
        except FileExistsError:
            pass
    return created
