"""MEMORY.md promotion: ranking by recall, the hard cap in code, the protected section, the LLM path."""

from __future__ import annotations

import json

import pytest
from dream_support import make_manager, write_log

from suzent_desktop.core import llm
from suzent_desktop.core.engines.memory_md.promotion import RECENT_START, fit, promote, refresh_from_important
from suzent_desktop.core.engines.memory_md.recall import Recall
from suzent_desktop.core.files.records.log_grammar import Fact

PROTECTED = "<!-- protected -->\n## Mine\nCall me Sam. Never book flights before 9am.\n<!-- /protected -->"


@pytest.fixture
def manager(home, clock):
    return make_manager(home, clock)


def write_page(manager, name: str, text: str) -> None:
    path = manager.layout.notebook_dir / "3_Personal" / f"{name}.md"
    path.write_text(text, encoding="utf-8")


def memory(manager) -> str:
    return manager.layout.memory_md.read_text(encoding="utf-8")


async def test_promotes_current_personal_bullets_only(manager):
    write_page(manager, "Work", "# Work\n\n- User works at Microsoft (2026-07-05)\n\n## History\n\n"
                                "- ~~User works at Contoso~~ (2026-07-01, until 2026-07-05)\n")
    write_page(manager, "Health", "# Health\n\n- User is allergic to peanuts (2026-07-02)\n- User's PIN is 1234 (2026-07-02)\n")
    await manager.forgetting.forget("User's PIN is 1234")
    changes = await promote(manager.home)
    text = memory(manager)
    assert changes.memory_md
    assert "- User works at Microsoft" in text and "- User is allergic to peanuts" in text
    assert "Contoso" not in text and "1234" not in text
    assert not (await promote(manager.home)).memory_md  # nothing new: the file is left alone


async def test_recall_counts_rank_first_then_recency_under_a_tight_cap(home, clock):
    manager = make_manager(home, clock, memory_md_max_lines=6, memory_md_max_chars=4000)
    tastes = ["Brazilian bossa nova", "Korean barbecue", "hiking in the Dolomites", "Japanese woodblock prints",
              "Ethiopian coffee", "Tarkovsky films", "playing chess online", "Portuguese custard tarts",
              "sea kayaking", "Agatha Christie novels"]
    bullets = "".join(f"- User loves {taste} (2026-07-{i + 1:02d})\n" for i, taste in enumerate(tastes))
    write_page(manager, "Preferences", "# Preferences\n\n" + bullets)
    manager.recall.record([Recall(f"- User loves {tastes[0]} (2026-07-01)", "notebook")])
    await promote(manager.home)
    lines = memory(manager).splitlines()
    assert len(lines) <= 26
    assert f"- User loves {tastes[0]}" in lines  # recalled: first despite being the oldest
    assert f"- User loves {tastes[9]}" in lines  # then the most recent
    assert f"- User loves {tastes[5]}" not in lines


async def test_hard_cap_is_enforced_in_code(home, clock):
    manager = make_manager(home, clock, memory_md_max_lines=12, memory_md_max_chars=400)
    for page, thing in (("Work", "camera"), ("Places", "typewriter"), ("People", "radio")):
        write_page(manager, page, f"# {page}\n\n" + "".join(
            f"- User owns a vintage {thing} from {1950 + i} (2026-07-{i % 28 + 1:02d})\n" for i in range(40)))
    await promote(manager.home)
    text = memory(manager)
    assert len(text.splitlines()) <= 12 and len(text) <= 400
    assert "## " in text


async def test_protected_section_is_kept_verbatim(manager):
    manager.layout.memory_md.write_text(f"# Memory\n\n{PROTECTED}\n\n## Old\n- stale line\n", encoding="utf-8")
    write_page(manager, "Work", "# Work\n\n- User works at Microsoft (2026-07-05)\n")
    await promote(manager.home)
    text = memory(manager)
    assert PROTECTED in text and "stale line" not in text and "User works at Microsoft" in text


