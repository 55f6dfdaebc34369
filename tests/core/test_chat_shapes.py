"""Shapes of quick chat the offline candidate step reads as meant: shouting, texting words, laughter, news
passed on by someone, and statements said without their "I"."""

from __future__ import annotations

import datetime as dt

import pytest

from suzent_desktop.core.engines.capture import clauses, fact_rules, relative_dates
from suzent_desktop.core.engines.capture.offline import OfflineExtractor
from suzent_desktop.core.files.language import english


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("GOT THE INTERNSHIP today", "got the internship today"),
        ("my roommate STILL hasnt paid", "my roommate still hasn't paid"),
        ("I work in the ICU at NASA", "I work in the ICU at NASA"),  # acronyms stay
        ("a senior at UCLA, need it ASAP", "a senior at UCLA, need it ASAP"),  # rare words stay
        ("she eats a LOT of rice", "she eats a LOT of rice"),  # a short word alone stays
        ("can u send it tmrw", "can you send it tomorrow"),
    ],
)
def test_a_quick_message_is_read_as_meant(text, meant):
    assert english.as_meant(text) == meant


@pytest.mark.parametrize(
    ("turn", "lines"),
    [
        # a full stop after a two-letter word ends the sentence before a small letter
        ("I did it. handed in my notice at Shopify this afternoon!!",
         ["User handed in their notice at Shopify this afternoon"]),
        ("GOT THE INTERNSHIP 🔥🔥", ["User got the internship"]),
        ("I shan't make bridge on Thursday.", ["User shall not make bridge on Thursday"]),
        ("I'm 41 jaja", ["User is 41"]),
        ("I'm moving to Leeds in June hahaha", ["User is moving to Leeds in June"]),
        # news passed on by someone of the user's is the news
        ("my mom just texted that grandpa fell on the ice and broke his hip",
         ["User's grandpa fell on the ice and broke his hip"]),
        ("My sister told me that Tom got the job at Google.", ["Tom got the job at Google"]),
        ("My dad said no to the trip.", ["User's dad said no to the trip"]),
        # news after "can't believe"
        ("cant believe my little sis graduates next friday lol", ["User's little sis graduates next Friday"]),
        ("can't believe break is already over", []),
        # said without "I"
        ("prob skipping class tmrw to drive up", ["User is prob skipping class tomorrow to drive up"]),
        ("working from home all week under three blankets", ["User is working from home all week under three blankets"]),
        ("just finished 4 night shifts in a row", ["User just finished 4 night shifts in a row"]),
        ("Keeping a diary helps.", []),  # the gerund is the subject
        ("Joined Parkrun in May.", ["User joined Parkrun in May"]),
    ],
)
def test_chat_shapes_give_the_line_a_reader_expects(turn, lines):
    assert OfflineExtractor().candidates(turn) == lines


@pytest.mark.parametrize(
    ("turn", "lines"),
    [
        # news of someone named, after a call or an exclamation
        ("Yaw, you won't believe it, Kofi has now decided he wants to be a pilot.",
         ["Kofi has now decided he wants to be a pilot"]),
        ("jaja no way, Lucía is pregnant again!!", ["Lucía is pregnant again"]),
        ("When I called, Ana was out.", []),  # a time is no call
        # who the named person is, said after the name
        ("Rodrigo my sous chef just quit.", ["User's sous chef Rodrigo just quit"]),
        ("Wyatt, our oldest, wants a baby brother so badly.", ["User's oldest Wyatt wants a baby brother so badly"]),
        # something of a named person's
        ("Geoffrey's knee operation on Tuesday went well.", ["Geoffrey's knee operation on Tuesday went well"]),
        ("Hana's pregnant!", ["Hana is pregnant"]),
        # "she" after "Kenji's baby" is the baby: no line gives it to Kenji
        ("kenji's baby is so cute. She was born the day after I landed.", ["Kenji's baby is so cute"]),
    ],
)
def test_news_of_named_people_reads_from_the_name(turn, lines):
    assert OfflineExtractor().candidates(turn) == lines


