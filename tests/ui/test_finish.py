"""The finish of the window: disabled controls look disabled in both themes, and the words it
shows are written for people."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QPalette


def _contrast(a: QColor, b: QColor) -> float:
    def luminance(c: QColor) -> float:
        def channel(v: float) -> float:
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

        return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF())

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("dark", [False, True])
def test_disabled_controls_are_visibly_disabled_in_both_themes(qapp, dark: bool) -> None:
    from suzent_desktop.ui import theme

    palette = theme.dark_palette() if dark else theme.light_palette()
    Group, Role = QPalette.ColorGroup, QPalette.ColorRole
    for text_role, back_role in ((Role.ButtonText, Role.Button), (Role.Text, Role.Base), (Role.WindowText, Role.Window)):
        active = _contrast(palette.color(Group.Active, text_role), palette.color(Group.Active, back_role))
        disabled = _contrast(palette.color(Group.Disabled, text_role), palette.color(Group.Disabled, back_role))
        assert disabled < active / 2, (text_role, active, disabled)
        assert disabled > 1.5, (text_role, disabled)  # still legible


def test_counts_read_as_words() -> None:
    from suzent_desktop.core.words import count

    assert [count(1, "turn"), count(2, "turn"), count(0, "fact"), count(3, "entry")] == [
        "1 turn", "2 turns", "0 facts", "3 entries"]


def test_the_dream_panel_speaks_of_the_lint_its_history_lists(qtbot, window) -> None:
    from ui_support import run

    layout = window.services.layout
    with layout.log_md.open("a", encoding="utf-8") as handle:
        handle.write("\n## [2026-07-19] lint\n15 findings: 3 broken links, 12 orphans\n")
    panel = window.dream_panel
    run(qtbot, panel.load())
    text = panel.lint_summary.text()
    assert "Last lint: 2026-07-19" in text and "15 findings" in text and "audit the notebook" not in text
    labels = {label.text() for label in panel.findChildren(type(panel.reason_label))}
    assert "Next dream:" in labels
    assert panel.reason_label.text() not in ("due", "Waiting because: due")
    assert "_" not in panel.reason_label.text()


def test_tags_in_reading_view_are_links_that_run_tag_search(qtbot, window) -> None:
    from suzent_desktop.ui.markdown_render import render

    html = render("Planted #garden/beans today, not `#code` nor [[x#y]].\n")
    assert 'href="tag:garden/beans"' in html and "#garden/beans" in html
    assert 'href="tag:code"' not in html and 'href="tag:y"' not in html
    path = window.services.layout.notebook_dir / "0_Inbox" / "Tagged.md"
    path.write_text("# Tagged\n\nSee #garden here.\n", encoding="utf-8")
    editor = window.editors.open(path)
    editor.follow_link("tag:garden")
    assert window.docks["search"].isVisible()
    assert window.search_pane.query_edit.text() == "tag:garden"
