"""Turn → facts: the first step of per-turn capture.

With ``extraction_model`` set, the model is asked for structured JSON
(``{"facts": [{"category", "content", "tags", "importance"}]}``) at low temperature. The
answer is validated field by field; a malformed answer is retried once with the problem
named, and a second malformed answer raises :class:`ExtractionError` so the caller writes
nothing (a half-understood turn is worse than a reported failure).

Without a model, :class:`OfflineExtractor` reads the *user's* side of the turn with
patterns for explicit first-person statements, so a user without an API key still gets a
working memory. It rewrites each statement in the third person ("I love tea" →
"User loves tea").

What the offline extractor catches:
  * preferences: "I like/love/enjoy/prefer/adore/hate/dislike/don't like/can't stand X",
    "my favorite X is Y";
  * work: "I work at/for X", "I work as a X", "I'm a X at Y", "I joined/started at X";
  * people: "my wife/husband/partner/boss/friend/sister/… (is/named) X …";
  * places: "I live in X", "I moved/relocated to X", "I'm from X", "I'm based in X";
  * plans: "I'm going to …", "I'm planning to …", "I plan to …", "I will …", sentences
    with "next week/month/year", "tomorrow", "on Monday" about the user;
  * routines: "I usually/always/often …", "… every morning/Sunday";
  * dates: "my birthday is …", "our anniversary is …";
  * health and identity: "I'm allergic to X", "I'm vegetarian/vegan", "my name is X".

What it misses (an LLM is needed for these):
  * facts the user implies but never states ("the kids' school starts at 8" → has kids);
  * statements spread over several sentences or that rely on pronouns ("she" = the sister);
  * facts stated by the assistant, or about the user in the third person;
  * negations and hedges beyond simple ones; questions, conditionals and hypotheticals
    are skipped on purpose ("if I lived in Paris…");
  * non-English text; importance is only guessed (health, identity, birthdays are high).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Awaitable, Callable
from typing import Any

from suzent_desktop.core.facts import Fact
from suzent_desktop.settings import Settings

EXTRACTION_TIMEOUT_SECONDS = 60.0
MAX_FACTS_PER_TURN = 25
_CATEGORY_RE = re.compile(r"^[a-z][a-z0-9_-]*$")


class ExtractionError(RuntimeError):
    """The extraction model failed or kept answering in the wrong shape; nothing was written."""


def turn_to_text(user: str, assistant: str) -> str:
    """The extraction text of one turn. The user's words come first and are labelled."""
    return f"User: {user.strip()}\n\nAssistant: {assistant.strip()}\n"


def user_part(turn_text: str) -> str:
    """The user's side of a text built by :func:`turn_to_text` (all of it if unlabelled)."""
    match = re.search(r"(?s)^\s*User:\s*(?P<user>.*?)(?:\n\s*\nAssistant:|\Z)", turn_text)
    return match.group("user").strip() if match else turn_text.strip()


# -- LLM path -----------------------------------------------------------------------------
SCHEMA_HINT = (
    '{"facts": [{"category": "preference|work|people|place|plan|date|health|general (one lowercase word)", '
    '"content": "one self-contained statement about the user, third person, e.g. User prefers tea", '
    '"tags": ["short", "keywords"], "importance": 0.0-1.0}]}'
)
_SYSTEM_PROMPT = (
    "You extract durable facts about the user from one conversation turn: preferences, work, people, "
    "places, plans, dates, health, routines. Only facts the user states or clearly confirms. Each fact "
    "stands alone (no pronouns). Importance: 0.9 for identity, health, close people and key dates; "
    "0.5 for ordinary preferences; 0.2 for passing remarks. Return an empty list when there is nothing."
)


class _Invalid(ValueError):
    pass


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
        if not _CATEGORY_RE.match(category):
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
    turn_text: str, model: str, complete_json: LLMCall, timeout: float = EXTRACTION_TIMEOUT_SECONDS
) -> list[Fact]:
    from suzent_desktop.core.llm import LLMError, LLMTimeout

    messages: list[dict[str, str]] = [
        {"role": "system", "content": _SYSTEM_PROMPT},
        {"role": "user", "content": turn_text},
    ]
    problem = ""
    for attempt in range(2):
        try:
            payload = await complete_json(
                model, messages, schema_hint=SCHEMA_HINT, timeout=timeout, temperature=0.1
            )
            return _validate(payload)
        except LLMTimeout as exc:  # a slow model is not a malformed one: say which it was, and do not wait twice
            raise ExtractionError(f"extraction model {model}: timed out, nothing written ({exc})") from exc
        except (_Invalid, LLMError) as exc:
            problem = str(exc)
            if attempt == 0:
                messages = [
                    *messages,
                    {"role": "user", "content": f"Your previous answer was unusable ({problem}). Answer again."},
                ]
    raise ExtractionError(f"extraction model {model}: malformed answer twice, nothing written ({problem})")


