"""Is a fact line worth reading? The precision rules shared by the offline extractor and model facts.

A fact line is read every day by a person and by the agent; the transcript keeps every word of
the turn anyway, so a line that is not clearly a fact is left out ("when in doubt, write
nothing"). A line is kept only when it is:

* **about the user or a named person**: its subject is ``User`` / ``User's …`` or a name
  (``Ana (the user's sister) …``, ``Melanie …``), after an optional leading time phrase
  ("Last Friday (2023-05-05), User …"); "Writing has become an escape" or "Pets brighten the
  user's days" are maxims, not facts about anyone;
* **standalone**: no pointer whose referent is outside the line ("this", "that", "here",
  "there", "they", "it", "others", "the same", "one" as in "another one"; "this weekend" is a
  time, and "a screenplay that won" is a relative clause, both fine);
* **specific**: it names a person, place, thing, time or quantity (a capitalised name, a number,
  a quoted title, a life event such as "engaged" or "vegetarian") next to what happened, or
  three concrete words ("User plays songs on the piano"); vague and evaluative words
  ("amazing", "stuff", "a lot", "things") do not count;
* **grammatical English**: the subject's verb is an English word ("totallies", "wannas" and
  "couldns't" are not), no dangling end ("… and"), balanced quotes;
* **not small talk**: not agreement, thanks, encouragement, a feeling about the moment or
  the conversation ("User is so glad", "User is crossing their fingers"), an invitation, or
  advice ("User should try Rust's borrow checker");
* **not a bare negation** ("User has not had time for trails"), except a taste ("does not like");
* **not a passing moment** ("User is hiking with some buddies this weekend").

:func:`problem` names the first rule a line breaks ('' when it is worth keeping). The lines are
read in the log's third person ("User is …"); ``extraction.third_person`` turns a model's
first-person fact into it first.
The English lexicon is pyspellchecker's word list, loaded once on first use (``core/engines/lexicon.py``).
"""

from __future__ import annotations

import re

from suzent_desktop.core.engines.lexicon import Lexicon, english

