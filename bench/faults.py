"""Random crash trials: ``kill -9`` at random moments, a hostile model on loopback, invariants checked.

    python bench/faults.py [--trials 30] [--seed 1] [--days 12] [--keep]
    python bench/faults.py --crash-points     # a kill at every named crash point instead

One home is shared by all trials. Each trial runs one command of the real command line in its
own process (``dream --force`` against a hostile OpenAI-compatible model served on 127.0.0.1
or with the offline engine, ``reindex --full``, ``reindex``, ``remember``) and, most of the
time, kills it with SIGKILL after a random delay. Then the home is opened again, as the next
start would, and these invariants are checked; the script prints the violations per invariant:

* ``no_fact_lost``: every fact line of every daily log stands on a page or is found by search;
* ``coverage``: every fact of a consolidated day stands on a page or is in the not-consolidated
  record (``.state/uncovered.json``), which keeps it searchable;
* ``watermark``: it never moves backwards and never reaches today;
* ``temp_residue``: no atomic-write temp file outlives the next open (leftovers are aged first,
  as if the next start came minutes later);
* ``index_derivable``: after the next open and a sync, ``doctor`` names no index row that the
  files do not give and no stale file;
* ``run_time``: a dream that was not killed ends within its runs' time limits plus slack.

The hostile model answers each request with one behaviour drawn at random: a junk page, a
page too large for a tool call, half of the batch's facts, a stall past the time limit, an
HTTP 500, a plain-text answer, or all the facts (so some runs succeed). Figures depend on the
machine's load; on a shared 2-core machine a trial takes a few seconds.

``--crash-points`` kills ``dream --force`` (offline engine) at every named crash point in turn,
each on a fresh home; the next start's dream runs with a model that writes nothing, then the
offline engine finishes the backlog. It prints, per point, whether pages held the killed batch's
facts and the next run's outcome: a batch whose facts stand on pages must be completed, never a
failed attempt or ``skipped``; then the invariants above are checked.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from suzent_desktop.core.doctor import run_doctor  # noqa: E402
from suzent_desktop.core.engines.ledger import uncovered  # noqa: E402
from suzent_desktop.core.files.clock import Clock  # noqa: E402
from suzent_desktop.core.files.disk.atomic import is_temp_name  # noqa: E402
from suzent_desktop.core.files.disk.faults import ENV_VAR, EXIT_CODE  # noqa: E402
from suzent_desktop.core.files.records.tombstones import normalize  # noqa: E402
from suzent_desktop.core.manager import MemoryManager  # noqa: E402
from suzent_desktop.core.vault.facts.fact_pages import dup_norm, parse_bullet  # noqa: E402

INVARIANTS = ("no_fact_lost", "coverage", "watermark", "temp_residue", "index_derivable", "run_time")
WORDS = ("jasper indigo xenon nimbus falcon quartz amber cobalt willow ember harbor juniper granite "
         "saffron tundra velvet orchid lantern meadow comet glacier pepper maple otter raven").split()
TIMEOUT = 30.0  # memory_consolidation_timeout_seconds for the trials (importing litellm alone can take 15 s)
LLM_TIMEOUT = 8.0
SLACK = 12.0  # process start-up and finishing (reindex, promotion) on a loaded machine
BEHAVIOURS = ("junk", "too_large", "partial", "stall", "error500", "text", "faithful", "faithful")
_FACT_LINE = re.compile(r"^\d{4}-\d{2}-\d{2} - \[[^\]]*\] (?P<text>.+?)(?: `[^`]*`)?$")


# -- the hostile model ------------------------------------------------------------------------
class HostileModel:
    """An OpenAI-compatible chat endpoint on 127.0.0.1 that misbehaves at random."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)
        self.seen: Counter[str] = Counter()
        self.forced: str | None = None  # one behaviour for every request (the crash-point runs)
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server naming
                request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
                status, body = outer.answer(request)
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass  # the client was killed mid-answer

            def log_message(self, *args):
                pass

        ThreadingHTTPServer.daemon_threads = True
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.block_on_close = False
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def answer(self, request: dict) -> tuple[int, bytes]:
        messages = request.get("messages") or []
        if any(m.get("role") == "tool" for m in messages):
            return 200, _reply(content="Consolidated the batch.")
        behaviour = self.forced or self.random.choice(BEHAVIOURS)
        self.seen[behaviour] += 1
        facts = [m.group("text") for msg in messages if msg.get("role") == "user"
                 for line in str(msg.get("content") or "").splitlines() if (m := _FACT_LINE.match(line.strip()))]
        if behaviour == "stall":
            time.sleep(LLM_TIMEOUT + 5)
            return 200, _reply(content="late")
        if behaviour == "error500":
            return 500, json.dumps({"error": {"message": "internal error", "type": "server_error"}}).encode()
        if behaviour == "text":
            return 200, _reply(content="I have reviewed the facts; nothing needs to change.")
        if behaviour == "junk":
            page = "# Notes\n\n" + "lorem ipsum dolor sit amet\n" * 3000
            return 200, _reply(call=("write", {"path": "2_Wiki/Notes.md", "content": page}))
        if behaviour == "too_large":
            return 200, _reply(call=("write", {"path": "2_Wiki/Huge.md", "content": "x" * 2_000_000}))
        kept = facts if behaviour == "faithful" else facts[::2]
        page = "# Facts\n\n" + "".join(f"- {text}\n" for text in kept)
        name = f"3_Personal/Facts {self.random.randrange(1000)}.md"
        return 200, _reply(call=("write", {"path": name, "content": page}))


