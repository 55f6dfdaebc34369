"""Train the fact judge (``suzent_desktop/resources/fact_judge.npz``) and print its scores.

Training data (see SOURCES.md for licences):

* ``sentences.tsv`` next to this script: sentences the project wrote and labelled (keep with a
  subject class, or drop); they alone train the subject model;
* Synthetic-Persona-Chat (Google, CC BY 4.0), from ``$SPC_DIR`` (its ``data`` folder): its persona
  lines and the sentences of its conversations, labelled by a teacher: the hand-written fact rules
  the judge replaces (``fact_rules.py`` at commit :data:`TEACHER`, read from git). The rules were
  precise but missed many facts; the judge learns their sense of small talk from thousands of
  lines, and the project's own sentences (weighted :data:`OWN_WEIGHT` times) correct their misses.

Every sentence goes through the offline extractor's own candidate step (third person, pronouns
resolved, named rules), so the judge learns on the lines it will see.

Measured, never trained on: LoCoMo conversations from ``$SUZENT_LOCOMO_DIR`` (42, 43 to choose the
keep threshold; 44, 47 held out, read once the threshold is frozen). A candidate line of a turn is
a fact when the turn is cited by an observation of its speaker that holds at least half of the
line's content stems. Printed: ROC AUC and, at the threshold, precision and recall of "keep".

Usage: ``SPC_DIR=… SUZENT_LOCOMO_DIR=… python training/fact_judge/train.py [--no-save]``
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from suzent_desktop.core.engines import fact_judge  # noqa: E402
from suzent_desktop.core.engines.extraction import OfflineExtractor  # noqa: E402
from suzent_desktop.core.files import english  # noqa: E402

HERE = Path(__file__).resolve().parent
OUT = ROOT / "suzent_desktop" / "resources" / fact_judge.WEIGHTS
SPC_FILES = ("Synthetic-Persona-Chat_valid.csv", "Synthetic-Persona-Chat_test.csv", "New-Persona-New-Conversations.csv")
OWN_WEIGHT = 20.0  # a sentence the project labelled counts as much as this many weakly labelled ones
TUNE, HELD_OUT = ("42", "43"), ("44", "47")
TEACHER = "150e4e6"  # the last commit with the rule pile
EXTRACTOR = OfflineExtractor()


def content_stems(text: str) -> set[str]:
    return {english.stem(w) for w in english.words(text.lower()) if w not in english.STOPWORDS and len(w) > 2}


def lines_of(sentence: str) -> list[str]:
    return EXTRACTOR.candidates(sentence)


def own_examples() -> list[tuple[str, int, int]]:
    """(line, keep, subject index or -1) from sentences.tsv."""
    out = []
    for row in (HERE / "sentences.tsv").read_text(encoding="utf-8").splitlines():
        if not row.strip() or row.startswith("#"):
            continue
        label, sentence = row.split("\t", 1)
        for line in lines_of(sentence):
            keep = label != "drop"
            out.append((line, int(keep), fact_judge.SUBJECTS.index(label) if keep else -1))
    return out


# The old extractor's categories as the judge's subjects (its "general" teaches nothing).
TEACHER_SUBJECTS = {"identity": "identity", "health": "health", "work": "work", "place": "place", "people": "person",
                    "preference": "preference", "activity": "hobby", "routine": "hobby", "plan": "plan",
                    "event": "event", "date": "event"}


def teacher():
    """The old rule pile's ``problem(line)`` and the old extractor, loaded from git as private modules."""
    folder = Path(tempfile.mkdtemp())
    for name in ("fact_rules", "lexicon", "extraction"):
        text = subprocess.run(["git", "-C", str(ROOT), "show", f"{TEACHER}:suzent_desktop/core/engines/{name}.py"],
                              check=True, capture_output=True, text=True).stdout
        text = text.replace("suzent_desktop.core.engines.lexicon", "teacher_lexicon").replace(
            "from suzent_desktop.core.engines import fact_rules, relative_dates",
            "import teacher_fact_rules as fact_rules\nfrom suzent_desktop.core.engines import relative_dates")
        (folder / f"teacher_{name}.py").write_text(text, encoding="utf-8")
    sys.path.insert(0, str(folder))
    import teacher_extraction  # type: ignore[import-not-found]
    import teacher_fact_rules  # type: ignore[import-not-found]

    extractor = teacher_extraction.OfflineExtractor()

    def subject(sentence: str) -> int:
        category = extractor._category(teacher_extraction._expand(sentence))[0]
        return fact_judge.SUBJECTS.index(TEACHER_SUBJECTS[category]) if category in TEACHER_SUBJECTS else -1

    return teacher_fact_rules.problem, subject