async def test_llm_summary_is_still_truncated_by_code(home, clock, monkeypatch):
    manager = make_manager(home, clock, memory_consolidation_model="gpt-4o-mini", memory_md_max_lines=10)
    manager.layout.memory_md.write_text(f"# Memory\n\n{PROTECTED}\n", encoding="utf-8")
    write_page(manager, "Work", "# Work\n\n- User works at Microsoft (2026-07-05)\n"
               + "".join(f"- User keeps note {i:03d} (2026-07-05)\n" for i in range(100)))
    long_answer = json.dumps({"markdown": "## Everything\n- Works at Microsoft\n"
                                          + "".join(f"- Keeps note {i:03d}\n" for i in range(100))})
    real = llm.complete_json

    async def verbose(model, messages, **kwargs):
        assert "User works at Microsoft" in messages[-1]["content"]
        return await real(model, messages, mock_response=long_answer, **kwargs)

    monkeypatch.setattr(llm, "complete_json", verbose)
    changes = await promote(manager.home)
    text = memory(manager)
    assert len(text.splitlines()) == 10 and PROTECTED in text and "- Keeps note 000" in text and not changes.errors


async def test_llm_failure_falls_back_to_extractive(home, clock, monkeypatch):
    manager = make_manager(home, clock, memory_consolidation_model="gpt-4o-mini")
    write_page(manager, "Work", "# Work\n\n- User works at Microsoft (2026-07-05)\n")
    real = llm.complete_json

    async def broken(model, messages, **kwargs):
        return await real(model, messages, mock_response=Exception("quota exceeded"), **kwargs)

    monkeypatch.setattr(llm, "complete_json", broken)
    changes = await promote(manager.home)
    assert "User works at Microsoft" in memory(manager)
    assert changes.memory_md and "quota exceeded" in changes.errors[0]


async def test_refresh_from_important_keeps_body_and_protected(manager, today):
    manager.layout.memory_md.write_text(f"# Memory\n\n{PROTECTED}\n\n## Work\n- User works at Microsoft\n",
                                        encoding="utf-8")
    write_log(manager, today.isoformat(), [Fact("User is allergic to peanuts", "health", importance=0.95),
                                           Fact("User likes tea", "preference", importance=0.3)])
    changes = await refresh_from_important(manager.home, [Fact("User's daughter is named Mia", "people", importance=0.9)])
    text = memory(manager)
    assert changes.memory_md
    assert PROTECTED in text and "- User works at Microsoft" in text
    recent = text.split(RECENT_START)[1]
    assert "User is allergic to peanuts" in recent and "User's daughter is named Mia" in recent
    assert "likes tea" not in text


def test_fit_takes_whole_lines_within_both_bounds():
    assert fit(["aaaa", "bbbb", "cccc"], 10, 10) == ["aaaa", "bbbb"]
    assert fit(["aaaa", "bbbb", "cccc"], 1, 100) == ["aaaa"]


async def test_every_page_keeps_its_best_fact_under_a_tight_cap(home, clock):
    manager = make_manager(home, clock, memory_md_max_lines=12)
    write_page(manager, "Health", "# Health\n\n- User is allergic to peanuts (2026-01-05)\n")
    write_page(manager, "Hobbies", "# Hobbies\n\n" + "".join(f"- User plays chess at club {i} (2026-07-{i + 1:02d})\n" for i in range(20)))
    await promote(manager.home)
    text = memory(manager)
    assert "- User is allergic to peanuts" in text and "- User plays chess at club 19" in text
    assert len(text.splitlines()) <= 12


async def test_memory_md_holds_stable_precise_facts_and_who_people_are(manager):
    write_page(manager, "Timeline", "# Timeline\n\n- User went to a concert in Lyon (2026-07-01)\n")
    write_page(manager, "Plans", "# Plans\n\n- User plans to visit Kyoto next month (2026-07-02)\n")
    write_page(manager, "General", "# General\n\n- User owns a red bicycle (2026-07-02)\n")
    write_page(manager, "Preferences", "# Preferences\n\n- User totallies agree, Mel (2026-07-02)\n"
                                       "- User prefers green tea over coffee (2026-07-03)\n")
    write_page(manager, "Ana", "# Ana\n\nAna is the user's sister.\n\n[[About Me]]\n\n"
                               "- [[Ana]] lives in Porto (2026-07-04)\n")
    await promote(manager.home)
    text = memory(manager)
    assert "- User prefers green tea over coffee" in text
    assert "- Ana is the user's sister" in text and "- Ana lives in Porto" in text
    for absent in ("concert", "Kyoto", "bicycle", "totallies"):
        assert absent not in text


async def test_a_memory_md_that_is_not_utf8_is_left_untouched_and_named(manager):
    from suzent_desktop.core.engines.memory_md.promotion import PromotionError

    original = f"# Memory\n\n{PROTECTED}\n".encode() + b"My caf\xe9 notes\n"
    manager.layout.memory_md.write_bytes(original)
    write_page(manager, "Work", "# Work\n\n- User works at Microsoft (2026-07-05)\n")
    with pytest.raises(PromotionError, match="MEMORY.md: not valid UTF-8"):
        await promote(manager.home)
    assert manager.layout.memory_md.read_bytes() == original


