"""Benchmark: is the memory worth reading? Precision of pages and MEMORY.md on real conversations.

Reads LoCoMo conversations (multi-session chats between two people, with questions and
answers) from the folder named by ``$SUZENT_LOCOMO_DIR`` (files ``NN.json``); without it the
script prints a skip line and exits 0. Each conversation is replayed into a fresh home as an
agent would capture it:

* **the user** is the conversation's ``speaker_a``; the other speaker plays the assistant;
* a **turn** is a run of the user's messages followed by the other speaker's reply (a reply that
  opens a session before the user spoke is a turn with an empty user side);
* each turn is captured through the real path (transcript, offline extraction, daily log,
  index) at its session's date and time, one minute after the previous turn;
* "today" is the day after the last session, so one offline dream consolidates everything.

Printed per conversation, for the tuning pair (42, 43), the held-out pair (44, 47) and all:

* **page-bullet precision** on a stable sample of page bullets (per conversation the
  :data:`SAMPLE_PER_CONVERSATION` bullets whose ids sort first; an id is a hash of the bullet's
  text as a reader sees it, a link read as its words) and **MEMORY.md precision** over every MEMORY.md line, judged by the labels in
  ``bench/data/precision_labels.tsv`` (criteria at its top). Bullets without a label are counted
  and listed with ``--unlabelled``: label them before reading the precision;
* the share of bullets on **catch-all pages** (General, Misc, Other, …);
* **answer in top 5** on the conversation's questions (categories 1–4: single-hop, temporal,
  multi-hop, open-domain; category 5 has no answer) before and after the dream, next to BM25
  over the raw turns at top 5 and at the same character budget as the app's five hits;
* extraction coverage (facts written, turns with a fact), **bullets per 100 user turns** and
  **extraction time per turn** (wall clock of the capture calls, the one timed figure);
* for the **questions about the user** (they name ``speaker_a`` and not the other speaker), the
  share whose exact answer stands in one line of the pages or MEMORY.md, in one of LoCoMo's
  observations (``session_N_observation``: the facts a strong model noted from the same turns) and
  in one raw turn: how much of what a model's notes keep the pages keep.

The held-out pair is the **frozen part**: tune on 42 and 43, then run 44 and 47 without changing
anything; its block is printed last and marked.

Usage: ``SUZENT_LOCOMO_DIR=/path/to/locomo python bench/precision.py [--conversations 42,43]
[--unlabelled] [--dump FILE] [--model hashing|bundled] [--extractor offline|observations]``. With ``--memorybank`` it replays instead
the chats of MemoryBank (``$SUZENT_MEMORYBANK_FILE``, see :func:`memorybank_conversations`): other
material to tune the fact rules on; its bullets have no committed labels, so read them with ``--dump``.
Figures are exact for the data, code and embedder, except the extraction time per turn.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import hashlib
import json
import os
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from recall import BM25  # noqa: E402

ENV = "SUZENT_LOCOMO_DIR"
MEMORYBANK_ENV = "SUZENT_MEMORYBANK_FILE"
LABELS = Path(__file__).resolve().parent / "data" / "precision_labels.tsv"
TUNE, HELD_OUT = ("42", "43"), ("44", "47")
SAMPLE_PER_CONVERSATION = 60
TOP_K = 5
ANSWERED_CATEGORIES = {1, 2, 3, 4}
CATCH_ALL = frozenset({"general", "misc", "miscellaneous", "other", "others", "notes", "uncategorized", "various"})
PERSONAL = "3_Personal"


_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "a an the and or of to in on at for with by from is are was were be been it its that this as his her their "
    "he she they them i you we my your our has have had do does did not no so".split()
)


def stems(text: str) -> set[str]:
    """Content words of a text cut to five letters ("paintings" ~ "painting", "2022" stays)."""
    return {w[:5] for w in _WORD.findall(text.lower()) if w not in _STOP}


def answered(question: dict, texts: list[str]) -> bool:
    """Every content word of the answer (by stem) is somewhere in the texts: LoCoMo's answers are
    phrases ("Watching movies, making desserts") that a hit states in its own words and order."""
    found = stems(" ".join(texts))
    return any(stems(a) and stems(a) <= found for a in question["answers"])


def bullet_id(text: str) -> str:
    """A label's key: stable across runs for the same bullet text (case and spacing ignored)."""
    return hashlib.sha1(" ".join(text.lower().split()).encode("utf-8")).hexdigest()[:12]


