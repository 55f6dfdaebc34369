"""News about someone the user names without saying who they are: "Mateo passed the entrance exam!".

Friends tell each other about people by name alone, and a memory that only keeps a person introduced as
"my son Mateo" loses "Hana is pregnant!!!" and "Rui got a job in Porto". A sentence whose subject is a
name (a capitalised word that is no common English word, optionally with a second one) followed by a
finite verb is a candidate line about that person, as said; the judge decides whether it tells anything.
"Mateo, you have to see this" calls someone, and "Lisbon was amazing" names no person the judge keeps.
"""

from __future__ import annotations

from suzent_desktop.core.engines.capture.family_names import FAMILY_NAMES
from suzent_desktop.core.engines.capture.subjectless import LEAD_ADVERBS
from suzent_desktop.core.files.language import english

# Between the name and its verb: "Mateo finally passed", "Hana just got engaged"
_ADVERBS = LEAD_ADVERBS | {"still", "now", "even", "officially"}
# one person's: "Fajitas are great" names no one (modals are english.MODALS)
_AUXILIARIES = (english.PRESENT_AUXILIARIES | english.PAST_AUXILIARIES | {"has"}) - {"are", "am", "were"}
_FINITE_TAGS = frozenset(("VBD", "VBZ"))
# "Barcelona sounds awesome", "Hana looks happy": the speaker's impression, no news of anyone
_IMPRESSIONS = frozenset("sound look seem feel".split())
_PUNCTUATION = ".,!?;:\"'“”()"


def looks_named(word: str) -> bool:
    """A capitalised word that names someone ("Tom", "Rafael"), not a common word, an adverb or a family name."""
    bare = word.rstrip(_PUNCTUATION)
    # "Sadly", "Honestly": an adverb of a common word; "Lily", "Sally", "Kelly" are names
    adverb = bare.endswith("ly") and english.lexicon().word_usage_frequency(bare[:-2].lower()) >= 1e-5
    return (bare == word and bare[:1].isupper() and bare[1:].islower() and bare.replace("-", "").isalpha()
            and bare.lower() not in FAMILY_NAMES and english.looks_like_name(bare) and not adverb)


def _finite(word: str) -> bool:
    lowered = word.lower()
    if lowered in _AUXILIARIES or lowered in english.MODALS:
        return True
    if english.verb_lemma(lowered) in _IMPRESSIONS:
        return False
    return english.verb_tag(lowered) in _FINITE_TAGS


def with_verb(sentence: str) -> str:
    """"Hana's pregnant" as "Hana is pregnant", "Rui's moved to Porto" as "Rui has moved …": a name's "'s"
    before what says how the person is reads as the verb it stands for, not as a possessive."""
    words = sentence.strip().split(" ")
    name = subject_name(sentence)
    if name is None or " " in name or not words[0].startswith(name) or len(words[0]) == len(name):
        return sentence
    following = words[1].strip(_PUNCTUATION).lower()
    if not _contracted(following, words[2:3]):
        return sentence  # "Geoffrey's knee operation went well": his, not "is"
    # "Dave's hurt his back": an object after the participle makes it "has", though "hurt" can say how he is
    done_to = words[2:3] and words[2].lower() in _OBJECT_OPENERS
    verb = "has" if english.is_past(following) and (done_to or not english.is_adjective(following)) else "is"
    return " ".join([name, verb, *words[1:]])


_OBJECT_OPENERS = frozenset("his her their my our a an the".split())


def subject_name(sentence: str) -> str | None:
    """The name a sentence is about when it opens with it and a verb ("Hana is pregnant", "Rui Costa got a
    job in Porto", "Hana's pregnant"), else None. The sentence must go on past the verb: "Mateo said" alone
    tells nothing."""
    words = sentence.strip().split()
    if len(words) < 2:
        return None
    first = words[0]
    for suffix in ("'s", "’s"):  # "Hana's pregnant", "Rui's moving to Porto": the name, contracted with "is"
        if first.endswith(suffix) and looks_named(first[: -len(suffix)]):
            following = words[1].strip(_PUNCTUATION).lower()
            if _contracted(following, words[2:3]) or _owned_subject(words[1:]):
                return first[: -len(suffix)]
            return None
    if not looks_named(first):
        return None
    at = 2 if looks_named(words[1]) else 1  # "Rui Costa"
    name = " ".join(words[:at])
    if at < len(words) and words[at].lower() in _ADVERBS:
        at += 1
    if at + 1 >= len(words) or not _finite(words[at].strip(_PUNCTUATION)):
        return None
    return name


def owned_by(sentence: str, name: str) -> bool:
    """The sentence opens with something of the name's ("Kenji's baby is …"), not with the person."""
    first, _, rest = sentence.strip().partition(" ")
    following = rest.split(" ")
    owner = first.removesuffix("'s").removesuffix("’s")
    return owner == name and first != name and not _contracted(
        following[0].strip(_PUNCTUATION).lower(), following[1:2])


def _contracted(following: str, after: list[str]) -> bool:
    """The word after "Hana's" says how she is or what she did ("pregnant", "moving", "moved"): "'s" is "is".
    Not when a verb follows it: in "Anjali's wedding was on the 21st" the wedding is hers."""
    if after and _finite(after[0].strip(_PUNCTUATION)):
        return False
    return english.verb_tag(following) == "VBG" or english.is_past(following) or english.is_adjective(following)


def _owned_subject(words: list[str]) -> bool:
    """"Geoffrey's [knee operation on Tuesday] went well": after the name's "'s", a thing of theirs and, in
    the same clause, its verb."""
    if not english.is_noun(words[0].strip(_PUNCTUATION).lower()):
        return False
    for word in words[1:7]:
        if word.endswith(","):
            return False
        if _finite(word.strip(_PUNCTUATION)) and not english.is_plural_noun(word.strip(_PUNCTUATION).lower()):
            return True
    return False


def relation_first(sentence: str) -> str:
    """"Rodrigo my sous chef just quit" as "My sous chef Rodrigo just quit": who the named person is to the
    user, said the way the rest of the step reads it."""
    words = sentence.strip().split(" ")
    if len(words) < 5 or not looks_named(words[0].rstrip(",")) or words[1].lower() not in ("my", "our"):
        return sentence
    at = next((i for i in (2, 3) if (words[i].rstrip(",").lower() in english.PEOPLE
                                      or english.is_noun(words[i].rstrip(",").lower())
                                      or english.is_adjective(words[i].rstrip(",").lower()))  # "our oldest"
               and (words[i + 1].lower() in _ADVERBS or _finite(words[i + 1].strip(_PUNCTUATION)))), None)
    if at is None:
        return sentence
    relation = [w.rstrip(",") for w in words[2:at + 1]]
    return " ".join(["My", *relation, words[0].rstrip(","), *words[at + 1:]])
