"""NUL and control characters at the door, the binary rule, bad lines, byte-order marks."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from suzent_desktop.core.engines.capture import extraction
from suzent_desktop.core.engines.dream.tools import VaultTools
from suzent_desktop.core.files.disk.text_hygiene import clean, decode_lenient, looks_binary
from suzent_desktop.core.files.records.log_grammar import Fact, parse_log
from suzent_desktop.core.files.records.tombstones import Tombstones
from suzent_desktop.core.manager import MemoryManager
from suzent_desktop.settings import load_settings


@pytest.fixture
def manager(home: Path, clock) -> MemoryManager:
    return MemoryManager.open(home, clock=clock)


async def found(manager: MemoryManager, query: str) -> list[str]:
    return [h.text for h in (await manager.searching.search(query, record_recall=False)).hits]


def test_clean_drops_nul_and_spaces_other_controls_keeping_newlines_and_tabs():
    assert clean("green\x00 tea") == "green tea"
    assert clean("a\x1bb\x7fc\x85d") == "a b c d"
    assert clean("line one\n\tline two\r\n") == "line one\n\tline two\r\n"


def test_one_stray_byte_never_makes_a_file_binary():
    text = ("- [general] User likes tea\n" * 400).encode()
    assert not looks_binary(text[:500] + b"\x00" + text[500:])
    assert not looks_binary(b"\x1b" + text)
    assert not looks_binary(b"# T\n\nx\x00\n")  # a tiny page: one byte in eight
    assert not looks_binary(b"a\x1bb\x00")
    assert looks_binary(b"\x89PNG\r\n\x1a\n" + bytes(range(32)) * 40)
    assert looks_binary(b"\x00\x01\x02PNG")


def test_a_bad_line_is_left_out_and_named_but_the_rest_decodes():
    text, bad = decode_lenient(b"first line\ncaf\xe9 latin-1\nthird line\n")
    assert text.split("\n") == ["first line", "", "third line", ""]
    assert bad == [2]


async def test_remember_with_a_nul_keeps_the_log_text_and_findable(manager: MemoryManager):
    await manager.capturing.remember("I love green\x00 tea. I work at Contoso.")
    data = manager.archive.path_for(manager.clock.today().isoformat()).read_bytes()
    assert b"\x00" not in data and b"I love green tea. I work at Contoso." in data
    assert "I love green tea. I work at Contoso." in await found(manager, "green tea Contoso")


async def test_captured_turn_with_a_nul_never_writes_it(manager: MemoryManager, monkeypatch: pytest.MonkeyPatch):
    seen: list[str] = []

    async def extract(text, settings, **_):
        seen.append(text)
        return [Fact("User loves green\x00 tea", "preference", ("drink\x00",))]

    monkeypatch.setattr(extraction, "extract_facts", extract)
    await manager.process_conversation_turn_for_memories("I love green\x00 tea.", "Noted\x07.", "s1")
    assert "\x00" not in seen[0] and "\x07" not in seen[0]
    data = manager.archive.path_for(manager.clock.today().isoformat()).read_bytes()
    assert b"\x00" not in data and b"User loves green tea `drink turn:" in data


async def test_a_nul_in_a_hand_edited_log_hides_no_fact(manager: MemoryManager, today: dt.date):
    path = manager.archive.path_for(today.isoformat())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(
        b"# Daily Log - " + today.isoformat().encode() + b"\n\n## 10:00 \xe2\x80\x94 abc\n\n"
        b"- [preference] User loves green\x00 tea\n- [work] User works at Contoso\n"
    )
    changes = await manager.indexer.sync()
    assert not changes.errors
    assert "User works at Contoso" in await found(manager, "Contoso")
    assert path.read_bytes().count(b"\x00") == 1  # the file itself is left as it is


async def test_a_nul_on_a_page_hides_none_of_its_other_paragraphs(manager: MemoryManager):
    page = manager.layout.notebook_dir / "3_Personal" / "Preferences.md"
    page.write_bytes(b"# Preferences\n\n- User loves green\x00 tea\n\nUser prefers window seats on trains.\n")
    changes = await manager.indexer.sync()
    assert not changes.errors
    assert any("window seats" in t for t in await found(manager, "window seats trains"))
    assert any("green tea" in t for t in await found(manager, "green tea"))


async def test_one_non_utf8_line_leaves_the_rest_of_a_page_searchable(manager: MemoryManager):
    page = manager.layout.notebook_dir / "3_Personal" / "Travel.md"
    page.write_bytes(b"# Travel\n\nUser visited the caf\xe9 in Lyon.\n\nUser prefers window seats on trains.\n")
    changes = await manager.indexer.sync()
    assert any("Travel.md" in e and "line 3" in e for e in changes.errors)
    assert any("window seats" in t for t in await found(manager, "window seats trains"))
    assert page.read_bytes().startswith(b"# Travel\n\nUser visited the caf\xe9")


def test_engine_writes_are_cleaned(tmp_path: Path):
    (tmp_path / "3_Personal").mkdir()
    tools = VaultTools(tmp_path)
    tools.write("3_Personal/Tea.md", "# Tea\n\n- User loves green\x00 tea\x1b\n")
    assert (tmp_path / "3_Personal" / "Tea.md").read_bytes() == b"# Tea\n\n- User loves green tea \n"


# -- byte-order marks ---------------------------------------------------------------------------------
BOM = "\ufeff".encode()


def test_a_log_starting_with_a_bom_keeps_its_header_and_first_fact(manager: MemoryManager, today: dt.date):
    date = today.isoformat()
    path = manager.archive.path_for(date)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(BOM + f"# Daily Log - {date}\n- [work] User works at Contoso\n".encode())
    parsed = manager.archive.read(date)
    assert parsed.date == date
    assert [f.fact.content for f in parsed.facts] == ["User works at Contoso"]
    assert parsed.facts[0].line == 2 and not parsed.malformed


def test_a_form_feed_inside_a_fact_does_not_split_its_line():
    parsed = parse_log("# Daily Log - 2026-07-01\n- [work] User works\x0cat Contoso\n- [x] second\n")
    assert [f.line for f in parsed.facts] == [2, 3]


async def test_bom_pages_tombstones_log_md_and_config_are_read(home: Path, clock, today: dt.date):
    (home / "config.toml").write_bytes(BOM + b"memory_consolidation_min_facts = 7\n")
    assert load_settings(home).memory_consolidation_min_facts == 7
    manager = MemoryManager.open(home, clock=clock)
    page = manager.layout.notebook_dir / "3_Personal" / "Work.md"
    page.write_bytes(BOM + b"---\ntitle: Work\n---\n# Work\n\nUser works at Contoso.\n")
    yesterday = (today - dt.timedelta(days=1)).isoformat()
    manager.layout.log_md.write_bytes(
        BOM + f"## [{today}] ingest | daily logs  watermark={yesterday}\n".encode()
    )
    assert manager.dreaming.watermark() == yesterday
    manager.layout.tombstones_file.write_bytes(BOM + b'{"content": "user likes jazz"}\n')
    assert Tombstones(manager.layout).contents() == {"user likes jazz"}
    await manager.indexer.sync()
    hits = await found(manager, "Contoso")
    assert "User works at Contoso." in hits and not any("title" in h for h in hits)
