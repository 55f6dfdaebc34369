"""Search answers the question: current facts before history, one fact per hit, folded repeats, dates."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import numpy as np
import pytest

from suzent_desktop.core.files.records.archive import Archive
from suzent_desktop.core.files.records.log_grammar import Fact
from suzent_desktop.core.index.embedding import HashingEmbedder
from suzent_desktop.core.index.indexer import Indexer
from suzent_desktop.core.index.ranking.hits import SearchHit, fold
from suzent_desktop.core.vault.notebook import Notebook

WORK = """# Work

- User now works at Microsoft on the Azure AI Search team (2026-07-10)
- User's manager at Microsoft is Daniel Okafor (2026-07-11)
- User maintains a nightly Spark pipeline (2026-07-02)
- User gave notice at Contoso (2026-07-05)

## History

- ~~User works at Contoso as a data engineer~~ (2026-06-01, until 2026-07-10)
"""


class CountingEmbedder:
    def __init__(self) -> None:
        self.inner = HashingEmbedder(384)
        self.name, self.dim = self.inner.name, 384
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts.extend(texts)
        return self.inner.embed(texts)


@pytest.fixture
def embedder() -> CountingEmbedder:
    return CountingEmbedder()


@pytest.fixture
def indexer(layout, clock, embedder) -> Indexer:
    notebook = Notebook(layout)
    notebook.bootstrap()
    layout.memory_dir.mkdir(parents=True, exist_ok=True)
    return Indexer(layout, embedder, clock, notebook=notebook, archive=Archive(layout))


def write(layout, relative: str, text: str):
    path = layout.notebook_dir / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


async def test_current_fact_ranks_above_its_history_and_names_it(layout, indexer) -> None:
    work = write(layout, "3_Personal/Work.md", WORK)
    await indexer.sync()
    hits = (await indexer.search("where does the user work", limit=5)).hits
    assert hits[0].text == "User now works at Microsoft on the Azure AI Search team"
    assert not hits[0].superseded and hits[0].date == "2026-07-10"
    old = next(h for h in hits if h.superseded)
    assert old.text == "User works at Contoso as a data engineer"
    assert (old.until, old.date) == ("2026-07-10", "2026-06-01")  # superseded on; the fact's own date
    assert old.current is not None and (old.current.path, old.current.line) == (str(work), 3)


async def test_a_superseded_hit_brings_its_current_value_with_it(layout, indexer) -> None:
    write(layout, "3_Personal/Work.md", WORK)
    await indexer.sync()
    hits = (await indexer.search("Contoso data engineer", limit=10)).hits
    old = next(i for i, h in enumerate(hits) if h.superseded)
    assert hits[old].text == "User works at Contoso as a data engineer"
    assert hits[old].current.text == "User now works at Microsoft on the Azure AI Search team"
    assert hits[old - 1].text == hits[old].current.text  # the current value stands just above it


async def test_a_question_about_the_past_finds_history_first(layout, indexer) -> None:
    write(layout, "3_Personal/Work.md", WORK)
    await indexer.sync()
    hits = (await indexer.search("where did the user work before", limit=5)).hits
    assert hits[0].text == "User works at Contoso as a data engineer"
    assert hits[0].superseded and hits[0].current is not None


async def test_memory_md_and_log_repeats_fold_into_the_page_hit(layout, indexer) -> None:
    page = write(layout, "3_Personal/Work.md", WORK)
    memory = layout.memory_dir / "MEMORY.md"
    memory.write_text(
        "# Memory\n\n## Work\n- User now works at Microsoft on the Azure AI Search team\n"
        "- User likes hiking\n",
        encoding="utf-8",
    )
    when = dt.datetime(2026, 7, 19, 9, 0)
    log, _ = Archive(layout).append_turn(
        [Fact("User now works at Microsoft on the Azure AI Search team.")], session_id="s1", when=when
    )
    await indexer.sync()
    hits = (await indexer.search("Microsoft Azure AI Search team", limit=5)).hits
    same = [h for h in hits if "Azure AI Search team" in h.text and "now works" in h.text]
    assert len(same) == 1
    hit = same[0]
    assert (hit.path, hit.source_type, hit.date) == (str(page), "notebook", "2026-07-10")
    assert [p.path for p in hit.places] == [str(page), str(memory), str(log)]
    assert hit.places[2].date == "2026-07-19"


def test_fold_keeps_different_facts_apart() -> None:
    def hit(text: str, source: str, path: str, score: float) -> SearchHit:
        return SearchHit(text, source, path, 1, None, score, None, path + text)

    hits = fold(
        [
            hit("User likes tea", "core", "/m", 0.9),
            hit("User likes coffee", "notebook", "/p", 0.8),
            hit("User doesn't like tea", "archive", "/a", 0.7),
            hit("user likes tea.", "notebook", "/p2", 0.5),
        ]
    )
    assert [(h.text, h.path, h.score, len(h.also)) for h in hits] == [
        ("user likes tea.", "/p2", 0.9, 1),
        ("User likes coffee", "/p", 0.8, 0),
        ("User doesn't like tea", "/a", 0.7, 0),
    ]


def test_a_transcript_turn_that_states_a_bullet_folds_into_it() -> None:
    def hit(text: str, source: str, score: float, superseded: bool = False) -> SearchHit:
        return SearchHit(text, source, f"/{source}", 1, None, score, None, source + text, superseded=superseded)

    hits = fold(
        [
            hit("User: My godson Quentin lives in Lisbon.\nAssistant: Noted!", "transcript", 0.9),
            hit("User's godson Quentin lives in Lisbon", "notebook", 0.5, superseded=True),
            hit("User: I don't live in Porto any more.\nAssistant: Oh.", "transcript", 0.8),
            hit("User lives in Porto", "notebook", 0.4),
        ]
    )
    lisbon = next(h for h in hits if "Lisbon" in h.text)
    assert lisbon.source_type == "notebook" and lisbon.superseded and lisbon.score == 0.9
    assert [p.source_type for p in lisbon.also] == ["transcript"]
    assert len(hits) == 3  # the negated turn stays apart from "User lives in Porto"


async def test_editing_one_bullet_embeds_only_that_row(layout, indexer, embedder) -> None:
    path = write(layout, "3_Personal/Work.md", WORK)
    await indexer.sync()
    embedder.texts.clear()
    path.write_text(WORK.replace("nightly Spark pipeline", "nightly Flink pipeline"), encoding="utf-8")
    await indexer.sync()
    assert embedder.texts == ["User maintains a nightly Flink pipeline"]


async def test_striking_a_fact_through_marks_it_superseded(layout, indexer, embedder) -> None:
    path = write(layout, "3_Personal/Work.md", WORK)
    await indexer.sync()
    path.write_text(
        WORK.replace("- User gave notice at Contoso (2026-07-05)", "- ~~User gave notice at Contoso~~ (2026-07-05)"),
        encoding="utf-8",
    )
    await indexer.sync()
    hits = (await indexer.search("notice Contoso", limit=10)).hits
    notice = next(h for h in hits if h.text == "User gave notice at Contoso")
    assert notice.superseded and notice.until is None and notice.date == "2026-07-05"


async def test_log_hits_carry_their_day(layout, indexer) -> None:
    when = dt.datetime(2026, 7, 18, 9, 0)
    Archive(layout).append_turn([Fact("User adopted a cat named Pixel")], session_id="s1", when=when)
    await indexer.sync()
    hits = (await indexer.search("cat Pixel", limit=3)).hits
    assert hits[0].date == "2026-07-18"


PLACES = """# Places

