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