@pytest.mark.parametrize(
    ("turn", "lines"),
    [
        # a place or time said first without a comma goes after the statement's first clause
        ("since the divorce I have the children during term time, so travelling was impossible.",
         ["User has the children during term time since the divorce, so travelling was impossible"]),
        ("In 2019 I moved to Berlin and started a bakery.", ["User moved to Berlin in 2019 and started a bakery"]),
        # "the same" before a noun says the same one, not what was said before
        ("I taught physics for thirty-eight years at the same school in Lelystad.",
         ["User taught physics for thirty-eight years at the same school in Lelystad"]),
        ("I ordered the same thing.", []),
        # a "do" of emphasis is left out; "do" as the verb stays
        ("I do have an iPad.", ["User has an iPad"]),
        ("I did finish the race in the end.", ["User finished the race in the end"]),
        ("My sister does speak French.", ["User's sister speaks French"]),
        ("I mostly do web development.", ["User mostly does web development"]),
        ("I also like to do abstract paintings.", ["User also likes to do abstract paintings"]),
        # a gerund's clause ends before "and my …"; laughter before "I" ends a sentence
        ("moving back into the dorm sunday and my roommate hasnt paid me back lmao i'm gonna charge interest",
         ["User is moving back into the dorm Sunday and their roommate has not paid the user back",
          "User is gonna charge interest"]),
    ],
)
def test_scenes_sameness_emphasis_and_run_ons(turn, lines):
    assert OfflineExtractor().candidates(turn) == lines


@pytest.mark.parametrize(
    ("turn", "lines"),
    [
        ("oh and i'm vegan so food recs need to work for that pls", ["User is vegan"]),
        ("I'm so excited for the trip", ["User is so excited for the trip"]),  # "so" of degree: no cut
        ("lol same, which is hilarious bc i'm allergic to cats", ["User is allergic to cats"]),
        ("and now my cousin Facu wants to work with me", ["User's cousin Facu wants to work with the user"]),
        ("last day is the 6th and then I start at the bank on Feb 9", ["User starts at the bank on Feb 9"]),
        ("My parents are both farmers and I love watching horror films.",
         ["User's parents are both farmers", "User loves watching horror films"]),
        ("My wife and I love sushi.", ["User and their wife love sushi"]),  # one subject
    ],
)
def test_what_follows_so_because_and_then(turn, lines):
    assert OfflineExtractor().candidates(turn) == lines


@pytest.mark.parametrize(
    ("turn", "lines"),
    [
        ("back from japan!!", ["User is back from japan"]),
        ("Back from three weeks on the research vessel!", ["User is back from three weeks on the research vessel"]),
        ("Back in the day I was a punk.", ["User was a punk back in the day"]),
        ("going mid march and we'll stay near my brother's place.",
         ["User is going mid march and User will stay near their brother's place"]),
    ],
)
def test_a_return_or_a_trip_said_without_i(turn, lines):
    assert OfflineExtractor().candidates(turn) == lines


def test_what_the_user_did_at_a_place_named_before_where():
    turn = ("The editor asked me to share a memory from my years at St Mary's Primary, where I taught for "
            "thirty-one years until I retired in 2019.")
    assert "User taught for thirty-one years at St Mary's Primary until User retired in 2019" in (
        OfflineExtractor().candidates(turn))
    # the user's own sentence says it already: no second line
    assert OfflineExtractor().candidates("We went back to the little cafe in Lisbon, where I proposed to Ana in 2015.") == [
        "User went back to the little cafe in Lisbon, where User proposed to Ana in 2015"]


