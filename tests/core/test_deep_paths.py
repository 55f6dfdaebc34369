"""A path too deep or too long in a tool call is a tool error, and a rollback removes the folders it made."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from suzent_desktop.core.engines.dream.tools import VaultTools
from suzent_desktop.core.vault.vault_ops import VaultOpError, move_path


def _write(tools: VaultTools, rel: str) -> str:
    return asyncio.run(tools.dispatch("write", json.dumps({"path": rel, "content": "# Page\n\n- a fact\n"})))


def _folders(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_dir()]


@pytest.mark.parametrize("levels", [1200, 400])
def test_a_path_hundreds_of_folders_deep_is_a_tool_error(tmp_path: Path, levels: int):
    tools = VaultTools(tmp_path)
    answer = _write(tools, "/".join(["d"] * levels) + "/p.md")
    assert answer.startswith("error:") and f"{levels} folders deep" in answer
    assert _folders(tmp_path) == []
    read = asyncio.run(tools.dispatch("read", json.dumps({"path": "/".join(["d"] * levels) + "/p.md"})))
    assert read.startswith("error:") and "folders deep" in read


def test_a_path_too_long_in_bytes_is_a_tool_error(tmp_path: Path):
    answer = _write(VaultTools(tmp_path), "/".join(["n" * 150] * 8) + "/p.md")
    assert answer.startswith("error:") and "bytes long" in answer
    assert _folders(tmp_path) == []


def test_a_rollback_removes_the_folders_the_run_made(tmp_path: Path):
    (tmp_path / "2_Wiki").mkdir()
    tools = VaultTools(tmp_path)
    assert _write(tools, "2_Wiki/a/b/c/d/e/Deep.md").startswith("ok")
    assert _write(tools, "2_Wiki/a/b/x/Other.md").startswith("ok")
    tools.rollback()
    assert _folders(tmp_path) == [tmp_path / "2_Wiki"]  # the folder that was there before stays


def test_a_rollback_keeps_a_made_folder_someone_else_filled(tmp_path: Path):
    tools = VaultTools(tmp_path)
    assert _write(tools, "2_Wiki/a/b/Deep.md").startswith("ok")
    (tmp_path / "2_Wiki" / "a" / "mine.md").write_text("a person's page\n", encoding="utf-8")
    tools.rollback()
    assert (tmp_path / "2_Wiki" / "a" / "mine.md").is_file() and not (tmp_path / "2_Wiki" / "a" / "b").exists()


def test_moving_a_page_too_deep_is_refused(tmp_path: Path):
    page = tmp_path / "p.md"
    page.write_text("# P\n", encoding="utf-8")
    with pytest.raises(VaultOpError, match="1200 folders deep"):
        move_path(tmp_path, page, tmp_path.joinpath(*["d"] * 1200, "p.md"))
    assert page.is_file() and _folders(tmp_path) == []


def test_a_write_never_replaces_a_fifo_or_a_folder(tmp_path: Path):
    import os

    (tmp_path / "2_Wiki" / "Folder.md").mkdir(parents=True)
    os.mkfifo(tmp_path / "2_Wiki" / "pipe.md")
    tools = VaultTools(tmp_path)
    for rel in ("2_Wiki/pipe.md", "2_Wiki/Folder.md"):
        answer = _write(tools, rel)
        assert answer.startswith("error:") and "not a page" in answer
    assert not (tmp_path / "2_Wiki" / "pipe.md").is_file() and (tmp_path / "2_Wiki" / "Folder.md").is_dir()
