"""Reading notebook pages as the consolidator, lint and promotion see them.

A personal page is ordinary markdown that people also edit, so the parser is a light
overlay on its lines: bullets are recognised (``- text (2026-07-01, 2026-07-03)``,
``- ~~old~~ (2026-06-01, until 2026-07-01)``), everything else is kept as raw lines and
written back byte for byte. The subject rules (``works at X`` vs ``works at Y``) are shared by
the consolidator, which supersedes, and lint, which reports contradictions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from suzent_desktop.core.files.language.markdown import code_lines, frontmatter_lines, links, only_links
from suzent_desktop.core.vault.facts.fact_bullets import (
    HistoryTracker,
    format_fact,
    heading,
    is_history_heading,
    item_fact,
    list_item,
)

_WORD_RE = re.compile(r"[\w']+")
_NEGATIONS = frozenset({"not", "no", "never", "doesn't", "don't", "isn't", "won't", "cannot", "can't", "nor"})
_STOPWORDS = frozenset(
    {"a", "an", "the", "to", "of", "and", "or", "in", "on", "at", "for", "with", "is", "are", "was", "be",
     "user", "user's", "their", "now", "currently", "really", "also", "very", "still", "just", "that", "this"}
)


@dataclass
class Bullet:
    """One bullet line; ``raw`` is written back unchanged unless the bullet was edited."""

    raw: str
    text: str
    dates: list[str] = field(default_factory=list)
    until: str | None = None
    struck: bool = False
    indent: str = ""
    dirty: bool = False
    mark: str = "-"  # "-", "*", "+" or "1." as written: an edited bullet keeps it
    task: str = ""  # a task box ("[ ]") before the fact, kept when the bullet is edited

    @property
    def latest(self) -> str | None:
        return max(self.dates) if self.dates else None

    def add_date(self, date: str) -> bool:
        if date in self.dates:
            return False
        self.dates = sorted({*self.dates, date})
        self.dirty = True
        return True

    def render(self) -> str:
        if not self.dirty:
            return self.raw
        return format_fact(
            self.text, self.dates, until=self.until, struck=self.struck, indent=self.indent, mark=self.mark, task=self.task
        )


def format_bullet(text: str, dates: list[str], *, until: str | None = None, struck: bool = False, indent: str = "") -> str:
    return format_fact(text, dates, until=until, struck=struck, indent=indent)


def is_blank(item: str | Bullet) -> bool:
    """A blank line of a page (bullets are never blank)."""
    return isinstance(item, str) and not item.strip()


def parse_bullet(line: str) -> Bullet | None:
    """A list item as a fact bullet (the grammar of ``core/vault/facts/fact_bullets.py``); None for other lines."""
    item = list_item(line.rstrip())
    if item is None or not item.body.strip():
        return None
    fact = item_fact(item.body)
    return Bullet(
        raw=line, text=fact.text, dates=list(fact.dates), until=fact.until, struck=fact.struck,
        indent=item.indent, mark=item.mark, task=item.task,
    )


class CodeLine(str):
    """A raw line of frontmatter or code: kept byte for byte, never read as a heading or a bullet."""

    __slots__ = ()


@dataclass
class PageDoc:
    """A page as items: raw lines (str) and bullets (Bullet), in file order."""

    items: list[str | Bullet]
    trailing_newline: bool = True

    @classmethod
    def parse(cls, text: str) -> PageDoc:
        items: list[str | Bullet] = []
        front = frontmatter_lines(text)
        lines = [raw.rstrip("\r") for raw in text.splitlines()]
        code = code_lines(lines)
        for index, line in enumerate(lines):
            if index < front or code[index]:
                items.append(CodeLine(line))
                continue
            bullet = parse_bullet(line)
            items.append(bullet if bullet is not None and not bullet.indent else line)
        return cls(items=items, trailing_newline=text.endswith("\n") or not text)

    def render(self) -> str:
        lines = [item.render() if isinstance(item, Bullet) else item for item in self.items]
        return "\n".join(lines) + ("\n" if self.trailing_newline else "")

    def history_index(self) -> int | None:
        for index, item in enumerate(self.items):
            if isinstance(item, str) and not isinstance(item, CodeLine) and is_history_heading(item):
                return index
        return None

    def current_bullets(self) -> list[Bullet]:
        """Bullets neither struck through nor under a History heading (of any level, until the next
        heading of its level or higher), as search reads them."""
        history = HistoryTracker()
        current: list[Bullet] = []
        for item in self.items:
            if isinstance(item, Bullet):
                if not history.feed("") and not item.struck:
                    current.append(item)
            elif not isinstance(item, CodeLine):
                history.feed(item)
        return current

    def add_current(self, bullet: Bullet) -> None:
        """After the last fact bullet before History (or before History / at the end); facts go
        before a list of bare links (the hub's pages), not among them."""
        end = self.history_index()
        limit = len(self.items) if end is None else end
        last = first_link = None
        for index in range(limit):
            item = self.items[index]
            if isinstance(item, Bullet) and only_links(item.text):
                first_link = index if first_link is None else first_link
            elif isinstance(item, Bullet):
                last = index
        if last is not None:
            self.items.insert(last + 1, bullet)
            return
        if first_link is not None:
            self.items[first_link:first_link] = [bullet, ""]
            return
        position = limit
        while position > 0 and is_blank(self.items[position - 1]):
            position -= 1
        blank_follows = position < len(self.items) and is_blank(self.items[position])
        added: list[str | Bullet] = ["", bullet]
        self.items[position:position] = added + ([""] if end is not None and not blank_follows else [])

    def add_near(self, anchor: Bullet, bullet: Bullet) -> None:
        """At the end of the run of bullets that holds ``anchor`` (its section), before History."""
        end = self.history_index()
        limit = len(self.items) if end is None else end
        position = next((i for i, item in enumerate(self.items) if item is anchor), None)
        if position is None or position >= limit:
            self.add_current(bullet)
            return
        while position + 1 < limit and isinstance(self.items[position + 1], Bullet):
            position += 1
        self.items.insert(position + 1, bullet)

    def add_history(self, bullet: Bullet) -> None:
        end = self.history_index()
        if end is None:
            while self.items and isinstance(self.items[-1], str) and not self.items[-1].strip():
                self.items.pop()
            self.items += ["", "## History", "", bullet]
            return
        self.insert_in_section(end, bullet)

    def insert_in_section(self, start: int, bullet: Bullet, *, level: int = 6) -> None:
        """Put ``bullet`` after the last bullet of the section whose heading stands at ``start`` (right
        under the heading when it has none), so a paragraph at the section's end stays where it was.
        The section ends at the next heading of ``level`` or higher (any heading by default)."""
        last = None
        for index in range(start + 1, len(self.items)):
            item = self.items[index]
            found = heading(item) if isinstance(item, str) and not isinstance(item, CodeLine) else None
            if found is not None and found[0] <= level:
                break
            if isinstance(item, Bullet):
                last = index
        if last is not None:
            self.items.insert(last + 1, bullet)
        else:
            self.items[start + 1:start + 1] = ["", bullet]

    def replace(self, old: Bullet, new: Bullet) -> None:
        for index, item in enumerate(self.items):
            if item is old:
                self.items[index] = new
                return
        raise ValueError("bullet not on this page")


# -- text comparison --------------------------------------------------------------------------
def dup_norm(text: str) -> str:
    """Text for exact-duplicate checks: case, punctuation, spacing and 'now/currently' ignored, a
    link read as the words it shows ("[[Piano|piano]]" is "piano")."""
    for link in reversed(links(text)):
        text = text[: link.start] + link.label + text[link.end:]
    words = _WORD_RE.findall(text.lower().replace("’", "'"))
    return " ".join(w for w in words if w not in ("now", "currently"))


def content_words(text: str) -> set[str]:
    return {w for w in _WORD_RE.findall(text.lower()) if w not in _STOPWORDS}


def negations(text: str) -> set[str]:
    """The negating words of ``text`` ("not", "never", "doesn't"): one more or less reverses a fact."""
    return set(_WORD_RE.findall(text.lower())) & _NEGATIONS


def may_be_same_fact(a: str, b: str) -> bool:
    """False when two similar-looking texts differ in substance: a negation, a number, or a
    word swapped for another on both sides (``likes tea`` vs ``likes coffee``)."""
    wa, wb = set(_WORD_RE.findall(a.lower())), set(_WORD_RE.findall(b.lower()))
    if (wa & _NEGATIONS) != (wb & _NEGATIONS):
        return False
    if set(re.findall(r"\d+", a)) != set(re.findall(r"\d+", b)):
        return False
    ca, cb = content_words(a), content_words(b)
    return not (ca - cb and cb - ca)


# Cosine above which two facts count as the same statement. Tuned for the hashing embedder
# (words + character trigrams), where rewordings of one sentence land at 0.93–0.99 and
# different facts sharing a template stay below 0.9; MiniLM behaves similarly at this level.
NEAR_DUPLICATE_THRESHOLD = 0.92


def near_duplicate(a: str, b: str, cosine: float) -> bool:
    """The consolidator's near-duplicate rule: close embeddings and no difference in substance."""
    return cosine >= NEAR_DUPLICATE_THRESHOLD and may_be_same_fact(a, b)


def restates(bullet: str, fact: str) -> bool:
    """True when ``fact`` sets the same subject and relation to the value ``bullet`` already holds,
    or to a shorter mention of it ("works at Contoso" after "works at Contoso as a data engineer")."""
    held, said = subject_value(bullet), subject_value(fact)
    if held is None or said is None or held.key != said.key:
        return False
    old, new = dup_norm(held.value), dup_norm(said.value)
    return old == new or old.startswith(new + " ")


# A word of time between the subject and the verb ("User finally moved to Graz") still sets the value.
_WHEN = r"(?:(?:now|currently|recently|just|finally) )?"
_SUBJECT_ALIASES = {"the user": "user", "user": "user", "i": "user", "the user's": "user's", "my": "user's"}
_RELATIONS: list[tuple[str, re.Pattern[str]]] = [
    ("works as", re.compile(rf"^(?P<s>.+?) {_WHEN}works as (?:an? )?(?P<v>.+)$")),
    # a job said as what the user now is, where: "User is now a UX designer at Brightpath" (the place keeps
    # "User is now a vegan" and "User has become a fan of jazz" out)
    ("works as", re.compile(r"^(?P<s>.+?) (?:is now|is currently|has become|became|now is) an? "
                            r"(?P<v>(?:[\w'-]+ ){1,4}(?:at|for) .+)$")),
    ("employer", re.compile(
        rf"^(?P<s>.+?) {_WHEN}(?:works|is (?:now |currently |still )?working|started working|is employed|"
        r"started a new job|started|has started) (?:at|for) (?P<v>.+)$")),
    ("employer", re.compile(rf"^(?P<s>.+?) {_WHEN}joined (?P<v>.+)$")),  # unless unnamed: _joins_something_unnamed
    ("residence", re.compile(
        rf"^(?P<s>.+?) {_WHEN}(?:lives|is living|moved|has moved|relocated|is based)"
        r" (?:in|to) (?P<v>.+)$")),
    ("favorite", re.compile(r"^(?P<s>.+?)(?:'s|s') favou?rite (?P<w>[\w -]+?) is (?P<v>.+)$")),
    ("is", re.compile(
        r"^(?P<s>.+?)(?:'s|s') (?:(?:new|current) )?(?P<w>wife|husband|partner|girlfriend|boyfriend|boss|manager|"
        r"dentist|doctor|therapist|name|birthday|job title|title|role|employer|team|car|phone|email|address)"
        r"(?: (?:at|for|on) [\w'&. -]+?)? is "
        r"(?:named |called |on )?(?P<v>.+)$")),
    ("drives", re.compile(r"^(?P<s>.+?) (?:now )?drives (?:an? )?(?P<v>.+)$")),
]
RELATION_PAGE = {"works as": "Work", "employer": "Work", "residence": "Places", "favorite": "Preferences",
                 "drives": "About Me"}  # the car the user drives now: who they are, not a catch-all
IS_PAGE = {"wife": "People", "husband": "People", "partner": "People", "girlfriend": "People",
           "boyfriend": "People", "boss": "Work", "manager": "Work", "dentist": "Health", "doctor": "Health",
           "therapist": "Health", "name": "About Me", "birthday": "Dates", "job title": "Work", "title": "Work",
           "role": "Work", "employer": "Work", "team": "Work"}


# A relation that one person fills: its value is who fills it ("User's husband is Tom"). What the person is
# ("… is diabetic", "… is a teacher") is a fact about them that a later name must not strike from the page.
_WHO_ROLES = frozenset("wife husband partner girlfriend boyfriend boss manager dentist doctor therapist".split())


def _names_someone(said: str, clean: str, match: re.Match[str]) -> bool:
    """The value opens with a name ("Tom", "Dr. Okafor"); in lower-cased text every value may be one."""
    return len(said) != len(clean) or said[match.start("v")].isupper()


def _joins_something_unnamed(said: str, clean: str, match: re.Match[str]) -> bool:
    """Whether the fact joins or starts at something it does not name: "joined a chess club", "started at
    a new gym" are a group among many, not the one employer a new value replaces (a club joined later must
    not strike the first from the page, nor end the user's job). "Joined Fabrikam", "started at Contoso"
    name an organisation; "works at a bakery" says work whatever the name."""
    verbs = clean[match.end("s"):match.start("v")].split()
    joins = "joined" in verbs or verbs[-2:-1] == ["started"]
    named = said[match.start("v"):match.start("v") + 1].isupper() if len(said) == len(clean) else True
    return joins and not named


@dataclass(frozen=True)
class SubjectValue:
    key: str  # subject + relation, e.g. "user|employer" or "user's sister|is:boss"
    value: str
    page: str | None  # the personal page this relation belongs on
    subject: str = "user"


def subject_value(text: str) -> SubjectValue | None:
    """The (subject, relation) a fact sets and its value, for the relations that hold one value."""
    said = " ".join(text.replace("’", "'").split()).rstrip(".!;,")
    clean = said.lower()
    for relation, pattern in _RELATIONS:
        match = pattern.match(clean)
        if not match or (relation == "employer" and _joins_something_unnamed(said, clean, match)):
            continue
        if relation == "is" and match.group("w") in _WHO_ROLES and not _names_someone(said, clean, match):
            return None  # "User's husband is diabetic" says what he is, not who: no value to replace
        subject = match.group("s").strip()
        subject = _SUBJECT_ALIASES.get(subject, subject)
        value = match.group("v").strip().rstrip(".")
        what = match.groupdict().get("w")
        if not value or len(subject.split()) > 5:
            return None
        key = f"{subject}|{relation}" + (f":{what}" if what else "")
        page = IS_PAGE.get(what or "") if relation == "is" else RELATION_PAGE.get(relation)
        if relation == "is" and subject not in ("user", "user's") and page in ("People", "About Me", "Dates"):
            page = "People"
        if relation != "is" and subject != "user":
            page = "People" if subject.startswith("user's ") else None  # someone else's job or home
        return SubjectValue(key=key, value=value, page=page, subject=subject)
    return None

