"""The learned fact judge: is a candidate fact line worth keeping, and what is it about?

A person reads their agent's memory every day; the transcript keeps every word of the turn, so a
line is kept only when it states a fact about the user or a named person. Which sentences do is
not a list of phrases: each conversation brings new kinds of small talk, and rules tuned on one
set of conversations did not carry over. The judge is two linear models over hashed features of
the line, trained by ``training/fact_judge/train.py`` (data and licences in that folder):

* **keep**: logistic regression, keep when the probability reaches :data:`KEEP_AT`;
* **subject**: one of :data:`SUBJECTS` (softmax), used as the fact's category.

The features are the line's words and word pairs, the lemmas and tenses of its verbs (lemminflect,
through :mod:`core.files.english`) and its structure: who the subject is, a proper noun, a number,
a date, a negation, a modal or hedge word, "you", the length. They are features, not rules: the
weights say how much each counts. The keep model also reads the bundled MiniLM's sentence vector
of the line, how it reads as a whole: on lines held out by conversation it lifted AUC from 0.923 to
0.934 (``training/fact_judge/SCORES.md``). The keep score then adds the vote of a classifier
fine-tuned end to end on the same lines (:mod:`.fact_encoder`), which reads where in the sentence the
statement is: on LoCoMo's tuning pair the two together rank lines better than either alone.
It costs a few milliseconds a line, on one core.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

from suzent_desktop.core.engines.capture.fact_encoder import FactEncoder, FactEncoderError
from suzent_desktop.core.files.language import english
from suzent_desktop.core.index.embedding import OnnxMiniLMEmbedder
from suzent_desktop.core.index.model_download import sha256_of

SUBJECTS = ("identity", "person", "place", "work", "health", "hobby", "preference", "plan", "event")
DIMENSIONS = 1 << 16
WEIGHTS = "fact_judge.npz"  # in suzent_desktop/resources
_HEDGES = frozenset("maybe perhaps probably might may could would should guess hope wish wonder think "
                    "believe sure if whether someday kind kinda sort bet imagine".split())
# Verbs of the mind: what went on in someone's head rather than what is or happened.
_MENTAL = frozenset("feel think remember imagine bet guess hope wish learn realize realise wonder believe know "
                    "love enjoy like want need".split())
_NEGATIONS = frozenset("not no never nothing cannot n't".split())
_POINTERS = frozenset("this that these those it they them one ones here there such stuff things something".split())
_DATE = re.compile(r"\((?:[^()]*\d{4}[^()]*)\)")


def _bucket(n: int, edges: tuple[int, ...]) -> int:
    return sum(n > e for e in edges)


def feature_names(line: str) -> list[str]:
    """The named features of a third-person fact line ("User adopted a greyhound named Pixel")."""
    body = _DATE.sub(" DATE ", line)
    tokens = english.words(body)
    lowered = [t.lower().replace("’", "'") for t in tokens]
    names = [f"w:{w}" for w in lowered]
    names += [f"b:{a}_{b}" for a, b in zip(["<s>", *lowered], [*lowered, "</s>"], strict=False)]
    subject = "user" if lowered[:1] == ["user"] else "user's" if lowered[:1] == ["user's"] else (
        "name" if tokens[:1] and tokens[0][:1].isupper() and english.looks_like_name(tokens[0]) else "other")
    names.append(f"subj:{subject}")
    verbs = [(w, english.verb_tag(w)) for w in lowered[:12] if english.verb_tag(w)]
    for word, tag in verbs:
        names += [f"t:{tag}", f"l:{english.verb_lemma(word)}"]
    if verbs:
        lemma = english.verb_lemma(verbs[0][0])
        names += [f"mt:{verbs[0][1]}", f"ml:{lemma}", f"ms:{subject}_{verbs[0][1]}", f"mm:{lemma in _MENTAL}"]
    proper = sum(1 for i, t in enumerate(tokens) if i and t[:1].isupper() and t not in ("User", "User's", "DATE"))
    names.append(f"prop:{_bucket(proper, (0, 1))}")
    names.append(f"len:{_bucket(len(tokens), (3, 5, 8, 12, 18, 25))}")
    content = sum(w not in english.STOPWORDS and w not in english.EVALUATIVE and len(w) > 2 for w in lowered)
    names.append(f"content:{_bucket(content, (1, 2, 3, 5, 8))}")
    names.append(f"evaluative:{_bucket(sum(w in english.EVALUATIVE for w in lowered), (0, 1))}")
    flags = {"num": any(t[0].isdigit() for t in tokens), "date": "DATE" in tokens, "quote": '"' in body,
             "neg": any(w in _NEGATIONS for w in lowered), "hedge": any(w in _HEDGES for w in lowered),
             "you": "you" in lowered or "your" in lowered, "question": line.rstrip().endswith("?"),
             "users": lowered.count("user") + lowered.count("user's") > 1,
             "pointer": any(w in _POINTERS for w in lowered), "exclaimed": "!" in line}
    names += [f"f:{k}" for k, on in flags.items() if on]
    return names


def features(line: str) -> np.ndarray:
    """The hashed feature indices of a line (crc32, stable across runs and machines)."""
    return np.fromiter((zlib.crc32(n.encode()) % DIMENSIONS for n in feature_names(line)), dtype=np.int64)


@dataclass(frozen=True)
class Verdict:
    keep: bool
    probability: float
    subject: str


def vectors(lines: list[str]) -> np.ndarray:
    """The bundled MiniLM's sentence vectors of ``lines`` (one row a line)."""
    return _embedder().embed(lines)


