"""The offline extractor: what the user says about themselves and the people they know, without a model.

Without a model, :class:`OfflineExtractor` reads the *user's* side of the turn with
the learned fact judge, so a user without an API key still gets a working memory:

  * the side is split into sentences (and "…, and I …", "…, it's …" into clauses), and each sentence in the
    first person, or about a person or animal the user introduced before, becomes a candidate
    line in the log's third person ("I love tea" → "User loves tea", "we adopted a kitten" →
    "User adopted a kitten", "my sister Ana" → "User's sister Ana");
  * what is said around the statement is left out: the listener's name after a greeting ("Hey Nate,"),
    an opening phrase that only steers the talk ("On another note,"), an attached picture's caption
    ("[shares a photo of …]"); a thing pointed at but described reads as a thing ("I took this photo
    at Whispering Falls" → "User took a photo at Whispering Falls"); a time that opens the sentence
    follows the statement ("Last week, I found …" → "User found … last week");
  * "he/she/his/her" point to a person named earlier in the turn, "it" to a thing the sentence names
    before it ("I finished my novel and sent it to an agent"), "there" to the place named before it ("I
    live in Porto. My brother moved there" → "… moved to Porto"); a statement that goes on after a dash
    without its subject takes the one said before it ("I got back from Kyoto - spent two weeks there"),
    and one said without "I am" is the user's ("Mostly training for a marathon"); what a title the user
    just named is goes beside it ("I'm reading "Piranesi". It's a novel about …"), and a name given to
    the pet or thing the user just got is its name ("We named him Max" → "User's puppy is named Max"),
    an object "it" is the thing the previous sentence got or made ("I'm restoring it with my dad"), and
    an answer gets back the object the assistant's question named (:mod:`core.engines.capture.answers`);
    a question, or a sentence whose pronoun
    points nowhere ("It was amazing", "I loved it"), gives no candidate;
  * the few named rules of :mod:`core.fact_rules` and the judge (:mod:`core.fact_judge`) decide
    which candidates are facts, and the judge names each one's subject (its category);
  * relative time words are resolved from the turn's time and kept with their words:
    "yesterday (14 July 2026)", "last Friday (10 July 2026)", "last month (June 2026)".

The assistant's side is not read (but for the object of its last question before the turn), and an
empty user side yields nothing. "It" opening a sentence is
named only when it is the thing the user's previous sentence made or has ("I made a pie. It has a rye
crust" → "User's pie has a rye crust"); implied facts, other pronouns across sentences and non-English
text need a model. Each side is read up to 20,000 characters
(the transcript keeps all of it).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping

import lemminflect

from suzent_desktop.core.engines.capture import (
    answers,
    asides,
    chat_tags,
    clauses,
    described,
    fact_judge,
    fact_rules,
    family_names,
    findings,
    named_subject,
    openings,
    own_name,
    pronouns,
    relative_dates,
    requests,
    shown,
    subjectless,
)
from suzent_desktop.core.engines.dream.placement.topics import TRAVEL, place_of
from suzent_desktop.core.files.language import english
from suzent_desktop.core.files.records.log_grammar import Fact

MAX_FACTS_PER_TURN = 25

# -- offline path -------------------------------------------------------------------------
MAX_OFFLINE_CHARS = 20_000  # per side; the whole turn is in the transcript, extraction reads the start

def _has_done(match: re.Match[str]) -> str:
    """"She's moved to Leeds", "my dad's finished his chemo": "'s" before a past participle that is no
    adjective or noun ("excited", "married", "car"), nor followed by what it is about ("obsessed with"), is
    "has"."""
    word = match.group(2).lower()
    lemma = english.verb_lemma(word)
    participle = bool(lemma) and word in lemminflect.getInflection(lemma, tag="VBN")
    return f"{match.group(1)} has" if participle and not english.names_or_describes(word) and lemma != "be" \
        else match.group(0)


def _would_or_had(match: re.Match[str]) -> str:
    """"I'd love to" is "I would"; "I'd failed", "I'd been", "I'd already left" are "I had": a participle that
    is no base form follows."""
    word = match.group(2).lower()
    had = word == "been" or (english.is_past(word) and english.verb_lemma(word) != word)
    return f"{match.group(1)} {'had' if had else 'would'}"


# Contractions opened before the rewrite ("I've" → "I have"); "'s" after a pronoun, or after "my <relative>"
# before a place or what they are ("my mum's from Lagos", "my brother's a nurse"); else it owns.
_CONTRACTION_RES = [(re.compile(p, re.I), r) for p, r in (
    (r"\b(ca)n't\b", r"\1nnot"), (r"\b(w)on't\b", r"\1ill not"), (r"\b(sh)an't\b", r"\1all not"), (r"n't\b", " not"), (r"\bIm\b", "I am"),
    (r"\bIve\b", "I have"), (r"'m\b", " am"), (r"'ve\b", " have"), (r"'ll\b", " will"), (r"'re\b", " are"),
    (r"\b(I|we|she|he|they)['’]d\b(?= (?:already |just |never |\w+ly )?(\w+))", _would_or_had), (r"\bI'd\b", "I would"), (r"\b(\w+)['’]s(?= been\b| got\b)", r"\1 has"),
    (r"\b(\w+)['’]s(?= (?:just |already |never |always |\w+ly )?(\w+)\b(?! (?:with|about|of|by)\b))", _has_done), (r"\b(it|that|she|he)'s\b", r"\1 is"),
    (rf"\b((?:my|our) (?:{english.alternation(english.PEOPLE)}|(?!master|bachelor)[a-z]+))['’]s"  # a degree owns
     r"(?= (?:from|in|at|on|a|an|still|now)\b(?!-))",
     r"\1 is"))]

_PEOPLE = english.alternation(english.PEOPLE + english.PETS)
_KIN_WORDS = frozenset(english.PEOPLE + english.PETS)
_QUESTION_START = re.compile(
    r"^(what|where|when|why|how|who|whom|whose|which|do|does|did|can|could|would|should|is|are|was|were|"
    r"will|shall|have|has|any|anything)\b",
    re.I,
)
# "When I was nine, I lived in Accra" opens with a question word and states a fact.
_TIME_CLAUSE = re.compile(r"^(?i:when|while)\b[^,?]{1,60},\s+(?:I|my|My|we|We|our|Our)\b")
_FIRST_PERSON = re.compile(r"\bI\b|\b(my|me|mine|myself|we|our|ours|us)\b", re.I)
_SUBJECT_PRONOUN = re.compile(r"^(he|she|they|it|this|that|these|those|there)\b", re.I)
# A name before the pronoun ("I drive a Mazda 3, it is old"), or a described thing before a relative "that"
# ("a new show that is coming out"): the pronoun points inside the sentence.
_NAME_BEFORE = re.compile(r"(?<!^)\b(?!I\b)[A-Z][\w-]*")
_NAME_OR_THING_JUST_BEFORE = re.compile(rf"{_NAME_BEFORE.pattern}|\b(?i:a|an|another|the|my|our|some) "
                                        rf"(?:[\w-]+ ){{0,2}}(?!(?:of|for|to|with|about|in|on|at)\b)[\w-]+ $")
# A thing named before "it" in the same sentence, "it" opening the next clause or its verb's object ("I
# finished my screenplay and printed it", "tweaking a recipe to make it …"): "a huge fan of it", "worked
# all night but finally got it done" name nothing "it" can be.
_THING_BEFORE = re.compile(rf"{_NAME_BEFORE.pattern}|(?<=\s)(?i:a|an|another|the|my|our)\s+"
                           rf"(?!(?:{'|'.join(english.STOPWORDS)})\b)[a-z].*\b(?:and|to|so)\s+(?:[a-z]+\s+)?$")
_PERSON_PRONOUN = re.compile(r"\b(he|she|him|her|his|hers)\b", re.I)
_THING_PRONOUN = re.compile(r"\b(it|them|itself)\b(?! when\b)", re.I)  # "I love it when …" points ahead
_DEMONSTRATIVE_ALONE = re.compile(
    r"\b(this|that|these|those)\b(?=\s*(?:[.,!;:]|$|is\b|was\b|are\b|were\b|one\b|ones\b|too\b|again\b|"
    r"for\b|to\b|with\b|in\b|on\b|at\b|and\b|but\b|so\b|because\b))",
    re.I,
)
_KIN_MODIFIER = rf"(?:(?:{english.alternation(english.KIN_MODIFIERS)}) )?"  # "my little brother"
_ANTECEDENT = re.compile(
    rf"\b(?:[Mm]y|[Oo]ur) {_KIN_MODIFIER}(?P<rel>{_PEOPLE})(?:,)?(?: (?:named|called))? (?P<name>[A-Z][a-z]+(?: [A-Z][a-z]+)?)\b|"
    # "my roommate's cat … him": the cat; "for my father's 70th birthday. His name is Hernán": the father
    rf"\b(?:[Mm]y|[Oo]ur) {_KIN_MODIFIER}(?P<rel2>{_PEOPLE})\b(?!['’]s (?:[\w-]+ )?(?:{_PEOPLE})s?\b)|"
    # "I adopted a cat named Pixel. She sleeps on my keyboard": the cat, not the mum said before
    rf"\b(?:an?|[Mm]y|[Oo]ur)(?: [a-z-]+){{0,2}} (?P<pet>{english.alternation(english.PETS)}),? (?:named|called) "
    r"(?P<pet_name>[A-Z][^\W\d_]+)\b",
)
# The judge's subjects as the log's categories (the dream files a category on its page).
_CATEGORIES = {"person": "people"}
_IMPORTANCE = {"identity": 0.9, "health": 0.9, "person": 0.7, "work": 0.6, "place": 0.6, "event": 0.5,
               "preference": 0.5, "hobby": 0.4, "plan": 0.4}


def _expand(sentence: str) -> str:
    for pattern, replacement in _CONTRACTION_RES:
        sentence = pattern.sub(replacement, sentence)
    return _is_before_doing(sentence.replace("\u2019", "'"))


def _is_before_doing(sentence: str) -> str:
    """"My brother's moving to Canada" is "is moving": "'s" before a doing that is no noun ("moving",
    "going", "starting"; "my brother's building" owns one) and no subject ("my mum's cooking is the best")."""
    words = sentence.split(" ")
    for at, word in enumerate(words[:-1]):
        if not word.endswith("'s") or len(word) <= 2:
            continue
        following = words[at + 1].lower()
        then = words[at + 2].lower().strip(".,!?") if at + 2 < len(words) else ""
        if (english.verb_tag(following) == "VBG" and not english.is_noun(following)
                and english.verb_tag(then) not in ("VBZ", "VBD")):
            words[at] = word[:-2] + " is"
    return " ".join(words)


def third_person(text: str) -> str:
    """A first-person fact in the log's third person: "I'm now working at Thales" → "User is now working
    at Thales", "My sister Ana moved" → "User's sister Ana moved". Third-person text is unchanged."""
    if not re.search(r"\b(?:I|I'm|I've|I'd|I'll|my|My|me|we|We|our|Our)\b", text):
        return text
    return to_third_person(text)


