"""The precision rules: what a person would keep as a fact line, and what the transcript alone keeps."""

from __future__ import annotations

import pytest

from suzent_desktop.core.engines.extraction import OfflineExtractor, third_person
from suzent_desktop.core.engines.fact_rules import problem


@pytest.mark.parametrize(
    "line",
    [
        "User totallies agree, Melanie",  # agreement, and not English
        "User 100% agree, Mel",
        "Come join the user",  # an invitation
        "User is super thankful",  # thanks
        "User and others can tackle life's challenges together",  # a maxim about "others"
        "Since User was 17 or so",  # a fragment
        "Still following User's passion for dance",
        "User and others go a few times a week",  # "others" points outside the line
        "Check out this piece User made",
        "Here's a pic from when User and others met up",
        "Writing has become like an escape for the user",  # not about the user or a named person
        "Both blood and the ones User and others choose",
        "User is so excited when that happened",
        "The capital of Australia is Canberra",  # world knowledge
        "Thanks for the help!",
        "User has been reading a lot lately",  # nothing specific
    ],
)
def test_noise_is_not_a_fact(line):
    assert problem(line)


@pytest.mark.parametrize(
    "line",
    [
        "User got engaged",
        "User has been vegetarian since 2019",
        "User works at Contoso as a data engineer",
        "User's sister Ana lives in Porto",
        "Ana (the user's sister) started a new job at Airbus",
        "Last Friday (2023-05-05), User went to a Harry Potter conference in the UK",
        "User wrote a screenplay that appeared at a film festival in Berlin",
        "User loves hiking",
        "User does not like horror movies",
        "Pad thai is a favourite of the user's",
        "Fred won the raffle at User's office",
        "User ran a half marathon in Porto this weekend",
        "User is having a baby in May",  # "having" and "doing" are not feelings
        "User is doing a PhD in Lisbon",
    ],
)
def test_a_precise_fact_is_kept(line):
    assert problem(line) == ""


def test_first_person_becomes_the_logs_third_person():
    assert third_person("I'm now working at Thales") == "User is now working at Thales"
    assert third_person("My sister Ana moved to Porto") == "User's sister Ana moved to Porto"
    assert third_person("User prefers tea") == "User prefers tea"


@pytest.mark.parametrize(
    ("said", "fact"),
    [("I got engaged!", "User got engaged"), ("Been vegetarian since 2019.", "User has been vegetarian since 2019")],
)
def test_short_life_facts_are_extracted(said, fact):
    assert [f.content for f in OfflineExtractor().extract(said)] == [fact]


@pytest.mark.parametrize(
    "said",
    [
        "I totally agree, Melanie!", "Come join us!", "I'm super thankful.", "We go a few times a week.",
        "Here's a pic from when we met up.", "Check out this piece I made.", "I took that pic on a hike.",
    ],
)
def test_the_offline_extractor_writes_no_noise(said):
    assert OfflineExtractor().extract(said) == []


def test_the_person_spoken_to_is_not_part_of_the_fact():
    extractor = OfflineExtractor()
    assert extractor.extract("Nate, I moved to Lisbon in 2021.")[0].content == "User moved to Lisbon in 2021"
    assert extractor.extract("I love the thought, Nate!") == []  # "User loves the thought Nate" was written


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("Tomas, my neighbour, has lived in Rotterdam for years.", "Tomas, User's neighbour, has lived in Rotterdam for years"),
        ("pickles, my cat, hates thunderstorms.", "Pickles, User's cat, hates thunderstorms"),
        ("i used to love Radiolab but these days my favourite podcast is Reply All",
         "User used to love Radiolab but these days their favourite podcast is Reply All"),
        ("I'm 29 this year, which feels strange.", "User is 29 this year, which feels strange"),
    ],
)
def test_an_appositive_a_lowercase_i_and_a_time_phrase_still_make_facts(said, fact):
    assert [f.content for f in OfflineExtractor().extract(said)] == [fact]


