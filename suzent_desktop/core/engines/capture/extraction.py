"""Turn → facts: the first step of per-turn capture.

With ``extraction_model`` set, the model is asked for structured JSON
(``{"facts": [{"category", "content", "tags", "importance"}]}``) at low temperature. The
answer is validated field by field; a malformed answer is retried once with the problem
named, and a second malformed answer raises :class:`ExtractionError` so the caller writes
no fact (a half-understood turn is worse than a reported failure; the capture path has kept
the turn in its transcript already, and its message says where).

What a model's fact is, is judged by the prompt (``prompts/extract_facts.md``: rules and
few-shot examples, as mem0's extraction prompt does), not by English word rules: a fact in
German or Chinese, or with a name the user wrote in lower case, is kept. The code checks only
that the turn *grounds* it (small models invent, and copy their instructions): most of its terms
are the turn's and half are the user's own, the user stated it rather than asked or imagined it,
and it speaks of the user or of someone the user named (see :func:`ground`). Facts are written in
the log's form: first person rewritten ("I'm now working at Thales" → "User is now working at
Thales") and "The user …" as "User …", so a changed value is seen as one.
Each fact is judged alone. A fact that repeats the schema or the prompt's example ("User
prefers tea" when the turn never mentions tea, "one self-contained statement…") is an echo and
is dropped; schema text copied into another field (a category "work|people", the tags
"short", "keywords") is removed from that field and the fact kept, and the note says so.
An empty user side is not sent to the model at all.

Without a model, :class:`~core.engines.capture.offline.OfflineExtractor` reads the user's side with the
learned fact judge (see that module).
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

from suzent_desktop.core.engines.capture.fact_encoder import FactEncoderError
from suzent_desktop.core.engines.capture.offline import MAX_FACTS_PER_TURN, OfflineExtractor, third_person
from suzent_desktop.core.files.language.words import count
from suzent_desktop.core.files.language.writing_systems import CJK_RUN_RE
from suzent_desktop.core.files.records.log_grammar import Fact
from suzent_desktop.core.index.embedding import EmbeddingError
from suzent_desktop.core.index.ranking.terms import content_stems
from suzent_desktop.settings import Settings

EXTRACTION_TIMEOUT_SECONDS = 60.0
_CATEGORY_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")  # a lowercase word, "_" or "-" inside


class ExtractionError(RuntimeError):
    """The extraction model failed or kept answering in the wrong shape; no fact was written
    (the capture path keeps the turn itself in its transcript first and says where)."""


def turn_to_text(user: str, assistant: str) -> str:
    """The extraction text of one turn. The user's words come first and are labelled."""
    return f"User: {user.strip()}\n\nAssistant: {assistant.strip()}\n"


def user_part(turn_text: str) -> str:
    """The user's side of a text built by :func:`turn_to_text` (all of it if unlabelled)."""
    return split_turn(turn_text)[0]


def split_turn(turn_text: str) -> tuple[str, str]:
    """(user, assistant) of a text built by :func:`turn_to_text`; unlabelled text is all the user's."""
    match = re.search(r"(?s)^\s*User:[ \t]*(?P<user>.*?)(?:\n\s*\nAssistant:(?P<assistant>.*)|\Z)", turn_text)
    if not match:
        return turn_text.strip(), ""
    return match.group("user").strip(), (match.group("assistant") or "").strip()


# -- LLM path -----------------------------------------------------------------------------
EXAMPLE_FACT = "User prefers tea"
SCHEMA_HINT = (
    '{"facts": [{"category": "preference|work|people|place|plan|date|health|general (one lowercase word)", '
    '"content": "one self-contained statement about the user, third person, e.g. ' + EXAMPLE_FACT + '", '
    '"tags": ["short", "keywords"], "importance": 0.0-1.0}]}'
)
PROMPT_FILE = "extract_facts.md"


@lru_cache(maxsize=1)
def system_prompt() -> str:
    """The extraction prompt: what to note, with few-shot examples (small talk gives nothing, a
    German or Chinese turn gives a fact in its language). The prompt judges what is a fact; the
    code only checks that the turn supports it (:func:`ground`)."""
    return resources.files("suzent_desktop.core.engines").joinpath("prompts", PROMPT_FILE).read_text(encoding="utf-8")


class _Invalid(ValueError):
    pass


_PLACEHOLDER_TAGS = frozenset({"short", "keywords"})


def _is_placeholder(key: str, value: Any) -> bool:
    """Whether a field's value is schema-hint text ("work|people", "0.0-1.0") rather than an answer."""
    text = " ".join(str(v) for v in value) if isinstance(value, list) else str(value)
    return any(mark in text.lower() for mark in _ECHO_MARKS) or (key == "category" and "|" in text)