Facts about the user's places, consolidated from the daily logs.
Part of [[About Me]], kept up to date by the nightly consolidation.

- User lives in Savannah, near the old harbour (2026-04-29)

## History

- ~~User lives in Boston, near the harbour~~ (2026-01-03, until 2026-04-29)
"""


async def test_on_a_page_with_an_intro_the_current_fact_is_its_own_hit_above_the_superseded_one(
        layout, indexer) -> None:
    places = write(layout, "3_Personal/Places.md", PLACES)
    await indexer.sync()
    hits = (await indexer.search("which city does the user live in now near the harbour", limit=5)).hits
    assert hits[0].text == "User lives in Savannah, near the old harbour"
    assert (hits[0].date, hits[0].superseded, hits[0].line) == ("2026-04-29", False, 6)
    old = next(i for i, h in enumerate(hits) if h.superseded)
    assert old > 0 and hits[old].text == "User lives in Boston, near the harbour"
    assert (hits[old].current.path, hits[old].current.line) == (str(places), 6)


async def test_before_any_dream_a_newer_log_value_ranks_first_and_the_older_one_says_it_is_older(
        layout, indexer, today) -> None:
    archive = Archive(layout)
    old_day = dt.datetime.combine(today - dt.timedelta(days=20), dt.time(9, 0))
    new_day = dt.datetime.combine(today - dt.timedelta(days=2), dt.time(9, 0))
    archive.append_turn([Fact("User works at Contoso as a data engineer on the Contoso data platform")],
                        session_id="s1", when=old_day)
    archive.append_turn([Fact("User now works at Microsoft")], session_id="s2", when=new_day)
    await indexer.sync()
    hits = (await indexer.search("where does the user work at Contoso or Microsoft", limit=5)).hits
    texts = [h.text for h in hits]
    assert texts.index("User now works at Microsoft") < texts.index(
        "User works at Contoso as a data engineer on the Contoso data platform")
    old = next(h for h in hits if "Contoso" in h.text)
    assert old.superseded and old.until == new_day.date().isoformat()
    assert old.current is not None and old.current.text == "User now works at Microsoft"


def test_a_turn_that_says_much_more_than_the_bullet_stays_a_hit_of_its_own() -> None:
    turn = ("User: I went to Woodhaven, a small town in the Midwest. Checked out the library there, it had a cool "
            "old book collection, and the bakery next door sells rye bread. The river walk was quiet and the old mill "
            "is now a museum of printing.\nAssistant: Sounds lovely! Did you find any books there?")
    hits = fold([
        SearchHit(turn, "transcript", "/t", 1, None, 0.9, None, "t"),
        SearchHit("User went to Woodhaven, a small town in the Midwest", "notebook", "/p", 3, None, 0.8, None, "p"),
    ])
    assert [h.source_type for h in hits] == ["transcript", "notebook"]


async def test_before_the_next_dream_a_newer_log_value_ranks_above_the_page_it_changes(
        layout, indexer, today) -> None:
    write(layout, "3_Personal/Work.md", "# Work\n\n- User works at Contoso as a data engineer (2026-06-01)\n")
    new_day = dt.datetime.combine(today - dt.timedelta(days=2), dt.time(9, 0))
    Archive(layout).append_turn([Fact("User now works at Microsoft")], session_id="s2", when=new_day)
    await indexer.sync()
    hits = (await indexer.search("where does the user work, Contoso or Microsoft", limit=5)).hits
    texts = [h.text for h in hits]
    assert texts.index("User now works at Microsoft") < texts.index("User works at Contoso as a data engineer")
    old = next(h for h in hits if "Contoso" in h.text)
    assert old.superseded and old.until == new_day.date().isoformat()


async def test_the_dated_facts_of_one_page_are_not_discounted_as_repeats_of_one_text(layout, indexer):
    """A consolidated page is a list of independent facts: a question several of them answer keeps them all in
    the first hits, instead of giving way to pages that only share a word with it."""
    write(layout, "3_Personal/Timeline.md", "# Timeline\n\n" + "".join(
        f"- User went hiking on the {trail} trail with Ana (2026-06-0{i})\n"
        for i, trail in enumerate(("Kestrel", "Heron", "Osprey", "Plover", "Curlew"), start=1)))
    for name in ("Maps", "Boots", "Weather", "Parking", "Permits"):
        write(layout, f"2_Wiki/{name}.md", f"# {name}\n\nA note on {name.lower()} for any trail.\n")
    await indexer.sync()
    hits = (await indexer.search("hiking trail with Ana", limit=5)).hits
    assert [h.path.endswith("Timeline.md") for h in hits] == [True] * 5


TIMELINE = """# Timeline

