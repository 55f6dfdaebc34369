"""The offline consolidator: pages by category, merging, duplicates, supersession, provenance, index."""

from __future__ import annotations

import pytest
from dream_support import make_manager, page

from suzent_desktop.core.engines.dream.model import Batch, BatchFact
from suzent_desktop.core.engines.dream.offline import INDEX_END, INDEX_START, consolidate, page_title_for
from suzent_desktop.core.engines.dream.tools import VaultTools
from suzent_desktop.core.files.records.log_grammar import Fact
from suzent_desktop.core.vault.facts.fact_pages import (
    NEAR_DUPLICATE_THRESHOLD,
    PageDoc,
    dup_norm,
    may_be_same_fact,
    subject_value,
)


@pytest.fixture
def manager(home, clock):
    return make_manager(home, clock)


def batch(*items: tuple[str, str, str] | tuple[str, str, str, tuple[str, ...]]) -> Batch:
    facts = []
    for line, item in enumerate(items, start=1):
        date, category, text, *rest = item
        facts.append(BatchFact(date, Fact(text, category, tuple(rest[0]) if rest else ()), line))
    return Batch(dates=sorted({f.date for f in facts}), facts=facts)


def run(manager, b: Batch):
    tools = VaultTools(manager.layout.notebook_dir)
    return consolidate(b, tools, manager.embedder.embed), tools


def test_groups_facts_into_personal_pages_with_source_dates(manager):
    report, tools = run(manager, batch(
        ("2026-07-01", "preference", "User prefers compact dashboards"),
        ("2026-07-01", "work", "User works at Contoso"),
        ("2026-07-02", "general", "User walks the dog before breakfast", ("routine",)),
        ("2026-07-02", "hobby", "User builds model railways"),
    ))
    assert "- User prefers compact dashboards (2026-07-01)" in page(manager, "3_Personal/Preferences.md")
    assert "- User works at Contoso (2026-07-01)" in page(manager, "3_Personal/Work.md")
    assert "- User walks the dog before breakfast (2026-07-02)" in page(manager, "3_Personal/Routines.md")
    assert "User builds model railways" in page(manager, "3_Personal/Hobbies.md")
    assert set(report.pages_written) >= {"3_Personal/Preferences.md", "3_Personal/Work.md"}
    hub = page(manager, "3_Personal/About Me.md")
    assert "[[Work]]" in hub and "[[Preferences]]" in hub
    assert "[[About Me]]" in page(manager, "3_Personal/Work.md")
    assert "4 facts" in report.summary and len(report.summary) <= 600


def test_exact_and_near_duplicates_merge_into_one_bullet(manager):
    run(manager, batch(
        ("2026-07-01", "health", "User's dentist is Dr. Smith"),
        ("2026-07-02", "health", "user's dentist is  Dr. Smith."),
        ("2026-07-03", "health", "The user's dentist is Dr Smith"),
        ("2026-07-03", "preference", "User likes tea"),
        ("2026-07-03", "preference", "User likes coffee"),
    ))
    health = page(manager, "3_Personal/Health.md")
    assert health.count("dentist") == 1
    assert "- User's dentist is Dr. Smith (2026-07-01, 2026-07-02, 2026-07-03)" in health
    prefs = page(manager, "3_Personal/Preferences.md")
    assert "User likes tea" in prefs and "User likes coffee" in prefs


def test_later_value_supersedes_and_old_one_moves_to_history(manager):
    run(manager, batch(("2026-07-01", "work", "User works at Contoso")))
    run(manager, batch(("2026-07-05", "work", "User now works at Microsoft")))
    work = page(manager, "3_Personal/Work.md")
    current, history = work.split("## History")
    assert "- User now works at Microsoft (2026-07-05)" in current and "Contoso" not in current
    assert "- ~~User works at Contoso~~ (2026-07-01, until 2026-07-05)" in history
    doc = PageDoc.parse(work)
    assert [b.text for b in doc.current_bullets()] == ["User now works at Microsoft"]


def test_merges_into_a_hand_written_page_keeping_its_text(manager):
    rel = "3_Personal/Places.md"
    hand = "---\ntags: [me]\n---\n# Places\n\nWhere I have lived. *My notes.*\n\n- User lives in Leeds (2026-06-01)\n"
    (manager.layout.notebook_dir / rel).write_text(hand, encoding="utf-8")
    run(manager, batch(("2026-07-03", "place", "User moved to Berlin"), ("2026-07-03", "place", "User loves Lisbon")))
    text = page(manager, rel)
    assert text.startswith("---\ntags: [me]\n---\n# Places\n\nWhere I have lived. *My notes.*\n")
    assert "- User moved to Berlin (2026-07-03)" in text
    assert "~~User lives in Leeds~~ (2026-06-01, until 2026-07-03)" in text
    assert text.count("# Places") == 1


def test_older_fact_than_a_hand_written_newer_value_goes_to_history(manager):
    rel = "3_Personal/Work.md"
    (manager.layout.notebook_dir / rel).write_text("# Work\n\n- User works at Fabrikam (2026-07-10)\n", encoding="utf-8")
    run(manager, batch(("2026-07-02", "work", "User works at Contoso")))
    text = page(manager, rel)
    assert "- User works at Fabrikam (2026-07-10)" in text.split("## History")[0]
    assert "~~User works at Contoso~~ (2026-07-02, until 2026-07-10)" in text


def test_reconsolidating_the_same_batch_changes_nothing(manager):
    b = batch(("2026-07-01", "work", "User works at Contoso"), ("2026-07-01", "preference", "User likes tea"))
    run(manager, b)
    snapshot = {p: p.read_bytes() for p in manager.notebook.content_pages()}
    index = manager.layout.index_md.read_bytes()
    report, tools = run(manager, b)
    assert {p: p.read_bytes() for p in manager.notebook.content_pages()} == snapshot
    assert manager.layout.index_md.read_bytes() == index
    assert tools.written == set() and report.pages_written == []