def clean_placeholders(payload: Any) -> list[str]:
    """Remove schema-hint text a model copied into a fact's fields, field by field (in place).

    A category copied as "work|people" is dropped (the fact falls back to ``general``), the hint's
    tags ("short", "keywords") leave the tag list, an importance written as "0.0-1.0" is dropped;
    the fact itself is kept and judged like any other. Content that copies the hint is judged in
    :func:`ground` (it is not a fact). Returns the cleaned fields ("facts[0].category").
    """
    items = payload if isinstance(payload, list) else payload.get("facts") if isinstance(payload, dict) else None
    cleaned: list[str] = []
    for index, item in enumerate(items if isinstance(items, list) else []):
        if not isinstance(item, dict):
            continue
        for key in [k for k in item if k != "content"]:
            value = item[key]
            if key == "tags" and isinstance(value, list):
                kept = [t for t in value if not (isinstance(t, str) and (
                    t.strip().lower() in _PLACEHOLDER_TAGS or _is_placeholder(key, t)))]
                if len(kept) != len(value):
                    item[key] = kept
                    cleaned.append(f"facts[{index}].{key}")
            elif _is_placeholder(key, value):
                del item[key]
                cleaned.append(f"facts[{index}].{key}")
    return cleaned


def _validate(payload: Any) -> list[Fact]:
    """Facts from the model's JSON, or ``_Invalid`` naming the first problem."""
    if isinstance(payload, list):
        payload = {"facts": payload}
    if not isinstance(payload, dict) or not isinstance(payload.get("facts"), list):
        raise _Invalid('expected an object with a "facts" list')
    facts: list[Fact] = []
    for index, item in enumerate(payload["facts"]):
        where = f"facts[{index}]"
        if not isinstance(item, dict):
            raise _Invalid(f"{where} is not an object")
        content = item.get("content")
        if not isinstance(content, str) or not content.strip():
            raise _Invalid(f"{where}.content must be a non-empty string")
        category = item.get("category", "general")
        if not isinstance(category, str):
            raise _Invalid(f"{where}.category must be a string")
        category = category.strip().lower().replace(" ", "_") or "general"
        if not ("a" <= category[:1] <= "z" and set(category) <= _CATEGORY_CHARACTERS):
            raise _Invalid(f"{where}.category {category!r} is not a lowercase word")
        tags = item.get("tags", [])
        if isinstance(tags, str):
            tags = tags.split()
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise _Invalid(f"{where}.tags must be a list of strings")
        importance = item.get("importance")
        if importance is not None:
            if isinstance(importance, bool) or not isinstance(importance, int | float):
                raise _Invalid(f"{where}.importance must be a number")
            if not 0.0 <= float(importance) <= 1.0:
                raise _Invalid(f"{where}.importance must be between 0 and 1")
            importance = float(importance)
        clean_tags = tuple(t.strip().replace("`", "") for t in tags for t in t.split() if t.strip())
        content = " ".join(content.replace("`", "'").split())
        facts.append(Fact(content=content, category=category, tags=clean_tags, importance=importance))
    return facts[:MAX_FACTS_PER_TURN]


LLMCall = Callable[..., Awaitable[Any]]


async def _extract_with_model(
    turn_text: str,
    model: str,
    complete_json: LLMCall,
    timeout: float = EXTRACTION_TIMEOUT_SECONDS,
    when: dt.datetime | None = None,
    notes: list[str] | None = None,
    context: Sequence[tuple[str, str]] = (),
) -> list[Fact]:
    from suzent_desktop.core.llm import LLMError, LLMTimeout

    system = system_prompt()
    if when is not None:  # "yesterday" means nothing later: let the model write the date it meant
        system += (f"\nThe turn was said on {when.strftime('%A')} {when.date().isoformat()}; write relative "
                   "dates (yesterday, last Friday) with the absolute date in parentheses.")
    if context:  # "I've been playing for four months" says what only the turn before names (the violin)
        system += ("\n\nEarlier in this conversation (to know what the new turn speaks of; its facts were noted "
                   "already, so note only what the new turn adds):\n\n"
                   + "\n".join(turn_to_text(u, a) for u, a in context))
    messages: list[dict[str, str]] = [
        {"role": "system", "content": system},
        {"role": "user", "content": turn_text},
    ]
    problem = ""
    for attempt in range(2):
        try:
            payload = await complete_json(
                model, messages, schema_hint=SCHEMA_HINT, timeout=timeout, temperature=0.1
            )
            cleaned = clean_placeholders(payload)
            facts = _validate(payload)
            if cleaned and notes is not None:
                notes.append(f"extraction model {model}: schema placeholders copied into "
                             f"{', '.join(cleaned)} were left out; the facts were kept")
            return facts
        except LLMTimeout as exc:  # a slow model is not a malformed one: say which it was, and do not wait twice
            raise ExtractionError(f"extraction model {model}: timed out, no facts written ({exc})") from exc
        except (_Invalid, LLMError) as exc:
            problem = str(exc)
            if attempt == 0:
                messages = [
                    *messages,
                    {"role": "user", "content": f"Your previous answer was unusable ({problem}). Answer again."},
                ]
    raise ExtractionError(f"extraction model {model}: malformed answer twice, no facts written ({problem})")