def _reply(*, content: str | None = None, call: tuple[str, dict] | None = None) -> bytes:
    message: dict = {"role": "assistant", "content": content}
    if call is not None:
        message["tool_calls"] = [{"id": "call_1", "type": "function",
                                  "function": {"name": call[0], "arguments": json.dumps(call[1])}}]
    choice = {"index": 0, "finish_reason": "tool_calls" if call else "stop", "message": message}
    return json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "fake",
                       "choices": [choice], "usage": {"prompt_tokens": 1, "completion_tokens": 1,
                                                      "total_tokens": 2}}).encode()


# -- the home -----------------------------------------------------------------------------------
SYLLABLES = "ka lo mi ru se ta vo ne pi da go fe zu ba ri mo lu xe qua tor".split()


def fact_text(rng: random.Random) -> str:
    """A fact no other fact of the run repeats: one made-up word makes it unique (so search
    folding near-identical facts into one hit never hides it)."""
    a, b, c = rng.sample(WORDS, 3)
    d = "".join(rng.choice(SYLLABLES) for _ in range(3))
    return rng.choice([
        f"User collects {a} {b} near the {c} {d}",
        f"User keeps a {a} {b} notebook for {c} {d}",
        f"User's friend owns a {a} {b} called {c}",
        f"User plans a trip to see the {a} {b} {c}",
    ])


def seed_home(home: Path, today: dt.date, days: int, rng: random.Random) -> None:
    for offset in range(days, 0, -1):
        date = (today - dt.timedelta(days=offset)).isoformat()
        lines = "".join(f"- [general] {fact_text(rng)}\n" for _ in range(rng.randint(2, 5)))
        path = home / "memory" / "archive" / f"{date}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Daily Log - {date}\n\n## 10:00 — abc12345\n\n{lines}", encoding="utf-8")
    (home / "config.toml").write_text(
        'embedding_model = "hashing"\nmemory_consolidation_min_facts = 1\nmemory_consolidation_min_hours = 0.0\n'
        f"memory_consolidation_max_days = 3\nmemory_consolidation_max_retries = 2\n"
        f"memory_consolidation_timeout_seconds = {TIMEOUT}\nllm_timeout_seconds = {LLM_TIMEOUT}\n"
        "memory_lint_enabled = false\n", encoding="utf-8")


