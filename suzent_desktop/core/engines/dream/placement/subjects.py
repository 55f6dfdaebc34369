"""Which page a consolidated fact belongs on: pages by subject, as a person would keep them.

* a **person** the user mentions ("User's sister Ana …", "Ana (the user's sister) …", "Fred won …",
  "User advised John …") gets a page of their own, whose first line says who they are when the
  fact says it ("Ana is the user's sister."); a vault that already keeps people as sections of one
  ``People`` page gets a new section there instead;
* **identity** (name, age, origin) goes on the ``About Me`` hub;
* a **past event** goes on the dated ``Timeline`` (oldest first), with the people it names linked
  (``[[Ana]]``) when they have a page; a past event never lands on ``Plans``;
* an **ongoing project or activity** ("User is learning how to play the violin") and a **place**
  ("Italy is on User's list of places to visit") get a page of their own (see
  :mod:`core.dream.topics`); a later fact that names such a page goes there too, unless it is a
  past event or a plan;
* a **plan** (something ahead) goes on ``Plans``;
* one-value relations keep their pages (``works at`` → Work, ``lives in`` → Places);
* otherwise the fact's category names the page (Preferences, Health, Routines, Activities …), and
  an uncategorised fact (a model's facts come as "general") is placed by what it says (a taste, a
  habit, an event), then by the learned judge's subject class (:mod:`core.engines.fact_judge`):
  no catch-all page.

A page's intro carries information (who a person is) or is left out: no template sentence
(see :mod:`core.boilerplate` for the ones older versions wrote).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from suzent_desktop.core.engines.capture import fact_judge
from suzent_desktop.core.engines.capture.fact_judge import judge
from suzent_desktop.core.engines.dream.placement.topics import activity_of, mentioned, mentions, place_of
from suzent_desktop.core.engines.memory_md.memory_selection import view
from suzent_desktop.core.files.language import english
from suzent_desktop.core.files.language.english import STOPWORDS, looks_like_name
from suzent_desktop.core.files.language.markdown import links
from suzent_desktop.core.vault.facts.fact_pages import subject_value

TIMELINE = "Timeline"
PLANS = "Plans"
GENERAL = "General"
PEOPLE = "People"
_RELATION = english.alternation(english.PEOPLE + english.PETS)
_RELATION_WORDS = frozenset(w for w in english.PEOPLE + english.PETS if " " not in w) | {"best"}
# A name as a fact writes it: accents are letters ("Tomás", "Zoë", "Łukasz"); a title goes with the surname
# ("Mrs Okafor", "Dr Patel"): the page is the person's, not "Mrs".
_A_NAME = r"[A-ZÀ-ÖØ-ÞĀ-Ž][a-zà-öø-ÿĀ-ž]+(?:-[A-ZÀ-ÖØ-ÞĀ-Ž][a-zà-öø-ÿĀ-ž]+)?"  # "Anna-Lena" is one name
_TITLED_NAME = rf"(?:(?:Dr|Mr|Mrs|Ms|Miss|Prof)\.? )?{_A_NAME}"
_RELATION_WORD = re.compile(rf"\b(?:{_RELATION}|family|friends|people|parents|kids|children)\b", re.I)
_OWNED = re.compile(rf"\bUser's (?:(?:best|old|new|little|big|younger|older|close) )?(?P<rel>{_RELATION}) "
                    rf"(?:named |called )?(?P<name>{_TITLED_NAME})(?![\w-])")
_NAMED = re.compile(rf"^User's (?P<rel>{_RELATION}) is (?:named |called )?(?!(?:Dr|Mr|Mrs|Ms|Prof)\b)"
                    rf"(?P<name>{_A_NAME})(?![\w.-])")
_ANNOTATED = re.compile(rf"(?<![\w-])(?P<name>{_A_NAME}) \(the user's (?P<rel>[\w -]+?)\)")
# "User adopted a puppy named biscuit": naming makes it a name, whatever its case; what is adopted or
# rescued is a pet or a child whatever the word for it ("adopted a beagle named Biscuit")
_NAMED_NEW = re.compile(rf"^(?:[^,]{{0,60}}?\), )?User (?:(?:[a-z]+ ){{1,3}}(?:a|an|another) (?:[a-z]+ )?(?P<rel>{_RELATION})|"
                        rf"(?:[a-z]+ ){{0,2}}(?:adopted|rescued|fostered) (?:a|an|another) (?:[a-z]+ )?(?P<kind>[a-z]+)) "
                        rf"(?:named|called) (?P<name>[A-Za-z][a-z]+)\b")
# A close relative the user speaks of without a name ("User's mum was diagnosed …"): a page of their own
_KIN = re.compile(rf"^User's (?:(?:{english.alternation(english.KIN_MODIFIERS)}) )?(?P<rel>(?:wife|husband|partner|"
                  r"mother|mom|mum|father|dad|grandmother|grandfather|grandma|grandpa|sister|brother|son|daughter|kids)"
                  r"(?:-in-law)?)\b(?!-| (?:named |called )?[A-Z])")
_LEAD_NAME = re.compile(rf"^(?P<name>{_A_NAME})(?= [a-z])")
# the date a fact resolved: "(10 July 2026)", "(week of 6 July 2026)", "(June 2026)"; older logs wrote "(2026-07-10)"
_PAST_DATE = re.compile(r"\((?:(?:week of )?(?:\d{4}-\d{2}-\d{2}|\d{1,2} [A-Z][a-z]+ \d{4})|[A-Z][a-z]+ \d{4}|\d{4})\)")
_PAST_VERB = re.compile(
    r"^(?:[^,]{0,60}?\), )?User(?:'s [\w ]+?)? (?:(?:just|recently|finally|also|actually|already|first) )?"
    r"(?:went|got|took|made|met|saw|had|visited|started|finished|won|lost|bought|moved|adopted|joined|"
    r"attended|signed|tried|found|read|wrote|ran|completed|celebrated|traveled|travelled|returned|"
    r"organized|organised|explored|learned|learnt|received|gave|painted|played|watched|built|launched|"
    r"graduated|quit|left|came|did|decided|spent|hosted|volunteered|donated|created|posted|performed)\b"
)
_PLAN = re.compile(r"\b(?:plans? to|is planning|is going to|will|wants to|hopes to|is about to|next "
                   r"(?:week|month|year|weekend|summer|spring|fall|winter)|tomorrow)\b", re.I)
_PETS = re.compile(r"^User's (?:\w+ )?(?:dogs?|cats?|pets?|pups?|pupp(?:y|ies)|kittens?|fur babies|fur kids|"
                   r"furry friends|turtles?|rabbits?|horses?|birds?|fish)\b")
# "User is Marisol", "User prefers to be called Alex" (what they asked to be called)
_IDENTITY = re.compile(r"^User (?:is (?:called |named )?|prefers to be called )[A-Z][a-z]+(?: [A-Z][a-z]+)?$")
# a present verb says what the user does as a habit ("User donates to an animal shelter"), unless it says
# what they feel or think ("User finds nature calming", "User believes …"): that is no routine
_PRESENT_HABIT = re.compile(r"^User (?:\w+ly )?(?!(?:is|has|does|was|feels|finds|believes|thinks|hopes|knows|wishes|"
                            r"misses|wonders|emphasi[sz]es|acknowledges|notes|reflects|recommends|encourages|"
                            r"needs|wants|seems|looks)\b)[a-z]+s\b")
_HABIT = re.compile(r"\b(?:usually|always|often|(?:every|each) (?:day|week|morning|evening|night|weekend|month)|"
                    r"once a|twice a|\d+ times a|daily|weekly|regularly)\b")

# Pages whose subject outranks a place or an activity the fact names: a promotion on the Search team is work
_SUBJECT_FIRST = frozenset({"Health", "Work", "About Me"})
CATEGORY_PAGES: dict[str, str] = {}
for _page, _names in {
    "Preferences": "preference preferences like likes taste tastes food music",
    "Work": "work career job jobs professional employment office",
    "People": "people person family relationship relationships friend friends social contact contacts",
    "Places": "place places location home residence city",
    PLANS: "plan plans goal goals schedule todo trip travel",
    "Health": "health fitness diet medical allergy allergies sleep",
    "Dates": "date dates birthday birthdays anniversary anniversaries",
    "Routines": "routine routines habit habits",
    "About Me": "identity profile name bio",
    "Projects": "project projects",
    "Activities": "activity activities",
    "Hobbies": "hobby hobbies interest interests sport sports",
    TIMELINE: "event events timeline",
}.items():
    for _name in _names.split():
        CATEGORY_PAGES[_name] = _page


# The learned judge's subject classes that name a person, and the page for each class a fact
# without a category of its own falls back to: what it is about, never a catch-all.
PERSON_CLASSES = frozenset({"person", "people", "family", "friend", "friends", "relationship", "relationships"})
CLASS_PAGES = {"identity": "About Me", "person": PEOPLE, "place": "Places", "work": "Work", "health": "Health",
               "hobby": "Hobbies", "preference": "Preferences", "plan": PLANS, "event": TIMELINE}


def places_in(text: str) -> set[str]:
    """The place a fact names, as a set (none, or one): a name there is no person."""
    place = place_of(text)
    return {place.name} if place is not None else set()


@dataclass(frozen=True)
class Person:
    name: str
    relation: str | None  # "sister", "dog" … when the fact says

    @property
    def intro(self) -> str:
        return f"{self.name} is the user's {self.relation}." if self.relation else ""


def person_of(text: str, known: set[str] | frozenset[str] = frozenset()) -> Person | None:
    """The person (or animal) a fact is about: one it introduces with their relation to the user
    ("User's sister Ana", "Ana (the user's sister)", "User adopted a puppy named Biscuit"), or one
    with a page already (``known``) whose name opens the fact; else a close relative named by the
    relation alone ("User's mum …" → Mum). A capitalised word alone may be a place or a thing
    ("Italy is …"): a name without a relation is :func:`named_person`'s to decide."""
    for pattern in (_NAMED, _OWNED, _ANNOTATED, _NAMED_NEW):
        match = pattern.search(text)
        if match and match.group("name").lower() not in STOPWORDS:  # "a dog named after her aunt" names no one
            name = match.group("name")
            kind = match.group("rel") or match.groupdict().get("kind") or ""
            return Person(name[:1].upper() + name[1:], kind.strip().lower())
    match = _LEAD_NAME.match(text)
    if match and match.group("name") in known and looks_like_name(match.group("name")):
        return Person(match.group("name"), None)
    kin = _KIN.match(text)
    if kin:
        return Person(kin.group("rel").capitalize(), None)  # "Mum is the user's mum" would say nothing
    return None