async def extract_facts(
    turn_text: str,
    settings: Settings,
    *,
    llm: Any = None,
    when: dt.datetime | None = None,
    notes: list[str] | None = None,
    people: Mapping[str, str] | None = None,
    context: Sequence[tuple[str, str]] = (),
) -> list[Fact]:
    """Facts of one turn: from ``settings.extraction_model`` if set, else the offline extractor.

    ``llm`` is an object with a ``complete_json`` coroutine (default: :mod:`core.llm`);
    ``when`` is the turn's time, from which relative dates ("yesterday") are resolved;
    ``notes`` collects what the user should hear about (model facts dropped as ungrounded);
    ``people`` are the people and animals the user introduced before (see :func:`known_people`);
    ``context`` are the earlier (user, assistant) turns of the same conversation, oldest first: the
    model reads them to know what the turn speaks of, and a fact they support with the turn is grounded.
    """
    user, assistant = split_turn(turn_text)
    if settings.extraction_model:
        if not user.strip():
            return []  # the assistant's words are not the user's
        if llm is None:
            from suzent_desktop.core import llm as llm_module

            llm = llm_module
        facts = await _extract_with_model(
            turn_text, settings.extraction_model, llm.complete_json, settings.llm_timeout_seconds, when, notes,
            context,
        )
        # The log speaks of the user in the third person: "I'm now working at Thales" must read
        # "User is now working at Thales" for the consolidator to see it replaces the old job.
        facts = [dataclasses.replace(f, content=house_form(third_person(f.content))) for f in facts]
        kept, note = ground(facts, user, assistant, context)
        if note and notes is not None:
            notes.append(f"extraction model {settings.extraction_model}: {note}")
        return kept
    # The judge runs the sentence-vector model: off the event loop, which may be the window's.
    try:
        # an answer may leave out what the question named, and "It has …" may describe what the turn before made
        before, asked = context[-1] if context else ("", "")
        return await asyncio.to_thread(OfflineExtractor().extract, user, assistant, when=when, people=people,
                                       asked=asked, before=before)
    except (FactEncoderError, EmbeddingError) as exc:  # a damaged or missing model file of the judge
        raise ExtractionError(f"the offline fact judge cannot run, no facts written: {exc}") from exc


_RESOLVED_DATE = re.compile(r"\([^()]*\b\d{4}\b[^()]*\)|\b\d{4}-\d{2}-\d{2}\b")
_ECHO_MARKS = ("one self-contained statement", "third person, e.g", "one lowercase word", "short keywords",
               "preference|work", "0.0-1.0")
GROUNDED_SHARE = 2 / 3
USER_SHARE = 1 / 2  # of a fact's terms, at least this share must be the user's own words
PREFIX_LETTERS = 4  # "spielt" ~ "spiele": a word another language inflects is still the turn's word
# "The user …", and the user as a model writes them in the languages its prompt shows or it may answer in
_THE_USER = re.compile(r"^(?:the user|user|der (?:be)?nutzer|die (?:be)?nutzerin|l'utilisateur|l’utilisateur|"
                       r"el usuario|la usuaria|o usuário|l'utente|用户|使用者|ユーザー|사용자)(?![a-z])", re.I)
_USER = re.compile(r"(?<![A-Za-z])User(?![a-z])")  # "User对花生过敏": a script without spaces has no word boundary


def house_form(content: str) -> str:
    """A model's fact as the log writes it: "The user is allergic to peanuts" → "User is allergic to
    peanuts", "用户对花生过敏" → "User对花生过敏". The consolidator's relations and pages read facts
    that open with "User"."""
    return _THE_USER.sub("User", content.strip(), count=1)


def support_terms(text: str) -> set[str]:
    """What a text says, as terms to match against a turn: the stems of its words that matter
    (the search index's stemmer and stopwords) and each Chinese, Japanese or Korean character.
    A date in parentheses is the model resolving "yesterday": it needs no support."""
    text = _RESOLVED_DATE.sub(" ", text)
    characters = {c for run in CJK_RUN_RE.findall(text) for c in run}
    return content_stems(CJK_RUN_RE.sub(" ", text)) | characters


