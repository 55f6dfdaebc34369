"""Train the fact judge (``suzent_desktop/resources/fact_judge.npz``) and print its scores.

The judge's keep score is this linear model's plus the vote of the fine-tuned classifier that
``finetune.py`` writes (``fact_judge_encoder.onnx``): run that first. The weights record the
classifier's checksum, and the LoCoMo scores below are the two together; the cross-validation
scores the linear model alone (the classifier saw every line).

Training data (see SOURCES.md for licences), every line labelled by hand by the project:

* ``spc_labels.tsv``: candidate lines the offline extractor made from Synthetic-Persona-Chat turns
  (Google, CC BY 4.0), each labelled drop or keep with its subject, with the turn it came from;
* ``chat_labels.tsv``: the same for long, chatty turns the project wrote (the style the app
  captures, where short persona lines taught too little), weighted :data:`CHAT_WEIGHT` times;
* ``talk_labels.tsv``: more such turns (friends chatting over months), with the lines of the
  candidate step and those of a wider one (every statement of the turn in the third person, a
  thanks to a named friend): the small talk a wider candidate step lets through, weighted
  :data:`TALK_WEIGHT` times (0 today: scored by the cross-validation, not trained on);
* ``sentences.tsv``: sentences the project wrote and labelled, weighted :data:`OWN_WEIGHT` times
  (each names a shape of fact or small talk the conversations lacked).

Every sentence of ``sentences.tsv`` goes through the offline extractor's own candidate step (third
person, pronouns resolved, named rules), so the judge learns on the lines it will see.

Scores printed: a five-fold cross-validation split by source conversation (a conversation's
lines are never both trained on and scored), then, never trained on, LoCoMo conversations from
``$SUZENT_LOCOMO_DIR``: 42 and 43 (to choose the keep threshold), and with ``--held-out`` 44 and
47 (read once the threshold is frozen). A LoCoMo candidate line is a fact when its turn is cited
by an observation of its speaker that holds at least half of the line's content stems (noisy:
many true facts are not in the observations); "labelled" rows score the user's lines whose text
``bench/data/precision_labels.tsv`` labels keep or noise.

Usage: ``SUZENT_LOCOMO_DIR=… python training/fact_judge/train.py [--keep-at P] [--held-out] [--no-save]``
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import re
import sys
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from suzent_desktop.core.engines.capture import fact_encoder, fact_judge  # noqa: E402
from suzent_desktop.core.engines.capture.offline import OfflineExtractor  # noqa: E402
from suzent_desktop.core.files.language import english  # noqa: E402
from suzent_desktop.core.index.model_download import sha256_of  # noqa: E402

HERE = Path(__file__).resolve().parent
OUT = ROOT / "suzent_desktop" / "resources" / fact_judge.WEIGHTS
BENCH_LABELS = ROOT / "bench" / "data" / "precision_labels.tsv"
OWN_WEIGHT = 10.0  # a sentence written for a missing shape counts as this many labelled conversation lines
CHAT_WEIGHT = 10.0  # a line of the own chatty turns counts as this many Synthetic-Persona-Chat lines
TALK_WEIGHT = 0.0  # talk_labels.tsv lines are scored, not trained on: on 42+43 they lowered page precision (SCORES.md)
FOLDS = 5
KEEP_AT = 0.9  # chosen by hand on LoCoMo 42+43 (bench/precision.py) and bench/recall.py
TUNE, HELD_OUT = ("42", "43"), ("44", "47")
EXTRACTOR = OfflineExtractor()

Example = tuple[str, int, int, str]  # line, keep, subject index (-1 for drop), group (its source conversation)


def content_stems(text: str) -> set[str]:
    return {english.stem(w) for w in english.words(text.lower()) if w not in english.STOPWORDS and len(w) > 2}


def lines_of(sentence: str) -> list[str]:
    return EXTRACTOR.candidates(sentence)


def _labelled(label: str) -> tuple[int, int]:
    keep = label != "drop"
    return int(keep), fact_judge.SUBJECTS.index(label) if keep else -1


def own_examples() -> list[Example]:
    """sentences.tsv, through the extractor's candidate step; each sentence is its own group."""
    out = []
    for number, row in enumerate((HERE / "sentences.tsv").read_text(encoding="utf-8").splitlines()):
        if not row.strip() or row.startswith("#"):
            continue
        label, sentence = row.split("\t", 1)
        out += [(line, *_labelled(label), f"own-{number}") for line in lines_of(sentence)]
    return out


def line_examples(name: str) -> list[Example]:
    """A labelled-lines file (``spc_labels.tsv``, ``chat_labels.tsv``, ``talk_labels.tsv``): the
    lines as the extractor made them, grouped by their conversation (or, for the own turns, their
    turn)."""
    out = []
    for row in (HERE / name).read_text(encoding="utf-8").splitlines():
        if row.startswith("#"):
            continue
        conversation, label, line, *_rest = row.split("\t")
        out.append((line, *_labelled(label), conversation))
    return out