def test_index_md_is_updated_between_markers_only(manager):
    index = manager.layout.index_md
    index.write_text(f"# Index\n\nMy intro.\n\n{INDEX_START}\nold\n{INDEX_END}\n\nMy footer.\n", encoding="utf-8")
    run(manager, batch(("2026-07-01", "work", "User works at Contoso")))
    text = index.read_text(encoding="utf-8")
    assert text.startswith("# Index\n\nMy intro.\n\n") and text.endswith(f"{INDEX_END}\n\nMy footer.\n")
    inside = text.split(INDEX_START)[1].split(INDEX_END)[0]
    assert "[[Work]]" in inside and "old" not in inside


def test_someone_elses_relations_do_not_supersede_the_users(manager):
    run(manager, batch(
        ("2026-07-01", "work", "User works at Contoso"),
        ("2026-07-02", "people", "User's sister works at Initech"),
    ))
    assert "- User works at Contoso (2026-07-01)" in page(manager, "3_Personal/Work.md").split("## History")[0]
    assert "User's sister works at Initech" in page(manager, "3_Personal/Sister.md")


def test_joining_a_club_does_not_replace_a_club_joined_before(manager):
    """Joining a forum and then a travel club are two facts, not a job changed: neither goes to History."""
    run(manager, batch(("2026-06-15", "hobby", "User joined a fantasy literature forum")))
    run(manager, batch(("2026-12-06", "hobby", "User joined a travel club")))
    hobbies = page(manager, "3_Personal/Hobbies.md")
    assert "## History" not in hobbies and "~~" not in hobbies
    assert "- User joined a fantasy literature forum (2026-06-15)" in hobbies
    assert "- User joined a travel club (2026-12-06)" in hobbies
    assert subject_value("User joined Fabrikam as a welder").key == subject_value("User works at Contoso").key


def test_a_move_said_with_a_word_of_time_replaces_the_old_home(manager):
    run(manager, batch(("2026-03-02", "general", "User lives in Savannah, near the old harbour")))
    run(manager, batch(("2026-05-21", "general", "User finally moved to Graz")))
    current, history = page(manager, "3_Personal/Places.md").split("## History")
    assert "- User finally moved to Graz (2026-05-21)" in current and "Savannah" not in current
    assert "~~User lives in Savannah, near the old harbour~~ (2026-03-02, until 2026-05-21)" in history


def test_text_rules():
    assert dup_norm("User now works at  Microsoft.") == dup_norm("user works at microsoft")
    assert subject_value("User now works at Microsoft").key == subject_value("The user works for Contoso").key
    assert subject_value("User moved to Berlin").key == subject_value("User lives in Leeds").key
    assert subject_value("User likes tea") is None
    assert not may_be_same_fact("User likes tea", "User likes coffee")
    assert not may_be_same_fact("User has 2 kids", "User has 3 kids")
    assert not may_be_same_fact("User likes jazz", "User does not like jazz")
    assert may_be_same_fact("User's dentist is Dr. Smith", "The user's dentist is Dr Smith")
    assert page_title_for("general", ("#career",), "User got promoted") == "Work"
    assert page_title_for("food", (), "User likes tea") == "Preferences"
    assert page_title_for("general", (), "User is Marisol") == "About Me"  # who the user is
    assert page_title_for("preference", (), "User prefers to be called Alex") == "About Me"  # what they asked to be called
    assert page_title_for("person", (), "User's sister loves gardening") == "Sister"  # a close relative, unnamed
    assert page_title_for("person", (), "User's kids hate mushrooms") == "Kids"
    assert page_title_for("person", (), "User's sister Ana moved to Bath") == "Ana"
    assert page_title_for("event", (), "User drives a 2012 Honda Civic") == "About Me"  # no catch-all page
    assert 0.85 < NEAR_DUPLICATE_THRESHOLD < 1.0


def test_new_fact_is_filed_in_the_section_of_its_most_similar_fact(manager):
    rel = "3_Personal/Preferences.md"
    (manager.layout.notebook_dir / rel).write_text(
        "# Preferences\n\n## Food and drink\n- User drinks oat-milk flat whites (2026-06-01)\n\n"
        "## Travel\n- User prefers window seats on flights (2026-06-02)\n", encoding="utf-8")
    run(manager, batch(("2026-07-01", "preference", "User drinks green tea with oat-milk in the afternoon"),
                       ("2026-07-01", "preference", "User prefers aisle seats on long flights")))
    text = page(manager, rel)
    food, travel = text.split("## Travel")
    assert "green tea" in food and "aisle seats" in travel


