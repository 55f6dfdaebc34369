"""A ready-made demo home: three and a half weeks of daily logs and a seeded vault.

Everything is derived from one date (``today``), so the same call always writes the same
bytes. The story is ordinary on purpose: preferences, a job change (Contoso, then
Microsoft), a move (Seattle to Redmond), people, a side project, routines and health, with
the first ten days already consolidated into notebook pages (an ingest entry with a
watermark in ``log.md``) and the rest pending for the dream runner.

A demo home is marked with ``.suzent/demo``. Writing a demo again into a demo home only
restores missing files; a folder that holds anything else is refused, so a real home is
never touched.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import struct
import zlib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from suzent_desktop.core.files.disk.text_hygiene import loads_json
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.records.log_grammar import (
    Fact,
    format_fact_line,
    format_log_header,
    format_turn_header,
)
from suzent_desktop.core.files.records.transcripts import turn_id
from suzent_desktop.settings import Settings

DEMO_MARKER = Path(".suzent") / "demo"
DAYS = 24
CONSOLIDATED_DAYS = 10

F = tuple[str, str, str, float | None]  # category, text, tags, importance


class DemoError(ValueError):
    """The demo cannot be written there (names the folder and why)."""


@dataclass
class DemoReport:
    home: Path
    created: int = 0
    kept: int = 0
    files: list[Path] = field(default_factory=list)


# One entry per day, oldest first: a list of (HH:MM, facts) sessions. Day 0 is 24 days ago.
_STORY: list[list[tuple[str, list[F]]]] = [
    # 0
    [("09:12", [
        ("preference", "User prefers dark mode in every editor", "ui", None),
        ("work", "User works at Contoso as a data engineer", "career contoso", 0.8),
        ("place", "User lives in Seattle, in Capitol Hill", "home seattle", None),
    ]), ("18:40", [
        ("preference", "User drinks oat-milk flat whites, no sugar", "coffee", None),
    ])],
    # 1
    [("08:55", [
        ("project", "User is building Trail Guide, a hiking app for the Cascades", "trail-guide side-project", None),
        ("preference", "User wants the Trail Guide UI to work offline first", "trail-guide ui", None),
    ]), ("21:10", [
        ("people", "Anna is User's sister; she lives in Portland", "family anna", None),
    ])],
    # 2
    [("07:30", [
        ("routine", "User runs 5 km before work on Mondays, Wednesdays and Fridays", "running health", None),
        ("health", "User is allergic to peanuts", "allergy", 0.95),
    ])],
    # 3
    [("10:02", [
        ("work", "User's manager at Contoso is Priya Nair", "career contoso people", None),
        ("work", "User maintains Contoso's nightly Spark ingestion pipeline", "career contoso spark", None),
    ]), ("13:45", [
        ("preference", "User prefers compact dashboards over large charts", "ui product", None),
        ("preference", "User writes notes in Markdown and syncs them with Obsidian", "tools notes", None),
    ])],
    # 4
    [("19:20", [
        ("people", "Marco is User's climbing partner from the Vertical World gym", "climbing marco", None),
        ("plan", "User plans to climb Mount Si with Marco in August", "climbing hiking plan", None),
    ])],
    # 5
    [("09:05", [
        ("project", "Trail Guide uses SQLite for offline trail data", "trail-guide tech", None),
        ("project", "Trail Guide's map tiles come from OpenStreetMap", "trail-guide maps", None),
    ]), ("16:30", [
        ("preference", "User prefers Python and Rust over Java", "languages", None),
    ])],
    # 6
    [("08:15", [
        ("general", "User's door code is 4417", "home", None),
        ("routine", "User reads for thirty minutes before bed", "reading routine", None),
    ]), ("20:00", [
        ("people", "Anna's birthday is on September 14", "family anna dates", 0.8),
    ])],
    # 7
    [("11:40", [
        ("work", "User is evaluating vector databases for Contoso's search team", "career contoso search", None),
        ("learning", "User is reading 'Designing Data-Intensive Applications'", "books reading", None),
    ])],
    # 8
    [("09:30", [
        ("preference", "User likes meetings before noon and keeps afternoons for focus work", "schedule", None),
        ("health", "User sees a physiotherapist for a sore left knee", "knee health", None),
    ]), ("22:05", [
        ("general", "User was considering quitting to become a barista", "career joke", None),
    ])],
    # 9
    [("10:10", [
        ("project", "Trail Guide's first beta goes to ten friends", "trail-guide beta", None),
        ("people", "Jonas, a former colleague, now works at Microsoft", "jonas microsoft", None),
        ("preference", "User prefers window seats on flights", "travel", None),
    ])],
    # 10 (first pending day)
    [("08:45", [
        ("work", "User had a first interview with Microsoft's Azure AI Search team", "career microsoft", None),
        ("routine", "User switched runs to early evenings because of the knee", "running knee", None),
    ])],
    # 11
    [("14:20", [
        ("learning", "User is learning about hybrid search and reciprocal rank fusion", "search learning", None),
        ("project", "Trail Guide beta testers asked for elevation profiles", "trail-guide feedback", None),
    ]), ("19:55", [
        ("people", "Marco moved to Boulder for a new job", "climbing marco", None),
    ])],
    # 12
    [("09:00", [
        ("work", "User had the final interview loop at Microsoft", "career microsoft", None),
        ("preference", "User drinks green tea in the afternoon instead of coffee", "tea coffee", None),
    ])],
    # 13
    [("17:35", [
        ("work", "User accepted an offer from Microsoft", "career microsoft", 0.9),
        ("work", "User gave notice at Contoso; the last day is in two weeks", "career contoso", None),
    ])],
    # 14
    [("10:15", [
        ("place", "User is looking for an apartment in Redmond near the Microsoft campus", "home redmond", None),
        ("health", "The physiotherapist cleared User to run 8 km again", "knee health running", None),
    ])],
    # 15
    [("08:20", [
        ("work", "User now works at Microsoft on the Azure AI Search team", "career microsoft", 0.95),
        ("work", "User's new manager at Microsoft is Daniel Okafor", "career microsoft people", None),
    ]), ("12:50", [
        ("preference", "User wants a standing desk at the new office", "office", None),
    ])],
    # 16
    [("18:05", [
        ("project", "Trail Guide now shows elevation profiles for every trail", "trail-guide feature", None),
        ("project", "Trail Guide will stay a weekend project after the job change", "trail-guide plan", None),
    ])],
    # 17
    [("09:40", [
        ("place", "User signed a lease for an apartment in Redmond", "home redmond", 0.85),
        ("plan", "User moves from Seattle to Redmond on the last Saturday of the month", "home move plan", None),
    ])],
    # 18
    [("07:55", [
        ("routine", "User takes the 545 bus to the Microsoft campus", "commute", None),
        ("preference", "User likes Lisbon and wants to go back in spring", "travel lisbon", None),
    ]), ("21:30", [
        ("people", "Anna is expecting her first child in November", "family anna", 0.85),
    ])],
    # 19
    [("11:25", [
        ("work", "User's first project at Microsoft is relevance tuning for hybrid search", "career microsoft search", None),
        ("learning", "User finished 'Designing Data-Intensive Applications'", "books reading", None),
    ])],
    # 20
    [("16:10", [
        ("place", "User moved to Redmond", "home redmond", 0.9),
        ("preference", "User prefers cycling to the office now that the commute is short", "commute cycling", None),
    ])],
    # 21
    [("08:35", [
        ("health", "User started going to the climbing gym in Redmond twice a week", "climbing health", None),
        ("people", "Jonas and User have lunch on Thursdays at the campus", "jonas microsoft", None),
    ]), ("20:45", [
        ("plan", "User still plans to climb Mount Si in August, now with Jonas", "climbing hiking plan", None),
    ])],
    # 22
    [("10:05", [
        ("preference", "User prefers written design docs over slide decks", "work style", None),
        ("learning", "User is reading 'Relevant Search' by Doug Turnbull", "books search", None),
    ])],
    # 23 (yesterday)
    [("09:15", [
        ("project", "Trail Guide has 40 beta users now", "trail-guide beta", None),
        ("preference", "User wants weekly summaries of memory changes on Sunday evenings", "memory product", None),
    ]), ("19:00", [
        ("people", "Daniel Okafor suggested User present the relevance results next month", "career microsoft people", None),
    ])],
]

_TODAY_FACTS: list[tuple[str, list[F]]] = [
    ("09:20", [
        ("work", "User has a design review for the relevance tuning work on Thursday", "career microsoft", None),
        ("preference", "User wants search results to show the source file and line", "memory product", None),
    ]),
]

_TOMBSTONES = ("User's door code is 4417", "User was considering quitting to become a barista")


def _session(date_iso: str, time: str) -> str:
    return hashlib.sha1(f"demo {date_iso} {time}".encode()).hexdigest()[:8]


_ADVERBS = frozenset({"now", "still", "also", "usually", "often", "always", "never", "just", "finally"})
_IRREGULAR = {"is": "am", "has": "have", "does": "do", "goes": "go", "was": "was"}


def _verb(word: str) -> str:
    """A third-person verb as the first person says it (``works`` → ``work``)."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith(("ss", "us")):
        return word[:-1]
    return word