def named_person(text: str, subject: str, places: set[str] | frozenset[str] = frozenset(),
                 elsewhere: Callable[[str], bool] = lambda _name: False) -> Person | None:
    """A person the fact names without saying how the user knows them: the one it is about when the
    judge's subject class is a person ("User advised John to stay motivated"), or the name that opens
    a fact about someone else than the user as the subject of a verb other than "be", or with a
    possessive ("Nate won his fourth tournament", "Bruno's favourite band is Radiohead"; "Harry Potter
    is a favorite of the user's" is the user's taste in books). A page a run before made for the name
    is the same page (a person without a relation has no first line that says so). A
    name a place phrase names (``places``), or that a page elsewhere in the vault holds (a project:
    ``elsewhere``), is no person."""
    # a role in capitals ("CTO Marcus") stands before a name, and is none: the person is "Marcus"
    names = [" ".join(w for w in name.split() if not w.isupper()) for name in names_in(text)]
    names = [name for name in names if name and name not in places and not elsewhere(name)]
    if not names or not _may_name_a_person(text, names[0]):
        return None
    if subject in PERSON_CLASSES:
        return Person(names[0], None)
    tokens = english.words(text)
    if any(token.lower() in ("user", "user's") for token in tokens):
        return None
    if not text.startswith(names[0]):
        return None
    lead = len(names[0].split())
    after = tokens[lead] if len(tokens) > lead else ""
    if tokens[lead - 1] != names[0].split()[-1]:  # "Bruno's favourite band is Radiohead": about Bruno
        return Person(names[0], None)
    if english.verb_tag(after) and english.verb_lemma(after.lower()) != "be":
        return Person(names[0], None)
    return None