def test_a_pronoun_after_the_name_it_stands_for_is_not_a_pointer():
    news = OfflineExtractor().extract("big news from Farah: they bought a hummingbird!", people={"farah": "User's nephew Farah"})
    assert [f.content for f in news] == ["Big news from Farah (the user's nephew): they bought a hummingbird"]
    assert problem("User heard they bought a hummingbird in Lisbon") == "points outside the line"


def test_a_passing_moment_is_not_a_fact_line():
    assert problem("User is hiking with some buddies in the Alps this weekend") == "a passing moment"
    assert problem("User goes hiking in the Alps every weekend") == ""


@pytest.mark.parametrize(
    "line",
    [
        "User leads the search team",  # a role
        "User is learning the piano",  # a concrete activity
        "User gave a presentation in class",
        "User has been writing articles for a cycling blog",
        "Last Saturday (2024-03-02), User went kayaking",  # going + an activity, on a date
    ],
)
def test_a_concrete_activity_or_role_is_specific(line):
    assert problem(line) == ""


@pytest.mark.parametrize(
    "line",
    [
        # an event whose only object is an evaluative word and a generic noun
        "Last week (week of 2024-03-04), User had an unexpected adventure",
        "Yesterday (2024-03-09), User finished a big project",
        "Last Sunday (2024-03-03), User explored some nice trails",
        "User finished a big project yesterday (2024-03-09)",  # a date alone says when, not what
        "User had an unexpected adventure last week (week of 2024-03-04)",
        "User had a wonderful weekend with some great people",
        # a thought, a decision or an opinion, not something that is or happened
        "User decided to go for a walk",
        "User got the idea from a podcast about gardens",
        "User just thinks it's important to stretch after running",
        "User believes running clears the head",
        "User realized cooking at home saves money",
        "User has been baking more loaves",  # more than when?
    ],
)
def test_vague_events_thoughts_and_opinions_are_not_facts(line):
    assert problem(line)


def test_a_decision_that_is_a_life_event_is_kept():
    assert problem("User decided to quit the bakery job in March") == ""


@pytest.mark.parametrize(
    "line",
    [
        # a decision or a thought in the perfect or with an adverb after the auxiliary
        "User has decided to repaint the kitchen",
        "User was also thinking about a weekend away to unwind",
        "User is currently considering a trip to the dentist",
        "User seems to need a long rest",
        # how the user feels, whatever the adjective
        "User feels lost about which career path to take",
        "User really feels calm and enjoys sitting by the river",
        "User does feel quite lonely since the move",
        "User was most curious about the exhibits on medieval armour",
        "User is reading in the garden and feeling peaceful",
        # durations are no concrete words
        "User has been saving for years",
        "User has been knitting for weeks",
        # an outing with nothing named: "go for a walk / ride / run"
        "User still likes to go for a ride sometimes",
        "User went for a stroll in the evening",
        # "some", "a lot of" and "a few" stand for things the line does not name
        "User made some sketches and notes",
        "User saw a lot of ducks at a pond",
        "User has been facing some difficulties lately",
        # a work watched, read or played, unnamed
        "User was playing a game",
        "User has been reading a novel",
        "User watched a film that told a moving story",
        "User spent an evening watching one of their favourite films",
        # a possibility or advice in the user's words
        "User can pair red wine with grilled lamb",
        "User could take the night train to Lyon instead",
        # about the conversation itself
        "User has one more question about spreadsheets",
        "User wants to talk about their garden plans",
        # a verb without its -s, a pointer to something outside the line
        "User still need to call the bank about the mortgage",
        "User ordered a really spicy one at the food truck",
        "User made a packing list to be sure User sees each museum",
        "User plans to tour other galleries and craft fairs",
        "User also has more energy at the office",
        "User's favourite was a carved wooden flute",
        "User loved the characters and the soundtrack, especially the finale",
        "User is now going to tune their guitar",
    ],
)
def test_feelings_vague_outings_unnamed_works_and_advice_are_not_facts(line):
    assert problem(line)