def load_labels(path: Path = LABELS) -> dict[str, bool]:
    labels: dict[str, bool] = {}
    if not path.is_file():
        return labels
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) < 2 or parts[1] not in ("keep", "noise"):
            raise SystemExit(f"{path}:{number}: expected 'id<TAB>keep|noise', got {line!r}")
        labels[parts[0]] = parts[1] == "keep"
    return labels


# -- replaying a conversation --------------------------------------------------------------------
@dataclass
class Turn:
    user: str
    assistant: str
    session: str
    when: dt.datetime
    ids: tuple[str, ...] = ()  # the dia_ids of the user's messages

    @property
    def raw(self) -> str:
        return f"User: {self.user}\nAssistant: {self.assistant}"


def session_time(text: str) -> dt.datetime:
    return dt.datetime.strptime(" ".join(text.split()), "%I:%M %p on %d %B, %Y")


def turns_of(conversation: dict, name: str) -> list[Turn]:
    """Turn pairs in order: the user's messages, then the other speaker's reply (see the docstring)."""
    user = conversation["speaker_a"]
    numbers = sorted(int(k.split("_")[1]) for k in conversation if re.fullmatch(r"session_\d+", k))
    turns: list[Turn] = []
    for number in numbers:
        start = session_time(conversation[f"session_{number}_date_time"])
        session = f"locomo{name}s{number:02d}"
        pairs: list[tuple[list[str], list[str], list[str]]] = []
        for message in conversation[f"session_{number}"]:
            text = message.get("text", "")
            if message.get("blip_caption"):
                text = f"{text} [shares a photo of {message['blip_caption']}]"
            mine = message["speaker"] == user
            if not pairs or (mine and pairs[-1][1]):
                pairs.append(([], [], []))
            pairs[-1][0 if mine else 1].append(text)
            if mine:
                pairs[-1][2].append(message.get("dia_id", ""))
        for minute, (said, replied, ids) in enumerate(pairs):
            turns.append(Turn(" ".join(said), " ".join(replied), session, start + dt.timedelta(minutes=minute),
                              tuple(ids)))
    return turns


def questions_of(conversation: dict) -> list[dict]:
    user, other = (conversation[k].split()[0] for k in ("speaker_a", "speaker_b"))
    out = []
    for index, qa in enumerate(conversation["qa"]):
        if qa.get("category") in ANSWERED_CATEGORIES and "answer" in qa:
            names = set(_NAME.findall(qa["question"]))
            out.append({"id": str(index), "question": qa["question"], "answers": [str(qa["answer"])],
                        "about_user": user in names and other not in names})
    return out


_NAME = re.compile(r"[A-Z][a-z]+")


def observations_of(conversation: dict) -> list[str]:
    """LoCoMo's observations of every session, both speakers: what a strong model noted."""
    return [item[0] for key, by_speaker in conversation.items() if re.fullmatch(r"session_\d+_observation", key)
            for items in by_speaker.values() for item in items if item and isinstance(item[0], str)]


def user_observations(conversation: dict) -> dict[str, list[str]]:
    """The observations about the user by the turn they cite, in the log's form ("Joanna's …" →
    "User's …"): what ``--extractor observations`` answers in place of an extraction model."""
    name = conversation["speaker_a"].split()[0]
    by_turn: dict[str, list[str]] = {}
    for key, by_speaker in conversation.items():
        if not re.fullmatch(r"session_\d+_observation", key):
            continue
        for item in by_speaker.get(conversation["speaker_a"], []):
            if len(item) > 1 and isinstance(item[0], str):
                for cited in item[1] if isinstance(item[1], list) else [item[1]]:
                    by_turn.setdefault(cited, []).append(re.sub(rf"\b{re.escape(name)}\b", "User", item[0]))
    return by_turn


class ObservationModel:
    """Stands in for an extraction model: each turn's answer is the observations citing it. It
    measures the dream on the facts a strong model would write, through the real model path."""

    def __init__(self, by_turn: dict[str, list[str]]) -> None:
        self.by_turn = by_turn
        self.current: list[str] = []

    def turn(self, turn: Turn) -> None:
        self.current = [text for i in turn.ids for text in self.by_turn.get(i, [])]

    async def complete_json(self, model: str, messages: list, **_: object) -> dict:
        return {"facts": [{"category": "general", "content": text} for text in self.current]}


def stands_in(question: dict, lines: list[str]) -> bool:
    """The exact answer stands in one of the lines (not spread over several)."""
    return any(answered(question, [line]) for line in lines)