async def extract_facts(
    turn_text: str, settings: Settings, *, llm: Any = None, when: dt.datetime | None = None
) -> list[Fact]:
    """Facts of one turn: from ``settings.extraction_model`` if set, else the offline extractor.

    ``llm`` is an object with a ``complete_json`` coroutine (default: :mod:`core.llm`);
    ``when`` is the turn's time, from which relative dates ("yesterday") are resolved.
    """
    if settings.extraction_model:
        if llm is None:
            from suzent_desktop.core import llm as llm_module

            llm = llm_module
        return await _extract_with_model(
            turn_text, settings.extraction_model, llm.complete_json, settings.llm_timeout_seconds
        )
    return OfflineExtractor().extract(user_part(turn_text))


# -- offline path -------------------------------------------------------------------------
_IRREGULAR = {"am": "is", "have": "has", "do": "does", "go": "goes", "was": "was", "can": "can",
              "will": "will", "would": "would", "should": "should", "could": "could", "must": "must",
              "might": "might", "may": "may", "cannot": "cannot", "had": "had"}
_CONTRACTIONS = [
    (r"\bI'm\b", "I am"), (r"\bI've\b", "I have"), (r"\bI'll\b", "I will"), (r"\bI'd\b", "I would"),
    (r"\bIm\b", "I am"), (r"\bdon't\b", "do not"), (r"\bcan't\b", "cannot"),
]
_SKIP_RE = re.compile(r"\b(if|whether|maybe|perhaps|might|would you|could you|can you|should i|do i|am i)\b", re.I)
_PEOPLE = (
    "wife|husband|partner|girlfriend|boyfriend|fiance|fiancee|boss|manager|friend|best friend|brother|sister|"
    "mother|mom|mum|father|dad|son|daughter|kid|kids|children|colleague|coworker|co-worker|cousin|aunt|uncle|"
    "grandmother|grandfather|grandma|grandpa|neighbor|neighbour|dog|cat|doctor|dentist|therapist|roommate"
)
_PLAN_WORDS = re.compile(
    r"\b(next (week|month|year|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|tomorrow|"
    r"on (monday|tuesday|wednesday|thursday|friday|saturday|sunday)|this (weekend|summer|winter|spring|fall|autumn))\b",
    re.I,
)

# (category, pattern, importance). Patterns run on the expanded sentence (contractions opened).
_RULES: list[tuple[str, re.Pattern[str], float | None]] = [
    ("identity", re.compile(r"\bmy name is\b|\bcall me\b", re.I), 0.9),
    ("date", re.compile(r"\b(my|our) (birthday|anniversary|wedding)\b.*\b(is|was|falls)\b", re.I), 0.9),
    ("health", re.compile(r"\bI am (allergic|intolerant|vegetarian|vegan|diabetic|pregnant)\b|\bI have (asthma|diabetes|an allergy)\b", re.I), 0.9),
    ("people", re.compile(rf"\bmy ({_PEOPLE})\b", re.I), 0.7),
    ("work", re.compile(r"\bI (now |currently |just )?(work|started working|am working) (at|for|as|in)\b|\bI (just )?(joined|started at)\b|\bI am an? [\w -]+ (at|for) [A-Z]", re.I), 0.6),
    ("place", re.compile(r"\bI (now |currently |just |recently |finally |have )?(live|am living|been living|lived|moved|relocated|am moving) "
                         r"(in|to)\b|\bI am (from|based in)\b", re.I), 0.6),
    ("plan", re.compile(r"\bI (am going to|am planning to|plan to|will|intend to|want to)\b", re.I), 0.4),
    ("routine", re.compile(r"\bI (usually|always|normally|typically|often) [a-z]+\b|\bevery (morning|evening|night|day|"
                           r"week|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", re.I), 0.4),
    ("preference", re.compile(r"\bI (really |absolutely |quite )?(like|love|enjoy|prefer|adore|hate|dislike|do not like|cannot stand)\b|\bmy favou?rite\b", re.I), 0.5),
]


