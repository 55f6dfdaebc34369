"""Writes are judged by where a path resolves: links up, out of the vault and into .state."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from dream_support import days_before, make_manager, page, write_log
from test_dream_agent import MODEL, ScriptedLLM, tool_reply

from suzent_desktop.core.doctor import run_doctor
from suzent_desktop.core.engines.dream.tools import VaultAccessError, VaultTools


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for folder in ("3_Personal", "4_Assets", ".state", ".obsidian", ".trash", "2_Wiki"):
        (root / folder).mkdir(parents=True)
    (root / "log.md").write_text("# Log\n\n## [2026-07-01] ingest | daily logs  watermark=2026-06-30\n", encoding="utf-8")
    (root / "schema.md").write_text("# Schema\n", encoding="utf-8")
    (root / "index.md").write_text("# Index\n", encoding="utf-8")
    (root / "3_Personal" / "Work.md").write_text("# Work\n", encoding="utf-8")
    return root


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(
    ("link", "target", "write"),
    [
        ("3_Personal/root", "..", "3_Personal/root/log.md"),  # a folder link up to the vault root
        ("3_Personal/root", "..", "3_Personal/root/schema.md"),
        ("3_Personal/root", "..", "3_Personal/root/index.md"),
        ("3_Personal/up", "../..", "3_Personal/up/vault/log.md"),  # up and back in by name
        ("3_Personal/state", "../.state", "3_Personal/state/ok.md"),  # a folder link into .state
        ("3_Personal/cfg", "../.obsidian", "3_Personal/cfg/app.md"),
        ("3_Personal/bin", "../.trash", "3_Personal/bin/old.md"),
        ("3_Personal/assets", "../4_Assets", "3_Personal/assets/note.md"),
        ("3_Personal/Log.md", "../log.md", "3_Personal/Log.md"),  # a file link to log.md
        ("3_Personal/Tomb.md", "../.state/tomb.md", "3_Personal/Tomb.md"),  # a dangling file link into .state
    ],
)
def test_writes_through_links_to_protected_places_are_refused(vault, link, target, write):
    os.symlink(target, vault / link)
    before = _files(vault)
    tools = VaultTools(vault)
    with pytest.raises(VaultAccessError):
        tools.write(write, "## [2099-01-01] ingest | x  watermark=2099-01-01\n")
    assert _files(vault) == before
    assert tools.originals == {}


@pytest.mark.parametrize("kind", ["folder", "file"])
def test_writes_through_links_out_of_the_vault_are_refused(vault, tmp_path, kind):
    outside = tmp_path / "outside"
    outside.mkdir()
    if kind == "folder":
        os.symlink(outside, vault / "3_Personal" / "out")
        path = "3_Personal/out/new.md"
    else:
        os.symlink(outside / "new.md", vault / "3_Personal" / "New.md")  # dangling: would create outside
        path = "3_Personal/New.md"
    tools = VaultTools(vault)
    with pytest.raises(VaultAccessError, match="outside the vault"):
        tools.write(path, "# leaked\n")
    assert list(outside.iterdir()) == []


def test_a_symlink_loop_is_refused_not_a_crash(vault):
    os.symlink("loop_b", vault / "3_Personal" / "loop_a")
    os.symlink("loop_a", vault / "3_Personal" / "loop_b")
    tools = VaultTools(vault)
    with pytest.raises(VaultAccessError):
        tools.write("3_Personal/loop_a/x.md", "x")
    assert "3_Personal/Work.md" in tools.list("")


def test_index_md_through_a_link_is_left_alone(vault, tmp_path):
    (vault / "index.md").unlink()
    os.symlink(vault / "3_Personal" / "Work.md", vault / "index.md")
    tools = VaultTools(vault)
    with pytest.raises(VaultAccessError):
        tools.write_index("# Index\n")
    assert (vault / "3_Personal" / "Work.md").read_text(encoding="utf-8") == "# Work\n"


def test_rollback_restores_the_file_a_link_resolved_to(vault):
    os.symlink("../3_Personal", vault / "2_Wiki" / "personal")
    tools = VaultTools(vault)
    tools.write("2_Wiki/personal/Work.md", "# Work\n\n- rewritten\n")
    tools.write("2_Wiki/personal/New.md", "# New\n")
    assert set(tools.originals) == {"3_Personal/Work.md", "3_Personal/New.md"}
    restored = tools.rollback()
    assert sorted(restored) == ["3_Personal/New.md", "3_Personal/Work.md"]
    assert (vault / "3_Personal" / "Work.md").read_text(encoding="utf-8") == "# Work\n"
    assert not (vault / "3_Personal" / "New.md").exists()


async def test_a_model_writing_through_a_link_up_changes_nothing_and_is_not_productive(home, clock, today):
    manager = make_manager(home, clock, memory_consolidation_model=MODEL)
    write_log(manager, days_before(today, 1)[0], ["User likes green tea"])
    root = manager.layout.notebook_dir
    os.symlink("..", root / "3_Personal" / "root")
    os.symlink("../.state", root / "3_Personal" / "state")
    log_before = manager.layout.log_md.read_bytes()
    schema_before = manager.layout.schema_md.read_bytes()
    script = ScriptedLLM([
        tool_reply(("write", {"path": "3_Personal/root/log.md", "content": "# gone\n"}),
                   ("write", {"path": "3_Personal/root/schema.md", "content": "# gone\n"}),
                   ("write", {"path": "3_Personal/state/ok.md", "content": "# ok\n"})),
        "done",
    ])
    result = await manager.dreaming.runner(llm=script).run_once()
    assert result.outcome != "productive"
    assert manager.layout.log_md.read_bytes().startswith(log_before)
    assert manager.layout.schema_md.read_bytes() == schema_before
    assert not (manager.layout.state_dir / "ok.md").exists()
    tool_results = [m["content"] for m in script.seen[1] if m["role"] == "tool"]
    assert len(tool_results) == 3 and all(r.startswith("error:") for r in tool_results)


async def test_a_failed_run_rolls_back_pages_written_through_a_link(home, clock, today):
    manager = make_manager(home, clock, memory_consolidation_model=MODEL)
    write_log(manager, days_before(today, 1)[0], ["User likes green tea"])
    root = manager.layout.notebook_dir
    (root / "3_Personal" / "Tea.md").write_text("# Tea\n", encoding="utf-8")
    os.symlink("../3_Personal", root / "2_Wiki" / "mine")
    script = ScriptedLLM([
        tool_reply(("write", {"path": "2_Wiki/mine/Tea.md", "content": "# Tea\n\n- green\n"})),
        Exception("rate limited"),
    ])
    result = await manager.dreaming.runner(llm=script).run_once()
    assert result.outcome == "failed"
    assert page(manager, "3_Personal/Tea.md") == "# Tea\n"


# -- forget, undo and the dream's clean-up never edit a page reached through a link out ---------------
SHARED = "# Shared\n\n- I love green tea every morning.\n- The office opens at nine.\n"
GREEN_TEA = "I love green tea every morning."


async def _found(manager, needle: str) -> bool:
    response = await manager.searching.search(needle, limit=20, record_recall=False)
    return any(needle.lower() in h.text.lower() for h in response.hits)


def _link_out(manager, tmp_path: Path, text: str = SHARED) -> Path:
    """``Ext`` in the vault, a folder link to a real folder outside the home holding Shared.md."""
    outside = tmp_path / "outside"
    outside.mkdir(exist_ok=True)
    shared = outside / "Shared.md"
    shared.write_bytes(text.encode("utf-8"))
    os.symlink(outside, manager.layout.notebook_dir / "Ext")
    return shared


async def test_forget_and_undo_leave_a_page_outside_the_vault_untouched(home, clock, tmp_path, monkeypatch):
    monkeypatch.setenv("SUZENT_OUTSIDE_LINK_TARGETS", str(tmp_path / "outside"))  # the user allowed it
    manager = make_manager(home, clock)
    shared = _link_out(manager, tmp_path)
    await manager.indexing.reindex()
    assert await _found(manager, "green tea every morning")

    changes = await manager.forgetting.forget(GREEN_TEA)
    assert shared.read_bytes() == SHARED.encode("utf-8")
    assert any("Shared.md" in e and "outside the vault" in e for e in changes.errors)
    assert not await _found(manager, "green tea every morning")
    await manager.indexing.reindex(full=True)
    assert not await _found(manager, "green tea every morning")
    named = [p for p in run_doctor(home, clock=clock, check_index=False) if p.path and p.path.endswith("Shared.md")]
    assert [p.message.startswith("forgotten text remains on this page, outside the vault") for p in named] == [True]

    await manager.forgetting.undo(GREEN_TEA)
    assert shared.read_bytes() == SHARED.encode("utf-8")
    assert await _found(manager, "green tea every morning")


async def test_undo_never_writes_back_through_a_link_that_now_leads_out(home, clock, tmp_path, monkeypatch):
    monkeypatch.setenv("SUZENT_OUTSIDE_LINK_TARGETS", str(tmp_path / "outside"))  # the user allowed it
    manager = make_manager(home, clock)
    inside = manager.layout.notebook_dir / "Ext"
    inside.mkdir()
    (inside / "Shared.md").write_text(SHARED, encoding="utf-8")
    await manager.forgetting.forget(GREEN_TEA)
    assert "green tea" not in (inside / "Shared.md").read_text(encoding="utf-8")

    (inside / "Shared.md").unlink()
    inside.rmdir()  # the folder is now a link out, holding a file of the same name
    shared = _link_out(manager, tmp_path, "# Shared\n\n- The office opens at nine.\n")
    changes = await manager.forgetting.undo(GREEN_TEA)
    assert shared.read_text(encoding="utf-8") == "# Shared\n\n- The office opens at nine.\n"
    assert any("Shared.md" in e and "outside the vault" in e for e in changes.errors)


async def test_the_dream_clean_up_leaves_a_page_outside_the_vault_untouched(home, clock, today, tmp_path, monkeypatch):
    monkeypatch.setenv("SUZENT_OUTSIDE_LINK_TARGETS", str(tmp_path / "outside"))  # the user allowed it
    manager = make_manager(home, clock)
    await manager.forgetting.forget(GREEN_TEA, force=True)
    shared = _link_out(manager, tmp_path)  # the forgotten text stands outside, typed there later
    write_log(manager, days_before(today, 1)[0], ["User likes oolong"])
    result = await manager.dreaming.runner().run_once(force=True)
    assert result.outcome == "productive", (result.reason, result.changes.errors)
    assert shared.read_bytes() == SHARED.encode("utf-8")
    assert any("Shared.md" in e and "outside the vault" in e for e in result.changes.errors)
