"""Provenance: every page bullet and MEMORY.md line leads back to the words it came from.

The chain has three links, and each is already a file a person can read:

* **page line → log facts.** A sidecar record, ``.state/provenance.jsonl`` (one file per device,
  ``provenance@ID.jsonl`` on the others, read back as one like every append-only stream), names
  for a *line identity* the daily-log facts it stands for. The identity is the line's words as
  the consolidator compares them (:func:`dup_norm` of the bullet without its dates,
  strike-through or ``until``), not its page or position, so it holds when a page is renamed or
  moved, when a bullet gains a date (a merge), when it is struck through under ``## History``
  (supersede), when forget takes it off its page and undo puts it back, and when another device's
  copy of the page arrives. Pages carry no ids: Obsidian, a plain markdown reader and the app's
  Reading view show them as they were. The dream appends to the record after each productive
  run, from the record of where pages hold each consolidated fact (``core/engines/ledger/lost_facts.py``),
  so a fact merged into a bullet adds its source to that bullet. A line the record does not name
  (a page written before the record existed, the demo's seeded pages) is matched against the
  daily logs by the consolidator's exact rules: the same words, or the same subject and value.
* **log fact → transcript turn.** Each extracted fact carries ``turn:ID`` (``core/files/records/log_grammar.py``).
  A fact without it was typed by hand (``remember``, or the log edited by hand); a page line no
  fact stands behind was typed in the editor. Both are said, never guessed.
* **turn → its words.** The card shows the turn's speaker, date and time, the sentence that holds
  the fact's words highlighted, and one turn either side (``core/files/records/transcripts.py``).

Forgotten text never shows: a forgotten fact or turn is left out of every card.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from suzent_desktop.core.engines.capture.extraction import SENTENCE_END
from suzent_desktop.core.engines.ledger import lost_facts
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.records.log_grammar import FactLine
from suzent_desktop.core.files.records.tombstones import normalize
from suzent_desktop.core.files.records.transcripts import TranscriptTurn, turn_key
from suzent_desktop.core.files.sync import streams
from suzent_desktop.core.vault.facts.fact_pages import (
    content_words,
    dup_norm,
    parse_bullet,
    restates,
    subject_value,
)
from suzent_desktop.core.vault.facts.page_lines import line_texts
from suzent_desktop.core.vault.forgotten import Forgotten

if TYPE_CHECKING:
    from suzent_desktop.core.files.records.archive import Archive
    from suzent_desktop.core.files.records.tombstones import Tombstones
    from suzent_desktop.core.files.records.transcripts import Transcripts
    from suzent_desktop.core.services.search import Search
    from suzent_desktop.core.vault.model import Vault

STREAM = "provenance"
HAND_LOG_SESSIONS = frozenset({"manual"})  # `remember` writes its turn block with this session
_RECALLED_RE = re.compile(r"\s*\(recalled \d+x\)\s*$", re.IGNORECASE)
_STEM = 5  # words match on their first letters ("works" and "working")


class Tracing(Protocol):
    """What a card reads (the Review service, or a whole home): the pages through the vault model, the
    logs, the transcripts, the tombstones that hide forgotten text, and search for a hit named by id."""

    @property
    def layout(self) -> Layout: ...
    @property
    def vault(self) -> Vault: ...
    @property
    def archive(self) -> Archive: ...
    @property
    def transcripts(self) -> Transcripts: ...
    @property
    def tombstones(self) -> Tombstones: ...
    @property
    def search(self) -> Search: ...


class ProvenanceError(ValueError):
    """The text or place asked about cannot be found; the message says what was looked for."""


# -- line identity ----------------------------------------------------------------------------------
def line_keys(line: str) -> list[str]:
    """The identities one page or MEMORY.md line has: its words as a fact (dates, strike-through,
    markup and bookkeeping left out), and each of its sentences."""
    text = _RECALLED_RE.sub("", line.rstrip())
    keys: list[str] = []
    for piece in line_texts(text):
        key = dup_norm(piece)
        if key and key not in keys:
            keys.append(key)
    return keys


def source_id(date: str, text: str) -> str:
    return f"{date}|{normalize(text)}"


# -- the record ------------------------------------------------------------------------------------
def _own_file(layout: Layout) -> Path:
    return layout.state_dir / f"{STREAM}{layout.device_suffix}.jsonl"


def _records(layout: Layout) -> list[dict[str, Any]]:
    paths = [p.path for p in streams.parts(layout.state_dir, ".jsonl", STREAM)]
    return streams.merge_records(streams.read_texts(paths))


def _append(layout: Layout, records: list[dict[str, Any]]) -> None:
    if not records:
        return
    path = _own_file(layout)
    path.parent.mkdir(parents=True, exist_ok=True)
    existing = path.read_bytes() if path.exists() else b""
    prefix = "\n" if existing and not existing.endswith(b"\n") else ""
    payload = prefix + "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    with path.open("a", encoding="utf-8") as handle:  # append-only, like every stream
        handle.write(payload)


def _now() -> str:
    return dt.datetime.now().astimezone().isoformat(timespec="seconds")


@dataclass(frozen=True)
class Source:
    """A daily-log fact a line stands for."""

    date: str
    text: str
    line: int | None = None
    turn: str | None = None  # the transcript turn's id; None: typed by hand

    @property
    def id(self) -> str:
        return source_id(self.date, self.text)


@dataclass
class Record:
    """The sidecar record read back: line identity → the facts it stands for, and renames."""

    sources: dict[str, dict[str, Source]] = field(default_factory=dict)  # key -> source id -> Source
    aliases: dict[str, set[str]] = field(default_factory=dict)  # new key -> keys it was before
    first_seen: dict[str, str] = field(default_factory=dict)  # key -> when the record first named it

    def of(self, key: str, _seen: frozenset[str] = frozenset()) -> dict[str, Source]:
        found = dict(self.sources.get(key, {}))
        for old in self.aliases.get(key, ()):  # an edited line keeps the sources of its old words
            if old not in _seen:
                found.update(self.of(old, _seen | {key}))
        return found


def load_record(layout: Layout) -> Record:
    record = Record()
    for item in _records(layout):
        key = item.get("key")
        if not isinstance(key, str):
            continue
        if isinstance(item.get("from"), str):
            record.aliases.setdefault(key, set()).add(item["from"])
            continue
        date, text = item.get("date"), item.get("text")
        if not isinstance(date, str) or not isinstance(text, str):
            continue
        line, turn = item.get("line"), item.get("turn")
        source = Source(date, text, line if isinstance(line, int) else None, turn if isinstance(turn, str) else None)
        record.sources.setdefault(key, {}).setdefault(source.id, source)
        record.first_seen.setdefault(key, str(item.get("ts", "")))
    return record


def record_alias(layout: Layout, new_line: str, old_line: str) -> None:
    """A line was reworded by a person (the Review pane's Edit): its new words keep the old ones' sources."""
    olds = line_keys(old_line)
    _append(layout, [{"ts": _now(), "key": key, "from": olds[0]} for key in line_keys(new_line)[:1] if olds
                     and key != olds[0]])


def record_held(layout: Layout, logs: LogFacts | None = None) -> int:
    """After a productive dream: add to the record where pages hold each consolidated fact
    (``.state/held_facts.json``, which the dream has just brought up to date, merged and moved
    facts included). Returns how many pairs were new."""
    record = load_record(layout)
    new: list[dict[str, Any]] = []
    for held in lost_facts.load(layout):
        key = dup_norm(held.holds)
        if not key or source_id(held.date, held.text) in record.sources.get(key, {}):
            continue
        logs = logs if logs is not None else LogFacts.read(layout)
        fact = logs.find(held.date, held.text)
        new.append({"ts": _now(), "key": key, "date": held.date, "text": held.text,
                    "line": fact.line if fact is not None else held.line,
                    "turn": fact.fact.turn if fact is not None else None})
        record.sources.setdefault(key, {})[source_id(held.date, held.text)] = Source(held.date, held.text)
    _append(layout, new)
    return len(new)


# -- the daily logs, as facts to match ------------------------------------------------------------
@dataclass
class LogFacts:
    """Every fact of every daily log, found by its words and by its subject."""

    by_key: dict[str, list[tuple[str, FactLine]]] = field(default_factory=dict)
    by_relation: dict[str, list[tuple[str, FactLine]]] = field(default_factory=dict)
    by_id: dict[str, tuple[str, FactLine]] = field(default_factory=dict)

    @classmethod
    def read(cls, layout: Layout) -> LogFacts:
        from suzent_desktop.core.files.records.archive import Archive

        archive = Archive(layout)
        logs = cls()
        for date in archive.dates():
            try:
                parsed = archive.read(date)
            except (OSError, ValueError):
                continue
            for fact in parsed.facts:
                logs.add(date, fact)
        return logs

    def add(self, date: str, fact: FactLine) -> None:
        self.by_key.setdefault(dup_norm(fact.fact.content), []).append((date, fact))
        self.by_id.setdefault(source_id(date, fact.fact.content), (date, fact))
        relation = subject_value(fact.fact.content)
        if relation is not None:
            self.by_relation.setdefault(relation.key, []).append((date, fact))

    def find(self, date: str, text: str) -> FactLine | None:
        found = self.by_id.get(source_id(date, text))
        return found[1] if found is not None else None

    def matching(self, piece: str) -> list[tuple[str, FactLine]]:
        """Facts that ``piece`` states by the exact rules: the same words, else the same subject and value."""
        same = self.by_key.get(dup_norm(piece), [])
        if same:
            return list(same)
        relation = subject_value(piece)
        if relation is None:
            return []
        return [(d, f) for d, f in self.by_relation.get(relation.key, []) if restates(piece, f.fact.content)]


# -- the card ---------------------------------------------------------------------------------------
@dataclass
class TurnSide:
    """One turn as the card shows it: who spoke, when, what."""

    id: str
    ts: str
    session: str
    user: str
    assistant: str
    path: str
    line: int


@dataclass
class TurnView(TurnSide):
    speaker: str = "user"  # the side that holds the sentence
    sentence: str = ""
    start: int = 0  # the sentence's span in that side's text
    end: int = 0
    before: TurnSide | None = None
    after: TurnSide | None = None


@dataclass
class SourceView:
    date: str
    fact: str
    log_line: int | None
    log_path: str
    turn: TurnView | None
    typed_by_hand: str | None  # "remember" when the fact carries no turn


@dataclass
class Place:
    page: str  # vault-relative path, or "MEMORY.md"
    line: int
    text: str


@dataclass
class Card:
    """Everything a person needs to check one line of their memory."""

    text: str
    kind: str  # "page" | "memory" | "log" | "transcript"
    path: str
    line: int | None
    sources: list[SourceView] = field(default_factory=list)
    typed_by_hand: str | None = None  # "editor" when no log fact stands behind the line
    recorded: bool = False  # the sources come from the dream's record (else from matching words)
    other_pages: list[Place] = field(default_factory=list)

    @property
    def reaches_turn(self) -> bool:
        return any(s.turn is not None for s in self.sources)

    def as_json(self) -> dict[str, Any]:
        document = asdict(self)
        document["reaches_turn"] = self.reaches_turn
        return document


def _side(turn: TranscriptTurn) -> TurnSide:
    return TurnSide(turn.id, turn.ts, turn.session, turn.user, turn.assistant, str(turn.path), turn.line)


def _stems(text: str) -> set[str]:
    return {w[:_STEM] for w in content_words(text) if len(w) > 1}


def best_sentence(fact: str, turn: TranscriptTurn) -> tuple[str, str, int, int]:
    """(speaker, sentence, start, end): the sentence of the turn sharing most words with ``fact``."""
    wanted = _stems(fact)
    best = ("user", "", 0, 0, -1.0)
    for speaker, text in (("user", turn.user), ("assistant", turn.assistant)):
        start = 0
        for piece in SENTENCE_END.split(text):
            at = text.find(piece, start)
            start = at + len(piece) if at >= 0 else start
            if not piece.strip() or at < 0:
                continue
            score = len(wanted & _stems(piece)) - (0.5 if speaker == "assistant" else 0.0)
            if score > best[4]:
                best = (speaker, piece, at, at + len(piece), score)
    return best[:4]


def page_texts(home: Tracing) -> dict[str, str]:
    """Every page of the vault (vault path -> text) as the vault model holds it: read once, then
    only what changed (the window's model), never a walk of its own."""
    from suzent_desktop.core.vault.model import Kind

    model = home.vault.current()
    return {model.rel(path): text for path in model.files(Kind.PAGE)
            if path.suffix.lower() == ".md" and (text := model.text(path)) is not None}


class Provenance:
    """The files read once, to build any number of cards (build it off the GUI thread)."""

    def __init__(self, home: Tracing, *, pages: dict[str, str] | None = None) -> None:
        self.home = home
        layout = home.layout
        self.record = load_record(layout)
        self.logs = LogFacts.read(layout)
        self.forgotten = Forgotten(home.tombstones.contents())
        self.pages = pages if pages is not None else page_texts(home)
        self._lines: dict[str, list[Place]] = {}
        for rel, text in self.pages.items():
            for number, line in enumerate(text.splitlines(), start=1):
                for key in line_keys(line):
                    self._lines.setdefault(key, []).append(Place(rel, number, line.strip()))
        try:
            memory = layout.memory_md.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError):
            memory = ""
        for number, line in enumerate(memory.splitlines(), start=1):
            for key in line_keys(line) if line.lstrip().startswith(("- ", "* ")) else ():
                self._lines.setdefault(key, []).append(Place("MEMORY.md", number, line.strip()))
        self._days: dict[str, list[TranscriptTurn]] = {}
        self._turn_day: dict[str, str] | None = None

    # -- the sources of a line
    def _forgotten(self, text: str) -> bool:
        return self.forgotten.holds(text)

    def sources_of(self, line: str) -> tuple[list[Source], bool]:
        """The facts a line stands for, and whether they come from the record."""
        found: dict[str, Source] = {}
        for key in line_keys(line):
            found.update(self.record.of(key))
        if found:
            return sorted(found.values(), key=lambda s: (s.date, s.line or 0)), True
        for piece in line_texts(_RECALLED_RE.sub("", line)):
            for date, fact in self.logs.matching(piece):
                found.setdefault(source_id(date, fact.fact.content),
                                 Source(date, fact.fact.content, fact.line, fact.fact.turn))
            if found:
                break
        return sorted(found.values(), key=lambda s: (s.date, s.line or 0)), False

    # -- transcripts
    def _turns(self, date: str) -> list[TranscriptTurn]:
        if date not in self._days:
            try:
                self._days[date] = self.home.transcripts.read(date).turns
            except OSError:
                self._days[date] = []
        return self._days[date]

    def _find_turn(self, turn_id: str, date: str) -> tuple[list[TranscriptTurn], int] | None:
        turns = self._turns(date)
        for index, turn in enumerate(turns):
            if turn.id == turn_id:
                return turns, index
        if self._turn_day is None:  # a turn filed on another day (a capture near midnight)
            self._turn_day = {t.id: t.date for d in self.home.transcripts.dates() for t in self._turns(d)}
        other = self._turn_day.get(turn_id)
        return self._find_turn(turn_id, other) if other is not None and other != date else None

    def _shown(self, turn: TranscriptTurn) -> bool:
        """A turn a card may show: not forgotten, and holding no forgotten text."""
        return _turn_shown(turn, self.forgotten)

    def turn_view(self, turn_id: str, date: str, fact: str) -> TurnView | None:
        if self.forgotten.holds(turn_key(turn_id)):
            return None
        found = self._find_turn(turn_id, date)
        if found is None:
            return None
        turns, index = found
        turn = turns[index]
        if not self._shown(turn):
            return None
        speaker, sentence, start, end = best_sentence(fact, turn)
        before = next((_side(t) for t in reversed(turns[:index]) if self._shown(t)), None)
        after = next((_side(t) for t in turns[index + 1:] if self._shown(t)), None)
        return TurnView(**asdict(_side(turn)), speaker=speaker, sentence=sentence, start=start, end=end,
                        before=before, after=after)

    def _source_view(self, source: Source) -> SourceView:
        turn_id = source.turn
        fact = self.logs.find(source.date, source.text)
        if turn_id is None and fact is not None:
            turn_id = fact.fact.turn
        line = fact.line if fact is not None else source.line
        view = self.turn_view(turn_id, source.date, source.text) if turn_id else None
        return SourceView(source.date, source.text, line, str(self.home.archive.path_for(source.date)), view,
                          None if turn_id else "remember")

    # -- cards
    def card(self, text: str, *, kind: str = "page", path: str = "", line: int | None = None) -> Card:
        """The card of one line: a page bullet, a MEMORY.md line, a log fact or a transcript turn."""
        card = Card(text=text.strip(), kind=kind, path=path, line=line)
        if kind == "transcript":
            return card
        sources, card.recorded = self.sources_of(text)
        card.sources = [self._source_view(s) for s in sources if not self._forgotten(s.text)]
        if not sources:
            card.typed_by_hand = "editor"
        keys = set(line_keys(text))
        for source in sources:
            keys.add(dup_norm(source.text))
            keys.update(k for k, found in self.record.sources.items() if source.id in found)
        seen: set[tuple[str, int]] = set()
        for key in keys:
            for place in self._lines.get(key, ()):
                if (place.page, place.line) in seen or (place.page == path and place.line == line):
                    continue
                seen.add((place.page, place.line))
                card.other_pages.append(place)
        card.other_pages.sort(key=lambda p: (p.page, p.line))
        return card

    def card_at(self, path: Path | str, line: int) -> Card:
        """The card of line ``line`` (1-based) of a page, MEMORY.md or a daily log."""
        layout = self.home.layout
        file = Path(path)
        if not file.is_absolute():
            file = layout.notebook_dir / file
        try:
            lines = file.read_text(encoding="utf-8-sig").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise ProvenanceError(f"{file}: cannot be read ({exc})") from exc
        if not 1 <= line <= len(lines):
            raise ProvenanceError(f"{file}: has no line {line} (it has {len(lines)})")
        return self.card(lines[line - 1], kind=_kind(layout, file), path=_shown_path(layout, file), line=line)

    def find(self, text: str) -> Card:
        """The card of the line that says ``text``: a page line first, then MEMORY.md, then a log fact."""
        if self._forgotten(text):
            raise ProvenanceError(f"{text!r} is forgotten (forget --undo brings it back)")
        keys = line_keys(text) or [dup_norm(text)]
        for key in keys:
            places = self._lines.get(key)
            if places:
                place = places[0]
                return self.card(place.text, kind="page", path=place.page, line=place.line)
        memory = self.home.layout.memory_md
        try:
            for number, line in enumerate(memory.read_text(encoding="utf-8").splitlines(), start=1):
                if set(line_keys(line)) & set(keys):
                    return self.card(line, kind="memory", path="MEMORY.md", line=number)
        except OSError:
            pass
        if any(self.logs.by_key.get(k) for k in keys):
            return self.card(text, kind="log")
        needle = " ".join(text.lower().split())
        for rel, page in self.pages.items():  # a few words of a longer line
            for number, line in enumerate(page.splitlines(), start=1):
                if needle and needle in " ".join(line.lower().split()) and parse_bullet(line) is not None:
                    return self.card(line.strip(), kind="page", path=rel, line=number)
        for found in self.logs.by_key.values():
            for _date, fact in found:
                words = fact.fact.content
                if needle in " ".join(words.lower().split()) and not self._forgotten(words):
                    return self.card(words, kind="log")
        raise ProvenanceError(f"no page line, MEMORY.md line or log fact says {text!r}")


def _kind(layout: Layout, file: Path) -> str:
    if file == layout.memory_md:
        return "memory"
    if file.is_relative_to(layout.archive_dir):
        return "log"
    if file.is_relative_to(layout.transcripts_dir):
        return "transcript"
    return "page"


def _shown_path(layout: Layout, file: Path) -> str:
    if file == layout.memory_md:
        return "MEMORY.md"
    if file.is_relative_to(layout.notebook_dir):
        return file.relative_to(layout.notebook_dir).as_posix()
    return str(file)


def card_for(home: Tracing, what: str, index: Provenance | None = None) -> Card:
    """The one door for front ends: ``what`` is ``PATH:LINE`` (a page, MEMORY.md or a log, as
    ``search`` prints a hit's place) or the text of a line."""
    index = index or Provenance(home)
    place = re.match(r"^(?P<path>.+):(?P<line>\d+)$", what.strip())
    if place is not None:
        path = Path(place.group("path")).expanduser()
        if not path.is_absolute() and path.name == "MEMORY.md" and not (home.layout.notebook_dir / path).exists():
            path = home.layout.memory_md
        candidate = path if path.is_absolute() else home.layout.notebook_dir / path
        if candidate.is_file():
            return index.card_at(candidate, int(place.group("line")))
    return index.find(what)


def cards_for(home: Tracing, lines: Iterable[tuple[str, str, int | None]]) -> list[Card]:
    """Cards of many (text, kind, line) at once, the files read once."""
    index = Provenance(home)
    return [index.card(text, kind=kind, line=line) for text, kind, line in lines]


_HIT_KINDS = {"notebook": "page", "core": "memory", "archive": "log", "transcript": "transcript"}


def card_for_hit(home: Tracing, hit: Any, index: Provenance | None = None) -> Card:
    """The card of a search hit (its first place: the page when one holds the fact)."""
    index = index or Provenance(home)
    if hit.line and Path(hit.path).is_file() and hit.source_type in ("notebook", "core"):
        try:
            return index.card_at(Path(hit.path), int(hit.line))
        except ProvenanceError:
            pass
    return index.card(hit.text, kind=_HIT_KINDS.get(hit.source_type, "page"), path=_shown_path(home.layout, Path(hit.path)),
                      line=hit.line)


async def why(home: Tracing, what: str) -> Card:
    """``why TEXT|HIT_ID``: a search hit's id (as ``search_memory`` gives it), ``PATH:LINE``, or words."""
    import asyncio

    what = what.strip()
    if not what:
        raise ProvenanceError("nothing to explain: give the words of a memory, PATH:LINE or a hit's id")
    if len(what) == 32 and all(c in "0123456789abcdef" for c in what):
        hit = await home.search.hit_by_id(what)
        if hit is None:
            raise ProvenanceError(f"hit id {what!r}: no such memory (forgotten already, or its text changed); search again")
        return await asyncio.to_thread(card_for_hit, home, hit)
    return await asyncio.to_thread(card_for, home, what)


def visible_turns(home: Tracing, date: str) -> list[TranscriptTurn]:
    """A day's turns as a person may see them: forgotten turns, and turns holding forgotten text, left out."""
    forgotten = Forgotten(home.tombstones.contents())
    try:
        turns = home.transcripts.read(date).turns
    except OSError:
        return []
    return [t for t in turns if _turn_shown(t, forgotten)]


def _turn_shown(turn: TranscriptTurn, forgotten: Forgotten) -> bool:
    """Not forgotten (its key), and holding no forgotten text on either side."""
    return not forgotten.holds(turn_key(turn.id)) and not forgotten.holds(f"{turn.user}\n{turn.assistant}")
