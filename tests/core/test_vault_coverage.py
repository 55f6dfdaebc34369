"""Vault coverage: JSON Canvas boards and symlinked folders are searched and their links checked."""

from __future__ import annotations

import json

from dream_support import make_manager

from suzent_desktop.core.engines.dream.lint import link_audit
from suzent_desktop.core.vault.canvas import canvas_markdown


def board(*nodes: dict) -> str:
    return json.dumps({"nodes": list(nodes), "edges": []})


def test_canvas_reads_as_its_text_nodes_and_file_embeds() -> None:
    text = board(
        {"id": "1", "type": "text", "text": "Plan the **trip** with [[Maps]]"},
        {"id": "2", "type": "file", "file": "4_Assets/map.png"},
        {"id": "3", "type": "file", "file": "Notes/Trip.md", "subpath": "#Day 1"},
        {"id": "4", "type": "link", "url": "https://example.org"},
        {"id": "5", "type": "group", "label": "Ideas"},
    )
    assert canvas_markdown(text) == (
        "Plan the **trip** with [[Maps]]\n\n![[4_Assets/map.png]]\n\n![[Notes/Trip.md#Day 1]]\n\nIdeas\n"
    )
    assert canvas_markdown("{not json") == "" and canvas_markdown("[]") == "" and canvas_markdown("") == ""


async def test_canvas_text_is_searchable_and_its_links_are_checked(home, clock) -> None:
    manager = make_manager(home, clock)
    root = manager.layout.notebook_dir
    (root / "2_Wiki" / "Trip board.canvas").write_text(board(
        {"id": "1", "type": "text", "text": "Kayak rental in Bergen opens at nine. See [[Nowhere land]]."},
        {"id": "2", "type": "file", "file": "2_Wiki/Packing.md"},
    ), encoding="utf-8")
    (root / "2_Wiki" / "Packing.md").write_text("# Packing\n\nDry bags.\n", encoding="utf-8")
    await manager.indexing.reindex()
    result = await manager.searching.search("kayak rental Bergen", record_recall=False)
    assert result.hits and result.hits[0].path.endswith("Trip board.canvas")
    findings = link_audit(manager.home)
    assert [(f.kind, f.path) for f in findings if f.kind == "broken_link"] == [
        ("broken_link", "2_Wiki/Trip board.canvas")
    ]
    assert "2_Wiki/Packing.md" not in {f.path for f in findings if f.kind == "orphan"}  # the board links it


async def test_symlinked_folders_are_indexed_and_their_pages_are_link_targets(home, clock, tmp_path) -> None:
    import os

    shared = tmp_path / "shared notes"
    manager = make_manager(home, clock, outside_link_targets=str(shared))  # the user allowed this link target
    root = manager.layout.notebook_dir
    shared.mkdir()
    (shared / "Sourdough.md").write_text("# Sourdough\n\nFeed the starter with rye flour twice a day.\n", encoding="utf-8")
    os.symlink(shared, root / "2_Wiki" / "Shared")
    os.symlink(root / "2_Wiki", root / "2_Wiki" / "Shared" / "back")  # a loop back into the vault
    (root / "2_Wiki" / "Bread.md").write_text("# Bread\n\nSee [[Sourdough]].\n", encoding="utf-8")
    await manager.indexing.reindex()
    result = await manager.searching.search("starter rye flour", record_recall=False)
    assert result.hits and result.hits[0].path == str(root / "2_Wiki" / "Shared" / "Sourdough.md")
    assert [f for f in link_audit(manager.home) if f.kind == "broken_link"] == []