def test_a_symlink_out_of_the_vault_is_ignored_not_fatal(manager, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("- User works at Outside Corp (2026-06-01)\n", encoding="utf-8")
    (manager.layout.notebook_dir / "3_Personal" / "Linked.md").symlink_to(outside)
    report, _tools = run(manager, batch(("2026-07-01", "work", "User works at Contoso")))
    assert "3_Personal/Work.md" in report.pages_written
    assert outside.read_text(encoding="utf-8") == "- User works at Outside Corp (2026-06-01)\n"


def test_a_shorter_mention_of_the_same_value_is_not_a_change(manager):
    run(manager, batch(("2026-07-01", "work", "User just started at Contoso as a data engineer"),
                       ("2026-07-03", "work", "User works at Contoso"),
                       ("2026-07-09", "work", "User now works at Globex")))
    work = page(manager, "3_Personal/Work.md")
    current, history = work.split("## History")
    assert "- User now works at Globex (2026-07-09)" in current
    assert "~~User just started at Contoso as a data engineer~~ (2026-07-01, 2026-07-03, until 2026-07-09)" in history


def test_a_page_that_is_not_utf8_is_never_rewritten_left_out_and_named(manager):
    broken = manager.layout.notebook_dir / "3_Personal" / "Preferences.md"
    broken.parent.mkdir(parents=True, exist_ok=True)
    original = b"# Preferences\n\n- User likes Caf\xe9 au lait (2026-06-01)\n"
    broken.write_bytes(original)
    report, _tools = run(manager, batch(("2026-07-01", "preference", "User prefers compact dashboards")))
    assert broken.read_bytes() == original  # left out of the candidates: filed beside it, and named
    assert "3_Personal/Preferences (Personal).md" in report.pages_written
    assert "Left out (cannot be read): 3_Personal/Preferences.md" in report.summary
    report, _tools = run(manager, batch(("2026-07-01", "work", "User works at Contoso")))
    assert report.pages_written and broken.read_bytes() == original  # other pages still consolidate


def test_a_new_page_never_takes_a_name_the_users_links_already_answer_to(manager):
    from suzent_desktop.core.files.language.markdown import links
    from suzent_desktop.core.vault.links import VaultIndex

    root = manager.layout.notebook_dir
    (root / "Areas").mkdir()
    (root / "Areas" / "Work.md").write_text("# Work\n\nMy own work page.\n", encoding="utf-8")
    (root / "0_Inbox" / "Daily.md").write_text("Busy day at [[Work|job]].\n", encoding="utf-8")
    run(manager, batch(("2026-07-01", "work", "User works at Contoso")))
    run(manager, batch(("2026-07-02", "work", "User works at Contoso as a data engineer")))
    assert not (root / "3_Personal" / "Work.md").exists()
    assert "User works at Contoso" in page(manager, "3_Personal/Work (Personal).md")
    index = VaultIndex.scan(root)
    (link,) = links((root / "0_Inbox" / "Daily.md").read_text(encoding="utf-8"))
    assert index.resolve_link(link, root / "0_Inbox" / "Daily.md") == root / "Areas" / "Work.md"
    catalogue = manager.layout.index_md.read_text(encoding="utf-8")
    assert "[[Work (Personal)]]" in catalogue and "[[Areas/Work|Work]]" not in catalogue  # unique names
    assert catalogue.count("[[Work]]") == 1 and "## Vault root" not in catalogue


def test_index_catalogue_names_duplicates_unambiguously_and_lists_root_pages(manager):
    from suzent_desktop.core.engines.dream.offline import render_index

    root = manager.layout.notebook_dir
    for rel in ("1_Projects/Plan.md", "2_Wiki/Plan.md", "Loose.md"):
        (root / rel).write_text("x", encoding="utf-8")
    text = render_index("# Index\n", VaultTools(root))
    assert "[[1_Projects/Plan|Plan]]" in text and "[[2_Wiki/Plan|Plan]]" in text
    assert "## Vault root" in text and "[[Loose]]" in text
    assert "[[log]]" not in text and "[[index]]" not in text


def test_engines_may_not_create_a_page_that_captures_existing_links(manager):
    from suzent_desktop.core.engines.dream.tools import VaultAccessError

    root = manager.layout.notebook_dir
    (root / "Areas").mkdir()
    (root / "Areas" / "Work.md").write_text("# Work\n", encoding="utf-8")
    tools = VaultTools(root)
    with pytest.raises(VaultAccessError, match=r"Areas/Work\.md already answers to \[\[Work\]\]"):
        tools.write("3_Personal/Work.md", "# Work\n")
    tools.write("Areas/Work.md", "# Work\n\nEdited.\n")  # the existing page stays writable
    tools.write("3_Personal/Work (Personal).md", "# Work\n")


def test_the_offline_engine_stops_as_soon_as_its_run_is_stopped(tmp_path):
    """A timed-out run's worker thread must not go on merging facts (nor keep the process alive)."""
    from suzent_desktop.core.engines.dream.model import Batch, BatchFact
    from suzent_desktop.core.engines.dream.offline import consolidate
    from suzent_desktop.core.engines.dream.tools import ToolsClosed, VaultTools
    from suzent_desktop.core.files.records.log_grammar import Fact

    root = tmp_path / "vault"
    (root / "3_Personal").mkdir(parents=True)
    tools = VaultTools(root)
    tools.close()
    batch = Batch(["2026-07-01"], [BatchFact("2026-07-01", Fact("User likes tea"), 5)])
    with pytest.raises(ToolsClosed):
        consolidate(batch, tools, None)
    assert list((root / "3_Personal").iterdir()) == []


# -- pages by subject --------------------------------------------------------------------------
def test_facts_are_filed_by_subject_as_a_person_would_keep_them(manager):
    run(manager, batch(
        ("2026-07-01", "people", "User's sister Ana lives in Porto"),
        ("2026-07-02", "event", "User went hiking with Ana in the Peneda mountains last Saturday (2026-06-27)"),
        ("2026-07-03", "plan", "User went to a pottery class in Lisbon yesterday (2026-07-02)"),
        ("2026-07-03", "plan", "User plans to visit Kyoto next spring"),
        ("2026-07-04", "identity", "User's name is Joanna"),
        ("2026-07-04", "general", "User loves playing songs on the piano"),
    ))
    ana = page(manager, "3_Personal/Ana.md")
    assert ana.split("\n")[2] == "Ana is the user's sister."  # who she is, on the first line
    assert "- User's sister Ana lives in Porto (2026-07-01)" in ana
    timeline = page(manager, "3_Personal/Timeline.md")
    assert "- User went hiking with [[Ana]] in the Peneda mountains last Saturday (2026-06-27) (2026-07-02)" in timeline
    assert "pottery" in timeline and "pottery" not in page(manager, "3_Personal/Plans.md")  # past, not a plan
    assert "Kyoto" in page(manager, "3_Personal/Plans.md")
    hub = page(manager, "3_Personal/About Me.md")
    assert hub.index("- User's name is Joanna") < hub.index("- [[Ana]]")  # identity first, then the pages
    personal = manager.home.layout.notebook_dir / "3_Personal"
    taste_pages = [p for p in ("Preferences", "Hobbies", "Routines") if (personal / f"{p}.md").exists()]
    assert any("piano" in page(manager, f"3_Personal/{p}.md") for p in taste_pages)  # a taste or pastime, not General
    assert not (personal / "General.md").exists()
    for name in ("Ana", "Timeline", "Plans", *taste_pages):
        assert "consolidated from the daily logs" not in page(manager, f"3_Personal/{name}.md")


def test_a_fact_lands_on_its_subjects_page_not_on_the_place_or_team_it_names(manager):
    run(manager, batch(
        ("2026-07-01", "general", "User is learning Portuguese in Porto"),
        ("2026-07-02", "health", "User is allergic to shellfish, found out in Porto"),
        ("2026-07-03", "general", "User is leading the Search team"),
        ("2026-07-04", "work", "User was promoted to principal engineer on the Search team"),
    ))
    assert "shellfish" in page(manager, "3_Personal/Health.md")
    assert "promoted" in page(manager, "3_Personal/Work.md")
    pages = {p.stem: p.read_text(encoding="utf-8") for p in (manager.layout.notebook_dir / "3_Personal").glob("*.md")}
    assert [name for name, text in pages.items() if "shellfish" in text or "promoted" in text] == ["Health", "Work"]


def test_a_possessive_after_in_names_no_place_page(manager):
    run(manager, batch(
        ("2026-07-01", "general", "User asked about the growth in Priya's team during training"),
        ("2026-07-02", "general", "User showed interest in Oskar's controller accessories for gaming"),
    ))
    names = {p.stem for p in (manager.layout.notebook_dir / "3_Personal").glob("*.md")}
    assert not {"Priya's", "Oskar's"} & names, names


def test_each_person_the_user_names_gets_a_page_not_one_shared_people_page(manager):
    run(manager, batch(
        ("2026-07-02", "people", "User's mum was diagnosed with diabetes"),
        ("2026-07-03", "event", "User adopted a puppy named biscuit (2026-07-02)"),
        ("2026-07-04", "general", "User's dad restores old motorbikes"),
        ("2026-07-05", "event", "User adopted a kitten named after their aunt (2026-07-05)"),
        ("2026-07-06", "event", "User rescued a greyhound called Pip last weekend (weekend of 4 July 2026)"),
        ("2026-07-07", "hobby", "User joined a club called Chess Masters"),  # a club joined is no one of the user's
    ))
    mum = page(manager, "3_Personal/Mum.md")
    assert mum.split("\n")[2] == "[[About Me]]" and "diabetes" in mum  # no intro that says nothing
    assert page(manager, "3_Personal/Biscuit.md").split("\n")[2] == "Biscuit is the user's puppy."
    assert "motorbikes" in page(manager, "3_Personal/Dad.md")
    assert page(manager, "3_Personal/Pip.md").split("\n")[2] == "Pip is the user's greyhound."
    assert not (manager.layout.notebook_dir / "3_Personal" / "Chess.md").exists()
    assert not (manager.layout.notebook_dir / "3_Personal" / "People.md").exists()
    assert not (manager.layout.notebook_dir / "3_Personal" / "After.md").exists()


def test_a_feeling_or_a_view_is_no_routine(manager):
    run(manager, batch(
        ("2026-07-01", "general", "User appreciates Nate's kind words"),
        ("2026-07-02", "general", "User swims twice a week"),
        ("2026-07-03", "general", "User finds the sea calming"),
        ("2026-07-04", "general", "User donates to an animal shelter"),
    ))
    routines = page(manager, "3_Personal/Routines.md")
    assert "swims" in routines and "donates" in routines
    assert "appreciates" not in routines and "calming" not in routines


def test_a_person_named_by_relation_gets_their_page(manager):
    run(manager, batch(("2026-07-01", "people", "User's sister is Ana"), ("2026-07-02", "work", "User works at Contoso")))
    assert page(manager, "3_Personal/Ana.md").split("\n")[2] == "Ana is the user's sister."
    assert "User works at Contoso" in page(manager, "3_Personal/Work.md")


def test_an_ongoing_activity_and_a_place_get_pages_linked_from_the_hub_and_the_timeline(manager):
    run(manager, batch(
        ("2026-07-01", "general", "User is learning how to play the violin"),
        ("2026-07-02", "preference", "User loves playing sonatas on the violin"),
        ("2026-07-03", "event", "User played the violin at a recital in Braga last Saturday (2026-06-27)"),
        ("2026-07-04", "general", "User runs a dance studio in the old town"),
        ("2026-07-05", "event", "User went to Lisbon with a cousin last weekend (week of 2026-06-29)"),
        ("2026-07-06", "general", "Lisbon is on User's list of places to live one day"),
    ))
    violin = page(manager, "3_Personal/Violin.md")
    assert "- User is learning how to play the violin (2026-07-01)" in violin
    assert "sonatas" in violin  # a later fact that names the activity joins its page
    studio = page(manager, "3_Personal/Dance studio.md")
    assert studio.startswith("# Dance studio\n\n[[About Me]]") and "- User runs a dance studio in the old town" in studio
    assert "- Lisbon is on User's list of places to live one day (2026-07-06)" in page(manager, "3_Personal/Lisbon.md")
    timeline = page(manager, "3_Personal/Timeline.md")
    assert "User played the [[Violin|violin]] at a recital" in timeline  # the reader's words, linked
    assert "User went to [[Lisbon]] with a cousin" in timeline  # linked though its page came later in the run
    assert "recital" not in violin  # a past event stays on the Timeline
    hub = page(manager, "3_Personal/About Me.md")
    for name in ("Violin", "Dance studio", "Lisbon"):
        assert f"[[{name}]]" in hub


def test_an_activity_named_by_part_of_an_existing_page_name_joins_that_page(manager):
    run(manager, batch(
        ("2026-07-01", "general", "User is writing a movie script about sailors"),
        ("2026-07-09", "general", "User is filming the movie with a handheld camera"),
    ))
    assert "handheld camera" in page(manager, "3_Personal/Movie script.md")
    assert not (manager.layout.notebook_dir / "3_Personal" / "Movie.md").exists()


def test_a_fact_about_someone_else_is_not_filed_on_a_place_or_activity_page(manager):
    run(manager, batch(
        ("2026-07-01", "general", "User is learning how to play the violin"),
        ("2026-07-02", "people", "Anna lives in Porto"),
        ("2026-07-03", "people", "Anna plays the violin in an orchestra"),
    ))
    assert not (manager.layout.notebook_dir / "3_Personal" / "Porto.md").exists()
    assert "Anna" not in page(manager, "3_Personal/Violin.md")


def test_a_later_run_files_a_fact_on_the_activity_page_it_names(manager):
    run(manager, batch(("2026-07-01", "general", "User is learning how to play the violin")))
    run(manager, batch(("2026-07-08", "general", "User practises the violin every morning before work")))
    assert "every morning" in page(manager, "3_Personal/Violin.md")
    assert not (manager.layout.notebook_dir / "3_Personal" / "Routines.md").exists()


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("User is learning German now", "German"),
        ("User has also started learning how to play the piano", "Piano"),
        ("User is writing another movie script", "Movie script"),
        ("User is going through the adoption process", "Adoption"),
        ("User is painting again", "Painting"),
        ("User has been wanting to visit NYC", "NYC"),
        ("User is working on some projects", None),  # nothing to name a page by
        ("User is going to the gym on Monday", None),
        ("User went to work on Friday", None),
        ("User sent a long letter to Mirela", None),  # a person, not a place
        ("User is off to Ireland for a semester", "Ireland"),
        ("User flew back from Osaka", "Osaka"),
        ("User has been studying Roman history recently", "Roman history"),  # a time word names nothing
        ("User is currently rehearsing for a big audition", None),  # "rehearsing for …" is no activity name
        ("User has been writing about old lighthouses", "Writing"),  # writing is the activity
        ("User has been learning to knit", "Knitting"),
        ("User has been learning to bake", "Baking"),
        ("User has been practising playing the cello", "Cello"),
        ("User is still figuring out the details", None),  # a verb's particle names no page
        ("User owns a basketball signed by his favourite player", "Basketball"),
        ("User is filming her own movie based on a road-trip script", "Movie"),
        ("User has been revising and perfecting a recipe for her family", "Recipe"),  # a noun, not "Revising"
    ],
)
def test_a_topic_is_named_by_what_the_fact_is_about(text, name):
    from suzent_desktop.core.engines.dream.placement.topics import topic_of

    topic = topic_of(text)
    assert (topic.name if topic else None) == name