def cli(home: Path, today: dt.date, args: list[str], env_extra: dict[str, str]) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUZENT_")}
    env.update(PYTHONPATH=str(REPO), SUZENT_TODAY=today.isoformat(), LITELLM_LOCAL_MODEL_COST_MAP="True",
               **env_extra)
    return subprocess.Popen([sys.executable, "-m", "suzent_desktop", "--home", str(home), "--json", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)


# -- the invariants -------------------------------------------------------------------------------
def check(home: Path, today: dt.date, previous_watermark: str | None) -> tuple[dict[str, list[str]], str | None]:
    found: dict[str, list[str]] = {name: [] for name in INVARIANTS}
    for path in home.rglob("*"):
        if is_temp_name(path.name):
            then = time.time() - 3600  # the next start, minutes later
            os.utime(path, (then, then))
    clock = Clock(fixed_today=today)
    manager = MemoryManager.open(home, clock=clock)
    found["temp_residue"] += [str(p) for p in home.rglob("*") if is_temp_name(p.name)]
    asyncio.run(manager.indexing.reindex())
    watermark = manager.dreaming.watermark()
    raw = manager.notebook.raw_watermark()
    if previous_watermark and (watermark or "") < previous_watermark:
        found["watermark"].append(f"moved back from {previous_watermark} to {watermark}")
    if raw is not None and raw >= today.isoformat():
        found["watermark"].append(f"watermark={raw} is not before today {today}")
    pages = [p.read_text(encoding="utf-8", errors="replace") for p in manager.notebook.content_pages()]
    on_pages = {dup_norm(parse_bullet(line).text if parse_bullet(line) else line)
                for text in pages for line in text.splitlines() if line.strip()}
    record = {(f.date, normalize(f.text)) for f in uncovered.consolidated(manager.layout, manager.dreaming.days())}
    skipped = set(manager.notebook.skipped_dates())
    for date in manager.archive.dates():
        for line in manager.archive.read(date).facts:
            text = line.fact.content
            on_page = dup_norm(text) in on_pages
            consolidated = watermark is not None and date <= watermark and date not in skipped
            if consolidated and not on_page and (date, normalize(text)) not in record:
                found["coverage"].append(f"{date}: {text}")
            if on_page:
                continue
            hits = asyncio.run(manager.searching.search(text, limit=10, record_recall=False)).hits
            if not any(normalize(text) in normalize(h.text) for h in hits):
                found["no_fact_lost"].append(f"{date}: {text}")
    for problem in run_doctor(home, clock=clock):
        if "index row" in problem.message or "stale" in problem.message:
            found["index_derivable"].append(problem.format())
    return found, watermark


# -- kills at every named crash point ------------------------------------------------------------
# Every crash_point() a dream passes through (name:N is its N-th passage): page writes, the atomic
# rename, the coverage record, before and after the ingest entry, and the index pass's steps.
CRASH_POINTS = ("dream.after_page_write", "dream.after_page_write:2", "atomic.before_rename",
                "atomic.before_rename:3", "dream.after_coverage", "dream.before_ingest", "dream.after_ingest",
                "index.after_delete", "index.after_add", "index.after_remove", "index.after_reconcile")


def _dream(home: Path, today: dt.date, env: dict[str, str]) -> tuple[int, list[dict]]:
    proc = cli(home, today, ["dream", "--force"], env)
    out, _err = proc.communicate(timeout=600)
    try:
        return proc.returncode, json.loads(out).get("runs") or []
    except ValueError:
        return proc.returncode, []


def _on_pages(home: Path, dates: list[str]) -> bool:
    """Whether pages hold every fact of these days (the coverage check's exact rule)."""
    manager = MemoryManager.open(home)
    pages = [p.read_text(encoding="utf-8", errors="replace") for p in manager.notebook.content_pages()]
    on_pages = {dup_norm(parse_bullet(line).text if parse_bullet(line) else line)
                for text in pages for line in text.splitlines() if line.strip()}
    return all(dup_norm(line.fact.content) in on_pages for date in dates for line in manager.archive.read(date).facts)


def crash_points(seed: int, model: HostileModel) -> int:
    """Kill ``dream --force`` at each named point; then a model that writes nothing runs the next
    start's dream, and the offline engine finishes the backlog. A batch whose facts stand on pages
    must never count a failed attempt or be skipped; every invariant must hold afterwards."""
    start = dt.date(2026, 7, 20)
    idle = {"SUZENT_MEMORY_CONSOLIDATION_MODEL": "openai/fake", "OPENAI_API_BASE": model.base,
            "OPENAI_BASE_URL": model.base, "OPENAI_API_KEY": "not-a-key"}
    bad_outcomes = violations = 0
    for point in CRASH_POINTS:
        workdir = Path(tempfile.mkdtemp(prefix="suzent-crash-"))
        home = workdir / "home"
        seed_home(home, start, 4, random.Random(seed))
        code, _ = _dream(home, start, {ENV_VAR: point})
        reached = code == EXIT_CODE
        pending = sorted(d for d in MemoryManager.open(home).dreaming.pending_dates())
        batch = pending[:3]
        held = bool(batch) and _on_pages(home, batch)
        model.forced = "text"  # the next start: a model that finds nothing to add
        _code, runs = _dream(home, start, idle)
        model.forced = None
        first = runs[0] if runs else {}
        wrong = held and (first.get("failed_attempt") or first.get("outcome") == "skipped")
        _code, more = _dream(home, start, {})
        skipped = [r for r in [*runs, *more] if r.get("outcome") == "skipped"]
        found, watermark = check(home, start, None)
        count = sum(len(v) for v in found.values())
        bad_outcomes += bool(wrong) + len(skipped)
        violations += count
        outcome = first.get("outcome", "none") + (" (failed attempt)" if first.get("failed_attempt") else "")
        print(f"{point:26} {'killed' if reached else 'not reached':11} batch {batch[0] if batch else '-'}.."
              f"{batch[-1] if batch else '-'} facts on pages: {'yes' if held else 'no ':3}  next run: {outcome:28} "
              f"skipped: {len(skipped)}  watermark={watermark}  violations={count}", flush=True)
        for name, items in found.items():
            for item in items[:3]:
                print(f"      {name}: {item[:160]}")
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"\n{len(CRASH_POINTS)} crash points: {bad_outcomes} batch outcome(s) wrong (a failed attempt or a skip "
          f"while its facts stood on pages), {violations} invariant violation(s)")
    return 1 if bad_outcomes or violations else 0