_ADVERBS_BEFORE_VERB = frozenset("really absolutely quite now currently just also still never always usually often "
                                 "sometimes recently finally actually already even first mostly rarely mainly "
                                 "generally normally occasionally only seldom hardly barely frequently "
                                 "regularly typically definitely totally".split())


def _user_verb(match: re.Match[str], habitual: bool = False) -> str:
    """"I love" → "User loves"; an adverb between keeps its place ("I mostly cycle" → "User mostly cycles").
    A verb whose past is its plain form ("knit", "read", "put") is the present when the sentence says how
    often ("I read every night" → "User reads every night"); alone it may be either, and stays as said."""
    first, second = match.group(1), match.group(2)
    adverb = second is not None and first.lower() in _ADVERBS_BEFORE_VERB
    verb = second if adverb and second is not None else first
    said = english.third_person_verb(verb)
    if habitual and said == verb and verb.lower() not in english.MODALS and english.verb_lemma(verb.lower()) == verb.lower():
        said = english.present_third_person(verb)
    if adverb:
        return f"User {first} {said}"
    return f"User {said}" + (f" {second}" if second is not None else "")


_HABIT = frozenset("every always usually often daily weekly nightly sometimes regularly whenever each "
                   "twice".split())


def to_third_person(sentence: str) -> str:
    """'I love my dog Rex' → 'User loves their dog Rex' (first mention of 'my' becomes "User's")."""
    text = _expand(re.sub(r"\bi\b(?!')", "I", sentence))  # "i used to love Radiolab"
    # "we adopted a kitten" is the user's news too: the line says what the user did (the turn keeps "we")
    text = re.sub(r"\b[Ww]e (?:are|were|have)\b", lambda m: {"are": "I am", "were": "I was", "have": "I have"}[
        m.group(0).split()[1]], text)
    text = re.sub(r"\b[Ww]e\b", "I", text)
    # "Tom and I got engaged", "Me and my wife went": the user first ("User and Tom got engaged")
    partner = r"((?:[Mm]y |[Tt]he )?\w+(?: [A-Z]\w+)?)"
    text = re.sub(rf"^(?:[Mm]e and {partner}|{partner} and (?:I|me))\b",
                  lambda m: "I and " + re.sub(r"^The\b", "the", m.group(1) or m.group(2)), text, count=1)
    text = re.sub(r"\bI do not\b", "User does not", text)
    text = re.sub(r"\bI did not\b", "User did not", text)
    habitual = bool(_HABIT & set(text.lower().split()))
    text = re.sub(r"\bI ([A-Za-z]+)\b(?: (?!I\b)([A-Za-z]+)\b)?", lambda m: _user_verb(m, habitual), text)
    # the first "my" or "our" names the user unless the user is named before it ("User sold their house")
    subject_first = re.search(r"\bUser\b", text)
    possessive_first = re.search(r"\b(?:[Mm]y|[Oo]ur)\b", text)
    if possessive_first and not (subject_first and subject_first.start() < possessive_first.start()):
        text = re.sub(r"\b(?:[Mm]y|[Oo]ur)\b", "User's", text, count=1)
    text = re.sub(r"\b(?:[Mm]y|[Oo]ur)\b", "their", text)
    text = re.sub(r"\b(?:myself|ourselves)\b", "themselves", text)
    text = re.sub(r"\b(me|us)\b", "the user", text)
    text = re.sub(r"(?<!\bthe )(?<!\ba )\bmine\b", "the user's", text)  # "the mine in Kalgoorlie" is a mine
    text = re.sub(r"\bI\b", "User", text)
    text = re.sub(r"^(User [^,]*, )have (?=been\b|done\b|not\b|never\b)", r"\1has ", text)  # "…, have been since 2015"
    text = " ".join(text.split()).rstrip(".!;, ")
    if text.startswith("User's") or text.startswith("User "):
        return text
    return text[0].upper() + text[1:] if text else text