# -- what a person reads -------------------------------------------------------------------------
@dataclass
class Result:
    name: str
    bullets: list[tuple[str, str]] = field(default_factory=list)  # (page, text)
    memory_lines: list[str] = field(default_factory=list)
    before: dict[str, bool] = field(default_factory=dict)
    after: dict[str, bool] = field(default_factory=dict)
    bm25: dict[str, bool] = field(default_factory=dict)
    bm25_budget: dict[str, bool] = field(default_factory=dict)
    lost: list[tuple[str, list[str], list[str]]] = field(default_factory=list)  # found before, not after
    about_user: dict[str, tuple[bool, bool, bool]] = field(default_factory=dict)  # (pages, observations, raw)
    facts: int = 0
    turns: int = 0
    user_turns: int = 0
    turns_with_fact: int = 0
    extraction_seconds: float = 0.0

    @property
    def sample(self) -> list[tuple[str, str]]:
        ordered = sorted({bullet_id(t): (p, t) for p, t in self.bullets}.items())
        return [pt for _, pt in ordered[:SAMPLE_PER_CONVERSATION]]


def page_bullets(notebook: Path) -> list[tuple[str, str]]:
    """(page, text) of every current bullet, a link read as the words it shows: the label is about
    what the line says, and "[[Piano|piano]]" says "piano"."""
    from suzent_desktop.core.files.language.markdown import links, only_links
    from suzent_desktop.core.vault.facts.fact_pages import PageDoc

    root = notebook / PERSONAL
    found = []
    for path in sorted(root.rglob("*.md")) if root.is_dir() else []:
        for bullet in PageDoc.parse(path.read_text(encoding="utf-8")).current_bullets():
            if bullet.text and not only_links(bullet.text):
                text = bullet.text
                for link in reversed(links(text)):
                    text = text[: link.start] + link.label + text[link.end:]
                found.append((path.stem, text))
    return found


def memory_lines(memory_md: Path) -> list[str]:
    if not memory_md.is_file():
        return []
    lines = []
    for line in memory_md.read_text(encoding="utf-8").splitlines():
        text = line.strip()
        if text.startswith(("- ", "* ")):
            lines.append(text[2:].strip())
    return lines


async def replay(name: str, conversation: dict, model: str, extractor: str = "offline") -> Result:
    from suzent_desktop.core.files.clock import Clock
    from suzent_desktop.core.manager import MemoryManager

    turns = turns_of(conversation, name)
    questions = questions_of(conversation)
    today = max(t.when for t in turns).date() + dt.timedelta(days=1)
    os.environ["SUZENT_TODAY"] = today.isoformat()
    os.environ["SUZENT_EMBEDDING_MODEL"] = "hashing" if model == "hashing" else ""
    observer = ObservationModel(user_observations(conversation))
    if extractor == "observations":
        from suzent_desktop.core import llm

        os.environ["SUZENT_EXTRACTION_MODEL"] = "observations"
        llm.complete_json = observer.complete_json  # type: ignore[assignment]
    home = Path(tempfile.mkdtemp(prefix=f"suzent-precision-{name}-"))
    manager = MemoryManager.open(home, clock=Clock(fixed_today=today))
    result = Result(name=name, turns=len(turns))
    result.user_turns = sum(1 for turn in turns if turn.user.strip())
    for turn in turns:
        observer.turn(turn)
        started = time.perf_counter()
        facts, _ = await manager.process_conversation_turn_for_memories(turn.user, turn.assistant, turn.session,
                                                                          turn.when)
        result.extraction_seconds += time.perf_counter() - started
        result.facts += len(facts)
        result.turns_with_fact += bool(facts)
    budgets: dict[str, int] = {}
    shown: dict[str, list[str]] = {}
    for question in questions:
        hits = (await manager.searching.search(question["question"], limit=TOP_K, record_recall=False)).hits[:TOP_K]
        result.before[question["id"]] = answered(question, [h.text for h in hits])
        budgets[question["id"]] = sum(len(h.text) for h in hits)
        shown[question["id"]] = [h.text for h in hits]
    await manager.dreaming.runner().run_cycle(force=True)
    for question in questions:
        hits = (await manager.searching.search(question["question"], limit=TOP_K, record_recall=False)).hits[:TOP_K]
        result.after[question["id"]] = answered(question, [h.text for h in hits])
        if result.before[question["id"]] and not result.after[question["id"]]:
            result.lost.append((f"{question['question']} -> {question['answers'][0]}", shown[question["id"]],
                                [h.text for h in hits]))
    docs = [t.raw for t in turns]
    bm25 = BM25(docs)
    for question in questions:
        ranked = bm25.top(question["question"], len(docs))
        result.bm25[question["id"]] = answered(question, [docs[i] for i in ranked[:TOP_K]])
        result.bm25_budget[question["id"]] = answered(question, [within(docs, ranked, budgets[question["id"]])])
    result.bullets = page_bullets(manager.layout.notebook_dir)
    result.memory_lines = memory_lines(manager.layout.memory_md)
    written = [text for _, text in result.bullets] + result.memory_lines
    observations = observations_of(conversation)
    for question in questions:
        if question["about_user"]:
            result.about_user[question["id"]] = (stands_in(question, written), stands_in(question, observations),
                                                 stands_in(question, docs))
    return result


