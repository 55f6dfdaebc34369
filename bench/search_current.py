"""Benchmark: does search answer with the *current* value of a fact that changed over time?

Generates a demo-like home: daily logs over ``--days`` days in which people (and the user)
change employer, home town and favourites, some twice, among stable facts and small talk.
The offline dream consolidates every past day through the real runner (superseded values
move to each page's ``## History``, MEMORY.md is promoted), and then questions are asked
through ``MemoryManager.search``:

* **current**: "Where does Anna work?" — the answer is the latest value;
* **past**: "Where did Anna work before?" — the answer is the previous value;
* **stable**: "What instrument does Anna play?" — a fact that never changed.

Printed per group: top-1 (the first hit holds the expected value and not the other value of
the same subject) and top-5 (one of the first five hits holds it: normalized containment),
then overall top-5 over every question, and the share of top-5 hits that come from
MEMORY.md (repeats of page bullets crowd the list when they are not folded).

``--before REV`` also runs the same benchmark on the code of git revision REV (extracted
with ``git archive`` into a temporary folder, run in a subprocess) and prints both.

Usage: ``python bench/search_current.py [--days 40] [--seed 3] [--embedding-model ''] [--before REV]``
The default embedder is the bundled MiniLM model (the offline default); ``hashing`` is faster.
Figures are wall-clock free; only recall is measured, so machine load does not change them.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import random
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _code_root(argv: list[str]) -> Path:
    """``--code DIR`` runs the benchmark against another checkout (used by ``--before``)."""
    if "--code" in argv:
        return Path(argv[argv.index("--code") + 1])
    return REPO


sys.path.insert(0, str(_code_root(sys.argv)))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

TODAY = dt.date(2026, 7, 20)
PEOPLE = (
    "Anna", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Gustav", "Hana", "Ines", "Jonas", "Kofi", "Lena",
    "Mateo", "Nadia", "Oskar", "Priya", "Quinn", "Rosa", "Sven", "Tariq",
)
COMPANIES = ("Contoso", "Fabrikam", "Initech", "Globex", "Umbrella Labs", "Wayne Analytics", "Stark Systems",
             "Hooli", "Vandelay Industries", "Acme Robotics")
CITIES = ("Leeds", "Berlin", "Porto", "Utrecht", "Gothenburg", "Ghent", "Bologna", "Lyon", "Krakow", "Tampere")
FAVOURITES = {
    "food": ("ramen", "paella", "pierogi", "tacos", "pho", "falafel", "risotto"),
    "band": ("Radiohead", "Portishead", "Khruangbin", "Bonobo", "Air", "Massive Attack"),
    "book": ("Dune", "Middlemarch", "Solaris", "Beloved", "Ulysses", "Emma"),
}
INSTRUMENTS = ("cello", "banjo", "oboe", "ukulele", "harp", "trombone", "accordion", "sitar")
SPORTS = ("bouldering", "rowing", "fencing", "squash", "curling", "handball", "judo", "kayaking")
FILLER = (
    "User had coffee with {p} after the stand-up",
    "User and {p} talked about the weekend",
    "{p} sent User a photo from the hike",
    "User helped {p} move a sofa",
    "User and {p} watched a film on Friday",
)


@dataclass(frozen=True)
class Question:
    group: str  # "current" | "past" | "stable"
    text: str
    answer: str
    other: str | None = None  # the other value of the same subject (old for current, new for past)


def _subject(person: str) -> str:
    return "the user" if person == "User" else person


def generate(days: int, seed: int) -> tuple[dict[str, list[tuple[str, str]]], list[Question]]:
    """Daily logs (date → [(category, fact)]) and the questions with their answers."""
    rng = random.Random(seed)
    dates = [(TODAY - dt.timedelta(days=offset)).isoformat() for offset in range(days, 0, -1)]
    logs: dict[str, list[tuple[str, str]]] = {d: [] for d in dates}
    questions: list[Question] = []

    def say(day: int, category: str, text: str) -> None:
        logs[dates[max(0, min(day, len(dates) - 1))]].append((category, text))

    for person in ("User", *PEOPLE):
        who = _subject(person)
        possessive = "User's" if person == "User" else f"{person}'s"
        category = "work" if person == "User" else "people"
        # Employer: two or three values over time.
        jobs = rng.sample(COMPANIES, rng.choice((2, 2, 3)))
        days_of = sorted(rng.sample(range(days - 2), len(jobs)))
        say(days_of[0], category, f"{person} works at {jobs[0]}")
        for day, company in zip(days_of[1:], jobs[1:], strict=True):
            say(day, category, f"{person} now works at {company}")
        questions.append(Question("current", f"Where does {who} work?", jobs[-1], jobs[-2]))
        questions.append(Question("past", f"Where did {who} work before?", jobs[-2], jobs[-1]))
        # Home town: two values.
        towns = rng.sample(CITIES, 2)
        first, second = sorted(rng.sample(range(days - 2), 2))
        say(first, "place" if person == "User" else "people", f"{person} lives in {towns[0]}")
        say(second, "place" if person == "User" else "people", f"{person} moved to {towns[1]}")
        questions.append(Question("current", f"Where does {who} live now?", towns[1], towns[0]))
        questions.append(Question("past", f"Where did {who} live previously?", towns[0], towns[1]))
        # One favourite that changed.
        thing = rng.choice(sorted(FAVOURITES))
        old, new = rng.sample(FAVOURITES[thing], 2)
        first, second = sorted(rng.sample(range(days - 2), 2))
        say(first, "preference", f"{possessive} favourite {thing} is {old}")
        say(second, "preference", f"{possessive} favourite {thing} is {new}")
        questions.append(Question("current", f"What is {possessive} favourite {thing}?", new, old))
        # Stable facts.
        if person != "User":
            instrument, sport = rng.choice(INSTRUMENTS), rng.choice(SPORTS)
            say(rng.randrange(days - 2), "people", f"{person} plays the {instrument}")
            say(rng.randrange(days - 2), "people", f"{person} goes {sport} on Sundays")
            questions.append(Question("stable", f"What instrument does {person} play?", instrument))
            questions.append(Question("stable", f"Which sport does {person} do on Sundays?", sport))
    for date in dates:  # small talk around the facts
        for _ in range(rng.randint(2, 5)):
            logs[date].append(("general", rng.choice(FILLER).format(p=rng.choice(PEOPLE))))
    return logs, questions


def _norm(text: str) -> str:
    return " ".join(text.lower().replace("’", "'").split())


async def measure(days: int, seed: int, embedding_model: str) -> dict:
    from suzent_desktop.core.files.clock import Clock
    from suzent_desktop.core.files.records.log_grammar import Fact
    from suzent_desktop.core.manager import MemoryManager
    from suzent_desktop.settings import load_settings

    logs, questions = generate(days, seed)
    with tempfile.TemporaryDirectory(prefix="suzent-bench-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        settings = load_settings(home).replace(
            embedding_model=embedding_model,
            memory_consolidation_min_hours=0.0,
            memory_consolidation_min_facts=1,
            memory_consolidation_max_days=14,
            memory_lint_enabled=False,
        )
        manager = MemoryManager.open(home, settings=settings, clock=Clock(fixed_today=TODAY))
        for date, facts in logs.items():
            for hour, (category, text) in enumerate(facts):
                when = dt.datetime.fromisoformat(f"{date}T{8 + hour % 12:02d}:00")
                manager.archive.append_turn([Fact(text, category)], session_id="bench000", when=when)
        await manager.dreaming.runner().run_cycle(force=True)
        await manager.indexing.reindex()
        memory_md = str(manager.layout.memory_md)
        groups: dict[str, dict[str, int]] = {}
        memory_hits = total_hits = 0
        for question in questions:
            hits = (await manager.searching.search(question.text, limit=5, record_recall=False)).hits
            texts = [_norm(h.text) for h in hits]
            answer, other = _norm(question.answer), _norm(question.other or "\x00")
            stats = groups.setdefault(question.group, {"n": 0, "top1": 0, "top5": 0})
            stats["n"] += 1
            stats["top1"] += bool(texts) and answer in texts[0] and other not in texts[0]
            stats["top5"] += any(answer in t for t in texts)
            memory_hits += sum(str(h.path) == memory_md for h in hits)
            total_hits += len(hits)
        return {
            "questions": len(questions),
            "groups": groups,
            "memory_md_share_top5": memory_hits / max(1, total_hits),
        }


def _report(label: str, result: dict) -> None:
    print(f"{label}: {result['questions']} questions")
    overall_n = overall_5 = 0
    for group in ("current", "past", "stable"):
        stats = result["groups"].get(group)
        if not stats:
            continue
        n = stats["n"]
        overall_n += n
        overall_5 += stats["top5"]
        print(f"  {group:8} n={n:3}  top-1 {stats['top1'] / n:6.1%}   top-5 {stats['top5'] / n:6.1%}")
    print(f"  overall  n={overall_n:3}  top-5 {overall_5 / max(1, overall_n):6.1%}")
    print(f"  MEMORY.md share of top-5 hits: {result['memory_md_share_top5']:.1%}")


def _run_before(rev: str, args: argparse.Namespace) -> dict:
    """The same benchmark on revision ``rev``'s code, in a subprocess (its modules, not ours)."""
    with tempfile.TemporaryDirectory(prefix="suzent-before-") as tmp:
        archive = subprocess.run(["git", "-C", str(REPO), "archive", rev], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        command = [sys.executable, str(Path(__file__).resolve()), "--code", tmp, "--json",
                   "--days", str(args.days), "--seed", str(args.seed), "--embedding-model", args.embedding_model]
        out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        return json.loads(out.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=40)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--embedding-model", default="", help="'' (bundled MiniLM, default) or 'hashing'")
    parser.add_argument("--before", metavar="REV", help="also measure git revision REV's code")
    parser.add_argument("--code", help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help="print one JSON line (used by --before)")
    args = parser.parse_args(argv)
    result = asyncio.run(measure(args.days, args.seed, args.embedding_model))
    if args.json:
        print(json.dumps(result))
        return 0
    model = args.embedding_model or "bundled MiniLM"
    print(f"search_current: {args.days} days, seed {args.seed}, embedder {model}")
    if args.before:
        _report(f"before ({args.before})", _run_before(args.before, args))
    _report("now", result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
