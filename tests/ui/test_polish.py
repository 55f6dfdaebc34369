"""Small things seen in screenshots: each test asserts what a person sees."""

from __future__ import annotations

import re

import panes_support
import pytest
from panes_support import seed, write_page
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from ui_support import WAIT_MS, run

from suzent_desktop.core.files.language.markdown import plain_text

pane_services = panes_support.pane_services


def test_status_bar_shows_the_rows_when_the_index_was_already_current(qtbot, window) -> None:
    run(qtbot, window.services.manager.indexing.reindex())  # current before the window starts its sync
    assert window.rows_label.text() == "Index: …"
    window.start_background(watch=False, serve=False, index=True)
    qtbot.waitUntil(lambda: window.rows_label.text().endswith(" rows"), timeout=WAIT_MS)
    assert int(window.rows_label.text().split()[1]) > 10


# -- search pane: the selected row ------------------------------------------------------------------
def _contrast(a, b) -> float:
    """WCAG contrast ratio of two QColors."""
    def luminance(color) -> float:
        def channel(v: float) -> float:
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
        return 0.2126 * channel(color.redF()) + 0.7152 * channel(color.greenF()) + 0.0722 * channel(color.blueF())
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _label_colours(label) -> list:
    """Every text colour a hit's label draws on the row's background: its foreground and inline colours."""
    colours = [label.palette().color(label.foregroundRole())]
    own = re.sub(r'<span style="background-color[^"]*">', "", label.text())  # match marks bring their own background
    colours += [QColor(c) for c in re.findall(r"(?<![-\w])color:\s*(#[0-9a-fA-F]{3,6}|[a-z]+)", own)]
    return colours


@pytest.mark.parametrize("dark", [False, True])
def test_the_selected_search_row_is_readable_on_the_selection_colour(qtbot, pane_services, theme_manager, dark) -> None:
    from suzent_desktop.ui.panes.search_pane import SearchPane

    seed(pane_services.manager)
    run(qtbot, pane_services.manager.indexing.reindex())
    theme_manager.set_mode("dark" if dark else "light")
    pane = SearchPane(pane_services)
    qtbot.addWidget(pane)
    pane.show()
    with qtbot.waitSignal(pane.searched, timeout=WAIT_MS):
        qtbot.keyClicks(pane.query_edit, "user")
    assert pane.results.count() >= 2
    selection = pane.results.palette().color(QPalette.ColorRole.Highlight)
    base = pane.results.palette().color(QPalette.ColorRole.Base)
    for row in (0, 1):
        pane.results.setFocus()
        pane.results.setCurrentRow(row)
        selected = pane.results.itemWidget(pane.results.item(row))
        other = pane.results.itemWidget(pane.results.item(1 - row))
        assert "2026-07-" in selected.text()  # the metadata line is there
        assert min(_contrast(c, selection) for c in _label_colours(selected)) >= 4.5, selected.text()
        assert min(_contrast(c, base) for c in _label_colours(other)) >= 2.5, other.text()  # the grey, off the selection


# -- related notes ---------------------------------------------------------------------------------
def test_related_lists_each_file_once_as_plain_text_cut_at_a_word(qtbot, pane_services) -> None:
    from suzent_desktop.ui.panes.backlinks import BacklinksPane

    manager = pane_services.manager
    sections = "\n\n".join(
        f"## Lanterns part {n}\n\nThe **brass lanterns** of [[Harbour|the harbour]] glow amber at dusk; "
        f"keepers trim the wicks, polish the glass and log every lantern lit along the quay, section {n}. "
        "At midnight the keepers walk the quay again and write down which lanterns went dark and why."
        for n in range(6)
    )
    write_page(manager, "2_Wiki/Lantern Keeping.md", f"# Lantern Keeping\n\n{sections}\n")
    source = write_page(manager, "0_Inbox/Lanterns.md", "# Lanterns\n\nBrass lanterns glow amber at dusk on the quay.\n")
    write_page(manager, "0_Inbox/Other.md", "# Other\n\nKeepers polish the glass of the lanterns.\n")
    run(qtbot, manager.indexing.reindex())
    pane = BacklinksPane(pane_services)
    qtbot.addWidget(pane)
    pane.show()
    with qtbot.waitSignal(pane.refreshed, timeout=WAIT_MS):
        pane.set_page(source)
    paths = [hit.path for hit in pane.related]
    assert len(paths) == len(set(paths)) >= 2
    texts = [pane.related_list.item(i).text() for i in range(pane.related_list.count())]
    keeping = next(t for t in texts if "Lantern Keeping" in t)
    snippet = keeping.split("\n", 1)[1].strip()
    for markup in ("**", "[[", "]]", "## "):
        assert markup not in snippet
    assert "the harbour" in snippet
    assert snippet.endswith(" …") and len(snippet) <= 162
    cut = snippet.removesuffix(" …")
    whole = plain_text((manager.layout.notebook_dir / "2_Wiki/Lantern Keeping.md").read_text(encoding="utf-8"))
    at = whole.find(cut)
    assert at >= 0 and whole[at + len(cut)] == " "  # the passage's words, cut between two of them