# -- the model's answer is checked before anything is written -------------------------------------
PEANUTS = "User is allergic to peanuts (2026-07-01)"
ECHO = '{"markdown": "## headings and - bullets, no title"}'


def _answering(monkeypatch, answer: str) -> list[list[dict]]:
    """A fake model that gives ``answer`` to every promotion request, through the real llm.complete_json."""
    real = llm.complete_json
    seen: list[list[dict]] = []

    async def fake(model, messages, **kwargs):
        seen.append(messages)
        return await real(model, messages, mock_response=answer, **kwargs)

    monkeypatch.setattr(llm, "complete_json", fake)
    return seen


def _personal(manager) -> None:
    write_page(manager, "Health", f"# Health\n\n- {PEANUTS}\n")
    write_page(manager, "Work", "# Work\n\n- User works at Microsoft (2026-07-05)\n- User leads the Bing search team (2026-07-06)\n")


@pytest.mark.parametrize(
    "answer, why",
    [
        (ECHO, "echoed its instructions"),
        (json.dumps({"markdown": "the MEMORY.md body: ## headings and - bullets, no title"}), "echoed"),
        (json.dumps({"markdown": ""}), "empty summary"),
        (json.dumps({"markdown": "   \n\n"}), "empty summary"),
        (json.dumps({"markdown": "The user works at Microsoft, leads search and is allergic to peanuts."}),
         "no '- ' bullet"),
        (json.dumps({"markdown": "## Work\n- Works at Microsoft\n- Leads the Bing search team"}), "drops 1 fact"),
        (json.dumps({"summary": "- User is allergic to peanuts"}), "expected"),
        ("not json at all", "not valid JSON"),
    ],
)
async def test_a_bad_model_answer_never_shrinks_memory_md_below_the_offline_result(home, clock, monkeypatch,
                                                                                   answer, why):
    offline = make_manager(home, clock)
    _personal(offline)
    await promote(offline.home)
    expected = memory(offline)
    assert "allergic to peanuts" in expected

    manager = make_manager(home, clock, memory_consolidation_model="gpt-4o-mini")
    manager.layout.memory_md.write_text("# Memory\n", encoding="utf-8")
    seen = _answering(monkeypatch, answer)
    changes = await promote(manager.home)
    assert seen, "the model was asked"
    assert memory(manager) == expected
    assert len(changes.errors) == 1 and "offline summary" in changes.errors[0] and why in changes.errors[0]


async def test_a_good_model_answer_is_written_reworded(home, clock, monkeypatch):
    manager = make_manager(home, clock, memory_consolidation_model="gpt-4o-mini")
    _personal(manager)
    _answering(monkeypatch, json.dumps({"markdown": "## Health\n- Peanut allergy\n\n## Work\n"
                                                    "- Works at Microsoft\n- Leads the Bing search team"}))
    changes = await promote(manager.home)
    assert not changes.errors
    assert memory(manager) == "# Memory\n\n## Health\n- Peanut allergy\n\n## Work\n- Works at Microsoft\n- Leads the Bing search team\n"


async def test_promotion_reads_no_page_a_link_leads_to_outside_or_into_a_program_folder(manager, tmp_path):
    import os

    outside = tmp_path / "keys.md"
    outside.write_text("# Keys\n\n- User's ssh key is AAAAB3NzaC1yc2E (2026-07-02)\n", encoding="utf-8")
    (manager.layout.state_dir / "old.md").write_text("- User's old secret is walrus (2026-07-02)\n", encoding="utf-8")
    os.symlink(outside, manager.layout.notebook_dir / "3_Personal" / "Keys.md")
    os.symlink("../.state/old.md", manager.layout.notebook_dir / "3_Personal" / "Old.md")
    write_page(manager, "Health", "# Health\n\n- User is allergic to peanuts (2026-07-02)\n")
    await promote(manager.home)
    text = memory(manager)
    assert "peanuts" in text and "AAAAB3" not in text and "walrus" not in text