@pytest.mark.parametrize(
    ("turn", "lines"),
    [
        # "Tom and I" after "because" or a day is one subject
        ("I've started a Spanish course because Tom and I are planning a trip to Seville.",
         ["User has started a Spanish course because Tom and User are planning a trip to Seville"]),
        ("I've been hiking on weekends, and last Sunday Rafael and I did Max Patch at sunrise.",
         ["User has been hiking on weekends, and last Sunday Rafael and User did Max Patch at sunrise"]),
        ("I met Tom and I liked him immediately.", ["User met Tom"]),
        # an exclamation is no one's
        ("Oh my gosh, I love crab cakes!", ["User loves crab cakes"]),
        ("Oh my gosh, Kat, a marathon PR?! That's incredible.", []),
        # a name's "'s" before a noun and its verb owns the noun
        ("Anjali's wedding was on the 21st.", ["Anjali's wedding was on the 21st"]),
        ("Rui's moving to Porto next year.", ["Rui is moving to Porto next year"]),
    ],
)
def test_compound_subjects_exclamations_and_possessives(turn, lines):
    assert OfflineExtractor().candidates(turn) == lines


@pytest.mark.parametrize(
    ("line", "resolved"),
    [
        ("User has been promoted to head nurse, starting in September",
         "User has been promoted to head nurse, starting in September (September 2026)"),
        ("User is hoping to finish the quilt by Lily's birthday in June",
         "User is hoping to finish the quilt by Lily's birthday in June (June 2027)"),  # said in July
        ("User moved to Leeds in March", "User moved to Leeds in March (March 2026)"),
    ],
)
def test_a_month_after_starting_or_hoping_is_the_one_ahead(line, resolved):
    assert relative_dates.resolve(line, dt.datetime(2026, 7, 26, 12)) == resolved


@pytest.mark.parametrize(
    ("turn", "lines"),
    [
        ("After she declared my diet 'tragically beige', I started growing basil and mint on my balcony.",
         ["User started growing basil and mint on their balcony"]),
        ("It's been so hot here that I've started working at 6am.", ["User has started working at 6am"]),
        ("If it rains, I stay home.", []),  # a condition is never cut away
        ("When I was ten, I moved to Oslo.", ["When User was ten, User moved to Oslo"]),
    ],
)
def test_the_users_statement_after_a_scene(turn, lines):
    assert OfflineExtractor().candidates(turn) == lines


@pytest.mark.parametrize(
    ("turn", "lines"),
    [
        ("ngl my gf mia is lowkey allergic to tree nuts so we cant eat at that place lol",
         ["User's girlfriend mia is lowkey allergic to tree nuts"]),
        ("haven't smoked since march 1st!!", ["User has not smoked since march 1st"]),
        ("Didn't get the job in the end.", ["User did not get the job in the end"]),
        ("Got laid off on Friday.", ["User got laid off on Friday"]),
        ("got divorced last november, still adjusting tbh", ["User got divorced last November, still adjusting"]),
        ("Don't forget to call me.", []),  # an imperative
        ("ya my exam is on the 25th", ["User's exam is on the 25th"]),
    ],
)
def test_texting_shorthand_and_a_negation_without_i(turn, lines):
    assert OfflineExtractor().candidates(turn) == lines


def test_a_weekday_with_its_time_of_day_is_every_week_and_names_no_date():
    when = dt.datetime(2026, 4, 12, 12)
    assert relative_dates.resolve("User started a Spanish course on Tuesday evenings", when) == (
        "User started a Spanish course on Tuesday evenings")
    assert relative_dates.resolve("User started a Spanish course on Tuesday", when) == (
        "User started a Spanish course on Tuesday (7 April 2026)")


def test_a_line_the_judge_drops_is_weighed_again_as_its_main_statement():
    turn = "My blood pressure was high again at the check-up, so the doctor put me on medication."
    assert [fact.content for fact in OfflineExtractor().extract(turn)] == [
        "User's blood pressure was high again at the check-up"]