- User ran a trail race in the Ardennes (2026-05-09)
- User ran a relay with colleagues (2026-05-23)
- User swam across Lake Hallstatt (2026-03-14)
"""


async def test_a_question_naming_a_month_finds_the_bullets_of_that_month(layout, indexer) -> None:
    write(layout, "3_Personal/Timeline.md", TIMELINE)
    await indexer.sync()
    hits = (await indexer.search("what did the user do in March 2026", limit=3)).hits
    assert hits[0].text == "User swam across Lake Hallstatt" and hits[0].date == "2026-03-14"



async def test_a_log_fact_is_found_by_the_month_of_its_day_too(layout, indexer) -> None:
    archive = Archive(layout)
    for day, text in ((dt.datetime(2026, 5, 9, 9), "User ran a trail race in the Ardennes"),
                      (dt.datetime(2026, 3, 14, 9), "User swam across Lake Hallstatt")):
        archive.append_turn([Fact(text)], session_id="s1", when=day)
    await indexer.sync()
    hits = (await indexer.search("what happened in March", limit=3)).hits
    assert hits[0].text == "User swam across Lake Hallstatt"


CHEN = """# Chen

- Chen now works at Vandelay Industries (2026-05-01)
- Chen plays the cello (2026-02-01)

## History

- ~~Chen works at Umbrella Labs~~ (2026-01-10, until 2026-03-01)
- ~~Chen now works at Stark Systems~~ (2026-03-01, until 2026-05-01)
"""

HANA = """# Hana