_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'’-]*|\d+")
_DATE_PAREN = re.compile(r"\s*\((?:[^()]*\d{4}[^()]*)\)")
_TIME_WORDS = frozenset(
    "yesterday today tonight tomorrow last next this past recently earlier later ago week weekend month year "
    "morning evening afternoon night monday tuesday wednesday thursday friday saturday sunday summer winter "
    "spring fall autumn on in at during since a few couple of two three days weeks months years the".split()
)
_TIME_NOUNS = (
    "day|week|weekend|month|year|morning|evening|afternoon|night|summer|winter|spring|fall|autumn|time|"
    "monday|tuesday|wednesday|thursday|friday|saturday|sunday|season|semester|term"
)
_PERSON_POINTERS = re.compile(r"\b(?:they|them|it)\b", re.I)  # fine after a name in the same line
_POINTERS = re.compile(
    r"\b(?:this|these|those|here|there|themself|others|someone|somebody|something|"
    r"stuff|the same|another one|this one|that one|each one|the first one|the other one|one of them|such|ya|(?:favou?rite|new|old|other|big|little|next|last) one|tell ya|you know|ya know|for example|as well)\b",
    re.I,
)
_TIME_THIS = re.compile(rf"\b(?:this|these|that) (?:past |coming )?(?:{_TIME_NOUNS})s?\b", re.I)
_RELATIVE_THAT = re.compile(r"\b(?:a|an|the|some|every|any|User's|their)\s+(?:[\w'-]+\s+){0,3}that\b")
_THAT = re.compile(r"\bthat\b", re.I)
_SUBORDINATE_START = re.compile(
    r"^(?:since|because|when|while|although|though|if|as|until|unless|which|who|whom|whose|and|but|or|so|"
    r"with|without|for|to|like|than|even|also|still|just|yup|yep|yeah|yes|no|oh|well|anyway|unfortunately|"
    r"luckily|hopefully|apart|besides|plus|instead|otherwise|then|now)\b",
    re.I,
)
_DANGLING_END = re.compile(
    r"\b(?:and|or|but|the|a|an|to|of|with|for|from|about|like|as|that|which|who|because|so|than|at|in|on|"
    r"by|into|their|is|was|are|were|has|have|had)$",
    re.I,
)
# Agreement, thanks, encouragement, feelings about the moment or the conversation, invitations.
_SMALL_TALK = re.compile(
    r"\b(?:agree[sd]?|agreeing|totally|thank|thanks|thankful|grateful|gratitude|appreciates?|appreciated|"
    r"appreciative|blessed|lucky to have|proud of|keep (?:it|going|at it|pushing|up)|hang in|rooting for|"
    r"cheering|count on|believe in|got this|go for it|you got|fingers crossed|crossing (?:their|her|his) "
    r"fingers|cannot wait|can't wait|looking forward|hope|hopes|hoping|wish|wishes|glad|stoked|psyched|"
    r"pumped|catch up|catching up|talk soon|chat(?:ting)? (?:soon|later|again)|great chat|nice chat|"
    r"come join|join the user|let's|let us|feel free|reach out|hit the user up|drop by|you should|"
    r"good luck|congrats|congratulations|take care|no worries|sounds (?:good|great|fun|amazing)|"
    r"means (?:a lot|so much|the world)|so much fun|had a blast|life's challenges|tough times|"
    r"hard work is paying off|brightens?|brightening|remind(?:s|ed)? the user|reminds? User|what matters|"
    r"makes the user|make the user|made the user (?:feel|think|happy|smile)|is all about|emotions?|the feels|joy|"
    r"hyped|rewarding|troubles|get lost|getting lost|so why not|why not|comin'|"
    r"snag|setback|tempted|lazy|pic|pics|photo|photos|picture|pictures|screenshot|snapshot|selfie|"
    r"has to go|gotta go|must have|might have|may have|could have|would have|should have|staying positive|"
    r"giving up|doing better|imagination|sucker|than anything|means everything|the world to|cuddle|will be waiting|"
    r"tag along|pretty much|like User said|as User said|captivates?|captivated|impact on the user|immersed|"
    r"sinking into|get (?:their|her|his) head around|find a way to|figure out how|"
    r"lol|lmao|rofl|haha\w*|hehe\w*|tbh|omg|xd)\b",
    re.I,
)
_FEELING = re.compile(
    r"^User (?:is|was|feels|felt|has been|had been|gets|got|seems|is feeling|was feeling|has felt)"
    r"(?: (?:so|really|super|very|pretty|quite|totally|a bit|kind of|kinda|a little|just|also|still|"
    r"now|always|definitely|honestly|truly|extremely|incredibly|too|not|never|most|more|particularly|"
    r"especially|rather|fairly|somewhat|slightly|all))*"
    r" (?:glad|happy|excited|stoked|thrilled|proud|nervous|anxious|sad|relieved|grateful|thankful|"
    r"overwhelmed|bummed|pumped|psyched|blown away|amazed|impressed|inspired|touched|moved|sure|confident|"
    r"curious|lucky|blessed|tired|busy|ok|okay|fine|good|great|doing (?:ok|okay|fine|well|great|good)|feeling|"
    r"ready|down|into it|lost|unsure|confused|exhausted|hopeless|lonely|reflective|relaxed|calm|peaceful|"
    r"comfortable|uncomfortable|torn|conflicted|homesick|drained|burnt out|burned out|"
    r"speechless|stressed|worried|scared|afraid|upset|frustrated|bored|hooked|obsessed|in awe|"
    r"motivated|determined|hopeful|optimistic|eager|keen|fascinated|intrigued|interested|passionate|"
    r"over the moon|on cloud nine|stoked|a bit|all set|loving it|enjoying it|having (?:fun|a blast|a great time))\b",
    re.I,
)
LIFE_EVENTS = frozenset(
    "engaged married divorced separated pregnant graduated promoted retired fired hired adopted widowed "
    "vegetarian vegan pescatarian allergic diabetic sober baptized born died passed injured hospitalized "
    "diagnosed relocated moved quit resigned enrolled elected intolerant puppy kitten".split()
)
# Words that say nothing specific on their own: they never count towards "specific".
_VAGUE = frozenset(
    "a an the and or but so to of in on at for with from by about as into over after before than then is am are "
    "was were be been being have has had do does did done not no just really very also too still now currently "
    "recently finally actually already again some any all much many more most lot lots quite pretty bit kind "
    "sort super so totally user user's users their they them it its this that these those there here one ones "
    "thing things stuff something anything everything nothing way ways time times today yesterday tomorrow week "
    "month year night morning day days ago last next new old different various similar same special cute rad "
    "wild crazy incredible fantastic wonderful beautiful lovely amazing awesome great cool nice fun good bad "
    "best better hard tough life moment moments experience experiences feelings feeling heart mind world people "
    "everyone everybody someone somebody others other another such little big huge whole own always never "
    "evening afternoon often sometimes usually will would can could should may might must get gets got getting go goes going "
    "went make makes made making take takes took taking like likes liked love loves loved enjoy enjoys "
    "enjoyed feel feels felt think thinks thought want wants wanted try tries tried trying keep keeps kept "
    "start starts started find finds found see sees saw seen come comes came know knows knew say says said "
    "tell tells told give gives gave put puts let lets help helps helped look looks looked use uses used "
    "really truly definitely honestly especially even ever yet since while when what which who where why how "
    "lately awhile together back up out off down away around well plenty tons bunch couple few several "
    "favorite favourite fave project projects idea ideas skill skills tips problem problems adventure adventures "
    "milestone team issue issues usual reads recommendations place places part parts level color colour texture "
    "plots acting positive important fam lately bunch pretty rock dreams thought whole scenery stories worlds "
    "somewhere past progress copy copies news update updates result results effort efforts situation "
    "weeks months years hours minutes seconds while through across along within without toward towards upon "
    "onto among between during difficulty difficulties trouble troubles challenge challenges struggle struggles "
    "knowledge question questions spend spends spent spending".split()
)
# Evaluative adjectives: they say how the user felt about something, not what it was. They never count
# as concrete, and a line with one needs a third concrete word ("explored some nice trails" is a vague
# event; "went hiking and found new trails in Woodhaven" is not).
EVALUATIVE = frozenset(
    "unexpected unbelievable coolest nicest greatest biggest best worst memorable epic fabulous gorgeous "
    "stunning perfect terrible awful horrible delicious tasty yummy interesting exciting boring random weird "
    "strange unique successful rough scary challenging fantastic incredible amazing awesome great cool nice "
    "fun good bad tough hard big huge small wonderful beautiful lovely special crazy wild cute rad tiring "
    "relaxing stressful hectic intense insane fantastic magical adorable sweet brilliant excellent superb "
    "massive tremendous enormous productive meaningful fulfilling inspiring".split()
)
_MIN_CONCRETE = 2  # concrete words needed when there is no name, number, title or life event
_GO_ACTIVITY = re.compile(r"\b(?:go|goes|going|went|gone)\s+[a-z]+ing\b")  # "went kayaking": an activity
_MIN_WORDS = 3
_FREQUENCY = re.compile(r"\b(?:once|twice|three times|\d+ times|every|each) (?:a |per |other )?(?:day|week|month|"
                        r"year|morning|evening|night|weekend|monday|tuesday|wednesday|thursday|friday|saturday|"
                        r"sunday)\b", re.I)
