"""GUI-thread stalls while the app does its heaviest work: per phase, over several runs.

A 10 ms QTimer records how late each tick fires (event-loop lag) in the real main window on
the qasync loop, phase by phase, while a keystroke lands in the open editor every 50 ms:

- ``first index``: the app's first sync of a vault that has no index yet;
- ``full reindex``: Full reindex (every file embedded again);
- ``dream``: a forced offline dream started from the dream panel, as a user would;
- ``typing``: plain typing in the open page, nothing else running;
- ``[[ links``: typing ``[[`` and a few letters until the link completer pops up, then Escape;
- ``switcher``: opening the quick switcher (Ctrl+O), typing a query, closing it;
- ``long page``: a 2,000-line page (headings, emphasis, links, tags, tasks, callouts, code,
  embeds) open in Live Preview, then in Source mode: once its far lines are styled (the time that
  takes is printed), each keystroke is timed from the key event to its repaint on screen
  (``per_key`` p50 / p99 / max, target under 16 ms);
- ``graph``: Ctrl+G on the whole vault (the time until its layout has settled is printed), then
  dragging to pan and turning the wheel to zoom in and out, each step timed from the mouse event
  to its repaint (``frame`` p50 / p99 / max), over the whole vault and zoomed in; the graph is
  drawn on a worker thread, so ``pictures`` counts the pictures it drew during the gestures and
  ``sharp_ms`` is how long after the last step of each gesture its picture was sharp again.

Each run is a fresh process on a freshly written vault (``--runs``, default 3), for each
embedder and vault size asked for. Target: no stall above 100 ms in any phase of any run.
Printed per phase: max and p99 lag, and the number of stalls over 100 ms (and 50 ms), then
the same over all phases. When the GUI thread is late, a watchdog thread samples its stack
(and the other threads'), and calls that may hold the GIL (store, embedder, gc) are timed,
so a stall names its culprit.

    python bench/ui_stall.py [--pages 1000 5000] [--embedder hashing bundled] [--runs 3]
                             [--gc app|default] [--phases ...] [--json FILE]

The machine's load matters: on shared cores the figures are worse than on an idle machine.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import inspect
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

TICK_MS = 10
TYPE_MS = 50
TARGET_MS = 100.0
PHASES = ("first index", "full reindex", "dream", "typing", "[[ links", "switcher", "long page", "graph")
LONG_PAGE_LINES = 2000
KEY_TARGET_MS = 16.0
SETTLE_S = 1.0  # after a phase's work: the panes redraw what it changed


def _coro_where(coro) -> str:  # noqa: ANN001 - a coroutine
    """Where a task's innermost awaiting coroutine stands (file:line function)."""
    parts = []
    while coro is not None and getattr(coro, "cr_frame", None) is not None:
        frame = coro.cr_frame
        parts.append(f"{Path(frame.f_code.co_filename).name}:{frame.f_lineno} {frame.f_code.co_name}")
        coro = getattr(coro, "cr_await", None)
    return " > ".join(parts[-2:]) if parts else "done"


class SlowCallbacks:
    """Times every asyncio callback the loop runs (task steps included) and keeps the slowest."""

    def __init__(self, threshold: float = 0.03) -> None:
        self.threshold = threshold
        self.slow: list[tuple[float, str]] = []
        self._original = asyncio.events.Handle._run

    def install(self) -> None:
        original, slow, threshold = self._original, self.slow, self.threshold

        def timed(handle: asyncio.events.Handle) -> None:
            task = getattr(handle._callback, "__self__", None)
            coro = task.get_coro() if isinstance(task, asyncio.Task) else None
            resumed = _coro_where(coro)
            start = time.perf_counter()
            original(handle)
            took = time.perf_counter() - start
            if took > threshold:
                what = f"task {resumed} -> {_coro_where(coro)}" if coro is not None else repr(handle)[:200]
                slow.append((took, what))

        asyncio.events.Handle._run = timed  # type: ignore[method-assign]

    def remove(self) -> None:
        asyncio.events.Handle._run = self._original  # type: ignore[method-assign]


