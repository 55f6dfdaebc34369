"""The main window: vault tree, tabbed editors, docked panes, status bar, menus and shortcuts.

The window opens on the files alone; the index catches up in the background (the status bar
shows how far). Every engine call goes through ``services.submit`` so the GUI thread never
waits, and every file event arrives from the watcher task on the same loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QProcess, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QIcon, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QLabel,
    QListWidgetItem,
    QMainWindow,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QToolBar,
    QWidget,
)

from suzent_desktop.core import operations
from suzent_desktop.core.demo import is_demo_home
from suzent_desktop.core.engines.forgetting import units_for
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.language import fuzzy
from suzent_desktop.core.files.paths.vaults import untrusted_config
from suzent_desktop.core.files.records.mcp_activity import describe, read_activity
from suzent_desktop.ui.base import theme
from suzent_desktop.ui.base.services import AppServices
from suzent_desktop.ui.base.watcher import VaultWatcher
from suzent_desktop.ui.dialogs.command_palette import CommandPalette
from suzent_desktop.ui.dialogs.prompts import Prompter
from suzent_desktop.ui.dialogs.quick_switcher import QuickSwitcher, prepare_rows, warm_matching
from suzent_desktop.ui.dialogs.settings_dialog import SettingsDialog
from suzent_desktop.ui.editing.link_completer import link_names
from suzent_desktop.ui.graph.dock import add_graph_dock
from suzent_desktop.ui.page.provenance_hover import ProvenanceHover
from suzent_desktop.ui.panes.backlinks import BacklinksPane
from suzent_desktop.ui.panes.daily_logs import DailyLogsPane
from suzent_desktop.ui.panes.dream_panel import DreamPanel
from suzent_desktop.ui.panes.memory_view import MemoryView
from suzent_desktop.ui.panes.outline import OutlinePane
from suzent_desktop.ui.panes.review_pane import ReviewPane
from suzent_desktop.ui.panes.search_pane import HIT_ROLE, SearchPane
from suzent_desktop.ui.panes.source_pane import SourcePane
from suzent_desktop.ui.panes.sync_conflicts_pane import SyncConflictsPane
from suzent_desktop.ui.panes.tags import TagsPane
from suzent_desktop.ui.panes.tombstones_pane import TombstonesPane
from suzent_desktop.ui.window.dock_tabs import unclip_dock_tabs
from suzent_desktop.ui.window.file_events import WatchedFiles
from suzent_desktop.ui.window.recent_vaults import fill_recent_menu, window_title
from suzent_desktop.ui.window.vault_tree import VaultTree
from suzent_desktop.ui.workspace.split_editors import SplitEditors
from suzent_desktop.ui.workspace.welcome import WelcomePage

if TYPE_CHECKING:
    from suzent_desktop.core.vault.model import VaultSnapshot

log = logging.getLogger(__name__)

INDEX_DEBOUNCE_MS = 400
WATCH_START_WAIT_S = 5.0  # the page names wait this long at most for the watcher to be in place
SOURCE_DELAY_MS = 300  # the Source pane follows the editor's cursor once it rests this long
AGENT_CHECK_MS = 10_000  # how often the status bar checks that a connected MCP server is still alive


def app_icon() -> QIcon:
    from importlib import resources

    icon_path = resources.files("suzent_desktop.resources").joinpath("icons", "suzent.svg")
    return QIcon(str(icon_path))


def start_detached(program: str, arguments: list[str]) -> bool:
    """A process that outlives the window (tests replace this)."""
    return QProcess.startDetached(program, arguments)[0]


DEMO_FIRST_PAGE = "3_Personal/About Me.md"  # the welcome page's demo button opens it on the demo home
DEMO_LOOK_SECONDS = 60.0  # a demo's first automatic dream waits this long after the Dream panel is seen


def own_files_note(layout: Any) -> str:
    """'Your index.md, log.md: kept as suzent-index.md, suzent-log.md', or '' when the vault has none of its own."""
    pairs = layout.user_nav_files()
    if not pairs:
        return ""
    yours = ", ".join(user.name for user, _own in pairs)
    ours = ", ".join(own.name for _user, own in pairs)
    return f"Your {yours} left alone (app uses {ours})"


class MainWindow(WatchedFiles, QMainWindow):
    """One window per home."""

    closed = Signal()
    names_ready = Signal()  # the page names are scanned and the switcher's matcher warmed

    def __init__(self, services: AppServices, prompter: Prompter | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.bridge = services.bridge
        self.prompter = prompter or Prompter(self)
        layout = services.layout
        self.setWindowTitle(window_title(None, layout.notebook_dir.name))
        self.setWindowIcon(app_icon())
        self.resize(1360, 840)
        self.setDockOptions(
            QMainWindow.DockOption.AnimatedDocks | QMainWindow.DockOption.AllowTabbedDocks
        )
        self._stop = asyncio.Event()
        self._background: list[asyncio.Task[Any]] = []
        self._pending_index: set[Path] = set()
        self._shut_down = False
        self.ask_before_closing = True  # False: a scripted close (smoke test) stops a dream without asking

        self.editors = SplitEditors(layout.notebook_dir, read_only_dirs=(layout.archive_dir, layout.transcripts_dir),
                                    confinement=layout.confinement, shared_model=True)
        self._names_turn = asyncio.Lock()  # snapshots reach the editors in the order they were taken
        self.editors.editor_mode = services.settings.editor_mode
        self.editors.shown = lambda text: operations.shown_page(services.manager, text)  # no forgotten text
        self.editors.as_written = layout.persons_note  # a note the person wrote keeps what they forgot
        self.welcome = self._build_welcome()
        self.center = QStackedWidget()  # the welcome page while no page is open, else the editors
        self.center.addWidget(self.welcome)
        self.center.addWidget(self.editors)
        self.setCentralWidget(self.center)
        self.tree = VaultTree(services, self.prompter)
        self.watcher = VaultWatcher([layout.notebook_dir, layout.memory_dir], self)

        self.docks: dict[str, QDockWidget] = {}
        self.panes: dict[str, QWidget] = {}
        # Panes shown before the watcher is in place would walk the vault once before it and once after:
        # the vault model's first walk waits for start_background (a couple of seconds at most).
        operations.hold_vault_walks(services.manager, 2.0)
        self._build_docks()
        self.tabifiedDockWidgetActivated.connect(lambda _dock: unclip_dock_tabs(self))
        QTimer.singleShot(0, lambda: unclip_dock_tabs(self))
        self._build_status_bar()
        self.actions_by_name: dict[str, QAction] = {}
        self._build_actions()
        self.graph = add_graph_dock(self)
        self._connect()

        self._index_timer = QTimer(self)
        self._index_timer.setSingleShot(True)
        self._index_timer.setInterval(INDEX_DEBOUNCE_MS)
        self._index_timer.timeout.connect(self._flush_index)
        self._status_timer = QTimer(self)
        self._status_timer.setSingleShot(True)
        self._status_timer.setInterval(300)
        self._status_timer.timeout.connect(self.refresh_status)
        # A server that is killed cannot mark itself gone: look at its writer now and then.
        self._agent_timer = QTimer(self)
        self._agent_timer.setInterval(AGENT_CHECK_MS)
        self._agent_timer.timeout.connect(self.refresh_agent)
        manager = theme.current()
        if manager is not None:
            manager.theme_changed.connect(self.editors.refresh_theme)  # a bound slot dies with the widget
            self.apply_theme(services.settings.theme)
        self.editors.restore(operations.read_workspace(layout))  # the panes and tabs of the last close
        self._show_center()

    # -- construction -----------------------------------------------------------------------------
    def _dock(self, key: str, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock_{key}")
        dock.setWidget(widget)
        dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetClosable
            | QDockWidget.DockWidgetFeature.DockWidgetMovable
            | QDockWidget.DockWidgetFeature.DockWidgetFloatable
        )
        self.addDockWidget(area, dock)
        self.docks[key] = dock
        return dock

    def _build_welcome(self) -> WelcomePage:
        layout = self.services.layout
        page = WelcomePage(layout.home, layout.notebook_dir, demo_home=is_demo_home(layout.home))
        page.demo_requested.connect(self.open_demo)
        page.open_vault_requested.connect(self.choose_vault)
        page.recent_vault_requested.connect(self.open_vault)
        page.switcher_requested.connect(self.show_quick_switcher)
        page.search_requested.connect(self.focus_search)
        page.dream_requested.connect(lambda: self.show_dock("dream"))
        return page

    def _show_center(self) -> None:
        """The welcome page when no page is open (at launch, after the last tab closes), else the editors."""
        self.center.setCurrentWidget(self.editors if self.editors.count() else self.welcome)

    def _build_docks(self) -> None:
        left, right = Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea
        vault = self._dock("vault", "Vault", self.tree, left)
        self.search_pane = SearchPane(self.services)
        self.search_pane.show_folders(self.tree.top_folders())  # none yet while the tree waits for the model
        self.daily_logs = DailyLogsPane(self.services)
        self.backlinks = BacklinksPane(self.services)
        self.dream_panel = DreamPanel(self.services)
        self.dream_panel.prompter = self.prompter
        self._dream_panel_seen = asyncio.Event()
        self._embedding_problem = ""  # set while a newly chosen embedding model could not be used
        self.memory_view = MemoryView(self.services)
        self.tombstones = TombstonesPane(self.services)
        self.tags = TagsPane(self.services)
        self.tags.tag_chosen.connect(self.search_tag)
        self.panes = {
            "search": self.search_pane,
            "logs": self.daily_logs,
            "backlinks": self.backlinks,
            "dream": self.dream_panel,
            "memory": self.memory_view,
            "tombstones": self.tombstones,
            "tags": self.tags,
        }
        search = self._dock("search", "Search", self.search_pane, left)
        logs = self._dock("logs", "Daily logs", self.daily_logs, left)
        self.tabifyDockWidget(vault, search)
        self.tabifyDockWidget(search, logs)
        vault.raise_()
        backlinks = self._dock("backlinks", "Links", self.backlinks, right)
        dream = self._dock("dream", "Dream", self.dream_panel, right)
        dream.visibilityChanged.connect(lambda visible: self._dream_panel_seen.set() if visible else None)
        memory = self._dock("memory", "MEMORY.md", self.memory_view, right)
        stones = self._dock("tombstones", "Forgotten", self.tombstones, right)
        self.tabifyDockWidget(backlinks, dream)
        self.tabifyDockWidget(dream, memory)
        self.tabifyDockWidget(memory, stones)
        self.tabifyDockWidget(stones, self._dock("tags", "Tags", self.tags, right))
        self.outline = OutlinePane(self.editors)
        self.tabifyDockWidget(self.docks["tags"], self._dock("outline", "Outline", self.outline, right))
        self.sync_conflicts = self.panes["conflicts"] = SyncConflictsPane(self.services)
        self.sync_conflicts.open_requested.connect(lambda path: self.open_path(path, None))
        self.tabifyDockWidget(self.docks["outline"], self._dock("conflicts", "Sync conflicts", self.sync_conflicts, right))
        self._build_review_docks()
        backlinks.raise_()
        self.resizeDocks([vault, backlinks], [300, 360], Qt.Orientation.Horizontal)

    def _build_review_docks(self) -> None:
        """Review (what the memory learned) and Source (where a line came from), beside the other panes."""
        self.review = self.panes["review"] = ReviewPane(self.services)
        self.source_pane = self.panes["source"] = SourcePane(self.services)
        self.tabifyDockWidget(self.docks["conflicts"], self._dock("review", "Review", self.review,
                                                                  Qt.DockWidgetArea.RightDockWidgetArea))
        self.tabifyDockWidget(self.docks["review"], self._dock("source", "Source", self.source_pane,
                                                               Qt.DockWidgetArea.RightDockWidgetArea))
        self._source_timer = QTimer(self)
        self._source_timer.setSingleShot(True)
        self._source_timer.setInterval(SOURCE_DELAY_MS)
        self._source_timer.timeout.connect(self._show_source)
        self._source_line: tuple[Path, int] | None = None
        self.editors.line_clicked.connect(self._line_clicked)
        self.editors.current_page_changed.connect(self._hover_sources)
        self.search_pane.results.currentItemChanged.connect(lambda item, _old: self._show_source_of(item))

    def _show_source_of(self, item: QListWidgetItem | None) -> None:
        """The Sources pane follows the selected search hit while it is shown."""
        if item is not None and self.docks["source"].isVisible():
            self.source_pane.show_hit(item.data(HIT_ROLE))

    def _hover_sources(self, _path: Path | None) -> None:
        """Give the open editor its hover tip of where a bullet came from (once per editor)."""
        editor = self.editors.current_editor()
        if editor is not None and getattr(editor, "provenance_hover", None) is None:
            editor.provenance_hover = ProvenanceHover(
                editor.source, lambda: editor.path, self.source_pane.loader.card, self.services.submit)

    def _line_clicked(self, path: Path, line: int) -> None:
        self._source_line = (path, line)
        if self.docks["source"].isVisible():
            self._source_timer.start()  # typing moves the cursor too: show the card once it rests

    def _show_source(self) -> None:
        if self._source_line is not None:
            self.source_pane.show_line(*self._source_line)

    def show_source(self) -> None:
        """Show the Source pane for the line under the editor's cursor."""
        self.show_dock("source")
        editor = self.editors.current_editor()
        if editor is not None:
            self.source_pane.show_line(editor.path, editor.source.textCursor().blockNumber() + 1)

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.rows_label = QLabel("Index: …")
        self.stale_label = QLabel("")
        self.phase_label = QLabel("Dream: idle")
        self.error_label = QLabel("")
        self.error_label.setStyleSheet("color: #d9534f;")
        self.agent_label = QLabel("")  # an MCP client's last call, from the server's activity file
        self.agent_label.setToolTip("An agent using this memory through `suzent-desktop mcp`")
        self.progress_bar = QProgressBar()
        self.progress_bar.setMinimumWidth(260)
        self.progress_bar.setMaximumWidth(420)
        self.progress_bar.setTextVisible(True)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setFlat(True)
        self.cancel_button.clicked.connect(self.services.cancel_current)
        self.resume_button = QPushButton("Resume indexing")  # shown while a stopped pass left files out
        self.resume_button.setFlat(True)
        self.resume_button.setToolTip("Index the files the stopped pass left out (the next start does it too)")
        self.resume_button.clicked.connect(lambda: self.services.reindex(full=False))
        self.resume_button.hide()
        self.own_files_label = QLabel(own_files_note(self.services.layout))
        self.own_files_label.setToolTip(
            "These files at the vault root are yours: Suzent never writes or appends to them and keeps "
            "its own under the names shown (settings alt_index_name, alt_log_name, alt_schema_name)."
        )
        self.own_files_label.setVisible(bool(self.own_files_label.text()))
        self.not_followed_label = QLabel("")  # filled by _scan_names
        self.not_followed_label.setVisible(False)
        self.review_label = QPushButton("")
        self.review_label.setFlat(True)
        self.review_label.setToolTip("What the memory learned since you last reviewed it (the Review pane)")
        self.review_label.clicked.connect(lambda: self.show_dock("review"))
        self.review_label.setVisible(False)
        self.review.count_changed.connect(self._show_review_count)
        for widget in (self.error_label, self.agent_label, self.own_files_label, self.not_followed_label,
                       self.review_label, self.phase_label, self.stale_label, self.rows_label):
            bar.addPermanentWidget(widget)
        bar.addPermanentWidget(self.progress_bar)
        bar.addPermanentWidget(self.cancel_button)
        bar.addPermanentWidget(self.resume_button)
        self.progress_bar.hide()
        self.cancel_button.hide()
        self.refresh_agent()

    def _show_review_count(self, number: int) -> None:
        self.review_label.setText(f"{number} to review")
        self.review_label.setVisible(number > 0)

    def refresh_agent(self) -> None:
        """Show whether an agent is connected through the MCP server (read from its tiny activity file)."""
        text = describe(read_activity(self.services.layout.mcp_activity_file))
        self.agent_label.setText(text)
        self.agent_label.setVisible(bool(text))

    def _action(self, name: str, text: str, slot, shortcut: Any = None, *, window: bool = True) -> QAction:  # noqa: ANN001
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.triggered.connect(lambda _checked=False: slot())
        if window:
            self.addAction(action)
        self.actions_by_name[name] = action
        return action

    def _build_actions(self) -> None:
        a = self._action
        menu = self.menuBar()
        file_menu = menu.addMenu("&File")
        file_menu.addAction(a("open_vault", "Open vault…", self.choose_vault, "Ctrl+Shift+O"))
        self.recent_menu = file_menu.addMenu("Open recent vault")
        self.recent_menu.aboutToShow.connect(lambda: fill_recent_menu(self.recent_menu, self.open_vault))
        file_menu.addSeparator()
        for action in (
            a("new_page", "New page…", lambda: self.tree.create_page(self._current_folder()), "Ctrl+N"),
            a("quick_open", "Quick switcher…", self.show_quick_switcher, "Ctrl+O"),
            a("reveal", "Reveal in tree", self.reveal_in_tree),
            a("save", "Save", self.editors.save_current, QKeySequence.StandardKey.Save),
            a("close_tab", "Close tab", lambda: self.editors.close_tab(self.editors.currentIndex()), "Ctrl+W"),
        ):
            file_menu.addAction(action)
        file_menu.addSeparator()
        file_menu.addAction(a("settings", "Settings…", self.show_settings, "Ctrl+,"))
        file_menu.addSeparator()
        file_menu.addAction(a("quit", "Quit", self.close, QKeySequence.StandardKey.Quit))

        edit_menu = menu.addMenu("&Edit")
        edit_menu.addAction(a("find", "Find in note…", lambda: self.editors.show_find(), QKeySequence.StandardKey.Find))
        edit_menu.addAction(a("replace", "Replace in note…", lambda: self.editors.show_find(replace=True), "Ctrl+H"))
        edit_menu.addSeparator()
        edit_menu.addAction(a("undo_delete", "Undo delete", self.tree.undo_delete))
        edit_menu.addAction(a("forget_paragraph", "Forget selected paragraph…", self.forget_current_paragraph,
                              "Ctrl+Shift+K"))
        edit_menu.addAction(a("show_source", "Where did this line come from?", self.show_source, "Ctrl+Shift+Y"))
        edit_menu.addAction(a("review", "Review what the memory learned", lambda: self.show_dock("review"),
                              "Ctrl+Shift+R"))

        go_menu = menu.addMenu("&Go")
        for action in (
            a("back", "Back", self.editors.go_back, "Alt+Left"),
            a("forward", "Forward", self.editors.go_forward, "Alt+Right"),
            a("search", "Search memories", self.focus_search, "Ctrl+Shift+F"),
            a("palette", "Command palette…", self.show_command_palette, "Ctrl+P"),
            a("daily_logs", "Daily logs", lambda: self.show_dock("logs")),
        ):
            go_menu.addAction(action)

        memory_menu = menu.addMenu("&Memory")
        for action in (
            a("dream", "Dream now", lambda: self.run_dream(dry_run=False)),
            a("dry_run", "Dream dry run", lambda: self.run_dream(dry_run=True)),
            a("lint", "Lint now", self.run_lint),
            a("promote", "Promote MEMORY.md", self.promote),
            a("reindex", "Reindex changed files", lambda: self.services.reindex(full=False)),
            a("full_reindex", "Rebuild index from files", lambda: self.services.reindex(full=True)),
        ):
            memory_menu.addAction(action)

        view_menu = menu.addMenu("&View")
        view_menu.addAction(a("split_right", "Split right", lambda: self.editors.split("right")))
        view_menu.addAction(a("split_down", "Split down", lambda: self.editors.split("down")))
        view_menu.addSeparator()
        for name, text, view in (("view_reading", "Toggle Reading view\tCtrl+E", "toggle"),
                                 ("view_live", "Live Preview", "live"), ("view_source", "Source mode", "source")):
            view_menu.addAction(a(name, text, lambda v=view: self.editors.set_view(v)))
        view_menu.addSeparator()
        for dock in self.docks.values():
            view_menu.addAction(dock.toggleViewAction())
        view_menu.addSeparator()
        theme_menu = view_menu.addMenu("&Theme")
        self.theme_actions: dict[str, QAction] = {}
        group = QActionGroup(self)
        for mode, text in (("system", "System"), ("light", "Light"), ("dark", "Dark")):
            action = a(f"theme_{mode}", text, lambda m=mode: self.choose_theme(m))
            action.setProperty("paletteText", f"Theme: {text}")
            action.setCheckable(True)
            group.addAction(action)
            theme_menu.addAction(action)
            self.theme_actions[mode] = action
        self.theme_actions[self.services.settings.theme].setChecked(True)

        toolbar = QToolBar("Navigation", self)
        toolbar.setObjectName("toolbar_nav")
        toolbar.setMovable(False)
        toolbar.setIconSize(QSize(16, 16))
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        for name in ("back", "forward", "quick_open", "search", "dream", "palette"):
            toolbar.addAction(self.actions_by_name[name])
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, toolbar)

    def _connect(self) -> None:
        bridge = self.bridge
        bridge.open_path.connect(self.open_path)
        bridge.status_message.connect(self._on_status_message)
        bridge.progress.connect(self._on_progress)
        bridge.index_stale.connect(self._on_index_stale)
        bridge.index_paused.connect(self.resume_button.setVisible)
        bridge.dream_phase.connect(self._on_phase)
        bridge.embedding_failed.connect(self._on_embedding_failed)
        bridge.settings_changed.connect(lambda _settings: setattr(self, "_embedding_problem", ""))
        bridge.changed.connect(self._on_changed)
        self.tree.page_activated.connect(lambda path: self.open_path(path, None))
        self.services.files_changed.connect(self._on_files_changed)
        self.editors.current_page_changed.connect(self._on_current_page)
        self.editors.page_saved.connect(self._on_saved)
        self.editors.forget_requested.connect(self.forget_text)
        self.editors.missing_link.connect(self._on_missing_link)
        self.editors.tag_activated.connect(self.search_tag)
        self.editors.outside_vault.connect(
            lambda target: self.statusBar().showMessage(f"Not opened: {target} is outside the vault", 6000)
        )
        self.editors.missing_attachment.connect(
            lambda target: self.statusBar().showMessage(f"No file named {target} in the vault", 6000)
        )
        self.editors.reveal_requested.connect(self.reveal_in_tree)
        self.editors.rename_requested.connect(self.tree.rename)  # the inline title: links follow
        self.editors.current_page_changed.connect(lambda _path: self._show_center())
        self.tabifiedDockWidgetActivated.connect(self._on_dock_tab)
        bridge.settings_changed.connect(self._on_settings_changed)
        watcher = self.watcher
        watcher.added.connect(self._on_file_added)
        watcher.folder_added.connect(self._on_folder_added)
        watcher.modified.connect(self._on_file_modified)
        watcher.deleted.connect(self._on_file_deleted)
        watcher.batch.connect(self._on_watch_batch)
        watcher.started.connect(lambda: self._index_watched(True))

    # -- background -----------------------------------------------------------------------------------
    def start_background(self, *, watch: bool = True, serve: bool = True, index: bool = True) -> None:
        """Start the watcher, the dream runner's schedule and the initial incremental sync."""
        from suzent_desktop.settings import unknown_environment

        for warning in unknown_environment():  # a misspelt override would otherwise be ignored silently
            self.services.bridge.status_message.emit(f"Warning: {warning}")
        watching: asyncio.Event | None = None
        if not watch:
            operations.release_vault_walks(self.services.manager)
        else:  # walked once, when the watcher is in place
            operations.hold_vault_walks(self.services.manager)
            watching = asyncio.Event()
            self.watcher.started.connect(watching.set)
            self._background.append(self.watcher.start())
            self._agent_timer.start()
        self._background.append(self.services.submit(self._scan_names(watching)))
        first_sync = self.services.reindex(full=False, walk=False) if index else None
        if first_sync is None:
            self._status_timer.start()
        else:  # an index already current announces no change: show its rows all the same
            first_sync.add_done_callback(lambda _task: self._shut_down or self._status_timer.start())
        if serve:
            self._background.append(self.services.submit(self._serve_after(first_sync)))

    async def _scan_names(self, watching: asyncio.Event | None = None) -> None:
        """Hand the editors the vault model on a worker thread, so the first Ctrl+O or ``[[`` does
        not walk the vault: names first, then aliases once the pages are read. Once the watcher is in place (a few ms): the model is then walked once for
        the whole window, and whoever asks first (this, the first index pass) walks it."""
        root = self.services.layout.notebook_dir
        if not root.is_dir():
            return
        if watching is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(watching.wait(), WATCH_START_WAIT_S)
        snapshot = await self.refresh_names(parsed=False)  # names first: no page read yet
        if snapshot is None:
            return
        if self.tree.waiting:  # the tree shows the model's walk rather than listing the vault itself
            self.tree.fill(snapshot)
            self.search_pane.show_folders(self.tree.top_folders())
        self._show_not_followed(snapshot.refused())  # the entries the confinement rule left out of the walk
        # names() too is built there (a list of every file: 160 ms at 5,000 pages); it is kept with the snapshot
        await asyncio.to_thread(lambda: warm_matching(list(link_names(snapshot))))
        parsed = await self.refresh_names()  # then aliases: the model's read of the pages, shared with the panes
        if parsed is None:
            return
        texts = [alias for found in parsed.all_aliases().values() for alias in found]
        await asyncio.to_thread(fuzzy.warm, texts)
        if not self._shut_down:
            self.names_ready.emit()

    async def refresh_names(self, changed: Iterable[Path] = (), *, parsed: bool = True) -> VaultSnapshot | None:
        """Hand the editors (links, ``[[``, the switcher) a new snapshot of the vault model, taken on a
        worker thread with ``changed`` taken in first; None once the window is closing."""
        paths = list(changed)
        async with self._names_turn:
            snapshot = await asyncio.to_thread(
                lambda: prepare_rows(operations.vault_snapshot(self.services.manager, paths, parsed=parsed)))
            if self._shut_down:
                return None
            if parsed or not self.editors.snapshot().parsed:
                self.editors.use_snapshot(snapshot)
            return snapshot

    def _show_not_followed(self, refused: list[tuple[str, str]]) -> None:
        """Links left out by the confinement rule (out of the vault, into a program folder, a loop), and
        special files (a FIFO, a socket: never opened, ``core/files/disk/regular.py``), counted apart."""
        special = sum(1 for _rel, why in refused if "not a regular file" in why)
        counts = [f"{len(refused) - special} link(s) not followed"] if len(refused) > special else []
        counts += [f"{special} special file(s) left out"] if special else []
        self.not_followed_label.setText(", ".join(counts))
        self.not_followed_label.setToolTip("\n".join(f"{rel}: {why}" for rel, why in refused[:50]))
        self.not_followed_label.setVisible(bool(refused))

    async def _serve_after(self, first_sync: asyncio.Task[Any] | None) -> None:
        """The dream schedule starts once the initial sync is done, so opening stays quick.

        On a demo home that has never dreamt, the first automatic dream also waits until the
        person has seen the backlog: the Dream panel shown, then :data:`DEMO_LOOK_SECONDS`.
        `Dream now` works at any time.
        """
        if first_sync is not None:
            await asyncio.wait([first_sync])
        if self._demo_backlog_unseen():
            self.services.bridge.status_message.emit(
                "Demo: the backlog of daily logs waits in the Dream panel; the first automatic dream "
                "starts a minute after you have opened it (or use Dream now)."
            )
            await self._until_stopped(self._dream_panel_seen.wait())
            await self._until_stopped(asyncio.sleep(DEMO_LOOK_SECONDS))
        if not self._stop.is_set():
            await self.services.runner.serve(self._stop)

    def _demo_backlog_unseen(self) -> bool:
        if self._dream_panel_seen.is_set() or not is_demo_home(self.services.layout.home):
            return False
        dreaming = self.services.manager.dreaming
        return dreaming.never_ran() and bool(dreaming.pending_dates())  # its own records, not log.md's

    async def _until_stopped(self, awaitable: Any) -> None:
        """Wait for ``awaitable`` unless the window closes first."""
        waits = [asyncio.ensure_future(awaitable), asyncio.ensure_future(self._stop.wait())]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for wait in waits:
                wait.cancel()

    async def shutdown(self) -> None:
        """Stop the schedule, the watcher and every task; safe to call twice."""
        if self._shut_down:
            return
        self._shut_down = True
        self._stop.set()
        operations.release_vault_walks(self.services.manager)
        self._agent_timer.stop()
        await self.watcher.stop()
        self._index_watched(False)
        await self.services.shutdown()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt override
        runner = self.services.runner
        if runner.phase != "idle":
            if self.ask_before_closing and not self.prompter.confirm(
                "A dream is running",
                "Consolidation is in progress. Stop it and close?\nIts page edits are rolled back.",
                ok="Stop and close",
            ):
                event.ignore()
                return
            runner.cancel()
        if self.ask_before_closing and not all(  # each page changed on disk under unsaved edits asks
            pane.let_go(editor, self.prompter.keep_or_discard)
            for pane in self.editors.panes for editor in pane.editors() if editor.conflict is not None
        ):
            event.ignore()
            return
        self.editors.save_all()
        self._save_workspace()
        self._stop.set()
        event.accept()
        self.closed.emit()

    def _save_workspace(self) -> None:
        try:
            operations.save_workspace(self.services.layout, self.editors.layout_state())
        except OSError as exc:  # the next start opens as new; closing goes on
            log.warning("the window's layout could not be saved to %s: %s",
                        operations.workspace_file(self.services.layout), exc)

    # -- opening ------------------------------------------------------------------------------------------
    def open_path(self, path: Path, line: int | None = None) -> None:
        path = Path(path)
        if not path.is_file():
            self.statusBar().showMessage(f"{path.name} does not exist", 6000)
            return
        self.editors.open(path, line)

    def _on_current_page(self, path: Path | None) -> None:
        self.tree.select_path(path)
        self.backlinks.set_page(path)
        self.setWindowTitle(window_title(path.stem if path is not None else None, self.services.layout.notebook_dir.name))

    def _refresh_backlinks(self) -> None:
        editor = self.editors.current_editor()
        self.backlinks.set_page(editor.path if editor else None)

    def _current_folder(self) -> Path:
        selected = self.tree.selected_path()
        if selected is None:
            return self.services.layout.new_page_dir
        return selected if selected.is_dir() else selected.parent

    def _on_missing_link(self, target: str) -> None:
        inbox = self.services.layout.new_page_dir
        where = inbox.relative_to(self.services.layout.notebook_dir).as_posix()
        place = "the vault's top folder" if where == "." else where
        if self.prompter.confirm("Create page", f"No page is named “{target}”. Create it in {place}?", ok="Create"):
            self.tree.create_page(inbox, target)

    # -- dialogs --------------------------------------------------------------------------------------------
    def show_quick_switcher(self) -> QuickSwitcher:
        current = self.editors.current_editor()
        recent = [p for p in dict.fromkeys(reversed(self.editors.history)) if current is None or p != current.path]
        switcher = QuickSwitcher(self.editors.snapshot(), self.services.layout.notebook_dir, self, recent=recent,
                                 inbox=self.services.layout.new_page_dir)
        switcher.page_chosen.connect(lambda p: self.open_path(p, None))
        switcher.create_requested.connect(self.tree.create_page)
        switcher.open()
        self._switcher = switcher
        return switcher

    def show_command_palette(self) -> CommandPalette:
        actions = [act for act in self.actions_by_name.values() if act is not self.actions_by_name["palette"]]
        actions += [dock.toggleViewAction() for dock in self.docks.values()]
        palette = CommandPalette(actions, self)
        palette.open()
        self._palette = palette
        return palette

    def show_settings(self) -> SettingsDialog:
        dialog = SettingsDialog(self.services, self)
        dialog.open()
        self._settings_dialog = dialog
        return dialog

    def show_dock(self, key: str) -> QDockWidget:
        dock = self.docks[key]
        dock.show()
        dock.raise_()
        return dock

    def focus_search(self) -> None:
        self.show_dock("search")
        self.search_pane.focus_query()

    def _on_dock_tab(self, dock: QDockWidget) -> None:
        """Clicking the Search tab means "I want to search": the query box takes the keys."""
        if dock is self.docks["search"]:
            self.search_pane.focus_query()

    def reveal_in_tree(self, path: Path | None = None) -> Path | None:
        """Show the Vault dock with the page (default: the open one) expanded to, selected and focused."""
        if path is None:
            editor = self.editors.current_editor()
            path = editor.path if editor is not None else None
        if path is None or self.tree.item_for(Path(path)) is None:
            self.statusBar().showMessage("The open file is not in the vault tree", 4000)
            return None
        self.show_dock("vault")
        self.tree.select_path(Path(path))
        self.tree.setFocus(Qt.FocusReason.OtherFocusReason)
        return Path(path)

    def _on_settings_changed(self, settings: Any) -> None:
        self.apply_theme(settings.theme)  # the Settings dialog's choice applies at once too
        self.editors.editor_mode = settings.editor_mode  # pages opened from now on

    def apply_theme(self, mode: str) -> None:
        manager = theme.current()
        if manager is not None and manager.mode != mode:
            manager.set_mode(mode)
        if mode in self.theme_actions:
            self.theme_actions[mode].setChecked(True)

    def choose_theme(self, mode: str) -> None:
        """View ▸ Theme: applied at once and remembered in config.toml."""
        self.apply_theme(mode)
        settings = self.services.settings
        if settings.theme != mode:
            try:
                self.services.save_settings(settings.replace(theme=mode))
            except OSError as exc:
                self._on_status_message(f"Error: the theme could not be saved: {exc}")

    def open_demo(self) -> None:
        """On the demo home, open one of its pages; elsewhere start the demo in its own window and home."""
        layout = self.services.layout
        if is_demo_home(layout.home):
            first = layout.notebook_dir / DEMO_FIRST_PAGE
            self.open_path(first if first.is_file() else layout.notebook_dir / "index.md")
            return
        if self.launch_demo():
            self.statusBar().showMessage("Opening the demo in a new window…", 8000)
        else:
            self._on_status_message("Error: the demo could not be started")

    def choose_vault(self) -> None:
        """File ▸ Open vault…: a folder of notes opens in a window of its own, its files left as they are."""
        folder = self.prompter.choose_folder("Open a folder as vault", str(Path.home()))
        if folder:
            self.open_vault(Path(folder))

    def open_vault(self, folder: Path) -> None:
        refusal = untrusted_config(folder)  # the new window would refuse it where nobody sees
        if refusal is not None:
            self.prompter.error("Open vault", refusal)
            return
        program = [] if getattr(sys, "frozen", False) else ["-m", "suzent_desktop"]
        if start_detached(sys.executable, [*program, "open", str(folder)]):
            self.statusBar().showMessage(f"Opening {folder}… (a vault already open comes to the front)", 8000)
        else:
            self._on_status_message(f"Error: {folder} could not be opened")

    def launch_demo(self) -> bool:
        """``suzent-desktop demo`` in its own process, on the usual demo folder named outright: the
        child inherits ``$SUZENT_HOME``, which would otherwise point it at this home."""
        from platformdirs import user_data_dir

        program = [] if getattr(sys, "frozen", False) else ["-m", "suzent_desktop"]  # a frozen app is the command
        demo = user_data_dir("suzent-desktop-demo", appauthor=False)
        return start_detached(sys.executable, [*program, "demo", demo])

    def search_tag(self, tag: str) -> None:
        """A click in the tags pane: ``tag:`` search in the Search pane, shown."""
        self.show_dock("search")
        self.search_pane.search_tag(tag)

    # -- memory operations ------------------------------------------------------------------------------------
    def run_dream(self, *, dry_run: bool = False) -> asyncio.Task[Any]:
        """Menu and palette go through the dream panel, so its history and diffs show the run."""
        self.show_dock("dream")
        return self.dream_panel.dry_run() if dry_run else self.dream_panel.dream_now()

    def run_lint(self) -> asyncio.Task[Any]:
        """Through the dream panel, so the findings are listed there and open their pages."""
        self.show_dock("dream")
        return self.dream_panel.lint_now()

    def promote(self) -> asyncio.Task[Any]:
        return self.services.submit(self.services.manager.promoting.run(), label="Promote MEMORY.md")

    def forget_current_paragraph(self) -> None:
        editor = self.editors.current_editor()
        if editor is not None:
            self.forget_text(editor.current_paragraph())

    def forget_text(self, text: str) -> asyncio.Task[Any] | None:
        """Ask which of the text's paragraphs and facts to forget, one per line; forget those."""
        text = text.strip()
        if not text:
            return None
        units = units_for(text)
        editor = self.editors.current_editor()
        manager = self.services.manager
        notes = manager.forgetting.notes_holding(units, [editor.path]) if editor is not None else []
        chosen = self.prompter.choose_lines(units, [p.relative_to(manager.layout.notebook_dir).as_posix() for p in notes])
        if not chosen:
            return None
        return self.services.forget(text, units=chosen.units, from_notes=notes if chosen.from_notes else [])

    # -- bus handlers -------------------------------------------------------------------------------------------
    def _on_status_message(self, message: str) -> None:
        self.statusBar().showMessage(message, 8000)
        if message.startswith("Error"):
            self.error_label.setText(message[:80])
            self.error_label.setToolTip(message)

    def _on_progress(self, label: str, done: int, total: int) -> None:
        if total <= 0:
            self.progress_bar.hide()
            self.cancel_button.hide()
            return
        self.progress_bar.setRange(0, total)
        self.progress_bar.setValue(min(done, total))
        self.progress_bar.setFormat(label if label.endswith(" MB") else f"{label} %v/%m")  # a download says its MB
        self.progress_bar.show()
        self.cancel_button.setVisible(self.services.busy)

    def _on_index_stale(self, count: int) -> None:
        if self._embedding_problem:
            return  # the index is current only for the old model: keep saying what went wrong
        waiting = f"{count} file{'s' if count != 1 else ''} waiting"
        if self.services.index_paused:
            self.stale_label.setText(f"Indexing paused · {waiting}")
        else:
            self.stale_label.setText(waiting if count else "Index up to date")

    def _on_embedding_failed(self, model: str, message: str) -> None:
        """The whole error, not 80 characters of it, and an index state that does not claim 'up to date'."""
        self._embedding_problem = message
        self.stale_label.setText("Index: not rebuilt (embedding model failed)")
        self.stale_label.setToolTip(message)
        self.prompter.error(f"The embedding model {model} cannot be used", message)

    def _on_phase(self, phase: str) -> None:
        self.phase_label.setText(f"Dream: {phase}")

    def _on_changed(self, changes: ChangeSet) -> None:
        if changes.index or changes.rows_added or changes.rows_removed:
            self._status_timer.start()
        if changes.pages and not self._shut_down:  # a dream's or a save's pages: aliases, headings
            self.services.submit(self.refresh_names(changes.pages))
        for page in changes.pages:
            if page.exists():
                self.tree.add_path(page)
                self.editors.on_file_added(page)
                self.editors.on_file_changed(page, changes.initiator)
            else:
                self.tree.remove_path(page)

    def _on_files_changed(self, changes: ChangeSet) -> None:
        """A file operation's record (``AppServices.apply``): open tabs follow a move, a trashed page's tab closes."""
        for old, new in changes.moved:
            self.editors.on_moved(old, new)
        for original, _copy in changes.trashed:
            self.editors.on_trashed(original)
        if changes.moved:
            self._refresh_backlinks()

    def _on_saved(self, path: Path, initiator: str) -> None:
        """The change names the editor that saved: it ignores the echo, other panes' copies reload."""
        self.statusBar().showMessage(f"Saved {path.name}", 3000)
        self.bridge.changed.emit(ChangeSet(pages={path}, initiator=initiator))
        self._queue_index(path)

    def refresh_status(self) -> asyncio.Task[Any] | None:
        if self._shut_down:
            return None
        return self.services.submit(self._refresh_status())

    async def _refresh_status(self) -> None:
        stats = await self.services.refresh_index_status()
        self.refresh_agent()  # also notices a server that died without saying goodbye
        if stats is not None:
            self.rows_label.setText(f"Index: {stats.rows} rows")
            if stats.errors:
                self.error_label.setText(stats.errors[-1][:80])
