"""Which consolidated facts belong in MEMORY.md: the few stable things an agent must know every turn.

MEMORY.md is loaded into every conversation, so a line there costs attention each turn. It holds who
the user is, their people, work and health, ongoing projects and strong tastes — what will still be
true next month — and each line is a precise fact (:mod:`core.fact_rules`) short enough to take in at
a glance. Everything else stays on its page, where search finds it:

* events of a day (Timeline), what lies ahead (Plans), what could not be filed (General) and passing
  activities (Activities) are not promoted, nor is a habit on any page (a line that says how often:
  "twice a week", "every morning", "on Tuesdays"). ``Routines`` is promoted like any page: the dream
  files there what the user does in the present tense, strong tastes among them ("User loves
  experimenting with spices when cooking"), and its habits are left out by what they say;
* a line that says when it was true ("today", "recently", "last week", "last Tues", "User's week has
  been hectic", a resolved date) is passing, except a life event with the date it happened ("User adopted a puppy (2026-04-02)");
* a wish or a plan ("wants to", "is planning to", "is looking for") is what may be, not what is;
* a one-time event told in the past ("User had a phone screen with …", "User accepted an offer",
  "The beta testers asked for …") happened once; what it changed is kept as its own fact ("User works
  at …"). A past fact that sets a value ("User moved to Ghent", "Lena moved to Leuven") or is a life
  event ("User adopted a greyhound") still says what is true now;
* a line longer than :data:`MAX_LINE_CHARS` is a story, not a fact to keep in mind;
* a **view** (:func:`view`): what the user feels, thinks or said about something ("User appreciates
  Nate's kind words", "User finds nature calming", "User is grateful for …") is how a moment felt,
  not a stable thing an agent must know; the tastes it may show stand on Preferences;
* a line the learned fact judge finds likelier noise than a fact (:func:`judged`): a page may hold a
  model's fact the offline engine never weighed ("User's new script is different from her previous
  work", "User set up meetings with movie producers and feels her dreams are coming true").
"""

from __future__ import annotations

import re

from suzent_desktop.core.engines.capture.fact_rules import LIFE_EVENTS, is_precise
from suzent_desktop.core.engines.capture.relative_dates import RESOLVED_DATE, unquoted
from suzent_desktop.core.files.language import english
from suzent_desktop.core.vault.facts.fact_pages import subject_value

NOT_PROMOTED = frozenset({"timeline", "plans", "general", "misc", "inbox", "activities"})
MAX_LINE_CHARS = 140
# The judge's own decision boundary, not its capture bar (0.85): capture asks more because a line it
# drops stays in the transcript, while a short clean fact on a page ("User loves figs", 0.78) belongs
# in MEMORY.md; a line the judge finds likelier noise ("User's new script is different …", 0.02) not.
JUDGED_AT = 0.5
# when it was true, in words: passing, and after a while misleading ("last Tues" nobody resolved)
_RELATIVE = re.compile(
    r"\b(?:today|tonight|yesterday|tomorrow|recently|lately|nowadays|these days|"
    r"the other (?:day|week|night)|right now|at the moment|this (?:morning|afternoon|evening|week|weekend|month|year)|"
    r"(?:last|next|this|past|coming) (?:night|week|weekend|month|year|summer|winter|spring|fall|autumn|\w+day|"
    r"(?:mon|tues?|wed|thu|thurs|fri|sat|sun)\.?)|ago|soon|"
    r"user's (?:day|night|week|weekend|month|year|morning|afternoon|evening))(?!\w)",  # "User's week has been …"
    re.I,
)
_WISH = re.compile(
    r"\b(?:wants?|wanted|wanting|plans?|planned|planning|hopes?|hoped|hoping|wish(?:es|ed)?|would like|"
    r"(?:is|are|was) going to|will|looking (?:to|for)|trying to|thinking (?:of|about)|about to|dreams? of)\b",
    re.I,
)


