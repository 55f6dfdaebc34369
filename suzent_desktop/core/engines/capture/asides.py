"""What a user says beside a statement, and the statement without it: one part of the offline extractor.

Chat wraps a fact in words that are no part of it, and the judge then weighs the wrapping: "I'm leading
the backend team now, which is scary but fun" reads as a feeling, "My partner isn't, but he cooks vegan
with me" is no sentence at all. The line is the statement alone: "I'm leading the backend team now",
"My partner cooks vegan with me".
"""

from __future__ import annotations

from suzent_desktop.core.files.language import english

# "isn't", "doesn't" …: a clause that ends on its negated auxiliary leaves its verb to what was said before
_ELLIPTICAL_ENDS = frozenset(
    "isn't isnt aren't wasn't weren't doesn't don't didn't can't won't hasn't haven't".split())
_SUBJECT_PRONOUNS = frozenset("he she they".split())
# words a comment may hold besides its verdicts: "which is scary but fun", "which was a bit much"
_COMMENT_WORDS = frozenset(
    "but and so really pretty quite very a bit kind of sort little super also too unreal".split())


def without_asides(sentence: str) -> str:
    """The statement of ``sentence``: an elliptical clause before ", but he …" gives the later clause its
    subject ("My partner isn't, but he cooks vegan" → "My partner cooks vegan"), and a comment after it
    (", which is scary but fun"), a feeling about it (", we're all so proud of him") and a question
    after it (", any easy dinner ideas?") are left out."""
    return _without_verdict(_without_feeling(_without_comment(_without_ellipsis(_without_request(
        _without_question(_without_said_before(_without_remark(sentence))))))))


# Who a bracketed remark speaks of when it is a clause beside the statement, not a description of it
_REMARK_SUBJECTS = frozenset("he she they it i we that this".split())


def _without_remark(sentence: str) -> str:
    """"My dad retired last week (he's already bored lol)": a clause in brackets is a remark beside the
    statement, and its pronoun points nowhere in the line. "(propranolol)", "(my corgi)" describe what
    they follow and stay."""
    start = sentence.find("(")
    end = sentence.find(")", start + 1)
    if start < 0 or end < 0:
        return sentence
    inside = sentence[start + 1 : end].split()
    first = inside[0].lower().replace("’", "'").split("'")[0] if inside else ""
    if len(inside) < 2 or first not in _REMARK_SUBJECTS:
        return sentence
    return _without_remark((sentence[:start].rstrip() + sentence[end + 1 :]).strip())


_SAID_BEFORE = ("like i said", "as i said", "like i mentioned", "as i mentioned", "as i told you", "like i told you",
                "as i said before", "like i said before", "as i mentioned before", "like i mentioned before")


def _without_said_before(sentence: str) -> str:
    """"I joined a travel club and, like I said, I'm working on my studies": pointing back at the talk is no
    part of the statement."""
    lowered = sentence.lower()
    for said in sorted(_SAID_BEFORE, key=len, reverse=True):
        at = lowered.find(said)
        if at < 0:
            continue
        end = at + len(said)
        before = sentence[:at].rstrip(" ,")
        after = sentence[end:].lstrip(" ,")
        return f"{before} {after}".strip() if before else after[:1].upper() + after[1:]
    return sentence


_REQUEST_JOINS = (" so please ", ", so please ", ", please ", " and please ", ", and please ",
                  ", so no ")  # "I can't have dairy, so no ice cream for me": what follows, said as an aside


def _without_request(sentence: str) -> str:
    """"I'm lactose intolerant so please don't suggest cheesy recipes": the request is to the listener; "…, so
    no ice cream for me" only says again what the statement said."""
    lowered = sentence.lower()
    at = min((lowered.find(join) for join in _REQUEST_JOINS if join in lowered), default=-1)
    return sentence[:at] + "." if at > 0 and len(sentence[:at].split()) >= 2 else sentence


def _without_verdict(sentence: str) -> str:
    """"I've switched to an iPhone 15, the camera is insane": a verdict on a part of the thing, after a comma."""
    head, joined, tail = sentence.rstrip(" .!").rpartition(", ")
    words = [w.lower() for w in english.words(tail)]
    if not joined or len(head.split()) < 3 or len(words) < 3 or words[0] not in ("the", "its", "it's"):
        return sentence
    verb = next((i for i, word in enumerate(words) if word in ("is", "was", "are", "were")), None)
    if verb is None or verb > 3 or not all(w in english.EVALUATIVE or w in _COMMENT_WORDS for w in words[verb + 1:]):
        return sentence
    return head + "."


# what a question after a statement opens with: "I'm vegetarian, any easy dinner ideas?"
_QUESTION_OPENINGS = frozenset(
    "any anyone what how why where when who which do does did can could would should is are was were got right "
    "you thoughts ideas tips".split())
# the user's feeling about what they just said: "…, I'm gonna miss him so much", "…, we're all so proud of her"
_FEELING_SUBJECTS = ("i'm ", "i am ", "we're ", "we are ")
_FEELING_WORDS = english.STOPWORDS | english.EVALUATIVE | frozenset(
    "proud glad happy sad excited nervous worried thrilled gutted chuffed miss love gonna going all really so "
    "much still honestly".split())


def _without_question(sentence: str) -> str:
    if not sentence.rstrip().endswith("?"):
        return sentence
    head, joined, tail = sentence.rstrip().rpartition(", ")
    first = tail.split(" ", 1)[0].lower().strip("?")
    if not joined or first not in _QUESTION_OPENINGS or len(head.split()) < 3:
        return sentence
    return head + "."


def _without_feeling(sentence: str) -> str:
    head, joined, tail = sentence.rstrip(" .!").rpartition(", ")
    lowered = tail.lower().replace("’", "'")
    if not joined or len(head.split()) < 3 or not lowered.startswith(_FEELING_SUBJECTS):
        return sentence
    words = english.words(lowered.split(" ", 1)[1] if lowered.startswith(("i'm", "we're")) else lowered.split(" ", 2)[2])
    if not words or not all(w in _FEELING_WORDS for w in words):
        return sentence  # ", I'm moving to Leeds in May" is a statement of its own
    return head + "."


def _without_ellipsis(sentence: str) -> str:
    head, joined, rest = sentence.partition(", but ")
    words = head.split()
    if not joined or len(words) < 2 or words[-1].lower().replace("’", "'") not in _ELLIPTICAL_ENDS:
        return sentence
    pronoun, _, said = rest.partition(" ")
    if pronoun.lower() not in _SUBJECT_PRONOUNS or not said:
        return sentence
    return f"{' '.join(words[:-1])} {said}"


def _without_comment(sentence: str) -> str:
    head, joined, comment = sentence.partition(", which ")
    words = [w.lower().strip(".!?,") for w in comment.split()]
    if not joined or not words or words[0] not in ("is", "was", "has", "sounds", "feels"):
        return sentence
    rest = [w for w in words[1:] if w not in ("been",)]
    if not rest or not all(w in english.EVALUATIVE or w in _COMMENT_WORDS for w in rest):
        return sentence  # ", which is a startup in Leeds" says more of the thing
    return head + "."
