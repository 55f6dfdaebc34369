"""Generate a large, realistic-looking home for benchmarks: many days of daily logs and a big vault.

Deterministic for a given seed, so two runs index the same texts. Files are written in
the formats of interfaces.md §2 (daily logs through the project's own line formatter).
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from pathlib import Path

from suzent_desktop.core.files.records.log_grammar import (
    Fact,
    format_fact_line,
    format_log_header,
    format_turn_header,
)

PEOPLE = [
    "Alice",
    "Bruno",
    "Chen",
    "Dana",
    "Emeka",
    "Farah",
    "Gustav",
    "Hana",
    "Ines",
    "Jonas",
    "Kofi",
    "Lena",
]
PROJECTS = ["Atlas", "Beacon", "Cobalt", "Delta", "Ember", "Fjord", "Granite", "Harbor", "Iris", "Juniper"]
TOPICS = [
    "dashboards",
    "latency budgets",
    "vector search",
    "onboarding",
    "release notes",
    "sourdough",
    "trail running",
    "tax forms",
    "Rust lifetimes",
    "garden irrigation",
    "budget review",
    "the quarterly plan",
    "piano practice",
    "database migrations",
    "code review",
    "hiring",
    "accessibility",
    "caching",
    "sleep schedule",
    "Portuguese lessons",
]
PLACES = ["Lisbon", "Berlin", "Nairobi", "Osaka", "Toronto", "Porto", "Oslo", "Seoul", "Lima", "Accra"]
CATEGORIES = ["preference", "work", "people", "project", "health", "general", "learning"]
VERBS = [
    "prefers",
    "is exploring",
    "wants to improve",
    "worries about",
    "enjoys",
    "is planning",
    "decided on",
]
ADJ = ["compact", "quiet", "fast", "careful", "weekly", "shared", "detailed", "simple", "early", "remote"]
ZONES = [
    "0_Inbox",
    "1_Projects",
    "2_Wiki/Concepts",
    "2_Wiki/Entities",
    "2_Wiki/Syntheses",
    "3_Personal",
    "5_Archives",
]


@dataclass
class GeneratedHome:
    home: Path
    days: list[str]
    pages: list[Path]
    facts: int


def _fact(rng: random.Random, serial: int) -> Fact:
    kind = rng.randrange(5)
    person, project, topic = rng.choice(PEOPLE), rng.choice(PROJECTS), rng.choice(TOPICS)
    if kind == 0:
        text = f"User {rng.choice(VERBS)} {rng.choice(ADJ)} {topic}"
    elif kind == 1:
        text = f"{person} leads the {project} work on {topic}"
    elif kind == 2:
        text = f"User met {person} in {rng.choice(PLACES)} to discuss {topic}"
    elif kind == 3:
        text = f"The {project} project needs {rng.choice(ADJ)} {topic} before milestone {serial % 40}"
    else:
        text = f"User noted that {topic} takes about {rng.randint(2, 90)} minutes on {rng.choice(ADJ)} days"
    tags = tuple(rng.sample(["work", "home", "ui", "health", "people", "plan"], k=rng.randint(0, 2)))
    return Fact(text, rng.choice(CATEGORIES), tags)


def _sentence(rng: random.Random) -> str:
    topic, other = rng.choice(TOPICS), rng.choice(TOPICS)
    person, project = rng.choice(PEOPLE), rng.choice(PROJECTS)
    forms = [
        f"{person} thinks {topic} matters more than {other} for {project}.",
        f"The {rng.choice(ADJ)} approach to {topic} worked well in {rng.choice(PLACES)}.",
        f"We revisit {topic} every {rng.choice(['week', 'month', 'sprint'])} with {person}.",
        f"{project} depends on {topic}, which is why {other} was postponed.",
        f"A {rng.choice(ADJ)} checklist for {topic} saves about {rng.randint(5, 60)} minutes.",
    ]
    return rng.choice(forms)


def _page_text(rng: random.Random, title: str) -> str:
    lines = ["---", f"title: {title}", f"tags: [{rng.choice(TOPICS).split()[0]}]", "---", f"# {title}", ""]
    for section in range(rng.randint(1, 2)):
        if section:
            lines += [f"## {rng.choice(['Notes', 'Decisions', 'Open questions', 'History', 'Links'])}", ""]
        for _ in range(rng.randint(1, 2)):
            if rng.random() < 0.3:
                lines += [f"- {_sentence(rng)}" for _ in range(rng.randint(2, 3))]
            else:
                lines.append(" ".join(_sentence(rng) for _ in range(rng.randint(1, 2))))
            lines.append("")
        if rng.random() < 0.3:
            lines += [f"See [[{rng.choice(PEOPLE)}]] and [[{rng.choice(PROJECTS)}]].", ""]
    return "\n".join(lines)


def generate_home(
    home: Path,
    *,
    days: int = 200,
    facts_per_day: int = 100,
    pages: int = 2000,
    today: dt.date = dt.date(2026, 7, 20),
    seed: int = 7,
) -> GeneratedHome:
    """Write ``days`` daily logs ending yesterday and ``pages`` vault pages; no watermark, so all logs count."""
    rng = random.Random(seed)
    archive = home / "memory" / "archive"
    archive.mkdir(parents=True, exist_ok=True)
    (home / "memory" / "user.md").write_text(
        "# User\n\nThe user is a software engineer in Lisbon.\n", encoding="utf-8"
    )
    (home / "memory" / "persona.md").write_text(
        "# Persona\n\nConcise, friendly, practical.\n", encoding="utf-8"
    )
    dates: list[str] = []
    serial = 0
    for back in range(days, 0, -1):
        date = (today - dt.timedelta(days=back)).isoformat()
        dates.append(date)
        out = [format_log_header(date)]
        written = 0
        hour = 8
        while written < facts_per_day:
            batch = min(facts_per_day - written, rng.randint(2, 6))
            out += ["", format_turn_header(f"{hour % 24:02d}:{rng.randint(0, 59):02d}", f"s{serial:07d}"), ""]
            for _ in range(batch):
                out.append(format_fact_line(_fact(rng, serial)))
                serial += 1
            written += batch
            hour += 1
        (archive / f"{date}.md").write_text("\n".join(out) + "\n", encoding="utf-8")
    vault = home / "notebook"
    written_pages: list[Path] = []
    for index in range(pages):
        zone = ZONES[index % len(ZONES)]
        base = rng.choice(PEOPLE + PROJECTS + [t.title() for t in TOPICS])
        title = f"{base} {index}" if index % 11 else f"{base}'s notes {index}"
        path = vault / zone / f"{title}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_page_text(rng, title), encoding="utf-8")
        written_pages.append(path)
    return GeneratedHome(home, dates, written_pages, serial)
