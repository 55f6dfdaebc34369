"""Which writing system a text is in, and how to cut Chinese, Japanese and Korean into search terms.

Words in Chinese and Japanese are not separated by spaces, and Korean words carry their
particles (노트에, 노트를): a word splitter finds few of the terms a person would search by.
Overlapping pairs of characters (bigrams) find them whatever the grammar, which is why a few
lines of bigram BM25 beat a dictionary word splitter on the help vault (bench/cjk_search.py).
Every part of search that matches words (full-text terms, title matches, highlights,
mentions, the switcher) asks this module rather than splitting on ``\\w+`` itself.
"""

from __future__ import annotations

import re
from functools import lru_cache

# Han (CJK unified ideographs and extension A, compatibility ideographs), kana (with the
# prolonged sound mark and half-width katakana) and Hangul (syllables and jamo).
_CJK_CLASS = (
    "\u3005\u3007\u3021-\u3029"  # 々 〇 and Suzhou numerals
    "\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f"  # hiragana, katakana
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # Han
    "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"  # Hangul
)
CJK_RUN_RE = re.compile(f"[{_CJK_CLASS}]+")
_CJK_CHAR_RE = re.compile(f"[{_CJK_CLASS}]")
# Other words: letters and digits outside the CJK ranges (Latin, Cyrillic, Greek, ...).
_OTHER_WORD_RE = re.compile(f"(?:(?![{_CJK_CLASS}])\\w)+", re.UNICODE)
_KANA_RE = re.compile("[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_HANGUL_RE = re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")

CJK = "cjk"
OTHER = "other"


def has_cjk(text: str) -> bool:
    """True when any character of ``text`` is Chinese, Japanese or Korean."""
    return _CJK_CHAR_RE.search(text) is not None


def script_of(text: str) -> str:
    """``"cjk"`` when CJK characters make up a fifth of the letters or more, else ``"other"``.

    A Japanese question naming a product (``Obsidian Syncの設定``) is still Japanese; an
    English sentence quoting one kanji is still English.
    """
    cjk = sum(len(run) for run in CJK_RUN_RE.findall(text))
    if not cjk:
        return OTHER
    other = sum(len(word) for word in _OTHER_WORD_RE.findall(text) if not word.isdigit())
    return CJK if cjk * 4 >= other else OTHER


def language_of(text: str) -> str:
    """A finer guess for CJK text: ``"ja"`` (any kana), ``"ko"`` (Hangul), ``"zh"`` (Han only), else ``"other"``."""
    if _KANA_RE.search(text):
        return "ja"
    if _HANGUL_RE.search(text):
        return "ko"
    if has_cjk(text):
        return "zh"
    return OTHER


@lru_cache(maxsize=8192)
def _run_grams(run: str) -> tuple[str, ...]:
    if len(run) == 1:
        return (run,)
    return tuple(run[i : i + 2] for i in range(len(run) - 1))


def terms(text: str) -> list[str]:
    """Search terms of ``text`` in order: character bigrams of each CJK run (a lone character
    stands for itself) and the other words lower-cased. ``"デイリーノート"`` gives
    ``デイ イリ リー ーノ ノー ート``; ``"Sync설정"`` gives ``sync 설정``."""
    out: list[str] = []
    position = 0
    for match in CJK_RUN_RE.finditer(text):
        out += [w.lower() for w in _OTHER_WORD_RE.findall(text, position, match.start())]
        out += _run_grams(match.group())
        position = match.end()
    out += [w.lower() for w in _OTHER_WORD_RE.findall(text, position)]
    return out


HIRAGANA = frozenset(chr(c) for c in range(0x3040, 0x30A0))


def content_grams(text: str) -> list[str]:
    """The bigrams of ``text``'s CJK runs that can carry meaning: all-hiragana pairs (の, を,
    には, ます: grammar in Japanese) are left out. For highlights and name matches."""
    return [g for run in CJK_RUN_RE.findall(text) for g in _run_grams(run) if not set(g) <= HIRAGANA]


def gram_text(text: str) -> str:
    """``terms`` joined by spaces: the text of the bigram full-text column (empty without CJK)."""
    return " ".join(terms(text)) if has_cjk(text) else ""


def word_bounded(name: str) -> bool:
    """Whether a match of ``name`` must stand between word boundaries.

    Latin names must (``cat`` is not a mention inside ``category``); CJK names cannot, since
    CJK prose has no spaces around words (``日記を書く`` mentions ``日記``).
    """
    return not has_cjk(name)
