"""News of someone the user names without "my": a line about that person, as said."""

from __future__ import annotations

import pytest

from suzent_desktop.core.engines.capture.named_subject import subject_name, with_verb
from suzent_desktop.core.engines.capture.offline import OfflineExtractor


@pytest.mark.parametrize(("sentence", "name"), [
    ("Mateo passed the entrance exam!", "Mateo"),
    ("Rui Costa got a job in Porto.", "Rui Costa"),
    ("Hana just got engaged!!", "Hana"),
    ("Hana's pregnant!!!", "Hana"),
    ("Mateo's moving to Lima next year.", "Mateo"),
    ("Hana's car broke down.", "Hana"),  # something of hers, with its verb
])
def test_a_sentence_opening_with_a_name_and_its_verb_is_about_that_person(sentence: str, name: str) -> None:
    assert subject_name(sentence) == name


@pytest.mark.parametrize("sentence", [
    "Mateo, you have to see this.",  # calls him
    "Mateo said.",  # nothing past the verb
    "Barcelona sounds awesome!",  # the speaker's impression
    "Hana looked so happy.",
    "Mum is moving in with us.",  # a relation, read as "my mum" elsewhere
    "Work is crazy this week.",  # a common word, no name
    "Honestly the weather was awful.",
])
def test_no_named_subject(sentence: str) -> None:
    assert subject_name(sentence) is None


def test_a_contracted_is_or_has_after_a_name_reads_as_the_verb() -> None:
    assert with_verb("Hana's pregnant!!!") == "Hana is pregnant!!!"
    assert with_verb("Rui's moved to Porto.") == "Rui has moved to Porto."
    assert with_verb("Hana's car broke down.") == "Hana's car broke down."


def test_news_of_a_named_person_becomes_a_line_and_a_later_he_is_that_person() -> None:
    lines = OfflineExtractor().candidates("Rui got a job in Porto! He starts in May. Hana's pregnant!!!")
    assert lines == ["Rui got a job in Porto", "Rui starts in May", "Hana is pregnant"]


def test_a_pronoun_in_the_named_persons_own_sentence_stays_theirs() -> None:
    """"his" is Mateo's, not the sister's said before."""
    lines = OfflineExtractor().candidates("My sister Ana is visiting. Mateo passed his driving test!")
    assert lines[-1] == "Mateo passed his driving test"


def test_a_named_persons_news_after_a_comma_is_a_statement_of_its_own() -> None:
    lines = OfflineExtractor().candidates("I host a games night every Friday, Catan is my favourite.")
    assert lines == ["User hosts a games night every Friday", "Catan is User's favourite"]
    # a list of places is no statement
    assert OfflineExtractor().candidates("I visited Rome, Paris and Berlin last summer.") == [
        "User visited Rome, Paris and Berlin last summer"]


def test_a_word_of_another_language_before_the_user_speaks_is_no_part_of_the_line() -> None:
    """"bhai", "hermano", "jaja": a call or an exclamation, and the statement after it is the line."""
    assert OfflineExtractor().candidates("jaja I passed my driving test!") == ["User passed their driving test"]
    assert OfflineExtractor().candidates("bhai my dad retired last week.") == ["User's dad retired last week"]


def test_a_bracketed_remark_is_left_out_and_a_bracketed_description_stays() -> None:
    assert OfflineExtractor().candidates("My dad retired last week after 32 years (he's already bored lol).") == [
        "User's dad retired last week after 32 years"]
    assert OfflineExtractor().candidates("My doctor put me on a new medication (propranolol).") == [
        "User's doctor put the user on a new medication (propranolol)"]


def test_a_request_for_help_with_a_plan_says_what_the_user_plans() -> None:
    extractor = OfflineExtractor()
    assert extractor.candidates("Can you help me plan my daughter's 7th birthday party on Saturday?") == [
        "User is planning their daughter's 7th birthday party on Saturday"]
    assert extractor.candidates("Could you please help me organise a surprise party for my husband's 40th?") == [
        "User is organising a surprise party for their husband's 40th"]
    # a task of the moment is no plan of the user's life
    assert extractor.candidates("Can you help me write a message to the school?") == []