def _where(frame) -> str:  # noqa: ANN001 - a frame object
    """The innermost frames of a stack, in project or library code, innermost first."""
    stack = traceback.extract_stack(frame)
    ours = [f for f in stack[:-2] if "suzent_desktop" in f.filename]
    tail = ours[-2:] + stack[-2:]
    return " <- ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in reversed(tail))


class StallSampler:
    """A watchdog thread: when the GUI thread has not ticked for a while, record where it is."""

    def __init__(self, meter: LagMeter, after_ms: float = 40.0) -> None:
        import threading

        self.meter = meter
        self.after = after_ms / 1000
        self.samples: Counter[str] = Counter()
        self.workers: Counter[str] = Counter()  # what other threads ran meanwhile (GIL holders)
        self.gil_gaps: list[float] = []  # ms this thread could not run at all
        self.gap_times: list[tuple[float, float]] = []
        self._main = threading.main_thread().ident
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _watch(self) -> None:
        while True:
            before = time.perf_counter()
            if self._stop.wait(0.005):
                return
            # This thread needs the GIL to wake up: when it is late too, native code held the GIL.
            late = (time.perf_counter() - before - 0.005) * 1000
            if late > 30:
                self.gil_gaps.append(late)
                self.gap_times.append((time.perf_counter(), late))
            if time.perf_counter() - self.meter.last > self.after:
                frame = sys._current_frames().get(self._main)
                if frame is None:
                    continue
                self.samples["GUI: " + _where(frame)] += 1
                for ident, other in sys._current_frames().items():
                    if ident not in (self._main, self._thread.ident):
                        where = _where(other)
                        if not any(idle in where for idle in (" get", " select", " wait")):
                            self.workers["worker: " + where] += 1


class CallClock:
    """Records when engine calls that may enter native code ran, to name what held the GIL."""

    TARGETS = (
        ("suzent_desktop.core.index.storage.store", "IndexStore"),
        ("suzent_desktop.core.index.embedding", "HashingEmbedder"),
        ("suzent_desktop.core.index.embedding", "OnnxMiniLMEmbedder"),
        # GUI-thread code reached from Qt signals and timers (not from asyncio callbacks)
        ("suzent_desktop.ui.window.main_window", "MainWindow"),
        ("suzent_desktop.ui.window.vault_tree", "VaultTree"),
        ("suzent_desktop.ui.page.editor", "PageEditor"),
        ("suzent_desktop.ui.workspace.editor_area", "EditorArea"),
        ("suzent_desktop.ui.base.watcher", "VaultWatcher"),
        ("suzent_desktop.ui.panes.search_pane", "SearchPane"),
        ("suzent_desktop.ui.panes.daily_logs", "DailyLogsPane"),
        ("suzent_desktop.ui.panes.dream_panel", "DreamPanel"),
        ("suzent_desktop.ui.panes.backlinks", "BacklinksPane"),
        ("suzent_desktop.ui.panes.memory_view", "MemoryView"),
        ("suzent_desktop.ui.panes.tombstones_pane", "TombstonesPane"),
        ("suzent_desktop.ui.graph.pane", "GraphPane"),
        ("suzent_desktop.ui.graph.canvas", "GraphCanvas"),
    )

    def __init__(self) -> None:
        self.calls: list[tuple[float, float, str]] = []
        self._saved: list[tuple[type, str, object]] = []
        self._gc_start = 0.0

    def install(self) -> None:
        import importlib

        for module_name, class_name in self.TARGETS:
            cls = getattr(importlib.import_module(module_name), class_name, None)
            if cls is None:
                continue
            for name, member in list(vars(cls).items()):
                if (
                    name.startswith("__")
                    or not inspect.isfunction(member)
                    or inspect.iscoroutinefunction(member)
                ):
                    continue
                if name != name.lower():
                    continue  # Qt virtual overrides (showEvent, eventFilter) are left alone
                self._saved.append((cls, name, member))
                setattr(cls, name, self._wrap(member, f"{class_name}.{name}"))

        gc.callbacks.append(self._gc)

    def _gc(self, phase: str, info: dict) -> None:
        """Garbage collections hold the GIL in whichever thread triggers them: time them too."""
        if phase == "start":
            self._gc_start = time.perf_counter()
        else:
            self.calls.append(
                (self._gc_start, time.perf_counter(), f"gc generation {info.get('generation')}")
            )

    def remove(self) -> None:
        if self._gc in gc.callbacks:
            gc.callbacks.remove(self._gc)
        for cls, name, member in reversed(self._saved):
            setattr(cls, name, member)

    def _wrap(self, func, label: str):  # noqa: ANN001, ANN202
        calls = self.calls

        def timed(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            start = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                calls.append((start, time.perf_counter(), label))

        return timed

    def during(self, end: float, length_ms: float) -> list[str]:
        """Innermost calls that overlapped a gap ending at ``end``."""
        start = end - length_ms / 1000
        hits = [(b - a, label) for a, b, label in self.calls if a < end and b > start and b - a > 0.01]
        return [f"{label} {took * 1000:.0f} ms" for took, label in sorted(hits, reverse=True)[:4]]


class LagMeter:
    """A 10 ms timer; lag is how much later than due each tick fired.

    For each late tick it also keeps the CPU time the GUI thread and the whole process used
    in the gap: a stall where the GUI thread ran most of the time is GUI-thread work; one
    where it hardly ran waited for the GIL (other threads) or for a core (the machine).
    """

    def __init__(self) -> None:
        from PySide6.QtCore import QTimer

        self.lags: list[float] = []
        self.late: list[tuple[float, float, float]] = []  # (lag, GUI-thread CPU, process CPU) in ms
        self.timer = QTimer()
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)
        self._last = 0.0
        self._cpu = (0.0, 0.0)

    @property
    def last(self) -> float:
        return self._last

    def start(self) -> None:
        self._last = time.perf_counter()
        self._cpu = (time.thread_time(), time.process_time())
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    def _tick(self) -> None:
        now = time.perf_counter()
        cpu = (time.thread_time(), time.process_time())
        lag = max(0.0, (now - self._last) * 1000 - TICK_MS)
        self.lags.append(lag)
        if lag > 50:
            self.late.append((lag, (cpu[0] - self._cpu[0]) * 1000, (cpu[1] - self._cpu[1]) * 1000))
        self._last = now
        self._cpu = cpu


