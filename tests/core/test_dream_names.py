"""What a model may name and date in the dream's file tools: no look-alike page names, no dates from nowhere."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from suzent_desktop.core.engines.dream.tools import VaultTools

ANNA = "# Anna\n\n- Anna is the user's sister (2026-07-01)\n"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "3_Personal").mkdir(parents=True)
    (root / "3_Personal" / "Anna.md").write_text(ANNA, encoding="utf-8")
    (root / "3_Personal" / "Café.md").write_text("# Café\n", encoding="utf-8")
    return root


def _pages(vault: Path) -> set[str]:
    return {p.relative_to(vault).as_posix() for p in vault.rglob("*.md")}


@pytest.mark.parametrize("name, says", [
    ("3_Personal/\u0410nna.md", "mixes Cyrillic and Latin"),            # a Cyrillic А before Latin letters
    ("3_Personal/Anna\u200b.md", "invisible character (U+200B"),        # a zero-width space
    ("3_Personal/\u202eanna.md", "invisible character (U+202E"),        # a right-to-left override
    ("3_Personal/ＡＮＮＡ.md", "reads the same"),                         # fullwidth letters
    ("2_Wiki/p\u0430ssword.md", "mixes Cyrillic and Latin"),            # in a new folder too
])
async def test_a_new_page_may_not_look_like_another_name(vault: Path, name: str, says: str):
    before = _pages(vault)
    tools = VaultTools(vault)
    result = await tools.dispatch("add_bullet", {"path": name, "text": "Anna moved to Oslo", "dates": ["2026-07-02"]})
    assert result.startswith("error:") and says in result, result
    assert _pages(vault) == before


async def test_a_name_in_decomposed_form_reaches_the_page_in_composed_form(vault: Path):
    tools = VaultTools(vault)
    nfd = unicodedata.normalize("NFD", "Café")
    for name in (nfd, unicodedata.normalize("NFD", "Crème")):
        result = await tools.dispatch("add_bullet", {"path": f"3_Personal/{name}.md", "text": "User meets Ana there",
                                                     "dates": ["2026-07-02"]})
        assert result.startswith("ok"), result
    assert _pages(vault) == {"3_Personal/Anna.md", "3_Personal/Café.md", "3_Personal/Crème.md"}
    assert "User meets Ana there" in (vault / "3_Personal" / "Café.md").read_text(encoding="utf-8")


async def test_a_page_named_in_decomposed_form_on_disk_keeps_its_name(vault: Path):
    nfd = unicodedata.normalize("NFD", "Zoë")
    (vault / "3_Personal" / f"{nfd}.md").write_text(f"# {nfd}\n", encoding="utf-8")
    tools = VaultTools(vault)
    composed = await tools.dispatch("add_bullet", {"path": "3_Personal/Zoë.md", "text": "Zoë is a friend",
                                                   "dates": ["2026-07-02"]})
    assert composed.startswith("error:") and "reads the same" in composed, composed
    spelled = await tools.dispatch("add_bullet", {"path": f"3_Personal/{nfd}.md", "text": "Zoë is a friend",
                                                  "dates": ["2026-07-02"]})
    assert spelled.startswith("ok") and "Zoë is a friend" in (vault / "3_Personal" / f"{nfd}.md").read_text()


@pytest.mark.parametrize("name", ["3_Personal/Москва.md", "3_Personal/Αθήνα.md", "3_Personal/Zoë.md",
                                  "3_Personal/Anna Karenina.md", "3_Personal/東京.md"])
async def test_a_name_in_one_script_is_welcome(vault: Path, name: str):
    tools = VaultTools(vault)
    result = await tools.dispatch("add_bullet", {"path": name, "text": "User visited it", "dates": ["2026-07-02"]})
    assert result.startswith("ok"), result
    assert (vault / name).is_file()


@pytest.mark.parametrize("dates", [["1999-01-01"], ["2999-12-31"], ["2026-07-02", "2026-07-21"]])
async def test_a_bullet_may_not_newly_carry_a_date_outside_the_batch(vault: Path, dates: list[str]):
    tools = VaultTools(vault)
    tools.dates = ("2026-07-02", "2026-07-20")
    added = await tools.dispatch("add_bullet", {"path": "3_Personal/Anna.md", "text": "Anna moved to Oslo",
                                                "dates": dates})
    dated = await tools.dispatch("add_bullet", {"path": "3_Personal/Anna.md", "text": "Anna is the user's sister",
                                                "dates": dates})  # a date added to a person's bullet
    struck = await tools.dispatch("supersede_bullet", {"path": "3_Personal/Anna.md", "date": dates[-1],
                                                       "old": "Anna is the user's sister", "new": "Anna left"})
    for result in (added, dated, struck):
        assert result.startswith("error:") and "no day of this batch" in result, result
    assert (vault / "3_Personal" / "Anna.md").read_text(encoding="utf-8") == ANNA


async def test_dates_in_the_batch_and_dates_the_page_held_pass(vault: Path):
    tools = VaultTools(vault)
    tools.dates = ("2026-07-02", "2026-07-20")
    assert (await tools.dispatch("add_bullet", {"path": "3_Personal/Anna.md", "text": "Anna moved to Oslo",
                                                "dates": ["2026-07-19"]})).startswith("ok")
    struck = await tools.dispatch("supersede_bullet", {"path": "3_Personal/Anna.md", "date": "2026-07-19",
                                                       "old": "Anna moved to Oslo", "new": "Anna moved to Bergen"})
    assert struck.startswith("ok"), struck
    page = (vault / "3_Personal" / "Anna.md").read_text(encoding="utf-8")
    assert "(2026-07-01)" in page and "Bergen (2026-07-19)" in page  # the person's old date stays where it was


async def test_a_bullet_moved_from_a_page_the_run_read_keeps_its_dates(vault: Path):
    (vault / "3_Personal" / "General.md").write_text("# General\n\n- Anna plays chess (2025-01-05)\n",
                                                     encoding="utf-8")
    tools = VaultTools(vault)
    tools.dates = ("2026-07-02", "2026-07-20")
    unread = await tools.dispatch("add_bullet", {"path": "3_Personal/Anna.md", "text": "Anna plays chess",
                                                 "dates": ["2025-01-05"]})
    assert unread.startswith("error:") and "no day of this batch" in unread
    assert "chess" in await tools.dispatch("read", {"path": "3_Personal/General.md"})
    moved = await tools.dispatch("add_bullet", {"path": "3_Personal/Anna.md", "text": "Anna plays chess",
                                                "dates": ["2025-01-05"]})
    assert moved.startswith("ok"), moved


async def test_the_runner_holds_a_models_bullets_to_the_batchs_days(home, clock, today):
    from dream_support import days_before, make_manager, write_log

    from suzent_desktop.core.engines.dream.model import EngineReport

    manager = make_manager(home, clock)
    day = days_before(today, 1)[0]
    write_log(manager, day, ["User's sister Ana lives in Porto"])
    answers: list[str] = []

    async def engine(batch, tools):
        for date in ("1999-01-01", day):
            answers.append(await tools.dispatch("add_bullet", {
                "path": "3_Personal/Ana.md", "text": "User's sister Ana lives in Porto", "dates": [date]}))
        return EngineReport(summary="filed")

    assert (await manager.dreaming.runner(engine=engine).run_once(force=True)).outcome == "productive"
    assert answers[0].startswith("error:") and answers[1].startswith("ok"), answers
    page = (manager.layout.notebook_dir / "3_Personal" / "Ana.md").read_text(encoding="utf-8")
    assert "1999" not in page and day in page


async def test_the_offline_engine_gives_a_look_alike_name_no_page_of_its_own(home, clock, today):
    from dream_support import days_before, make_manager, write_log


    manager = make_manager(home, clock)
    violin = "User is learning how to play the vi\u043elin"  # a Cyrillic о: a captured turn may carry one
    write_log(manager, days_before(today, 1)[0], [violin, "User likes green tea"])
    assert (await manager.dreaming.runner().run_once(force=True)).outcome == "productive"
    personal = manager.layout.notebook_dir / "3_Personal"
    names = [p.stem for p in personal.glob("*.md")]
    assert not any("\u043e" in name for name in names), names
    assert any(violin in p.read_text(encoding="utf-8") for p in personal.glob("*.md"))