_HABIT = re.compile(r"^User (?:usually|always|often|never|regularly|normally|sometimes) ")
# A taste needs one concrete word to be specific: "User loves hiking".
_PREFERENCE = re.compile(
    r"^(?:User's [\w ]{1,30}? and )?User (?:(?:really|also|still|just|absolutely|does not|do not|never) )*(?:likes?|loves?|enjoys?|prefers?|"
    r"hates?|dislikes?|adores?|is (?:really |also )?(?:into|a (?:big |huge )?fan of|allergic to))\b"
)


def _lexicon() -> Lexicon:
    return english()


def is_english_word(word: str) -> bool:
    """Whether ``word`` (lower-cased) is in the English word list, regular inflections included."""
    word = word.lower().replace("’", "'")
    lexicon = _lexicon()
    if word in lexicon:
        return True
    for suffix, stem_ends in (("ies", ("y",)), ("es", ("", "e")), ("s", ("",)), ("ed", ("", "e")),
                              ("ing", ("", "e"))):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            base = word[: -len(suffix)]
            if base.endswith("l") and suffix == "ies":
                continue  # "totallies", "personallies": an adverb conjugated as a verb
            if any(base + end in lexicon for end in stem_ends):
                return True
    return False


def _after_lead(text: str) -> str:
    """The line without a leading time phrase ("Last Friday (2023-05-05), User went …" → "User went …")."""
    match = re.match(r"^(?P<lead>[^,]{0,60}?)(?:\s*\([^()]*\))?,?\s+(?=(?:User\b|[A-Z][a-z]+ \(the user's))", text)
    if match and match.group("lead"):
        words = [w.lower() for w in _WORD_RE.findall(match.group("lead"))]
        if words and all(w in _TIME_WORDS or w.isdigit() for w in words):
            return text[match.end():]
    return text


