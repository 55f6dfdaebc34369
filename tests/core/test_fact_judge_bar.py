"""The judge's keep bar: a line that names what it is about is kept at a lower probability."""

from __future__ import annotations

import datetime as dt

import pytest

from suzent_desktop.core.engines.capture import fact_judge
from suzent_desktop.core.engines.capture.offline import OfflineExtractor

WHEN = dt.datetime(2026, 3, 4, 10, 0)


@pytest.mark.parametrize("line", ['User is really excited to watch a new show called "The Long Road"',
                                  "User's cousin Ilse runs a bakery", "User ran 10 km on Sunday"])
def test_a_quoted_title_a_name_or_a_number_names_something(line: str) -> None:
    assert fact_judge.names_something(line)


@pytest.mark.parametrize("line", ["User got great news on Friday", "User had a tough time in May",
                                  "User plans to return on July 20", "User felt great on the 3rd of June",
                                  "User has been happy since 2019", "User is super stoked for the stuff"])
def test_a_date_names_nothing(line: str) -> None:
    assert not fact_judge.names_something(line)


def test_a_plan_that_names_its_subject_is_kept_where_the_same_plan_without_it_is_not() -> None:
    # A plan whose probability stands well between the two bars (about 0.77 here), not at either: the int8
    # classifier's last digits differ between processors, and a line at 0.4 can fall either side of it.
    named = OfflineExtractor().extract("I am definitely going to continue my Spanish lessons!", when=WHEN)
    vague = OfflineExtractor().extract("I am definitely going to continue my lessons!", when=WHEN)
    assert [fact.content for fact in named] == ["User is definitely going to continue their Spanish lessons"]
    assert vague == []


def test_the_lower_bar_is_only_for_lines_that_name_something() -> None:
    judge = fact_judge.judge()
    named, vague = 'User just watched "Paper Moons"', "User just watched a movie"
    assert fact_judge.NAMED_KEEP_AT <= judge.probability(named) < judge.keep_at
    assert judge(named).keep
    assert not judge(vague).keep


def test_the_judge_weighs_a_line_without_its_news_adverbs() -> None:
    """"just", "finally", "actually" say when the news came, not what it is: the judge weighs the line
    without them (the chatter it learned to drop says them often), and the line keeps them."""
    judge = fact_judge.judge()
    said, plain = "User just set up meetings with movie producers", "User set up meetings with movie producers"
    assert judge(said).probability == judge(plain).probability
    assert judge(said).keep
    assert not judge("User just wanted to say hi").keep
    assert fact_judge.without_news_adverbs("User finally just moved to Leeds") == "User moved to Leeds"


def test_a_titles_own_words_do_not_sway_the_judge() -> None:
    """Which film the user watched says nothing of whether "User watched …" is a fact: every title is
    weighed as the same stand-ins. A quoted saying, or a word quoted as a word, is weighed as said."""
    judge = fact_judge.judge()
    scores = {judge(f'User watched "{title}" last night').probability
              for title in ("Little Women", "The Godfather", "Paper Moons", "Amélie")}
    assert len(scores) == 1
    assert judge('User watched "Little Women" last night').keep
    saying = 'User loves the line "If User could just turn back the clock."'
    assert fact_judge.weighed_forms(saying) == ['User loves the line "If User could turn back the clock."']
    assert fact_judge.weighed_forms('"That" is one of User\'s favourite shows') == [
        '"That" is one of User\'s favourite shows']


def test_a_name_for_a_thing_of_the_users_is_weighed_in_both_orders() -> None:
    """"The Lakers are User's favorite team" is the fact "User's favorite team is the Lakers" said from the
    name's side; the judge learned the second order far more often and weighs both."""
    judge = fact_judge.judge()
    assert fact_judge.in_both_orders("The Lakers are User's favorite team") == [
        "The Lakers are User's favorite team", "User's favorite team are the Lakers"]
    assert fact_judge.in_both_orders("Luna is User's cat") == ["Luna is User's cat", "User's cat is Luna"]
    assert fact_judge.in_both_orders("User's cat is Luna") == ["User's cat is Luna"]
    assert fact_judge.in_both_orders("it is User's turn") == ["it is User's turn"]
    assert judge("The Lakers are User's favorite team").keep
    assert not judge("Coffee is User's best friend right now").keep


def test_more_after_a_verb_does_not_sway_the_judge() -> None:
    """"More" after a verb says how much of something, not what: "writing more articles" is weighed as
    "writing articles"; "more" after "is" or before "than" stays."""
    assert fact_judge.without_news_adverbs("User has been writing more articles") == "User has been writing articles"
    assert fact_judge.without_news_adverbs("User is more confident now") == "User is more confident now"
    assert fact_judge.without_news_adverbs("User ran more than ten miles") == "User ran more than ten miles"
    assert fact_judge.judge()("User has been writing more articles").keep
