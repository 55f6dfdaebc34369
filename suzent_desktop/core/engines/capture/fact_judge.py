"""The learned fact judge: is a candidate fact line worth keeping, and what is it about?

A person reads their agent's memory every day; the transcript keeps every word of the turn, so a
line is kept only when it states a fact about the user or a named person. Which sentences do is
not a list of phrases: each conversation brings new kinds of small talk, and rules tuned on one
set of conversations did not carry over. The judge is two linear models over hashed features of
the line, trained by ``training/fact_judge/train.py`` (data and licences in that folder):

* **keep**: logistic regression, keep when the probability reaches the trained bar (``keep_at``), or
  :data:`NAMED_KEEP_AT` for a line that names something (:func:`names_something`);
* **subject**: one of :data:`SUBJECTS` (softmax), used as the fact's category.

The features are the line's words and word pairs, the lemmas and tenses of its verbs (lemminflect,
through :mod:`core.files.english`) and its structure: who the subject is, a proper noun, a number,
a date, a negation, a modal or hedge word, "you", the length. They are features, not rules: the
weights say how much each counts. The keep model also reads the bundled MiniLM's sentence vector
of the line, how it reads as a whole: on lines held out by conversation it lifted AUC from 0.923 to
0.934 (``training/fact_judge/SCORES.md``); so does the subject model, which words alone read by
topic ("User is now a UX designer at a startup" as a hobby): on kept lines held out by conversation the
subject is right for 80.2 % of them, against 77.1 % without. The keep score then adds the vote of a classifier
fine-tuned end to end on the same lines (:mod:`.fact_encoder`), which reads where in the sentence the
statement is: on LoCoMo's tuning pair the two together rank lines better than either alone.
It costs a few milliseconds a line, on one core.
"""

from __future__ import annotations

import threading
import zlib
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

from suzent_desktop.core.engines.capture.fact_encoder import FactEncoder, FactEncoderError
from suzent_desktop.core.engines.capture.relative_dates import RESOLVED_DATE
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
# A line that names a person, place or title, or gives a number, is specific by itself, which is what a
# reader keeps ("User is definitely going to keep up with their Spanish lessons" 0.41, against 0.002 for
# "… their lessons"); the judge's probabilities run low for such plain plans and events, learned mostly from
# lasting traits. Chosen on LoCoMo's tuning pair (training/fact_judge/SCORES.md, round 9): from 0.2 to 0.6
# it kept the same four or five more bullets there, all worth keeping.
NAMED_KEEP_AT = 0.4
_POINTERS = frozenset("this that these those it they them one ones here there such stuff things something".split())


def _bucket(n: int, edges: tuple[int, ...]) -> int:
    return sum(n > e for e in edges)


def _proper_names(tokens: list[str]) -> int:
    """Capitalised words after the first, not the user, a resolved date or a weekday or month. (The
    feature ``prop:`` counts weekdays too: the weights were trained on that count.)"""
    return sum(1 for i, t in enumerate(tokens)
               if i and t[:1].isupper() and t not in ("User", "User's", "DATE", "I") and t.lower() not in english.CALENDAR)


def _counts_something(tokens: list[str], at: int) -> bool:
    """A number that is no part of a date: "10 km", "3 kids", not "July 20" or "2019"."""
    number = tokens[at]
    near_month = any(t.lower() in english.MONTHS for t in tokens[max(0, at - 3) : at + 4])
    return number.isdigit() and not near_month and not (len(number) == 4 and number[:2] in ("19", "20"))


def names_something(line: str) -> bool:
    """The line names a person, place or title (a capitalised word after the first, a quoted title) or
    gives a count: it says which one by itself. A date names nothing: when is not what."""
    tokens = english.words(line)
    return '"' in line or _proper_names(tokens) > 0 or any(_counts_something(tokens, i) for i in range(len(tokens)))


def feature_names(line: str) -> list[str]:
    """The named features of a third-person fact line ("User adopted a greyhound named Pixel")."""
    body = RESOLVED_DATE.sub(" DATE ", line)
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


_VECTORS: OrderedDict[str, np.ndarray] = OrderedDict()
_VECTORS_HELD = 4096  # lines (1.5 kB each): a day's facts, read again by the dream and promotion
_VECTORS_LOCK = threading.Lock()


def vectors(lines: list[str]) -> np.ndarray:
    """The bundled MiniLM's sentence vectors of ``lines`` (one row a line).

    Kept for the latest lines: the dream files and promotion weighs the lines capture judged, and each
    asks for their subject again."""
    if not lines:
        return _embedder().embed([])
    unique = list(dict.fromkeys(lines))
    with _VECTORS_LOCK:
        found = {line: _VECTORS[line] for line in unique if line in _VECTORS}
    missing = [line for line in unique if line not in found]
    if missing:
        found.update(zip(missing, _embedder().embed(missing), strict=True))
    with _VECTORS_LOCK:
        for line in unique:
            _VECTORS[line] = found[line]
            _VECTORS.move_to_end(line)
        while len(_VECTORS) > _VECTORS_HELD:
            _VECTORS.popitem(last=False)
    return np.stack([found[line] for line in lines])