def test_a_workplace_is_filed_with_work_not_as_a_place_page(manager):
    run(manager, batch(
        ("2026-07-01", "work", "User works at Fabrikam as a welder"),
        ("2026-07-02", "work", "User had a safety briefing at Fabrikam"),
        ("2026-07-03", "work", "User had a second interview at Northwind"),  # an employer named only later
        ("2026-07-05", "work", "User now works at Northwind as a shift lead"),
    ))
    personal = manager.layout.notebook_dir / "3_Personal"
    assert not (personal / "Fabrikam.md").exists() and not (personal / "Northwind.md").exists()
    work = page(manager, "3_Personal/Work.md")
    assert "safety briefing at Fabrikam" in work and "second interview at Northwind" in work


def test_a_topic_whose_name_another_page_holds_is_linked_to_not_duplicated(manager):
    root = manager.layout.notebook_dir
    (root / "2_Wiki").mkdir(exist_ok=True)
    (root / "2_Wiki" / "Lisbon.md").write_text("# Lisbon\n\nNotes on the city.\n", encoding="utf-8")
    (root / "2_Wiki" / "Pottery.md").write_text("# Pottery\n\nGlazes and kilns.\n", encoding="utf-8")
    run(manager, batch(
        ("2026-07-01", "place", "User is looking for a flat in Lisbon"),
        ("2026-07-02", "hobby", "User is learning pottery"),
    ))
    personal = root / "3_Personal"
    assert not list(personal.glob("Lisbon*.md")) and not list(personal.glob("Pottery*.md"))
    assert "- User is looking for a flat in [[Lisbon]] (2026-07-01)" in page(manager, "3_Personal/Places.md")
    assert "- User is learning [[Pottery|pottery]] (2026-07-02)" in page(manager, "3_Personal/Hobbies.md")


