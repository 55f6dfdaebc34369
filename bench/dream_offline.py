"""Benchmark: offline consolidation of 60 days × 40 facts through the dream runner.

Generates daily logs with planted exact duplicates (re-mentions with other case and
punctuation), near duplicates ("The user …" rewordings), value changes (job, city,
favourites, manager) and facts the user forgets before the dream runs. Then runs one
``run_cycle`` (which sprints batch after batch) with the offline consolidator and prints:

* time (whole cycle: consolidation, log.md, promotion, reindex; and the consolidator alone),
* pages written,
* the fraction of non-duplicate, non-forgotten input facts findable on notebook pages
  (current or under History) — target 100 %,
* exact duplicates left among current bullets — target 0,
* forgotten facts that reached the notebook — target 0.

Usage: ``python bench/dream_offline.py [--days 60] [--per-day 40] [--seed 7] [--embedding-model hashing]``
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import random
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing
os.environ.setdefault("SUZENT_EMBEDDING_MODEL", "hashing")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from suzent_desktop.core.engines.dream import offline  # noqa: E402
from suzent_desktop.core.files.clock import Clock  # noqa: E402
from suzent_desktop.core.files.records.log_grammar import Fact  # noqa: E402
from suzent_desktop.core.manager import MemoryManager  # noqa: E402
from suzent_desktop.core.vault.facts.fact_pages import PageDoc, dup_norm  # noqa: E402
from suzent_desktop.settings import load_settings  # noqa: E402

TODAY = dt.date(2026, 7, 20)
ACTIVITIES = (
    "hiking",
    "bouldering",
    "sailing",
    "pottery",
    "chess",
    "birdwatching",
    "fencing",
    "kayaking",
    "calligraphy",
    "beekeeping",
    "archery",
    "origami",
    "juggling",
    "snorkeling",
    "woodcarving",
)
PLACES = (
    "Lisbon",
    "Kyoto",
    "Reykjavik",
    "Marrakesh",
    "Tallinn",
    "Valparaiso",
    "Hobart",
    "Ljubljana",
    "Cusco",
    "Tbilisi",
    "Bergen",
    "Oaxaca",
    "Hoi An",
    "Zanzibar",
    "Quebec",
)
FOODS = (
    "ramen",
    "paella",
    "pierogi",
    "falafel",
    "laksa",
    "goulash",
    "ceviche",
    "bibimbap",
    "moussaka",
    "tagine",
    "borscht",
    "arepas",
    "risotto",
    "pho",
    "jollof rice",
)
PEOPLE = (
    "Anna",
    "Bruno",
    "Chiara",
    "Dmitri",
    "Elif",
    "Farid",
    "Greta",
    "Hiro",
    "Ines",
    "Jonas",
    "Kemal",
    "Lena",
    "Mateo",
    "Nadia",
    "Oskar",
    "Priya",
    "Quentin",
    "Rosa",
    "Sven",
    "Tomas",
)
RELATIONS = ("friend", "cousin", "colleague", "neighbour", "climbing partner", "former classmate")
COMPANIES = ("Contoso", "Fabrikam", "Initech", "Globex", "Umbrella Labs", "Wayne Analytics", "Stark Systems")
CITIES = ("Leeds", "Berlin", "Porto", "Utrecht", "Gothenburg", "Ghent", "Bologna")
FAVOURITES = {
    "color": ("teal", "ochre", "crimson", "olive"),
    "film": ("Arrival", "Heat", "Amelie", "Alien"),
    "album": ("Kid A", "Blue", "Homogenic", "Rumours"),
    "tea": ("sencha", "assam", "rooibos", "oolong"),
}


def unique_facts(rng: random.Random):
    """An endless stream of distinct facts (category, text)."""
    templates = [
        (
            "preference",
            lambda: f"User enjoys {rng.choice(ACTIVITIES)} with {rng.choice(PEOPLE)} in {rng.choice(PLACES)}",
        ),
        ("plan", lambda: f"User plans a trip to {rng.choice(PLACES)} to try {rng.choice(FOODS)}"),
        (
            "people",
            lambda: f"User's {rng.choice(RELATIONS)} {rng.choice(PEOPLE)} recommends {rng.choice(FOODS)}",
        ),
        ("preference", lambda: f"User cooks {rng.choice(FOODS)} for {rng.choice(PEOPLE)} on weekends"),
        (
            "people",
            lambda: (
                f"User met {rng.choice(PEOPLE)} at a {rng.choice(ACTIVITIES)} club in {rng.choice(PLACES)}"
            ),
        ),
    ]
    seen: set[str] = set()
    while True:
        category, make = rng.choice(templates)
        text = make()
        if text not in seen:
            seen.add(text)
            yield category, text


def variant(text: str, rng: random.Random) -> str:
    """An exact duplicate as people re-state it: other case, spacing, a full stop."""
    return rng.choice(
        [text.lower(), text + ".", text.replace(" ", "  ", 1), text.upper()[:1] + text[1:] + "!"]
    )


def generate(days: int, per_day: int, seed: int):
    """Per date: facts; plus the sets of target texts, planted duplicates and forgotten texts."""
    rng = random.Random(seed)
    stream = unique_facts(rng)
    logs: dict[str, list[Fact]] = {}
    targets: list[str] = []
    planted_dups = 0
    forgotten: list[str] = []
    state = {"company": COMPANIES[0], "city": CITIES[0], **{k: v[0] for k, v in FAVOURITES.items()}}
    for offset in range(days, 0, -1):
        date = (TODAY - dt.timedelta(days=offset)).isoformat()
        facts: list[Fact] = []
        while len(facts) < per_day:
            roll = rng.random()
            if roll < 0.15 and targets:  # exact duplicate of an earlier fact
                facts.append(Fact(variant(rng.choice(targets), rng), "general"))
                planted_dups += 1
            elif roll < 0.19 and targets:  # near duplicate: a rewording
                original = rng.choice([t for t in targets if t.startswith("User's ")] or targets)
                facts.append(
                    Fact("The user" + original[4:] if original.startswith("User") else original, "general")
                )
                planted_dups += 1
            elif roll < 0.25:  # a change of a one-valued fact
                key = rng.choice(list(state))
                if key == "company":
                    state[key] = rng.choice([c for c in COMPANIES if c != state[key]])
                    text, cat = f"User now works at {state[key]}", "work"
                elif key == "city":
                    state[key] = rng.choice([c for c in CITIES if c != state[key]])
                    text, cat = f"User moved to {state[key]}", "place"
                else:
                    state[key] = rng.choice([v for v in FAVOURITES[key] if v != state[key]])
                    text, cat = f"User's favorite {key} is {state[key]}", "preference"
                facts.append(Fact(text, cat))
                if text not in targets:
                    targets.append(text)
            elif roll < 0.28:  # something the user will ask to forget
                _cat, text = next(stream)
                text = text.replace("User", "User secretly", 1)
                facts.append(Fact(text, "general"))
                forgotten.append(text)
            else:
                cat, text = next(stream)
                facts.append(Fact(text, cat))
                targets.append(text)
        logs[date] = facts
    return logs, targets, planted_dups, forgotten


def page_norms(manager: MemoryManager) -> tuple[str, list[str]]:
    """All notebook text as one normalized string, and the normalized current bullets."""
    text_parts: list[str] = []
    current: list[str] = []
    for path in manager.notebook.content_pages():
        text = path.read_text(encoding="utf-8")
        text_parts.append(dup_norm(text))
        current += [dup_norm(b.text) for b in PageDoc.parse(text).current_bullets() if "[[" not in b.text]
    return " " + " | ".join(text_parts) + " ", current


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=60)
    parser.add_argument("--per-day", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--embedding-model",
        default="hashing",
        help="'hashing' (default), '' for the bundled MiniLM model, or a litellm model",
    )
    args = parser.parse_args(argv)
    logs, targets, planted, forgotten = generate(args.days, args.per_day, args.seed)
    with tempfile.TemporaryDirectory(prefix="suzent-bench-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        settings = load_settings(home).replace(
            embedding_model=args.embedding_model,
            memory_consolidation_min_hours=0.0,
            memory_consolidation_min_facts=1,
            memory_consolidation_max_days=14,
            memory_lint_enabled=False,
        )
        manager = MemoryManager.open(home, settings=settings, clock=Clock(fixed_today=TODAY))
        for date, facts in logs.items():
            manager.archive.append_turn(
                facts, session_id="bench000", when=dt.datetime.fromisoformat(f"{date}T09:00")
            )
        for text in forgotten:
            manager.tombstones.add(text)
        engine_seconds = 0.0
        original = offline.consolidate

        def timed_consolidate(batch, tools, embed):
            nonlocal engine_seconds
            started = time.perf_counter()
            try:
                return original(batch, tools, embed)
            finally:
                engine_seconds += time.perf_counter() - started

        offline.consolidate = timed_consolidate  # the runner looks it up at call time
        started = time.perf_counter()
        try:
            results = await manager.dreaming.runner().run_cycle()
        finally:
            offline.consolidate = original
        total = time.perf_counter() - started
        text, current = page_norms(manager)
        unique_targets = list(dict.fromkeys(targets))
        missing = [t for t in unique_targets if f" {dup_norm(t)} " not in text.replace("|", " ")]
        dup_counts = Counter(current)
        leaked = [t for t in forgotten if dup_norm(t) in text]
        pages = sorted(manager.notebook.relative(p) for p in manager.notebook.content_pages())
        memory_md = manager.layout.memory_md.read_text(encoding="utf-8")
        total_facts = sum(len(f) for f in logs.values())
        print(f"embedder: {manager.embedder.name}")
        print(
            f"input: {args.days} days x {args.per_day} facts = {total_facts} facts "
            f"({len(unique_targets)} distinct targets, {planted} planted duplicates, {len(forgotten)} forgotten)"
        )
        print(f"runs: {[r.outcome for r in results]}  watermark={manager.dreaming.watermark()}")
        print(f"time: {total:.2f} s for the whole cycle; {engine_seconds:.2f} s in the offline consolidator")
        print(f"pages written: {len(pages)} ({', '.join(p.split('/')[-1][:-3] for p in pages)})")
        print(
            f"findable: {len(unique_targets) - len(missing)}/{len(unique_targets)} = "
            f"{100.0 * (len(unique_targets) - len(missing)) / max(1, len(unique_targets)):.1f}%"
        )
        print(
            f"exact duplicates left among current bullets: {sum(n - 1 for n in dup_counts.values() if n > 1)}"
        )
        stripped = Counter(re.sub(r"^the ", "", c) for c in current)
        near_left = sum(n - 1 for n in stripped.values() if n > 1)
        print(f"near duplicates ('The user …' rewordings) left among current bullets: {near_left}")
        print(f"forgotten facts on notebook pages: {len(leaked)}")
        print(f"MEMORY.md: {len(memory_md.splitlines())} lines, {len(memory_md)} chars")
        from suzent_desktop.core.engines.dream.lint import summarize

        started = time.perf_counter()
        lint = await manager.linting.run()
        print(f"lint: {time.perf_counter() - started:.2f} s, {summarize(lint.findings)}")
        for text_missing in missing[:5]:
            print(f"  missing: {text_missing}")
        ok = not missing and not leaked and all(n == 1 for n in dup_counts.values())
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