async def test_model_lines_that_fuse_facts_or_copy_bookkeeping_are_left_out_and_counted(home, clock, monkeypatch):
    manager = make_manager(home, clock, memory_consolidation_model="gpt-4o-mini")
    write_page(manager, "People", "# People\n\n- User's sister is Ana (2026-07-01)\n")
    write_page(manager, "Work", "# Work\n\n- User just started a new job at Airbus (2026-07-02)\n")
    write_page(manager, "Reading", "# Reading\n\n- Favourite author: Ursula K. Le Guin (2026-07-03)\n")
    seen = _answering(monkeypatch, json.dumps({"markdown": (
        "## People\n- Sister Ana: User just started a new job at Airbus\n- Sister is Ana\n\n## Work\n"
        "- Started a new job at Airbus\n\n## Reading\n- Ursula K. Le Guin (recalled 0x, latest unknown)\n"
        "- Favourite author is Ursula K. Le Guin\n- Loves hiking in the Alps")}))
    changes = await promote(manager.home)
    text = memory(manager)
    assert "Sister Ana: User" not in text and "recalled" not in text and "Alps" not in text
    assert "- Sister is Ana" in text and "- Started a new job at Airbus" in text
    assert "- Favourite author is Ursula K. Le Guin" in text
    assert len(changes.errors) == 1 and "left out 3 line(s)" in changes.errors[0]
    assert "recalled 0x" not in seen[0][-1]["content"] and "latest unknown" not in seen[0][-1]["content"]


def test_an_ongoing_project_page_takes_its_turn_before_habits_and_dates():
    from suzent_desktop.core.engines.memory_md.promotion import Candidate, round_robin

    ranked = [Candidate("User walks to work every morning", "Routines", "2026-07-03", 0, 0),
              Candidate("User's birthday is on 3 May", "Dates", "2026-07-02", 0, 1),
              Candidate("User is learning how to play the violin", "Violin", "2026-07-01", 0, 2)]
    assert [c.page for c in round_robin(ranked)] == ["Violin", "Routines", "Dates"]


async def test_memory_md_leaves_out_habits_passing_facts_wishes_and_long_lines(manager):
    write_page(manager, "Routines", "# Routines\n\n- User walks the dog along the canal every morning (2026-07-01)\n")
    write_page(manager, "Activities", "# Activities\n\n- User has been sorting old photo albums (2026-07-01)\n")
    write_page(manager, "Preferences", "# Preferences\n\n- User loves Ethiopian coffee (2026-07-02)\n"
                                       "- User wants to try a ceramics course in Ghent (2026-07-02)\n"
                                       "- User has been listening to Nina Simone records recently (2026-07-02)\n"
                                       "- User likes long train journeys through the Alps, especially the stretch "
                                       "between Chur and St. Moritz on the old Albula line, because the viaducts and "
                                       "tunnels remind them of their grandfather's model railway (2026-07-02)\n")
    write_page(manager, "Work", "# Work\n\n- User works at Airbus as a stress engineer (2026-07-03)\n")
    write_page(manager, "Violin", "# Violin\n\n- User is learning how to play the violin (2026-07-03)\n")
    await promote(manager.home)
    text = memory(manager)
    for kept in ("Ethiopian coffee", "Airbus", "violin"):
        assert kept in text
    for absent in ("canal", "photo albums", "ceramics", "Nina Simone", "Albula"):
        assert absent not in text


async def test_memory_md_holds_no_date_left_unresolved(manager):
    write_page(manager, "Activism", "# Activism\n\n- User is a member of an LGBTQ activist group since last Tues (2026-07-01)\n"
                                    "- User volunteers at the Pride centre (2026-07-01)\n")
    write_page(manager, "Health", "# Health\n\n- User has been off sugar since two weeks ago (2026-07-02)\n"
                                  "- User is allergic to peanuts (2026-07-02)\n"
                                  "- User's month has been packed with physio for a sprained ankle (2026-07-03)\n")
    await promote(manager.home)
    text = memory(manager)
    assert "Pride centre" in text and "peanuts" in text
    assert "last Tues" not in text and "weeks ago" not in text and "sprained ankle" not in text


async def test_a_life_event_stays_in_memory_md_with_the_date_it_happened(manager):
    write_page(manager, "Biscuit", "# Biscuit\n\nBiscuit is the user's puppy.\n\n"
                                   "- User adopted a puppy named Biscuit (2026-04-02) (2026-04-03)\n"
                                   "- User adopted a second puppy yesterday (2026-05-01) (2026-05-02)\n"
                                   "- User took Biscuit to the beach (2026-05-09) (2026-05-10)\n")
    await promote(manager.home)
    text = memory(manager)
    assert "- User adopted a puppy named Biscuit (2026-04-02)" in text
    assert "second puppy" not in text and "beach" not in text  # a relative word; an outing is passing


