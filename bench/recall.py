"""Benchmark: can the memory answer questions about what the user said?

Captures every turn of bench/data/recall/conversations.jsonl (written by recall_data.py)
through the real capture path (transcript, offline extraction, daily log, index), then for
each question of questions.jsonl searches the memory (top 5) and counts the question as
answerable when a hit contains an accepted answer (normalized containment: lower-cased,
punctuation as spaces; a date as ISO or as a person writes it). It does that before and after a full offline dream, next to two
baselines computed in the same run on the raw turns: BM25 and embedding similarity (same
embedder as the pipeline). It also prints extraction coverage (turns with at least one
fact), a junk rate on the labelled turns (facts taken from turns labelled "none": small
talk, questions to the assistant, promises, other people), facts about "you" or promising
("User will"), and the offline extraction time per turn (no embedding).

Usage: ``python bench/recall.py [--model hashing|bundled] [--data DIR] [--show-misses N] [--show-lost N]``

Figures on a shared machine are noisy (times especially); the recall figures are exact for
the data set and embedder.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import math
import os
import re
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

DATA = Path(__file__).resolve().parent / "data" / "recall"
TOP_K = 5
_WORD = re.compile(r"[a-z0-9]+")


def norm(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def written_forms(answer: str) -> list[str]:
    """An answer as the memory may write it: a date answer ("2026-02-28") also as the capture writes a
    day it resolved ("two days ago (28 February 2026)"); the bullets' provenance stays ISO."""
    try:
        day = dt.date.fromisoformat(answer)
    except ValueError:
        return [answer]
    from suzent_desktop.core.engines.capture.relative_dates import written_day

    return [answer, written_day(day)]


def answered(question: dict, texts: list[str]) -> bool:
    wanted = [norm(form) for a in question["answers"] for form in written_forms(a)]
    return any(f" {a} " in f" {norm(t)} " for t in texts for a in wanted)


def current_first(question: dict, texts: list[str]) -> bool:
    """The first hit holds the current value and none of the values it replaced ("old")."""
    if not texts or not answered(question, texts[:1]):
        return False
    first = f" {norm(texts[0])} "
    return not any(f" {norm(old)} " in first for old in question.get("old", []))


def load(folder: Path) -> tuple[list[dict], list[dict]]:
    def read(name: str) -> list[dict]:
        with (folder / name).open(encoding="utf-8") as handle:
            return [json.loads(line) for line in handle if line.strip()]

    return read("conversations.jsonl"), read("questions.jsonl")


# -- baselines on raw turns ------------------------------------------------------------------------
def raw_text(turn: dict) -> str:
    return f"User: {turn['user']}\nAssistant: {turn['assistant']}"


class BM25:
    """Okapi BM25 over raw turns (k1 = 1.5, b = 0.75), the usual keyword baseline."""

    def __init__(self, docs: list[str], k1: float = 1.5, b: float = 0.75) -> None:
        self.docs = [_WORD.findall(d.lower()) for d in docs]
        self.k1, self.b = k1, b
        self.avg = sum(len(d) for d in self.docs) / max(1, len(self.docs))
        df: Counter[str] = Counter(w for d in self.docs for w in set(d))
        n = len(self.docs)
        self.idf = {w: math.log(1 + (n - f + 0.5) / (f + 0.5)) for w, f in df.items()}
        self.tf = [Counter(d) for d in self.docs]

    def top(self, query: str, k: int) -> list[int]:
        words = _WORD.findall(query.lower())
        scores = []
        for index, (tf, doc) in enumerate(zip(self.tf, self.docs, strict=True)):
            score = 0.0
            for w in words:
                if w in tf:
                    f = tf[w]
                    score += self.idf[w] * f * (self.k1 + 1) / (f + self.k1 * (1 - self.b + self.b * len(doc) / self.avg))
            scores.append((score, index))
        return [i for s, i in sorted(scores, reverse=True)[:k] if s > 0]


def embedding_top(embedder, docs: list[str], queries: list[str], k: int) -> list[list[int]]:
    import numpy as np

    doc_vectors = np.asarray(embedder.embed(docs), dtype=np.float32)
    query_vectors = np.asarray(embedder.embed(queries), dtype=np.float32)
    scores = query_vectors @ doc_vectors.T
    return [list(np.argsort(-row)[:k]) for row in scores]