_FAVOURITE_OF_USER = re.compile(r"\b(?:is|are) (?:one of )?(?:User's|the user's) favou?rites?\b|"
                                r"\bfavou?rites? of the user's\b")


# "pickles, User's cat, hates thunderstorms": a name and who it is, as the subject
_APPOSITIVE = re.compile(r"^[A-Za-z][a-z]+, (?:User's|the user's) [\w -]{2,30}, |"
                         r"^[^:]{0,60}\b[A-Z][a-z]+ \(the user's [^)]{2,30}\): ")  # "News from Farah (…): …"


def _subject_ok(text: str) -> bool:
    """The line opens with the user, or with a named person (a capitalised name that is not an
    ordinary English word, or one the extractor already said who it is)."""
    if re.match(r"^User(?:'s)?\b", text) or _FAVOURITE_OF_USER.search(text) or _APPOSITIVE.match(text):
        return True
    match = re.match(r"^(?P<name>[A-Z][a-z]+)(?P<rest>(?: (?!User\b)[A-Z][a-z]+)*)(?P<after> \(the user's|'s| [a-z])", text)
    if not match:
        return False
    if match.group("after") == " (the user's" or match.group("rest"):
        return True
    return looks_like_name(match.group("name"))


NAME_MAX_FREQUENCY = 4.5e-6  # "Fred", "John", "Max" are rarer as words than "Nature", "Family", "Epic"
_CALENDAR = frozenset("monday tuesday wednesday thursday friday saturday sunday january february march april may "
                      "june july august september october november december today tomorrow yesterday".split())


def looks_like_name(word: str) -> bool:
    """A capitalised word that opens a line names someone, unless it is a common English word, a
    gerund ("Writing") or the plural of a word ("Pets")."""
    lowered = word.lower()
    lexicon = _lexicon()
    if lowered in _CALENDAR:
        return False
    if lowered not in lexicon:
        return not is_english_word(lowered)
    if lowered.endswith("ing") or (lowered.endswith("s") and lowered[:-1] in lexicon):
        return False
    return lexicon.word_usage_frequency(lowered) < NAME_MAX_FREQUENCY