def _first_person(text: str) -> str:
    """How the user said a fact the log words about them (``User now works at X`` → ``I now work at X``)."""
    words = text.replace("[[", "").replace("]]", "").split()
    if words and words[0] == "User":
        words[0] = "I"
        at = 1
        while at < len(words) and words[at] in _ADVERBS:
            at += 1
        if at < len(words):
            words[at] = _verb(words[at])
    elif words and words[0] == "User's":
        words[0] = "My"
    said = " ".join(words).replace("User's", "my").replace("User", "me")
    return said.rstrip(".") + "."


def _turn(date_iso: str, time: str, facts: list[F]) -> dict[str, str]:
    """The conversation turn a session's facts were taken from (the user saying them)."""
    user = " ".join(_first_person(text) for _c, text, _t, _i in facts if text not in _TOMBSTONES)
    session, ts, assistant = _session(date_iso, time), f"{date_iso}T{time}:00", "Noted, I'll remember that."
    return {"id": turn_id(session, ts, user, assistant), "ts": ts, "session": session, "user": user,
            "assistant": assistant}


def _transcript_text(date_iso: str, sessions: list[tuple[str, list[F]]]) -> str:
    return "".join(json.dumps(_turn(date_iso, time, facts), ensure_ascii=False) + "\n" for time, facts in sessions)


