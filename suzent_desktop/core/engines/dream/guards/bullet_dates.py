"""The dates a dream may write on a bullet: the days of its batch, up to today.

A bullet's dates are the days its fact was said (``- Anna moved to Oslo (2026-07-02)``), and a
struck bullet's ``until`` is the day of the fact that replaced it. Every one of them comes from
the batch a run consolidates: its days, and the earlier days of facts it offers again (a fact
no page held, another device's late fact). A model that writes 1999 or 2999 on a person's
bullet makes up a history: such a write is refused before anything lands. Dates the page held
before the write, or a page the run read, may stay or move, whatever they are: a bullet moved
from one page to another keeps its days.
"""

from __future__ import annotations

from collections.abc import Iterable

from suzent_desktop.core.vault.facts.fact_pages import parse_bullet


def _dates(text: str) -> dict[str, str]:
    """Each date on a bullet of ``text`` -> the bullet's text (the first that carries it)."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        bullet = parse_bullet(line)
        if bullet is not None:
            for date in [*bullet.dates, *([bullet.until] if bullet.until else [])]:
                found.setdefault(date, bullet.text)
    return found


def refusal(relative: str, held_by: Iterable[str], after: str, first: str, last: str) -> str | None:
    """Why writing ``after`` puts a date on a bullet that neither the batch nor the texts ``held_by``
    (the page before the write, the pages the run read) have, or None."""
    held = {date for text in held_by for date in _dates(text)}
    wrong = sorted((d, text) for d, text in _dates(after).items() if d not in held and not first <= d <= last)
    if not wrong:
        return None
    date, text = wrong[0]
    return (f"{relative}: the date {date} on {text[:80]!r} is no day of this batch ({first} .. {last}); "
            "a bullet's dates are the days its facts were said, as the batch lists them")
