"""A model's dream can add and supersede, never erase a person's words (core/engines/dream/guards/page_edits.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dream_support import days_before, make_manager, page, write_log
from test_dream_agent import MODEL, ScriptedLLM, tool_reply

from suzent_desktop.core.engines.dream.diffs import unified_diffs
from suzent_desktop.core.engines.dream.guards import authorship
from suzent_desktop.core.engines.dream.tools import VaultTools

READING = (
    "# Reading\n\n## Authors\n\n- Favourite author: Ursula K. Le Guin\n- Currently reading The Stand\n\n"
    "Notes in my own words.\n"
)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for folder in ("3_Personal", ".state"):
        (root / folder).mkdir(parents=True)
    (root / "3_Personal" / "Reading.md").write_text(READING, encoding="utf-8")
    return root


def _read(vault: Path, rel: str = "3_Personal/Reading.md") -> str:
    return (vault / rel).read_text(encoding="utf-8")


def _kept_every_line(before: str, after: str) -> bool:
    return all(line in after.splitlines() for line in before.splitlines() if line.strip())


async def test_write_does_not_replace_a_page_a_person_wrote(vault):
    tools = VaultTools(vault)
    result = await tools.dispatch("write", {"path": "3_Personal/Reading.md",
                                            "content": "# Reading\n\n- Ursula K. Le Guin wrote The Stand\n"})
    assert result.startswith("error:") and "Favourite author: Ursula K. Le Guin" in result and "add_bullet" in result
    assert _read(vault) == READING


async def test_edit_may_not_reword_a_persons_line_but_may_add_text(vault):
    tools = VaultTools(vault)
    reworded = await tools.dispatch("edit", {"path": "3_Personal/Reading.md", "old": "Le Guin", "new": "King"})
    assert reworded.startswith("error:") and "supersede_bullet" in reworded
    removed = await tools.dispatch("edit", {"path": "3_Personal/Reading.md", "old": "Notes in my own words.\n",
                                            "new": ""})
    assert removed.startswith("error:")
    assert _read(vault) == READING


async def test_add_bullet_files_a_fact_under_its_heading_and_merges_a_repeat(vault):
    tools = VaultTools(vault)
    ok = await tools.dispatch("add_bullet", {"path": "3_Personal/Reading.md", "heading": "Authors",
                                             "text": "User likes Octavia Butler", "dates": ["2026-07-02"]})
    assert ok.startswith("ok"), ok
    lines = _read(vault).splitlines()
    assert lines[lines.index("- Currently reading The Stand") + 1] == "- User likes Octavia Butler (2026-07-02)"
    await tools.dispatch("add_bullet", {"path": "3_Personal/Reading.md", "heading": "Finished",
                                        "text": "User finished Dune", "dates": ["2026-07-02"]})
    again = await tools.dispatch("add_bullet", {"path": "3_Personal/Reading.md", "text": "user likes Octavia Butler.",
                                                "dates": ["2026-07-05"]})
    assert "added 2026-07-05" in again
    text = _read(vault)
    assert "## Finished\n\n- User finished Dune (2026-07-02)" in text
    assert "- User likes Octavia Butler (2026-07-02, 2026-07-05)" in text
    assert text.count("Octavia Butler") == 1 and _kept_every_line(READING, text)


async def test_supersede_strikes_a_persons_bullet_under_history_keeping_its_words(vault):
    tools = VaultTools(vault)
    ok = await tools.dispatch("supersede_bullet", {"path": "3_Personal/Reading.md", "old": "Favourite author: Ursula K. Le Guin",
                                                   "new": "Favourite author: N. K. Jemisin", "date": "2026-07-03"})
    assert ok.startswith("ok"), ok
    text = _read(vault)
    assert "- Favourite author: N. K. Jemisin (2026-07-03)\n- Currently reading The Stand" in text
    assert text.rstrip().endswith("## History\n\n- ~~Favourite author: Ursula K. Le Guin~~ (until 2026-07-03)")
    assert "Notes in my own words." in text
    assert [(r.line, r.operation.split()[0]) for r in tools.removed_lines] == [
        ("- Favourite author: Ursula K. Le Guin", "supersede_bullet")]


async def test_merge_keeps_every_source_date_and_a_persons_wording(vault):
    tools = VaultTools(vault)
    tools.write("3_Personal/Tea.md", "# Tea\n\n- User likes tea (2026-07-01)\n- user likes tea. (2026-07-02)\n")
    ok = await tools.dispatch("merge_bullets", {"path": "3_Personal/Tea.md", "text": "User likes tea"})
    assert ok.startswith("ok"), ok
    assert _read(vault, "3_Personal/Tea.md") == "# Tea\n\n- User likes tea (2026-07-01, 2026-07-02)\n"
    (vault / "3_Personal" / "Drinks.md").write_text("# Drinks\n\n- Likes tea\n", encoding="utf-8")
    tools.write("3_Personal/Drinks.md", "# Drinks\n\n- Likes tea\n- likes tea (2026-07-04)\n")
    assert (await tools.dispatch("merge_bullets", {"path": "3_Personal/Drinks.md", "text": "likes tea"})).startswith("ok")
    assert _read(vault, "3_Personal/Drinks.md") == "# Drinks\n\n- Likes tea (2026-07-04)\n"


async def test_create_page_only_creates(vault):
    tools = VaultTools(vault)
    assert (await tools.dispatch("create_page", {"path": "3_Personal/Books.md", "content": "# Books\n"})).startswith("ok")
    refused = await tools.dispatch("create_page", {"path": "3_Personal/Reading.md", "content": "# Reading\n"})
    assert refused.startswith("error:") and "already exists" in refused
    assert _read(vault) == READING


async def test_rename_section_renames_the_programs_heading_not_a_persons(vault):
    tools = VaultTools(vault)
    await tools.dispatch("add_bullet", {"path": "3_Personal/Reading.md", "heading": "Finished",
                                        "text": "User finished Dune", "dates": ["2026-07-02"]})
    ok = await tools.dispatch("rename_section", {"path": "3_Personal/Reading.md", "old": "Finished", "new": "Read"})
    assert ok.startswith("ok") and "## Read\n" in _read(vault)
    refused = await tools.dispatch("rename_section", {"path": "3_Personal/Reading.md", "old": "Authors", "new": "Writers"})
    assert refused.startswith("error:") and "## Authors" in _read(vault)


async def test_write_replaces_a_program_page_only_when_its_bullets_survive(vault):
    program = "# Work\n\n- User works at Contoso (2026-07-01)\n"
    (vault / "3_Personal" / "Work.md").write_text(program, encoding="utf-8")
    record = {"3_Personal/Work.md": frozenset(authorship.line_digest(x) for x in program.splitlines() if x.strip())}
    tools = VaultTools(vault, authored=record)
    dropped = await tools.dispatch("write", {"path": "3_Personal/Work.md", "content": "# Work\n\n- User works at X\n"})
    assert dropped.startswith("error:") and "User works at Contoso" in dropped
    kept = ("# Work\n\n- User works at Microsoft (2026-07-05)\n\n## History\n\n"
            "- ~~User works at Contoso~~ (2026-07-01, until 2026-07-05)\n")
    assert (await tools.dispatch("write", {"path": "3_Personal/Work.md", "content": kept})).startswith("ok")
    assert _read(vault, "3_Personal/Work.md") == kept


def test_a_diff_where_only_the_final_newline_changed_says_so():
    diffs = unified_diffs({"a.md": b"# A\n\n- x"}, {"a.md": b"# A\n\n- x\n"})
    assert "only the final newline added" in diffs["a.md"]
    assert "-- x" not in diffs["a.md"] and "+- x" not in diffs["a.md"]


async def test_a_model_that_overwrites_a_human_page_loses_no_line_of_it(home, clock, today):
    """The model rewrites Reading.md wholesale, then writes the batch's fact elsewhere: the run is
    productive, and the person's page is byte for byte what it was."""
    manager = make_manager(home, clock, memory_consolidation_model=MODEL)
    (manager.layout.notebook_dir / "3_Personal" / "Reading.md").write_text(READING, encoding="utf-8")
    d1 = days_before(today, 1)[0]
    write_log(manager, d1, ["User is reading The Stand by Stephen King"])
    script = ScriptedLLM([
        tool_reply(("write", {"path": "3_Personal/Reading.md",
                              "content": "# Reading\n\n- User is reading The Stand by Ursula K. Le Guin\n"})),
        tool_reply(("write", {"path": "3_Personal/Books.md",
                              "content": f"# Books\n\n- User is reading The Stand by Stephen King ({d1})\n"})),
        "Filed the book.",
    ])
    result = await manager.dreaming.runner(llm=script).run_once()
    assert result.outcome == "productive", result.reason
    assert page(manager, "3_Personal/Reading.md") == READING