def drop_cached_vectors() -> None:
    """Forget the kept vectors: a timing of capture reads each line cold, as a new turn's lines are."""
    with _VECTORS_LOCK:
        _VECTORS.clear()


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
    # (MINILM_DIM, len(SUBJECTS)): the sentence vector's part of the subject scores; words alone filed
    # "User is a vegetarian" under work and "User is now a UX designer at a startup" under hobby
    subject_vector_weights: np.ndarray | None = None
    with_encoder: bool = True  # add the fine-tuned classifier's vote (off: the linear model alone)

    def probabilities(self, lines: list[str], vecs: np.ndarray | None = None) -> np.ndarray:
        """The keep probability of each line (one model call for all their sentence vectors)."""
        if not lines:
            return np.zeros(0)
        vecs = vectors(lines) if vecs is None else vecs
        hashed = np.array([self.keep_weights[features(line)].sum() for line in lines])
        score = hashed + vecs @ self.vector_weights + self.keep_bias
        if self.with_encoder:
            score = score + encoder().logits(lines)
        return 1.0 / (1.0 + np.exp(-score))

    def probability(self, line: str) -> float:
        return float(self.probabilities([line])[0])

    def subject_scores(self, lines: list[str], vecs: np.ndarray | None = None) -> np.ndarray:
        """Each line's score for each of :data:`SUBJECTS` (one row a line)."""
        if not lines:
            return np.zeros((0, len(SUBJECTS)))
        scores = np.stack([self.subject_weights[features(line)].sum(axis=0) for line in lines]) + self.subject_bias
        if self.subject_vector_weights is not None:
            scores = scores + (vectors(lines) if vecs is None else vecs) @ self.subject_vector_weights
        return scores

    def subjects(self, lines: list[str]) -> list[str]:
        return [SUBJECTS[int(i)] for i in np.argmax(self.subject_scores(lines), axis=1)]

    def subject(self, line: str) -> str:
        return self.subjects([line])[0]

    def __call__(self, line: str) -> Verdict:
        weighed = weighed_forms(line)
        vecs = vectors(weighed)
        probability = float(self.probabilities(weighed, vecs).mean())
        subject = SUBJECTS[int(np.argmax(self.subject_scores(weighed, vecs).mean(axis=0)))]
        bar = min(self.keep_at, NAMED_KEEP_AT) if names_something(line) else self.keep_at
        return Verdict(probability >= bar, probability, subject)


# "just", "finally", "actually" say when the news came or how it felt, not what it is: the chatter the judge
# learned to drop says them often ("User just wanted to say hi"), and "User just set up meetings with movie
# producers" scored 0.89 where "User set up meetings with movie producers" scores 0.99.
NEWS_ADVERBS = frozenset({"just", "finally", "actually"})


def without_news_adverbs(line: str) -> str:
    """The line as the judge weighs it (the line written keeps every word). "More" after a verb says how much
    of something, not what: "User has been writing more articles" scored 0.05, "… writing articles" 0.99."""
    words = line.split(" ")
    return " ".join(word for i, word in enumerate(words) if word.lower() not in NEWS_ADVERBS
                    and not _more_of(words, i))


def _more_of(words: list[str], i: int) -> bool:
    return (words[i] == "more" and 0 < i < len(words) - 1 and words[i + 1] != "than"
            and bool(english.verb_tag(words[i - 1])) and english.verb_lemma(words[i - 1].lower()) != "be")


# A title's own words say nothing of whether the line states a fact, yet they swayed the judge: "User watched
# "The Godfather"" scored 0.93 and "User watched "Little Women"" 0.09. A title is weighed as each of these
# stand-ins in turn (a novel, a play, a film, an album, a game), and the line's probability is their mean.
TITLE_STAND_INS = ("Dune", "Hamlet", "Casablanca", "Thriller", "Tetris")
MAX_TITLE_WORDS = 8


def _is_title(quoted: str) -> bool:
    """A quoted name of a work ("Little Women", "The Name of the Wind"), not a quoted saying ("Turn on the
    light - happiness hides in the darkest of times.")."""
    words = quoted.split()
    if len(words) == 1 and words[0].lower() in english.STOPWORDS:
        return False  # a word quoted as a word ("That"), no name of a work
    return 0 < len(words) <= MAX_TITLE_WORDS and quoted[:1].isupper() and not quoted.rstrip().endswith((".", "!", "?"))


# "The Lakers are User's favorite team" scored 0.36 and "User's favorite team is the Lakers" 0.999: the judge
# learned the second order, in which people state such facts about themselves far more often. A line that names
# what one of the user's is, from the name's side, is weighed in both orders.
_NAMED_AS = (" is User's ", " are User's ")


def in_both_orders(line: str) -> list[str]:
    """"Luna is User's cat" as said and as "User's cat is Luna"; any other line as said."""
    for joint in _NAMED_AS:
        name, found, what = line.partition(joint)
        if found and name[:1].isupper() and not name.startswith("User") and what and joint not in what:
            named = name[0].lower() + name[1:] if name.split(" ", 1)[0] in ("The", "A", "An") else name
            return [line, f"User's {what.rstrip('.!')} {joint.split()[0]} {named}"]
    return [line]


def weighed_forms(line: str) -> list[str]:
    """The line as the judge weighs it: without its news adverbs, each title as every stand-in, and a name
    for a thing of the user's in both orders (the line written keeps every word)."""
    return [form for said in in_both_orders(without_news_adverbs(line)) for form in _titles_stood_in(said)]


def _titles_stood_in(plain: str) -> list[str]:
    parts = plain.split('"')
    titled = [i for i in range(1, len(parts) - 1, 2) if _is_title(parts[i])]
    if not titled:
        return [plain]
    return ['"'.join(stand_in if i in titled else part for i, part in enumerate(parts)) for stand_in in TITLE_STAND_INS]


def load() -> None:
    """Open the judge's models now (seconds on a busy machine, once a process): a dream loads them before
    its clock starts, as capture has in a running app, so the run's time limit is spent on its work."""
    judge()
    _embedder()
    encoder()


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
                     float(data["keep_at"]), data["vector_weights"].astype(np.float32),
                     data["subject_vector_weights"].astype(np.float32))
