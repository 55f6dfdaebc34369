"""Who a he or she can be: one part of the offline extractor.

A pronoun points back to the person named before it, but only one it can be: after "My wife and I adopted a cat",
"He sleeps on my leg" is the cat, and a line saying the wife does is false. The relations that say a person's sex
are ``english.FEMALE`` and ``english.MALE``; a relation that says none ("my friend Sam") agrees with either.
"""

from __future__ import annotations

from suzent_desktop.core.files.language import english

_SEX_OF = {"he": english.MALE, "him": english.MALE, "his": english.MALE, "she": english.FEMALE,
          "her": english.FEMALE, "hers": english.FEMALE}


def agrees(antecedent: str, sentence: str) -> bool:
    """Every he/she of the sentence can be the antecedent: "My wife and I adopted a cat. He sleeps on my leg"
    is the cat, not the wife. A relation that says no sex ("my friend Sam") agrees with either."""
    relation = set(antecedent.lower().split())
    sex = english.FEMALE if relation & english.FEMALE else english.MALE if relation & english.MALE else None
    said = {id(_SEX_OF[w]) for w in english.words(sentence.lower()) if w in _SEX_OF}
    if len(said) > 1:  # "I caught her feeding him": two people, and one antecedent is at most one of them
        return False
    return sex is None or said <= {id(sex)}


def opened_by(sentence: str, antecedent: str | None, named_at: int) -> str:
    """"He lives in Osaka with my son Daisuke": the "he" that opens the sentence is the person said before it
    (the grandson), not the son it goes on to name; it must be the sentence's only pronoun of a person."""
    words = english.words(sentence.lower())
    first = sentence.split(" ", 1)[0].replace("’", "'").split("'")[0]
    if (antecedent is None or named_at == 0 or first.lower() not in ("he", "she")
            or sum(w in _SEX_OF for w in words) != 1 or not agrees(antecedent, first)):
        return sentence
    return antecedent[0].upper() + antecedent[1:] + sentence[len(first):]


# What two people do together: "we met in nursery school", "we got married in 2010" said of the user and one other
_TOGETHER = frozenset("meet marry date divorce".split())
_AFTER_TOGETHER = english.PREPOSITIONS | frozenset("last when back years online".split())


def we_together(sentence: str, antecedent: str | None) -> str:
    """"Her name is Dana and we met in nursery school": "we" who met are the user and the person just named, and
    the line says so ("I and my best friend Dana met …", as "User and their best friend Dana met …"). With no one named before, the sentence gives no line
    (empty): "User met in nursery school" would say the user met no one. Any other sentence as said."""
    words = sentence.split(" ")
    at = 1
    while at < len(words) and words[at].lower() in ("first", "finally", "just", "actually", "originally", "only"):
        at += 1
    if len(words) < at + 2 or words[0].lower() != "we":
        return sentence
    verb, following = words[at].lower(), words[at + 1].strip(".,!?").lower()
    lemma = english.verb_lemma(verb)
    parted = lemma in ("break", "split") and following == "up"
    if english.verb_tag(verb) != "VBD" or not (parted or lemma in _TOGETHER and following in _AFTER_TOGETHER):
        return sentence  # "We met Sarah at the party": the user and someone met her
    if antecedent is None:
        return ""
    return f"I and {antecedent} {' '.join(words[1:])}"