def _without_units(text: str) -> str:
    """The text without the letters glued to a number ("32GB", "3PM", "10K"): a unit, never a name."""
    kept: list[str] = []
    after_digit = False
    for char in text:
        if after_digit and char.isalpha():
            continue
        after_digit = char.isdigit() or (after_digit and char.isalpha())
        kept.append(char)
    return "".join(kept)


def _may_name_a_person(text: str, name: str) -> bool:
    """A fact about a thing of the user's ("User's laptop is a MacBook … running Sonoma") names no person
    unless the name stands right after the word for what they are ("User's CTO Marcus …")."""
    words = text.split()
    if not words or words[0] != "User's" or len(words) < 3:
        return True
    owned = words[1].lower()
    first = name.split()[0]  # "User's CTO Marcus", "User's team lead Ravi": the name after a role of one or two words
    if f"named {first}" in text or f"called {first}" in text:  # "User's stuffed animal dog is named Tilly"
        return True
    at = next((i for i, w in enumerate(words[:6]) if w.startswith(first)), None)
    return (owned in _RELATION_WORDS or owned.endswith(("'s", "’s")) or at in (2, 3)
            or (at is not None and words[at - 1].lower() in _RELATION_WORDS))  # "User's faithful old dog Daisy"


def names_in(text: str) -> list[str]:
    """The names a fact says, in order: runs of capitalised words that are no ordinary English word
    ("Nate", "Patrick Rothfuss", "Nate's" → "Nate"), outside quoted titles; "User" is the user. A run
    that a capitalised ordinary word goes on ("Mare Street", "Hyde Park") names a place or a thing."""
    found: list[str] = []
    for part in text.split('"')[::2]:  # the words between quotes are a title
        run: list[str] = []
        for token in [*english.words(_without_units(part)), ""]:
            word = token.removesuffix("'s").removesuffix("’s")
            if word[:1].isupper() and word != "User" and len(word) > 1 and looks_like_name(word):
                run.append(word)
                if word == token:
                    continue  # a possessive ends the name
            elif run and word[:1].isupper() and word != "User":
                run = []  # "Mare Street": the street is no person
            if run:
                found.append(" ".join(run))
                run = []
    return list(dict.fromkeys(found))