# -- the trials -------------------------------------------------------------------------------------
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--days", type=int, default=12, help="days of daily logs to start with")
    parser.add_argument("--keep", action="store_true", help="keep the home folder and print its path")
    parser.add_argument("--crash-points", action="store_true",
                        help="instead of random kills: kill a dream at every named crash point and check its batch")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    model = HostileModel(args.seed)
    if args.crash_points:
        try:
            return crash_points(args.seed, model)
        finally:
            model.close()
    workdir = Path(tempfile.mkdtemp(prefix="suzent-faults-"))
    home = workdir / "home"
    start = dt.date(2026, 7, 20)
    seed_home(home, start, args.days, rng)
    violations: dict[str, list[str]] = {name: [] for name in INVARIANTS}
    operations: Counter[str] = Counter()
    kills = 0
    watermark: str | None = None
    started = time.monotonic()
    try:
        for trial in range(args.trials):
            today = start + dt.timedelta(days=trial // 4)  # the days go by, so dreams keep finding work
            hostile = rng.random() < 0.6
            operation = rng.choice(["dream", "dream", "dream", "reindex_full", "reindex", "remember"])
            env: dict[str, str] = {}
            argv = {"dream": ["dream", "--force"], "reindex_full": ["reindex", "--full"], "reindex": ["reindex"],
                    "remember": ["remember", fact_text(rng)]}[operation]
            if operation == "dream" and hostile:
                env = {"SUZENT_MEMORY_CONSOLIDATION_MODEL": "openai/fake", "OPENAI_API_BASE": model.base,
                       "OPENAI_BASE_URL": model.base, "OPENAI_API_KEY": "not-a-key"}
            label = f"{operation}{' (hostile model)' if env else ''}"
            operations[label] += 1
            kill = rng.random() < 0.6
            delay = rng.uniform(0.3, 40.0 if operation == "dream" else 6.0)
            began = time.monotonic()
            proc = cli(home, today, argv, env)
            try:
                out, err = proc.communicate(timeout=delay if kill else 600)
                killed = False
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                out, err = proc.communicate()
                killed, kills = True, kills + 1
            elapsed = time.monotonic() - began
            if operation == "dream" and not killed and proc.returncode in (0, 1):
                try:
                    runs = max(1, len(json.loads(out).get("runs") or []))
                except ValueError:
                    runs = 1
                if elapsed > runs * (TIMEOUT + 3.0) + SLACK:
                    violations["run_time"].append(f"trial {trial}: {runs} run(s) took {elapsed:.1f} s")
            found, watermark = check(home, today, watermark)
            state = "killed" if killed else f"exit {proc.returncode}"
            bad = sum(len(v) for v in found.values())
            print(f"trial {trial:3}: {label:28} {state:8} after {elapsed:5.1f} s  watermark={watermark}  "
                  f"violations={bad}", flush=True)
            for name, items in found.items():
                violations[name] += [f"trial {trial} ({label}, {state}): {item}" for item in items]
    finally:
        model.close()
    total = time.monotonic() - started
    print(f"\n{args.trials} trials in {total:.0f} s ({kills} killed with SIGKILL); operations: "
          + ", ".join(f"{k} {v}" for k, v in sorted(operations.items())))
    print("model behaviours: " + ", ".join(f"{k} {v}" for k, v in sorted(model.seen.items())))
    print("uncovered facts now recorded:", len(uncovered.load(MemoryManager.open(home).layout)))
    print("\nviolations per invariant:")
    for name in INVARIANTS:
        print(f"  {name:16} {len(violations[name])}")
        for item in violations[name][:5]:
            print(f"      {item[:200]}")
    if args.keep:
        print(f"\nhome kept at {home}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if any(violations.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