def test_a_new_manager_supersedes_the_old_one(manager):
    run(manager, batch(
        ("2026-07-01", "work", "User's manager at Fabrikam is Ilse Berg"),
        ("2026-07-09", "work", "User's new manager at Northwind is Tomas Roy"),
    ))
    doc = PageDoc.parse(page(manager, "3_Personal/Work.md"))
    assert [b.text for b in doc.current_bullets()] == ["User's new manager at Northwind is Tomas Roy"]
    assert "~~User's manager at Fabrikam is Ilse Berg~~ (2026-07-01, until 2026-07-09)" in page(
        manager, "3_Personal/Work.md")


def test_the_facts_of_a_job_end_with_the_job(manager):
    run(manager, batch(
        ("2026-07-01", "work", "User works at Fabrikam as a welder"),
        ("2026-07-02", "work", "User runs Fabrikam's night shift rota"),
        ("2026-07-03", "work", "User had a second interview at Northwind"),
        ("2026-07-10", "work", "User now works at Northwind as a shift lead"),
        ("2026-07-12", "work", "User still meets Fabrikam's welders for darts on Fridays"),  # after the change
    ))
    text = page(manager, "3_Personal/Work.md")
    current = [b.text for b in PageDoc.parse(text).current_bullets()]
    assert "User runs Fabrikam's night shift rota" not in current
    assert "~~User runs Fabrikam's night shift rota~~ (2026-07-02, until 2026-07-10)" in text
    assert "User had a second interview at Northwind" in current  # names the new employer
    assert "User still meets Fabrikam's welders for darts on Fridays" in current