# "…, and I …", a cause the user states ("… since I moved to Denver": the move is a fact of its own), or two
# statements joined by a comma alone ("I'm staying in Galway, it's great for music").
# "…, and it was amazing": what the user made of it, after the statement, is a statement of its own (and
# no fact: "I just watched "Little Women" and it was amazing" states the watching; "… and the feels have been
# wild" too).
_CLAUSE_JOIN = re.compile(r",?\s+(?:and|but|so)\s+(?:(?:honestly|now|also|actually|(?<=and )then)\s+)?(?=(?:I|I'm|I've|my|My|we|we're|we've|our)\b)|"
                          r"(?:,\s+(?P<also>and\s+)?|\s+(?P<only_and>and\s+)(?=(?i:he|she)\b))"
                          r"(?=(?i:it|this|that|they|he|she)(?:'s|'re|'ll|\s+(?P<verb>[a-z]+))\b)|"
                          r",?\s+(?:and|but)\s+(?=(?P<verdict>(?:it|this|that|the\s+[a-z]+)(?:'s|\s+(?:is|was|are|were|has|have|"
                          r"felt|feels))\b))|"
                          r",\s+(?=(?P<spliced>I|we|my|our)(?:'m|'ve|'re|'ll)?\s+[a-z])|"  # "I'm a nurse, we're moving …"
                          # "…, Rui got the job", "… so Ana drove": a new subject, someone named ("… and Max" lists)
                          # "…, bought a used hilux": the same subject goes on (``_with_subject_of``)
                          r"(?:,\s+(?:(?:and|but|so)\s+)?|\s+(?:but|so)\s+)(?=(?P<other>[A-Z][a-z]+|(?P<went>[a-z]+))\s+[a-z])")
_FIRST_PERSON_SUBJECT = re.compile(r"\bI\b|\bI'm\b|\bI've\b")


def _clauses(sentence: str) -> list[str]:
    """Split "I moved to Portland and I love hiking" (or "…, it's rainy") into two statements.

    Only where the part before the conjunction has its own first-person subject, so
    "My wife and I love sushi" stays one statement.
    """
    parts: list[str] = []
    start = 0
    for match in _CLAUSE_JOIN.finditer(sentence):
        head = sentence[start : match.start()]
        if match.group(0).strip(", ") == "and" and _with_someone(head):
            continue  # "because Tom and I are planning a trip": one subject, "Tom and I"
        # "and", or a comma alone before "it is", "she ran" (", and she loves …" too: the comma ends the statement)
        joined = "" if match.group("also") or match.group("only_and") else match.group(0).strip(", ")
        if match.group("verb") and not _a_verb_follows(match.group("verb"), sentence[match.end("verb"):]):
            continue  # "…, that summer …": no statement follows the comma
        if match.group("verdict") and not _is_verdict(sentence[match.end():]):
            continue  # "… and it cost $500": what follows says more of the thing
        spliced = match.group("spliced")
        if spliced and not ((_states_something(head, "and") or clauses.we_again(head, spliced)) and _a_main_clause(head)
                            and _has_its_verb(spliced, sentence[match.end():])):
            continue  # "After my shift, I …", "When I was nine, I …": the head is no statement of its own
        if match.group("spliced") and _THING_PRONOUN.search(sentence[match.end():]) and _NAME_BEFORE.search(head):
            continue  # "My favourite band is Radiohead, I've seen them live": "them" needs the name before it
        if match.group("other"):
            if (clauses.goes_on(head, match.group("went"), sentence[match.end():]) if match.group("went")
                    else _someone_else_states(head, sentence[match.end():])):
                parts.append(head)
                start = match.end()
            continue
        # a verdict after "we …" goes too ("we just launched a sourdough box and it's been crazy busy")
        we_said = bool(match.group("verdict")) and head.lower().split(" ", 1)[0] in ("we", "we're", "we've")
        # "last day is the 6th and then I start at the bank": a clause of its own before "and I"
        be_before = joined.split(" ")[0] == "and" and any(w in ("is", "was", "are", "were") for w in head.split()[1:])
        if (we_said or be_before or _states_something(head, joined)) and len(head.split()) >= 3:
            parts.append(head)
            start = match.end()
    parts.append(sentence[start:])
    if len(parts) > 1 and _QUESTION_START.match(parts[0]) and parts[-1].rstrip().endswith("?"):
        # "What's a good gift for my dad, he's retiring next month?": the question ended at the comma
        parts[-1] = parts[-1].rstrip().rstrip("?") + "."
    return [clause for part in parts for clause in _with_causes(part)]


def _with_someone(head: str) -> bool:
    """The words before "and I" end with someone the user names and a word before them that opens no
    statement with them ("… because Tom", "last Sunday Rafael"): "Tom and I" is the subject that follows."""
    words = head.split()
    return len(words) >= 3 and named_subject.looks_named(words[-1]) and not words[-2].endswith(",") and (
        words[-2].lower() in clauses.SUBORDINATORS or words[-2].lower() in english.CALENDAR)


def _someone_else_states(head: str, rest: str) -> bool:
    """"We host a games night every Friday, Catan is our favourite", "Mila's teacher called, Mila started school
    this week": both sides state something, the second of someone named with their verb, so each is a statement
    of its own. "I visited Rome, Paris and Berlin" lists."""
    if len(head.split()) < 3 or not _a_main_clause(head) or not (
            _states_something(head, "and") or named_subject.subject_name(head.split(", ")[-1]) is not None):
        return False
    return named_subject.subject_name(rest) is not None


def _has_its_verb(subject: str, rest: str) -> bool:
    """After "…, my husband" a verb follows the noun ("is diabetic"): a statement, not a list or a name."""
    if subject.lower() not in ("my", "our"):
        return True
    words = rest.split(" ", 3)
    return len(words) > 2 and english.verb_tag(words[2].strip(",.!?")) in ("VBZ", "VBD")


_VERDICT_OPENINGS = ("it was ", "it is ", "it's ", "it felt ", "that was ", "this was ")


def _only_verdict(sentence: str) -> bool:
    """"It was amazing!": a verdict on what was just said, and nothing it describes."""
    return sentence.strip().lower().startswith(_VERDICT_OPENINGS) and _is_verdict(sentence)


