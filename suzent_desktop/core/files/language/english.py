"""The one English language layer every engine reads: words, sentences, verb forms, the word list.

Verb forms and lemmas come from lemminflect (its dictionary of English inflections), the stemmer
is Snowball's, sentence ends are syntok's, and the word list with its counts is pyspellchecker's.
Nothing here spells an inflection table or a list of irregular verbs by hand: a word list spelled
twice drifts apart ("User caught …" passed where "User bought …" did not).

The word list is read with a pattern, word by word, rather than through ``SpellChecker``: that
parses the 2.7 MB list with one ``json.loads`` call, which holds the interpreter lock for about
0.1 s, and the first fact checked in a dream then froze the window (``bench/ui_stall.py``).
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
import pkgutil
import re
from functools import lru_cache

import lemminflect
import snowballstemmer
from syntok import segmenter

_LATIN = "A-Za-zÀ-ÖØ-öø-ɏ"  # with accents: "Tomás", "Zoë", "Søren", "Łukasz" are one word each
WORD_RE = re.compile(rf"[{_LATIN}][{_LATIN}'’-]*|\d+")
_ENTRY = re.compile(r'"((?:[^"\\]|\\.)*)":\s*(\d+)')
# Within a sentence syntok finds, a line break, a semicolon or a dash between spaces (not before "a"/"an":
# see :func:`sentences`) ends a statement too, and so does "!", "?" or a full stop after a word (not "etc.",
# "vs.", "no.", not "e.g.") before a small letter: chat writes "omg hi!! sorry I've been away. we just got back" in lower
# case, where syntok waits for a capital.
_STATEMENT_BREAK = re.compile(r"\n+|;\s+|\s+[-–—]\s+(?!(?:an?|\d+|two|three|four|five|six|seven|eight|nine|ten)\s)|(?<=[!?])\s+(?=[A-Za-z])|(?:(?<=\blol)|(?<=\blmao)|(?<=\bhaha)|(?<=\bomg))\s+(?=[Ii]\b|[Ii]'m\b)|(?<=[\u2600-\u27bf\U0001f300-\U0001faff])\s+(?=[A-Za-z0-9])|(?:(?<=[a-z]{2}\.)|(?<=[a-z]{2}\)\.))(?<!etc\.)(?<!\bvs\.)(?<!\bno\.)(?<!\bca\.)(?<!\bcf\.)(?<!\bal\.)\s+(?=[a-z])")
SHOUTED_MIN_FREQUENCY = 1e-6  # "internship" is a word, "nascar" and "ucla" are names
NAME_MAX_FREQUENCY = 4.5e-6  # "Fred", "John", "Max" are rarer as words than "Nature", "Family", "Epic"
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")  # date.weekday() order
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")  # month 1 first (not strftime's %B: that follows the machine's locale)
CALENDAR = frozenset((*WEEKDAYS, *MONTHS, "today", "tomorrow", "yesterday"))


def date_words(iso: str) -> str:
    """An ISO date's month as a question names it ("2023-11-17" → "November 2023"); "" when it is none.
    The day is left out: "17" matched every row that counts seventeen of anything."""
    try:
        day = dt.date.fromisoformat(iso)
    except ValueError:
        return ""
    return f"{MONTHS[day.month - 1].capitalize()} {day.year}"


# Evaluative adjectives: they say how something felt, not what it was (page titles leave them out).
EVALUATIVE = frozenset(
    "unexpected unbelievable coolest nicest greatest biggest best worst memorable epic fabulous gorgeous "
    "stunning perfect terrible awful horrible delicious tasty yummy interesting exciting boring random weird "
    "strange unique successful rough scary challenging fantastic incredible amazing awesome great cool nice "
    "fun good bad tough hard big huge small wonderful beautiful lovely special crazy wild cute rad tiring "
    "relaxing stressful hectic intense insane magical adorable sweet brilliant excellent superb "
    "massive tremendous enormous productive meaningful fulfilling inspiring".split()
)
# Who a person is to the user ("my sister Ana", "our neighbour"), and the animals they keep: every engine
# that reads a relation reads these (capture's "my …" and the dream's person pages). Longest first, as an
# alternation of a regular expression: "best friend" before "friend", "kids" before "kid".
PEOPLE = tuple(sorted(set(
    "wife husband partner girlfriend boyfriend fiance fiancee fiancé fiancée boss manager friend mate buddy "
    "brother sister mother mom mum father dad son daughter kid kids children baby colleague coworker co-worker "
    "cousin aunt uncle grandmother grandfather grandma grandpa grandad granddad gran granny nan nana nephew niece neighbor neighbour doctor dentist "
    "therapist roommate flatmate housemate teammate bandmate classmate mentor coach student teacher parents "
    "in-laws mother-in-law father-in-law sister-in-law brother-in-law son-in-law daughter-in-law grandson "
    "granddaughter grandchild grandchildren grandkids stepson stepdaughter stepmum stepmom stepdad stepfather "
    "stepmother stepbrother stepsister godson goddaughter godmother godfather".split())
    | {"best friend", "best mate"}, key=lambda w: (-len(w), w)))
# The relations that say a person's sex: "he" after "my wife" is someone else (her dog, a friend).
FEMALE = frozenset("wife girlfriend fiancee fiancée mother mom mum sister daughter aunt grandmother grandma gran granny "
                   "nan nana niece granddaughter stepdaughter stepmum stepmom stepmother stepsister goddaughter "
                   "godmother mother-in-law sister-in-law daughter-in-law".split())
MALE = frozenset("husband boyfriend fiance fiancé brother father dad son uncle grandfather grandpa grandad granddad "
                 "nephew grandson stepson stepdad stepfather stepbrother godson godfather father-in-law brother-in-law "
                 "son-in-law".split())
# Words said before a relation that keep it the same person ("my little brother", "our late gran").
KIN_MODIFIERS = ("late", "elderly", "dear", "little", "older", "younger", "big", "baby", "twin", "eldest", "oldest",
                 "youngest")
PETS = tuple(sorted(set("dog cat puppy pup kitten rabbit parrot tortoise hamster horse budgie ferret lizard snake "
                        "turtle".split()) | {"guinea pig"}, key=lambda w: (-len(w), w)))


def alternation(words: tuple[str, ...]) -> str:
    """``words`` as a regular expression's alternation (escaped)."""
    return "|".join(re.escape(w) for w in words)


