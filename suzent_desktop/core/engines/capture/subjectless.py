"""A statement said without its subject, and the "I" it is given back: one part of the offline extractor.

Chat drops the "I": "Twisted my knee on Friday", "Got a puppy", "Started therapy", "Met Sarah", "Been vegetarian
since 2019", "Just studying for my exams". Each is the user speaking, and reads so once the "I" is
back. A word that can be the subject itself ("Fred won", "Exploring new places can be inspiring",
"Looked great") leaves the sentence as said.
"""

from __future__ import annotations

from suzent_desktop.core.files.language import english

FINITE = english.PRESENT_AUXILIARIES | english.PAST_AUXILIARIES | english.MODALS
DETERMINERS = frozenset("a an the my our some".split())
_AFTER_SUBJECTLESS_VERB = DETERMINERS | frozenset(
    "two three four five to in at on up out off back into over through with by for from about "
    "next this tomorrow tonight mid home abroad".split())  # "Going mid March", "Flying home tomorrow"
_PREPOSITIONS = frozenset("in at on into over through with by for from about under after before of".split())
LEAD_ADVERBS = frozenset("finally just recently also actually already totally somehow accidentally mostly "
                         "currently probably prob prolly".split())
_TASTES = frozenset("Love Enjoy Adore Hate".split())  # said without "I" before what the user does ("Like" is "as")
_CLAUSE_SUBJECTS = frozenset("i it we he she they you that this there".split())


def _done_to_user(expanded: str) -> str | None:
    """"They finally made me head of the cellar" as "I was finally made head of the cellar": "they" said of
    nobody in particular, with the user as its object, is news of the user ("they diagnosed me with asthma",
    "they offered me the job"). None for any other sentence."""
    words = expanded.split(" ")
    perfect = words[1:2] in (["have"], ["had"])  # "they have made me operations director"
    at = 2 if perfect else 1
    while at < len(words) and words[at].lower() in LEAD_ADVERBS:
        at += 1
    if words[0].lower() != "they" or at + 2 >= len(words) or words[at + 1] != "me":
        return None
    verb = words[at].lower()
    lemma = english.verb_lemma(verb)
    participle = english.verb_form(lemma, "VBN") if lemma else None
    if english.verb_tag(verb) not in (("VBN", "VBD") if perfect else ("VBD",)) or not participle or lemma in ("be", "have", "do"):
        return None
    done = ["I", words[1], "been"] if perfect else ["I was"]
    return " ".join([*done, *words[1 + perfect:at], participle, *words[at + 2:]])


def with_subject(expanded: str) -> str:
    """The sentence with the user as its subject when it was said without one ("Got a puppy" → "I got a
    puppy", "They made me manager" → "I was made manager"); any other sentence as it is."""
    done = _done_to_user(expanded)
    if done is not None:
        return done
    if expanded.split(" ", 2)[:2] in (["Back", "from"], ["Back", "home"], ["Back", "in"]):
        return f"I am b{expanded[1:]}"  # "Back from Japan!!", "Back home after three weeks"
    negated = _negated_without_subject(expanded)
    if negated is not None:
        return negated
    words = expanded.split(" ", 2)
    lead = 1 if len(words) > 1 and words[0].lower() in LEAD_ADVERBS else 0
    first = words[lead] if len(words) > lead else ""
    if first[:1].isupper() == (lead == 0) and first.lower() == "been" and len(words) > lead + 1:
        return f"I have {expanded[0].lower()}{expanded[1:]}" if lead else f"I have b{expanded[1:]}"  # "Just been …"
    said_after = words[lead + 1].split(" ", 1)[0].rstrip(".,!?;:") if len(words) > lead + 1 else ""
    after = said_after.lower()
    if first in _TASTES and english.verb_tag(after) == "VBG" and len(after) > 5:
        return f"I {expanded[0].lower()}{expanded[1:]}"  # "Love experimenting with spices": a taste, not advice
    if first[:1].isupper() == (lead == 0) and _doing_without_subject(first, after, expanded):
        return f"I am {expanded[0].lower()}{expanded[1:]}"  # "Just studying for my exams"
    # "Twisted my knee", "Got a puppy", "Just finished "Dune""; not "Fred won" or "United lost again" (a name
    # is the subject), nor "Had fun" (without a thing after it, "had" is as often "it had")
    if (
        first[:1].isupper() == (lead == 0)
        and english.is_past(first)
        and first.lower() not in ("was", "were")
        and after not in ("me", "us")  # "Took us 22 years", "Told me …": the user is the object, not the subject
        and (first.lower() != "had" or after in DETERMINERS)
        and (after in _AFTER_SUBJECTLESS_VERB or (after.endswith("ing") and len(after) > 5)  # "Went hiking"
             or said_after[:1] in ('"', "“")
             # "Started therapy", "Met Sarah"; not advice in a verb's plain form ("Read lots", "Cut sugar")
             or (english.verb_lemma(first.lower()) != first.lower()
                 and (said_after[:1].isdigit() or _no_verb_after(expanded, lead))  # "Just turned 30", "Ran 10k"
                 and (_a_thing(said_after) or said_after[:1].isdigit()
                      or (said_after[:1].isupper() and said_after != "I"))))
    ):
        return f"I {expanded[0].lower()}{expanded[1:]}"
    return expanded