def _anchored(body: str) -> bool:
    """A name (not the first word), a number, a quoted title, a life event or a frequency."""
    words = _WORD_RE.findall(_DATE_PAREN.sub("", body))  # a date says when, not what: it is no anchor
    if any(i > 0 and w[0].isupper() and w not in ("User", "User's", "I") and w.lower() not in _CALENDAR
           for i, w in enumerate(words)):
        return True
    if re.search(r"\d", _DATE_PAREN.sub("", body)) or re.search(r"[\"“][^\"”]{2,}[\"”]", body):
        return True
    return any(_lower(w) in LIFE_EVENTS for w in words) or bool(_FREQUENCY.search(body))


def _lower(word: str) -> str:
    return word.lower()[:-2] if word.lower().endswith("'s") else word.lower()


def _concrete(body: str) -> list[str]:
    """The words that say what: not vague, not evaluative, not a number."""
    lowered = [_lower(w) for w in _WORD_RE.findall(body)]
    concrete = [w for w in lowered if w not in _VAGUE and w not in EVALUATIVE and len(w) > 2 and not w[0].isdigit()]
    return concrete + (["go"] if _GO_ACTIVITY.search(body) else [])


def _specific(text: str) -> bool:
    """A name, number, quoted title or life event next to something concrete, or enough concrete words."""
    body = _DATE_PAREN.sub("", text)
    if re.match(r"^User is \d{1,3}(?: years old)?\b", body):
        return True  # an age
    if _anchored(body):
        return len(_concrete(body)) >= 1
    work = _UNNAMED_WORK.search(body)
    if work and (not work.group("adjective") or work.group("adjective") in _VAGUE | EVALUATIVE):
        return False  # "User was playing a game", "User watched a film that …": which one?
    concrete = _concrete(_OUTING.sub(" ", body))  # "went for a ride" names nothing
    if _PREFERENCE.match(body) or _FAVOURITE_OF_USER.search(body):
        return len(concrete) >= 1
    # "some sketches", "a lot of ducks": the line does not say which, so one more concrete word is needed
    uncounted = bool(_UNCOUNTED.search(body))
    if _HABIT.search(body):
        return len(concrete) >= _MIN_CONCRETE + uncounted
    # a concrete activity or role needs two concrete words ("User leads the search team", "User is
    # learning the piano"); with an evaluative word, three
    lowered = {_lower(w) for w in _WORD_RE.findall(body)}
    return len(concrete) >= _MIN_CONCRETE + bool(EVALUATIVE & lowered) + uncounted


def _bare_verb(word: str) -> bool:
    """A verb in its plain form where the third person needs "-s" ("need" where "needs" is due)."""
    lexicon = _lexicon()
    past = word.endswith("ed") and len(word) > 4 and (word[:-2] in lexicon or word[:-1] in lexicon)
    if word in _NOT_A_BARE_VERB or past or word.endswith("s") or not word.isalpha():
        return False
    third = word[:-1] + "ies" if word.endswith("y") and word[-2:-1] not in "aeiou" else word + "s"
    if word.endswith(("s", "sh", "ch", "x", "z", "o")):
        third = word + "es"
    return word in lexicon and third in lexicon