def _is_verdict(clause: str) -> bool:
    """Whether "it was …" goes on to judge rather than describe: an evaluative word in its first words."""
    return any(word in english.EVALUATIVE for word in english.words(clause.lower())[:6])


def _a_verb_follows(word: str, rest: str) -> bool:
    """The word after "…, she" is a verb, or an adverb before one ("…, she just had twins")."""
    if english.verb_tag(word):
        return True
    following = rest.split(" ", 2)[1:2]
    return word.lower() in subjectless.LEAD_ADVERBS | {"still", "now"} and bool(following) and bool(
        english.verb_tag(following[0].strip(".,!?")))


def _a_main_clause(head: str) -> bool:
    """The words before a comma state something alone: no subordinating word opens them."""
    words = [w.lower().strip(",") for w in head.split()]
    first = next((w for w in words if w not in ("but", "and", "so", "oh", "well", "yeah", "also", "then")), "")
    return first not in clauses.SUBORDINATORS  # "But when I'm not working, I …" is no statement either


def _states_something(head: str, joined: str) -> bool:
    """Whether the words before "and I …" (or a comma) are a statement of their own: the user as a subject,
    or something of the user's with its verb ("My laptop crashed last week, and I …"); "My wife and I"
    is one subject."""
    if not joined:  # "Mateo passed the exam, he's …" states it of someone named
        return bool(_FIRST_PERSON.search(head)) or named_subject.subject_name(head) is not None
    if _FIRST_PERSON_SUBJECT.search(head):
        return True
    words = head.split()
    return bool(re.match(r"(?i)(?:my|our)\b", head)) and any(
        english.verb_tag(w) in ("VBD", "VBZ") and w.islower() for w in words[2:])


# A cause the user states is a fact of its own: "Since I'm lactose intolerant I'm trying oat milk" is the
# cause, then the statement; "Hiking changed me since I moved to Denver" keeps its words and adds "I moved
# to Denver". A cause of three words or fewer ("since I'm allergic") says too little alone.
_CAUSE_FIRST = re.compile(r"^(?:[A-Za-z]+,\s+)?(?i:since|because)\s+(?P<cause>(?:I|my|My|we|We)\b.*?),?\s+"
                          r"(?P<main>(?:I|I'm|I've|we|We)\b.*)$")
_CAUSE_AFTER = re.compile(r"\s(?:since|because)\s+(?P<cause>(?:I|I'm|I've|my|we)\b[^,;]*)")


def _with_causes(clause: str) -> list[str]:
    first = _CAUSE_FIRST.match(clause)
    if first:
        return [first.group("cause"), first.group("main")]
    causes = [m.group("cause") for m in _CAUSE_AFTER.finditer(clause) if len(m.group("cause").split()) > 3]
    # the user's own sentence says it already: "We went back to the cafe in Lisbon, where I proposed …"
    where = None if clause.split(" ", 1)[0].lower() in english.OWN_OPENINGS else clauses.where_the_user(clause)
    return [clause, *causes, *([where] if where else []), *findings.found_out(clause)]


# A bracketed aside ("[shares a photo of a cake]", "[laughs]") is an attachment or an action, not the
# user's words: what a picture shows is no fact unless a sentence says it. A markdown link stays.
_BRACKETED = re.compile(r"\[[^\[\]]*\](?!\()")


def _sentences(text: str) -> list[str]:
    text = english.as_meant(_BRACKETED.sub(" ", text))
    said = [answers.favourite_said_after(s) or s for s in answers.self_answered(english.sentences(text))]
    pieces = [c.strip() for s in said for part in clauses.announced(s)
              for c in _clauses(asides.without_asides(part)) if c.strip()]
    return [_with_subject_of(piece, before) for piece, before in zip(pieces, ["", *pieces], strict=False)]


def _with_subject_of(piece: str, before: str) -> str:
    """A statement that goes on after a dash without its subject takes the subject of the statement before
    it: "I got back from Kyoto - spent two weeks there", "My sister flew in - stayed three days". It starts
    in lower case with a past verb; a sentence that starts anew ("Stayed …") is left as said."""
    first = piece.split(" ", 1)[0]
    if not (first.islower() and english.is_past(first) and first not in ("was", "were")):
        return piece
    words = before.rsplit(",", 1)[-1].split()
    verb = next((i for i, w in enumerate(words) if i and english.verb_tag(w.lower())), 0)
    subject = [re.sub(r"['’](?:m|re|ve|s|d|ll)$", "", w) for w in words[:verb]  # "I'm trying … - cut out soda": "I cut"
               if w.lower() not in subjectless.LEAD_ADVERBS and w.lower() not in _AUXILIARIES]
    return f"{' '.join(subject)} {piece}" if 0 < len(subject) <= 3 else piece


_AUXILIARIES = frozenset("am is are was were have has had will would do does did".split())
_FILLER = re.compile(
    r"^(?:(?:oh|ah|well|so|and|but|also|anyway|anyways|actually|honestly|btw|by the way|fun fact|"
    r"guess what|yeah|yes|yep|yup|ya|yea|yah|nope|no|not yet|not really|of course|ok|okay|haha|lol|hmm|um|right(?! now)|funny enough|speaking of which|fyi|tbh|ngl|tbf|imo|"
    r"lowkey|omg|(?:oh )?my (?:gosh|god|goodness)|ugh|wow|sorry|dude|bro|sad to say|bad news|good news|(?:not|nothing) much(?=,)|not bad(?=,)|same(?=,)|now(?= my\b))"  # "Not much, just got back from …"
    r"\b[,!:]?\s*)+",
    re.I,
)
# A short label before the statement ("Big news:", "Quick update:") says nothing itself; "I have two
# kids: Ana and Leo" is no label (the user speaks before the colon).
_LEAD_LABEL = re.compile(r"^(?![^:]*\b(?i:I|my|me|we|our|us)\b)(?:[\w'’]+ ){0,2}[\w'’]+:\s+")


# The person spoken to, named at the end or the start of a sentence ("I love that idea, Nate!"):
# not part of the fact, and left in it reads "User loves that idea Nate".
# After a greeting ("Hey Nate, my favourite treat is …") the name is always the listener; a bare name
# is too ("Nate, after my shift I …"), but not before an appositive ("Tomas, my neighbour, has …": Tomas
# is the subject), and a day is no name ("Monday, I …").
_VOCATIVE = re.compile(
    r",\s*(?:[A-Z][a-z]+)(?=[.!?]*$)|^(?i:hey|hi|hello|oh|wow|yo|thanks|thank you)[ ,]+(?!I\b)[A-Z][a-z]+[,!]\s+|"
    r"^(?i:my (?:dear|love|darling|friend|sweet|dearest))[,!]\s+"  # "my dear, the surgery went well": a call
)
_BARE_NAME = re.compile(r"^(?P<name>[A-Z][a-z]+),\s+(?!(?i:my|our|the|a|an|his|her)\b[^,]{1,30},)")


def _without_listener(sentence: str) -> str:
    sentence = _VOCATIVE.sub("", sentence)
    bare = _BARE_NAME.match(sentence)
    return sentence[bare.end():] if bare and english.looks_like_name(bare.group("name")) else sentence