def _supported(terms: set[str], said: set[str]) -> set[str]:
    prefixes = {t[:PREFIX_LETTERS] for t in said if len(t) >= PREFIX_LETTERS}
    return {t for t in terms if t in said or (len(t) >= PREFIX_LETTERS and t[:PREFIX_LETTERS] in prefixes)}


def is_echo(fact: Fact, turn_terms: set[str]) -> bool:
    """The schema's or the prompt's own text coming back as a fact."""
    lowered = fact.content.lower()
    if any(mark in lowered for mark in _ECHO_MARKS):
        return True
    example = support_terms(EXAMPLE_FACT)
    return normalize_words(fact.content) == normalize_words(EXAMPLE_FACT) and _supported(example, turn_terms) != example


def normalize_words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


# What is imagined, wondered about or wished, not stated. A modal verb ("might", "would") is no such
# mark: it sits as often in a clause beside the news ("I sent my screenplay to a contest to see how
# others might like it") as in a wish, and a wish the prompt's examples teach the model to leave out.
_HYPOTHETICAL = re.compile(r"\b(if|whether|maybe|perhaps|wish|unless|suppose|imagine|wonder)\b", re.I)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n+")


def _not_stated(terms: set[str], user: str) -> bool:
    """The user's sentences that hold the fact's words all ask or imagine it ("what's the capital of
    Australia?", "if I moved to Berlin…"): the user stated nothing."""
    holding = [s for s in SENTENCE_END.split(user) if s.strip() and _supported(terms, support_terms(s))]
    return bool(holding) and all(s.rstrip().endswith(("?", "？")) or _HYPOTHETICAL.search(s) for s in holding)


def _names_someone(content: str, user: str) -> bool:
    """The fact is about the user (the log calls them "User") or about someone the user named: a
    word the user wrote capitalised inside a sentence ("… my friend Mel …"). "Thanks for the help"
    is about no one."""
    if _USER.search(content):
        return True
    names = {w for s in SENTENCE_END.split(user) for w in re.findall(r"\w+", s)[1:] if len(w) > 1 and w[0].isupper()}
    return any(word in names for word in re.findall(r"\w+", content))


def ground(
    facts: list[Fact], user: str, assistant: str, context: Sequence[tuple[str, str]] = ()
) -> tuple[list[Fact], str]:
    """The facts the turn supports, and a note on the rest.

    What is a fact is the prompt's judgement (its few-shot examples); here the turn is checked to
    say it, in any language. A fact is kept when it is not the schema's or the prompt's own text (an
    echo); at least two thirds of its terms (:func:`support_terms`) are the turn's and half the
    user's own (not the assistant's advice); the user stated it rather than asked or imagined it;
    and it is about the user or someone the user named. Each fact is judged alone: an echo or an
    unsupported fact does not sink the others.

    ``context`` (earlier turns of the conversation) counts as the turn: "I've been playing for four
    months" after "I'm learning the violin" grounds "User has been playing the violin for four
    months". The fact still needs a term of the new turn's user side, so it is the turn's news.
    """
    said = "\n".join([*(u for u, _ in context), user])  # all the user's words the model read
    turn_terms = support_terms("\n".join([*(f"{u}\n{a}" for u, a in context), user, assistant]))
    user_terms = support_terms(said)
    new_terms = support_terms(user)
    kept: list[Fact] = []
    echoes = unsupported = about_no_one = 0
    for fact in facts:
        if is_echo(fact, turn_terms):
            echoes += 1
            continue
        terms = support_terms(fact.content)
        supported = _supported(terms, turn_terms)
        users = _supported(terms, user_terms)
        if not _supported(terms, new_terms) or len(supported) < GROUNDED_SHARE * len(terms) or (
            len(users) < USER_SHARE * len(terms)
        ) or _not_stated(users, said):
            unsupported += 1
        elif not _names_someone(fact.content, said):
            about_no_one += 1
        else:
            kept.append(fact)
    notes = []
    if echoes:
        notes.append(f"{count(echoes, 'fact')} repeating the schema or the prompt's example {_were(echoes)} dropped")
    if unsupported:
        notes.append(f"{count(unsupported, 'fact')} not supported by the turn {_were(unsupported)} dropped")
    if about_no_one:
        notes.append(f"{count(about_no_one, 'fact')} about neither the user nor someone they named "
                     f"{_were(about_no_one)} dropped")
    return kept, "; ".join(notes)


def _were(n: int) -> str:
    return "was" if n == 1 else "were"


def _are(n: int) -> str:
    return "is" if n == 1 else "are"