def spc_examples(folder: Path) -> list[tuple[str, int, int]]:
    """Persona lines and conversation sentences of Synthetic-Persona-Chat, labelled by the teacher."""
    problem, subject = teacher()
    sentences: list[str] = []
    for name in SPC_FILES:
        with (folder / name).open(encoding="utf-8", newline="") as handle:
            for row in csv.reader(handle):
                if len(row) < 3 or row[0] == "user 1 personas":
                    continue
                sentences += [p for p in (row[0] + "\n" + row[1]).splitlines() if p.strip()]
                for turn in row[2].splitlines():
                    match = re.match(r"^User [12]:\s*(.*)$", turn.strip())
                    if match:
                        sentences += english.sentences(match.group(1))
    out: dict[str, tuple[str, int, int]] = {}
    for sentence in sentences:
        for line in lines_of(sentence):
            keep = int(not problem(line))
            out.setdefault(line, (line, keep, subject(sentence) if keep else -1))
    return list(out.values())


def locomo_examples(folder: Path, names: tuple[str, ...]) -> list[tuple[str, int]]:
    """(candidate line, is it a fact by the observations) for both speakers of the conversations."""
    out = []
    for name in names:
        data = json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))
        cited: dict[str, list[set[str]]] = {}
        for key, value in data.items():
            if key.endswith("_observation"):
                for speaker, facts in value.items():
                    for fact, dia in facts:
                        for d in ([dia] if isinstance(dia, str) else dia):
                            cited.setdefault(f"{speaker}|{d}", []).append(content_stems(fact))
        for key, turns in data.items():
            if not re.fullmatch(r"session_\d+", key):
                continue
            for turn in turns:
                observed = cited.get(f"{turn['speaker']}|{turn['dia_id']}", [])
                for line in lines_of(turn["text"]):
                    stems = content_stems(line)
                    fact = bool(stems) and any(len(stems & o) >= 0.5 * len(stems) for o in observed)
                    out.append((line, int(fact)))
    return out


def matrix(lines: list[str]) -> tuple[np.ndarray, np.ndarray]:
    rows = [fact_judge.features(line) for line in lines]
    return np.concatenate(rows), np.cumsum([0, *map(len, rows)])


def scores(weights: np.ndarray, indices: np.ndarray, starts: np.ndarray) -> np.ndarray:
    summed = np.add.reduceat(weights[indices], starts[:-1], axis=0)
    return summed