def test_markdown_becomes_the_words_a_reader_sees() -> None:
    text = (
        "---\ntags: [x]\n---\n## Part\n\nThe **brass** [[Harbour|harbour]] and [[Quay#Steps]], ![[lamp.png]] "
        "%%hidden%% `code` [a link](x.md) <b>bold</b>.\n- [ ] a task\n> [!note] Heads up\n> ==marked==\n"
    )
    assert plain_text(text) == (
        "Part The brass harbour and Quay › Steps, lamp.png code a link bold. a task Heads up marked"
    )


def test_a_snippet_cuts_between_words() -> None:
    from suzent_desktop.ui.panes.common import snippet

    text = "word " * 60
    short = snippet(text, 50)
    assert short.endswith(" …") and len(short) <= 50 and short.removesuffix(" …").split() == ["word"] * 9
    assert snippet("x" * 300, 50) == "x" * 48 + " …"  # one endless word is cut where it must be
    assert snippet("**Short** note", 50) == "Short note"


# -- dream panel ---------------------------------------------------------------------------------
def test_the_dry_run_tab_says_in_words_that_nothing_waits(qtbot, pane_services) -> None:
    from suzent_desktop.ui.panes.dream_panel import DreamPanel

    panel = DreamPanel(pane_services)
    qtbot.addWidget(panel)
    panel.show()
    qtbot.waitUntil(lambda: panel.refresh_count > 0, timeout=WAIT_MS)
    with qtbot.waitSignal(panel.run_finished, timeout=WAIT_MS) as finished:
        qtbot.mouseClick(panel.dry_button, Qt.MouseButton.LeftButton)
    assert finished.args[0].outcome == "nothing_pending"  # a fresh home has no daily logs
    shown = panel.dry_summary.text()
    assert "nothing to consolidate" in shown
    assert "_" not in shown


def test_history_rows_name_their_outcome_in_words() -> None:
    from suzent_desktop.ui.panes.dream_panel import describe_outcome

    assert describe_outcome("nothing_pending") == "nothing to consolidate"
    assert describe_outcome("no_change") == "no change"
    assert describe_outcome("productive", dry_run=True) == "a dream would update pages"
    assert describe_outcome("some_new_code") == "some new code"


# -- MEMORY.md gauges ----------------------------------------------------------------------------------
@pytest.mark.parametrize("dark", [False, True])
def test_memory_gauges_show_their_whole_label_in_a_narrow_dock(qtbot, pane_services, theme_manager, dark) -> None:
    from suzent_desktop.ui.panes.memory_view import MemoryView

    theme_manager.set_mode("dark" if dark else "light")
    memory_md = pane_services.manager.layout.memory_md
    memory_md.write_text("# Memory\n\n" + "- a remembered line of some length\n" * 40, encoding="utf-8")
    view = MemoryView(pane_services)
    qtbot.addWidget(view)
    view.resize(260, 300)
    view.show()
    qtbot.waitUntil(lambda: view.measured is not None, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: view.chars_bar.text().endswith("characters"), timeout=WAIT_MS)
    for bar in (view.lines_bar, view.chars_bar):
        needed = bar.fontMetrics().horizontalAdvance(bar.text())
        assert bar.width() >= needed + 16, (bar.text(), bar.width(), needed)
        assert bar.height() >= bar.fontMetrics().height()


# -- diffs ----------------------------------------------------------------------------------------------
def test_diff_lines_wrap_instead_of_scrolling_sideways(qtbot) -> None:
    from suzent_desktop.ui.panes.diff_view import DiffView

    view = DiffView()
    qtbot.addWidget(view)
    view.resize(320, 400)
    view.show()
    long_line = "+" + " ".join(f"word{i}" for i in range(80))
    view.set_pages(["Page.md"], {"Page.md": f"--- a/Page.md\n+++ b/Page.md\n@@ -1 +1 @@\n{long_line}\n"})
    qtbot.waitUntil(lambda: "word79" in view.diff_text(), timeout=WAIT_MS)
    block = view.text.document().findBlockByNumber(3)
    assert block.layout().lineCount() > 1
    assert view.text.horizontalScrollBar().maximum() == 0