def next_subject(text: str, skip: frozenset[str] = PERSON_CLASSES) -> str:
    """The learned judge's most likely subject class for ``text`` outside ``skip`` (a person)."""
    scores = judge().subject_scores([text])[0]
    ranked = [fact_judge.SUBJECTS[i] for i in np.argsort(-scores)]
    return next(name for name in ranked if name not in skip)


def subject_class(category: str, tags: tuple[str, ...], text: str) -> str:
    """What a fact is about: its category when that names a page, else the learned judge's subject
    class for its words (a model's facts come as "general"; no word list decides)."""
    if category not in ("general", "") or any(tag.lstrip("#").lower() in CATEGORY_PAGES for tag in tags):
        return category
    return judge().subject(text)


def is_past_event(text: str, category: str) -> bool:
    """Something that happened: an event fact, or a past verb with the date it happened."""
    if category == "event":
        return True
    return bool(_PAST_VERB.search(text)) and (bool(_PAST_DATE.search(text)) or category in ("general", "plan"))


def title_for(
    category: str,
    tags: tuple[str, ...],
    text: str,
    people: set[str] | frozenset[str] = frozenset(),
    topics: set[str] | frozenset[str] = frozenset(),
    employers: set[str] | frozenset[str] = frozenset(),
    elsewhere: Callable[[str], bool] = lambda _name: False,
) -> tuple[str, Person | None]:
    """The page a new fact goes on, and the person when it is a person's page (``people``: the
    names that have a person page already; ``topics``: the titles of place and activity pages;
    ``employers``: organisations someone works for, never a place page; ``elsewhere``: whether a
    page outside the personal zone holds a name, so that a new topic page would duplicate it)."""
    category = category.lower()
    relation = subject_value(text)
    named = _NAMED.match(text)  # "User's sister is Ana": a person, not a value of the user's
    if relation is not None and relation.page and relation.subject == "user" and not named:
        return relation.page, None
    if _IDENTITY.match(text.rstrip(". ")):
        return "About Me", None
    subject = subject_class(category, tags, text)
    person = person_of(text, people) or named_person(text, subject, {*employers, *places_in(text)},
                                                         elsewhere)
    if person is not None:
        return person.name, person
    if subject in PERSON_CLASSES and not _RELATION_WORD.search(text):
        # about a person, says the judge, yet no one is named nor related to the user ("User's laptop
        # crashed"): the judge's next subject, not a People page of things that are no people
        subject = next_subject(text)
        category = subject if category in PERSON_CLASSES else category
    if subject == "identity" and view(text):  # "User is grateful for …" says how they felt, not who they are
        subject = next_subject(text, frozenset({"identity", *PERSON_CLASSES}))
        category = subject if category == "identity" else category
    if CATEGORY_PAGES.get(category) in _SUBJECT_FIRST:  # an allergy said in Porto is health, not Porto
        return CATEGORY_PAGES[category], None
    for tag in tags:
        name = tag.lstrip("#").lower()
        if category == "general" and name in CATEGORY_PAGES:
            return CATEGORY_PAGES[name], None
    planned = category == "plan" or (category == "general" and bool(_PLAN.search(text)))
    activity = None if planned else activity_of(text)
    if activity is not None:
        title = same_topic(activity.name, topics)
        if title in topics or not elsewhere(title):
            return title, None
    if is_past_event(text, category):
        return TIMELINE, None
    if planned:
        return PLANS, None
    if relation is not None and relation.page:
        return relation.page, None
    topic = mentioned(text, topics) or getattr(place_of(text, {*people, *employers}), "name", None)
    if topic is not None and (topic in topics or not elsewhere(topic)):
        return topic, None
    if category in CATEGORY_PAGES and category not in ("general",):
        return CATEGORY_PAGES[category], None
    for tag in tags:
        name = tag.lstrip("#").lower()
        if name in CATEGORY_PAGES:
            return CATEGORY_PAGES[name], None
    if subject == "preference":  # a taste, whatever words say it: the judge's class, not a list of verbs
        return CLASS_PAGES[subject], None
    if _PETS.search(text):
        return "Pets", None
    if _HABIT.search(text) or _PRESENT_HABIT.search(text):
        return "Routines", None
    if category in ("general", ""):
        return CLASS_PAGES.get(subject, GENERAL), None
    return re.sub(r"[^\w -]+", "", category.replace("_", " ").replace("-", " ")).strip().title() or GENERAL, None