- Hana now works at Hooli (2026-04-01)
- Hana moved to Ghent (2026-05-02)
- Hana plays the trombone (2026-02-01)

## History

- ~~Hana lives in Leeds~~ (2026-01-05, until 2026-05-02)
"""


async def test_asked_what_came_before_the_value_just_before_the_current_one_comes_first(layout, indexer) -> None:
    """"Before" is the previous job, not the first: the oldest value shares the question's words as much."""
    write(layout, "3_Personal/Chen.md", CHEN)
    await indexer.sync()
    hits = (await indexer.search("Where did Chen work before?", limit=5)).hits
    assert hits[0].text == "Chen now works at Stark Systems" and hits[0].superseded


async def test_the_current_value_takes_the_rank_its_old_value_earned(layout, indexer) -> None:
    """"Where does Hana live now?" matches the old home by its words; the new one answers it, above a
    current fact that only shares "now"."""
    write(layout, "3_Personal/Hana.md", HANA)
    await indexer.sync()
    hits = (await indexer.search("Where does Hana live now?", limit=5)).hits
    assert hits[0].text == "Hana moved to Ghent"


async def test_a_question_about_a_relative_ranks_that_relative_above_an_in_law(layout, indexer) -> None:
    """"brother" in "brother-in-law" or "cousin" in "second cousin" is the word, not the person asked about."""
    write(layout, "3_Personal/People.md", "# People\n\n"
          "- User's brother-in-law Ottilie moved to Utrecht (2026-07-01)\n"
          "- User's brother-in-law Ottilie lives in Utrecht now (2026-07-02)\n"
          "- User's second cousin Cosima lives in Seville (2026-07-03)\n"
          "- User's brother Rosa is a data engineer up in Aarhus (2026-07-04)\n"
          "- User's cousin Amara has a studio in Ljubljana (2026-07-05)\n")
    await indexer.sync()
    def first(hits, *starts: str) -> str:
        return next(h.text for h in hits if h.text.startswith(starts))

    brother = (await indexer.search("Which city does the user's brother live in?", limit=5)).hits
    assert first(brother, "User's brother") == "User's brother Rosa is a data engineer up in Aarhus"  # not the in-law
    cousin = (await indexer.search("Which city does the user's cousin live in?", limit=5)).hits
    assert first(cousin, "User's cousin", "User's second cousin") == "User's cousin Amara has a studio in Ljubljana"
    in_law = (await indexer.search("Where does the user's brother-in-law live?", limit=5)).hits
    assert in_law[0].text.startswith("User's brother-in-law Ottilie")  # asked by name of the relation, found
