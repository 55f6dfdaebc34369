"""Time from launch to a usable window on a generated vault (default 5,000 pages).

"Usable" means: the window is shown, the vault tree holds every page, a page is open in
the editor and a typed character has landed in it. Each launch runs in a fresh Python
process (imports included), first on a vault without an index (the first launch: the
index is built in the background afterwards), then again with the index in place.

    python bench/ui_launch.py [--pages 5000] [--embedder hashing|bundled] [--keep DIR]

Prints one line per phase and a summary; ``--json`` prints the figures as JSON too.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))  # run from a checkout without installing

ZONE_WEIGHTS = (
    ("0_Inbox", 3),
    ("1_Projects", 10),
    ("2_Wiki/Concepts", 30),
    ("2_Wiki/Literature", 10),
    ("2_Wiki/Syntheses", 7),
    ("2_Wiki/Entities", 20),
    ("3_Personal", 10),
    ("5_Archives", 10),
)
WORDS = (
    "memory index vector search garden river kayak coffee dashboard tea cloud project design "
    "budget travel family sister brother friend morning running piano recipe bread sourdough "
    "mountain trail cascade weather map notebook archive summary review plan decision meeting "
    "python rust database schema release bug feature customer report quarter roadmap team "
    "library book chapter author idea question answer habit sleep health doctor walk city "
    "apartment lease move bicycle train ferry island lake forest camera photo album music"
).split()
CATEGORIES = ("preference", "work", "people", "place", "project", "health", "general")


def _sentence(rng: random.Random, low: int = 8, high: int = 18) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(low, high))]
    return words[0].capitalize() + " " + " ".join(words[1:]) + "."


def make_vault(
    home: Path, pages: int, *, days: int = 21, seed: int = 7, today: dt.date | None = None
) -> dict:
    """Write a home with ``pages`` linked notebook pages and ``days`` of daily logs before today."""
    rng = random.Random(seed)
    today = today or dt.date.today()
    notebook = home / "notebook"
    total_weight = sum(w for _, w in ZONE_WEIGHTS)
    titles: list[tuple[str, str]] = []
    for zone, weight in ZONE_WEIGHTS:
        count = max(1, round(pages * weight / total_weight))
        for _ in range(count):
            titles.append((zone, f"{rng.choice(WORDS).capitalize()} {rng.choice(WORDS)} {len(titles):05d}"))
    titles = titles[:pages]
    while len(titles) < pages:
        titles.append(("0_Inbox", f"Note {len(titles):05d}"))
    for zone, title in titles:
        folder = notebook / zone
        # spread big zones over sub-folders, as real vaults have them
        if zone.startswith("2_Wiki") and len(titles) > 500:
            folder = folder / f"{title[0]}"
        folder.mkdir(parents=True, exist_ok=True)
        links = " ".join(f"[[{rng.choice(titles)[1]}]]" for _ in range(rng.randint(1, 4)))
        body = [f"# {title}", ""]
        for _ in range(rng.randint(2, 5)):
            body += [" ".join(_sentence(rng) for _ in range(rng.randint(1, 3))), ""]
        body += [f"Related: {links}", ""]
        (folder / f"{title}.md").write_text("\n".join(body), encoding="utf-8")
    archive = home / "memory" / "archive"
    archive.mkdir(parents=True, exist_ok=True)
    facts = 0
    for back in range(days, -1, -1):
        day = today - dt.timedelta(days=back)
        lines = [f"# Daily Log - {day.isoformat()}"]
        for hour in (9, 13, 18):
            lines += ["", f"## {hour:02d}:{rng.randint(0, 59):02d} — s{day.day:02d}{hour:02d}abcd", ""]
            for _ in range(rng.randint(2, 5)):
                tags = " ".join(rng.sample(WORDS, 2))
                lines.append(f"- [{rng.choice(CATEGORIES)}] User {_sentence(rng, 5, 10).lower()} `{tags}`")
                facts += 1
        (archive / f"{day.isoformat()}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {"pages": len(titles), "log_days": days + 1, "facts": facts}


# -- the measured child process -------------------------------------------------------------
def _child(home: Path, started: float, type_text: str, index_wait: float) -> None:
    """One launch: everything the app does at start, then type into a page. Prints JSON."""
    marks: dict[str, float] = {}

    def mark(name: str) -> None:
        marks[name] = round(time.time() - started, 3)

    mark("interpreter")
    import asyncio
    import faulthandler

    faulthandler.dump_traceback_later(index_wait + 180, exit=True)  # never hang a benchmark run

    import qasync
    from PySide6.QtCore import QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from suzent_desktop.ui.base.services import AppServices
    from suzent_desktop.ui.window.main_window import MainWindow

    mark("imports")
    app = QApplication.instance() or QApplication([sys.argv[0]])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    result: dict = {"marks": marks}

    async def launch() -> None:
        services = AppServices.open(home)
        mark("engine_open")
        window = MainWindow(services)
        mark("window_built")
        window.show()
        window.start_background(watch=True, serve=False, index=True)
        await asyncio.sleep(0)
        mark("window_shown")
        pages = sum(1 for p in window.tree.paths() if p.suffix == ".md")
        result["tree_pages"] = pages
        target = next(p for p in window.tree.paths() if p.suffix == ".md" and "3_Personal" in p.as_posix())
        window.open_path(target)
        editor = window.editors.current_editor()
        editor.source.setFocus()
        QTest.keyClicks(editor.source, type_text)
        while type_text not in editor.text():
            await asyncio.sleep(0.001)
        await asyncio.sleep(0)  # let the loop run once more: the window has painted the edit
        mark("usable")
        # How the app behaves while the first index catches up in the background.
        lags: list[float] = []
        last = [time.perf_counter()]
        timer = QTimer()
        timer.setInterval(10)

        def tick() -> None:
            now = time.perf_counter()
            lags.append((now - last[0]) * 1000 - 10)
            last[0] = now

        timer.timeout.connect(tick)
        timer.start()
        begin = time.time()
        while services.busy and time.time() - begin < index_wait:
            await asyncio.sleep(0.05)
        timer.stop()
        result["index_busy_after_s"] = round(time.time() - begin, 2) if not services.busy else None
        result["index_still_running"] = services.busy
        result["max_lag_ms_while_indexing"] = round(max(lags), 1) if lags else 0.0
        stats = await services.manager.indexer.stats()
        result["index_rows"] = stats.rows
        editor.set_text(editor.text().replace(type_text, "", 1))
        editor.save()
        await window.shutdown()
        window.close()

    with loop:
        loop.run_until_complete(launch())
    result["embedder"] = os.environ.get("SUZENT_EMBEDDING_MODEL") or "bundled MiniLM (ONNX int8)"
    print("RESULT " + json.dumps(result), flush=True)


def _launch(home: Path, env: dict[str, str], index_wait: float) -> dict:
    started = time.time()
    proc = subprocess.run(
        [
            sys.executable,
            __file__,
            "--child",
            str(home),
            "--started",
            repr(started),
            "--index-wait",
            str(index_wait),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT ") :])
    raise SystemExit(f"launch failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")


def _report(name: str, figures: dict) -> None:
    m = figures["marks"]
    print(
        f"{name}: usable after {m['usable']:.2f} s "
        f"(interpreter {m['interpreter']:.2f}, imports {m['imports']:.2f}, engine open {m['engine_open']:.2f}, "
        f"window built {m['window_built']:.2f}, shown {m['window_shown']:.2f}); "
        f"tree pages {figures['tree_pages']}; "
        f"background index: {'still running' if figures['index_still_running'] else 'done'} "
        f"after {figures['index_busy_after_s']} s, {figures['index_rows']} rows, "
        f"longest GUI stall meanwhile {figures['max_lag_ms_while_indexing']} ms"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=5000)
    parser.add_argument("--embedder", choices=("hashing", "bundled"), default="hashing")
    parser.add_argument("--keep", type=Path, help="write the vault here and keep it")
    parser.add_argument("--index-wait", type=float, default=600.0, help="seconds to wait for the first index")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--started", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(args.child, args.started, "x", args.index_wait)
        return 0

    base = args.keep or Path(tempfile.mkdtemp(prefix="suzent-bench-"))
    home = base / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUZENT_")}
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH", "")]))
    if args.embedder == "hashing":
        env["SUZENT_EMBEDDING_MODEL"] = "hashing"
    try:
        t0 = time.time()
        shape = make_vault(home, args.pages)
        print(
            f"vault: {shape['pages']} pages, {shape['log_days']} daily logs, {shape['facts']} facts "
            f"(written in {time.time() - t0:.1f} s); embedder: {args.embedder}"
        )
        cold = _launch(home, env, args.index_wait)
        _report("first launch (no index yet)", cold)
        warm = _launch(home, env, args.index_wait)
        _report("second launch (index in place)", warm)
        if args.json:
            print(json.dumps({"vault": shape, "cold": cold, "warm": warm}, indent=2))
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