def _log_text(date_iso: str, sessions: list[tuple[str, list[F]]]) -> str:
    lines = [format_log_header(date_iso)]
    for time, facts in sessions:
        lines += ["", format_turn_header(time, _session(date_iso, time)), ""]
        turn = _turn(date_iso, time, facts)["id"]
        for category, text, tags, importance in facts:
            said = None if text in _TOMBSTONES else turn  # a forgotten fact's words are kept nowhere
            lines.append(format_fact_line(Fact(text, category, tuple(tags.split()), importance, said)))
    return "\n".join(lines) + "\n"


def _pages(dates: list[str]) -> dict[str, str]:
    """Notebook pages as a dream run over the first ten days would have left them."""
    d = dates
    return {
        "3_Personal/About Me.md": """# About Me

Sam Rivera: data engineer, hiker and climber, building a hiking app on weekends.

- [[Preferences]]
- [[Work]]
- [[People]]
- [[Places]]
- [[Health]]
- [[Routines]]
- [[Dates]]
- [[Plans]]
""",
        "3_Personal/Preferences.md": f"""---
tags: [personal, preferences]
sources: [{d[0]}, {d[3]}, {d[5]}, {d[8]}, {d[9]}]
updated: {d[9]}
---
# Preferences

## Tools and work style
- User prefers dark mode in every editor ({d[0]})
- User prefers compact dashboards over large charts ({d[3]})
- User writes notes in Markdown and syncs them with Obsidian ({d[3]})
- User prefers Python and Rust over Java ({d[5]})
- User likes meetings before noon and keeps afternoons for focus work ({d[8]})

## Food and drink
- User drinks oat-milk flat whites, no sugar ({d[0]})

## Travel
- User prefers window seats on flights ({d[9]})

Allergies are on [[Health#Allergies|the health page]]. See also [[Work]], [[People]],
[[Trail Guide]] and the notes on [[Vector Search]].
""",
        "3_Personal/Work.md": f"""# Work

- User works at Contoso as a data engineer ({d[0]})
- User's manager at Contoso is Priya Nair ({d[3]})
- User maintains Contoso's nightly Spark ingestion pipeline ({d[3]})
- User is evaluating vector databases for Contoso's search team ({d[7]})

Employer: [[Contoso]]. Notes on the evaluation: [[Vector Search]]. Former colleagues: [[People#Jonas|Jonas]].
Reading: [[Designing Data-Intensive Applications]].
""",
        "3_Personal/People.md": f"""# People

## Anna
- Anna is User's sister; she lives in Portland ({d[1]})

## Marco
- Marco is User's climbing partner from the Vertical World gym ({d[4]})

## Jonas
- Jonas, a former colleague, now works at Microsoft ({d[9]})

Birthdays are on [[Dates]]; present ideas in [[Gift ideas for Anna]].
""",
        "3_Personal/Places.md": f"""# Places

- User lives in Seattle, in Capitol Hill ({d[0]})
""",
        "3_Personal/Health.md": f"""# Health

## Allergies
- User is allergic to peanuts ({d[2]})

## Treatment
- User sees a physiotherapist for a sore left knee ({d[8]})
""",
        "3_Personal/Routines.md": f"""# Routines

- User runs 5 km before work on Mondays, Wednesdays and Fridays ({d[2]})
- User reads for thirty minutes before bed ({d[6]})
""",
        "3_Personal/Dates.md": f"""# Dates

- Anna's birthday is on September 14 ({d[6]})
""",
        "3_Personal/Plans.md": f"""# Plans

- User plans to climb Mount Si with Marco in August ({d[4]})
""",
        "1_Projects/Trail Guide.md": f"""---
tags: [project, side-project]
status: beta
sources: [{d[1]}, {d[5]}, {d[9]}]
updated: {d[9]}
---
# Trail Guide

A hiking app for the Cascades, built by the user on weekends.

## Decisions
- Offline first: trail data lives in SQLite ({d[1]}, {d[5]})
- Map tiles from OpenStreetMap ({d[5]})

## Status
- First beta goes to ten friends ({d[9]})

## Next steps
- [ ] Collect beta feedback
- [ ] Decide on a name for the app store
- [x] Ship offline maps

Owner: [[About Me|the user]] · Related: [[Vector Search]]
""",
        SHOWCASE_PAGE: f"""---
status: planning
launch: {d[-1]}
beta testers: 10
offline maps: true
tags:
  - trail-guide
  - launch
---
# Beta launch plan

> [!tip] Ship small, listen hard
> Ten friends get the beta first; their notes decide what comes next. See [[Trail Guide]].

![[{TRAIL_PNG}|420]]

## Checklist

- [x] Offline maps for the Cascades
- [x] Trail data in SQLite
- [ ] Invite the ten beta testers #trail-guide
- [ ] Ask Marco to test on the Mount Si trail

## Notes

Tiles come from **OpenStreetMap**; search uses *hybrid* ranking, explained in [[Reciprocal Rank Fusion]].
%%draft: pick the store name before the launch%%

![[Vector Search#Options the user looked at]]
""",
        "2_Wiki/Concepts/Vector Search.md": f"""---
tags: [concept, search]
aliases: [Semantic Search, Embedding Search]
sources: [{d[7]}]
stale_after: {(dt.date.fromisoformat(d[-1]) + dt.timedelta(days=90)).isoformat()}
---
# Vector Search

Finding text by meaning: documents and queries are embedded as vectors and compared by
cosine similarity. Usually combined with full-text search (**hybrid search**) and fused
with reciprocal rank fusion.

## Options the user looked at

| engine | embedded | full-text | notes |
|---|---|---|---|
| LanceDB | yes | yes (native) | files on disk, no server |
| pgvector | no | via Postgres | needs a database server |
| Qdrant | optional | payload filters | good filtering |

## Open questions
- [ ] How well does int8 quantisation keep recall?
- [ ] Chunk size for notes with long paragraphs
- [x] Compare with plain BM25

See also [[Reciprocal Rank Fusion]] and [[Work]].
""",
        "2_Wiki/Concepts/Reciprocal Rank Fusion.md": """# Reciprocal Rank Fusion

A way to merge ranked lists: each document scores `1 / (k + rank)` in every list it appears
in, and the sums decide the final order. `k = 60` is the usual constant. It needs no score
calibration, which is why hybrid search uses it to combine vector and full-text results.

Used in [[Vector Search]].
""",
        "2_Wiki/Literature/Designing Data-Intensive Applications.md": f"""# Designing Data-Intensive Applications

Martin Kleppmann, 2017. The user started it on {d[7]}.

- Chapter 3 (storage and retrieval) explains LSM trees and B-trees.
- Chapter 11 (stream processing) is relevant to the Spark pipeline at [[Work|Contoso]].
""",
        "2_Wiki/Entities/Contoso.md": f"""---
tags: [organisation]
---
# Contoso

The user's employer as of {d[0]}: data engineering, nightly Spark ingestion.
""",
        "0_Inbox/Gift ideas for Anna.md": """# Gift ideas for Anna

- A guide book for the Oregon coast
- Climbing chalk bag (she wants to try bouldering)
""",
    }


