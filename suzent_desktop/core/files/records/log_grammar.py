"""The daily-log line grammar: parse ⇄ format, byte-exact for well-formed lines.

A fact line is ``- [category] text`` optionally followed by one backtick span of
space-separated tags. The parser is tolerant of hand-written lines (``*`` bullets, a
missing category, extra spaces, ``#tags``, any script), because people and other agents
write these files too. Importance is kept as a tag ``importance:0.85`` inside the
backtick span: readers of the original format see an ordinary tag and keep working.
The turn a fact was extracted from is kept the same way, as a tag ``turn:ID`` naming the
turn's line in ``memory/transcripts/`` (see ``core/files/records/transcripts.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

DEFAULT_CATEGORY = "general"
IMPORTANCE_TAG = "importance:"
TURN_TAG = "turn:"
HIGH_IMPORTANCE = 0.8

_FACT_RE = re.compile(
    r"^\s*[-*+]\s+"  # bullet
    r"(?:\[(?P<category>[^\]\s]*)\]\s*)?"  # optional [category]
    r"(?P<text>.*?)"  # the fact itself
    r"(?:\s+`(?P<tags>[^`]*)`)?\s*$"  # optional trailing `tags`
)
_HEADER_RE = re.compile(r"^#\s+Daily Log\s*-\s*(?P<date>\d{4}-\d{2}-\d{2})\s*$")
_TURN_RE = re.compile(r"^##\s+(?P<time>\d{1,2}:\d{2})\s*(?:—|--|-)\s*(?P<session>\S*)\s*$")
_CATEGORY_OK = re.compile(r"^[a-z][a-z0-9_-]*$")


@dataclass(frozen=True)
class Fact:
    """One extracted statement. ``importance`` is None when nobody said how important it is."""

    content: str
    category: str = DEFAULT_CATEGORY
    tags: tuple[str, ...] = ()
    importance: float | None = None
    turn: str | None = None  # id of the transcript turn the fact came from

    @property
    def is_important(self) -> bool:
        return self.importance is not None and self.importance >= HIGH_IMPORTANCE


@dataclass(frozen=True)
class FactLine:
    """A fact as it stands in a file: where it is and which turn it belongs to."""

    fact: Fact
    line: int  # 1-based line number in the file
    raw: str
    time: str | None = None
    session: str | None = None


@dataclass
class Turn:
    time: str
    session: str
    line: int
    facts: list[FactLine] = field(default_factory=list)


@dataclass
class ParsedLog:
    """A whole daily log. Lines that are not facts are listed in ``malformed``, never dropped."""

    date: str | None
    facts: list[FactLine] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)
    malformed: list[tuple[int, str]] = field(default_factory=list)


def _clean_category(raw: str | None) -> str:
    if not raw:
        return DEFAULT_CATEGORY
    lowered = raw.strip().lower()
    return lowered if _CATEGORY_OK.match(lowered) else DEFAULT_CATEGORY


def _split_tags(raw: str | None) -> tuple[tuple[str, ...], float | None, str | None]:
    if not raw:
        return (), None, None
    tags: list[str] = []
    importance: float | None = None
    turn: str | None = None
    for token in raw.split():
        if token.startswith(TURN_TAG) and len(token) > len(TURN_TAG) and turn is None:
            turn = token[len(TURN_TAG) :]
            continue
        if token.startswith(IMPORTANCE_TAG):
            try:
                importance = min(1.0, max(0.0, float(token[len(IMPORTANCE_TAG) :])))
                continue
            except ValueError:
                pass
        tags.append(token)
    return tuple(tags), importance, turn


def parse_fact_line(line: str) -> Fact | None:
    """A fact, or None when the line is not a fact line (headings, prose, empty bullets)."""
    stripped = line.rstrip("\r\n")
    match = _FACT_RE.match(stripped)
    if not match:
        return None
    text = match.group("text").strip()
    tags_raw = match.group("tags")
    if not text and tags_raw is not None:
        # "- `only code`" is a fact whose text is the code span, not a tag list.
        text, tags_raw = f"`{tags_raw}`", None
    if not text:
        return None
    tags, importance, turn = _split_tags(tags_raw)
    category = _clean_category(match.group("category"))
    return Fact(content=text, category=category, tags=tags, importance=importance, turn=turn)


def format_fact_line(fact: Fact) -> str:
    """The canonical line (no newline). ``parse_fact_line(format_fact_line(f)) == f`` for clean facts."""
    content = " ".join(fact.content.split())
    tags = list(fact.tags)
    if fact.importance is not None:
        tags.append(f"{IMPORTANCE_TAG}{fact.importance:.2f}".rstrip("0").rstrip("."))
    if fact.turn:
        tags.append(f"{TURN_TAG}{fact.turn}")
    suffix = f" `{' '.join(tags)}`" if tags else ""
    if not tags and content.endswith("`") and (own := _FACT_RE.match(f"- {content}")) is not None \
            and own.group("tags") is not None:
        suffix = " ``"  # an empty tag span keeps a trailing code span in the text (`vim` is not a tag)
    return f"- [{fact.category}] {content}{suffix}"


def format_turn_header(time_hhmm: str, session_id: str) -> str:
    return f"## {time_hhmm} — {session_id[:8]}"


def format_log_header(date_iso: str) -> str:
    return f"# Daily Log - {date_iso}"


_LINE_END_RE = re.compile(r"\r\n?|\n")


def parse_log(text: str) -> ParsedLog:
    """Parse a whole daily log, tolerating CRLF and hand edits."""
    parsed = ParsedLog(date=None)
    current: Turn | None = None
    # Only CR and LF end a line (as for the appender's line numbers): a form feed or a Unicode
    # line separator inside one fact must not split it, nor a stray byte-order mark hide the header.
    for number, line in enumerate(_LINE_END_RE.split(text.removeprefix("\ufeff")), start=1):
        if not line.strip():
            continue
        header = _HEADER_RE.match(line)
        if header and parsed.date is None:
            parsed.date = header.group("date")
            continue
        turn = _TURN_RE.match(line)
        if turn:
            current = Turn(time=turn.group("time"), session=turn.group("session"), line=number)
            parsed.turns.append(current)
            continue
        fact = parse_fact_line(line)
        if fact is None:
            parsed.malformed.append((number, line))
            continue
        entry = FactLine(
            fact=fact,
            line=number,
            raw=line,
            time=current.time if current else None,
            session=current.session if current else None,
        )
        parsed.facts.append(entry)
        if current is not None:
            current.facts.append(entry)
    return parsed