def link_people(text: str, people: set[str], topics: set[str] | frozenset[str] = frozenset()) -> str:
    """The first mention of each person, place or activity that has a page becomes a link ("… with
    [[Ana]] …", "… [[Piano|piano]] …"): a person by their name as written, a place or an activity
    whatever its case, the words the reader sees unchanged."""
    names = [(name, True) for name in people] + [(name, False) for name in topics if name not in people]
    for name, person in sorted(names, key=lambda item: len(item[0]), reverse=True):
        spans = [(link.start, link.end) for link in links(text)]
        found = re.finditer(rf"\b{re.escape(name)}\b", text) if person else mentions(text, name)
        for match in found:
            if not any(start <= match.start() < end for start, end in spans):
                shown = name if match.group() == name else f"{name}|{match.group()}"
                text = f"{text[: match.start()]}[[{shown}]]{text[match.end():]}"
                break
    return text


def same_topic(name: str, topics: set[str] | frozenset[str]) -> str:
    """The page an activity named ``name`` belongs on: an existing page whose name shares every
    word with it ("Movie" → "Movie script"), or a page of its own."""
    words = set(name.lower().split())
    for title in sorted(topics, key=len):
        other = set(title.lower().split())
        if words <= other or other <= words:
            return title
    return name


SUBJECTLESS = frozenset({*CATEGORY_PAGES.values(), TIMELINE, PLANS, GENERAL, "Pets", "Preferences", "Routines"})


def topic_page(title: str, text: str, hub: str) -> bool:
    """A page about a place or an activity: a personal page that is neither a category page, the
    Timeline, Plans, the hub nor a person's page."""
    return title not in SUBJECTLESS and title != hub and not person_page(text, title)


def person_page(text: str, title: str) -> bool:
    """A page the consolidator keeps about a person: its first line after the title says who they are."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    return bool(lines) and lines[0].startswith(f"{title} is the user's ")