_PAST = frozenset(
    "went was were had got made took saw met bought began left became found gave told thought felt knew ran "
    "wrote read lost won sold spent came did said broke drove flew grew kept paid put quit set sent sat slept "
    "stood taught understood".split()
)


def _third_person_verb(verb: str) -> str:
    lowered = verb.lower()
    if lowered.endswith("ed") or lowered in _PAST:
        return verb
    if lowered in _IRREGULAR:
        return _IRREGULAR[lowered]
    if re.search(r"(s|sh|ch|x|z|o)$", lowered):
        return verb + "es"
    if re.search(r"[^aeiou]y$", lowered):
        return verb[:-1] + "ies"
    return verb + "s"


def to_third_person(sentence: str) -> str:
    """'I love my dog Rex' → 'User loves their dog Rex' (first mention of 'my' becomes "User's")."""
    text = sentence
    for pattern, replacement in _CONTRACTIONS:
        text = re.sub(pattern, replacement, text)
    text = re.sub(r"\bI do not\b", "User does not", text)
    text = re.sub(
        r"\bI (really |absolutely |quite |now |currently |just |also |still |never |always |usually |often "
        r"|sometimes )?([A-Za-z]+)\b",
        lambda m: f"User {m.group(1) or ''}{_third_person_verb(m.group(2))}",
        text,
    )
    subject_first = re.search(r"\bUser\b", text)
    possessive_first = re.search(r"\b[Mm]y\b", text)
    if possessive_first and not (subject_first and subject_first.start() < possessive_first.start()):
        text = re.sub(r"\b[Mm]y\b", "User's", text, count=1)
    text = re.sub(r"\b[Mm]y\b", "their", text)
    text = re.sub(r"\b[Oo]ur\b", "User's", text, count=1)
    text = re.sub(r"\bmyself\b", "themselves", text)
    text = re.sub(r"\bme\b", "the user", text)
    text = re.sub(r"\bmine\b", "theirs", text)
    text = re.sub(r"\bI\b", "User", text)
    text = " ".join(text.split()).rstrip(".!;, ")
    if text.startswith("User's") or text.startswith("User "):
        return text
    return text[0].upper() + text[1:] if text else text


_CLAUSE_JOIN = re.compile(r",?\s+(?:and|but)\s+(?=(?:I|I'm|I've|my|My)\b)")
_FIRST_PERSON = re.compile(r"\bI\b|\bI'm\b|\bI've\b")


def _clauses(sentence: str) -> list[str]:
    """Split "I moved to Portland and I love hiking" into two statements.

    Only where the part before the conjunction has its own first-person subject, so
    "My wife and I love sushi" stays one statement.
    """
    parts: list[str] = []
    start = 0
    for match in _CLAUSE_JOIN.finditer(sentence):
        head = sentence[start : match.start()]
        if _FIRST_PERSON.search(head) and len(head.split()) >= 3:
            parts.append(head)
            start = match.end()
    parts.append(sentence[start:])
    return parts


def _sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+|\n+|;\s+", text)
    return [c.strip() for p in parts if p.strip() for c in _clauses(p.strip()) if c.strip()]


class OfflineExtractor:
    """Pattern-based extraction of explicit first-person statements (see the module docstring)."""

    def extract(self, user_text: str) -> list[Fact]:
        facts: list[Fact] = []
        seen: set[str] = set()
        for sentence in _sentences(user_text):
            fact = self._sentence_fact(sentence)
            if fact is None:
                continue
            key = fact.content.lower()
            if key not in seen:
                seen.add(key)
                facts.append(fact)
        return facts[:MAX_FACTS_PER_TURN]

    def _sentence_fact(self, sentence: str) -> Fact | None:
        if sentence.endswith("?") or _SKIP_RE.search(sentence):
            return None
        expanded = sentence
        for pattern, replacement in _CONTRACTIONS:
            expanded = re.sub(pattern, replacement, expanded)
        if len(expanded.split()) < 3 or len(expanded) > 300:
            return None
        for category, pattern, importance in _RULES:
            if pattern.search(expanded):
                return self._make(sentence, category, importance)
        if _PLAN_WORDS.search(expanded) and re.search(r"\bI\b|\bmy\b|\bwe\b", expanded, re.I):
            return self._make(sentence, "plan", 0.4)
        return None

    def _make(self, sentence: str, category: str, importance: float | None) -> Fact:
        content = to_third_person(sentence.replace("`", "'"))
        return Fact(content=content, category=category, tags=("offline",), importance=importance)
