"""Benchmark: does every memory lead back to the words it came from? And how fast is the card?

Two homes are measured, each through the same life:

* ``demo``: the demo home (``core/demo.py``: pages seeded for the first ten days, the rest pending);
* ``locomo:NN``: one LoCoMo development conversation (``$SUZENT_LOCOMO_DIR/NN.json``, default 42;
  replayed as ``bench/precision.py`` does; without the folder this part prints a skip line).

The life: capture (the first part of the conversation; the demo as written), **dream**, **rename**
the page holding most bullets (moved to ``2_Wiki/`` under a new name, links rewritten), **merge**
(a duplicate of a bullet with another date, folded by ``merge_bullets``), **forget and undo**
(one bullet), capture the rest, and a **second dream**. Then, for every page bullet (current and
History) and every MEMORY.md line, the provenance card is built and the line counts as
*reached* when one of its source turns holds its key words (at least half of its content
words, cut to five letters). Lines typed by hand (no log fact behind them, or only facts
without a turn) are left out of the share and counted. Target: at least 99 %.

Times: building the files' index for cards (what one card costs from nothing, as the window and
``why`` do) and one card from a built index, median and p95 over every line.

Review pane: a home with 1,000 review items (written directly: pages of dream-recorded bullets,
their logs and turns) is opened in the real pane on the qasync loop; a 10 ms timer measures
how late the GUI thread is while the pane loads and while N steps through 50 items (each
loading its card). Target: no stall over 100 ms.

Usage: ``python bench/provenance.py [--conversation 42] [--skip-ui]``. The conversation's text
never leaves the temporary home.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("SUZENT_EMBEDDING_MODEL", "hashing")
os.environ.setdefault("SUZENT_LOCAL_CONFIG", str(Path(tempfile.mkdtemp(prefix="suzent-bench-")) / "device.toml"))

TARGET = 0.99
STALL_MS = 100.0
TICK_MS = 10
REVIEW_ITEMS = 1000
FIRST_PART = 0.6
LOCOMO_ENV = "SUZENT_LOCOMO_DIR"
LOCOMO_DEFAULT = Path("/work/data/locomo")
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "a an the and or of to in on at for with by from is are was were be been it its that this as his her their "
    "he she they them i you we my your our has have had do does did not no so user user's now also".split())


def stems(text: str) -> set[str]:
    return {w[:5] for w in _WORD.findall(text.lower().replace("[[", "").replace("]]", "")) if w not in _STOP}


def holds(turn_text: str, line: str) -> bool:
    """Whether a turn holds the key words of a line (its words as a fact: no dates, marks or markup)."""
    from suzent_desktop.core.vault.facts.page_lines import line_texts

    pieces = line_texts(re.sub(r"\s*\(recalled \d+x\)\s*$", "", line))
    wanted = stems(pieces[0] if pieces else line)
    return bool(wanted) and len(wanted & stems(turn_text)) * 2 >= len(wanted)


# -- the life of a home ---------------------------------------------------------------------------
def _open(home: Path, today: dt.date):
    from suzent_desktop.core.files.clock import Clock
    from suzent_desktop.core.manager import MemoryManager

    os.environ["SUZENT_TODAY"] = today.isoformat()
    return MemoryManager.open(home, clock=Clock(fixed_today=today))


async def _dream(manager) -> None:  # noqa: ANN001

    await manager.dreaming.runner().run_cycle(force=True)


def _biggest_page(manager) -> Path:  # noqa: ANN001
    from suzent_desktop.core.vault.facts.fact_pages import PageDoc

    pages = [p for p in (manager.layout.notebook_dir / "3_Personal").glob("*.md") if p.stem != "About Me"]
    return max(pages, key=lambda p: len(PageDoc.parse(p.read_text(encoding="utf-8")).current_bullets()))


async def _edits(manager) -> dict[str, str]:  # noqa: ANN001
    """Rename, merge, forget and undo, as a person (and a sync tool) would."""
    from suzent_desktop.core import operations
    from suzent_desktop.core.engines.dream.guards import page_edits
    from suzent_desktop.core.engines.dream.tools import VaultTools
    from suzent_desktop.core.vault.facts.fact_pages import PageDoc

    root = manager.layout.notebook_dir
    page = _biggest_page(manager)
    (root / "2_Wiki").mkdir(exist_ok=True)
    new = root / "2_Wiki" / f"{page.stem} notes.md"
    operations.move(root, page, new, vault=manager.vault)
    manager.vault.apply([page, new])
    doc = PageDoc.parse(new.read_text(encoding="utf-8"))
    bullet = doc.current_bullets()[0]
    with new.open("a", encoding="utf-8") as handle:  # the same fact again, another day (a sync's duplicate)
        handle.write(f"- {bullet.text} (2000-01-01)\n")
    tools = VaultTools(root)
    page_edits.merge_bullets(tools, new.relative_to(root).as_posix(), bullet.text)
    victim = doc.current_bullets()[-1].text
    await manager.forgetting.forget(victim)
    await manager.forgetting.undo(victim)
    await manager.indexing.sync_paths([new])
    return {"renamed": f"{page.relative_to(root)} -> {new.relative_to(root)}", "merged": bullet.text[:60],
            "forgot and undid": victim[:60]}


def _lines(manager) -> list[tuple[str, str, int, str]]:  # noqa: ANN001
    """(kind, path, line, text) of every page bullet and MEMORY.md bullet line."""
    from suzent_desktop.core.engines.provenance import page_texts
    from suzent_desktop.core.vault.facts.fact_pages import parse_bullet

    found: list[tuple[str, str, int, str]] = []
    for rel, text in sorted(page_texts(manager.home).items()):
        if rel.lower().endswith(("index.md",)) or "/" not in rel:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            bullet = parse_bullet(line)
            if bullet is not None and not bullet.indent and not re.fullmatch(r"\s*\[\[[^\]]+\]\]\s*", bullet.text):
                found.append(("page", rel, number, line))
    memory = manager.layout.memory_md
    for number, line in enumerate(memory.read_text(encoding="utf-8").splitlines(), start=1):
        if line.startswith("- "):
            found.append(("memory", str(memory), number, line))
    return found


def measure(manager, label: str) -> dict:  # noqa: ANN001
    from suzent_desktop.core.engines.provenance import Provenance

    lines = _lines(manager)
    t0 = time.perf_counter()
    index = Provenance(manager.home)
    build = time.perf_counter() - t0
    reached = hand = 0
    missed: list[str] = []
    times: list[float] = []
    for kind, path, number, _line in lines:
        t0 = time.perf_counter()
        target = manager.layout.notebook_dir / path if kind == "page" else Path(path)
        card = index.card_at(target, number)
        times.append(time.perf_counter() - t0)
        turns = [s.turn for s in card.sources if s.turn is not None]
        if card.typed_by_hand == "editor" or (card.sources and not turns and all(s.typed_by_hand for s in card.sources)):
            hand += 1
            continue
        if any(holds(f"{t.user} {t.assistant}", card.text) for t in turns):
            reached += 1
        else:
            missed.append(f"{kind}:{path}:{number}")
    counted = len(lines) - hand
    share = reached / counted if counted else 1.0
    times.sort()
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))] if times else 0.0
    print(f"  {label}: {len(lines)} lines ({sum(1 for k, *_ in lines if k == 'memory')} MEMORY.md), "
          f"typed by hand {hand}, reached a turn holding their words {reached}/{counted} = {share:.1%} "
          f"(target {TARGET:.0%}) {'OK' if share >= TARGET else 'BELOW TARGET'}")
    print(f"  {label}: card index build {build * 1000:.0f} ms; one card from the index: median "
          f"{statistics.median(times) * 1000:.2f} ms, p95 {p95 * 1000:.2f} ms; one card from nothing "
          f"(index + card, as the window and `why` build it) ~{(build + statistics.median(times)) * 1000:.0f} ms")
    for item in missed[:10]:
        print(f"    not reached: {item}")
    return {"share": share, "hand": hand, "lines": len(lines), "build_ms": build * 1000}


async def demo_life(base: Path) -> dict:
    from suzent_desktop.core.demo import write_demo_home

    today = dt.date(2026, 12, 6)
    home = base / "demo"
    write_demo_home(home, today)
    manager = _open(home, today)
    await _dream(manager)
    done = await _edits(manager)
    later = today + dt.timedelta(days=2)
    manager = _open(home, later)
    for text, hour in (("I switched to a standing desk at the office.", 9), ("I now drink matcha in the morning.", 10)):
        await manager.process_conversation_turn_for_memories(text, "Noted.", "bench-2",
                                                             dt.datetime.combine(today + dt.timedelta(days=1),
                                                                                 dt.time(hour)))
    await _dream(manager)
    print(f"  demo: {'; '.join(f'{k} {v!r}' for k, v in done.items())}")
    return measure(manager, "demo")


async def locomo_life(base: Path, name: str) -> dict | None:
    folder = Path(os.environ.get(LOCOMO_ENV, LOCOMO_DEFAULT))
    path = folder / f"{name}.json"
    if not path.is_file():
        print(f"  locomo:{name}: skipped ({path} not found; set ${LOCOMO_ENV})")
        return None
    from precision import turns_of

    data = json.loads(path.read_text(encoding="utf-8"))
    turns = turns_of(data.get("conversation", data), name)
    days = sorted({t.when.date() for t in turns})
    cut = days[int(len(days) * FIRST_PART)]
    home = base / f"locomo{name}"
    manager = _open(home, cut)
    for turn in (t for t in turns if t.when.date() < cut):
        await manager.process_conversation_turn_for_memories(turn.user, turn.assistant, turn.session, turn.when)
    await _dream(manager)
    done = await _edits(manager)
    manager = _open(home, days[-1] + dt.timedelta(days=1))
    for turn in (t for t in turns if t.when.date() >= cut):
        await manager.process_conversation_turn_for_memories(turn.user, turn.assistant, turn.session, turn.when)
    await _dream(manager)
    print(f"  locomo:{name}: {len(turns)} turns; {'; '.join(f'{k} (a bullet)' for k in done)}")
    return measure(manager, f"locomo:{name}")


# -- the Review pane with 1,000 items ---------------------------------------------------------------
def write_review_home(home: Path, count: int) -> None:
    """Pages of dream-recorded bullets, their log facts and turns: ``count`` items to review."""
    from suzent_desktop.core.engines import provenance
    from suzent_desktop.core.files.paths.layout import Layout
    from suzent_desktop.core.files.records.log_grammar import (
        Fact,
        format_fact_line,
        format_log_header,
        format_turn_header,
    )
    from suzent_desktop.core.files.records.transcripts import turn_id
    from suzent_desktop.core.vault.facts.fact_pages import dup_norm
    from suzent_desktop.settings import Settings

    layout = Layout.from_settings(home, Settings())
    for folder in (layout.archive_dir, layout.transcripts_dir, layout.state_dir, layout.notebook_dir / "3_Personal"):
        folder.mkdir(parents=True, exist_ok=True)
    records: list[str] = []
    per_page, day = 50, dt.date(2026, 6, 1)
    for page in range(count // per_page):
        date = (day + dt.timedelta(days=page)).isoformat()
        bullets, log, turns = [f"# Topic {page}", ""], [format_log_header(date)], []
        for n in range(per_page):
            text = f"User keeps fact number {n} about topic {page} with detail {n * 7 + page}"
            user = f"By the way, I keep fact number {n} about topic {page} with detail {n * 7 + page}."
            ts = f"{date}T{9 + n // 10:02d}:{n % 60:02d}:00"
            tid = turn_id("bench", ts, user, "Noted.")
            turns.append(json.dumps({"id": tid, "ts": ts, "session": "bench", "user": user, "assistant": "Noted."}))
            log += ["", format_turn_header(ts[11:16], "bench"), "", format_fact_line(Fact(text, "general", (), None, tid))]
            bullets.append(f"- {text} ({date})")
            records.append(json.dumps({"ts": f"{date}T23:00:00", "key": dup_norm(text), "date": date, "text": text,
                                       "line": len(log), "turn": tid}))
        (layout.notebook_dir / "3_Personal" / f"Topic {page}.md").write_text("\n".join(bullets) + "\n")
        layout.daily_log(date).write_text("\n".join(log) + "\n")
        layout.transcript(date).write_text("\n".join(turns) + "\n")
    (layout.state_dir / f"{provenance.STREAM}.jsonl").write_text("\n".join(records) + "\n")


async def _review_stalls(home: Path) -> dict:
    from PySide6.QtCore import QTimer

    from suzent_desktop.ui.base.services import AppServices
    from suzent_desktop.ui.panes.review_pane import ReviewPane

    lags: list[float] = []
    late: list[tuple[float, float, float]] = []  # (lag, GUI-thread CPU, process CPU) in ms
    last = [time.perf_counter(), time.thread_time(), time.process_time()]

    def tick() -> None:
        now, gui, process = time.perf_counter(), time.thread_time(), time.process_time()
        lag = max(0.0, (now - last[0]) * 1000 - TICK_MS)
        lags.append(lag)
        if lag > STALL_MS:
            late.append((lag, (gui - last[1]) * 1000, (process - last[2]) * 1000))
        last[:] = [now, gui, process]

    timer = QTimer()
    timer.setInterval(TICK_MS)
    timer.timeout.connect(tick)
    services = AppServices.open(home)
    await asyncio.sleep(0.3)
    last[:] = [time.perf_counter(), time.thread_time(), time.process_time()]
    timer.start()
    t0 = time.perf_counter()
    pane = ReviewPane(services)
    pane.resize(900, 700)
    pane.show()
    while pane.refresh_count == 0:
        await asyncio.sleep(0.01)
    load_s = time.perf_counter() - t0
    load_lags = list(lags)
    lags.clear()
    items = len(pane.items)
    for _ in range(50):
        pane.next()
        await asyncio.sleep(0.05)
    timer.stop()
    step_lags = list(lags)
    await services.shutdown()
    pane.close()
    return {"items": items, "load_s": load_s, "load_max": max(load_lags, default=0.0),
            "step_max": max(step_lags, default=0.0),
            "over": sum(1 for v in load_lags + step_lags if v > STALL_MS),
            "off_cpu": sum(1 for lag, _gui, process in late if process < 0.5 * lag), "late": late}


def review_pane(base: Path) -> dict:
    import qasync
    from PySide6.QtWidgets import QApplication

    home = base / "review"
    home.parent.mkdir(parents=True, exist_ok=True)
    write_review_home(home, REVIEW_ITEMS)
    os.environ["SUZENT_TODAY"] = "2026-12-06"
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    app = QApplication.instance() or QApplication([sys.argv[0]])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        figures = loop.run_until_complete(_review_stalls(home))
    ok = figures["over"] == 0
    print(f"  review pane: {figures['items']} items loaded in {figures['load_s'] * 1000:.0f} ms; GUI thread late at "
          f"most {figures['load_max']:.0f} ms while loading, {figures['step_max']:.0f} ms while stepping through 50 "
          f"cards; stalls over {STALL_MS:.0f} ms: {figures['over']} ({figures['off_cpu']} off CPU: the process "
          f"waited for a core) {'OK' if ok else 'ABOVE TARGET'}")
    for lag, gui, process in figures["late"]:
        print(f"    stall {lag:.0f} ms: GUI thread ran {gui:.0f} ms, the process {process:.0f} ms")
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--conversation", default="42", help="LoCoMo development conversation (42, 43, 44 or 47)")
    parser.add_argument("--skip-ui", action="store_true", help="leave out the Review pane stall measurement")
    parser.add_argument("--runs", type=int, default=3, help="Review pane runs (each on a fresh home)")
    args = parser.parse_args(argv)
    base = Path(tempfile.mkdtemp(prefix="suzent-provenance-"))
    try:
        print("provenance: share of page bullets and MEMORY.md lines whose chain reaches a turn holding their words")
        asyncio.run(demo_life(base))
        asyncio.run(locomo_life(base, args.conversation))
        for run in range(0 if args.skip_ui else args.runs):
            review_pane(base / f"run{run}")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
