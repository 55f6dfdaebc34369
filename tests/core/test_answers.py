"""An answer that leaves out what the assistant's question named gets it back, offline."""

from __future__ import annotations

import pytest
from dream_support import make_manager

from suzent_desktop.core.engines.capture.answers import Asked, asked_of, completed
from suzent_desktop.core.engines.capture.offline import OfflineExtractor


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("Nice! How long have you been playing the piano again?", Asked("play", "the piano")),
        ("Do you still play your guitar these days?", Asked("play", "my guitar", thing="guitar")),
        ("How long have you been learning German?", Asked("learn", "German")),
        ("Are you still working at the bakery?", Asked("work", "at the bakery")),
        ("What instrument are you playing?", Asked(saying="I am playing")),  # no object: an answer names it
        ("Have you been to Italy?", None),  # "been" asks no doing
        ("Did you enjoy it?", None),  # a pointer: nothing to fill in
        ("What kind of projects are you working on with them?", None),  # the object is the "what"
        ("Are you working on any new songs?", None),  # no one thing
        ("Have you ever gone fishing before?", Asked("go", "fishing")),
        ("That sounds lovely. Enjoy the concert!", None),  # no question
        ("Wow! What's your new novel about?", Asked(thing="new novel")),  # a thing of the user's, no doing
        ("How's your fan project coming along?", Asked(thing="fan project")),
    ],
)
def test_the_question_names_a_doing_and_its_object(question, asked):
    assert asked_of(question) == asked


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("I've been playing for about four months now.", "I've been playing the piano for about four months now."),
        ("Yeah, I play every Sunday with my brother.", "Yeah, I play the piano every Sunday with my brother."),
        ("I play three times a week.", "I play the piano three times a week."),
        ("I play a lot!", "I play the piano a lot!"),
        ("I'm playing a new song by Satie.", "I'm playing a new song by Satie."),  # it has an object of its own
        ("I've been singing for years.", "I've been singing for years."),  # another verb
        ("My sister plays too.", "My sister plays too."),  # not the user's own statement
        ("I play in a band now.", "I play in a band now."),  # a place of its own
    ],
)
def test_an_answer_without_the_object_gets_the_questions(answer, expected):
    assert completed(answer, Asked("play", "the piano")) == expected


def test_an_it_or_them_after_the_questions_verb_is_the_questions_object():
    asked = asked_of("Aww, how long have you had your turtles?")
    assert completed("I've had them for 3 years now!", asked) == "I've had my turtles for 3 years now!"
    assert completed("I've had them for 3 years now!", Asked("work", "at the bakery")) == "I've had them for 3 years now!"


@pytest.mark.parametrize(
    ("question", "answer", "lines"),
    [
        ("Wow! What's your new novel about?", "It's about a lighthouse keeper in Cork.",
         ["User's new novel is about a lighthouse keeper in Cork"]),
        ("What is your podcast called?", "It's called Soil Matters.", ["User's podcast is called Soil Matters"]),
        ("How was your weekend?", "It was a blast!", []),  # a verdict says nothing of the weekend
    ],
)
def test_the_answers_it_is_the_thing_of_the_users_the_question_named(question, answer, lines):
    assert OfflineExtractor().candidates(answer, asked=asked_of(question)) == lines


def test_an_answer_that_says_its_own_place_keeps_it():
    assert completed("I work at the café now.", Asked("work", "at the bakery")) == "I work at the café now."


def test_the_offline_extractor_keeps_the_completed_answer_as_a_fact():
    lines = OfflineExtractor().candidates("I've been learning for two years.", asked=asked_of(
        "How long have you been learning German?"))
    assert lines == ["User has been learning German for two years"]
    facts = OfflineExtractor().extract("I've been learning for two years.", asked="How long have you been learning German?")
    assert [f.content for f in facts] == ["User has been learning German for two years"]


@pytest.mark.parametrize(("session", "expected"), [
    ("s1", ["User has been playing the piano for about four months now"]),
    ("s2", []),  # a question asked in another conversation fills nothing in (and the bare line is no fact)
])
async def test_capture_reads_the_question_the_assistant_asked_the_turn_before(home, clock, session, expected):
    """Offline, with the transcript kept: the answer names the piano the turn before's reply asked about."""
    manager = make_manager(home, clock)
    await manager.process_conversation_turn_for_memories(
        "I finally booked lessons with a teacher in town.", "That's great! How long have you been playing the piano?", "s1")
    facts, _ = await manager.process_conversation_turn_for_memories(
        "I've been playing for about four months now.", "Lovely.", session)
    assert [f.content for f in facts] == expected
    log = manager.log_path(clock.today().isoformat()).read_text(encoding="utf-8")
    assert ("User has been playing the piano for about four months now" in log) == bool(expected)