def within(docs: list[str], ranked: list[int], budget: int) -> str:
    """The best-ranked raw turns, in order, cut at ``budget`` characters."""
    text = ""
    for index in ranked:
        if len(text) >= budget:
            break
        text += docs[index][: budget - len(text)] + "\n"
    return text


# -- reporting -----------------------------------------------------------------------------------
def pct(numerator: int, denominator: int) -> str:
    return f"{100.0 * numerator / denominator:5.1f}%" if denominator else "  n/a "


def judged(items: list[str], labels: dict[str, bool]) -> tuple[int, int, list[str]]:
    """(kept, labelled, unlabelled texts)."""
    kept = labelled = 0
    missing = []
    for text in items:
        verdict = labels.get(bullet_id(text))
        if verdict is None:
            missing.append(text)
            continue
        labelled += 1
        kept += verdict
    return kept, labelled, missing


def report(label: str, results: list[Result], labels: dict[str, bool]) -> list[str]:
    sample = [t for r in results for _, t in r.sample]
    memory = [t for r in results for t in r.memory_lines]
    bullets = [b for r in results for b in r.bullets]
    kept, labelled, missing = judged(sample, labels)
    mkept, mlabelled, mmissing = judged(memory, labels)
    catch_all = sum(1 for page, _ in bullets if page.lower() in CATCH_ALL)
    pages = Counter(page for page, _ in bullets)
    n = sum(len(r.before) for r in results)

    def share(attr: str) -> str:
        return pct(sum(sum(getattr(r, attr).values()) for r in results), n)

    print(f"\n== {label} (conversations {', '.join(r.name for r in results)})")
    print(f"  page-bullet precision  {pct(kept, labelled)}  ({kept}/{labelled} labelled of a {len(sample)}-bullet "
          f"sample; {len(missing)} unlabelled; {len(bullets)} bullets on {len(pages)} pages)")
    print(f"  MEMORY.md precision    {pct(mkept, mlabelled)}  ({mkept}/{mlabelled} labelled lines; "
          f"{len(mmissing)} unlabelled)")
    print(f"  catch-all pages        {pct(catch_all, len(bullets))}  ({catch_all} bullets); biggest pages: "
          + ", ".join(f"{p} {c}" for p, c in pages.most_common(4)))
    print(f"  answer in top {TOP_K} (n={n}): before dream {share('before')}  after dream {share('after')}  "
          f"raw BM25 {share('bm25')}  raw BM25 same chars {share('bm25_budget')}")
    facts = sum(r.facts for r in results)
    turns = sum(r.turns for r in results)
    with_fact = sum(r.turns_with_fact for r in results)
    user_turns = sum(r.user_turns for r in results)
    seconds = sum(r.extraction_seconds for r in results)
    print(f"  extraction: {facts} facts from {turns} turns; turns with a fact {pct(with_fact, turns)}; "
          f"{per_100(len(bullets), user_turns)} bullets per 100 user turns ({user_turns}); "
          f"{1000 * seconds / max(turns, 1):.1f} ms per turn")
    about = [v for r in results for v in r.about_user.values()]
    where = [sum(v[i] for v in about) for i in range(3)]
    print(f"  questions about the user (n={len(about)}), exact answer in one line of: pages or MEMORY.md "
          f"{pct(where[0], len(about))}  observations {pct(where[1], len(about))}  raw turns "
          f"{pct(where[2], len(about))}  (pages/observations {pct(where[0], where[1])})")
    return missing + mmissing


def per_100(count: int, turns: int) -> str:
    return f"{100.0 * count / turns:.1f}" if turns else "n/a"