def train_logistic(lines: list[str], y: np.ndarray, sample: np.ndarray, classes: int = 1,
                   l2: float = 1e-4, steps: int = 400) -> tuple[np.ndarray, np.ndarray]:
    """Weights and bias of a (softmax when classes > 1) logistic regression, full-batch Adam."""
    indices, starts = matrix(lines)
    lengths = np.diff(starts)
    w = np.zeros((fact_judge.DIMENSIONS, classes))
    b = np.zeros(classes)
    m_w, v_w, m_b, v_b = np.zeros_like(w), np.zeros_like(w), np.zeros_like(b), np.zeros_like(b)
    target = y.reshape(-1, 1) if classes == 1 else np.eye(classes)[y]
    for step in range(1, steps + 1):
        z = scores(w, indices, starts) + b
        if classes == 1:
            p = 1 / (1 + np.exp(-z))
        else:
            p = np.exp(z - z.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
        err = (p - target) * sample[:, None] / sample.sum()
        g_w = np.zeros_like(w)
        np.add.at(g_w, indices, np.repeat(err, lengths, axis=0))
        g_w += l2 * w
        g_b = err.sum(axis=0)
        for g, m, v, param in ((g_w, m_w, v_w, w), (g_b, m_b, v_b, b)):
            m *= 0.9
            m += 0.1 * g
            v *= 0.999
            v += 0.001 * g * g
            param -= 0.05 * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
    return w, b


def auc(y: np.ndarray, s: np.ndarray) -> float:
    order = np.argsort(s)
    ranks = np.empty(len(s))
    ranks[order] = np.arange(1, len(s) + 1)
    pos = y == 1
    return float((ranks[pos].sum() - pos.sum() * (pos.sum() + 1) / 2) / (pos.sum() * (~pos).sum()))


def report(name: str, y: np.ndarray, p: np.ndarray, keep_at: float) -> None:
    kept = p >= keep_at
    precision = (y[kept] == 1).mean() if kept.any() else 0.0
    recall = kept[y == 1].mean()
    print(f"{name:34s} n={len(y):5d} facts={int(y.sum()):4d}  AUC {auc(y, p):.3f}  keep {kept.mean():5.1%}  "
          f"precision {precision:5.1%}  recall {recall:5.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-save", action="store_true")
    parser.add_argument("--keep-at", type=float, default=None, help="fix the threshold instead of choosing it")
    args = parser.parse_args()
    own = own_examples()
    spc = spc_examples(Path(os.environ["SPC_DIR"])) if os.environ.get("SPC_DIR") else []
    print(f"training lines: own {len(own)} ({sum(k for _, k, _ in own)} facts), "
          f"Synthetic-Persona-Chat {len(spc)} ({sum(k for _, k, _ in spc)} facts)")
    # a fifth of the own sentences is held out for the scores printed below, then all train the shipped weights
    held = [i % 5 == 0 for i in range(len(own))]
    data = [e for e, h in zip(own, held, strict=True) if not h] + spc
    lines = [line for line, _, _ in data]
    y = np.array([k for _, k, _ in data])
    weight = np.array([OWN_WEIGHT] * (len(data) - len(spc)) + [1.0] * len(spc))
    w, b = train_logistic(lines, y, weight)
    held_lines = [e for e, h in zip(own, held, strict=True) if h]
    probability = 1 / (1 + np.exp(-(scores(w, *matrix([e[0] for e in held_lines])) + b)))[:, 0]
    held_y = np.array([e[1] for e in held_lines])
    keep_at = args.keep_at if args.keep_at is not None else 0.5
    report("own sentences, held-out fifth", held_y, probability, keep_at)
    # the shipped weights: every line
    lines = [line for line, _, _ in own + spc]
    y = np.array([k for _, k, _ in own + spc])
    weight = np.array([OWN_WEIGHT] * len(own) + [1.0] * len(spc))
    w, b = train_logistic(lines, y, weight)
    facts = [(line, s, OWN_WEIGHT) for line, k, s in own if k] + [(line, s, 1.0) for line, _, s in spc if s >= 0]
    print(f"subject lines: own {sum(1 for f in facts if f[2] > 1)}, Synthetic-Persona-Chat "
          f"{sum(1 for f in facts if f[2] == 1)}")
    sw, sb = train_logistic([f[0] for f in facts], np.array([f[1] for f in facts]),
                            np.array([f[2] for f in facts]), classes=len(fact_judge.SUBJECTS), l2=1e-4)
    locomo = os.environ.get("SUZENT_LOCOMO_DIR")
    if locomo:
        predict = fact_judge.Judge(w[:, 0].astype(np.float32), float(b[0]), sw.astype(np.float32),
                                   sb.astype(np.float32), keep_at)
        tune = locomo_examples(Path(locomo), TUNE)
        p_tune = np.array([predict.probability(line) for line, _ in tune])
        y_tune = np.array([k for _, k in tune])
        if args.keep_at is None:  # the threshold with the best F0.5 on the tuning pair (precision first)
            best = max(np.linspace(0.2, 0.95, 31), key=lambda t: _f_half(y_tune, p_tune >= t))
            keep_at = float(best)
        report(f"LoCoMo 42+43 (tuning, keep_at {keep_at:.3f})", y_tune, p_tune, keep_at)
        held_out = locomo_examples(Path(locomo), HELD_OUT)
        report("LoCoMo 44+47 (held out)", np.array([k for _, k in held_out]),
               np.array([predict.probability(line) for line, _ in held_out]), keep_at)
    if not args.no_save:
        np.savez_compressed(OUT, keep_weights=w[:, 0].astype(np.float16), keep_bias=np.float32(b[0]),
                            subject_weights=sw.astype(np.float16), subject_bias=sb.astype(np.float32),
                            keep_at=np.float32(keep_at))
        print(f"wrote {OUT.relative_to(ROOT)} ({OUT.stat().st_size / 1024:.0f} kB)")


def _f_half(y: np.ndarray, kept: np.ndarray) -> float:
    if not kept.any():
        return 0.0
    precision = (y[kept] == 1).mean()
    recall = kept[y == 1].mean()
    return 0.0 if precision + recall == 0 else 1.25 * precision * recall / (0.25 * precision + recall)


if __name__ == "__main__":
    main()
