"""Conflict files left by sync tools: recognised, merged when they are a stream, listed by doctor."""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path

import pytest

from suzent_desktop.core.doctor import run_doctor
from suzent_desktop.core.engines.dream.tools import PageChangedError, VaultTools
from suzent_desktop.core.files.records.archive import Archive
from suzent_desktop.core.files.records.log_grammar import Fact
from suzent_desktop.core.files.sync import sync_check
from suzent_desktop.core.files.sync.sync_conflicts import has_git_markers, original_name
from suzent_desktop.core.home import bootstrap_home


@pytest.mark.parametrize(("name", "original", "tool"), [
    ("Work.sync-conflict-20261205-142233-7ZXQ3RT.md", "Work.md", "Syncthing"),
    ("Work.md.conflict1", "Work.md", "rclone"),
    ("Work.conflict2.md", "Work.md", "rclone"),
    ("Work (Laptop's conflicted copy 2026-12-05).md", "Work.md", "Dropbox"),
    ("Work (conflicted copy 2026-12-05 142233).md", "Work.md", "Nextcloud"),
])
def test_conflict_names_of_each_tool(name: str, original: str, tool: str):
    assert original_name(name) == (original, tool)


def test_ordinary_names_are_not_conflicts():
    for name in ("Work.md", "conflict.md", "2026-12-05@laptop.md", "Notes (draft).md"):
        assert original_name(name) is None


def test_git_markers_outside_code_only():
    page = "# Work\n<<<<<<< HEAD\n- at Acme\n=======\n- at Initech\n>>>>>>> laptop\n"
    assert has_git_markers(page)
    assert not has_git_markers("```\n" + page + "```\n")
    assert not has_git_markers("<<<<<<< alone\n")


def test_doctor_lists_copies_and_markers_and_a_log_copy_is_not_a_page(layout):
    bootstrap_home(layout)
    archive = Archive(layout)
    archive.append_turn([Fact("User likes tea")], session_id="abc", when=dt.datetime(2026, 7, 1, 14, 5))
    log_copy = layout.archive_dir / "2026-07-01.sync-conflict-20260701-150000-ABCDEFG.md"
    log_copy.write_text((layout.archive_dir / "2026-07-01.md").read_text() + "\n## 15:00 — x\n\n- User rows\n")
    page = layout.notebook_dir / "3_Personal" / "Work.md"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text("# Work\n<<<<<<< HEAD\n- at Acme\n=======\n- at Initech\n>>>>>>> laptop\n")
    (layout.notebook_dir / "3_Personal" / "Work.md.conflict1").write_text("# Work\n- at Acme\n")
    found = {Path(f.path).name: f.message for f in sync_check.findings(layout)}
    assert "its lines are read with the original's" in found[log_copy.name]
    assert "git conflict markers" in found["Work.md"]
    assert "compare the two" in found["Work.md.conflict1"]
    messages = [p.message for p in run_doctor(layout.home, check_index=False)]
    assert any("conflict copy left by rclone of Work.md" in m for m in messages)
    # The log's copy is a part of the day, not a badly named file.
    assert not any("YYYY-MM-DD" in m for m in messages)


def test_the_vault_model_finds_the_conflicts_the_disk_does_without_reading_a_page(layout, monkeypatch):
    """The window's list takes the vault's files and page texts from the model; only the memory folder
    and ``.state`` are walked, and no page is read again."""
    from suzent_desktop.core.vault.model import Vault

    bootstrap_home(layout)
    Archive(layout).append_turn([Fact("User likes tea")], session_id="abc", when=dt.datetime(2026, 7, 1, 14, 5))
    (layout.archive_dir / "2026-07-01.sync-conflict-20260701-150000-ABCDEFG.md").write_text("# log copy\n")
    personal = layout.notebook_dir / "3_Personal"
    personal.mkdir(parents=True, exist_ok=True)
    (personal / "Work.md").write_text("# Work\n<<<<<<< HEAD\n- at Acme\n=======\n- at Initech\n>>>>>>> laptop\n")
    (personal / "Work.md.conflict1").write_text("# Work\n- at Acme\n")
    (personal / "Calm.md").write_text("# Calm\n\nNo markers.\n")
    layout.state_dir.mkdir(parents=True, exist_ok=True)
    (layout.state_dir / "tombstones (conflicted copy 2026-07-01 150000).jsonl").write_text("{}\n")
    model = Vault(layout).snapshot()
    from_disk = sync_check.conflicts(layout)
    read: list[str] = []
    real = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: read.append(self.name) or real(self))
    assert sync_check.conflicts(layout, model) == from_disk
    assert len(from_disk) == 4 and read == []


def test_doctor_warns_when_the_index_is_inside_a_synced_folder(layout):
    bootstrap_home(layout)
    (layout.home / ".stfolder").mkdir()
    assert any("index folder is inside" in f.message for f in sync_check.findings(layout))
    (layout.home / ".stignore").write_text("// ready list\n.suzent\n")
    assert not any("index folder is inside" in f.message for f in sync_check.findings(layout))


def test_a_page_changed_since_it_was_read_is_never_overwritten(tmp_path: Path):
    vault = tmp_path / "vault"
    (vault / "3_Personal").mkdir(parents=True)
    page = vault / "3_Personal" / "Work.md"
    page.write_text("# Work\n- at Acme\n")
    tools = VaultTools(vault)
    text = tools.read("3_Personal/Work.md")
    page.write_text("# Work\n- at Acme\n- edited on the other device\n")  # a sync arrives
    with pytest.raises(PageChangedError):
        tools.write("3_Personal/Work.md", text + "- new fact\n")
    assert "other device" in page.read_text()


def test_rollback_leaves_a_page_another_device_changed_since(tmp_path: Path):
    vault = tmp_path / "vault"
    (vault / "3_Personal").mkdir(parents=True)
    page = vault / "3_Personal" / "Work.md"
    page.write_text("# Work\n")
    tools = VaultTools(vault)
    tools.write("3_Personal/Work.md", tools.read("3_Personal/Work.md") + "- run's fact\n")
    page.write_text("# Work\n- run's fact\n- the other device's edit\n")
    tools.rollback()
    assert "other device" in page.read_text() and tools.left_alone == ["3_Personal/Work.md"]


def test_a_conflict_copy_of_a_log_is_searched_as_facts_not_as_a_page(home: Path, clock):
    from suzent_desktop.core.home import open_home
    from suzent_desktop.core.index.embedding import HashingEmbedder

    opened = open_home(home, clock=clock, embedder=HashingEmbedder())
    when = dt.datetime(2026, 7, 20, 9, 0)
    opened.archive.append_turn([Fact("User likes tea")], session_id="s", when=when)
    original = opened.layout.archive_dir / "2026-07-20.md"
    copy = opened.layout.archive_dir / "2026-07-20 (Laptop's conflicted copy 2026-07-20).md"
    copy.write_text(original.read_text() + "\n## 10:00 — t\n\n- [hobby] User collects stamps\n")

    async def hits():
        await opened.indexer.sync()
        return (await opened.indexer.search("stamps", limit=5)).hits

    found = asyncio.run(hits())
    assert found and found[0].text == "User collects stamps" and found[0].source_type == "archive"
