"""The page editor: debounced preview, saving, disk events, conflicts, navigation and history."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QPlainTextEdit
from ui_support import WAIT_MS

from suzent_desktop.ui.page.editor import CompareDialog, PageEditor
from suzent_desktop.ui.workspace.editor_area import EditorArea


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "a").mkdir(parents=True)
    (root / "b").mkdir()
    (root / "a" / "One.md").write_text("# One\n\nFirst paragraph\nstill first.\n\nSecond.\n\n## Deep\n\n[[Two#End]]\n")
    (root / "b" / "Two.md").write_text("# Two\n\n[back](../a/One.md#Deep)\n\n## End\n\nbye\n")
    return root


@pytest.fixture
def area(qtbot, loop, vault: Path):
    widget = EditorArea(vault)
    widget.show()
    yield widget
    widget.deleteLater()


def test_preview_is_debounced(qtbot, area, vault) -> None:
    editor = area.open(vault / "a" / "One.md")
    editor.set_text("# Changed\n\n**bold**")
    assert "Changed" not in editor.last_html  # not rendered on every keystroke
    with qtbot.waitSignal(editor.rendered, timeout=WAIT_MS):
        pass
    assert "<h1>Changed</h1>" in editor.last_html and "<strong>bold</strong>" in editor.last_html


def test_save_is_atomic_and_own_echo_is_not_a_conflict(qtbot, area, vault) -> None:
    path = vault / "a" / "One.md"
    editor = area.open(path)
    editor.set_text("# One\n\nedited\n")
    with qtbot.waitSignal(area.page_saved, timeout=WAIT_MS) as blocker:
        assert area.save_current()
    assert blocker.args == [path, editor.initiator]
    assert path.read_text() == "# One\n\nedited\n"
    assert not list(path.parent.glob(".*.tmp"))
    editor.on_disk_changed()  # the watcher's echo of our own save
    assert editor.conflict is None and not editor.dirty


def test_compare_offers_a_diff_and_the_same_choices(qtbot, area, vault) -> None:
    path = vault / "a" / "One.md"
    editor = area.open(path)
    editor.set_text("mine\n")
    path.write_text("theirs\n")
    editor.on_disk_changed()
    assert editor.conflict == "theirs\n"
    dialog = CompareDialog(path, editor.conflict, editor.text())
    text = dialog.findChildren(QPlainTextEdit)[0].toPlainText()
    assert "-theirs" in text and "+mine" in text
    editor.resolve_conflict("compare")
    shown = editor.findChild(CompareDialog)
    assert shown is not None and shown.isVisible()
    shown._pick("reload")
    assert editor.text() == "theirs\n" and editor.conflict is None


def test_deleted_on_disk_keeps_unsaved_text_and_save_recreates(qtbot, area, vault) -> None:
    path = vault / "b" / "Two.md"
    editor = area.open(path)
    editor.set_text("keep me\n")
    path.unlink()
    area.on_file_deleted(path)
    assert area.editor_for(path) is editor and editor.deleted_on_disk
    assert editor.save() and path.read_text() == "keep me\n"


def test_clean_tab_closes_when_its_file_is_deleted(qtbot, area, vault) -> None:
    path = vault / "b" / "Two.md"
    area.open(path)
    path.unlink()
    area.on_file_deleted(path)
    assert area.editor_for(path) is None


def test_links_navigate_and_history_goes_back_and_forward(qtbot, area, vault) -> None:
    one = area.open(vault / "a" / "One.md")
    one.follow_link("wikilink:Two#End")
    two = area.current_editor()
    assert two.path == vault / "b" / "Two.md"
    assert two.source.textCursor().block().text() == "## End"
    two.follow_link("../a/One.md#Deep")  # a relative markdown link with a heading
    assert area.current_editor() is one
    assert one.source.textCursor().block().text() == "## Deep"
    area.go_back()
    assert area.current_editor() is two
    area.go_back()
    assert area.current_editor() is one and not area.can_go_back()
    area.go_forward()
    assert area.current_editor() is two


def test_missing_link_is_reported(qtbot, area, vault) -> None:
    one = area.open(vault / "a" / "One.md")
    with qtbot.waitSignal(area.missing_link, timeout=WAIT_MS) as blocker:
        one.follow_link("wikilink:Nowhere")
    assert blocker.args == ["Nowhere"]


def test_current_paragraph_and_forget_request(qtbot, area, vault) -> None:
    editor = area.open(vault / "a" / "One.md")
    assert editor.select_paragraph_at_line(4) == "First paragraph\nstill first."
    assert editor.select_paragraph_at_line(2) == ""
    with qtbot.waitSignal(area.forget_requested, timeout=WAIT_MS) as blocker:
        editor.forget_requested.emit(editor.select_paragraph_at_line(6))
    assert blocker.args == ["Second."]


def test_read_only_editor_never_writes(qtbot, vault) -> None:
    path = vault / "a" / "One.md"
    editor = PageEditor(path, read_only=True)
    before = path.read_text()
    editor.set_text("nope")
    assert not editor.save()
    assert path.read_text() == before
    editor.deleteLater()


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="FIFOs are a POSIX thing")
def test_a_page_replaced_by_a_fifo_reads_as_deleted_without_waiting(qtbot, vault) -> None:
    import os
    import threading

    path = vault / "a" / "One.md"
    editor = PageEditor(path)
    path.unlink()
    os.mkfifo(path)
    done = threading.Event()

    def release() -> None:  # the old code opened the FIFO and waited for a writer: let one in, late
        if not done.wait(30.0):
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
            os.unlink(path)  # and take the FIFO away, so its next read ends too

    threading.Thread(target=release, daemon=True).start()
    try:
        editor.on_disk_changed()
        hung = not path.exists()
    finally:
        done.set()
    assert not hung, "the editor waited on the FIFO"
    assert editor.deleted_on_disk
    editor.deleteLater()