@lru_cache(maxsize=1)
def _embedder() -> OnnxMiniLMEmbedder:
    """One core: a turn has a few short lines, and capture must leave the other cores to the window."""
    return OnnxMiniLMEmbedder(threads=1)


@dataclass(frozen=True)
class Judge:
    keep_weights: np.ndarray  # (DIMENSIONS,)
    keep_bias: float
    subject_weights: np.ndarray  # (DIMENSIONS, len(SUBJECTS))
    subject_bias: np.ndarray  # (len(SUBJECTS),)
    keep_at: float
    vector_weights: np.ndarray  # (MINILM_DIM,): the sentence vector's part of the keep score
    with_encoder: bool = True  # add the fine-tuned classifier's vote (off: the linear model alone)

    def probabilities(self, lines: list[str]) -> np.ndarray:
        """The keep probability of each line (one model call for all their sentence vectors)."""
        if not lines:
            return np.zeros(0)
        hashed = np.array([self.keep_weights[features(line)].sum() for line in lines])
        score = hashed + vectors(lines) @ self.vector_weights + self.keep_bias
        if self.with_encoder:
            score = score + encoder().logits(lines)
        return 1.0 / (1.0 + np.exp(-score))

    def probability(self, line: str) -> float:
        return float(self.probabilities([line])[0])

    def subject(self, line: str) -> str:
        scores = self.subject_weights[features(line)].sum(axis=0) + self.subject_bias
        return SUBJECTS[int(np.argmax(scores))]

    def __call__(self, line: str) -> Verdict:
        probability = self.probability(line)
        return Verdict(probability >= self.keep_at, probability, self.subject(line))


@lru_cache(maxsize=1)
def encoder() -> FactEncoder:
    return FactEncoder()


@lru_cache(maxsize=1)
def judge() -> Judge:
    """The shipped judge, loaded once (a few hundred kB of float16 weights).

    The keep threshold was chosen for the two models together: weights saved beside another
    classifier file would keep lines at a bar nobody measured, so that pair is refused by name."""
    with resources.files("suzent_desktop.resources").joinpath(WEIGHTS).open("rb") as handle:
        data = np.load(handle)
        expected = str(data["encoder_sha256"])
        path = encoder().path
        if path.is_file() and sha256_of(path) != expected:
            raise FactEncoderError(f"{path}: not the classifier {WEIGHTS} was trained with; "
                                   "run training/fact_judge/train.py after finetune.py")
        return Judge(data["keep_weights"].astype(np.float32), float(data["keep_bias"]),
                     data["subject_weights"].astype(np.float32), data["subject_bias"].astype(np.float32),
                     float(data["keep_at"]), data["vector_weights"].astype(np.float32))
