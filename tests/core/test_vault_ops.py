"""Rename/move rewrites every link form through the one grammar and resolver; code is never touched."""

from __future__ import annotations

from pathlib import Path

from suzent_desktop.core import vault_ops


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