@pytest.mark.parametrize(("old", "side", "new"), [
    ("User works as a nurse at St Mary's hospital in Leeds", "User runs St Mary's book club",
     "User is now a UX designer at a startup called Brightpath"),
    ("User works at Contoso as a data engineer", "User runs Contoso's book club", "User is now a product manager at Fabrikam"),
    ("User is now a barista at Lantern Coffee", "User runs the Lantern Coffee book club", "User works at Northwind"),
])
def test_a_new_job_said_any_way_ends_the_old_one(manager, old, side, new):
    """A job is said as where ("works at"), as what ("works as") or as what the user now is: a new one
    said another way than the old still replaces it, and the old job's own facts end with it."""
    run(manager, batch(("2026-07-01", "work", old), ("2026-07-02", "work", side), ("2026-07-10", "work", new)))
    text = page(manager, "3_Personal/Work.md")
    assert [b.text for b in PageDoc.parse(text).current_bullets()] == [new]
    assert f"~~{old}~~ (2026-07-01, until 2026-07-10)" in text
    assert f"~~{side}~~ (2026-07-02, until 2026-07-10)" in text


def test_what_the_user_now_is_without_a_workplace_is_no_job(manager):
    run(manager, batch(
        ("2026-07-01", "work", "User works at Contoso as a data engineer"),
        ("2026-07-10", "preference", "User is now a vegan"),
        ("2026-07-11", "hobby", "User has become a fan of Dutch jazz"),
    ))
    assert [b.text for b in PageDoc.parse(page(manager, "3_Personal/Work.md")).current_bullets()] == [
        "User works at Contoso as a data engineer"]


def test_on_a_page_kept_by_person_a_fact_goes_to_its_persons_section(manager):
    (manager.layout.notebook_dir / "3_Personal" / "People.md").write_text(
        "# People\n\n## Lucia\n- Lucia is User's cousin from Bari (2026-07-01)\n\n"
        "## Tariq\n- Tariq is User's running buddy (2026-07-01)\n\nSee also [[Dates]].\n", encoding="utf-8")
    run(manager, batch(
        ("2026-07-03", "people", "Joaquim Sousa lent User a road bike for the summer"),
        ("2026-07-04", "people", "Lucia adopted a greyhound called Pip"),
    ))
    text = page(manager, "3_Personal/People.md")
    lucia, tariq, joaquim = (text.index(f"## {name}") for name in ("Lucia", "Tariq", "Joaquim Sousa"))
    assert lucia < text.index("greyhound called Pip") < tariq  # a known person's fact joins their section
    assert tariq < joaquim < text.index("lent User a road bike") < text.index("See also [[Dates]]")


def test_a_new_bullet_links_the_pages_the_vault_keeps_elsewhere_by_name(manager):
    root = manager.layout.notebook_dir
    (root / "1_Projects").mkdir(exist_ok=True)
    (root / "1_Projects" / "Harbour Choir.md").write_text("# Harbour Choir\n\nRehearsal plan.\n", encoding="utf-8")
    (root / "1_Projects" / "Budget.md").write_text("# Budget\n", encoding="utf-8")  # a plain word: no link
    run(manager, batch(
        ("2026-07-01", "project", "Harbour Choir has 30 singers now"),
        ("2026-07-02", "project", "User keeps the Harbour Choir budget in a spreadsheet"),
    ))
    text = page(manager, "3_Personal/Projects.md")
    assert "- [[Harbour Choir]] has 30 singers now (2026-07-01)" in text
    assert "- User keeps the [[Harbour Choir]] budget in a spreadsheet (2026-07-02)" in text
    assert "[[Budget]]" not in text


def test_a_fact_joins_the_section_its_words_or_tags_name(manager):
    (manager.layout.notebook_dir / "3_Personal" / "Preferences.md").write_text(
        "# Preferences\n\n## Music\n- User prefers jazz records with a warm sound (2026-07-01)\n\n"
        "## Food and drink\n- User eats porridge for breakfast (2026-07-01)\n\n"
        "## Travel\n- User prefers aisle seats (2026-07-01)\n", encoding="utf-8")
    run(manager, batch(
        ("2026-07-03", "preference", "User prefers to drink warm milk with honey"),
        ("2026-07-04", "preference", "User likes small towns by the sea", ("travel",)),
    ))
    text = page(manager, "3_Personal/Preferences.md")
    assert text.index("## Food and drink") < text.index("warm milk with honey") < text.index("## Travel")
    assert text.index("## Travel") < text.index("small towns by the sea")


def test_a_plan_said_again_with_a_change_replaces_the_old_plan(manager):
    run(manager, batch(
        ("2026-07-01", "plan", "User plans to visit Kyoto with Mei in May"),
        ("2026-07-02", "plan", "User plans to paint the kitchen in May"),
        ("2026-07-09", "plan", "User still plans to visit Kyoto in May, now with Hana"),
    ))
    text = page(manager, "3_Personal/Plans.md")
    current = [b.text for b in PageDoc.parse(text).current_bullets()]
    assert "User plans to paint the kitchen in May" in current
    assert any("now with Hana" in line for line in current)
    assert "~~User plans to visit Kyoto with Mei in May~~ (2026-07-01, until 2026-07-09)" in text


def test_a_plan_that_came_true_leaves_the_current_plans(manager):
    run(manager, batch(
        ("2026-07-01", "plan", "User plans to visit Kyoto with Mei in May"),
        ("2026-07-02", "plan", "User moves from Leeds to Hull at the end of the month"),
        ("2026-07-02", "plan", "User plans to visit Osaka in the autumn"),
        ("2026-07-20", "place", "User moved to Hull"),
        ("2026-07-21", "event", "User visited Kyoto with Mei and loved the temples"),
    ))
    text = page(manager, "3_Personal/Plans.md")
    current = [b.text for b in PageDoc.parse(text).current_bullets()]
    assert current == ["User plans to visit Osaka in the autumn"]
    assert "~~User moves from Leeds to Hull at the end of the month~~ (2026-07-02, until 2026-07-20)" in text
    assert "~~User plans to visit Kyoto with Mei in May~~ (2026-07-01, until 2026-07-21)" in text


