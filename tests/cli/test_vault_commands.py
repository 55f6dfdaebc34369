"""``backlinks PAGE`` and ``tags``: the vault model on the command line, looking only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from suzent_desktop.cli import main


def run(capsys: pytest.CaptureFixture[str], home: Path, *args: str) -> tuple[int, str, str]:
    code = main(["--home", str(home), *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def vault(home: Path) -> Path:
    root = home / "notebook"
    for rel, text in {
        "2_Wiki/Kyoto.md": "---\naliases: [Old Capital]\n---\n# Kyoto\n#trip\n",
        "0_Inbox/Plan.md": "Go to [[Kyoto|the city]] in spring. #trip/japan\n\nThe old capital again.\n",
        "Board.canvas": '{"nodes": [{"id": "a", "type": "text", "text": "![[Kyoto]]"}]}',
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def test_backlinks_by_name_or_path(capsys: pytest.CaptureFixture[str], home: Path, vault: Path) -> None:
    before = sorted(p for p in home.rglob("*"))
    code, out, _err = run(capsys, home, "--json", "backlinks", "kyoto")
    assert code == 0
    doc = json.loads(out)
    assert doc["page"] == "2_Wiki/Kyoto.md"
    assert [(b["path"], b["line"]) for b in doc["backlinks"]] == [("0_Inbox/Plan.md", 1), ("Board.canvas", 1)]
    assert [(m["path"], m["text"]) for m in doc["unlinked_mentions"]] == [("0_Inbox/Plan.md", "old capital")]
    code, out, _err = run(capsys, home, "backlinks", "2_Wiki/Kyoto.md")
    assert code == 0 and "0_Inbox/Plan.md:1  Go to [[Kyoto|the city]] in spring." in out
    assert sorted(p for p in home.rglob("*")) == before  # looking wrote nothing


def test_tags_with_counts(capsys: pytest.CaptureFixture[str], home: Path, vault: Path) -> None:
    code, out, _err = run(capsys, home, "--json", "tags")
    assert code == 0
    assert json.loads(out) == {"tags": [{"tag": "trip", "count": 2}, {"tag": "trip/japan", "count": 1}]}
    code, out, _err = run(capsys, home, "tags")
    assert "     2  #trip" in out


def test_an_unknown_page_is_a_handled_error(capsys: pytest.CaptureFixture[str], home: Path, vault: Path) -> None:
    code, out, err = run(capsys, home, "--json", "backlinks", "Osaka")
    assert code == 1
    assert "Osaka: no page or file of that name" in json.loads(out)["error"]