_HOW_OFTEN = re.compile(
    r"\b(?:every (?:day|week|weekend|month|morning|afternoon|evening|night)|(?:once|twice|\w+ times) a "
    r"(?:day|week|month|year)|daily|weekly|nightly|on (?:mon|tues|wednes|thurs|fri|satur|sun)days)\b",
    re.I,
)
# the subject (the user, a name, or a name's plural noun: "Lena's book club members"), then a past verb
_PAST_EVENT = re.compile(
    r"^(?:User|[A-Z][\w'’]*(?: [A-Z][\w'’]*)*)(?:(?: (?!(?:has|is|was|does)\b)[a-z]+){0,2} "
    r"(?!(?:has|is|was|does)\b)[a-z]+s)? "
    r"(?:(?:just|finally|also|already|first|once|then) )?"
    r"(?!(?:started|began) (?:[a-z]+ing|to)\b)"  # the start of something ongoing: "started learning the piano"
    r"(?P<verb>[a-z]{3,}(?<!ee)ed|had|made|took|gave|went|met|saw|won|lost|bought|wrote|ran|came|did|left|found|"
    r"built|spent|sold|sent|told|brought|flew|drove|rode|began|broke|chose|paid|heard|held|lent)\b"
)


# Verbs (by lemma) and adjectives after "User is" that say what someone feels, thinks or says rather
# than what is: a line led by one is a view (:func:`view`).
VIEW_WORDS = frozenset(
    "appreciate feel find think believe emphasize emphasise acknowledge note reflect encourage value realize "
    "realise consider admire relate recommend advise thank mention express hope wish wonder "
    "grateful thankful excited appreciative happy proud glad busy eager determined nervous worried hopeful "
    "inspired motivated amazed thrilled".split()
)


def view(text: str) -> bool:
    """A line whose first word after the user (past adverbs and "is") says what they feel, think or
    said: "User appreciates …", "User really finds …", "User is grateful for …"; or what they were
    "too" something "to" do ("User is too tired to cook"): a mood, not what is."""
    tokens = [t.lower() for t in english.words(text)]
    if tokens[:1] != ["user"]:
        return False
    for index, token in enumerate(tokens[1:4], start=1):
        if token in VIEW_WORDS or english.verb_lemma(token) in VIEW_WORDS:
            return True
        if token == "too" and tokens[index + 2:index + 3] == ["to"]:
            return True
        if not (token.endswith("ly") or token in ("is", "was", "also", "still", "always", "very", "so")):
            return False
    return False


def judged(texts: list[str]) -> list[bool]:
    """Whether the learned fact judge (:mod:`core.engines.capture.fact_judge`) finds each line at least
    as likely a fact as noise (:data:`JUDGED_AT`), in one model call for all the lines."""
    from suzent_desktop.core.engines.capture.fact_judge import judge

    return [bool(p >= JUDGED_AT) for p in judge().probabilities(texts)]


def one_time_event(text: str) -> bool:
    """Something that happened once, told in the past, that sets no value and is no life event."""
    if not _PAST_EVENT.match(text) or subject_value(text) is not None:
        return False
    return not any(word in LIFE_EVENTS for word in re.findall(r"[a-z]+", text.lower()))


def promoted_page(title: str) -> bool:
    """Whether a personal page's facts may be promoted at all."""
    return title.lower() not in NOT_PROMOTED


def memory_worthy(text: str) -> bool:
    """A precise, stable fact short enough for MEMORY.md."""
    return (len(text) <= MAX_LINE_CHARS and not passing(text) and not _WISH.search(text)
            and not _HOW_OFTEN.search(text) and not one_time_event(text) and not view(text) and is_precise(text))


def passing(text: str) -> bool:
    """A line that says when it was true is passing: in words ("recently", "last Tues") always, by a
    resolved date unless it is a life event ("User adopted a puppy named Biscuit (2026-04-02)"), which
    stays true, with the day it happened."""
    if _RELATIVE.search(RESOLVED_DATE.sub("", unquoted(text))):
        return True
    return bool(RESOLVED_DATE.search(text)) and not any(w in LIFE_EVENTS for w in re.findall(r"[a-z]+", text.lower()))
