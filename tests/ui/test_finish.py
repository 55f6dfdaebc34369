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
    from suzent_desktop.ui.base import theme

    palette = theme.dark_palette() if dark else theme.light_palette()
    Group, Role = QPalette.ColorGroup, QPalette.ColorRole
    for text_role, back_role in ((Role.ButtonText, Role.Button), (Role.Text, Role.Base), (Role.WindowText, Role.Window)):
        active = _contrast(palette.color(Group.Active, text_role), palette.color(Group.Active, back_role))
        disabled = _contrast(palette.color(Group.Disabled, text_role), palette.color(Group.Disabled, back_role))
        assert disabled < active / 2, (text_role, active, disabled)
        assert disabled > 1.5, (text_role, disabled)  # still legible


def test_counts_read_as_words() -> None:
    from suzent_desktop.core.files.language.words import count

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
    from suzent_desktop.ui.reading.markdown_render import render

    html = render("Planted #garden/beans today, not `#code` nor [[x#y]].\n")
    assert 'href="tag:garden/beans"' in html and "#garden/beans" in html
    assert 'href="tag:code"' not in html and 'href="tag:y"' not in html
    path = window.services.layout.notebook_dir / "0_Inbox" / "Tagged.md"
    path.write_text("# Tagged\n\nSee #garden here.\n", encoding="utf-8")
    editor = window.editors.open(path)
    editor.follow_link("tag:garden")
    assert window.docks["search"].isVisible()
    assert window.search_pane.query_edit.text() == "tag:garden"


def test_a_hover_popup_stays_on_screen_and_clear_of_the_mouse(qapp) -> None:
    from PySide6.QtCore import QPoint, QRect, QSize

    from suzent_desktop.ui.page.hover_preview import place_popup

    screen, size = QRect(0, 0, 1280, 800), QSize(420, 300)
    assert place_popup(size, QPoint(100, 100), screen) == QPoint(112, 118)  # below and right of the mouse
    low = place_popup(size, QPoint(100, 700), screen)
    assert low.y() + size.height() < 700  # flipped above: nothing hangs off the bottom, the mouse is not on it
    right = place_popup(size, QPoint(1200, 100), screen)
    assert right.x() + size.width() <= 1280 and right.x() + size.width() < 1200
    for at in (QPoint(0, 0), QPoint(1279, 799), QPoint(640, 790)):
        spot = place_popup(size, at, screen)
        assert QRect(spot, size).intersected(screen) == QRect(spot, size)


def test_forgotten_text_is_listed_as_it_was_written(qtbot, window) -> None:
    from ui_support import run

    window.services.manager.tombstones.add("User likes Green Tea from Kyoto")
    run(qtbot, window.tombstones.load())
    texts = [window.tombstones.list.item(row).text() for row in range(window.tombstones.list.count())]
    assert any(text.startswith("User likes Green Tea from Kyoto") for text in texts)


def test_panes_show_words_not_markup_and_say_what_an_empty_list_would_hold(qtbot, window) -> None:
    from ui_support import run

    root = window.services.layout.notebook_dir
    (root / "0_Inbox" / "Target.md").write_text("# Target\n", encoding="utf-8")
    (root / "0_Inbox" / "Source.md").write_text(
        "Read **the** [[Target|target page]] first. %%a private note%%\n", encoding="utf-8")
    (root / "0_Inbox" / "Alone.md").write_text("# Alone\n", encoding="utf-8")
    pane = window.backlinks
    window.show_dock("backlinks")
    pane.set_page(root / "0_Inbox" / "Target.md")
    run(qtbot, pane.load())
    shown = pane.backlinks_list.item(0).text()
    assert "target page" in shown and "[[" not in shown and "**" not in shown and "%%" not in shown
    assert not pane.hints["backlinks"].isVisible()
    pane.set_page(root / "0_Inbox" / "Alone.md")
    run(qtbot, pane.load())
    assert pane.backlinks_list.count() == 0
    qtbot.waitUntil(pane.hints["backlinks"].isVisible, timeout=5000)
    assert "links here" in pane.hints["backlinks"].text()
    window.show_dock("search")
    assert window.search_pane.hint.isVisible() and "tag:" in window.search_pane.hint.text()