def _negated_without_subject(expanded: str) -> str | None:
    """"Haven't smoked since March", "Didn't get the job", "Got divorced last year": the user's, said without
    "I". Not "Don't forget …" (an imperative says "don't"); None for any other sentence."""
    words = expanded.split(" ")
    if len(words) < 3:
        return None
    first, verb = words[0], words[1].strip(".,!?").lower()
    negated = words[1] == "not" and len(words) > 3
    after_not = words[2].strip(".,!?").lower() if negated else ""
    if negated and first in ("Have", "Had") and english.is_past(after_not) and english.verb_lemma(after_not) != after_not:
        return f"I {first.lower()} {' '.join(words[1:])}"
    if negated and first == "Did" and english.verb_tag(after_not) == "VB":
        return f"I did {' '.join(words[1:])}"
    if first == "Got" and english.is_past(verb) and english.verb_lemma(verb) != verb:  # "Got married", "Got laid off"
        return f"I got {' '.join(words[1:])}"
    return None


def _no_verb_after(expanded: str, lead: int = 0) -> bool:
    """The first clause has no verb of its own after its verb (the first word, or the second after "Just"):
    in "Roasted Chicken is one of my favourites" the past form is part of the subject."""
    said = expanded.replace(",", " , ").split()
    clause = [w for w in said if w != ","][: len(first_clause([w.lower() for w in said]))]
    # "in May" is a month, not the verb "may"
    statement = [w.rstrip(".!?;:") if w.islower() else "" for w in clause[lead + 1:]]
    placed = [any(w in _PREPOSITIONS for w in statement[:at]) for at in range(len(statement))]
    # a plural noun after a preposition is no verb: "Working from home under three blankets"
    return not any(w in FINITE or english.verb_tag(w) in ("VBZ", "VBD") and not (placed[at] and english.is_plural_noun(w))
                   for at, w in enumerate(statement))


def _a_thing(word: str) -> bool:
    """A plain noun said after a subject-less past verb ("Started therapy", "Made dinner"), not a verdict
    ("Looked great"), a verb ("Went home") or a word that could be the verb's subject ("Loved it")."""
    lowered = word.lower()
    return (word.islower() and english.is_noun(lowered) and not english.verb_tag(lowered)
            and lowered not in english.EVALUATIVE and lowered not in english.STOPWORDS)


def _doing_without_subject(first: str, after: str, expanded: str) -> bool:
    """"Just studying for my exams", "Mostly walking dogs": what the user is doing, said without "I am";
    not a gerund that is the subject ("Exploring new places can be inspiring", "Keeping a diary helps")."""
    if english.verb_tag(first.lower()) != "VBG" or (after not in _AFTER_SUBJECTLESS_VERB and first == expanded.split(" ")[0]):
        return False  # after an adverb the gerund is the verb whatever follows: "Prob skipping class tomorrow"
    return _no_verb_after(expanded)


def first_clause(words: list[str]) -> list[str]:
    """The words before a comma that opens another clause ("…, it has been tough", "…, and I loved it"); a
    list's commas do not ("Trying chocolate, raspberry, and coconut has been a blast": "has" is the
    gerund's own verb)."""
    clause: list[str] = []
    for index, word in enumerate(words):
        if word in ("and", "but") and words[index + 1:index + 2] and words[index + 1] in _CLAUSE_SUBJECTS | {"my", "our"}:
            break  # "Moving back into the dorm Sunday and my roommate still hasn't paid": another clause
        if word != ",":
            clause.append(word)
            continue
        after = words[index + 1:index + 3]
        if after[:1] and (after[0] in _CLAUSE_SUBJECTS
                          or (after[0] in ("and", "but", "so") and after[1:2] and after[1] in _CLAUSE_SUBJECTS)):
            break
    return clause


# A relative is one person: the verb after them agrees, as a learner of English may not write it ("my son
# have autism" → "User's son has autism"). Only a verb whose plain form is no thing said of the relative.
_SINGLE_RELATIVES = frozenset(w for w in english.PEOPLE + english.PETS if " " not in w and not english.is_plural_noun(w)
                              and w not in ("kids", "children", "parents", "in-laws", "grandkids", "grandchildren"))
_AGREEING = frozenset("have do go live work want like love need study play teach speak".split())


_EMPHATIC = {"do": "VBP", "does": "VBZ", "did": "VBD"}


def _without_emphasis(words: list[str]) -> list[str]:
    """"User does have an iPad" as "User has an iPad", "I did finish" as "finished": the "do" of emphasis is
    no part of the fact, and a reader (and the judge) know the plain verb better."""
    for at in range(1, min(len(words) - 1, 5)):
        tag = _EMPHATIC.get(words[at])
        verb = words[at + 1]
        subject = words[at - 1]  # right after its subject: not "User mostly does web development", "likes to do"
        if not (subject[:1].isupper() or subject.lower() in _CLAUSE_SUBJECTS or subject.lower() in english.PEOPLE):
            continue
        if tag and verb.isalpha() and verb.islower() and english.verb_tag(verb) == "VB" and english.verb_lemma(verb) == verb:
            form = verb if tag == "VBP" else english.verb_form(verb, tag)
            return [*words[:at], form, *words[at + 2:]] if form else words
    return words


def agreed(line: str) -> str:
    """``line`` with the verb after "User's <relative> [Name]" in the form for one person, and without a "do"
    of emphasis."""
    words = _without_emphasis(line.split(" "))
    if len(words) < 3 or words[0] != "User's" or words[1].lower() not in _SINGLE_RELATIVES:
        return " ".join(words)
    at = 3 if len(words) > 3 and words[2][:1].isupper() else 2  # "User's son Omar have …"
    if at < len(words) and words[at] in _AGREEING:
        words[at] = english.third_person_verb(words[at])
    return " ".join(words)