def _load() -> float:
    """The machine's 1-minute load average (other engineers' work included)."""
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return -1.0


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _off_cpu(late: list) -> int:
    """Stalls over 100 ms during which the whole process ran less than half the time: it was
    waiting for a core (a loaded machine) or for the disk, not running our code."""
    return sum(1 for lag, _gui, process in late if lag > TARGET_MS and process < 0.5 * lag)


def _summary(lags: list[float], late: list | None = None) -> dict:
    return {
        "max": round(max(lags, default=0.0), 1),
        "p99": round(_percentile(lags, 0.99), 1),
        "over_100": sum(1 for v in lags if v > TARGET_MS),
        "off_cpu": _off_cpu(late or []),
        "over_50": sum(1 for v in lags if v > 50),
        "ticks": len(lags),
    }


class Typist:
    """A keystroke into the editor every 50 ms while a phase runs (the words a user types)."""

    def __init__(self, editor) -> None:  # noqa: ANN001 - a PageEditor
        from PySide6.QtCore import QTimer

        self.editor = editor
        self.typed = 0
        self.timer = QTimer()
        self.timer.setInterval(TYPE_MS)
        self.timer.timeout.connect(self._one)

    def _one(self) -> None:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest

        # words and a new line every 60 characters, as a person writes: one ever-growing line
        # would make each keystroke relay out the whole paragraph
        if self.typed % 60 == 59:
            QTest.keyClick(self.editor.source, Qt.Key.Key_Return)
        elif self.typed % 6 == 5:
            QTest.keyClick(self.editor.source, Qt.Key.Key_Space)
        else:
            QTest.keyClick(self.editor.source, Qt.Key.Key_A)
        self.typed += 1

    def start(self) -> None:
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()