def test_dock_tabs_show_their_whole_names(qtbot, window) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QTabBar

    window.show_dock("backlinks")
    window.resizeDocks([window.docks["backlinks"]], [220], Qt.Orientation.Horizontal)
    bars = [bar for bar in window.findChildren(QTabBar) if bar.parent() is window]
    qtbot.waitUntil(lambda: bool(bars) and all(b.elideMode() == Qt.TextElideMode.ElideNone
                                               for b in window.findChildren(QTabBar) if b.parent() is window),
                    timeout=5000)


def test_the_dream_panel_shows_no_html_entities(qtbot, window) -> None:
    from ui_support import run

    panel = window.dream_panel
    run(qtbot, panel.load())
    for label in (panel.reason_label, panel.next_label, panel.pending_label, panel.facts_label):
        assert "&#" not in label.text() and "&amp;" not in label.text()


def test_icons_come_from_the_apps_own_set_not_emoji(qapp) -> None:
    import re
    from pathlib import Path

    import suzent_desktop.ui as ui
    from suzent_desktop.ui.base.icons import icon, icon_image
    from suzent_desktop.ui.reading.markdown_render import render

    emoji = re.compile("[\U0001f000-\U0001faff]")
    for path in Path(ui.__file__).parent.rglob("*.py"):
        assert not emoji.search(path.read_text(encoding="utf-8")), path
        assert "\\U0001f" not in path.read_text(encoding="utf-8"), path
    for name in ("attachment", "image", "warning", "close"):
        assert not icon(name).isNull() and icon_image(name) is not None and not icon_image(name).isNull()
    html = render("![remote](https://example.org/x.png)\n")
    assert 'src="icon:image"' in html


def test_a_picture_under_a_callouts_text_stands_on_its_own_line(qapp, tmp_path) -> None:
    import re

    from suzent_desktop.core.files.language.markdown import Link
    from suzent_desktop.ui.reading.markdown_render import MarkdownRenderer, Vault

    (tmp_path / "cat.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    vault = Vault(tmp_path, lambda link, _src: tmp_path / link.target if (tmp_path / link.target).exists() else None,
                  lambda p: p.read_text(encoding="utf-8"))
    html = MarkdownRenderer(None, "", vault).render("> [!note] Cat\n> Our cat sleeps here.\n> ![[cat.png]]\n")
    assert re.search(r"sleeps here\.<br\s*/?>\s*<a class=\"embed-image\"", html), html
    assert isinstance(Link, type)


def test_a_wide_code_block_does_not_scroll_the_whole_page_sideways(qtbot, tmp_path) -> None:
    from suzent_desktop.ui.workspace.editor_area import EditorArea

    (tmp_path / "Wide.md").write_text("# Wide\n\n```\n" + "x = 1; " * 200 + "\n```\n\nAfter.\n", encoding="utf-8")
    area = EditorArea(tmp_path)
    area.resize(700, 600)
    area.show()
    editor = area.open(tmp_path / "Wide.md")
    editor.views.set_view("reading")
    qtbot.waitUntil(lambda: "After." in editor.preview.toPlainText(), timeout=20_000)
    assert editor.preview.horizontalScrollBar().maximum() == 0
    area.close()


def test_tag_names_and_table_headers_are_not_cut_where_there_is_room(qtbot, window) -> None:
    from ui_support import run

    from suzent_desktop.ui.reading.markdown_render import preview_css

    root = window.services.layout.notebook_dir
    (root / "0_Inbox" / "Org.md").write_text("# Org\n\n#organisation/structure\n", encoding="utf-8")
    window.show_dock("tags")
    run(qtbot, window.tags.load())
    tree = window.tags.tree
    tree.resize(320, 400)
    item = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount())
                if tree.topLevelItem(i).text(0) == "#organisation")
    needed = tree.fontMetrics().horizontalAdvance(item.text(0)) + 40
    assert tree.columnWidth(0) >= needed
    assert "white-space: nowrap" in preview_css(False).split("th {", 1)[1].split("}", 1)[0]
