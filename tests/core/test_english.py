"""The one English language layer: verb forms from lemminflect, the word list, names, sentences."""

from __future__ import annotations

from suzent_desktop.core.engines.capture.offline import OfflineExtractor
from suzent_desktop.core.files.language import english


def test_verb_forms_come_from_the_library_not_a_table():
    assert [english.third_person_verb(v) for v in ("love", "go", "watch", "try", "have", "am", "run")] == [
        "loves", "goes", "watches", "tries", "has", "is", "runs"]
    assert [english.third_person_verb(v) for v in ("went", "caught", "can", "set")] == ["went", "caught", "can", "set"]
    assert english.verb_lemma("bought") == "buy" and english.verb_lemma("restoring") == "restore"
    assert english.is_past("caught") and english.is_past("adopted") and not english.is_past("need")


def test_caught_and_bought_are_the_same_kind_of_word():
    assert english.verb_tag("caught") == english.verb_tag("bought") == "VBD"


def test_words_that_are_no_english_forms():
    assert english.is_english_word("photos") and english.is_english_word("restoring")
    assert not english.is_english_word("wannas") and not english.is_english_word("totallies")


def test_a_verb_made_with_a_prefix_from_a_known_verb_is_english():
    """"I repotted my bonsai", "I rewatched Succession": the word list lacks them, not the language."""
    assert all(english.is_english_word(w) for w in ("repotted", "rewatched", "unfollowed", "upcycled"))
    assert english.looks_like_name("Revathi") and english.looks_like_name("Deshawn")
    assert OfflineExtractor().candidates("I finally repotted my oldest bonsai.") == [
        "User finally repotted their oldest bonsai"]


def test_names_are_rare_words_and_not_plurals_or_gerunds():
    assert english.looks_like_name("Melanie") and english.looks_like_name("Tallinn")
    assert not english.looks_like_name("Pets") and not english.looks_like_name("Writing")
    assert not english.looks_like_name("Monday")


def test_sentences_split_at_ends_but_not_after_a_title():
    assert english.sentences("I met Dr. Almeida. She is kind!\nSee you") == ["I met Dr. Almeida.", "She is kind!", "See you"]


def test_an_exclamation_ends_a_sentence_after_a_word_in_capitals():
    """"PhD!" read as an abbreviation ran on into the next sentence: "User finished their PhD! Graduation is …"."""
    assert english.sentences("I got my PhD! Graduation is in July.") == ["I got my PhD!", "Graduation is in July."]


def test_sentences_keep_initials_and_end_inside_quotes():
    """"J.K. Rowling" split after "J.K." left "Rowling is …" with no subject; a sentence ending in a quoted title
    ran on into the next one, whose "It" then hid the title's sentence from the candidate step."""
    assert english.sentences("J.K. Rowling inspires me. I wrote one called \"Home.\" It is a script.") == [
        "J.K. Rowling inspires me.", "I wrote one called \"Home.\"", "It is a script."]


def test_a_dash_before_what_the_thing_is_keeps_one_sentence():
    """"a new project - a podcast about old maps" says what the project is: split, the line kept only
    "User started a new side project" and lost the podcast."""
    assert english.sentences("I started a side project - a podcast about old maps. It went well - I record weekly.") == [
        "I started a side project - a podcast about old maps.", "It went well", "I record weekly."]
    # so does how much of it there is: "two weeks in Sri Lanka" is the honeymoon
    assert english.sentences("Finally booked our honeymoon - two weeks in Sri Lanka!") == [
        "Finally booked our honeymoon - two weeks in Sri Lanka!"]


def test_the_word_list_reads_words_and_counts_as_written_escapes_included() -> None:
    lexicon = english.parse('{\n"a": 30,\n"Piano": 5,\n"caf\\u00e9": 5,\n"piano": 10\n}')
    assert "piano" in lexicon and "café" in lexicon and "Piano" not in lexicon
    assert lexicon.word_usage_frequency("piano") == 0.3 and lexicon.word_usage_frequency("harp") == 0.0
    assert "violin" in english.lexicon() and "totallies" not in english.lexicon()


def test_a_dash_inside_quotes_does_not_end_the_statement():
    assert english.sentences('My motto is "Go slow - arrive early." I live by it - mostly.') == [
        'My motto is "Go slow - arrive early."', "I live by it", "mostly."]
    # a quote left open does not swallow the next line
    assert english.sentences('He wrote "wait - no\nI moved to Oslo - got a job') == [
        'He wrote "wait - no', "I moved to Oslo", "got a job"]


def test_a_quick_message_is_read_as_meant() -> None:
    """Missing apostrophes, a lower-case "i" and lower-case days and months are filled in; a spelling that is
    another word ("its", "were", "ill", "may", "march") stays as written."""
    assert english.as_meant("my sister shes working nights, i dont mind") == "my sister she's working nights, I don't mind"
    assert english.as_meant("im off on monday, back in june!") == "I'm off on Monday, back in June!"
    assert english.as_meant("its tail, we were ill in may and march") == "its tail, we were ill in may and march"
    assert english.as_meant("Thats it. Cant wait") == "That's it. Can't wait"


def test_articles_go_by_the_first_sound() -> None:
    assert [english.indefinite_article(w) for w in ("apple", "cake", "unicorn", "umbrella", "user")] == [
        "an", "a", "a", "an", "a"]


def test_a_lower_case_sentence_after_a_bracket_and_a_full_stop_starts_anew():
    assert english.sentences("my dad retired (he's bored lol). mom wants to visit me in june") == [
        "my dad retired (he's bored lol).", "mom wants to visit me in june"]


def test_an_emoji_before_a_new_clause_ends_the_sentence():
    """Chat ends a sentence with an emoji as often as with a full stop."""
    assert english.sentences("Mateo passed the exam 🎉 we're so proud.") == ["Mateo passed the exam 🎉", "we're so proud."]