def _grammatical(text: str) -> bool:
    if text.count('"') % 2 or text.count("(") != text.count(")"):
        return False
    if _DANGLING_END.search(text.rstrip(".!?,;: ")):
        return False
    verb = re.match(r"^User (?:(?:really|just|also|still|now|currently|recently|finally|actually|already|"
                    r"always|never|often|usually|sometimes|even|first) )*(?P<verb>[a-z'’-]+)", text)
    if verb and not is_english_word(verb.group("verb")):
        return False  # "User totallies agree", "User wannas go": a conjugated non-verb
    if verb and _bare_verb(verb.group("verb")):
        return False  # "User still need to …": a verb without its -s
    for word in re.findall(r"\b[a-z]+['’][a-z]+\b", text):
        if not is_english_word(word) and not word.endswith(("'s", "’s")):
            return False  # "couldns't"
    if re.search(r"\b(?:totall|personall|actuall|reall|literall|basicall|honestl|definitel|absolutel|seriousl)"
                 r"(?:ies|ys)\b|\bjusts\b|\b\w+in'(?!\w)", text):
        return False  # an adverb conjugated as a verb ("justs submitted"), a dropped g ("comin'")
    if len(re.findall(r"\bUser\b|\bthe user\b", text)) > 2:
        return False  # "User remembers when User did …, User was so nervous User forgot …": a turn, not a line
    return "User User" not in text


# What the user is doing at the moment of speaking ("User is hiking with buddies this weekend") passes
# by the next week; a plan or a habit says so in other words.
_PASSING = re.compile(r"^User is (?:\w+ly )?\w+ing\b.*\b(?:this weekend|tonight|today|right now|at the moment|"
                      r"this (?:morning|afternoon|evening))\b|^User is (?:(?:now|just) )?(?:about to|now going to|"
                      r"just going to)\b|^User is (?:just )?(?:heading|popping|running|stepping|nipping) "
                      r"(?:out|off|over|down|across)\b")
# What the user was doing at some moment, or has to get done, says little unless the line names or dates
# it ("User was living in Tallinn in 2019", "User needs to take insulin twice a day").
_MOMENT = re.compile(r"^User was (?:\w+ly )?[a-z]+ing\b|\b(?:was|were) able to\b|^User (?:really |still |just )?(?:needs|has|had|have) to\b")
_VAGUE_OBJECT = re.compile(r"\b(?:to|at|in|from) (?:a|some) (?:place|places|spot|thing)\b|\bsomewhere\b", re.I)
_ADVICE = re.compile(r"\b(?:should|ought to|could try|might want|may want|is advised|is recommended|"
                     r"recommends? that)\b", re.I)
# Adverbs that may stand between "User", an auxiliary and the verb ("User has also decided").
_ADVERBS = (r"(?:(?:just|really|also|still|now|currently|actually|honestly|kind of|kinda|always|even|then|finally|"
            r"recently|suddenly|first|already|definitely|truly|seriously|lately|quietly|sometimes|often) )*")
_AUXILIARY = r"(?:(?:has|have|had|is|was|are|were|has been|had been|does|did|do) )?"
# A thought, a decision, an opinion or an impression ("User just thinks it's important to …", "User has
# decided to …", "User seems to need …"): what went on in the user's head, not what is or happened,
# in any tense. A decision that is a life event stays.
_THOUGHT = re.compile(
    rf"^User {_ADVERBS}{_AUXILIARY}{_ADVERBS}(?:thinks?|thought|thinking|believes?|believed|reckons?|"
    r"guess(?:es)?|supposes?|reali[sz](?:ed|es)|figured|figures|wonders?|wondered|knows? (?:that|how|what|why)|"
    r"(?:feels?|felt) (?:that|like)|finds? it|found it|decided|decides?|deciding|considered|considering|"
    r"imagines?|understands?|gets how|got how|remembers?|remembered|forgot|learn(?:ed|t) that|"
    r"seems?|seemed|appears?|appeared|meaning to|meant to)\b"
    r"|\b(?:got|had|has|came up with|gets) (?:the|an|this|that) idea\b|\bit'?s important\b"
    r"|\b(?:reflect(?:s|ed|ing)?|ponder(?:s|ed|ing)?|contemplat(?:es|ed|ing)|mull(?:s|ed|ing)? over)\b"
    r"|\blearn(?:s|ed|t|ing)? (?:a lot|so much|lots|a ton|plenty)\b"
)
_DECISION = re.compile(rf"^User {_ADVERBS}{_AUXILIARY}{_ADVERBS}decide")
_LIFE_DECISION = re.compile(r"\b(?:move|relocate|quit|retire|marry|get married|adopt|resign|enrol|enroll|divorce)\b")
# How the user feels, whatever the adjective ("User feels lost", "User does feel lonely", "… and feeling
# calm"); a sensation of the body is a health fact ("User feels a sharp pain in their knee").
_FEELS = re.compile(rf"^User {_ADVERBS}{_AUXILIARY}{_ADVERBS}(?:feels?|felt|feeling)\b(?! (?:like|that)\b)|"
                    r"\b(?:and|but|while|yet) (?:is |was )?feeling\b")