# -- the pipeline ----------------------------------------------------------------------------------
async def capture_all(manager, turns: list[dict]) -> tuple[dict[str, list], float]:
    facts_of: dict[str, list] = {}
    start = time.perf_counter()
    for turn in turns:
        facts, _ = await manager.process_conversation_turn_for_memories(
            turn["user"], turn["assistant"], turn["session"], dt.datetime.fromisoformat(turn["ts"])
        )
        facts_of[turn["id"]] = facts
    return facts_of, time.perf_counter() - start


async def evaluate(manager, questions: list[dict]) -> tuple[dict[str, bool], list[list[str]], list[list[str]]]:
    """Whether each question is answered in the top hits, their texts, and where each hit stands (for --show-lost)."""
    found: dict[str, bool] = {}
    shown: list[list[str]] = []
    where: list[list[str]] = []
    for question in questions:
        response = await manager.searching.search(question["question"], limit=TOP_K, record_recall=False)
        hits = response.hits[:TOP_K]
        texts = [h.text for h in hits]
        found[question["id"]] = answered(question, texts)
        shown.append(texts)
        where.append([f"{Path(h.path).name}:{h.line} {h.score:.3f}{' (superseded)' if h.superseded else ''}" for h in hits])
    return found, shown, where


def extraction_times(turns: list[dict]) -> list[float]:
    from suzent_desktop.core.engines.capture.fact_judge import drop_cached_vectors
    from suzent_desktop.core.engines.capture.offline import OfflineExtractor

    extractor = OfflineExtractor()
    times = []
    for turn in turns:
        when = dt.datetime.fromisoformat(turn["ts"])
        drop_cached_vectors()  # capture read these lines already; a new turn's lines are not kept
        start = time.perf_counter()
        extractor.extract(turn["user"], turn["assistant"], when=when)
        times.append((time.perf_counter() - start) * 1000)
    return times


def share(hits: dict[str, bool], ids: list[str] | None = None) -> float:
    ids = list(hits) if ids is None else ids
    return 100.0 * sum(hits[i] for i in ids) / max(1, len(ids))