async def test_the_runs_diff_names_the_operation_that_removed_each_line(home, clock, today):
    manager = make_manager(home, clock, memory_consolidation_model=MODEL)
    (manager.layout.notebook_dir / "3_Personal" / "Reading.md").write_text(READING, encoding="utf-8")
    d1 = days_before(today, 1)[0]
    write_log(manager, d1, ["Favourite author: N. K. Jemisin"])
    script = ScriptedLLM([
        tool_reply(("supersede_bullet", {"path": "3_Personal/Reading.md", "old": "Favourite author: Ursula K. Le Guin",
                                         "new": "Favourite author: N. K. Jemisin", "date": d1})),
        "Superseded the favourite author.",
    ])
    result = await manager.dreaming.runner(llm=script).run_once()
    assert result.outcome == "productive", result.reason
    diff = result.diffs["3_Personal/Reading.md"]
    assert "#   - Favourite author: Ursula K. Le Guin  <- supersede_bullet" in diff
    # The lines the run wrote are the program's from now on; the person's stay theirs.
    record = authorship.load(authorship.path_in(manager.layout.state_dir))
    tools = VaultTools(manager.layout.notebook_dir, authored=record)
    assert tools.owns("3_Personal/Reading.md", f"- Favourite author: N. K. Jemisin ({d1})")
    assert not tools.owns("3_Personal/Reading.md", "- Currently reading The Stand")
    assert json.loads(authorship.path_in(manager.layout.state_dir).read_text(encoding="utf-8"))["version"] == 1