@pytest.mark.parametrize(
    ("turn", "lines"),
    [
        ("they have made me operations director from July", ["User has been made operations director from July"]),
        ("They've offered me the job!", ["User has been offered the job"]),
        ("they finally made me head of the cellar", ["User was finally made head of the cellar"]),
    ],
)
def test_they_with_the_user_as_object_in_the_perfect(turn, lines):
    assert OfflineExtractor().candidates(turn) == lines


@pytest.mark.parametrize(
    ("turn", "lines"),
    [
        ("Last weekend I took my kids to a pottery class and they loved it.",
         ["User took their kids to a pottery class last weekend"]),
        ("It was my daughter's first recital on Saturday, she played Clair de Lune.",
         ["User's daughter's first recital was on Saturday", "User's daughter played Clair de Lune"]),
        ("It was my favourite song.", []),
    ],
)
def test_a_verdict_after_and_they_and_a_day_of_theirs_in_the_past(turn, lines):
    assert OfflineExtractor().candidates(turn) == lines


def test_the_users_little_one_is_their_child_and_no_pointer():
    assert fact_rules.problem("User's little one just turned five") == ""
    assert fact_rules.problem("User bought a little one for the garden") == "points outside the line"


def test_the_second_look_keeps_no_list_cut_short_and_and_so_on_is_no_consequence():
    assert clauses.main_statement("User meets other dog owners once a week for tips and so on") is None
    turn = "I get ideas from various sources like books, movies, and real-life experiences all the time."
    assert "User gets ideas from various sources like books, movies" not in [
        fact.content for fact in OfflineExtractor().extract(turn)]


@pytest.mark.parametrize(
    ("turn", "lines"),
    [
        # "it" is no plural thing: no line gives the 10K's finish to the shoes
        ("These are the shoes I wore for my first 10K, I still can't believe I finished it!", []),
        ("I bought a Vespa. I'm restoring it.", ["User bought a Vespa", "User is restoring their Vespa"]),
        ("Here's a pic of the cookies I baked.", ["User baked cookies"]),
        ("Here is the dress I bought for the wedding.", ["User bought a dress for the wedding"]),
    ],
)
def test_it_and_a_are_for_one_thing(turn, lines):
    assert OfflineExtractor().candidates(turn) == lines


@pytest.mark.parametrize(
    ("turn", "lines"),
    [
        ("Write a toast for my best friend's wedding. Her name is Dana and we met in nursery school.",
         ["User's best friend's name is Dana", "User and their best friend met in nursery school"]),
        ("My husband Tom and I have been together for ten years. We met at university.",
         ["User and their husband Tom have been together for ten years", "User and their husband Tom met at university"]),
        ("We met in 2015.", []),  # met whom: no line says the user met no one
        ("We met Sarah at the party.", ["User met Sarah at the party"]),
    ],
)
def test_we_who_met_are_the_user_and_the_person_named_before(turn, lines):
    assert OfflineExtractor().candidates(turn) == lines


@pytest.mark.parametrize(
    ("turn", "lines"),
    [
        # a sentence read as none is weighed statement by statement, at each "I", "we" or "my" after a comma or a
        # joining word
        ("results came out and i got an A in chemistry and B in bio!!! nursing here i come",
         ["User got an A in chemistry and B in bio"]),
        ("Everything is calm here, the weather has finally turned and I started pottery classes on Mondays.",
         ["User started pottery classes on Mondays"]),
        ("Rocío, guapa, I have news: after thirty-one years at the same school, I've decided to retire next June.",
         ["User has decided to retire next June"]),  # "I have news:" announces, it is no statement
        ("Don't tell Mum yet, I want to tell her myself at Sunday dinner.",
         ["User wants to tell their mum themselves at Sunday dinner"]),  # "her myself": not "their mum's"
    ],
)
def test_each_statement_of_a_glued_sentence_is_weighed_alone(turn, lines):
    assert OfflineExtractor().candidates(turn) == lines


