"""Reads are judged by where a path resolves: no door serves a file a link leads to outside the
vault, nor the program's hidden folders, whatever path leads there."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from dream_support import make_manager

from suzent_desktop.core.doctor import NOT_FOLLOWED, run_doctor
from suzent_desktop.core.engines.dream.lint import audit
from suzent_desktop.core.engines.dream.tools import VaultAccessError, VaultTools
from suzent_desktop.core.files.disk import confine
from suzent_desktop.core.files.disk.confine import Confinement
from suzent_desktop.core.files.records.mcp_activity import ActivityRecorder
from suzent_desktop.core.vault.links import VaultIndex
from suzent_desktop.mcp_server import MemoryTools

SECRET = "zebra passphrase hunter2 outside"
STATE = "walrus forgotten in state"
TRASHED = "walrus forgotten in trash"
LINKS = ("2_Wiki/p.md", "2_Wiki/statelink.md", "2_Wiki/trashlink/Old.md", "2_Wiki/cfg.md", "2_Wiki/loopA.md")


def _hostile(home: Path, tmp_path: Path) -> Path:
    """A vault whose links lead out, into .state and .trash, to config.toml, and round in a loop."""
    vault = home / "notebook"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(f"# Secret\n\n{SECRET}\n", encoding="utf-8")
    (vault / ".state" / "tombstones.jsonl").write_text(json.dumps({"content": STATE}) + "\n", encoding="utf-8")
    (vault / ".trash").mkdir(exist_ok=True)
    (vault / ".trash" / "Old.md").write_text(f"# Old\n\n{TRASHED}\n", encoding="utf-8")
    (home / "config.toml").write_text("# zebra config passphrase\n", encoding="utf-8")
    wiki = vault / "2_Wiki"
    os.symlink(outside / "secret.md", wiki / "p.md")
    os.symlink("../.state/tombstones.jsonl", wiki / "statelink.md")
    os.symlink("../.trash", wiki / "trashlink")
    os.symlink("../../config.toml", wiki / "cfg.md")
    os.symlink("loopB.md", wiki / "loopA.md")
    os.symlink("loopA.md", wiki / "loopB.md")
    (wiki / "Ok.md").write_text("# Ok\n\nan ordinary zebra page about walrus habits\n", encoding="utf-8")
    return outside


@pytest.fixture
async def hostile(home, clock, tmp_path):
    manager = make_manager(home, clock)
    outside = _hostile(home, tmp_path)
    await manager.indexing.reindex()
    return manager, outside


async def test_search_never_serves_text_a_link_leads_to(hostile):
    manager, _ = hostile
    texts = [h.text for q in ("zebra passphrase hunter2", "walrus forgotten", "config passphrase")
             for h in (await manager.searching.search(q, limit=50, record_recall=False)).hits]
    joined = "\n".join(texts)
    assert SECRET not in joined and STATE not in joined and TRASHED not in joined and "config" not in joined
    assert any("ordinary zebra page" in t for t in texts)


async def test_an_operators_only_query_lists_only_confined_files(hostile):
    manager, _ = hostile
    listing = await manager.searching.search("path:2_Wiki", limit=50, record_recall=False)
    assert listing.mode == "list"
    assert [Path(h.path).name for h in listing.hits] == ["Ok.md"]


@pytest.mark.parametrize("rel", LINKS)
async def test_read_page_and_resources_refuse_every_link_out_or_into_program_folders(hostile, rel):
    manager, _ = hostile
    tools = MemoryTools(manager, read_only=True, activity=ActivityRecorder(Path("/nonexistent"), enabled=False))
    with pytest.raises(VaultAccessError):
        tools.page_text(rel)
    assert rel not in tools.pages()
    assert "2_Wiki/Ok.md" in tools.pages()


@pytest.mark.parametrize("rel", LINKS)
def test_dream_tools_never_read_through_a_link_out_or_into_program_folders(hostile, rel):
    manager, _ = hostile
    tools = VaultTools(manager.layout.notebook_dir)
    with pytest.raises(VaultAccessError):
        tools.read(rel)
    listed = tools.list("")
    assert rel not in listed and "2_Wiki/trashlink/" not in listed
    assert all(STATE not in hit["text"] and TRASHED not in hit["text"] for hit in tools.search_notebook("walrus"))


@pytest.mark.parametrize("rel", [".state/tombstones.jsonl", ".trash/Old.md", ".obsidian/app.md"])
def test_dream_tools_never_read_hidden_folders(hostile, rel):
    manager, _ = hostile
    with pytest.raises(VaultAccessError):
        VaultTools(manager.layout.notebook_dir).read(rel)


def test_link_resolution_for_the_preview_and_embeds_skips_links_out(hostile):
    manager, _ = hostile
    index = VaultIndex.scan(manager.layout.notebook_dir)
    for rel in LINKS:
        assert rel.lower() not in index.by_rel
    assert "2_wiki/ok.md" in index.by_rel


async def test_lint_names_the_loop_and_the_links_out_without_failing(hostile):
    manager, _ = hostile
    findings = audit(manager.home)
    named = {f.path for f in findings if f.kind == "not_followed"}
    assert {"2_Wiki/p.md", "2_Wiki/loopA.md", "2_Wiki/loopB.md", "2_Wiki/statelink.md"} <= named


async def test_doctor_lists_links_that_are_not_followed(hostile, clock):
    manager, _ = hostile
    problems = run_doctor(manager.layout.home, clock=clock, check_index=False)
    named = {p.path for p in problems if p.message.startswith(NOT_FOLLOWED)}
    assert {"2_Wiki/p.md", "2_Wiki/loopA.md", "2_Wiki/cfg.md"} <= {Path(p).relative_to(
        manager.layout.notebook_dir).as_posix() for p in named}


async def test_a_link_target_the_user_allowed_is_followed(home, clock, tmp_path):
    make_manager(home, clock)
    outside = _hostile(home, tmp_path)
    manager = make_manager(home, clock, outside_link_targets=str(outside))
    await manager.indexing.reindex()
    hits = (await manager.searching.search("zebra passphrase hunter2", limit=50, record_recall=False)).hits
    assert any(SECRET in h.text for h in hits)
    assert all(STATE not in h.text and "config" not in h.text for h in hits)


def test_the_rule_itself(tmp_path):
    vault = tmp_path / "v"
    (vault / "a").mkdir(parents=True)
    (vault / ".state").mkdir()
    (vault / "a" / "x.md").write_text("x")
    os.symlink(tmp_path, vault / "a" / "up")
    rule = Confinement.of(vault)
    assert rule.allows(vault / "a" / "x.md")
    assert "program" in rule.refusal(vault / ".state" / "t.jsonl")
    assert "program" in rule.refusal(vault / "a" / "up" / "v" / ".state")
    assert rule.allows(vault / "a" / "up" / "v" / "a" / "x.md")  # out and back in: judged where it lands
    (tmp_path / "other.md").write_text("o")
    assert "outside" in rule.refusal(vault / "a" / "up" / "other.md")
    assert confine.Confinement.of(vault, outside=[str(tmp_path)]).refusal(vault / "a" / "up" / "v" / ".state") is not None


async def test_every_door_asks_the_one_rule(hostile, monkeypatch, clock):
    """Each door below reads the vault; each must ask Confinement.refusal (core/files/disk/confine.py)."""
    manager, _ = hostile
    asked: list[str] = []
    original = Confinement.refusal

    def spy(self, path, *, real=None):
        asked.append(str(path))
        return original(self, path, real=real)

    monkeypatch.setattr(Confinement, "refusal", spy)
    tools = MemoryTools(manager, read_only=True, activity=ActivityRecorder(Path("/nonexistent"), enabled=False))
    doors = {
        "index pass": lambda: manager.indexer.stale_paths(refresh=True),
        "search": None,
        "dream read": lambda: VaultTools(manager.layout.notebook_dir).read("2_Wiki/Ok.md"),
        "dream list": lambda: VaultTools(manager.layout.notebook_dir).list(""),
        "read_page": lambda: tools.page_text("2_Wiki/Ok.md"),
        "core resource": lambda: tools.core_text("MEMORY.md"),
        "links, preview and embeds": lambda: VaultIndex.scan(manager.layout.notebook_dir),
        "lint": lambda: audit(manager.home),
        "doctor": lambda: run_doctor(manager.layout.home, clock=clock, check_index=False),
    }
    for door, call in doors.items():
        asked.clear()
        if call is None:
            await manager.searching.search("zebra", record_recall=False)
        else:
            call()
        assert asked, f"{door} read the vault without asking the confinement rule"