async def run(args: argparse.Namespace) -> None:
    from suzent_desktop.core.files.clock import Clock
    from suzent_desktop.core.manager import MemoryManager

    turns, questions = load(Path(args.data))
    last = max(dt.date.fromisoformat(t["ts"][:10]) for t in turns)
    today = last + dt.timedelta(days=1)
    os.environ["SUZENT_TODAY"] = today.isoformat()
    os.environ["SUZENT_EMBEDDING_MODEL"] = "hashing" if args.model == "hashing" else ""
    home = Path(tempfile.mkdtemp(prefix="suzent-recall-"))
    manager = MemoryManager.open(home, clock=Clock(fixed_today=today))
    print(f"data: {len(turns)} turns, {len({t['session'] for t in turns})} sessions, {len(questions)} questions; "
          f"embedder {manager.embedder.name}; home {home}")

    facts_of, capture_seconds = await capture_all(manager, turns)
    times = extraction_times(turns)
    before, shown_before, where_before = await evaluate(manager, questions)

    runner = manager.dreaming.runner()
    start = time.perf_counter()
    results = await runner.run_cycle(force=True)
    dream_seconds = time.perf_counter() - start
    outcomes = Counter(r.outcome for r in results)
    after, shown_after, where_after = await evaluate(manager, questions)

    docs = [raw_text(t) for t in turns]
    bm25 = BM25(docs)
    bm25_hits = {q["id"]: answered(q, [docs[i] for i in bm25.top(q["question"], TOP_K)]) for q in questions}
    tops = embedding_top(manager.embedder, docs, [q["question"] for q in questions], TOP_K)
    emb_hits = {q["id"]: answered(q, [docs[i] for i in top]) for q, top in zip(questions, tops, strict=True)}

    by_kind: dict[str, list[str]] = defaultdict(list)
    for question in questions:
        by_kind[question["kind"]].append(question["id"])
    print(f"\nanswer in top {TOP_K} (normalized containment), % of questions")
    print(f"{'kind':16}{'n':>5}{'before dream':>14}{'after dream':>13}{'raw BM25':>10}{'raw embed':>11}")
    for kind in sorted(by_kind):
        ids = by_kind[kind]
        print(f"{kind:16}{len(ids):>5}{share(before, ids):>13.1f}%{share(after, ids):>12.1f}%"
              f"{share(bm25_hits, ids):>9.1f}%{share(emb_hits, ids):>10.1f}%")
    print(f"{'all':16}{len(questions):>5}{share(before):>13.1f}%{share(after):>12.1f}%"
          f"{share(bm25_hits):>9.1f}%{share(emb_hits):>10.1f}%")
    # Raw turns never hold the date "yesterday" meant, so show the comparison without those questions too.
    rest = [q["id"] for q in questions if q["kind"] != "event_date"]
    print(f"{'all but dates':16}{len(rest):>5}{share(before, rest):>13.1f}%{share(after, rest):>12.1f}%"
          f"{share(bm25_hits, rest):>9.1f}%{share(emb_hits, rest):>10.1f}%")

    current = [(q, i) for i, q in enumerate(questions) if q["kind"] == "changed"]
    if current:
        print(f"\ncurrent-value questions (kind 'changed', n={len(current)}): the answer changed over time")
        for label, hits, shown in (("before dream", before, shown_before), ("after dream", after, shown_after)):
            top1 = 100.0 * sum(current_first(q, shown[i]) for q, i in current) / len(current)
            top5 = share(hits, [q["id"] for q, _ in current])
            print(f"  {label:13} top-1 {top1:5.1f}%  (first hit holds the current value, no old one)   top-5 {top5:5.1f}%")

    labelled = defaultdict(list)
    for turn in turns:
        labelled[turn["label"]].append(turn["id"])
    all_facts = [f for tid in facts_of for f in facts_of[tid]]
    junk = [f for tid in labelled["none"] for f in facts_of[tid]]
    covered = sum(1 for tid in labelled["fact"] if facts_of[tid])
    about_you = [f for f in all_facts if re.search(r"\byou\b", f.content, re.I)]
    promises = [f for f in all_facts if f.content.startswith("User will")]
    print(f"\nextraction: {len(all_facts)} facts from {len(turns)} turns")
    print(f"  coverage: {covered}/{len(labelled['fact'])} fact-bearing turns have >= 1 fact "
          f"({100.0 * covered / max(1, len(labelled['fact'])):.1f} %); "
          f"all turns with a fact: {sum(1 for v in facts_of.values() if v)}/{len(turns)}")
    print(f"  junk rate: {len(junk)} of {len(all_facts)} facts come from the {len(labelled['none'])} turns labelled "
          f"'none' ({100.0 * len(junk) / max(1, len(all_facts)):.1f} %); facts with 'you': {len(about_you)}; "
          f"'User will …': {len(promises)}")
    for fact in junk[: args.show_junk]:
        print(f"    junk: {fact.content}")
    ordered = sorted(times)
    print(f"\ntimes (noisy shared machine): offline extraction per turn mean {statistics.mean(times):.2f} ms, "
          f"p95 {ordered[int(0.95 * (len(ordered) - 1))]:.2f} ms, max {ordered[-1]:.2f} ms; "
          f"capture incl. transcript, log, index {1000 * capture_seconds / len(turns):.0f} ms/turn; "
          f"dream {dream_seconds:.1f} s ({dict(outcomes)})")
    misses = [(q, s) for q, s in zip(questions, shown_before, strict=True) if not before[q["id"]]]
    for question, texts in misses[: args.show_misses]:
        print(f"\nmiss {question['id']} [{question['kind']}] {question['question']} -> {question['answers']}")
        for text in texts:
            print(f"    {text[:140]!r}")
    lost = [i for i, q in enumerate(questions) if before[q["id"]] and not after[q["id"]]]
    gained = sum(1 for q in questions if after[q["id"]] and not before[q["id"]])
    if args.show_lost:
        print(f"\nlost by the dream: {len(lost)} questions found before and missed after; gained: {gained}")
        print("gained:", ", ".join(q["id"] for q in questions if after[q["id"]] and not before[q["id"]]))
    for i in lost[: args.show_lost]:
        question = questions[i]
        print(f"\nlost {question['id']} [{question['kind']}] {question['question']} -> {question['answers']}")
        for label, shown, where in (("before", shown_before, where_before), ("after", shown_after, where_after)):
            for text, place in zip(shown[i], where[i], strict=True):
                print(f"    {label:6} {place:40} {text[:160]!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=("hashing", "bundled"), default="hashing",
                        help="embedder: the deterministic hashing one (default) or the bundled MiniLM")
    parser.add_argument("--data", default=str(DATA))
    parser.add_argument("--show-misses", type=int, default=0, help="print this many questions missed before the dream")
    parser.add_argument("--show-lost", type=int, default=0,
                        help="print this many questions found before the dream and missed after, with both top hits")
    parser.add_argument("--show-junk", type=int, default=0, help="print this many facts from 'none' turns")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