async def test_memory_md_holds_the_new_job_not_the_one_it_replaced(manager):
    from suzent_desktop.core.engines.dream.model import Batch, BatchFact
    from suzent_desktop.core.engines.dream.offline import consolidate
    from suzent_desktop.core.engines.dream.tools import VaultTools

    facts = [BatchFact(date, Fact(text, "work", ()), line) for line, (date, text) in enumerate([
        ("2026-07-01", "User works at Fabrikam as a welder"),
        ("2026-07-01", "User's manager at Fabrikam is Ilse Berg"),
        ("2026-07-02", "User runs Fabrikam's night shift rota"),
        ("2026-07-10", "User now works at Northwind as a shift lead"),
        ("2026-07-10", "User's new manager at Northwind is Tomas Roy"),
    ], start=1)]
    consolidate(Batch(dates=["2026-07-01", "2026-07-02", "2026-07-10"], facts=facts), VaultTools(manager.layout.notebook_dir), manager.embedder.embed)
    await promote(manager.home)
    text = memory(manager)
    assert "Northwind as a shift lead" in text and "Tomas Roy" in text
    for superseded in ("welder", "Ilse Berg", "night shift"):
        assert superseded not in text


async def test_memory_md_leaves_out_one_time_events_and_searches_under_way(manager):
    write_page(manager, "Work", "# Work\n\n- User works at Tailspin as an analyst (2026-07-05)\n"
                                "- User had a phone screen with Tailspin's data team (2026-07-01)\n"
                                "- User accepted an offer from Tailspin (2026-07-03)\n")
    write_page(manager, "Places", "# Places\n\n- User moved to Ghent (2026-07-06)\n"
                                  "- User is looking for a flat near the Ghent docks (2026-07-02)\n")
    write_page(manager, "People", "# People\n\n- Lena moved to Leuven for a new job (2026-07-04)\n"
                                  "- Lena's book club members voted for a Baldwin novel (2026-07-04)\n")
    write_page(manager, "Reading", "# Reading\n\n- User finished 'The Dispossessed' (2026-07-02)\n"
                                   "- User adopted a greyhound called Pip (2026-07-02)\n")
    write_page(manager, "Oboe", "# Oboe\n\n- User has also started learning the oboe (2026-07-02)\n"
                                "- User started keeping a practice diary (2026-07-03)\n")
    await promote(manager.home)
    text = memory(manager)
    for kept in ("analyst", "moved to Ghent", "Lena moved to Leuven", "greyhound", "learning the oboe",
                 "practice diary"):
        assert kept in text
    for absent in ("phone screen", "accepted an offer", "looking for a flat", "Baldwin", "Dispossessed"):
        assert absent not in text


async def test_memory_md_leaves_out_a_habit_whatever_page_holds_it(manager):
    write_page(manager, "Climbing", "# Climbing\n\n- User goes bouldering at the Rockhall twice a week (2026-07-01)\n"
                                    "- User has always been a fan of Lynn Hill (2026-07-01)\n")
    write_page(manager, "People", "# People\n\n- Lena and User play chess on Tuesdays (2026-07-02)\n"
                                  "- Lena is User's oldest friend from school (2026-07-02)\n")
    await promote(manager.home)
    text = memory(manager)
    assert "Lynn Hill" in text and "oldest friend" in text
    assert "Rockhall" not in text and "chess" not in text


async def test_memory_md_leaves_out_what_the_user_felt_or_thought(manager):
    write_page(manager, "Preferences", "# Preferences\n\n- User appreciates Nate's kind words (2026-07-01)\n"
                                       "- User really finds nature calming (2026-07-01)\n"
                                       "- User is grateful for her friends' support (2026-07-02)\n"
                                       "- User emphasizes that balance is key for success (2026-07-02)\n"
                                       "- User is too tired to cook after night shifts (2026-07-02)\n"
                                       "- User loves Ethiopian coffee (2026-07-02)\n")
    await promote(manager.home)
    text = memory(manager)
    assert "Ethiopian coffee" in text
    for absent in ("kind words", "calming", "grateful", "balance", "too tired"):
        assert absent not in text


