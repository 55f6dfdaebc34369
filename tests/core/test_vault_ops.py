"""Rename/move rewrites every link form through the one grammar and resolver; code is never touched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dream_support import make_manager

from suzent_desktop.core.engines.dream.lint import link_audit
from suzent_desktop.core.vault import vault_ops


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


# -- a move asked of the vault model reads only the files linking to what moves ---------------------
def _rich_vault(root: Path) -> None:
    index = root / "index.md"  # the program's own (a navigation file), as a home bootstraps it
    index.write_text(index.read_text(encoding="utf-8") + "\n- [[Espresso]] · [[Tools/Espresso]] · [t](Tools/Espresso.md)\n",
                     encoding="utf-8")
    _write(root, "Tools/Espresso.md", "# Espresso\n\n## Cleaning\n\n[[Grinder]] and [g](Grinder.md)\n")
    _write(root, "Tools/Grinder.md", "# Grinder\n\n![[Assets/burr.png]] [[Espresso#Cleaning]]\n")
    _write(root, "Tools/Assets/burr.png", "png")
    _write(root, "Notes/Morning.md", "[[Espresso|coffee]] ![[burr.png]] [x](../Tools/Grinder.md) `[[Espresso]]`\n")
    _write(root, "Board.canvas", _board(PLAN, SHOWN))
    _write(root, "Notes/Unrelated.md", "# Unrelated\n\nNo links here.\n")


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(("old", "new"), [
    ("Tools/Espresso.md", "Kitchen/Espresso machine.md"),
    ("Tools", "Kitchen/Tools"),
    ("Tools/Assets/burr.png", "Media/burr.png"),
])
def test_a_move_asked_of_the_model_writes_what_a_move_reading_the_whole_vault_writes(
        home: Path, clock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, old: str, new: str) -> None:
    import shutil

    manager = make_manager(home, clock)
    modelled = manager.layout.notebook_dir  # the program's own index.md is a navigation file of the model
    _rich_vault(modelled)
    plain = tmp_path / "plain"
    shutil.copytree(modelled, plain)
    vault = manager.vault
    vault.snapshot()  # the model as a window holds it after its first walk
    walks = vault.walks
    vault_ops.move_path(plain, plain / old, plain / new)
    read: list[str] = []
    real_read_text = Path.read_text
    monkeypatch.setattr(Path, "read_text", lambda self, *a, **kw: read.append(self.name) or real_read_text(self, *a, **kw))
    monkeypatch.setattr(vault_ops, "vault_files", lambda *a, **kw: pytest.fail("the vault was listed"))

    vault_ops.move_path(modelled, modelled / old, modelled / new, vault)

    assert _files(modelled) == _files(plain)  # same files, same bytes
    assert "[[Kitchen" in (modelled / "index.md").read_text(encoding="utf-8") or old.endswith(".png")
    assert vault.kind(modelled / "index.md").value == "nav"
    assert "Unrelated.md" not in read and vault.walks == walks  # no file without a link to it read, no walk
    on_disk = sorted(p for p in modelled.rglob("*") if p.is_file() and not any(x.startswith(".") for x in p.parts))
    assert vault.snapshot().files() == on_disk  # and the model was told of every file written