# "this"/"these"/"those" before a noun point at a picture or at the talk ("I took this photo at Whispering
# Falls", "I made these cupcakes with raspberry frosting"); what the line says is still a fact when it reads
# "a photo", "cupcakes", if the thing is described: a word before the noun that is not praise ("these old
# notebooks"), or a phrase after it ("this photo at …"). "this genre" alone says nothing and stays a pointer;
# a time ("this week") keeps its word. "that" is as often a conjunction ("I know that music helps"): it is read
# as "a" only before one thing and a phrase that places it ("I snapped that pic on my trip to the Smokies").
_DEMONSTRATIVE_NOUN = re.compile(r"\b(?P<det>[Tt]his|[Tt]hese|[Tt]hose|that) (?P<next>[A-Za-z][\w'-]*)"
                                 r"(?P<rest>(?: [A-Za-z][\w'-]*)*)")
_DESCRIBED_AFTER = frozenset("with of from at in on called named by about for".split())
_PHRASE_ENDS = english.STOPWORDS | english.CALENDAR | {"last", "next", "ago"}


def _as_indefinite(match: re.Match[str]) -> str:
    det, word, rest = match.group("det").lower(), match.group("next"), match.group("rest").split()
    lowered = word.lower()
    lemmas = lemminflect.getAllLemmas(lowered)
    phrase = [word, *rest]
    noun_ends = next((i for i, w in enumerate(phrase) if w.lower() in _PHRASE_ENDS), len(phrase))
    placed = noun_ends < len(phrase) and phrase[noun_ends].lower() in _DESCRIBED_AFTER
    described = sum(w.lower() not in english.EVALUATIVE for w in phrase[:noun_ends]) > 1 or placed
    if det == "that" and not _that_is_a_determiner(match, lemmas, placed and noun_ends == 1):
        described = False
    if (not described or lowered in english.STOPWORDS or lowered == "one"
            or re.fullmatch(f"(?:{fact_rules.TIME_NOUN})s?", lowered)
            or (lemmas and not {"NOUN", "ADJ", "PROPN"} & lemmas.keys())
            or (det == "this" and english.verb_tag(lowered) in ("VBZ", "VBD"))):
        return f"{match.group('det')} {word}{match.group('rest')}"
    if det in ("these", "those"):
        return f"{word}{match.group('rest')}"
    return f"{english.indefinite_article(lowered)} {word}{match.group('rest')}"


def _that_is_a_determiner(match: re.Match[str], lemmas: dict[str, tuple[str, ...]], placed: bool) -> bool:
    """"I snapped that pic on my trip": after a past verb, before one thing and a phrase that places it, with
    no verb of its own after ("I found that work at home is tiring" is a conjunction, "desserts that work
    for …" a relative)."""
    before = match.string[: match.start()].split()
    word = match.group("next").lower()
    return (placed and bool(before) and english.verb_tag(before[-1]) in ("VBD", "VBN")
            and (not lemmas or word in lemmas.get("NOUN", ()))
            and not any(english.verb_tag(w) in ("VBZ", "VBD") or w in ("is", "are", "was", "were")
                        for w in match.group("rest").split()))


# What the listener did, around what the user did: "I took a road trip while you were winning" and "I took
# your advice and watched Dune last night" state the trip and the film; the listener's part is no fact.
_LISTENER_WHILE = re.compile(r"\s+(?:while|when|since|because|after|before|until)\s+(?:you|your)\b[^,]*$", re.I)
_LISTENER_AND = re.compile(r"^I\s+[^,]*?\byour?\b[^,]*?\s+and\s+(?P<rest>(?P<verb>[a-z]+)\s.*)$")


def _without_listener_clause(sentence: str) -> str:
    kept = _LISTENER_WHILE.sub("", sentence)
    if kept != sentence and len(kept.split()) >= 4 and _FIRST_PERSON.search(kept):
        return kept
    joined = _LISTENER_AND.match(sentence)
    if joined and english.verb_tag(joined.group("verb")) == "VBD":
        return f"I {joined.group('rest')}"
    return sentence


# A last clause said to the listener ("…, can you believe it", "…, you know") is no part of the fact.
_ASIDE = re.compile(r",\s*[^,]*\b(?:you|ya)\b[^,]*$", re.I)
_PETS = english.alternation(english.PETS)
_KNOWN_RE = [
    re.compile(rf"\bUser's (?P<who>{_PEOPLE}) (?P<name>[A-Z][a-z]+)\b"),
    re.compile(rf"\b(?P<name>[A-Z][a-z]+), User's (?P<who>{_PEOPLE})\b"),
    re.compile(rf"\b(?:User's|a|an) (?P<who>{_PETS}) (?:named |called )?(?P<name>[A-Z][a-z]+)\b"),
    re.compile(rf"\b(?P<name>[A-Z][a-z]+), User's (?P<who>{_PETS})\b"),
]


def known_people(contents: Iterable[str]) -> dict[str, str]:
    """First name (lower-cased) → who it is ("User's sister Ana"), from fact texts."""
    found: dict[str, str] = {}
    for content in contents:
        for pattern in _KNOWN_RE:
            for match in pattern.finditer(content):
                found[match.group("name").lower()] = f"User's {match.group('who')} {match.group('name')}"
    return found


def _name_known_person(text: str, people: Mapping[str, str]) -> tuple[str, str | None]:
    """A sentence about a person or animal the user introduced before, saying who it is."""
    if not people:
        return text, None
    for match in re.finditer(r"\b[A-Za-z][a-z]+\b", text):
        who = people.get(match.group(0).lower())
        if who is not None and (match.group(0)[0].isupper() or match.start() == 0):
            name = who.split()[-1]
            relation = who.rsplit(" ", 1)[0].replace("User's", "the user's")
            return f"{text[: match.start()]}{name} ({relation}){text[match.end():]}", who
    return text, None


# "I'm writing a new script. It's a love story set in Lagos": "it" is the thing the user's last sentence
# made, wrote, bought or has, and the line names it ("User's new script is a love story set in Lagos").
# Only when the sentence says what the thing is or has: "It was gorgeous" tells a reader nothing new.
_OWNED_THING = re.compile(
    r"\b(?:I|[Ww]e)(?:'m|'ve| am| have| has| was| were)?(?: (?:just|really|also|finally|recently|been|still))*"
    r" (?P<verb>[a-z]+)(?: into)? (?P<det>[Mm]y|[Oo]ur|an?|another|this|that|the(?= new\b)) (?P<thing>(?:[\w'-]+ ){0,3}?[\w'-]+?)"
    r"(?=(?: (?:with|about|for|from|at|in|on|that|which|called|named|to|and|but|by|last|this|yesterday|you)\b"
    r"|[ .,!;:]*$))")
_IT_IS = re.compile(r"^(?i:it)(?:(?P<verb>'s| is| was)\s+(?=(?:a|an|about|based|made|set|filled|full|from|by|called|named)\b|"
                    r"(?:[a-z-]+ ){1,3}with\b)|"  # "It's dairy-free vanilla with strawberry filling"
                    r"(?P<has> has| had)\s+(?!been\b))(?P<rest>.+)$")