async def test_a_page_gives_memory_md_its_best_few_facts_the_most_said_first(manager):
    from suzent_desktop.core.engines.memory_md.promotion import MAX_PER_PAGE

    foods = ("figs", "dates", "olives", "capers", "leeks", "kale", "okra")
    tastes = [f"- User loves {food} (2026-07-0{day})\n" for day, food in enumerate(foods, start=1)]
    write_page(manager, "Preferences", "# Preferences\n\n" + "".join(tastes)
               + "- User loves quinces (2026-06-01, 2026-06-10, 2026-06-20)\n")
    await promote(manager.home)
    text = memory(manager)
    assert sum(line.startswith("- User loves") for line in text.splitlines()) == MAX_PER_PAGE
    assert "quinces" in text and "okra" in text and "figs" not in text  # said most often, then the newest


async def test_memory_md_leaves_out_a_page_line_the_judge_finds_likelier_noise(manager):
    # a model's facts reach the pages unweighed by the offline judge; MEMORY.md, read every turn, weighs them
    write_page(manager, "Garden", "# Garden\n\n- User keeps bees on the roof of her building in Lyon (2026-07-01)\n"
                                  "- User's latest draft is different from her earlier work but has real potential "
                                  "(2026-07-02)\n- User has a lot of ideas that keep her going (2026-07-02)\n")
    write_page(manager, "Hobbies", "# Hobbies\n\n- User plays bass in a jazz band called The Lamplighters (2026-07-01)\n"
                                   "- User set up calls with two gallery owners and feels everything is falling "
                                   "into place (2026-07-03)\n")
    write_page(manager, "Mira", "# Mira\n\nMira is the user's sister.\n\n- Mira teaches chemistry in Oslo (2026-07-01)\n")
    await promote(manager.home)
    text = memory(manager)
    for kept in ("bees on the roof", "The Lamplighters", "Mira is the user's sister", "chemistry in Oslo"):
        assert kept in text
    for absent in ("latest draft", "a lot of ideas", "gallery owners"):
        assert absent not in text


async def test_a_fact_said_again_in_other_words_is_shown_once_and_ranks_as_said_twice(manager):
    write_page(manager, "Health", "# Health\n\n- User is allergic to penicillin (2026-03-01)\n")
    foods = ("figs", "dates", "olives", "capers", "leeks", "kale", "okra")
    write_page(manager, "Preferences", "# Preferences\n\n- User loves quinces (2026-06-01)\n"
               + "".join(f"- User loves {food} (2026-07-0{day})\n" for day, food in enumerate(foods, start=1))
               + "- User loves quinces from the market in Ghent (2026-06-10)\n")
    write_page(manager, "Hiking", "# Hiking\n\n- User is allergic to penicillin and carries a card that says so "
                                  "(2026-07-09)\n")
    write_page(manager, "Records", "# Records\n\n- User loves jazz and vinyl records (2026-07-01)\n- User loves "
                                   "listening to a jazz vinyl record by Nina Simone that she found at a flea market in "
                                   "Lyon (2026-07-02)\n")
    await promote(manager.home)
    lines = memory(manager).splitlines()
    assert "- User loves jazz and vinyl records" in lines  # a story about one record does not say it again
    assert any("Nina Simone" in line for line in lines)
    assert sum("penicillin" in line for line in lines) == 1
    penicillin = lines.index("- User is allergic to penicillin and carries a card that says so")  # says most
    assert lines[lines.index("## Health") + 1] == lines[penicillin]  # filed where an agent looks for it
    assert sum("quinces" in line for line in lines) == 1
    assert "- User loves quinces from the market in Ghent" in lines  # the oldest taste, said on two days
    assert "- User loves figs" not in lines


async def test_a_taste_the_dream_filed_on_routines_reaches_memory_md_and_a_habit_does_not(manager):
    write_page(manager, "Routines", "# Routines\n\n- User loves baking sourdough with rye flour (2026-07-01)\n"
                                    "- User enjoys restoring old bicycles with her father (2026-07-02)\n"
                                    "- User swims in the lake every morning (2026-07-02)\n")
    await promote(manager.home)
    text = memory(manager)
    assert "rye flour" in text and "old bicycles" in text
    assert "swims" not in text