def test_a_plan_ends_with_its_own_trip_not_another_on_the_same_month(manager):
    """Any past form ends a plan ("drove"), and the day the capture resolved is no shared name: a flight
    to Rome on 19 July is not the flight to Oslo planned for 15 July."""
    run(manager, batch(
        ("2026-07-14", "plan", "User will fly to Oslo tomorrow (15 July 2026)"),
        ("2026-07-14", "plan", "User plans to drive to Tartu with Mei"),
        ("2026-07-20", "event", "User flew to Rome on Sunday (19 July 2026)"),
        ("2026-07-21", "event", "User drove to Tartu with Mei and saw the river"),
    ))
    text = page(manager, "3_Personal/Plans.md")
    assert [b.text for b in PageDoc.parse(text).current_bullets()] == ["User will fly to Oslo tomorrow (15 July 2026)"]
    assert "~~User plans to drive to Tartu with Mei~~ (2026-07-14, until 2026-07-21)" in text


def test_a_search_ends_when_the_user_finds_what_they_looked_for(manager):
    run(manager, batch(
        ("2026-07-01", "place", "User is looking for a flat in Porto"),
        ("2026-07-01", "general", "User is looking for a second-hand road bike"),
        ("2026-07-04", "place", "User viewed a flat in Porto's old town"),  # still looking
        ("2026-07-10", "place", "User signed a lease for a flat in Porto"),
    ))
    text = page(manager, "3_Personal/Porto.md")
    current = [b.text for b in PageDoc.parse(text).current_bullets()]
    assert "User is looking for a flat in Porto" not in current
    assert "~~User is looking for a flat in Porto~~ (2026-07-01, until 2026-07-10)" in text
    assert "\n\n\n" not in text  # the page's first current bullet after its History starts: one blank line
    personal = manager.layout.notebook_dir / "3_Personal"
    assert any("road bike" in p.read_text(encoding="utf-8").split("## History")[0] for p in personal.glob("*.md"))


def test_a_person_named_without_a_relation_gets_a_page_of_their_own(manager):
    run(manager, batch(
        ("2026-07-01", "event", "Nate won his fourth video game tournament"),
        ("2026-07-02", "person", "User advised John to stay motivated for the marathon"),
        ("2026-07-03", "preference", "Harry Potter is User's favorite book"),
    ))
    assert "fourth video game tournament" in page(manager, "3_Personal/Nate.md")
    assert "marathon" in page(manager, "3_Personal/John.md")
    pages = {p.stem for p in (manager.layout.notebook_dir / "3_Personal").glob("*.md")}
    assert "Harry Potter" not in pages and "Harry Potter" in page(manager, "3_Personal/Preferences.md")


def test_a_fact_without_a_category_is_filed_by_its_subject_never_on_general(manager):
    run(manager, batch(
        ("2026-07-01", "general", "User is lactose intolerant"),
        ("2026-07-02", "", "User finds happiness and fulfillment in writing"),
    ))
    assert "lactose" in page(manager, "3_Personal/Health.md")
    assert "fulfillment" in page(manager, "3_Personal/Hobbies.md")
    assert not (manager.layout.notebook_dir / "3_Personal" / "General.md").exists()


def test_a_taste_of_the_users_that_opens_with_a_name_stays_with_their_tastes(manager):
    run(manager, batch(("2026-07-01", "preference", "Spider-Man has always been a favorite of the user's")))
    assert "Spider-Man" in page(manager, "3_Personal/Preferences.md")
    assert not (manager.layout.notebook_dir / "3_Personal" / "Spider-Man.md").exists()


def test_a_later_run_files_a_named_persons_facts_on_their_page_possessives_too(manager):
    run(manager, batch(("2026-07-01", "people", "Bruno goes squash on Sundays")))
    run(manager, batch(
        ("2026-07-02", "people", "Bruno works at Contoso"),
        ("2026-07-03", "preference", "Bruno's favourite band is Radiohead"),
    ))
    bruno = page(manager, "3_Personal/Bruno.md")
    assert "squash" in bruno and "Contoso" in bruno and "Radiohead" in bruno
    assert not (manager.layout.notebook_dir / "3_Personal" / "People.md").exists()


def test_a_taste_said_without_a_liking_verb_is_filed_on_preferences(manager):
    run(manager, batch(("2026-07-01", "general", "User can't stand mornings")))
    assert "mornings" in page(manager, "3_Personal/Preferences.md")


@pytest.mark.parametrize("category, kept, left_out, page_name", [
    ("person", "User's friends threw her a surprise party",  # People holds facts about people
     "User's laptop crashed last week (week of 2026-06-22), and she lost all her work", "People"),
    ("identity", "User is 34 years old",  # About Me says who the user is, not how they felt
     "User is grateful for Nate's support and encouragement", "About Me"),
])
def test_a_subject_page_holds_only_facts_of_its_subject(manager, category, kept, left_out, page_name):
    run(manager, batch(("2026-07-01", category, left_out), ("2026-07-02", category, kept)))
    text = page(manager, f"3_Personal/{page_name}.md")
    assert kept in text and left_out not in text


def test_a_fact_told_earlier_that_arrives_late_takes_its_place_on_the_timeline(manager):
    run(manager, batch(("2026-07-03", "event", "User ran the Porto half marathon"),
                       ("2026-07-05", "event", "User repainted the kitchen in sage green")))
    run(manager, batch(("2026-07-04", "event", "User sold the old road bike")))
    timeline = page(manager, "3_Personal/Timeline.md")
    assert timeline.index("half marathon") < timeline.index("road bike") < timeline.index("sage green")