def memorybank_conversations(path: Path) -> dict[str, dict]:
    """The user–companion chats of MemoryBank (``eval_data/en/memory_bank_en.json`` in the public
    MemoryBank-SiliconFriend repository: fifteen users, ten days each) in LoCoMo's shape: a session a
    day at 10:00, the user as ``speaker_a``, no questions. Other material than LoCoMo to tune the fact
    rules on, without spending the held-out conversations."""
    conversations: dict[str, dict] = {}
    for raw_name, person in json.loads(path.read_text(encoding="utf-8")).items():
        name = "_".join(raw_name.split())
        conversation: dict = {"speaker_a": name, "speaker_b": "Companion", "qa": []}
        for number, (day, pairs) in enumerate(sorted(person["history"].items()), 1):
            start = dt.datetime.strptime(day, "%Y-%m-%d").replace(hour=10)
            conversation[f"session_{number}_date_time"] = start.strftime("%I:%M %p on %d %B, %Y")
            conversation[f"session_{number}"] = [
                message for pair in pairs
                for message in ({"speaker": name, "text": pair["query"]}, {"speaker": "Companion", "text": pair["response"]})
            ]
        conversations[name] = conversation
    return conversations


def chosen_conversations(args: argparse.Namespace) -> dict[str, dict] | str:
    """The conversations to replay by name, or why there are none (a skip line)."""
    if args.memorybank:
        path = os.environ.get(MEMORYBANK_ENV)
        if not path or not Path(path).is_file():
            return f"skip: set {MEMORYBANK_ENV} to MemoryBank's memory_bank_en.json to replay its chats"
        return memorybank_conversations(Path(path))
    folder = os.environ.get(ENV)
    if not folder or not Path(folder).is_dir():
        return f"skip: set {ENV} to a folder of LoCoMo conversations (NN.json) to run this benchmark"
    names = [n.strip() for n in args.conversations.split(",") if n.strip()]
    names = [n for n in names if (Path(folder) / f"{n}.json").is_file()]
    if not names:
        return f"skip: none of the conversations asked for is in {folder}"
    return {n: json.loads((Path(folder) / f"{n}.json").read_text(encoding="utf-8")) for n in names}


async def run(args: argparse.Namespace) -> int:
    chosen = chosen_conversations(args)
    if isinstance(chosen, str):
        print(chosen)
        return 0
    labels = load_labels()
    results = [await replay(name, conversation, args.model, args.extractor) for name, conversation in chosen.items()]
    print(f"user = speaker_a of each conversation; extractor {args.extractor}; embedder {args.model}; labels {len(labels)} "
          f"({LABELS.name}); sample {SAMPLE_PER_CONVERSATION} bullets per conversation")
    missing: list[str] = []
    for result in results:
        missing += report(result.name, [result], labels)
    if len(results) > 1:
        report("all", results, labels)
    for label, group in (("tuning", TUNE), ("held out: the frozen part", HELD_OUT)):
        members = [r for r in results if r.name in group]
        if len(members) > 1:
            report(label, members, labels)
    if args.unlabelled:
        print("\nunlabelled (id, text):")
        for text in dict.fromkeys(missing):
            print(f"{bullet_id(text)}\t{text}")
    for result in results if args.lost else []:
        for question, before, after in result.lost:
            print(f"\nlost after the dream ({result.name}): {question}")
            print("".join(f"    before: {t[:150]!r}\n" for t in before) + "".join(f"    after:  {t[:150]!r}\n" for t in after))
    if args.dump:
        with open(args.dump, "w", encoding="utf-8") as out:
            for result in results:
                for page, text in result.bullets:
                    out.write(f"{result.name}\tpage\t{page}\t{bullet_id(text)}\t{text}\n")
                for text in result.memory_lines:
                    out.write(f"{result.name}\tmemory\tMEMORY\t{bullet_id(text)}\t{text}\n")
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", default=",".join(TUNE + HELD_OUT))
    parser.add_argument("--model", choices=("hashing", "bundled"), default="hashing")
    parser.add_argument("--extractor", choices=("offline", "observations"), default="offline",
                        help="observations: LoCoMo's observations about the user stand in for an extraction model's "
                             "answer (through the model path), to measure the dream on a strong model's facts")
    parser.add_argument("--memorybank", action="store_true",
                        help=f"replay MemoryBank's user-companion chats (${MEMORYBANK_ENV}) instead of LoCoMo")
    parser.add_argument("--unlabelled", action="store_true", help="list sampled bullets and MEMORY.md lines without a label")
    parser.add_argument("--lost", action="store_true", help="show questions answered before the dream and not after")
    parser.add_argument("--dump", help="write every page bullet and MEMORY.md line to this TSV (outside the repo)")
    raise SystemExit(asyncio.run(run(parser.parse_args())))


if __name__ == "__main__":
    main()