def wide_only() -> set[str]:
    """The lines of ``talk_labels.tsv`` that only the wider candidate step makes."""
    rows = (HERE / "talk_labels.tsv").read_text(encoding="utf-8").splitlines()
    return {row.split("\t")[2] for row in rows if not row.startswith("#") and row.split("\t")[3] == "wide"}


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


def train_logistic(lines: list[str], y: np.ndarray, sample: np.ndarray, classes: int = 1, l2: float = 1e-4,
                   steps: int = 400, vectors: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weights of the hashed features, of the sentence vector (``vectors``, one row a line; empty
    without) and the bias of a (softmax when classes > 1) logistic regression, full-batch Adam."""
    indices, starts = matrix(lines)
    lengths = np.diff(starts)
    vectors = np.zeros((len(lines), 0)) if vectors is None else vectors.astype(np.float64)
    w = np.zeros((fact_judge.DIMENSIONS, classes))
    u = np.zeros((vectors.shape[1], classes))
    b = np.zeros(classes)
    moments = [(np.zeros_like(param), np.zeros_like(param)) for param in (w, u, b)]
    target = y.reshape(-1, 1) if classes == 1 else np.eye(classes)[y]
    for step in range(1, steps + 1):
        z = scores(w, indices, starts) + vectors @ u + b
        if classes == 1:
            p = 1 / (1 + np.exp(-z))
        else:
            p = np.exp(z - z.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
        err = (p - target) * sample[:, None] / sample.sum()
        g_w = np.zeros_like(w)
        np.add.at(g_w, indices, np.repeat(err, lengths, axis=0))
        grads = (g_w + l2 * w, vectors.T @ err + l2 * u, err.sum(axis=0))
        for g, (m, v), param in zip(grads, moments, (w, u, b), strict=True):
            m *= 0.9
            m += 0.1 * g
            v *= 0.999
            v += 0.001 * g * g
            param -= 0.05 * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
    return w, u, b


def auc(y: np.ndarray, s: np.ndarray) -> float:
    order = np.argsort(s)
    ranks = np.empty(len(s))
    ranks[order] = np.arange(1, len(s) + 1)
    pos = y == 1
    return float((ranks[pos].sum() - pos.sum() * (pos.sum() + 1) / 2) / (pos.sum() * (~pos).sum()))


def labelled_examples(folder: Path, names: tuple[str, ...]) -> list[tuple[str, int]]:
    """(candidate line, keep) for the user's lines whose text the bench's precision labels judge."""
    labels = {}
    for row in BENCH_LABELS.read_text(encoding="utf-8").splitlines():
        if row and not row.startswith("#"):
            key, label = row.split("\t")
            labels[key] = label == "keep"
    out = []
    for name in names:
        data = json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))
        for key, turns in data.items():
            if re.fullmatch(r"session_\d+", key):
                for turn in (t for t in turns if t["speaker"] == data["speaker_a"]):
                    for line in lines_of(turn["text"]):
                        key = hashlib.sha1(" ".join(line.lower().split()).encode("utf-8")).hexdigest()[:12]
                        if key in labels:
                            out.append((line, int(labels[key])))
    return out


def report(name: str, y: np.ndarray, p: np.ndarray, keep_at: float) -> None:
    kept = p >= keep_at
    precision = (y[kept] == 1).mean() if kept.any() else 0.0
    recall = kept[y == 1].mean()
    print(f"{name:44s} n={len(y):5d} facts={int(y.sum()):4d}  AUC {auc(y, p):.3f}  keep {kept.mean():5.1%}  "
          f"precision {precision:5.1%}  recall {recall:5.1%}")


_VECTORS: dict[str, np.ndarray] = {}


def vectors_of(lines: list[str]) -> np.ndarray:
    """Sentence vectors, each line embedded once however many folds train on it."""
    missing = [line for line in dict.fromkeys(lines) if line not in _VECTORS]
    _VECTORS.update(zip(missing, fact_judge.vectors(missing), strict=True))
    return np.stack([_VECTORS[line] for line in lines])


def _weight(group: str) -> float:
    source = group.split("-")[0]
    return {"own": OWN_WEIGHT, "chat": CHAT_WEIGHT, "talk": TALK_WEIGHT}.get(source, 1.0)


def fit(data: list[Example]) -> fact_judge.Judge:
    """Both models on ``data``: keep on every line (hashed features and sentence vector), subject
    on the kept ones (hashed features)."""
    weight = np.array([_weight(group) for *_, group in data])
    w, u, b = train_logistic([e[0] for e in data], np.array([e[1] for e in data]), weight,
                             vectors=vectors_of([e[0] for e in data]))
    facts = [(e, wt) for e, wt in zip(data, weight, strict=True) if e[1]]
    sw, su, sb = train_logistic([e[0] for e, _ in facts], np.array([e[2] for e, _ in facts]),
                                np.array([wt for _, wt in facts]), classes=len(fact_judge.SUBJECTS),
                                vectors=vectors_of([e[0] for e, _ in facts]))
    return fact_judge.Judge(w[:, 0].astype(np.float32), float(b[0]), sw.astype(np.float32), sb.astype(np.float32),
                            KEEP_AT, u[:, 0].astype(np.float32), su.astype(np.float32))


def cross_validate(data: list[Example], keep_at: float) -> None:
    """Scores of lines whose whole conversation was left out of training (folds by a hash of the group)."""
    fold = np.array([zlib.crc32(group.encode()) % FOLDS for *_, group in data])
    p = np.zeros(len(data))
    subject_right = np.zeros(len(data), dtype=bool)
    for f in range(FOLDS):
        # The fine-tuned classifier saw every line, so the folds score the linear model alone.
        judge = dataclasses.replace(fit([e for e, k in zip(data, fold, strict=True) if k != f]), with_encoder=False)
        lines = [e[0] for e, k in zip(data, fold, strict=True) if k == f]
        p[fold == f] = judge.probabilities(lines, vectors_of(lines))
        named = np.argmax(judge.subject_scores(lines, vectors_of(lines)), axis=1)
        subject_right[fold == f] = named == np.array([e[2] for e, k in zip(data, fold, strict=True) if k == f])
    y = np.array([e[1] for e in data])
    source = np.array([e[3].split("-")[0] for e in data])
    spc = (source == "valid") | (source == "test")
    report("cross-validated: conversation lines", y[spc], p[spc], keep_at)
    report("cross-validated: own chatty turns' lines", y[source == "chat"], p[source == "chat"], keep_at)
    talk = source == "talk"
    report("cross-validated: own talk's lines, all", y[talk], p[talk], keep_at)
    step = talk & ~np.isin([e[0] for e in data], list(wide_only()))
    report("cross-validated: own talk's candidate lines", y[step], p[step], keep_at)
    report("cross-validated: own sentences", y[source == "own"], p[source == "own"], keep_at)
    print(f"{'cross-validated: subject of kept lines':44s} right {subject_right[y == 1].mean():.1%}")


def main() -> None:
    global TALK_WEIGHT
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-save", action="store_true")
    parser.add_argument("--keep-at", type=float, default=KEEP_AT, help="the keep threshold (chosen on 42+43)")
    parser.add_argument("--talk-weight", type=float, default=TALK_WEIGHT, help="weight of a talk_labels.tsv line")
    parser.add_argument("--held-out", action="store_true", help="also score LoCoMo 44+47 (once it is frozen)")
    args = parser.parse_args()
    TALK_WEIGHT = args.talk_weight
    parts = {"conversation lines": line_examples("spc_labels.tsv"), "own chatty turns' lines": line_examples("chat_labels.tsv"),
             "own talk's lines": line_examples("talk_labels.tsv"),
             "own sentences' lines": own_examples()}
    data = [e for part in parts.values() for e in part]
    print("training lines: " + ", ".join(f"{name} {len(part)} ({sum(e[1] for e in part)} facts)" for name, part in parts.items()))
    cross_validate(data, args.keep_at)
    judge = fit(data)
    judge = dataclasses.replace(judge, keep_at=args.keep_at)
    for name, title in (("held_talk_labels.tsv", "third batch"), ("held_news_labels.tsv", "fourth batch")):
        held = line_examples(name)  # never trained on: how the judge reads talk it never saw
        report(f"held out: own talk's lines ({title})", np.array([e[1] for e in held]),
               judge.probabilities([e[0] for e in held]), args.keep_at)
    locomo = os.environ.get("SUZENT_LOCOMO_DIR")
    for names, run in ((TUNE, bool(locomo)), (HELD_OUT, bool(locomo) and args.held_out)):
        if run:
            part = "tuning" if names == TUNE else "held out"
            noisy = locomo_examples(Path(locomo), names)
            report(f"LoCoMo {'+'.join(names)} ({part}), observation labels", np.array([k for _, k in noisy]),
                   judge.probabilities([line for line, _ in noisy]), args.keep_at)
            bench = labelled_examples(Path(locomo), names)
            report(f"LoCoMo {'+'.join(names)} ({part}), bench labels", np.array([k for _, k in bench]),
                   judge.probabilities([line for line, _ in bench]), args.keep_at)
    if not args.no_save:
        np.savez_compressed(OUT, keep_weights=judge.keep_weights.astype(np.float16), keep_bias=np.float32(judge.keep_bias),
                            subject_weights=judge.subject_weights.astype(np.float16),
                            subject_bias=judge.subject_bias.astype(np.float32), keep_at=np.float32(args.keep_at),
                            vector_weights=judge.vector_weights.astype(np.float32),
                            subject_vector_weights=judge.subject_vector_weights.astype(np.float32),
                            encoder_sha256=np.str_(sha256_of(fact_encoder.encoder_path())))
        print(f"wrote {OUT.relative_to(ROOT)} ({OUT.stat().st_size / 1024:.0f} kB)")


if __name__ == "__main__":
    main()
