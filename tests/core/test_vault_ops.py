"""Rename/move rewrites every link form through the one grammar and resolver; code is never touched."""

from __future__ import annotations

import json
from pathlib import Path

from dream_support import make_manager

from suzent_desktop.core import vault_ops
from suzent_desktop.core.dream.lint import link_audit


def _write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_rename_rewrites_every_form_keeps_escaped_pipes_and_leaves_code(tmp_path: Path) -> None:
    old = _write(tmp_path, "Docs/Table view.md", "# Table view\n\nSee [sibling](Other%20Page.md).\n")
    _write(tmp_path, "Docs/Other Page.md", "# Other\n")
    linker = _write(tmp_path, "Notes/Linker.md", (
        "[[Table view]] [[Table view|tv]] [[Table view#Sorting]] ![[Table view]]\n"
        "| col | [[Table view\\|Table]] |\n|---|---|\n"
        "[md](../Docs/Table%20view.md#Sorting) `[[Table view]]`\n"
        "```\n[[Table view]]\n```\n"
    ))
    new = tmp_path / "Docs" / "Sub" / "Table layout.md"
    vault_ops.rename_page(tmp_path, old, new)
    text = linker.read_text(encoding="utf-8")
    assert text == (
        "[[Table layout]] [[Table layout|tv]] [[Table layout#Sorting]] ![[Table layout]]\n"
        "| col | [[Table layout\\|Table]] |\n|---|---|\n"
        "[md](../Docs/Sub/Table%20layout.md#Sorting) `[[Table view]]`\n"
        "```\n[[Table view]]\n```\n"
    )
    assert "[sibling](../Other%20Page.md)" in new.read_text(encoding="utf-8")  # its own links re-based


def test_moving_a_folder_carries_links_to_its_attachments(tmp_path: Path) -> None:
    _write(tmp_path, "Assets/cat.png", "png")
    page = _write(tmp_path, "Page.md", "![[Assets/cat.png]] ![[cat.png]] ![c](Assets/cat.png)\n")
    vault_ops.rename_folder(tmp_path, tmp_path / "Assets", tmp_path / "Media")
    assert page.read_text(encoding="utf-8") == "![[Media/cat.png]] ![[cat.png]] ![c](Media/cat.png)\n"


def test_backlinks_count_markdown_links_and_embeds(tmp_path: Path) -> None:
    target = _write(tmp_path, "a/Target.md", "# T\n")
    _write(tmp_path, "b/One.md", "[x](../a/Target.md)\n")
    _write(tmp_path, "b/Two.md", "![[Target]]\n`[[Target]]`\n")
    _write(tmp_path, "b/Three.md", "```\n[[Target]]\n```\n")
    hits = vault_ops.backlinks(tmp_path, target)
    assert [(p.name, line) for p, line, _ in hits] == [("One.md", 1), ("Two.md", 1)]


# -- JSON Canvas boards follow a rename or move -----------------------------------------------------
def _board(*nodes: dict, indent: str | None = "\t") -> str:
    return json.dumps({"nodes": list(nodes), "edges": []}, indent=indent, ensure_ascii=False) + "\n"


PLAN = {"id": "1", "type": "text", "text": "Plan: [[Espresso|the machine]], [beans](Tools/Espresso.md) — café", "x": 0,
        "y": 0, "width": 200, "height": 80}
SHOWN = {"id": "2", "type": "file", "file": "Tools/Espresso.md", "subpath": "#Cleaning", "x": 300, "y": 0,
         "width": 200, "height": 80}


async def test_renaming_a_page_rewrites_its_links_on_boards_and_lint_finds_none_broken(home, clock) -> None:
    manager = make_manager(home, clock)
    root = manager.layout.notebook_dir
    old = _write(root, "Tools/Espresso.md", "# Espresso\n\n## Cleaning\n")
    board = _write(root, "Board.canvas", _board(PLAN, SHOWN))
    other = _write(root, "Other.canvas", _board({"id": "9", "type": "text", "text": "[[Other page]]"}, indent=None))
    _write(root, "Other page.md", "# Other page\n")
    other_before = other.read_bytes()

    vault_ops.rename_page(root, old, root / "Tools" / "Espresso machine.md")

    assert board.read_text(encoding="utf-8") == _board(
        {**PLAN, "text": "Plan: [[Espresso machine|the machine]], [beans](Tools/Espresso%20machine.md) — café"},
        {**SHOWN, "file": "Tools/Espresso machine.md"},
    )  # same keys, order, indent and characters: only the links changed
    assert other.read_bytes() == other_before  # nothing pointed at the page: not written
    assert [f for f in link_audit(manager.home) if f.kind == "broken_link"] == []


def test_moving_a_folder_rewrites_board_file_nodes_and_keeps_a_compact_board_compact(tmp_path: Path) -> None:
    _write(tmp_path, "Tools/Espresso.md", "# Espresso\n")
    board = _write(tmp_path, "Boards/Kit.canvas", json.dumps({"nodes": [SHOWN]}, separators=(",", ":")))
    vault_ops.rename_folder(tmp_path, tmp_path / "Tools", tmp_path / "Kitchen")
    assert board.read_text(encoding="utf-8") == json.dumps(
        {"nodes": [{**SHOWN, "file": "Kitchen/Espresso.md"}]}, separators=(",", ":")
    )