# Function words: they never say what a line is about (search ignores them, the judge counts the rest).
STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been being below between
    both but by can could did do does doing down during each few for from further had has have having he
    her here hers herself him himself his how i if in into is it its itself just me more most my myself no
    nor not of off on once only or other our ours ourselves out over own same she should so some such than
    that the their theirs them themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your yours yourself
    yourselves s t ll ve re d m user users now currently""".split()
)
# Words that count things ("three marathons", "a few books", "several times")
COUNT_WORDS = frozenset("two three four five six seven eight nine ten twelve several few couple dozen many".split())
MODALS = frozenset("can will would should could must might may shall ought".split())
# the words a statement of the user's own opens with ("I", "I'm", "we've" …), lower case with a straight apostrophe
FIRST_PERSON_OPENINGS = frozenset("i i'm i've i'll i'd we we're we've we'll we'd".split())
# the words a statement of the user's opens with: they speak ("I …", "we …") or of theirs ("my …", "our …")
OWN_OPENINGS = FIRST_PERSON_OPENINGS | {"my", "our"}
PREPOSITIONS = frozenset("at in on to with for about from into by of out up".split())
# the finite forms of "be", "have" and "do" that tell a clause's tense ("has"/"have" tell it by what follows)
PAST_AUXILIARIES = frozenset("was were had did".split())
PRESENT_AUXILIARIES = frozenset("is are am do does".split())
_stemmer = snowballstemmer.stemmer("english")


def words(text: str) -> list[str]:
    """The words and numbers of ``text``, as every engine counts them."""
    return WORD_RE.findall(text)


def sentences(text: str) -> list[str]:
    """The sentences of ``text``, stripped, empty ones left out: syntok's, which know initials ("J.K.
    Rowling"), titles ("Dr. Almeida") and a sentence that ends inside quotes ("called "Home." It is …").
    A dash ends a sentence unless what follows says what the thing before it is ("a new project - a
    thriller set in Ohio" is one statement) or it stands inside quotes ("Turn on the light - happiness
    hides …" is one quotation)."""
    found = [text[tokens[0].offset: tokens[-1].offset + len(tokens[-1].value)]
             for paragraph in segmenter.analyze(text) for tokens in paragraph if tokens]
    return [part.strip() for sentence in found for part in _statements(sentence) if part.strip()]


def _statements(sentence: str) -> list[str]:
    parts, start = [], 0
    for match in _STATEMENT_BREAK.finditer(sentence):
        before = sentence[start: match.start()]
        if "\n" not in match.group() and (before.count('"') % 2 or before.count("“") > before.count("”")):
            continue  # inside a quotation (a line break always ends the statement, and a quote left open)
        parts.append(sentence[start: match.start()])
        start = match.end()
    return [*parts, sentence[start:]]


@lru_cache(maxsize=16384)
def stem(word: str) -> str:
    """Snowball's English stem of a lower-cased word."""
    return _stemmer.stemWord(word.lower())


@lru_cache(maxsize=16384)
def verb_lemma(word: str) -> str:
    """The plain form of a verb ("bought" → "buy"), or '' when the word is no verb form lemminflect knows."""
    lemmas = lemminflect.getAllLemmas(word.lower(), upos="VERB").get("VERB") or lemminflect.getAllLemmas(
        word.lower(), upos="AUX").get("AUX")
    return lemmas[0] if lemmas else ""


@lru_cache(maxsize=16384)
def verb_tag(word: str) -> str:
    """The Penn tag of a verb form: VBD (past), VBN, VBG, VBZ, VB; '' for a word that is no verb form."""
    lowered = word.lower()
    lemma = verb_lemma(lowered)
    if not lemma:
        return ""
    for tag in ("VBD", "VBG", "VBZ", "VBN", "VB"):
        if lowered in lemminflect.getInflection(lemma, tag=tag):
            return tag
    return "VB"


def names_or_describes(word: str) -> bool:
    """A word lemminflect knows as a noun or an adjective ("car", "amazing", "married"; not "went", "moved")."""
    return bool({"NOUN", "ADJ"} & set(lemminflect.getAllLemmas(word.lower())))


def is_adjective(word: str) -> bool:
    """A word lemminflect knows as an adjective ("pregnant", "engaged", "happy")."""
    return bool(lemminflect.getAllLemmas(word.lower(), upos="ADJ").get("ADJ"))


def is_noun(word: str) -> bool:
    """A word lemminflect knows as a noun ("name", "band", "work")."""
    return bool(lemminflect.getAllLemmas(word.lower(), upos="NOUN").get("NOUN"))


def is_plural_noun(word: str) -> bool:
    """A noun in its plural form ("scarves", "candles"), as lemminflect reads it."""
    lowered = word.lower()
    nouns = lemminflect.getAllLemmas(lowered, upos="NOUN").get("NOUN") or ()
    return bool(nouns) and lowered not in nouns


_VERBS_ALWAYS = MODALS | PAST_AUXILIARIES | PRESENT_AUXILIARIES | {"has", "have"}


def states_something(words: list[str]) -> bool:
    """Whether the words after a noun phrase's opening hold its verb: an auxiliary or modal, a contraction, a past
    or third-person form that is no plural noun, or any verb form after a plural noun or a name ("parents live",
    "Ana works"), or a third-person form after a word no adjective ("sister works", "sis graduates").
    "User's childhood dog" names and states nothing ("dog" is a verb form too, which is why the order counts)."""
    bare = [w.strip(".,!?;:\"") for w in words]
    return any(word.lower() in _VERBS_ALWAYS or "'" in word[1:] or _a_verb_after(word, bare[at - 1] if at else "")
               for at, word in enumerate(bare))


def _a_verb_after(word: str, before: str) -> bool:
    """``word`` is the verb, read with the word before it (see :func:`states_something`)."""
    tag = verb_tag(word) if word.islower() else ""
    if not tag:
        return False
    if tag in ("VBD", "VBZ") and not is_plural_noun(word) or is_plural_noun(before) or before[:1].isupper():
        return True
    return tag == "VBZ" and bool(before) and (is_noun(before) or not is_adjective(before))


def is_past(word: str) -> bool:
    """A past-tense verb form ("went", "adopted", "caught")."""
    return verb_tag(word) in ("VBD", "VBN") and word.lower() not in ("been",)


@lru_cache(maxsize=4096)
def third_person_verb(verb: str) -> str:
    """The form after "User" of a verb said after "I": "love" → "loves", "am" → "is", "went" → "went"."""
    lowered = verb.lower()
    if lowered == "am":
        return "is"
    if verb_lemma(lowered) != lowered or lowered in MODALS or lowered in lemminflect.getInflection(lowered, tag="VBD"):
        return verb  # a past form ("went", "set"), a modal ("can"), no verb: the same after any subject
    return present_third_person(verb)  # "run": a plain form before it is a participle


def verb_form(verb: str, tag: str) -> str | None:
    """A verb's form by its Penn tag ("VBD" of "finish" is "finished", "VBN" of "make" is "made"); None when
    lemminflect knows no such form."""
    forms = lemminflect.getInflection(verb.lower(), tag=tag)
    return forms[0] if forms else None


def present_third_person(verb: str) -> str:
    """The present form after "User" of a verb's plain form, also one its past shares: "read" → "reads"."""
    forms = lemminflect.getInflection(verb.lower(), tag="VBZ")
    if not forms:
        return verb
    return verb[0] + forms[0][1:] if verb[:1].isupper() else forms[0]


class Lexicon:
    """Lower-cased English words with how often each is used."""

    def __init__(self, counts: dict[str, int]) -> None:
        self._counts = counts
        self._total = sum(counts.values()) or 1

    def __contains__(self, word: object) -> bool:
        return word in self._counts

    def word_usage_frequency(self, word: str) -> float:
        """The share of all counted words that are ``word`` (0 for a word not in the list)."""
        return self._counts.get(word, 0) / self._total


def parse(text: str) -> Lexicon:
    """The word list from the text of a ``{"word": count, ...}`` file."""
    counts: dict[str, int] = {}
    for match in _ENTRY.finditer(text):
        word = match.group(1)
        if "\\" in word:
            word = json.loads(f'"{word}"')
        word = word.lower()
        counts[word] = counts.get(word, 0) + int(match.group(2))
    return Lexicon(counts)


@lru_cache(maxsize=1)
def lexicon() -> Lexicon:
    """pyspellchecker's English list, read once on first use."""
    import spellchecker  # imported by name, so that a packaged app carries the package with its data

    data = pkgutil.get_data(spellchecker.__name__, "resources/en.json.gz")  # as the package itself reads it
    if data is None:
        raise FileNotFoundError("spellchecker's English word list (resources/en.json.gz) is missing")
    return parse(gzip.decompress(data).decode("utf-8"))


@lru_cache(maxsize=16384)
def is_english_word(word: str) -> bool:
    """Whether ``word`` is in the English word list or is an inflection lemminflect knows of one."""
    lowered = word.lower().replace("’", "'")
    if lowered in lexicon():
        return True
    if any(lemma in lexicon() for lemmas in lemminflect.getAllLemmas(lowered).values() for lemma in lemmas):
        return True
    # "repotted", "rewatched", "unfollowed", "upcycled": a verb the word list lacks, made of one it holds
    prefix = next((p for p in VERB_PREFIXES if lowered.startswith(p) and len(lowered) - len(p) >= 4), None)
    rest = lowered[len(prefix):] if prefix else ""
    return bool(rest) and rest in lexicon() and bool(verb_lemma(rest))


VERB_PREFIXES = ("re", "un", "up", "out", "over", "under", "pre", "mis", "dis", "de", "co")


def looks_like_name(word: str) -> bool:
    """A capitalised word names someone unless it is a common English word, a gerund ("Writing")
    or the plural of a word ("Pets")."""
    lowered = word.lower()
    if lowered in CALENDAR:
        return False
    if lowered not in lexicon():
        return not is_english_word(lowered)
    if verb_tag(lowered) == "VBG" or lemminflect.getAllLemmas(lowered, upos="NOUN").get("NOUN", (lowered,))[0] != lowered:
        return False
    return lexicon().word_usage_frequency(lowered) < NAME_MAX_FREQUENCY


def indefinite_article(phrase: str) -> str:
    """"a" or "an" before a phrase, by how its first word is said ("an apple", "a unicorn", "an umbrella")."""
    word = phrase.lower()
    return "an" if word[:1] in ("a", "e", "i", "o") or (word[:1] == "u" and not word.startswith(("uni", "us", "ut"))) else "a"


# A quick message often leaves out apostrophes ("shes", "dont") and writes "i": the words are read as they
# are meant. Only spellings that are no other word are filled in ("its", "ill", "were", "well", "id" are words).
_WITHOUT_APOSTROPHE = {
    **{f"{stem}nt": f"{stem}n't" for stem in "do did does is was are were have has had could would should".split()},
    "cant": "can't", "wont": "won't", "im": "I'm", "ive": "I've", "i": "I", "i'm": "I'm", "i've": "I've",
    "i'd": "I'd", "i'll": "I'll", "shes": "she's", "hes": "he's", "thats": "that's", "theres": "there's",
    "whats": "what's", "youre": "you're", "theyre": "they're", "weve": "we've", "theyve": "they've",
    "youve": "you've", "u": "you", "tmrw": "tomorrow", "tmr": "tomorrow",
    "bc": "because", "cuz": "because", "coz": "because", "bcuz": "because",
    "gf": "girlfriend", "bff": "best friend", "hubby": "husband", "bro's": "brother's", "sis's": "sister's",
    # a day or month written in lower case is still a date ("on monday", "in june"); "may" and "march" are words
    **{day: day.capitalize() for day in (*WEEKDAYS, *MONTHS) if day not in ("may", "march")},
}


def _shouted(core: str, at_least: float) -> bool:
    return len(core) >= 2 and core.isalpha() and core.isupper() and lexicon().word_usage_frequency(core.lower()) >= at_least


def _unshouted(words: list[str]) -> list[str]:
    """Words written in capitals for emphasis in lower case ("GOT THE INTERNSHIP", "she STILL hasn't"): two
    or more words in a row, or a common one of four letters or more. An acronym ("ICU", "UCLA", "ASAP") is
    a rare word or none, and stays as written."""
    cores = [word.rstrip(".,!?;:") for word in words]
    shouted = [_shouted(core, SHOUTED_MIN_FREQUENCY) and core != "I" for core in cores]
    return [word.lower() if shouted[at] and ((at and shouted[at - 1]) or (at + 1 < len(words) and shouted[at + 1])
                                             or (len(cores[at]) >= 4 and _shouted(cores[at], 1e-4)))
            else word for at, word in enumerate(words)]


def as_meant(text: str) -> str:
    """Text with a quick message's missing apostrophes, lower-case "i" and lower-case days and months filled
    in ("shes working" → "she's working", "in june" → "in June"), and words shouted in capitals in lower case;
    every other word as written."""
    out = []
    for word in _unshouted(text.split(" ")):
        core = word.rstrip(".,!?;:")
        written = _WITHOUT_APOSTROPHE.get(core.lower())
        if written is None or (core[:1].isupper() and core.lower() in ("wont", "hes")):
            out.append(word)
            continue
        written = written[0].upper() + written[1:] if core[:1].isupper() else written
        out.append(written + word[len(core):])
    return " ".join(out)