_BODILY = re.compile(r"\b(?:pain|pains|ache|aches|aching|discomfort|sick|nausea|nauseous|dizzy|numb|sore|itchy|"
                     r"fever|cramps?)\b")
# "go for a walk / ride / run": an outing that names nothing unless a name, number or frequency does.
_OUTING = re.compile(r"\b(?:go|goes|going|went|gone) (?:out )?for (?:a|an) (?:[a-z]+ )?"
                     r"(?:walk|ride|run|drive|stroll|swim|jog|hike|spin|wander|bite|drink|meal)\b")
# "some", "a lot of", "a few": things the line does not name; one more concrete word is needed.
_UNCOUNTED = re.compile(r"\b(?:some(?! of (?:their|User's|the user's)\b)|a lot|lots of|a few|a bunch of|plenty of|a couple of|many)\b", re.I)
# A work watched, read, heard or played that the line does not name ("User was playing a game").
_UNNAMED_WORK = re.compile(
    r"\b(?:watch(?:es|ed|ing)?|read(?:s|ing)?|see|sees|saw|seen|seeing|play(?:s|ed|ing)?|"
    r"listen(?:s|ed|ing)? to|hear(?:s|d|ing)?|finish(?:es|ed|ing)?) "
    r"(?:a|an|some|one of (?:their|User's|the user's)) (?:(?P<adjective>[a-z]+) )?"
    r"(?:movie|film|book|novel|show|series|song|game|documentary|album|podcast|article|episode|play|story)s?\b"
)
# The parts of a work or an occasion the line does not name ("loved the plot and the ending").
_PART_OF_UNNAMED = re.compile(r"\bthe (?:plot|ending|finale|characters|actors|cast|soundtrack|lyrics|storyline|"
                              r"scenery|atmosphere|vibes?|ambien[cs]e|visuals|cinematography|acting|dialogue|"
                              r"twist|performances?)\b")
# What may be, could be or can be done: a possibility or advice in the user's words ("User can pair red
# wine with lamb"), unless it is an ability ("User can speak Dutch").
_MODAL = re.compile(r"\b(?:can|could|may|might)\b(?!['’]t)(?! not\b)")
_ABILITY = re.compile(rf"^User {_ADVERBS}can (?:speak|play|drive|swim|cook|code|program|read|write|sing|dance|ski|"
                      r"surf|knit|sew|paint|draw|type|ride|juggle|sign)\b")
# About the conversation itself: a question, a wish to talk.
_CONVERSATION = re.compile(r"\b(?:has|have|had) (?:a|another|one more|some|a few|a quick|a small) (?:\w+ )?"
                           r"questions?\b|\b(?:wants?|wanted|would like|likes?) to (?:talk|chat|share|tell)\b|"
                           r"\bduring (?:the|our|this|User's|their) (?:chat|conversation)\b")
# A pointer by an adjective ("a spicy one"), "each museum", "other galleries", a favourite of one occasion.
_POINTED = re.compile(r"\b(?:a|an|the) (?:(?:really|very|so|pretty|super) )?[a-z]+ one\b(?! (?:called|named)\b)|"
                      r"\beach (?!other\b|(?:day|week|month|year|morning|evening|night|weekend|time)s?\b)[a-z]+|"
                      r"(?<!each )(?<!every )(?<!the )\bother (?!than\b)[a-z]+s\b|"
                      r"\bfavou?rite (?:[a-z]+ )?(?:was|were)\b")