@pytest.mark.parametrize(("before", "turn", "lines"), [
    ("I finally finished my first full screenplay!", "Thanks! It's a mix of drama and romance!",
     ["User's first full screenplay is a mix of drama and romance"]),
    ("I baked a lemon cake for my mum.", "It has a poppy seed crust and lemon curd.",
     ["User's lemon cake has a poppy seed crust and lemon curd"]),
    # after a reply, "It was …" tells how the time went, not what the thing is
    ("I wrote a few bits for a screenplay.", "It was a real roller coaster, but so worth it.", []),
    # the turn before named no thing the user made or has ("a while back" is none)
    ("Check out this pic I got a while back!", "It's a reminder of how lucky I am.", []),
])
def test_a_description_opening_the_turn_is_of_the_thing_the_users_turn_before_made(before, turn, lines):
    assert OfflineExtractor().candidates(turn, before=before) == lines


async def test_capture_reads_the_users_turn_before_for_the_thing_it_made(home, clock):
    manager = make_manager(home, clock)
    await manager.process_conversation_turn_for_memories(
        "I finally finished my first full screenplay!", "Congrats! What kind of story is it?", "s1")
    facts, _ = await manager.process_conversation_turn_for_memories(
        "Thanks! It's a mix of drama and romance!", "Sounds great.", "s1")
    assert [f.content for f in facts] == ["User's first full screenplay is a mix of drama and romance"]


@pytest.mark.parametrize(
    ("question", "turn", "lines"),
    [
        ("Do you have any favorite fantasy films?", "Definitely Star Wars! It's my favorite and never gets old.",
         ["User's favorite fantasy film is Star Wars"]),
        ("Do you have any favourite books?", "For sure! Dune and Hyperion are amazing!",
         ["User's favourite books are Dune and Hyperion"]),
        ("Who's your favourite author?", "Ursula K. Le Guin, easily.", ["User's favourite author is Ursula K. Le Guin"]),
        ("What are your favorite sports to watch?", "Tennis!", ["User's favorite sport to watch is Tennis"]),
        ("What's your favorite kind of music?", "Jazz, definitely.", ["User's favorite kind of music is Jazz"]),
        ("Do you have a favorite TV series?", "Severance!", ["User's favorite TV series is Severance"]),
        # no name, or not the user's favourite: nothing is made up
        ("Is Spider-Man your favorite superhero?", "Thanks, Nate! It was a real roller coaster.", []),
        ("What's your favorite way to relax?", "Reading, for sure.", []),
        ("Are Dune and Hyperion still your favorites?", "Yes, they are still my favorites.", []),
        ("What's Tom's favourite food?", "Pizza!", []),
    ],
)
def test_an_answer_that_names_a_favourite_says_whose_favourite_it_is(question, turn, lines):
    """Asked "Do you have any favorite fantasy films?", "Definitely Star Wars!" says what the user's favourite
    fantasy film is; the question, not the answer, says what kind of favourite."""
    assert OfflineExtractor().candidates(turn, asked=asked_of(question)) == lines


@pytest.mark.parametrize(
    ("question", "turn", "lines"),
    [
        ("What instrument do you play?", "The oboe. Since school, really.", ["User plays the oboe"]),
        ("Which club do you support?", "Celtic, of course.", ["User supports Celtic"]),
        ("What kind of music do you listen to?", "Mostly old soul records.", ["User listens to old soul records"]),
        ("What are you reading these days?", '"Piranesi", by Susanna Clarke.', ['User is reading "Piranesi"']),
        ("What did you study?", "Marine biology, in Plymouth.", ["User studied Marine biology"]),
        ("Do you have any pets?", "Yes, a tortoise called Gus.", ["User has a tortoise called Gus"]),
        # a no, a doing, a statement or a verdict names no thing the user has or does
        ("Do you have any pets?", "No, sadly.", []),
        ("Do you have any siblings?", "Two brothers.", []),  # without a yes, no statement is made
        ("What are you experimenting with?", "Trying out new flavours.", ["User is trying out new flavours"]),
        ("What did you do this weekend?", "Nothing much.", []),
        ("What do you play?", "Great question!", []),
    ],
)
def test_an_answer_that_names_only_the_thing_asked_for_says_it(question, turn, lines):
    """Asked "What instrument do you play?", "The oboe." says what the user plays; asked "Do you have any
    pets?", only a yes says the user has one."""
    assert OfflineExtractor().candidates(turn, asked=asked_of(question)) == lines


@pytest.mark.parametrize(
    ("question", "turn", "lines"),
    [
        ("How's your dad doing?", "Much better, thanks. He's back home from the hospital.",
         ["User's dad is back home from the hospital"]),
        ("How is your sister getting on in Berlin?", "She loves it! She just got a job at a design studio.",
         ["User's sister just got a job at a design studio"]),
    ],
)
def test_an_answers_he_or_she_is_the_person_the_question_asked_after(question, turn, lines):
    assert OfflineExtractor().candidates(turn, asked=asked_of(question)) == lines
