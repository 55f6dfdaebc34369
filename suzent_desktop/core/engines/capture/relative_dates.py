"""Relative time words → absolute dates, from the time a turn was said.

"Yesterday" means nothing a week later; a fact keeps its words and gains the date they
meant: "I twisted my knee last Friday" said on Wednesday 15 July 2026 becomes
"… last Friday (10 July 2026)". Only unambiguous phrases are resolved; a phrase that is
not understood is left as it is (never guessed). The date is written as a person writes it, not
as the page's provenance is ("(2026-07-15)" after the line says when it was told): a reader tells
the day it happened from the day it was said, and a question that names the day ("on 10 July")
finds the line.
"""

from __future__ import annotations

import datetime as dt
import re

from suzent_desktop.core.files.language import english
from suzent_desktop.core.files.language.english import MONTHS as _MONTHS
from suzent_desktop.core.files.language.english import WEEKDAYS as _WEEKDAYS

_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "a couple of": 2, "couple of": 2, "a few": 3, "few": 3,
}
_COUNT = r"(?P<n>\d{1,2}|a couple of|couple of|a few|few|an?|one|two|three|four|five|six|seven|eight|nine|ten)"
_DAY = "|".join(_WEEKDAYS)

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("ago", re.compile(rf"\b{_COUNT}\s+(?P<unit>day|week|month|year)s?\s+ago\b", re.I)),
    ("last_day", re.compile(rf"\b(?:last|this past)\s+(?P<day>{_DAY})\b", re.I)),
    ("next_day", re.compile(rf"\b(?:next|this coming)\s+(?P<day>{_DAY})\b", re.I)),
    # "on Tuesday evenings" is every Tuesday: no one day
    ("on_day", re.compile(rf"\b(?:on|this)\s+(?P<day>{_DAY})\b(?!\s+(?:mornings|afternoons|evenings|nights)\b)", re.I)),
    ("last_unit", re.compile(r"\b(?:last|this past)\s+(?P<unit>week|weekend|month|year)\b", re.I)),
    ("next_unit", re.compile(r"\bnext\s+(?P<unit>week|weekend|month|year)\b", re.I)),
    ("day_before_yesterday", re.compile(r"\bthe day before yesterday\b", re.I)),
    ("day_after_tomorrow", re.compile(r"\bthe day after tomorrow\b", re.I)),
    ("yesterday", re.compile(r"\byesterday\b|\blast night\b", re.I)),
    ("today", re.compile(r"\btoday\b|\btonight\b|\bthis (?:morning|afternoon|evening)\b", re.I)),
    ("tomorrow", re.compile(r"\btomorrow\b", re.I)),
    # "in March" without a year: the one before (a past sentence) or ahead (a plan) of the day it was said;
    # "this September" is either, and stays as said
    ("month", re.compile(r"\b(?i:in|last|next|since|since early|since late|early|late)\s+"
                         rf"(?P<month>{'|'.join(m.capitalize() for m in _MONTHS)})\b(?!,?\s+\d)")),
]


def _weekday_before(day: dt.date, name: str) -> dt.date:
    back = (day.weekday() - _WEEKDAYS.index(name.lower())) % 7 or 7
    return day - dt.timedelta(days=back)


def _weekday_after(day: dt.date, name: str) -> dt.date:
    ahead = (_WEEKDAYS.index(name.lower()) - day.weekday()) % 7 or 7
    return day + dt.timedelta(days=ahead)


def written_day(day: dt.date) -> str:
    """A day as a person writes it: "10 July 2026"."""
    return f"{day.day} {_MONTHS[day.month - 1].capitalize()} {day.year}"