async def test_a_model_files_a_batch_through_every_operation(home, clock, today):
    """A fake model uses each operation in one run; every line the person wrote is still there."""
    manager = make_manager(home, clock, memory_consolidation_model=MODEL)
    root = manager.layout.notebook_dir
    (root / "3_Personal" / "Reading.md").write_text(READING, encoding="utf-8")
    d1 = days_before(today, 1)[0]
    write_log(manager, d1, ["User likes Octavia Butler", "User finished Dune", "Favourite author: N. K. Jemisin"])
    reading = "3_Personal/Reading.md"
    script = ScriptedLLM([
        tool_reply(("add_bullet", {"path": reading, "heading": "Authors", "text": "User likes Octavia Butler",
                                   "dates": [d1]})),
        tool_reply(("create_page", {"path": "3_Personal/Books.md",
                                    "content": f"# Books\n\n## Done\n\n- User finished Dune ({d1})\n- user finished dune\n"})),
        tool_reply(("rename_section", {"path": "3_Personal/Books.md", "old": "Done", "new": "Finished"})),
        tool_reply(("supersede_bullet", {"path": reading, "old": "Favourite author: Ursula K. Le Guin",
                                         "new": "Favourite author: N. K. Jemisin", "date": d1})),
        tool_reply(("merge_bullets", {"path": "3_Personal/Books.md", "text": "User finished Dune"})),
        "Filed three facts.",
    ])
    result = await manager.dreaming.runner(llm=script).run_once()
    assert result.outcome == "productive" and not result.uncovered, result.reason
    text = page(manager, reading)
    for line in ("## Authors", "- Currently reading The Stand", "Notes in my own words."):
        assert line in text.splitlines()
    assert "- ~~Favourite author: Ursula K. Le Guin~~" in text and "- User likes Octavia Butler" in text
    assert page(manager, "3_Personal/Books.md") == f"# Books\n\n## Finished\n\n- User finished Dune ({d1})\n"
    assert all(not m["content"].startswith("error:") for seen in script.seen for m in seen if m["role"] == "tool")


@pytest.mark.parametrize("opening, closing", [
    ("---\n", "---\n"),  # frontmatter: the page now starts with a properties block
    ("%%\n", "%%\n"),  # an Obsidian comment
    ("<!--\n", "-->\n"),  # an HTML comment
    ("```\n", "```\n"),  # a code block
    ("~~~text\n", "~~~\n"),
])
async def test_an_edit_that_hides_a_persons_lines_without_changing_a_byte_is_refused(vault, opening, closing):
    tools = VaultTools(vault)
    if opening == "---\n":
        call = {"path": "3_Personal/Reading.md", "old": "# Reading\n",
                "new": "---\n# Reading\n"}  # and the person's own thematic break below closes it
        (vault / "3_Personal" / "Reading.md").write_text(READING + "\n---\n\nMore of my words.\n", encoding="utf-8")
    else:
        call = {"path": "3_Personal/Reading.md", "old": "## Authors\n\n- Favourite",
                "new": f"## Authors\n\n{opening}- Favourite"}
        (vault / "3_Personal" / "Reading.md").write_text(READING + f"\n{closing}", encoding="utf-8")
    before = _read(vault)
    result = await tools.dispatch("edit", call)
    assert result.startswith("error:") and "would remove, reword or hide" in result and "Favourite author" in result
    assert _read(vault) == before


async def test_a_line_hidden_already_may_stay_hidden_and_new_comments_are_fine(vault):
    text = READING + "\n%%\nA private reminder\n%%\n"
    (vault / "3_Personal" / "Reading.md").write_text(text, encoding="utf-8")
    tools = VaultTools(vault)
    ok = await tools.dispatch("add_bullet", {"path": "3_Personal/Reading.md", "heading": "Authors",
                                             "text": "User likes Octavia Butler", "dates": ["2026-07-02"]})
    assert ok.startswith("ok"), ok
    ok = await tools.dispatch("edit", {"path": "3_Personal/Reading.md", "old": "A private reminder\n%%\n",
                                       "new": "A private reminder\n%%\n\n%% a note of the program's own %%\n"})
    assert ok.startswith("ok"), ok
    assert "A private reminder" in _read(vault)
