"""What a person would keep as a fact line: the few named rules, the learned judge, and the extractor
that feeds it; the transcript alone keeps the rest."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from suzent_desktop.core.engines.capture.fact_judge import judge
from suzent_desktop.core.engines.capture.fact_rules import is_precise, problem
from suzent_desktop.core.engines.capture.offline import OfflineExtractor, third_person

WEDNESDAY = dt.datetime(2026, 7, 15, 10, 0)


def facts_of(said: str) -> list[str]:
    return [f.content for f in OfflineExtractor().extract(said, when=WEDNESDAY)]


# -- the named rules: each with what it keeps and what it drops -------------------------------------
@pytest.mark.parametrize(
    ("rule", "kept", "dropped"),
    [
        ("fragment", "User got engaged", "User agrees"),
        ("fragment", "User is 34, and User just had their first child", "User is , and User just had their first child"),
        ("not about the user or a named person", "Melanie adopted a kitten named Miso",
         "Writing has become an escape for the user"),
        ("not about the user or a named person", "Last week (2026-07-08), User ran a 10k in Ghent",
         "If it rains, User will visit Ghent"),
        ("not about the user or a named person", "Apart from work, User is knitting a blanket for their niece",
         "Knitting has become an escape for the user"),
        ("not about the user or a named person", "Tomas, User's neighbour, has lived in Rotterdam for years",
         "Nate, after the match User went home"),
        ("not about the user or a named person", "The film \"Paddington\" is special to the user",
         "The film \"Paddington\" is special to many people"),
        ("not about the user or a named person", "Their grandmother's cabin means a lot to the user",
         "Their grandmother's cabin means a lot of work"),
        ("not about the user or a named person", "A stranger gave the user a lift to Inverness",
         "Music helps the user relax"),
        ("not about the user or a named person", "Someone sent the user flowers on their birthday",
         "The weather made the user sad"),
        ("speaks to the other person", "User loves Radiohead's early albums", "User loves your photos of Lisbon"),
        ("points outside the line", "User bought a Vespa that User is restoring", "User took that pic on a hike"),
        ("points outside the line", "User is flying to Oslo this weekend", "User found these old notebooks"),
        ("points outside the line", "User loves the novel that Ana wrote", "User moved there in 2019"),
        ("points outside the line", "User's son Theo started kindergarten this September", "User loved this dress"),
        ("points outside the line", "User starts at Acme this Monday", "User bought this one"),
        ("not a word", "User almost forgot their passport in Porto", "User almosts forgot their passport in Porto"),
        ("not a word", "User wants to keep volunteering at the shelter", "User wannas keep volunteering at the shelter"),
        ("not a word", "User's favourite band is Wilco", "User favourites Wilco"),
        ("not a word", "User's sister-in-law Maria lives in Lisbon", "User sister-in-laws Maria"),
        ("not a word", "User's stepdad is a pilot in Oslo", "User stepdads a pilot"),
    ],
)
def test_each_named_rule_keeps_and_drops_by_its_examples(rule, kept, dropped):
    assert problem(kept) == ""
    assert problem(dropped) == rule


def test_a_model_fact_in_plain_words_passes_the_rules():
    assert problem("The user is allergic to peanuts") == ""
    assert problem("User's daughter Joy started school in Leeds") == ""


# -- the judge: plain facts are kept, small talk is not --------------------------------------------
@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("My brother Kai moved to Tromsø and works as a ferry pilot.",
         "User's brother Kai moved to Tromsø and works as a ferry pilot"),
        ("We adopted a rescue beagle named Toast last month.",
         "User adopted a rescue beagle named Toast last month (June 2026)"),
        ("Our son Milo started kindergarten in Bergen in September.",
         "User's son Milo started kindergarten in Bergen in September (September 2025)"),
        ("My mom was diagnosed with glaucoma last spring.", "User's mom was diagnosed with glaucoma last spring"),
        ("I bought a 1970s Land Rover that I'm restoring.", "User bought a 1970s Land Rover that User is restoring"),
        ("I take photos of birds every weekend.", "User takes photos of birds every weekend"),
        ("My daughter Joy started school in Leeds.", "User's daughter Joy started school in Leeds"),
        ("I haven't eaten meat since 2019.", "User has not eaten meat since 2019"),
        ("I got engaged!", "User got engaged"),
        ("Been vegetarian since 2019.", "User has been vegetarian since 2019"),
    ],
)
def test_plain_facts_become_fact_lines(said, fact):
    assert facts_of(said) == [fact]


@pytest.mark.parametrize(
    "said",
    [
        "haha that's awesome", "thanks so much!", "I totally agree, Melanie!", "Come join us!",
        "I'm super thankful.", "Here's a pic from when we met up.", "Check out this piece I made.",
        "I took that pic on a hike.", "I'm so glad to hear that.", "I hope you have a great weekend!",
        "I love the thought, Nate!", "You should try the ramen place near my office.",
    ],
)
def test_small_talk_writes_nothing(said):
    assert facts_of(said) == []


def test_one_long_chatty_turn_gives_each_of_its_facts():
    said = ("Hey! Long time no see, haha. So much has happened. My sister Hana moved to Osaka last month and "
            "works as a translator there now. We adopted a greyhound named Pixel. Anyway, how are you?")
    assert facts_of(said) == [
        "User's sister Hana moved to Osaka last month (June 2026) and works as a translator there now",
        "User adopted a greyhound named Pixel"]


def test_the_judge_names_the_subject_of_a_fact():
    verdicts = {line: judge()(line).subject for line in (
        "User is allergic to penicillin", "User works as a nurse at St. Mary's hospital",
        "User lives in Rotterdam", "User is going to Japan in October", "User's sister Hana lives in Osaka")}
    assert verdicts == {"User is allergic to penicillin": "health",
                        "User works as a nurse at St. Mary's hospital": "work",
                        "User lives in Rotterdam": "place", "User is going to Japan in October": "plan",
                        "User's sister Hana lives in Osaka": "person"}


def test_memory_lines_pass_the_named_rules():
    assert is_precise("User is allergic to peanuts")
    assert not is_precise("User loves your photos of Lisbon")
    assert not is_precise("Writing has become an escape for the user")


# -- the extractor around the judge --------------------------------------------------------------
def test_first_person_becomes_the_logs_third_person():
    assert third_person("I'm now working at Thales") == "User is now working at Thales"
    assert third_person("My sister Ana moved to Porto") == "User's sister Ana moved to Porto"
    assert third_person("My wife and I love sushi") == "User and their wife love sushi"
    assert third_person("We finally sold our flat in Leeds") == "User finally sold their flat in Leeds"
    assert third_person("User prefers tea") == "User prefers tea"


def test_the_person_spoken_to_is_not_part_of_the_fact():
    assert facts_of("Nate, I moved to Lisbon in 2021.") == ["User moved to Lisbon in 2021"]


def test_a_verb_ending_in_ed_that_is_no_past_takes_its_s():
    assert third_person("I need to renew my passport before June") == "User needs to renew their passport before June"
    assert third_person("I feed the ducks at Vondelpark every Sunday") == "User feeds the ducks at Vondelpark every Sunday"


def test_a_last_clause_said_to_the_listener_is_left_out():
    assert facts_of("I'm allergic to shellfish, you know.") == ["User is allergic to shellfish"]
    news = OfflineExtractor().extract("Felix just bought a bookshelf in Ghent, can you believe it.",
                                      people={"felix": "User's grandfather Felix"})
    assert [f.content for f in news] == ["Felix (the user's grandfather) just bought a bookshelf in Ghent"]


def test_a_title_before_a_name_does_not_end_the_sentence():
    assert facts_of("My dentist is Dr. Almeida in Braga.") == ["User's dentist is Dr. Almeida in Braga"]


def test_a_thing_said_to_be_the_users_and_a_time_without_a_comma_are_about_the_user():
    """"Cooking is User's outlet" says what the user has; "Last night User joined …" opens with a time."""
    assert problem("Cooking and baking are User's creative outlets") == ""
    assert problem("Writing has always been a passion of the user's") == ""
    assert problem("Last night User joined a chess club in Tartu") == ""
    assert problem("Cooking and baking are great outlets for everyone") == "not about the user or a named person"


def test_the_subject_reads_the_whole_sentence_not_its_words_alone():
    """Words alone filed a new job at a startup as a hobby and a diet under work; the sentence vector
    tells what the line is about as a whole."""
    subjects = judge().subjects(["User is now a UX designer at a startup called Brightpath",
                                 "User is a vegetarian", "User finally got their driver's license yesterday"])
    assert subjects[0] == "work"
    assert subjects[1] != "work"
    assert subjects[2] == "event"


def test_sentence_vectors_are_kept_for_the_latest_lines_only(monkeypatch):
    from suzent_desktop.core.engines.capture import fact_judge

    monkeypatch.setattr(fact_judge, "_VECTORS_HELD", 2)
    fact_judge.drop_cached_vectors()
    first = fact_judge.vectors(["User lives in Oslo", "User has a cat"])
    again = fact_judge.vectors(["User has a cat", "User lives in Oslo", "User plays chess"])
    assert np.allclose(again[1], first[0]) and np.allclose(again[0], first[1])
    assert list(fact_judge._VECTORS) == ["User lives in Oslo", "User plays chess"]
    assert fact_judge.vectors([]).shape == (0, first.shape[1])


@pytest.mark.parametrize(
    "line, points",
    [
        ("User used to have a dog in Michigan with that name", True),  # which name?
        ("User loves that band", True),
        ("User wore that dress to the wedding", True),
        ("User found that work at home is tiring", False),  # a conjunction
        ("User makes desserts that work for everyone", False),  # a relative
        ("User loves that User can work from home", False),
        ("User started a course that combines their passion for gaming and programming", False),
    ],
)
def test_that_before_a_noun_that_can_be_a_verb_is_still_a_pointer(line: str, points: bool) -> None:
    assert (problem(line) == "points outside the line") is points