@pytest.mark.parametrize(
    ("sentence", "parts"),
    [
        ("so tired, the weather turned and I started pottery", ["I started pottery"]),
        ("I moved in May, my sister helped", ["I moved in May", "my sister helped"]),
        ("Paolo, our youngest intern, fell asleep", []),  # who someone is, between commas
        ("Acting was my first passion, but then I got allergic", []),  # "then" joins nothing
        ("If it rains, I stay home", []),  # what follows holds only then
        ("I have news: after ten years, I retire", ["I retire"]),  # "I have news:" announces
        ("so, deep breath: I got the job", ["I got the job"]),  # a statement after a colon
    ],
)
def test_the_statements_a_glued_sentence_is_cut_into(sentence, parts):
    assert clauses.each_statement(sentence) == parts


@pytest.mark.parametrize("line", ["User is a student at", "User bought a new pair of the", "User and"])
def test_a_line_cut_off_is_a_fragment(line):
    assert fact_rules.problem(line) == "fragment"


@pytest.mark.parametrize(
    ("turn", "lines"),
    [
        # a family word in lower case before its "'s" is the user's relative
        ("mum's in hospital again with her chest", ["User's mum is in hospital again with her chest"]),
        ("the dad's jokes were awful", []),
        # a taste said without "I", before what the user does; advice and "like" as "as" are no taste
        ("Love experimenting with spices.", ["User loves experimenting with spices"]),
        ("Enjoy hiking on weekends, it clears my head.", ["User enjoys hiking on weekends"]),
        ("Enjoy your trip!", []),
        ("Like walking on clouds!", []),
    ],
)
def test_a_relative_and_a_taste_said_in_few_words(turn, lines):
    assert OfflineExtractor().candidates(turn) == lines


@pytest.mark.parametrize(
    ("turn", "lines"),
    [
        # something of the user's done to by a person or a body is a fact about the user
        ("The doctor found a murmur in my heart.", ["The doctor found a murmur in User's heart"]),
        ("The vet removed a lump from my dog's leg.", ["The vet removed a lump from User's dog's leg"]),
        ("Music found its way into my heart.", []),  # no one did it
        # a name's "'s" before a participle and its object is "has"
        ("Dave's hurt his back lifting the RV awning.", ["Dave has hurt his back lifting the RV awning"]),
        ("Hana's pregnant again!", ["Hana is pregnant again"]),
        # "the kids" of a parent are their own
        ("The kids start at a new school in September.", ["User's kids start at a new school in September"]),
    ],
)
def test_what_is_done_to_the_user_and_their_family(turn, lines):
    assert OfflineExtractor().candidates(turn) == lines


def test_where_the_user_did_something_is_in_the_place_travelled_to():
    line = clauses.where_the_user("We took a night train to Marrakech, where I bought a rug for the hall.")
    assert line == "I bought a rug for the hall in Marrakech"


def test_a_day_said_after_a_past_verb_is_the_one_before_even_in_a_plan():
    when = dt.datetime(2026, 11, 20, 10)  # a Friday
    line = relative_dates.resolve("User is opening a studio in Obs, User signed the lease on Tuesday", when, past=False)
    assert line.endswith("on Tuesday (17 November 2026)")
    assert relative_dates.resolve("User is flying to Lisbon on Tuesday", when, past=False).endswith("(24 November 2026)")


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("User's childhood dog", "states nothing"),  # a thing named, nothing said of it
        ("User's younger daughter", "states nothing"),
        ("User's parents live in Ohio", ""),
        ("User's sister Ana works at the bank", ""),
        ("User's kids have the flu", ""),
    ],
)
def test_a_line_of_the_users_states_something_of_it(line, problem):
    assert fact_rules.problem(line) == problem


def test_a_person_named_before_is_said_with_who_they_are_in_a_line_that_also_names_the_user():
    facts = OfflineExtractor().extract("My husband Daniyar is away this week. Daniyar bought a cake for my birthday.")
    assert [f.content for f in facts][1:] == ["Daniyar (the user's husband) bought a cake for User's birthday"]