def _shift_months(day: dt.date, months: int) -> dt.date:
    index = day.year * 12 + day.month - 1 + months
    return dt.date(index // 12, index % 12 + 1, 1)


def _label(kind: str, match: re.Match[str], day: dt.date, past: bool) -> str | None:
    """The absolute date (or month, or year) a phrase means, as text."""
    groups = match.groupdict()
    if kind == "yesterday":
        return written_day(day - dt.timedelta(days=1))
    if kind == "today":
        return written_day(day)
    if kind == "tomorrow":
        return written_day(day + dt.timedelta(days=1))
    if kind == "day_before_yesterday":
        return written_day(day - dt.timedelta(days=2))
    if kind == "day_after_tomorrow":
        return written_day(day + dt.timedelta(days=2))
    if kind == "last_day":
        return written_day(_weekday_before(day, groups["day"]))
    if kind == "next_day":
        return written_day(_weekday_after(day, groups["day"]))
    if kind == "on_day":  # "on Friday": the one before when the sentence is in the past tense
        found = _weekday_before(day, groups["day"]) if past else _weekday_after(day, groups["day"])
        return written_day(found)
    if kind == "month":
        month = _MONTHS.index(groups["month"].lower()) + 1
        lead = match.group(0).split()[0].lower()
        ahead = lead == "next" or (not past and lead not in ("last", "since"))
        year = day.year + (month < day.month if ahead else -(month > day.month))
        if lead == "last" and month == day.month:
            year -= 1
        return f"{groups['month']} {year}"
    unit = (groups.get("unit") or "").lower()
    if kind == "ago":
        count = _NUMBERS.get(groups["n"].lower()) if not groups["n"].isdigit() else int(groups["n"])
        if count is None:
            return None
        if unit == "day":
            return written_day(day - dt.timedelta(days=count))
        if unit == "week":
            return "week of " + written_day(day - dt.timedelta(weeks=count))
        if unit == "month":
            shifted = _shift_months(day, -count)
            return f"{_MONTHS[shifted.month - 1].capitalize()} {shifted.year}"
        return str(day.year - count)
    step = -1 if kind == "last_unit" else 1
    if unit == "week":
        monday = day - dt.timedelta(days=day.weekday()) + dt.timedelta(weeks=step)
        return f"week of {written_day(monday)}"
    if unit == "weekend":
        saturday = _weekday_before(day, "saturday") if step < 0 else _weekday_after(day, "saturday")
        return f"weekend of {written_day(saturday)}"
    if unit == "month":
        shifted = _shift_months(day, step)
        return f"{_MONTHS[shifted.month - 1].capitalize()} {shifted.year}"
    if unit == "year":
        return str(day.year + step)
    return None


# a date this module wrote after a phrase: "(2 April 2026)", "(week of 29 June 2026)", "(June 2026)"; older logs
# wrote "(2026-04-02)"
RESOLVED_DATE = re.compile(r"\([^()]*\d{4}[^()]*\)")
_PAST_WORDS = english.PAST_AUXILIARIES
_PRESENT_WORDS = english.PRESENT_AUXILIARIES | english.MODALS | {"going"}  # "is going to"
# A time after these is ahead whatever verb came before: "has been promoted, starting in September", "is
# hoping to have it finished by her birthday in June"
_AHEAD_WORDS = frozenset("starting beginning until till hoping planning".split())
_PARTICIPLE_AFTER = frozenset("is are was were be been being get gets getting got has have had".split())
_CLAUSE_OPENERS = frozenset("and but so because which who when while".split())


def _told_in_the_past(before: str) -> bool | None:
    """Whether the verb nearest before a time phrase is past ("Mila turned six on Saturday", "Marek announced
    he is retiring in March": *is* tells March), None when no verb says. A plural noun reads as a verb too
    ("User went to the markets in March"): it decides only when nothing before it in its clause does."""
    tokens = [w for w in english.words(before) if len(w) > 1]
    present = False
    for index in range(len(tokens) - 1, -1, -1):
        low = tokens[index].lower()
        if low in _AHEAD_WORDS:
            return False
        if low in _PAST_WORDS:
            return True
        if low in _PRESENT_WORDS:
            return False
        if low in ("has", "have"):  # "has been", "has moved": told as done; "has a dentist appointment": now
            after = tokens[index + 1].lower() if index + 1 < len(tokens) else ""
            return english.verb_tag(after) == "VBN" or after == "been"
        if low in _CLAUSE_OPENERS and present:
            return False
        if not tokens[index].islower():
            continue
        tag = english.verb_tag(low)
        if tag == "VBD" and not (index and tokens[index - 1].lower() in _PARTICIPLE_AFTER):
            return True  # "got married", "is getting married": the word before tells
        present = present or tag == "VBZ"
    return False if present else None


def _quoted_spans(text: str) -> list[tuple[int, int]]:
    """Where the text quotes something (a title, words said): between paired straight or curly double quotes."""
    spans: list[tuple[int, int]] = []
    for opening, closing in (('"', '"'), ("“", "”")):
        start = text.find(opening)
        while start >= 0:
            end = text.find(closing, start + 1)
            if end < 0:
                break
            spans.append((start, end))
            start = text.find(opening, end + 1)
    return spans


def unquoted(text: str) -> str:
    """The text with what it quotes left out: a title's words ("Yesterday") say no time."""
    for start, end in reversed(_quoted_spans(text)):
        text = text[:start] + " " + text[end + 1:]
    return text


def resolve(text: str, when: dt.datetime | dt.date | None, *, past: bool = True) -> str:
    """``text`` with each relative time phrase followed by the date it means, in parentheses.

    "on Friday" and "in March" are the ones before or after by the tense of the verb nearest before them;
    ``past`` is False for a plan (always the ones ahead) and the default where no verb tells. Without
    ``when`` the text is returned unchanged.
    """
    if when is None:
        return text
    day = when.date() if isinstance(when, dt.datetime) else when
    quoted = _quoted_spans(text)
    taken: list[tuple[int, int, str]] = []
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            if any(start < match.end() and match.start() < end for start, end, _ in taken):
                continue  # "the day before yesterday" is not also "yesterday"
            if any(start <= match.start() < end for start, end in quoted):
                continue  # a title's words ("Tomorrow, and Tomorrow, and Tomorrow") are no time
            told = _told_in_the_past(text[: match.start()]) if kind in ("on_day", "month") else None
            # a plan's line may tell something done too: "…, User signed the lease on Tuesday" is the Tuesday before
            label = _label(kind, match, day, (told is not False) if past else bool(told))
            if label is not None:
                taken.append((match.start(), match.end(), label))
    for _start, end, label in sorted(taken, reverse=True):
        if f"({label})" not in text[end : end + len(label) + 4]:
            text = f"{text[:end]} ({label}){text[end:]}"
    return text