async def test_memory_md_is_people_together_then_a_few_sections_by_subject_not_a_heading_per_page(manager):
    write_page(manager, "Mira", "# Mira\n\nMira is the user's sister.\n\n- Mira teaches chemistry in Oslo (2026-07-01)\n")
    write_page(manager, "Health", "# Health\n\n- User is allergic to penicillin (2026-07-01)\n")
    write_page(manager, "Preferences", "# Preferences\n\n- User loves Ethiopian coffee (2026-07-02)\n")
    write_page(manager, "Hobbies", "# Hobbies\n\n- User plays bass in a jazz band called The Lamplighters (2026-07-02)\n")
    write_page(manager, "Routines", "# Routines\n\n- User loves baking sourdough with rye flour (2026-07-03)\n")
    write_page(manager, "Cello", "# Cello\n\n- User is learning to play the cello (2026-07-03)\n")
    write_page(manager, "Work", "# Work\n\n- User now works at Hooli (2026-07-04)\n")
    write_page(manager, "Chen", "# Chen\n\n- Chen now works at Hooli (2026-07-04)\n- Chen plays the trombone (2026-07-04)\n"
                               "- User's climbing buddy Chen moved to Savannah (2026-07-04)\n")
    await promote(manager.home)
    lines = memory(manager).splitlines()
    assert [line for line in lines if line.startswith("## ")] == [  # the people, then subjects
        "## People", "## Work", "## Health", "## Projects and pastimes", "## Tastes"]
    assert lines[lines.index("## Work") + 1] == "- User now works at Hooli"  # the user's job, not Chen's again
    people = lines[lines.index("## People") + 1:lines.index("## Work") - 1]
    assert people[:2] == ["- Mira is the user's sister", "- Mira teaches chemistry in Oslo"]  # who she is, first
    assert sorted(people[2:]) == [
        "- Chen now works at Hooli", "- Chen plays the trombone", "- User's climbing buddy Chen moved to Savannah"]
    pastimes = lines[lines.index("## Projects and pastimes"):lines.index("## Tastes")]
    assert all(any(words in line for line in pastimes) for words in ("Lamplighters", "rye flour", "cello"))


async def test_many_people_leave_room_in_the_bound_for_every_health_fact(manager):
    """Each person once spent a heading and a blank line of the bound: with a dozen people, the Health
    page's later lines were cut ("User is allergic to cats" was lost to a friend's heading). The user's
    own pages now come first, all of a long Health page too; the people's facts fill what is left."""
    people = {"Ada": ("sister", "is a nurse in Leeds", "runs marathons"),
              "Bram": ("brother", "lives in Utrecht", "plays the cello"),
              "Cleo": ("daughter", "started school in Bristol", "loves dinosaurs"),
              "Dev": ("son", "studies law in Delhi", "collects vinyl records"),
              "Edda": ("mum", "grows tomatoes on her allotment", "has diabetes"),
              "Finn": ("dad", "retired from the railways", "fixes old radios"),
              "Gus": ("friend", "owns a bakery in Ghent", "climbs on Thursdays"),
              "Hana": ("cousin", "moved to Osaka", "teaches English"),
              "Ines": ("friend", "works at Airbus", "sings in a choir"),
              "Jonas": ("neighbour", "keeps bees", "drives a red Volvo"),
              "Kofi": ("friend", "coaches a football team in Accra", "is getting married in May"),
              "Lior": ("colleague", "leads the design team", "speaks Hebrew and Dutch")}
    for name, (relation, *facts) in people.items():
        bullets = "".join(f"- {name} {fact} (2026-07-0{day})\n" for day, fact in enumerate(facts, 1))
        write_page(manager, name, f"# {name}\n\n{name} is the user's {relation}.\n\n{bullets}")
    health = ["User is allergic to penicillin", "User is allergic to cats", "User has coeliac disease",
              "User has asthma and carries an inhaler", "User wears glasses for reading",
              "User has had type 1 diabetes since childhood", "User cannot eat dairy", "User is allergic to wasps",
              "User is allergic to latex"]
    write_page(manager, "Health", "# Health\n\n" + "".join(f"- {line} (2026-07-{day:02d})\n"
                                                           for day, line in enumerate(health, 1)))
    write_page(manager, "Work", "# Work\n\n- User teaches chemistry at a school in Ghent (2026-07-01)\n"
                                "- User is head of the science department (2026-07-02)\n")
    write_page(manager, "About Me", "# About Me\n\n- User grew up in Lagos (2026-07-01)\n"
                                    "- User is a vegetarian (2026-07-02)\n")
    write_page(manager, "Preferences", "# Preferences\n\n- User's favourite author is Ursula K. Le Guin (2026-07-01)\n"
                                       "- User loves Ethiopian coffee (2026-07-02)\n")
    await promote(manager.home)
    lines = memory(manager).splitlines()
    assert len(lines) <= manager.settings.memory_md_max_lines
    assert {f"- {line}" for line in health} <= set(lines)  # every health fact
    assert [line for line in lines if line.startswith("## ")][:2] == ["## About me", "## People"]
    assert not any(f"## {name}" in lines for name in people)  # one heading for all the people
    assert {f"- {name} is the user's {relation}" for name, (relation, *_) in people.items()} <= set(lines)  # who each is
    assert sum(line.startswith(tuple(f"- {name} " for name in people)) for line in lines) >= 20  # and most of them