# "This is my prized possession, a basketball signed by Kobe": what is shown is said after the comma, so the
# line reads "User's prized possession is a basketball signed by Kobe"; "That's Luna, our golden retriever" (or
# "Meet Luna, …") reads "User's golden retriever is Luna".
_SHOWN = re.compile(r"^(?:(?i:this|that|it|here)(?:'s| is| was)|(?P<meet>Meet)) (?:(?P<own>(?i:my|our) [^,]{1,40}), "
                    r"(?P<what>(?i:a|an|the|my|our) .+)|(?P<name>[A-Z][^\W\d_]+), (?P<whose>(?i:my|our) [^,.!]{1,40})[.!]*)$")


# "We got a puppy! We named him Max": the name is the thing's ("User's puppy is named Max", as the dream
# reads a pet's or a thing's name).
_NAMING_IT = re.compile(r"^(?:I|[Ww]e)\s+(?:\w+\s+)?(?P<verb>nam|call)(?:e|ed)?\s+(?:him|her|it)\s+"
                        r"(?P<name>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)(?P<rest>.*)$")


# "I bought a vintage Vespa. I'm restoring it": the thing is what the user does something to or with. Not
# after a verb whose "it" is an idiom ("made it" arrived, "got it" understood, "take it easy", "keep it up").
_NO_THINGS = frozenset("while bit lot little few couple".split())  # "a while back", "a bit", "a lot": no thing
_IDIOM_IT = frozenset("make get take keep do call hit mean".split())
_CLAUSE_IT = subjectless.FINITE | frozenset("has have seems looks feels sounds".split())


def _object_it_named(sentence: str, thing: str) -> str:
    """The sentence with its one object "it" (or "them", for things) as the thing the user's last sentence
    got or made: "I'm restoring it with my dad" → "I'm restoring my vintage Vespa with my dad". Only in a
    sentence the user says of themselves, and only after a verb or a preposition: "I think it is …"
    opens a clause of its own, whose "it" stays a pointer."""
    words = sentence.split(" ")
    if words[0].lower().replace("’", "'") not in english.FIRST_PERSON_OPENINGS:
        return sentence
    # "These are the shoes I wore for my first 10K … I finished it": "it" is no pair of shoes
    wanted = {"them"} if english.is_plural_noun(thing.split()[-1]) else {"it"}
    at = [i for i, word in enumerate(words) if word.strip(".,!?;:").lower() in wanted]
    if len(at) != 1 or at[0] < 2:
        return sentence
    i = at[0]
    before, after = words[i - 1].lower(), words[i + 1].lower().strip(".,!?;:") if i + 1 < len(words) else ""
    verb = english.verb_lemma(before)
    if after in _CLAUSE_IT or not (verb or before in english.PREPOSITIONS) or verb in _IDIOM_IT:
        return sentence
    tail = words[i][len(words[i].rstrip(".,!?;:")):]
    return " ".join([*words[:i], f"my {thing}{tail}", *words[i + 1:]])


# "… wanted to let you know I joined a travel club!": the telling frames the statement, which is the fact
_TOLD_YOU = ("wanted to let you know", "want to let you know", "wanna let you know", "wanted to tell you",
             "want to tell you", "have to tell you", "had to tell you", "gotta tell you", "thought you'd like to know",
             "thought you would like to know", "thought i'd let you know", "just so you know")
_TELLING = (*_TOLD_YOU, *(t.replace("you", "ya", 1) for t in _TOLD_YOU), "guess what",  # chat writes "ya" too
            "i'd have to say", "i would have to say", "i'd say", "i would say")  # "I'd say my favourite is …"


def _without_telling(sentence: str) -> str:
    """The statement a telling frames ("Haven't talked in a while, wanted to let you know I joined a
    travel club!" → "I joined a travel club!"), when what follows it is the user's own; else the sentence."""
    lowered = sentence.lower().replace("’", "'")
    for telling in _TELLING:
        at = lowered.find(telling)
        if at < 0:
            continue
        rest = sentence[at + len(telling):].lstrip(" ,:;-?!")
        if rest[:5].lower() == "that ":
            rest = rest[5:]
        first = rest.split(" ", 1)[0].lower().replace("’", "'")
        return rest[:1].upper() + rest[1:] if first in english.OWN_OPENINGS else sentence
    return sentence


def _owned_subject(sentence: str) -> str | None:
    """What a sentence says the user's is: "birthday" of "My birthday is in May", "favourite band" of
    "Our favourite band was Wilco"; None for any other sentence."""
    words = sentence.strip().split(" ")
    if len(words) < 3 or words[0].lower() not in ("my", "our"):
        return None
    verb = next((i for i, word in enumerate(words[:5]) if i > 1 and word.lower() in subjectless.FINITE), None)
    noun = " ".join(words[1:verb]) if verb else ""
    return noun if noun and noun.replace(" ", "").replace("-", "").isalpha() and noun.islower() else None


def _elided_noun_named(sentence: str, owned: str | None) -> str | None:
    """"My birthday is in May. My mum's is on the 12th": the noun a possessive leaves out is the one the
    sentence before named ("My mum's birthday is on the 12th"). None when there is none to name: the line
    would say "User's mum's is …", which no one can read."""
    words = sentence.strip().split(" ")
    if len(words) < 3 or words[0].lower() not in ("my", "our"):
        return sentence
    for i, word in enumerate(words[1:4], start=1):
        if word.lower().endswith(("'s", "’s", "s'", "s’")) and i + 1 < len(words) and words[i + 1].lower() in subjectless.FINITE:
            return " ".join([*words[: i + 1], owned, *words[i + 1:]]) if owned else None
    return sentence


def _it_named(sentence: str, thing: str | None, *, present_only: bool = False) -> tuple[str, str | None]:
    """The sentence with a leading "It" (or the pet or thing a name is given, or the thing an object "it"
    stands for) named, and the thing later sentences' "it" points to. ``present_only``: the thing was named
    in the user's turn before, and only "It's a …" / "It has …" still say what it is; "It was …" after a
    reply tells how the time went ("It was a real roller coaster")."""
    if thing:
        sentence = _object_it_named(sentence.strip(), thing)
    naming = _NAMING_IT.match(sentence.strip())
    if thing and naming:
        verb = "named" if naming.group("verb") == "nam" else "called"
        rest = openings.CLAUSE_END.split(naming.group("rest"), maxsplit=1)[0]  # "…, and she's always with me" is another
        sentence = f"My {thing} is {verb} {naming.group('name')}{rest}"
    named = _SHOWN.match(sentence.strip())
    if named and named.group("own") and not named.group("meet"):
        sentence = f"{named.group('own')[0].upper()}{named.group('own')[1:]} is {named.group('what')}"
    elif named and named.group("name") and english.looks_like_name(named.group("name")):  # "That's Luna, our dog"
        sentence = f"{named.group('whose')[0].upper()}{named.group('whose')[1:]} is {named.group('name')}"
    said = _IT_IS.match(sentence.strip())
    if said and present_only and (said.group("verb") or said.group("has")).strip() not in ("'s", "is", "has"):
        said = None
    rest = said.group("rest").partition(", I ")[0] if said else ""  # "…, I love it" is another statement
    if said and thing and described.describes(rest):
        content = [w for w in english.words(rest.lower())
                   if w not in english.STOPWORDS and w not in english.EVALUATIVE and len(w) > 2]
        if len(content) >= 2:
            verb = "is" if said.group("verb") == "'s" else (said.group("verb") or said.group("has")).strip()
            return f"My {thing} {verb} {rest}", thing
    owned = _OWNED_THING.search(sentence) or _OWNED_THING.search(shown.as_had(sentence))
    if owned and owned.group("thing").split()[0] in _NO_THINGS:
        owned = None  # "a pic I got a while back"
    if owned and (owned.group("det").lower() in ("my", "our") or english.verb_lemma(owned.group("verb")) in shown.MAKING):
        return sentence, _without_when(owned.group("thing"))
    return sentence, thing if said or _still_of_it(sentence) else None