def _index_md(pages: list[str]) -> str:
    from suzent_desktop.core.vault.notebook import _seed_text  # the seeded index.md keeps the markers

    seed = _seed_text("index.md")
    by_zone: dict[str, list[str]] = {}
    for rel in sorted(pages):
        zone = rel.split("/")[0]
        by_zone.setdefault(zone, []).append(rel)
    lines: list[str] = []
    for zone, rels in by_zone.items():
        lines.append(f"## {zone}")
        lines += [f"- [[{Path(rel).stem}]]" for rel in rels]
        lines.append("")
    catalogue = "\n".join(lines).rstrip() + "\n"
    start, end = "<!-- suzent:index:start -->", "<!-- suzent:index:end -->"
    if start in seed and end in seed:
        head, rest = seed.split(start, 1)
        _, tail = rest.split(end, 1)
        return f"{head}{start}\n{catalogue}{end}{tail}"
    return seed.rstrip() + "\n\n" + catalogue


def _log_md(run_date: str, watermark: str) -> str:
    from suzent_desktop.core.vault.notebook import _seed_text

    seed = _seed_text("log.md").rstrip("\n")
    return (
        f"{seed}\n\n"
        f"## [{run_date}] ingest | daily logs  watermark={watermark}\n\n"
        f"Consolidated {CONSOLIDATED_DAYS} days into 3_Personal/ (preferences, work, people, health and routine,"
        f" places), 1_Projects/Trail Guide and 2_Wiki/Concepts/Vector Search.\n\n"
        f"## [{run_date}] lint\n"
        "No findings.\n"
    )