async def test_a_line_found_in_memory_md_itself_counts_as_no_recall(home, clock):
    manager = make_manager(home, clock, memory_md_max_lines=5)
    write_page(manager, "Preferences", "# Preferences\n\n- User loves figs (2026-07-01)\n- User loves okra (2026-07-02)\n")
    for _ in range(5):  # MEMORY.md is searched like any file: a hit on it says nothing about the page's facts
        manager.recall.record([Recall("## Tastes\n- User loves figs", "core")])
    await promote(manager.home)
    lines = memory(manager).splitlines()
    assert "- User loves okra" in lines and "- User loves figs" not in lines  # the newer taste, as nothing was recalled


async def test_a_relative_the_user_never_named_stands_among_the_people_not_a_subject(manager):
    write_page(manager, "Grandpa", "# Grandpa\n\n- User's grandpa was a fisherman in Galway (2026-07-01)\n"
                                   "- User's grandpa turned 91 in June (2026-07-01)\n")
    write_page(manager, "Health", "# Health\n\n- User is allergic to penicillin (2026-07-01)\n")
    await promote(manager.home)
    lines = memory(manager).splitlines()
    under = lines[lines.index("## People") + 1:]
    under = under[:under.index("")] if "" in under else under
    assert "- User's grandpa was a fisherman in Galway" in under
    assert not any("grandpa" in line for line in lines[lines.index("## Health"):])


async def test_a_relatives_own_day_stands_among_the_people(manager):
    """"User's nan's 90th birthday is in May" is about the nan, on her page: People, not About me."""
    write_page(manager, "Nan", "# Nan\n\n- User's nan's 90th birthday is on 3 May, the family meets in Cork (2026-07-01)\n")
    write_page(manager, "About Me", "# About Me\n\n- User was born in Cork (2026-07-01)\n")
    await promote(manager.home)
    lines = memory(manager).splitlines()
    under = lines[lines.index("## People") + 1:]
    under = under[:under.index("")] if "" in under else under
    assert any("90th birthday" in line for line in under)


def test_a_title_that_names_a_time_is_no_passing_time():
    """"Yesterday" or "Tomorrow, and Tomorrow, and Tomorrow" as a title says nothing about when the fact held."""
    from suzent_desktop.core.engines.memory_md.memory_selection import passing

    assert not passing('User\'s favourite novel is "Tomorrow, and Tomorrow, and Tomorrow"')
    assert passing('User finished "Piranesi" yesterday')


async def test_the_closest_people_come_first_when_the_bound_cuts(home, clock):
    """A partner, children, parents and siblings before cousins, colleagues and in-laws: with more people
    than the bound holds, the sister-in-law once took the sister's line."""
    manager = make_manager(home, clock, memory_md_max_lines=8)
    for name, relation in (("Xavier", "sister-in-law"), ("Lior", "colleague"), ("Amara", "cousin"),
                           ("Hugo", "sister"), ("Sam", "partner"), ("Mila", "daughter")):
        write_page(manager, name, f"# {name}\n\n{name} is the user's {relation}.\n\n- {name} lives in Leeds (2026-07-01)\n")
    await promote(manager.home)
    lines = memory(manager).splitlines()
    people = [line for line in lines if line.startswith("- ") and " is the user's " in line]
    assert people[:3] == ["- Sam is the user's partner", "- Mila is the user's daughter", "- Hugo is the user's sister"]


async def test_a_person_named_without_saying_who_they_are_stays_on_their_page(manager):
    """"Max is awesome at catching frisbees": nobody the agent knows at the start of a session."""
    write_page(manager, "Max", "# Max\n\n- Max is awesome at catching frisbees in mid-air (2026-07-02)\n")
    write_page(manager, "Chen", "# Chen\n\n- User's climbing buddy Chen moved to Savannah (2026-07-02)\n"
                                "- Chen plays the trombone (2026-07-03)\n")
    await promote(manager.home)
    text = memory(manager)
    assert "frisbees" not in text
    assert "Chen plays the trombone" in text and "climbing buddy Chen" in text