def _still_of_it(sentence: str) -> bool:
    """"It needs a lot of work", "Needs new tyres": the sentence goes on about the thing, which a later "it" still
    is ("… I'm going to restore it")."""
    first, *rest = sentence.strip().lower().split(" ", 2)
    return first == "it" or (english.verb_tag(first) == "VBZ" and rest[:1] != [] and rest[0] not in _AUXILIARIES)


# "I got back from Kyoto - spent two weeks there": "there" is the place the user named just before ("User spent
# two weeks in Kyoto"); "There is …" and "there are" point nowhere, and a word of travel goes "to" it.
_THERE = re.compile(r"(?:(?P<travel>\b" + TRAVEL + r")\s+)?\bthere\b(?!\s+(?:is|are|was|were|will|has|have|had)\b|')")


def _place_there(line: str, people: Mapping[str, str]) -> str | None:
    """The place a line names that a later "there" can point at: one the user is in, goes to or comes
    from; a person visited is no place ("I visited Ana at work. We had lunch there"). Of "from Oslo to
    Berlin" it is where the user goes."""
    known = frozenset(name.capitalize() for name in people)
    start = line.find(" from ")
    goes = line.find(" to ", start) if start > 0 else -1
    named = (place_of(f"User went{line[goes:]}", known) if goes > 0 else None) or place_of(line, known)
    if named is None or not re.search(rf"\b(?:in|at|to|from|near|around|across|through) (?:the )?"
                                      rf"{re.escape(named.name)}\b", line, re.I):
        return None
    return named.name


def _without_when(thing: str) -> str:
    """A thing without the word of time said after it ("cake" of "I made a cake recently")."""
    words = thing.split(" ")
    while len(words) > 1 and (words[-1].endswith("ly") or words[-1] in english.CALENDAR or words[-1] in ("again", "now")):
        words.pop()
    return " ".join(words)


def _last_thing(text: str) -> str | None:
    """The last thing a turn says the user made, got or has ("I baked a lemon cake!" → "lemon cake")."""
    thing = None
    for sentence in _sentences(text[:MAX_OFFLINE_CHARS]):
        thing = _it_named(shown.as_done(sentence), thing)[1] or thing
    return thing


def _described(line: str, sentence: str) -> str | None:
    """The line with what the next sentence says its thing is (:mod:`.described`), in the third person."""
    text = described.of(line, sentence)
    if text is None:
        return None
    text = to_third_person(text)
    return None if fact_rules.problem(text) else text


def _there_named(sentence: str, place: str | None) -> str:
    if place is None:
        return sentence
    return _THERE.sub(lambda m: f"{m.group('travel')} to {place}" if m.group("travel") else f"in {place}", sentence)


RARE_WORD_FREQUENCY = 1e-5  # "ukulele" 2.6e-7, "quinoa" unlisted; "every" 8e-4, "whenever" 5e-5
def _owns(word: str) -> bool:
    """Whether "her" before ``word`` is hers ("her first tooth") rather than her ("miss her every day"):
    the word can be a noun or an adjective (a determiner, an adverb or a preposition has no such reading),
    or it is a rare word lemminflect does not know ("her ukulele"), as a frequent one never is ("every")."""
    # lemminflect reads "myself" as a noun; as a frequent word it is no rare one either ("tell her myself")
    readings = {} if word.endswith(("self", "selves")) else lemminflect.getAllLemmas(word)
    if readings:
        return "NOUN" in readings or "ADJ" in readings
    return english.lexicon().word_usage_frequency(word) < RARE_WORD_FREQUENCY