class GuiImports:
    """Modules imported for the first time on the GUI thread (each one a stall risk)."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def find_spec(self, name: str, path=None, target=None):  # noqa: ANN001, ANN201 - a meta path finder
        import threading

        if threading.current_thread() is threading.main_thread():
            self.names.append(name)
        return None  # the normal finders import it

    def install(self) -> None:
        sys.meta_path.insert(0, self)

    def remove(self) -> None:
        if self in sys.meta_path:
            sys.meta_path.remove(self)


class GuiScans:
    """Folder listings (os.scandir / os.listdir, which os.walk and Path.glob use) on the GUI thread."""

    def __init__(self) -> None:
        self.callers: Counter[str] = Counter()
        self._saved = (os.scandir, os.listdir)

    def install(self) -> None:
        import threading

        callers = self.callers

        def spy(real):  # noqa: ANN001, ANN202
            def listing(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
                if threading.current_thread() is threading.main_thread():
                    callers[_where(sys._getframe(1))] += 1
                return real(*args, **kwargs)

            return listing

        os.scandir, os.listdir = spy(self._saved[0]), spy(self._saved[1])

    def remove(self) -> None:
        os.scandir, os.listdir = self._saved


class Probe:
    """Everything recorded while one phase runs: lags, slow loop callbacks, stacks, GIL gaps."""

    def __init__(self, clock: CallClock) -> None:
        self.clock = clock
        self.meter = LagMeter()
        self.slow = SlowCallbacks()
        self.sampler = StallSampler(self.meter)
        self.imports = GuiImports()
        self.scans = GuiScans()

    def start(self) -> None:
        self.load = _load()
        self.clock.calls.clear()
        self.imports.install()
        self.scans.install()
        self.slow.install()
        self.meter.start()
        self.sampler.start()

    def stop(self) -> dict:
        self.meter.stop()
        self.sampler.stop()
        self.slow.remove()
        self.imports.remove()
        self.scans.remove()
        gaps = self.sampler.gil_gaps
        return {
            "load": [self.load, _load()],
            "late": sorted(self.meter.late, reverse=True),
            "gui_imports": self.imports.names,
            "gui_scans": self.scans.callers.most_common(4),
            "lags": self.meter.lags,
            "gil_gaps": {"over_30": len(gaps), "longest": round(max(gaps, default=0.0), 1)},
            "gap_causes": [
                (round(late), self.clock.during(end, late))
                for end, late in sorted(self.sampler.gap_times, key=lambda g: -g[1])[:4]
            ],
            "slow": [(round(t * 1000, 1), what) for t, what in sorted(self.slow.slow, reverse=True)[:5]],
            "stacks": self.sampler.samples.most_common(5) + self.sampler.workers.most_common(5),
        }


async def _links(window, editor, rounds: int = 25) -> dict:  # noqa: ANN001
    """Type ``[[`` and a few letters until the completer pops up, then Escape and undo the text."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    completer = editor.completer
    shown = 0
    for round_ in range(rounds):
        QTest.keyClick(editor.source, Qt.Key.Key_Return)
        for char in "[[" + ("me", "ri", "ga", "co", "bo")[round_ % 5]:
            QTest.keyClicks(editor.source, char)
            await asyncio.sleep(TYPE_MS / 1000)
        shown += bool(completer is not None and completer.visible())
        QTest.keyClick(editor.source, Qt.Key.Key_Escape)
        await asyncio.sleep(TYPE_MS / 1000)
    return {"popups": shown, "rounds": rounds}


async def _switcher(window, editor, rounds: int = 10) -> dict:  # noqa: ANN001
    """Open the quick switcher, type a query letter by letter, close it; the first open is the cold one."""
    from PySide6.QtTest import QTest

    found = 0
    for round_ in range(rounds):
        switcher = window.show_quick_switcher()
        await asyncio.sleep(0.1)
        for char in ("memo", "garden", "trail", "coffee", "note")[round_ % 5]:
            QTest.keyClicks(switcher.input, char)
            await asyncio.sleep(TYPE_MS / 1000)
        found += switcher.list.count() > 0
        switcher.reject()
        await asyncio.sleep(0.2)
    editor.source.setFocus()
    return {"with_results": found, "rounds": rounds}


def long_page_text(lines: int = LONG_PAGE_LINES) -> str:
    """A long page in the shapes Live Preview decorates, about ``lines`` lines."""
    blocks = [
        "## Section {n}\n",
        "Some **bold** words, some *italic* ones, `inline code`, a [[3_Personal/About Me|link]] and #tag{n}.\n",
        "- [ ] a task to do {n}\n- [x] a task done {n}\n- a plain bullet with ~~old~~ ==new== text\n",
        "> [!note] Callout {n}\n> Its body, with [[Coffee]] in it.\n",
        "```python\nprint({n})\n```\n",
        "A longer paragraph that wraps across the width of the pane, written the way people write notes, "
        "with a [web link](https://example.org/{n}) and nothing else special in it at all.\n",
    ]
    out: list[str] = ["# A long page\n", "\n"]
    n, count = 0, 2
    while count < lines:  # counted as it grows: the page is written inside the timed phase
        out.append(blocks[n % len(blocks)].format(n=n) + "\n")
        count += out[-1].count("\n")
        n += 1
    return "".join(out)


async def _long_page(window, home: Path, keys: int = 240) -> dict:  # noqa: ANN001
    """Per-keystroke time on a long page, key event to repaint, in Live Preview then Source mode."""
    from PySide6.QtCore import QCoreApplication, QEvent, Qt
    from PySide6.QtGui import QTextCursor
    from PySide6.QtTest import QTest

    page = window.services.layout.notebook_dir / "Long page.md"
    page.write_text(long_page_text(), encoding="utf-8")
    window.open_path(page)
    editor = window.editors.current_editor()
    out: dict = {"lines": editor.source.document().blockCount()}
    for view in ("live", "source"):
        editor.views.set_view(view)
        cursor = editor.source.textCursor()
        cursor.setPosition(editor.source.document().findBlockByNumber(1000).position())
        editor.source.setTextCursor(cursor)
        editor.source.centerCursor()
        editor.source.setFocus()
        t0 = time.perf_counter()
        while editor.highlighter.deferred and time.perf_counter() - t0 < 30:  # far lines styled in chunks
            await asyncio.sleep(0.02)
        styled = time.perf_counter() - t0
        await asyncio.sleep(0.3)
        times: list[float] = []
        for typed in range(keys):
            key = Qt.Key.Key_Return if typed % 60 == 59 else Qt.Key.Key_Space if typed % 6 == 5 else Qt.Key.Key_A
            t0 = time.perf_counter()
            QTest.keyClick(editor.source, key)
            # paint what the keystroke asked to repaint, now, in the timing (processEvents inside a
            # task on the qasync loop would re-enter the loop; posted repaints alone do not)
            QCoreApplication.sendPostedEvents(None, QEvent.Type.UpdateRequest)
            times.append((time.perf_counter() - t0) * 1000)
            await asyncio.sleep(0.02)
        out[view] = {"p50": round(_percentile(times, 0.5), 2), "p95": round(_percentile(times, 0.95), 2),
                     "p99": round(_percentile(times, 0.99), 2),
                     "max": round(max(times), 2), "keys": keys, "styled_s": round(styled, 2)}
        editor.load()
        editor.source.moveCursor(QTextCursor.MoveOperation.Start)
    editor.load()
    return out


async def _graph(window, steps: int = 120) -> dict:  # noqa: ANN001
    """Open the graph view on the whole vault, wait for its layout, then pan and zoom it, timing each frame."""
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    pane = window.graph
    settled = asyncio.Event()
    pane.laid_out.connect(settled.set)
    t0 = time.perf_counter()
    window.actions_by_name["graph_view"].trigger()
    window.graph.refresh()  # read and laid out now, even when it was shown before: its end is awaited
    await asyncio.wait_for(settled.wait(), 120)
    out: dict = {"nodes": len(pane.graph.nodes), "links": len(pane.graph.edges),
                 "laid_out_s": round(time.perf_counter() - t0, 2)}
    canvas = pane.canvas
    middle = QPoint(canvas.width() // 2, canvas.height() // 2)

    def timed(act: Callable[[], None]) -> float:
        start = time.perf_counter()
        act()
        canvas.repaint()  # the frame the event asked for, painted now, in the timing
        return (time.perf_counter() - start) * 1000

    def wheel(notches: int) -> None:
        where = QPointF(middle)
        QApplication.sendEvent(canvas, QWheelEvent(
            where, canvas.mapToGlobal(where), QPoint(0, 0), QPoint(0, 120 * notches), Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False))

    async def sharp() -> float:
        """How long until the worker's picture shows the view the gesture left."""
        start = time.perf_counter()
        while not canvas.current():
            await asyncio.sleep(0.002)
        return round((time.perf_counter() - start) * 1000, 1)

    pictures: list[int] = []
    canvas.rendered.connect(lambda: pictures.append(1))
    for label, zoom in (("whole", 0), ("zoomed", 6)):
        wheel(zoom)  # six notches in: names are written
        await sharp()
        frames: list[float] = []
        drawn = len(pictures)
        QTest.mousePress(canvas, Qt.MouseButton.LeftButton, pos=middle)
        for step in range(steps):
            angle = step / steps * 6.283
            at = middle + QPoint(int(80 * math.cos(angle)) - 80, int(60 * math.sin(angle)))
            frames.append(timed(lambda at=at: QTest.mouseMove(canvas, at)))
            await asyncio.sleep(0.016)
        QTest.mouseRelease(canvas, Qt.MouseButton.LeftButton, pos=middle)
        settled = [await sharp()]
        for step in range(steps // 4):
            frames.append(timed(lambda step=step: wheel(1 if step % 8 < 4 else -1)))
            await asyncio.sleep(0.016)
        settled.append(await sharp())
        out[label] = {"p50": round(_percentile(frames, 0.5), 1), "p99": round(_percentile(frames, 0.99), 1),
                      "max": round(max(frames), 1), "frames": len(frames), "pictures": len(pictures) - drawn,
                      "sharp_ms": settled}
    return out


async def _typing(seconds: float = 4.0) -> dict:
    await asyncio.sleep(seconds)
    return {}


async def _first_personal_page(window, timeout: float = 60.0) -> Path:
    """A personal page from the vault tree, once it has filled: the app's tree fills from the vault
    model's first walk, which runs off the GUI thread once the watcher is in place."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        pages = [p for p in window.tree.paths() if p.suffix == ".md" and "3_Personal" in p.as_posix()]
        if pages:
            return pages[0]
        await asyncio.sleep(0.05)
    raise RuntimeError(f"the vault tree did not fill within {timeout:.0f} s")


async def _measure(home: Path, phases: list[str], gc_mode: str) -> dict:
    from PySide6.QtTest import QTest  # noqa: F401 - the bench's own import, before any phase

    from suzent_desktop.ui.base import app as app_module
    from suzent_desktop.ui.base.services import AppServices

    if gc_mode == "default":  # CPython's own collector, for comparison with the app's policy
        from suzent_desktop.ui.base import gc_policy

        gc_policy.install = lambda: None
        gc_policy.safe_point = lambda: None
    clock = CallClock()
    clock.install()  # before the window connects its slots, so they are the timed ones
    services = AppServices.open(home)
    window = app_module.show_window(services)
    window.start_background(watch=True, serve=False, index=False)
    out: dict = {"phases": {}, "threads": getattr(services.manager.embedder, "threads", None)}
    page = await _first_personal_page(window)
    window.open_path(page)
    editor = window.editors.current_editor()
    editor.source.setFocus()
    window.show_dock("dream")
    await asyncio.sleep(0.5)  # let the window settle (first paint, pane refreshes)

    async def first_index() -> dict:
        t0 = time.perf_counter()
        changes = await services.reindex()
        return {"seconds": round(time.perf_counter() - t0, 2), "rows": getattr(services.index_stats, "rows", None),
                "ok": changes is not None}

    async def full_reindex() -> dict:
        t0 = time.perf_counter()
        changes = await services.reindex(full=True)
        return {"seconds": round(time.perf_counter() - t0, 2), "ok": changes is not None}

    async def dream() -> dict:
        t0 = time.perf_counter()
        await window.dream_panel.dream_now()
        rows = window.dream_panel.history_rows
        return {"seconds": round(time.perf_counter() - t0, 2), "outcome": rows[0]["outcome"] if rows else None}

    work: dict[str, Callable[[], Awaitable[dict]]] = {
        "first index": first_index,
        "full reindex": full_reindex,
        "dream": dream,
        "typing": _typing,
        "[[ links": lambda: _links(window, editor),
        "switcher": lambda: _switcher(window, editor),
        "long page": lambda: _long_page(window, home),
        "graph": lambda: _graph(window),
    }
    for name in PHASES:
        if name not in phases:
            if name == "first index":
                await services.reindex()
            continue
        editor.load()  # the page as on disk: the last phase's typing is dropped
        typist = Typist(editor)
        probe = Probe(clock)
        probe.start()
        if name not in ("[[ links", "switcher", "long page", "graph"):
            typist.start()
        try:
            detail = await work[name]()
        except Exception as exc:  # a failing phase is reported, the others still run
            detail = {"error": repr(exc)}
        await asyncio.sleep(SETTLE_S)
        typist.stop()
        figures = probe.stop()
        figures["detail"] = detail | {"typed": typist.typed}
        out["phases"][name] = figures
    clock.remove()
    out["gc"] = {"frozen": gc.get_freeze_count(), "threshold": gc.get_threshold()}
    editor.load()  # drop the typing, never save it
    await window.shutdown()
    window.close()
    gc.unfreeze()
    out["gc"]["cyclic_garbage_kept"] = gc.collect()  # what the freezes kept alive: cycles nobody references
    return out


def _one_run(args: argparse.Namespace) -> dict:
    """One run in this process: write the vault, open the window, measure each phase."""
    for key in [k for k in os.environ if k.startswith("SUZENT_")]:
        del os.environ[key]
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    if args.embedder[0] == "hashing":
        os.environ["SUZENT_EMBEDDING_MODEL"] = "hashing"
    from ui_launch import make_vault

    base = Path(tempfile.mkdtemp(prefix="suzent-stall-"))
    try:
        shape = make_vault(base / "home", args.pages[0], days=args.days)
        import qasync
        from PySide6.QtWidgets import QApplication

        app = QApplication.instance() or QApplication([sys.argv[0]])
        loop = qasync.QEventLoop(app)
        asyncio.set_event_loop(loop)
        with loop:
            figures = loop.run_until_complete(_measure(base / "home", args.phases, args.gc))
        figures["vault"] = shape
        return figures
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _print_run(label: str, figures: dict, verbose: bool) -> None:
    print(f"  {label}: embedder threads {figures.get('threads')}, gc {figures['gc']}")
    for name, phase in figures["phases"].items():
        s = _summary(phase["lags"], phase["late"])
        detail = ", ".join(f"{k} {v}" for k, v in phase["detail"].items())
        print(
            f"    {name:<13} max {s['max']:6.1f} ms  p99 {s['p99']:5.1f} ms  >100 ms: {s['over_100']:2d} "
            f"({s['off_cpu']} off CPU)  >50 ms: {s['over_50']:3d}  ({s['ticks']} ticks; {detail})"
        )
        if phase["gui_scans"]:
            listed = "; ".join(f"{count} x {where}" for where, count in phase["gui_scans"])
            print(f"      folders listed on the GUI thread: {listed}")
        if phase["gui_imports"]:
            print(f"      imported on the GUI thread: {', '.join(phase['gui_imports'][:12])}")
        if verbose or s["max"] > TARGET_MS:
            print(f"      machine load average {phase['load'][0]:.1f} at the start, {phase['load'][1]:.1f} at the end")
            for lag, gui_cpu, process_cpu in phase["late"][:6]:
                print(f"      stall {lag:5.0f} ms: the GUI thread ran {gui_cpu:4.0f} ms of CPU, the process {process_cpu:4.0f} ms")
            gaps = phase["gil_gaps"]
            print(f"      GIL gaps > 30 ms: {gaps['over_30']}, longest {gaps['longest']} ms")
            for late, causes in phase["gap_causes"]:
                print(f"      gap {late:4d} ms overlapped: {', '.join(causes) or 'no timed call'}")
            for took, what in phase["slow"]:
                print(f"      slow callback {took:6.1f} ms  {what}")
            for where, count in phase["stacks"]:
                print(f"      {count:4d} x {where}")


def _table(results: dict[str, list[dict]]) -> list[dict]:
    """Per configuration and phase: max and p99 over all runs, and stall counts."""
    rows = []
    for config, runs in results.items():
        every: list[float] = []
        every_late: list = []
        for name in PHASES:
            phases = [run["phases"][name] for run in runs if name in run["phases"]]
            if not phases:
                continue
            lags = [lag for phase in phases for lag in phase["lags"]]
            late = [entry for phase in phases for entry in phase["late"]]
            every += lags
            every_late += late
            per_run = [round(max(phase["lags"], default=0.0), 1) for phase in phases]
            rows.append({"config": config, "phase": name, **_summary(lags, late), "max_per_run": per_run})
        per_run = [round(max((lag for p in run["phases"].values() for lag in p["lags"]), default=0.0), 1)
                   for run in runs]
        rows.append({"config": config, "phase": "all", **_summary(every, every_late), "max_per_run": per_run})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, nargs="+", default=[1000, 5000])
    parser.add_argument("--embedder", choices=("hashing", "bundled"), nargs="+", default=["hashing", "bundled"])
    parser.add_argument("--runs", type=int, default=3, help="fresh processes per embedder and vault size")
    parser.add_argument("--days", type=int, default=21, help="days of daily logs before today (the dream's batch)")
    parser.add_argument("--phases", nargs="+", choices=PHASES, default=list(PHASES), metavar="PHASE")
    parser.add_argument(
        "--gc", choices=("app", "default"), default="app",
        help="'app': the window's garbage-collection policy; 'default': CPython's, to measure the difference",
    )
    parser.add_argument("--verbose", action="store_true", help="causes for every phase, not only the slow ones")
    parser.add_argument("--json", type=Path, help="write every figure here")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)  # one run, figures to this file
    args = parser.parse_args(argv)

    if args.child is not None:
        args.child.write_text(json.dumps(_one_run(args)), encoding="utf-8")
        return 0
    results: dict[str, list[dict]] = {}
    for embedder in args.embedder:
        for pages in args.pages:
            config = f"{embedder}, {pages} pages"
            print(f"{config}: {args.runs} runs", flush=True)
            for run in range(args.runs):
                with tempfile.TemporaryDirectory() as tmp:
                    out = Path(tmp) / "figures.json"
                    command = [
                        sys.executable, str(Path(__file__).resolve()), "--child", str(out),
                        "--pages", str(pages), "--embedder", embedder, "--days", str(args.days),
                        "--gc", args.gc, "--phases", *args.phases,
                    ]
                    done = subprocess.run(command, capture_output=True, text=True)
                    if done.returncode != 0 or not out.exists():
                        print(f"  run {run + 1} failed:\n{done.stderr[-3000:]}")
                        continue
                    figures = json.loads(out.read_text(encoding="utf-8"))
                results.setdefault(config, []).append(figures)
                _print_run(f"run {run + 1}", figures, args.verbose)
    rows = _table(results)
    print("\nover all runs (max and p99 of the event-loop lag, ms; stalls counted over all runs):")
    print("  (off CPU: stalls over 100 ms while the whole process ran less than half the time)")
    print(f"  {'configuration':<22} {'phase':<13} {'max':>7} {'p99':>6} {'>100':>5} {'off CPU':>8} {'>50':>5}  max per run")
    for row in rows:
        print(
            f"  {row['config']:<22} {row['phase']:<13} {row['max']:7.1f} {row['p99']:6.1f} "
            f"{row['over_100']:5d} {row['off_cpu']:8d} {row['over_50']:5d}  {row['max_per_run']}"
        )
    keyed = [(config, run["phases"]["long page"]["detail"]) for config, runs in results.items() for run in runs
             if "long page" in run["phases"] and "live" in run["phases"]["long page"]["detail"]]
    if keyed:
        print(f"\nper keystroke on a {LONG_PAGE_LINES:,}-line page, key event to repaint (ms; target < {KEY_TARGET_MS:.0f}):")
        for config, detail in keyed:
            for view in ("live", "source"):
                k = detail[view]
                print(f"  {config:<22} {view:<7} p50 {k['p50']:6.2f}  p95 {k.get('p95', 0):6.2f}  "
                      f"p99 {k['p99']:6.2f}  max {k['max']:6.2f}  "
                      f"({k['keys']} keys, {detail['lines']} lines; far lines styled in {k.get('styled_s', 0)} s "
                      "before typing)")
    worst = max((row["max"] for row in rows if row["phase"] == "all"), default=0.0)
    print("target met" if worst <= TARGET_MS else f"TARGET MISSED: longest stall {worst:.0f} ms > {TARGET_MS:.0f} ms")
    if args.json:
        args.json.write_text(json.dumps({"table": rows, "runs": results}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
