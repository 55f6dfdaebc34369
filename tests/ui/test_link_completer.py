"""[[ autocomplete in the editor, driven by real key presses."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from suzent_desktop.ui.workspace.editor_area import EditorArea


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for folder in ("a", "b", "c", "assets"):
        (root / folder).mkdir(parents=True)
    (root / "a" / "Note.md").write_text("# Note\n\n")
    (root / "b" / "Vector Search.md").write_text(
        "---\naliases: [semantic search]\n---\n# Vector Search\n\n## Options\n\ntext\n\n## Costs\n"
    )
    (root / "b" / "Same.md").write_text("b\n")
    (root / "c" / "Same.md").write_text("c\n")
    (root / "b" / "Vectors and more.md").write_text("x\n")
    (root / "assets" / "cat.png").write_bytes(b"\x89PNG")
    return root


@pytest.fixture
def area(qtbot, loop, vault: Path):
    widget = EditorArea(vault)
    widget.show()
    yield widget
    widget.deleteLater()


def _typing(qtbot, area, vault):
    editor = area.open(vault / "a" / "Note.md")
    source = editor.source
    cursor = source.textCursor()
    cursor.movePosition(cursor.MoveOperation.End)
    source.setTextCursor(cursor)
    return editor, source


def test_double_bracket_offers_pages_ranked_and_inserts_the_shortest_link(qtbot, area, vault) -> None:
    editor, source = _typing(qtbot, area, vault)
    qtbot.keyClicks(source, "See [")
    assert not editor.completer.visible()
    qtbot.keyClicks(source, "[vec")
    assert editor.completer.visible()
    labels = editor.completer.labels()
    assert labels[:2] == ["Vector Search", "Vectors and more"]
    assert "Note" not in labels
    qtbot.keyClicks(source, "s")  # "vecs": both still match, the prefix-and-word-start one first
    assert editor.completer.labels()[0] == "Vector Search"
    qtbot.keyClick(source, Qt.Key.Key_Return)
    assert not editor.completer.visible()
    assert editor.text().endswith("See [[Vector Search]]")
    assert source.textCursor().position() == len(editor.text())


def test_same_named_pages_insert_a_path_that_resolves_to_the_chosen_one(qtbot, area, vault) -> None:
    editor, source = _typing(qtbot, area, vault)
    qtbot.keyClicks(source, "[[Same")
    rows = editor.completer.suggestions
    assert [(s.label, s.detail) for s in rows][:2] == [("Same", "b"), ("Same", "c")]
    qtbot.keyClick(source, Qt.Key.Key_Down)
    qtbot.keyClick(source, Qt.Key.Key_Tab)
    assert editor.text().endswith("[[c/Same]]")
    assert area.pages.resolve("c/Same") == vault / "c" / "Same.md"


def test_attachments_are_offered_with_their_extension(qtbot, area, vault) -> None:
    editor, source = _typing(qtbot, area, vault)
    qtbot.keyClicks(source, "![[cat")
    assert editor.completer.labels() == ["cat.png"]
    qtbot.keyClick(source, Qt.Key.Key_Return)
    assert editor.text().endswith("![[cat.png]]")


def test_headings_after_hash_and_closing_brackets_are_not_doubled(qtbot, area, vault) -> None:
    editor, source = _typing(qtbot, area, vault)
    source.insertPlainText("[[]]")
    cursor = source.textCursor()
    cursor.movePosition(cursor.MoveOperation.Left, n=2)
    source.setTextCursor(cursor)
    qtbot.keyClicks(source, "Vector Search#")
    assert editor.completer.labels() == ["Vector Search", "Options", "Costs"]
    qtbot.keyClicks(source, "cos")
    assert editor.completer.labels()[0] == "Costs"
    qtbot.keyClick(source, Qt.Key.Key_Return)
    assert editor.text().endswith("\n[[Vector Search#Costs]]")


def test_headings_of_the_open_page_come_from_its_unsaved_text(qtbot, area, vault) -> None:
    editor, source = _typing(qtbot, area, vault)
    qtbot.keyClicks(source, "## Fresh")
    qtbot.keyClick(source, Qt.Key.Key_Return)
    qtbot.keyClicks(source, "[[#")
    assert editor.completer.labels() == ["Note", "Fresh"]
    qtbot.keyClick(source, Qt.Key.Key_Down)
    qtbot.keyClick(source, Qt.Key.Key_Return)
    assert editor.text().endswith("## Fresh\n[[#Fresh]]")


def test_aliases_are_offered_and_written_after_a_pipe(qtbot, area, vault) -> None:
    editor, source = _typing(qtbot, area, vault)
    qtbot.keyClicks(source, "[[semantic")
    rows = editor.completer.suggestions
    assert rows[0].label == "semantic search" and rows[0].detail == "alias of Vector Search"
    qtbot.keyClick(source, Qt.Key.Key_Return)
    assert editor.text().endswith("[[Vector Search|semantic search]]")


def test_escape_closes_and_a_closed_link_offers_nothing(qtbot, area, vault) -> None:
    editor, source = _typing(qtbot, area, vault)
    qtbot.keyClicks(source, "[[Vec")
    qtbot.keyClick(source, Qt.Key.Key_Escape)
    assert not editor.completer.visible()
    assert editor.text().endswith("[[Vec]]")  # the brackets close in pairs; "]]" is typed over
    qtbot.keyClicks(source, "]] and [[zzzz")
    assert not editor.completer.visible()


def test_names_follow_file_events_without_rescanning_the_vault(qtbot, area, vault, monkeypatch) -> None:
    editor, source = _typing(qtbot, area, vault)
    qtbot.keyClicks(source, "[[Vec")
    from suzent_desktop.core.vault.links import VaultIndex

    def no_scan(*_a, **_k):
        raise AssertionError("the vault was scanned while typing")

    monkeypatch.setattr(VaultIndex, "scan", no_scan)
    new = vault / "b" / "Vegetables.md"
    new.write_text("---\naliases: [Greens]\n---\n")
    area.on_file_added(new)
    area.on_file_changed(new)
    qtbot.keyClick(source, Qt.Key.Key_Backspace)
    assert "Vegetables" in editor.completer.labels()
    new.unlink()
    area.on_file_deleted(new)
    qtbot.keyClick(source, Qt.Key.Key_Backspace)
    assert "Vegetables" not in editor.completer.labels()