class OfflineExtractor:
    """What the user says about themselves and the people they know, without a model.

    Each sentence of the user's side (long turns are split into sentences, and "…, and I …" into
    clauses) becomes a candidate line in the log's third person; a few named rules
    (:mod:`core.fact_rules`) drop what cannot be a fact line, and the learned judge
    (:mod:`core.fact_judge`) decides on the rest and names its subject.
    """

    def extract(self, user_text: str, assistant_text: str = "", *, when: dt.datetime | None = None,
                people: Mapping[str, str] | None = None, asked: str = "", before: str = "") -> list[Fact]:
        """Facts of one turn (the assistant's words are not the user's: they are not read). ``people`` maps a lower-cased first name the user introduced earlier
        ("my grandfather Felix") to who that is ("User's grandfather Felix"): a later sentence
        about Felix alone is then a fact about someone the user knows, and says who. ``asked`` is what the
        assistant said just before the turn: an answer may leave out what its question named
        (:mod:`core.engines.capture.answers`); ``before`` is the user's turn before it, whose last thing a
        description opening this turn may be of ("I baked a lemon cake!" … "It has a poppy seed crust")."""
        people = dict(people or {})
        facts: list[Fact] = []
        seen: set[str] = set()
        for line in self.candidates(user_text, people, asked=answers.asked_of(asked) if asked else None,
                                    before=before):
            fact = self._make(line, when)
            if fact is not None and fact.content.lower() not in seen:
                seen.add(fact.content.lower())
                facts.append(fact)
                people.update(known_people([fact.content]))
        return facts[:MAX_FACTS_PER_TURN]

    def candidates(self, user_text: str, people: Mapping[str, str] | None = None, *,
                   asked: answers.Asked | None = None, before: str = "") -> list[str]:
        """The candidate fact lines of the user's side, in the third person, before the judge."""
        people = dict(people or {})
        lines: list[str] = []
        asked_of_someone = asked is not None and asked.thing is not None and asked.thing.split()[-1] in _KIN_WORDS
        antecedent = f"my {asked.thing}" if asked_of_someone and asked else None  # "How's your dad?" "He's home"
        thing = asked.thing if asked and not asked_of_someone else None  # "What's your new novel about?" "It's …"
        carried = None if thing or not before else _last_thing(before)
        thing = thing or carried
        place: str | None = None
        owned: str | None = None  # what the previous sentence said the user's is ("birthday")
        last_said = False  # the previous sentence gave the last line
        for sentence in _sentences(user_text[:MAX_OFFLINE_CHARS]):
            sentence = answers.completed(_without_telling(sentence), asked)
            named = answers.favourite_named(sentence, asked) or answers.thing_answered(sentence, asked)
            sentence = (named if not lines else None) or sentence
            whole, owned = _elided_noun_named(sentence, owned), _owned_subject(sentence)
            if whole is None:
                last_said = False
                continue
            held = carried is not None and thing == carried
            if held and len(whole.split()) <= 3 and not _THING_PRONOUN.search(whole):
                sentence = whole  # "Thanks!" before "It's a …": the thing of the turn before is still meant
            else:
                sentence, thing = _it_named(shown.as_done(whole), thing, present_only=held)
                thing = thing or shown.shown_thing(whole)
            line, antecedent = self._candidate(_there_named(sentence, place), antecedent, people)
            more: list[str] = []
            if line is None:  # each statement of a sentence read as none, weighed alone
                for part in clauses.each_statement(sentence):
                    said, antecedent = self._candidate(part, antecedent, people)
                    more += [said] if said else []
                line = more.pop(0) if more else None
            joined = _described(lines[-1], sentence) if line is None and lines and last_said else None
            if joined is None and line is None and last_said and (_only_verdict(sentence) or described.of_the_thing(sentence)):
                continue  # "… and it was amazing! It's a story about …": the verdict stands between, no more
            if joined is not None:
                lines[-1] = line = joined
            elif line is not None:
                lines += [said for said in dict.fromkeys([line, *more]) if said not in lines]
                people.update(known_people([line]))
                place = _place_there(line, people) or place
            last_said = line is not None
        return lines

    def _candidate(self, sentence: str, antecedent: str | None, people: Mapping[str, str]) -> tuple[str | None, str | None]:
        """The candidate line of one sentence (or None), and the person later pronouns point to."""
        sentence = _without_listener(_LEAD_LABEL.sub("", openings.uncalled(_FILLER.sub("", sentence.strip()).strip()))).strip()
        sentence = own_name.as_preferred_name(requests.as_planning(sentence))
        sentence = family_names.with_relations(openings.without_opening(sentence))
        sentence = sentence[:1].upper() + sentence[1:]  # "started a new job" after "Update:" opens the sentence
        sentence = _ASIDE.sub("", sentence) if len(_ASIDE.sub("", sentence).split()) >= 3 else sentence
        sentence = _without_listener_clause(sentence)
        expanded = _DEMONSTRATIVE_NOUN.sub(_as_indefinite, subjectless.with_subject(_expand(sentence)))
        found = _ANTECEDENT.search(expanded)
        if found:
            expanded = pronouns.opened_by(expanded, antecedent, found.start())
            relation = found.group("rel") or found.group("rel2") or found.group("pet")
            name = found.group("name") or found.group("pet_name")
            antecedent = f"my {relation.lower()}" + (f" {name}" if name else "")
        expanded = pronouns.we_together(expanded, antecedent)
        if not expanded or expanded.endswith("?") or (_QUESTION_START.match(expanded) and not _TIME_CLAUSE.match(expanded)):
            return None, antecedent
        for said in dict.fromkeys((expanded, clauses.main_statement(expanded))):
            subject = named_subject.subject_name(said) if said and not _FIRST_PERSON.search(said) else None
            said = named_subject.with_verb(said) if said and subject else said
            resolved = (self._resolve_pronouns(said, antecedent, named_here=found is not None or subject is not None)
                        if said else None)
            if resolved is None or len(resolved) > 400:
                continue
            if not _FIRST_PERSON.search(resolved):
                resolved, who = _name_known_person(resolved, people)
                # "Hana is pregnant!!!", "Rui got a job. He starts in May": news of someone named without "my"
                who = who or subject or named_subject.subject_name(resolved)
                if who is None:
                    continue
                # "Kenji's baby is …. She was born …": "she" is the baby, not Kenji
                antecedent = None if said and named_subject.owned_by(said, who) else who
            elif resolved.split(" ", 1)[0].lower() in people:  # "Daniyar bought a cake for my birthday": who he is
                resolved = _name_known_person(resolved, people)[0]
            line = subjectless.agreed(chat_tags.without_chat_tags(to_third_person(resolved.replace("`", "'"))))
            if not fact_rules.problem(line):
                return line, antecedent
        return None, antecedent

    @staticmethod
    def _resolve_pronouns(expanded: str, antecedent: str | None, *, named_here: bool = False) -> str | None:
        """Replace he/she with the person named earlier in the turn; None when a pronoun dangles.

        A person named in the sentence itself ("my friend Priya moved for her PhD") is what a later
        "her" points to: the line reads as said."""
        for pattern, referent in ((_THING_PRONOUN, _THING_BEFORE), (_DEMONSTRATIVE_ALONE, _NAME_OR_THING_JUST_BEFORE)):
            pronoun = pattern.search(expanded)
            # "I drive a Mazda 3, it is old", "I finished a script and sent it to Netflix": "it" points at
            # a name or a thing named before it in the same sentence.
            if pronoun and not referent.search(expanded[: pronoun.start()]):
                return None
        subject = _SUBJECT_PRONOUN.match(expanded)
        if subject and subject.group(1).lower() not in ("he", "she"):
            return None
        if not _PERSON_PRONOUN.search(expanded) or (named_here and not subject):
            return expanded
        if antecedent is None or named_here or not pronouns.agrees(antecedent, expanded):
            return None
        owner = antecedent + "'s"
        if subject:  # "She's moved to Leeds with her fiance": her own, said of her
            return re.sub(r"^(He|She)\b", antecedent[0].upper() + antecedent[1:], expanded)
        if not antecedent.startswith(("my ", "User")):
            return None  # a bare name ("Hana got a puppy. … to see him"): the subject of the next sentence at most
        text = re.sub(r"\b(he|she)\b", antecedent, expanded)
        text = re.sub(r"\b(his|hers)\b", owner, text, flags=re.I)
        text = re.sub(r"\b(him|her)\b(?=\s+(?:[a-z]+ing\b|a\b|an\b|the\b|some\b))", antecedent, text)
        text = re.sub(r"\b[Hh]er\b(?=\s+([a-z]+))", lambda m: owner if _owns(m.group(1)) else m.group(0), text)
        return re.sub(r"\b(him|her)\b", antecedent, text, flags=re.I)

    @staticmethod
    def _make(line: str, when: dt.datetime | None) -> Fact | None:
        """The fact of a candidate line when the judge keeps it, or keeps its main statement alone (a line may go
        on past its fact with words the judge weighs as chat), its date resolved from the turn's time."""
        verdict = fact_judge.judge()(line)
        shorter = None if verdict.keep else clauses.main_statement(line)
        # "… check-up, so the doctor put the user on …" weighed alone; a list cut short ("from sources like
        # books, movies") is no statement
        if shorter and "," not in shorter and not fact_rules.problem(shorter):
            line, verdict = shorter, fact_judge.judge()(shorter)
        if not verdict.keep:
            return None
        content = relative_dates.resolve(line, when, past=verdict.subject != "plan")
        return Fact(content=content, category=_CATEGORIES.get(verdict.subject, verdict.subject), tags=("offline",),
                    importance=_IMPORTANCE[verdict.subject])
