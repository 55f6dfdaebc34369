"""What every widget may use: the engine, the dream runner, the signal bus and a task runner.

Widgets never ``await`` engine calls directly in slots; they hand a coroutine to
:meth:`AppServices.submit`, which schedules it on the one qasync loop, reports a failure on
the status bar instead of losing it in a task nobody awaits, and emits any ChangeSet the
coroutine returns on ``bridge.changed``. A file operation's ChangeSet is applied by
:meth:`AppServices.apply`, the one place the views learn about it. One labelled operation at a time is "current":
its progress drives the status-bar progress bar and the Cancel button stops it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from suzent_desktop.core import operations
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.index.embedding import make_embedder
from suzent_desktop.core.index.model_download import DownloadCancelled
from suzent_desktop.ui.base import gc_policy
from suzent_desktop.ui.base.bridge import Bridge

if TYPE_CHECKING:
    from suzent_desktop.core.engines.dream.model import DreamResult
    from suzent_desktop.core.engines.dream.runner import DreamRunner
    from suzent_desktop.core.manager import MemoryManager
    from suzent_desktop.settings import Settings

log = logging.getLogger(__name__)
SHUTDOWN_ROUNDS = 10  # cancel-and-wait rounds at shutdown; a task that keeps starting others is named, not awaited forever

ProgressFn = Callable[[int, int, str], None]


class AppServices(QObject):
    """Shared by the main window and every pane (passed to each pane's ``__init__``)."""

    files_changed = Signal(object)  # ChangeSet of a file operation, before the bus hears of it

    def __init__(
        self,
        manager: MemoryManager,
        bridge: Bridge | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.bridge = bridge or Bridge(self)
        self.manager = manager
        # The window's one runner, following the home's Dream service as saved settings or a new
        # model replace it, so they reach the next run (and the schedule's next wait).
        self.runner: DreamRunner = manager.dreaming.runner(on_phase=self._on_phase, on_result=self._on_result,
                                                           follow=lambda: self.manager.dreaming)
        self._leave_the_window_a_core()
        self.last_error: str | None = None
        self.index_stats: Any = None
        self.index_paused = False  # the last index pass was stopped part-way: search misses files
        self._tasks: set[asyncio.Task[Any]] = set()
        self._current: asyncio.Task[Any] | None = None
        self._current_label: str | None = None
        self._current_cancel: threading.Event | None = None
        self._current_on_cancel: Callable[[], None] | None = None

    # -- construction ----------------------------------------------------------------
    @classmethod
    def open(cls, home: Path | None = None, *, parent: QObject | None = None, **manager_kwargs: Any) -> AppServices:
        """Open the engine on a home (bootstrapping it) and wire the runner to the bus."""
        from suzent_desktop.core.manager import MemoryManager

        manager = MemoryManager.open(home, **manager_kwargs)
        bridge = Bridge()
        services = cls(manager, bridge, parent)
        bridge.setParent(services)
        return services

    def _leave_the_window_a_core(self, embedder: Any = None) -> None:
        """The bundled model's threads follow ``window_embedding_threads`` while the window is up."""
        embedder = embedder if embedder is not None else getattr(self.manager, "embedder", None)
        settings = getattr(self.manager, "settings", None)
        if embedder is not None and settings is not None:
            operations.leave_the_window_a_core(embedder, settings)

    def _on_phase(self, phase: str) -> None:
        self.bridge.dream_phase.emit(phase)

    def _on_result(self, result: DreamResult) -> None:
        gc_policy.safe_point()
        self.bridge.dream_result.emit(result)
        if not result.changes.empty:
            self.bridge.changed.emit(result.changes)

    # -- conveniences ---------------------------------------------------------------------
    @property
    def layout(self):  # noqa: ANN201 - Layout, kept untyped to avoid an import cycle in type checkers
        return self.manager.layout

    @property
    def settings(self) -> Settings:
        return self.manager.settings

    @property
    def busy(self) -> bool:
        """True while a labelled (cancellable) operation runs."""
        return self._current is not None and not self._current.done()

    @property
    def current_label(self) -> str | None:
        return self._current_label if self.busy else None

    def tasks(self) -> set[asyncio.Task[Any]]:
        return set(self._tasks)

    # -- task runner ---------------------------------------------------------------------
    def submit(
        self,
        coro: Coroutine[Any, Any, Any],
        *,
        label: str | None = None,
        cancel: threading.Event | None = None,
        on_cancel: Callable[[], None] | None = None,
    ) -> asyncio.Task[Any]:
        """Schedule ``coro`` on the running loop.

        ``label`` makes the task the current long operation: the status bar shows it and the
        Cancel button sets ``cancel`` (a threading.Event the coroutine polls), calls
        ``on_cancel`` (for example ``runner.cancel``) and finally cancels the task itself.
        """
        task = asyncio.ensure_future(self._run(coro, label, cancel))
        # A task cancelled before its first step never awaits ``coro``: close it so it is not leaked.
        task.add_done_callback(lambda t: t.cancelled() and coro.close())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        if label is not None:
            self._current = task
            self._current_label = label
            self._current_cancel = cancel
            self._current_on_cancel = on_cancel
            self.bridge.status_message.emit(f"{label}…")
            task.add_done_callback(self._clear_current)
        return task

    async def _run(self, coro: Coroutine[Any, Any, Any], label: str | None,
                   cancel: threading.Event | None = None) -> Any:
        try:
            result = await coro
        except asyncio.CancelledError:
            if label:
                self.bridge.status_message.emit(f"{label}: cancelled")
            raise
        except Exception as exc:  # every failure must reach the user, not a lost task
            message = f"{label + ': ' if label else ''}{exc}"
            self.last_error = message
            log.exception("background operation failed: %s", label or coro)
            self.bridge.status_message.emit(f"Error: {message}")
            return None
        if isinstance(result, ChangeSet):
            if result.errors:
                self.last_error = result.errors[-1]
                self.bridge.status_message.emit(f"Error: {result.errors[-1]}")
            if not result.empty:
                self.bridge.changed.emit(result)
        if label:
            stopped = cancel is not None and cancel.is_set()  # the work returned early: not "done"
            said = result.message if stopped and isinstance(result, ChangeSet) else ""
            self.bridge.status_message.emit(said or f"{label}: {'stopped' if stopped else 'done'}")
        return result

    def _clear_current(self, task: asyncio.Task[Any]) -> None:
        gc_policy.safe_point()
        if self._current is task:
            label = self._current_label or ""
            self._current = None
            self._current_label = None
            self._current_cancel = None
            self._current_on_cancel = None
            self.bridge.progress.emit(label, 0, 0)

    def cancel_current(self) -> None:
        """Stop the current labelled operation cleanly: cooperative flag first, then the task."""
        task = self._current
        if task is None or task.done():
            return
        if self._current_cancel is not None:
            self._current_cancel.set()
        if self._current_on_cancel is not None:
            try:
                self._current_on_cancel()
            except Exception:  # a failing cancel hook must not keep the task alive
                log.exception("cancel hook failed")
        if self._current_cancel is None and self._current_on_cancel is None:
            task.cancel()

    def progress_callback(self, label: str) -> ProgressFn:
        """A ``progress(done, total, what)`` callable safe to call from worker threads."""
        loop = asyncio.get_event_loop()
        owner = threading.get_ident()

        def report(done: int, total: int, what: str = "") -> None:
            text = f"{label}: {what}" if what else label
            if threading.get_ident() == owner:
                self.bridge.progress.emit(text, int(done), int(total))
            else:
                loop.call_soon_threadsafe(self.bridge.progress.emit, text, int(done), int(total))

        return report

    async def shutdown(self, *, rollback_timeout: float = 60.0) -> None:
        """Stop a dream run cleanly, then cancel every task this object started and wait for them.

        The runner's own cancel rolls its page edits back; cancelling its task from outside
        could interrupt that rollback, so the runner is given time to return to idle first.
        """
        runner = self.runner
        if runner is not None and runner.phase != "idle":
            try:
                runner.cancel()
            except Exception:
                log.exception("runner.cancel failed")
            deadline = asyncio.get_running_loop().time() + rollback_timeout
            while runner.phase != "idle" and asyncio.get_running_loop().time() < deadline:
                await asyncio.sleep(0.05)
        # A task may start another while it winds down (a cancelled pass that queues its follow-up):
        # cancel in rounds until none is left, so the window never closes over a running task.
        for _ in range(SHUTDOWN_ROUNDS):
            pending = [t for t in self._tasks if not t.done()]
            if not pending:
                return
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        left = [t for t in self._tasks if not t.done()]
        if left:
            log.warning("%d background task(s) still running after shutdown", len(left))

    # -- common operations ---------------------------------------------------------------------
    def apply(self, changes: ChangeSet) -> asyncio.Task[Any] | None:
        """The one place a file operation reaches the views: the tree and the editor tabs
        (``files_changed``), then every pane (``bridge.changed``), the status bar, and an index
        sync of the sources it names."""
        self.files_changed.emit(changes)
        self.submit(asyncio.to_thread(operations.apply_to_vault, self.manager, changes))  # off the GUI thread
        if changes.paths:
            self.bridge.changed.emit(changes)
        if changes.message:
            self.bridge.status_message.emit(changes.message)
        if changes.refresh:
            return self.submit(self.manager.indexing.sync_paths(sorted(changes.refresh)))
        return None

    def reindex(self, *, full: bool = False, walk: bool = True) -> asyncio.Task[Any]:
        """Start an (incremental or full) reindex with progress and Cancel (``walk``: see the Index service's ``reindex``)."""
        label = "Full reindex" if full else "Indexing"
        cancel = threading.Event()
        return self.submit(self._reindex(full, label, cancel, walk), label=label, cancel=cancel)

    async def _reindex(self, full: bool, label: str, cancel: threading.Event, walk: bool = True) -> ChangeSet:
        await self._download_model(self.manager.embedder, cancel)  # a model chosen in config.toml, not yet here
        changes = await self.manager.indexing.reindex(full=full, progress=self.progress_callback(label), cancel=cancel, walk=walk)
        self.index_paused = cancel.is_set()
        self.bridge.index_paused.emit(self.index_paused)
        if self.index_paused:
            changes.message = (f"{label}: paused; search misses the files not indexed yet. "
                               "Resume it from the status bar; the next start resumes it too")
        await self.refresh_index_status()
        return changes

    async def refresh_index_status(self) -> Any:
        """Read index stats and the number of stale files, and announce them on the bus."""
        stale = await asyncio.to_thread(self.manager.indexing.stale_paths)
        self.bridge.index_stale.emit(len(stale))
        stats = await self.manager.indexing.stats()
        self.index_stats = stats
        return stats

    def forget(self, text: str, units: list[str] | None = None, from_notes: list[Path] | None = None) -> asyncio.Task[Any]:
        """Forget ``text`` (or just these of its units; deleted from these notes of the person's too);
        the returned ChangeSet is broadcast."""
        return self.submit(self.manager.forgetting.forget(text, units=units, from_notes=from_notes or []))

    def save_settings(self, settings: Settings) -> Path:
        """Write what differs from the settings in use into config.toml and tell every view;
        engine parts read settings when they next run."""
        from suzent_desktop.settings import save_settings

        previous = self.manager.settings
        path = save_settings(self.manager.layout.home, settings, since=previous)
        self.manager.settings = settings
        if settings.embedding_model != previous.embedding_model:
            self.switch_embedder(settings, keep_on_cancel=previous.embedding_model)
        else:
            self._leave_the_window_a_core()
        if self.runner is not None:
            self.runner.wake()  # a new interval or an enabled schedule applies now
        self.bridge.settings_changed.emit(settings)
        return path

    def switch_embedder(self, settings: Settings, *, keep_on_cancel: str | None = None) -> asyncio.Task[Any]:
        """Load the newly chosen embedding model (downloading it first when it must be) and rebuild
        the index with it (vectors of two models are not comparable), with progress and Cancel like
        any reindex. A download cancelled puts ``embedding_model`` back to ``keep_on_cancel``."""
        label = "Rebuilding the index for the new embedding model"
        cancel = threading.Event()
        return self.submit(self._switch_embedder(settings, label, cancel, keep_on_cancel), label=label, cancel=cancel)

    async def _switch_embedder(
        self, settings: Settings, label: str, cancel: threading.Event, keep_on_cancel: str | None = None
    ) -> ChangeSet:
        try:
            embedder = await asyncio.to_thread(make_embedder, settings)
            self._leave_the_window_a_core(embedder)
            await self._download_model(embedder, cancel)
            await asyncio.to_thread(lambda: embedder.dim)  # one real call: an unreachable provider fails here
        except asyncio.CancelledError:  # the download was stopped: the old model stays, in config.toml too
            if keep_on_cancel is not None:
                self._keep_the_model(keep_on_cancel)
            raise
        except Exception as exc:  # the index stays with the model it was built with, and says so
            old = getattr(self.manager.embedder, "name", "the previous model")
            self.bridge.embedding_failed.emit(settings.embedding_model or "the bundled model",
                                              f"{exc}\n\nThe index was not rebuilt: it still uses {old}.")
            raise
        await self.manager.use_embedder(embedder)
        return await self._reindex(False, label, cancel)

    async def _download_model(self, embedder: Any, cancel: threading.Event) -> None:
        """Fetch a model's files before anything is embedded with it, on a worker thread, its bytes on
        the progress bar; Cancel stops it with nothing kept (the task ends cancelled)."""
        report = self.progress_callback("Downloading the embedding model")

        def progress(done: int, total: int, name: str) -> None:
            report(done, total, f"{name}, {done / 1e6:.1f} of {total / 1e6:.1f} MB")

        try:
            await asyncio.to_thread(operations.download_model, embedder, progress, cancel)
        except DownloadCancelled as exc:
            raise asyncio.CancelledError(str(exc)) from exc

    def _keep_the_model(self, model: str) -> None:
        """Put ``embedding_model`` back to the model still in use, so the next start does not switch."""
        from dataclasses import replace

        from suzent_desktop.settings import save_settings

        current = self.manager.settings
        if current.embedding_model != model:
            kept = replace(current, embedding_model=model)
            save_settings(self.manager.layout.home, kept, since=current)
            self.manager.settings = kept
            self.bridge.settings_changed.emit(kept)