def _core_files(dates: list[str]) -> dict[str, str]:
    return {
        "persona.md": (
            "# Persona\n\n"
            "You are a calm, precise assistant. Answer briefly, cite the notebook page or daily log a\n"
            "fact comes from, and ask before changing anything the user wrote by hand.\n"
        ),
        "user.md": (
            "# User\n\n"
            "- Name: Sam Rivera\n"
            "- Pronouns: they/them\n"
            "- Time zone: America/Los_Angeles\n"
        ),
        "MEMORY.md": (
            "# Memory\n\n"
            "- Allergic to peanuts.\n"
            "- Data engineer at Contoso; evaluating vector search. (as of "
            f"{dates[CONSOLIDATED_DAYS - 1]})\n"
            "- Lives in Seattle (Capitol Hill); sister Anna lives in Portland.\n"
            "- Prefers dark mode, compact dashboards, Markdown notes in Obsidian.\n"
            "- Side project: Trail Guide, an offline-first hiking app.\n"
        ),
    }


SHOWCASE_PAGE = "1_Projects/Beta launch plan.md"  # the README's main screenshot shows it
TRAIL_PNG = "4_Assets/trail-map.png"


@lru_cache(maxsize=1)
def trail_map_png(width: int = 480, height: int = 240) -> bytes:
    """A small picture for the demo's image embed (a sky, two ridges, a trail), drawn row by row."""
    def ridge(x: float, base: float, swing: float, period: float) -> float:
        t = (x / period) % 2.0
        return base - swing * (t if t < 1 else 2 - t)

    far = [ridge(x + 40, height * 0.55, height * 0.25, width / 3.0) for x in range(width)]
    near = [ridge(x + 130, height * 0.8, height * 0.22, width / 2.2) for x in range(width)]
    rows = []
    for y in range(height):
        sky = bytes((40 + y * 60 // height, 70 + y * 80 // height, 120 + y * 90 // height))
        row = bytearray(b"\x00")
        for x in range(width):
            on_trail = abs(y - (near[x] + (height - near[x]) * 0.5 + 6 * ((x // 24) % 2))) < 2 and y > near[x]
            if on_trail:
                row += b"\xe8\xc3\x6a"
            elif y > near[x]:
                row += b"\x2f\x5d\x3a"
            elif y > far[x]:
                row += b"\x5a\x6f\x8c"
            else:
                row += sky
        rows.append(bytes(row))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"".join(rows), 9))
            + chunk(b"IEND", b""))


def demo_files(today: dt.date) -> dict[Path, str | bytes]:
    """Every file of the demo home (relative path → text), for ``today``."""
    dates = [(today - dt.timedelta(days=DAYS - i)).isoformat() for i in range(DAYS)]
    layout = Layout.from_settings(Path("/"), Settings())
    files: dict[Path, str | bytes] = {DEMO_MARKER: json.dumps({"demo": 1, "today": today.isoformat()}) + "\n"}

    def rel(path: Path) -> Path:
        return path.relative_to(layout.home)

    for date_iso, sessions in [*zip(dates, _STORY, strict=True), (today.isoformat(), _TODAY_FACTS)]:
        files[rel(layout.daily_log(date_iso))] = _log_text(date_iso, sessions)
        files[rel(layout.transcript(date_iso))] = _transcript_text(date_iso, sessions)
    pages = _pages(dates)
    for page, text in pages.items():
        files[rel(layout.notebook_dir / page)] = text
    files[rel(layout.notebook_dir / TRAIL_PNG)] = trail_map_png()
    files[rel(layout.index_md)] = _index_md(list(pages))
    files[rel(layout.log_md)] = _log_md(dates[CONSOLIDATED_DAYS], dates[CONSOLIDATED_DAYS - 1])
    for name, text in _core_files(dates).items():
        files[rel(layout.memory_dir / name)] = text
    stamp = f"{dates[12]}T21:00:00+00:00"
    files[rel(layout.tombstones_file)] = "".join(
        json.dumps({"content": " ".join(t.lower().split()), "ts": stamp, "source": "user", "reason": "demo"}) + "\n"
        for t in _TOMBSTONES
    )
    return files


def is_demo_home(path: Path) -> bool:
    return (path / DEMO_MARKER).is_file()


def _marker_today(path: Path) -> dt.date | None:
    try:
        data = loads_json((path / DEMO_MARKER).read_text(encoding="utf-8"))
        return dt.date.fromisoformat(data["today"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write_demo_home(path: Path, today: dt.date) -> DemoReport:
    """Write the demo home at ``path``; in an existing demo home only missing files are restored.

    Raises :class:`DemoError` for a file in the way or a non-empty folder that is not a demo home.
    """
    path = Path(path).expanduser()
    if path.exists() and not path.is_dir():
        raise DemoError(f"{path}: a file is in the way; the demo needs an empty folder")
    if path.is_dir() and any(path.iterdir()) and not is_demo_home(path):
        raise DemoError(
            f"{path}: the folder is not empty and is not a demo home; refusing to write a demo into it "
            "(choose an empty or new folder)"
        )
    if is_demo_home(path):
        today = _marker_today(path) or today  # keep restored files consistent with the existing ones
    report = DemoReport(home=path.resolve() if path.exists() else path.absolute())
    for relative, text in demo_files(today).items():
        target = path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            if isinstance(text, bytes):
                with target.open("xb") as binary:
                    binary.write(text)
            else:
                with target.open("x", encoding="utf-8", newline="") as handle:
                    handle.write(text)
        except FileExistsError:
            report.kept += 1
            continue
        report.created += 1
        report.files.append(target)
    from suzent_desktop.core.home import bootstrap_home

    layout = Layout.from_settings(path, Settings())
    bootstrap_home(layout)
    report.home = layout.home
    return report
