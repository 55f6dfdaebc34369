"""The longest GUI-thread stall while a full reindex and an offline dream run in the background.

A 10 ms QTimer records how late each tick fires (event-loop lag) while, on the same qasync
loop as the real main window, a full reindex and a forced offline dream run (started from
the dream panel, as a user would) run together and a keystroke lands in the open editor
every 50 ms. Target: no stall above 100 ms. The slowest loop callbacks are listed so a
regression names its culprit.

    python bench/ui_stall.py [--pages 5000] [--embedder hashing|bundled]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import inspect
import os
import shutil
import statistics
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

TICK_MS = 10
TARGET_MS = 100.0


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
        ("suzent_desktop.core.index_store", "IndexStore"),
        ("suzent_desktop.core.embedding", "HashingEmbedder"),
        ("suzent_desktop.core.embedding", "OnnxMiniLMEmbedder"),
        # GUI-thread code reached from Qt signals and timers (not from asyncio callbacks)
        ("suzent_desktop.ui.main_window", "MainWindow"),
        ("suzent_desktop.ui.vault_tree", "VaultTree"),
        ("suzent_desktop.ui.editor", "PageEditor"),
        ("suzent_desktop.ui.editor", "EditorArea"),
        ("suzent_desktop.ui.watcher", "VaultWatcher"),
        ("suzent_desktop.ui.panes.search_pane", "SearchPane"),
        ("suzent_desktop.ui.panes.daily_logs", "DailyLogsPane"),
        ("suzent_desktop.ui.panes.dream_panel", "DreamPanel"),
        ("suzent_desktop.ui.panes.backlinks", "BacklinksPane"),
        ("suzent_desktop.ui.panes.memory_view", "MemoryView"),
        ("suzent_desktop.ui.panes.tombstones_pane", "TombstonesPane"),
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
    """A 10 ms timer; lag is how much later than due each tick fired."""

    def __init__(self) -> None:
        from PySide6.QtCore import QTimer

        self.lags: list[float] = []
        self.timer = QTimer()
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)
        self._last = 0.0

    @property
    def last(self) -> float:
        return self._last

    def start(self) -> None:
        self._last = time.perf_counter()
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.lags.append(max(0.0, (now - self._last) * 1000 - TICK_MS))
        self._last = now


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _measure(home: Path, figures: dict, gc_freeze: str) -> None:
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtTest import QTest

    from suzent_desktop.ui import services as services_module
    from suzent_desktop.ui.main_window import MainWindow
    from suzent_desktop.ui.services import AppServices

    if gc_freeze == "off":  # measure what the app's freezing saves
        services_module.freeze_survivors = lambda: None
    clock = CallClock()
    clock.install()  # before the window connects its slots, so they are the timed ones
    services = AppServices.open(home)
    window = MainWindow(services)
    window.show()
    window.start_background(watch=True, serve=False, index=False)
    if gc_freeze == "app":
        services_module.freeze_survivors()  # as the app does once its window is up
    t0 = time.perf_counter()
    first = await services.reindex()  # the app's own first sync; it freezes the survivors after
    figures["first_index_s"] = round(time.perf_counter() - t0, 2)
    figures["rows"] = first.rows_added
    page = next(p for p in window.tree.paths() if p.suffix == ".md" and "3_Personal" in p.as_posix())
    window.open_path(page)
    editor = window.editors.current_editor()
    editor.source.setFocus()
    window.show_dock("dream")
    await asyncio.sleep(0.5)  # let the window settle (first paint, pane refreshes)
    figures["gc_frozen"] = gc.get_freeze_count()

    meter = LagMeter()
    typist = QTimer()
    typist.setInterval(50)
    typed = [0]

    def type_one() -> None:
        QTest.keyClick(editor.source, Qt.Key.Key_A)
        typed[0] += 1

    typist.timeout.connect(type_one)
    slow = SlowCallbacks()
    slow.install()
    clock.calls.clear()
    meter.start()
    sampler = StallSampler(meter)
    sampler.start()
    typist.start()
    t0 = time.perf_counter()
    reindex = services.reindex(full=True)
    dream = window.dream_panel.dream_now()
    results = await asyncio.gather(reindex, dream, return_exceptions=True)
    # wait for the change-sets the two operations broadcast to be redrawn by every pane
    await asyncio.sleep(1.0)
    typist.stop()
    meter.stop()
    sampler.stop()
    slow.remove()
    clock.remove()
    figures["gil_gaps"] = sampler.gil_gaps
    figures["gap_causes"] = [
        (late, clock.during(end, late)) for end, late in sorted(sampler.gap_times, key=lambda g: -g[1])[:6]
    ]
    figures["stall_stacks"] = sampler.samples.most_common(6) + sampler.workers.most_common(8)
    figures["busy_s"] = round(time.perf_counter() - t0, 2)
    figures["errors"] = [repr(r) for r in results if isinstance(r, BaseException)]
    figures["dream"] = (
        window.dream_panel.history_rows[0]["outcome"] if window.dream_panel.history_rows else None
    )
    figures["typed"] = typed[0]
    figures["typed_landed"] = editor.text().count("a" * min(typed[0], 5)) > 0
    figures["lags"] = meter.lags
    figures["slow"] = sorted(slow.slow, reverse=True)[:8]
    editor.load()  # drop the typing, never save it
    await window.shutdown()
    window.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=5000)
    parser.add_argument(
        "--days", type=int, default=21, help="days of daily logs before today (the dream's batch)"
    )
    parser.add_argument("--embedder", choices=("hashing", "bundled"), default="hashing")
    parser.add_argument("--keep", type=Path, help="write the vault here and keep it")
    parser.add_argument(
        "--gc-freeze",
        choices=("app", "off"),
        default="app",
        help="'app': freeze long-lived objects out of gc scans as the app does; 'off': never",
    )
    parser.add_argument("--switch-interval", type=float, help="sys.setswitchinterval() in ms (GIL hand-over)")
    args = parser.parse_args(argv)
    if args.switch_interval:
        sys.setswitchinterval(args.switch_interval / 1000)

    for key in [k for k in os.environ if k.startswith("SUZENT_")]:
        del os.environ[key]
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    if args.embedder == "hashing":
        os.environ["SUZENT_EMBEDDING_MODEL"] = "hashing"
    from ui_launch import make_vault

    base = args.keep or Path(tempfile.mkdtemp(prefix="suzent-stall-"))
    home = base / "home"
    try:
        shape = make_vault(home, args.pages, days=args.days)
        print(
            f"vault: {shape['pages']} pages, {shape['log_days']} daily logs, {shape['facts']} facts; "
            f"embedder: {args.embedder}"
        )
        import qasync
        from PySide6.QtWidgets import QApplication

        app = QApplication.instance() or QApplication([sys.argv[0]])
        loop = qasync.QEventLoop(app)
        asyncio.set_event_loop(loop)
        figures: dict = {}
        with loop:
            loop.run_until_complete(_measure(home, figures, args.gc_freeze))
        lags = figures["lags"]
        worst = max(lags) if lags else 0.0
        over = sum(1 for v in lags if v > TARGET_MS)
        print(
            f"first incremental index: {figures['first_index_s']} s ({figures['rows']} rows); "
            f"objects frozen out of gc scans: {figures['gc_frozen']}"
        )
        print(
            f"full reindex + offline dream ({figures['dream']}) + typing: {figures['busy_s']} s, "
            f"{len(lags)} ticks, {figures['typed']} keystrokes (landed: {figures['typed_landed']})"
        )
        print(
            f"event-loop lag: max {worst:.1f} ms, p99 {_percentile(lags, 0.99):.1f} ms, "
            f"p95 {_percentile(lags, 0.95):.1f} ms, median {statistics.median(lags) if lags else 0:.1f} ms; "
            f"stalls > {TARGET_MS:.0f} ms: {over}; > 50 ms: {sum(1 for v in lags if v > 50)}"
        )
        gaps = figures["gil_gaps"]
        print(
            f"GIL held by other threads (a Python watchdog thread could not run): {len(gaps)} gaps > 30 ms, "
            f"longest {max(gaps, default=0):.0f} ms, {sum(1 for g in gaps if g > TARGET_MS)} > {TARGET_MS:.0f} ms"
        )
        for late, causes in figures["gap_causes"]:
            print(
                f"  GIL gap {late:5.0f} ms overlapped: {', '.join(causes) or 'no timed call (engine store, embedder, GUI classes, gc)'}"
            )
        if figures["errors"]:
            print("errors:", *figures["errors"], sep="\n  ")
        if figures["slow"]:
            print("slowest loop callbacks:")
            for took, what in figures["slow"]:
                print(f"  {took * 1000:7.1f} ms  {what}")
        if figures["stall_stacks"]:
            print("where the threads were during stalls (5 ms samples):")
            for where, count in figures["stall_stacks"]:
                print(f"  {count:4d} x {where}")
        print(
            "target met"
            if worst <= TARGET_MS
            else f"TARGET MISSED: longest stall {worst:.0f} ms > {TARGET_MS:.0f} ms"
        )
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
