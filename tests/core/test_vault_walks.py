"""A dream and a lint in one process walk the vault once: every part asks the home's one model."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from dream_support import days_before, make_manager, write_log

from suzent_desktop.core.vault import links
from suzent_desktop.core.vault import model as vault


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """Every walk of a folder tree and every resolver built by a walk, by kind."""
    seen: dict[str, list[str]] = {"vault": [], "vault_files": [], "VaultIndex.scan": [], "os.walk": [], "listed": []}
    real_entries, real_files, real_scan, real_walk = vault._walk_entries, links.vault_files, links.VaultIndex.scan, os.walk
    monkeypatch.setattr(vault, "_walk_entries", lambda top, *rest: seen["vault"].append(str(top)) or real_entries(top, *rest))
    monkeypatch.setattr(links, "vault_files", lambda root: seen["vault_files"].append(str(root)) or real_files(root))
    monkeypatch.setattr(links.VaultIndex, "scan",
                        classmethod(lambda cls, root: seen["VaultIndex.scan"].append(str(root)) or real_scan.__func__(cls, root)))
    monkeypatch.setattr(os, "walk", lambda top, *a, **k: seen["os.walk"].append(str(top)) or real_walk(top, *a, **k))
    # Every walker lists a folder with os.scandir (os.walk, pathlib's glob and rglob, the confinement
    # rule's walk): a listing of the vault's root folder is a walk of the vault, whoever asks for it.
    real_scandir = os.scandir
    monkeypatch.setattr(os, "scandir", lambda path=".": seen["listed"].append(os.fspath(path)) or real_scandir(path))
    return seen


@pytest.mark.parametrize("watched", [True, False])
async def test_a_dream_then_a_lint_walk_the_vault_once(home: Path, clock, today, walks, watched) -> None:  # noqa: ANN001
    """As in the window (a watcher reports changes) the vault is walked once; without one (the command
    line) the dream, the index pass after it, the clean-up of forgotten text and lint each look at the disk
    once, as they must where nothing reports what other programs change; either way no part walks the
    vault on its own."""
    manager = make_manager(home, clock, memory_lint_enabled=True, memory_lint_min_days=0)
    manager.indexer.watch(watched)
    for seen in walks.values():  # opening sweeps temp files left by killed writes (hidden ones too): not counted
        seen.clear()
    root = manager.layout.notebook_dir
    (root / "2_Wiki" / "Kyoto.md").write_text("# Kyoto\n\nSee [[Tokyo]] and [[Nowhere]].\n\nTemples.\n", encoding="utf-8")
    (root / "2_Wiki" / "Tokyo.md").write_text("# Tokyo\n\nBack to [[Kyoto]] #trip\n", encoding="utf-8")
    for day in days_before(today, 2):
        write_log(manager, day, ["User works at Contoso", "User lives in Lisbon"])
    manager.tombstones.add("Temples.")  # after the run, forgotten text is taken off every page: from the model
    result = await manager.dreaming.runner().run_once()
    assert result.outcome == "productive"
    lint = await manager.linting.run()
    assert lint.ok
    assert [f.path for f in lint.findings if f.kind == "broken_link"] == ["2_Wiki/Kyoto.md"]
    full = [w for w in walks["vault"] if w == str(root)]
    assert len(full) == (1 if watched else 4), walks  # one walk of the vault, then only what changed
    assert walks["VaultIndex.scan"] == [] and walks["vault_files"] == []
    assert [w for w in walks["os.walk"] if w.startswith(str(root))] == []
    assert manager.vault.walks == len(full)
    # nothing else lists the vault: not the dream's tools (the index page, coverage), not promotion
    assert [p for p in walks["listed"] if p == str(root)] == full
    # where promotion finds its facts: listed by the model's walks, and where nothing watches looked at
    # once more by promotion itself (only that folder)
    personal = str(manager.layout.notebook_dir / "3_Personal")
    assert [p for p in walks["listed"] if p == personal] == [personal] * (len(full) + (0 if watched else 1))
    assert "Temples." not in (root / "2_Wiki" / "Kyoto.md").read_text(encoding="utf-8")
    # the model knows the dream's pages without walking again
    written = {p.name for p in manager.vault.snapshot().pages()}
    assert {"Kyoto.md", "Tokyo.md", "Work.md"} <= written