# "more energy": more than when? ("a more reserved person", "more and more", "more than" compare in the line)
_MORE_OF = re.compile(r"(?<!a )(?<!and )(?<!some )(?<!the )(?<!much )(?<!any )(?<!no )(?<!once )(?<!one )(?<!even )\b(?:more|less) "
                      r"(?!and\b|than\b|or\b|often\b|of\b|likely\b|about\b|into\b|[a-z]+ly\b)[a-z]+\b")
# A verb without its -s after "User" ("User still need to …"); these words are no such verb.
_NOT_A_BARE_VERB = frozenset(
    "and or but with who which than too not no last first then once later soon together back alone read put cut "
    "set hit let quit hurt cost shut spread bet fit split rid cast burst beat can could will would shall should "
    "may might must used ought found saw fell felt lay wound ground bore bound lit led left fed bred shed wed fled "
    "sped".split()
)
_COMPARED = re.compile(r"(?<!some )\b(?:more|fewer|less) (?:[a-z]+ )?[a-z]+s\b")
_NEGATED = re.compile(r"\b(?:not|no|never|cannot|can't)\b", re.I)


def problem(content: str) -> str:
    """Why a fact line is not worth keeping (a short reason), or '' when it is."""
    text = " ".join(content.replace("’", "'").split()).rstrip(".!;, ")
    if len(_WORD_RE.findall(text)) < _MIN_WORDS and not any(w.lower() in LIFE_EVENTS for w in text.split()):
        return "fragment"
    if _SUBORDINATE_START.match(text):
        return "fragment"
    body = _after_lead(text)
    if not _subject_ok(body):
        return "not about the user or a named person"
    if not _grammatical(body):
        return "not grammatical"
    if _SMALL_TALK.search(body) or _FEELING.search(body):
        return "small talk"
    if _FEELS.search(body) and not _BODILY.search(body):
        return "small talk"
    if _CONVERSATION.search(body):
        return "small talk"
    if _ADVICE.search(body) or (_MODAL.search(body) and not _ABILITY.match(body)):
        return "advice, not a fact"
    if _PASSING.search(body) or (_MOMENT.search(body) and not _anchored(body)):
        return "a passing moment"
    life_decision = _DECISION.match(body) and (LIFE_EVENTS & set(body.lower().split()) or _LIFE_DECISION.search(body))
    if _THOUGHT.search(body) and not life_decision:
        return "a thought or opinion, not a fact"
    unpointed = _TIME_THIS.sub("", body)
    if _POINTERS.search(unpointed) or _POINTED.search(unpointed):
        return "points outside the line"
    pronoun = _PERSON_POINTERS.search(unpointed)
    if pronoun and not re.search(r"\b(?!User\b)[A-Z][a-z]+", unpointed[: pronoun.start()]):
        return "points outside the line"  # "Farah: they bought a kayak" is fine, "They bought a kayak" is not
    if _THAT.search(_RELATIVE_THAT.sub("", unpointed)):
        return "points outside the line"
    if (_COMPARED.search(body) or _MORE_OF.search(body)) and not re.search(r"\bthan\b", body):
        return "points outside the line"  # "User has been writing more articles": more than when?
    if _PART_OF_UNNAMED.search(body) and not _anchored(body):
        return "points outside the line"  # "User loved the plot and the ending": of what?
    if not _specific(body) or _VAGUE_OBJECT.search(body):
        return "not specific"
    if _NEGATED.search(body) and not _PREFERENCE.match(body) and not LIFE_EVENTS & set(body.lower().split()):
        return "a negation, not a fact"  # "User has not had time for trails": what is not, rarely worth a line
    return ""


def is_precise(content: str) -> bool:
    return not problem(content)