def test_a_she_after_a_comma_and_and_is_a_statement_of_her_own() -> None:
    lines = OfflineExtractor().candidates(
        "Please help me plan a trip to Oaxaca for my wife and me. It's our 20th anniversary, and she loves mezcal.")
    assert lines[-1] == "User's wife loves mezcal"


def test_an_emoji_is_no_part_of_a_line() -> None:
    assert OfflineExtractor().candidates("Mateo passed the entrance exam, he's going to study law 🎉 we're so proud.")[
        :2] == ["Mateo passed the entrance exam", "Mateo is going to study law"]


def test_chat_in_lower_case_opens_with_the_family_name_before_its_verb() -> None:
    extractor = OfflineExtractor()
    assert extractor.candidates("mom finally decided to close the restaurant after 22 years.") == [
        "User's mom finally decided to close the restaurant after 22 years"]
    assert extractor.candidates("dad jokes are the worst") == []  # a noun follows: no one's dad


def test_a_relative_said_as_the_owner_of_a_thing_is_who_a_later_he_is() -> None:
    """"for my father's birthday. His name is Hernán": the father; "my roommate's cat … he": the cat."""
    lines = OfflineExtractor().candidates("Help me write a speech for my father's 70th birthday. His name is Hernán.")
    assert lines == ["User's father's name is Hernán"]
    assert OfflineExtractor().candidates("My roommate's cat is so cute. He sleeps on my bed.")[1:] == []


def test_and_he_or_she_after_a_statement_starts_one_of_their_own() -> None:
    assert OfflineExtractor().candidates("My son Leo has autism and he just started speech therapy.") == [
        "User's son Leo has autism", "User's son Leo just started speech therapy"]


def test_one_antecedent_is_never_both_a_he_and_a_she_of_one_sentence() -> None:
    """"I caught her feeding him paneer" names two people; giving both the last name said made one feed herself."""
    lines = OfflineExtractor().candidates("Priya is obsessed. I caught her feeding him paneer.")
    assert not any("feeding" in line for line in lines)


def test_they_said_of_nobody_with_the_user_as_object_is_news_of_the_user() -> None:
    extractor = OfflineExtractor()
    assert extractor.candidates("they finally made me head of the cellar at the winery!") == [
        "User was finally made head of the cellar at the winery"]
    assert extractor.candidates("They diagnosed me with asthma last year.") == ["User was diagnosed with asthma last year"]
    assert extractor.candidates("They are sending me to Berlin.") == []  # not a past verb: left as said


def test_my_dear_before_a_comma_calls_the_listener() -> None:
    assert OfflineExtractor().candidates("My dear, I moved to Leeds last week.") == ["User moved to Leeds last week"]
    assert OfflineExtractor().candidates("My dear friend Ana moved to Leeds.") == ["User's dear friend Ana moved to Leeds"]


def test_a_past_verb_after_a_comma_goes_on_with_the_users_subject() -> None:
    assert OfflineExtractor().candidates("we finally did it, bought a used hilux!") == ["User bought a used hilux"]
    assert OfflineExtractor().candidates("I'm reading a novel, called Dune.") == ["User is reading a novel, called Dune"]


def test_a_he_that_opens_a_sentence_is_the_person_before_it_not_the_one_it_goes_on_to_name() -> None:
    lines = OfflineExtractor().candidates(
        "My neighbor Ruth is ninety-one. She's been teaching my son how to grow peppers.")
    assert lines[-1] == "User's neighbor Ruth has been teaching their son how to grow peppers"


def test_a_bare_name_is_no_antecedent_for_a_later_him_or_her() -> None:
    """"Hana got a puppy. I'm going over to see him": the puppy, whom a name says nothing of; only an opening
    "he" or "she" is the person just named."""
    lines = OfflineExtractor().candidates("Sophie had the baby last night!! I'm taking the train to Quebec on the 20th "
                                          "to meet her.")
    assert not any("meet Sophie" in line for line in lines)
    assert OfflineExtractor().candidates("Rui got a job in Porto. He starts in May.")[-1] == "Rui starts in May"