@pytest.mark.parametrize(
    "line",
    [
        "User has decided to move to Ghent in June",  # a life event, in the perfect
        "User feels a sharp pain in their left knee when running",  # health, not a mood
        "User goes for a swim every morning",  # an outing with a frequency is a habit
        "User went for a bike ride along the Danube",
        "User has been reading some military history books",  # "some" and three concrete words
        "User watched a film called \"Paris, Texas\"",
        "User is writing a novel about lighthouse keepers",  # a work the user makes, not one they watch
        "User can speak Portuguese and Dutch",  # an ability
        "User has always been a more reserved person",  # "a more …" is no comparison with the past
        "User has become more and more interested in rally driving",
        "User's favourite band is Khruangbin",
        "User works at the hospital every other weekend",
    ],
)
def test_habits_abilities_named_works_and_health_stay_facts(line):
    assert problem(line) == ""


@pytest.mark.parametrize(
    "line",
    [
        "User's arms are jelly lol",  # chat-speak: a joke of the moment, not a fact
        "User burnt the rice again haha",
        "User has had a lot going on at the studio lately",  # "a lot": of what?
    ],
)
def test_chat_speak_and_a_lot_are_not_facts(line):
    assert problem(line)


def test_a_verb_ending_in_ed_that_is_no_past_takes_its_s():
    assert third_person("I need to renew my passport before June") == "User needs to renew their passport before June"
    assert third_person("I feed the ducks at Vondelpark every Sunday") == "User feeds the ducks at Vondelpark every Sunday"
    assert problem("User feeds the ducks at Vondelpark every Sunday") == ""


def test_a_title_before_a_name_does_not_end_the_sentence():
    facts = OfflineExtractor().extract("My dentist is Dr. Almeida in Braga.")
    assert [f.content for f in facts] == ["User's dentist is Dr. Almeida in Braga"]


@pytest.mark.parametrize(
    "line",
    [
        "User was watching the match with some mates",  # what the user was doing at some moment
        "User was sitting on the balcony reading",
        "User is heading out to buy some bread",
        "User is popping over to the pharmacy",
        "User has been meaning to visit their aunt more often",  # an intention
        "User needs to clean the gutters",  # a chore
    ],
)
def test_moments_intentions_and_chores_are_not_facts(line):
    assert problem(line)


@pytest.mark.parametrize(
    "line",
    [
        "User was living in Tallinn in 2019",  # a past state the line dates
        "User was working at Philips when they met Ana",
        "User needs to take insulin twice a day",  # a chore with a frequency is a health fact
    ],
)
def test_a_dated_past_state_and_a_regular_need_stay_facts(line):
    assert problem(line) == ""


@pytest.mark.parametrize(
    "line",
    ["User spent some time by the canal with their cousins", "User has been doing some reflecting on their studies",
     "User is pondering a change of career"],
)
def test_time_spent_and_reflection_are_not_facts(line):
    assert problem(line)


@pytest.mark.parametrize(
    "line",
    ["User's kids were able to splash around and get some sun", "User was able to relax by the fire",
     "User learned a lot about patience, teamwork and resilience", "User has learned so much about gardening"],
)
def test_what_the_user_could_do_once_and_lessons_learned_are_not_facts(line):
    assert problem(line)


def test_a_capability_the_line_dates_or_names_stays():
    assert problem("User was able to buy a flat in Ghent in 2021") == ""


def test_the_word_list_reads_words_and_counts_as_written_escapes_included() -> None:
    from suzent_desktop.core.engines.lexicon import english, parse

    lexicon = parse('{\n"a": 30,\n"Piano": 5,\n"caf\\u00e9": 5,\n"piano": 10\n}')
    assert "piano" in lexicon and "café" in lexicon and "Piano" not in lexicon
    assert lexicon.word_usage_frequency("piano") == 0.3 and lexicon.word_usage_frequency("harp") == 0.0
    assert "violin" in english() and "totallies" not in english()
