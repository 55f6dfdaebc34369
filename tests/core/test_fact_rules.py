"""The precision rules: what a person would keep as a fact line, and what the transcript alone keeps."""

from __future__ import annotations

import pytest

from suzent_desktop.core.extraction import OfflineExtractor, third_person
from suzent_desktop.core.fact_rules import problem


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