def current_facts(manager) -> str:
    """Every current bullet of the personal pages, a line each."""
    return "\n".join(b.text for p in (manager.layout.notebook_dir / "3_Personal").glob("*.md")
                     for b in PageDoc.parse(p.read_text(encoding="utf-8")).current_bullets())


def test_a_club_joined_later_does_not_strike_the_one_joined_before(manager):
    """One joins many groups: a forum, then a climbing club, are both current, and starting at a gym ends
    no job; a named employer joined ("joined Fabrikam") still replaces the one the user worked at."""
    run(manager, batch(
        ("2026-03-02", "hobby", "User joined a forum on medieval maps"),
        ("2026-03-09", "hobby", "User joined a climbing club in Tartu"),
        ("2026-03-10", "work", "User works at Contoso"),
        ("2026-04-01", "work", "User joined Fabrikam as a welder"),
        ("2026-04-03", "hobby", "User started at a new bouldering gym"),
    ))
    current = current_facts(manager)
    assert "User joined a forum on medieval maps" in current and "User joined a climbing club in Tartu" in current
    assert "User joined Fabrikam as a welder" in current and "User works at Contoso" not in current
    assert "User started at a new bouldering gym" in current
    assert subject_value("User joined a choir") is None and subject_value("User started at a new gym") is None
    assert subject_value("User started at Contoso").key == subject_value("User works at a bakery").key
    assert subject_value("User joined Fabrikam").key == subject_value("User works at Contoso").key


def test_what_a_relative_is_is_not_replaced_by_their_name(manager):
    """"User's husband is diabetic" and "… is a teacher" say what he is; his name, said later, is who fills
    the relation. All three stay current: none is struck through into History."""
    run(manager, batch(
        ("2026-03-02", "health", "User's husband is diabetic"),
        ("2026-03-09", "work", "User's husband is a teacher at Leeds Grammar"),
        ("2026-03-10", "person", "User's husband is Tom"),
        ("2026-03-11", "work", "User's boss is Dr. Okafor"),
        ("2026-04-01", "work", "User's boss is Marta Lind"),
    ))
    current = current_facts(manager)
    for fact in ("User's husband is diabetic", "User's husband is a teacher at Leeds Grammar", "User's husband is Tom",
                 "User's boss is Marta Lind"):
        assert fact in current
    assert "User's boss is Dr. Okafor" not in current  # a new boss, named, replaces the one before


def test_a_past_event_dated_as_a_person_writes_the_day_goes_on_the_timeline(manager):
    """The capture resolves "last Saturday" to "(27 June 2026)": the event is dated, so it is the
    Timeline's, whatever subject the judge gave it, as the ISO-dated lines of older logs are."""
    run(manager, batch(
        ("2026-07-02", "hobby", "User played chess at the Tartu open last Saturday (27 June 2026)"),
        ("2026-07-03", "hobby", "User visited the Emajõgi river yesterday (2026-07-02)"),
    ))
    timeline = page(manager, "3_Personal/Timeline.md")
    assert "chess at the Tartu open last Saturday (27 June 2026) (2026-07-02)" in timeline
    assert "visited the Emajõgi river yesterday (2026-07-02) (2026-07-03)" in timeline


def test_a_street_is_no_person_and_an_in_law_has_a_page_of_their_own():
    """"just off Mare Street" once made a person page "Mare"; "User's mother-in-law" one named "Mother"."""
    from suzent_desktop.core.engines.dream.placement.subjects import names_in, title_for

    assert names_in("User's flat is in Hackney, just off Mare Street") == ["Hackney"]
    assert names_in("User walked in Hyde Park with Ana") == ["Ana"]
    assert names_in("User met Patrick Rothfuss at a signing") == ["Patrick Rothfuss"]
    assert title_for("people", (), "User's flat is in Hackney, just off Mare Street")[0] == "Hackney"
    assert title_for("people", (), "User's mother-in-law is staying with the user for a month")[0] == "Mother-in-law"
    assert title_for("people", (), "User's mum was diagnosed with diabetes")[0] == "Mum"


def test_a_name_with_an_accent_or_a_title_is_the_whole_name_on_its_page():
    """"Tomás" once filed on a page "Tom", and "Mrs Okafor" on one named "Mrs"; a hyphen joins one name."""
    from suzent_desktop.core.engines.dream.placement.subjects import names_in, title_for

    assert title_for("people", (), "User's best friend Tomás is opening a bakery in Lisbon")[0] == "Tomás"
    assert title_for("people", (), "User's neighbour Mrs Okafor feeds the cat when User is away")[0] == "Mrs Okafor"
    assert title_for("people", (), "User's niece Zoë-Anne started school in Leeds")[0] == "Zoë-Anne"
    assert names_in("User met Søren and Łukasz in Kraków") == ["Søren", "Łukasz", "Kraków"]


def test_a_unit_a_role_in_capitals_or_a_thing_of_the_users_makes_no_person_page():
    """"32GB" once made a page "GB", "User's CTO Marcus" one named "CTO Marcus", and a laptop "running
    Sonoma" a person page "Sonoma"; a name given to a thing is still its page ("… dog is named Tilly")."""
    from suzent_desktop.core.engines.dream.placement.subjects import names_in, title_for

    assert names_in("User's phone has 256GB and a 5G modem, bought with Ana") == ["Ana"]
    assert title_for("person", (), "User's CTO Marcus is leaving in March")[0] == "Marcus"
    assert title_for("person", (), "User's team lead Ravi moved to Oslo")[0] == "Ravi"
    assert title_for("person", (), "User's laptop is a 2021 MacBook Pro running Sonoma")[0] != "Sonoma"
    assert title_for("person", (), "User's stuffed toy rabbit is named Juniper")[0] == "Juniper"
    assert title_for("person", (), "User's loyal scruffy dog Bramble sleeps by the door")[0] == "Bramble"
