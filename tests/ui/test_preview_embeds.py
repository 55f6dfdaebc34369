"""The preview as an Obsidian reader sees it: embeds, callouts, comments and safe HTML, clicked for real."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QColor, QImage, QMouseEvent, QTextCursor, QTextDocument
from PySide6.QtWidgets import QApplication
from ui_support import WAIT_MS

from suzent_desktop.core.files.disk.confine import Confinement
from suzent_desktop.ui.page import hover_preview
from suzent_desktop.ui.page.editor import PageEditor
from suzent_desktop.ui.panes.outline import OutlinePane
from suzent_desktop.ui.reading import preview
from suzent_desktop.ui.reading.markdown_render import (
    MAX_EMBED_DEPTH,
    MarkdownRenderer,
    Vault,
    excerpt,
    section_text,
    strip_comments,
)
from suzent_desktop.ui.workspace.editor_area import EditorArea

IMAGE = QTextDocument.ResourceType.ImageResource


def _picture(path: Path, width: int, height: int) -> Path:
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor("#3366aa"))
    assert image.save(str(path))
    return path


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "assets").mkdir(parents=True)
    _picture(root / "assets" / "wide.png", 2000, 1000)
    _picture(root / "assets" / "small.png", 800, 400)
    for name, text in {
        "Home": "# Home\n\nIntro.\n",
        "Chain0": "start\n\n![[Chain1]]\n",
        "Chain1": "level one text\n\n![[Chain2]]\n",
        "Chain2": "level two text\n\n![[Chain3]]\n",
        "Chain3": "level three text\n\n![[Chain4]]\n",
        "Chain4": "level four text\n",
        "Loop A": "alpha text\n\n![[Loop B]]\n",
        "Loop B": "beta text\n\n![[Loop A]]\n",
        "Sections": "---\ntags: [x]\n---\n# Sections\n\nlead\n\n## Wanted\n\nwanted text\n\n### Sub\n\nsub text\n\n## Other\n\nother text\n",
    }.items():
        (root / f"{name}.md").write_text(text)
    return root


@pytest.fixture
def area(qtbot, loop, vault: Path):
    widget = EditorArea(vault)
    widget.resize(640, 1100)  # one pane as wide as the preview half of a wide window, tall enough for no scroll bar
    widget.show()
    yield widget
    widget.close()  # a window left showing would take the next test's mouse moves
    widget.deleteLater()


def _open(qtbot, area: EditorArea, vault: Path, text: str, name: str = "Page") -> PageEditor:
    path = vault / f"{name}.md"
    path.write_text(text)
    area.on_file_added(path)
    editor = area.open(path)
    editor.views.set_view("reading")  # these tests read the rendered page
    qtbot.waitUntil(lambda: editor.preview.isVisible(), timeout=WAIT_MS)
    editor.render_now()
    return editor


def _decoded(qtbot, editor: PageEditor, *urls: str) -> list[QImage]:
    """The images at ``urls`` once decoded (a transparent box of the right size stands in until then)."""
    document = editor.preview.document()

    def ready() -> bool:
        return all(document.resource(IMAGE, QUrl(url)).pixelColor(0, 0).name() == "#3366aa" for url in urls)

    qtbot.waitUntil(ready, timeout=WAIT_MS)
    return [document.resource(IMAGE, QUrl(url)) for url in urls]


def _anchor_point(editor, prefix: str) -> QPoint:  # noqa: ANN001 - a PageEditor or a browser
    """Where on screen the first anchor whose href starts with ``prefix`` is drawn."""
    browser = getattr(editor, "preview", editor)
    document = browser.document()
    block = document.begin()
    while block.isValid():
        iterator = block.begin()
        while not iterator.atEnd():
            fragment = iterator.fragment()
            if fragment.isValid() and fragment.charFormat().anchorHref().startswith(prefix):
                cursor = QTextCursor(document)
                cursor.setPosition(fragment.position())
                rect = browser.cursorRect(cursor)
                if fragment.charFormat().isImageFormat():
                    return rect.center() + QPoint(6, -4)
                return rect.center() + QPoint(4, 0)
            iterator += 1
        block = block.next()
    raise AssertionError(f"no anchor {prefix!r} in the preview")


def _click(qtbot, editor: PageEditor, prefix: str) -> None:
    point = _anchor_point(editor, prefix)
    assert editor.preview.anchorAt(point).startswith(prefix)
    qtbot.mouseClick(editor.preview.viewport(), Qt.MouseButton.LeftButton, pos=point)


# -- images ----------------------------------------------------------------------------------------
def test_image_embeds_load_from_the_vault_at_the_given_width_and_fit_the_pane(qtbot, area, vault, monkeypatch) -> None:
    threads: list[str] = []
    real = preview._read_scaled

    def recording(*args):  # noqa: ANN002, ANN202
        threads.append(threading.current_thread().name)
        return real(*args)

    monkeypatch.setattr(preview, "_read_scaled", recording)
    editor = _open(qtbot, area, vault, "![[small.png|300]]\n\n![[wide.png]]\n\n![a chart](assets/small.png)\n")
    placeholder = editor.preview.document().resource(IMAGE, QUrl("embed:assets/small.png?w=300"))
    assert (placeholder.width(), placeholder.height()) == (300, 150)  # the box keeps the layout still
    sized, wide, natural = _decoded(qtbot, editor, "embed:assets/small.png?w=300", "embed:assets/wide.png",
                                    "embed:assets/small.png")
    assert isinstance(sized, QImage) and (sized.width(), sized.height()) == (300, 150)
    fit = editor.preview.fit_width()
    assert fit < 2000 and (wide.width(), wide.height()) == (fit, fit // 2)
    assert natural.width() == min(800, fit)
    assert threads and all(name.startswith("preview-images") for name in threads)  # decoded off the GUI thread
    assert "a chart" in editor.last_html


def test_image_width_and_height_and_a_narrower_pane_refit(qtbot, area, vault) -> None:
    editor = _open(qtbot, area, vault, "![[wide.png|alt text|100x20]]\n\n![[wide.png]]\n")
    box, _wide = _decoded(qtbot, editor, "embed:assets/wide.png?w=100&h=20", "embed:assets/wide.png")
    assert (box.width(), box.height()) == (40, 20)  # inside 100x20, aspect kept
    before = editor.preview.fit_width()
    with qtbot.waitSignal(editor.rendered, timeout=WAIT_MS):
        area.resize(500, 800)
    after = editor.preview.fit_width()
    assert after < before
    assert _decoded(qtbot, editor, "embed:assets/wide.png")[0].width() == after


# -- notes -----------------------------------------------------------------------------------------
def test_note_embed_shows_the_page_framed_with_a_depth_limit(qtbot, area, vault) -> None:
    editor = _open(qtbot, area, vault, "top\n\n![[Chain1]]\n")
    shown = editor.preview.toPlainText()
    assert "level one text" in shown and "level two text" in shown and "level three text" in shown
    assert MAX_EMBED_DEPTH == 3 and "level four text" not in shown
    assert "Embedded too deeply" in shown
    assert 'class="embed"' in editor.last_html and 'href="wikilink:Chain1"' in editor.last_html


def test_a_cycle_of_embeds_stops(qtbot, area, vault) -> None:
    editor = area.open(vault / "Loop A.md")
    editor.views.set_view("reading")
    qtbot.waitUntil(lambda: editor.last_html != "", timeout=WAIT_MS)  # rendered on the render thread
    shown = editor.preview.toPlainText()
    assert shown.count("beta text") == 1 and shown.count("alpha text") == 1
    assert "leads back to a page already shown above" in shown


def test_heading_embed_shows_only_that_section(qtbot, area, vault) -> None:
    editor = _open(qtbot, area, vault, "![[Sections#Wanted]]\n")
    shown = editor.preview.toPlainText()
    assert "wanted text" in shown and "sub text" in shown
    assert "other text" not in shown and "lead" not in shown and "tags" not in shown


def test_section_and_excerpt_helpers() -> None:
    text = "---\na: 1\n---\n# T\n\none\n\n```\n\n\n```\n\nthree\n\nfour\n\n## H\n\nh body ^blk\n"
    assert section_text(text, None).startswith("# T")
    assert section_text(text, "H") == "## H\n\nh body ^blk"
    assert section_text(text, "^blk") == "h body"
    assert section_text(text, "Nope") is None
    assert excerpt(text) == "# T\n\none\n\n```\n\n\n```\n\nthree"  # a fence's blank lines do not cut it


# -- callouts and comments --------------------------------------------------------------------------
def test_callouts_show_type_and_title_and_fold_on_click(qtbot, area, vault) -> None:
    text = "> [!warning] Mind the gap\n> body one\n\n> [!tip]- Hidden tip\n> secret body\n\n> [!faq]+\n> open body\n"
    editor = _open(qtbot, area, vault, text)
    shown = editor.preview.toPlainText()
    assert "[!" not in shown
    assert "\u26a0 Mind the gap" in shown and "body one" in shown
    assert "Hidden tip" in shown and "secret body" not in shown and "\u25b8" in shown  # folded
    assert "Faq" in shown and "open body" in shown  # default title is the type
    with qtbot.waitSignal(editor.rendered, timeout=WAIT_MS):
        _click(qtbot, editor, "callout:")
    assert "secret body" in editor.preview.toPlainText()
    editor.set_text(text + "\nmore\n")  # typing keeps the user's choice
    with qtbot.waitSignal(editor.rendered, timeout=WAIT_MS):
        pass
    assert "secret body" in editor.preview.toPlainText()
    with qtbot.waitSignal(editor.rendered, timeout=WAIT_MS):
        _click(qtbot, editor, "callout:")
    assert "secret body" not in editor.preview.toPlainText()


def test_comments_are_hidden_but_code_keeps_them(qtbot, area, vault) -> None:
    text = "visible %%inline secret%% end\n\n%%\nblock secret\n\nstill secret\n%%\n\nafter\n\n`%%kept%%`\n"
    editor = _open(qtbot, area, vault, text)
    shown = editor.preview.toPlainText()
    assert "secret" not in shown and "visible" in shown and "end" in shown and "after" in shown
    assert "%%kept%%" in shown
    assert strip_comments("a %%open to the end\n\nnever shown") == "a "


# -- safety ----------------------------------------------------------------------------------------
def test_scripts_handlers_and_remote_images_are_never_loaded(qtbot, area, vault) -> None:
    outside = _picture(vault.parent / "outside.png", 10, 10)
    text = (
        "<script>document.write('pwned')</script>\n\n"
        '<b onclick="steal()">bold</b> <img src="http://127.0.0.1:9/track.png" onerror="x()">\n\n'
        "![remote](https://example.org/r.png)\n\n"
        '<div style="background-image: url(http://127.0.0.1:9/bg.png); color: red">styled</div>\n\n'
        f'<img src="embed:../{outside.name}"> <a href="javascript:alert(1)">js</a>\n'
    )
    editor = _open(qtbot, area, vault, text)
    html = editor.last_html
    for banned in ("<script", "pwned", "onclick", "onerror", "127.0.0.1", "javascript", "background-image"):
        assert banned not in html
    assert "<b>bold</b>" in html and "color:red" in html
    assert 'href="https://example.org/r.png"' in html and "<img src=\"https://" not in html
    assert not any(url.startswith("http") for url in editor.preview.refused)  # never even asked for
    assert outside.name not in html and editor.preview.refused == []  # a src out of the vault is not even written
    assert editor.preview.loadResource(IMAGE, QUrl(f"embed:../{outside.name}")) is None  # nor served
    assert editor.preview.loadResource(IMAGE, QUrl("https://example.org/r.png")) is None


# -- clicking ---------------------------------------------------------------------------------------
def test_clicking_an_image_embed_opens_the_file_and_offers_no_page(qtbot, area, vault) -> None:
    opened: list[Path] = []
    area.open_externally = opened.append
    missing: list[str] = []
    area.missing_link.connect(missing.append)
    editor = _open(qtbot, area, vault, "![[small.png]]\n\nsee [[wide.png]] and ![[gone.png]]\n")
    _click(qtbot, editor, "embed:assets/small.png")
    assert opened == [vault / "assets" / "small.png"]
    _click(qtbot, editor, "wikilink:wide.png")
    assert opened[-1] == vault / "assets" / "wide.png"
    gone: list[str] = []
    area.missing_attachment.connect(gone.append)
    _click(qtbot, editor, "wikilink:gone.png")
    assert gone == ["gone.png"] and missing == []
    assert area.count() == 1  # no image was opened as a text page


def test_clicking_a_note_embed_title_opens_that_page(qtbot, area, vault) -> None:
    editor = _open(qtbot, area, vault, "![[Sections#Wanted]]\n")
    _click(qtbot, editor, "wikilink:Sections")
    current = area.current_editor()
    assert current is not None and current.path == vault / "Sections.md"
    assert current.source.textCursor().block().text() == "## Wanted"


# -- hover preview ----------------------------------------------------------------------------------
def _hover(widget, pos: QPoint) -> None:  # noqa: ANN001 - a viewport
    """A mouse move sent to ``widget`` itself: a window another test left open cannot take it."""
    event = QMouseEvent(QEvent.Type.MouseMove, QPointF(pos), QPointF(widget.mapToGlobal(pos)),
                        Qt.MouseButton.NoButton, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, event)


def _source_point(editor: PageEditor, position: int) -> QPoint:
    cursor = QTextCursor(editor.source.document())
    cursor.setPosition(position)
    rect = editor.source.cursorRect(cursor)
    return QPoint(rect.right() + 2, rect.center().y())


def test_hovering_a_link_in_the_editor_shows_the_target_section(qtbot, area, vault, monkeypatch) -> None:
    threads: list[str] = []
    real = hover_preview.preview_markdown

    def recording(target, vault_):  # noqa: ANN001, ANN202
        threads.append(threading.current_thread().name)
        return real(target, vault_)

    monkeypatch.setattr(hover_preview, "preview_markdown", recording)
    text = "see [[Sections#Wanted]] here\n\n```\n[[Home]]\n```\n"
    editor = _open(qtbot, area, vault, text)
    hover = editor.hovers[0]
    with qtbot.waitSignal(hover.shown, timeout=WAIT_MS) as shown:
        _hover(editor.source.viewport(), _source_point(editor, text.index("Sections") + 2))
    target = shown.args[0]
    assert (target.path, target.subpath) == (vault / "Sections.md", "Wanted")
    assert threads and threads[0].startswith("hover-preview")  # the file is read off the GUI thread
    popup = hover.popup
    assert popup is not None and popup.isVisible()
    assert "wanted text" in popup.browser.toPlainText() and "other text" not in popup.browser.toPlainText()
    qtbot.keyClick(editor.source, Qt.Key.Key_Escape)
    assert not popup.isVisible()
    assert editor._source_link_at(_source_point(editor, text.index("[[Home]]") + 3)) is None  # code is not a link


def test_hovering_an_embed_title_in_the_preview_shows_its_opening_and_leaving_closes_it(qtbot, area, vault) -> None:
    editor = _open(qtbot, area, vault, "![[Sections#Other]]\n\nlink to [[Chain1]]\n")
    hover = editor.hovers[1]
    with qtbot.waitSignal(hover.shown, timeout=WAIT_MS) as shown:
        _hover(editor.preview.viewport(), _anchor_point(editor, "wikilink:Chain1"))
    assert shown.args[0].path == vault / "Chain1.md"
    assert "level one text" in hover.popup.browser.toPlainText()
    _hover(editor.preview.viewport(), QPoint(5, editor.preview.viewport().height() - 5))
    qtbot.waitUntil(lambda: not hover.popup.isVisible(), timeout=WAIT_MS)


def test_hover_excerpt_is_the_first_paragraphs() -> None:
    text = "---\nx: 1\n---\n# Title\n\none\n\ntwo\n\nthree\n\nfour\n"
    assert excerpt(text) == "# Title\n\none\n\ntwo\n\nthree"


# -- outline ----------------------------------------------------------------------------------------
def test_outline_nests_headings_follows_typing_and_a_click_moves_the_cursor(qtbot, area, vault) -> None:
    pane = OutlinePane(area)
    pane.show()
    text = "# Top\n\ntext\n\n```\n# not a heading\n```\n\n## Child\n\n### Grand\n\n## Second\n"
    editor = _open(qtbot, area, vault, text)
    assert pane.titles() == [(0, "Top"), (1, "Child"), (2, "Grand"), (1, "Second")]
    grand = pane.tree.topLevelItem(0).child(0).child(0)
    qtbot.mouseClick(pane.tree.viewport(), Qt.MouseButton.LeftButton, pos=pane.tree.visualItemRect(grand).center())
    assert editor.source.textCursor().block().text() == "### Grand"
    editor.source.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClick(editor.source, Qt.Key.Key_Return)
    qtbot.keyClicks(editor.source, "# Typed")
    qtbot.waitUntil(lambda: pane.titles()[-1] == (0, "Typed"), timeout=WAIT_MS)
    area.open(vault / "Home.md")
    assert pane.titles() == [(0, "Home")]
    area.close_tab(area.currentIndex())
    area.close_tab(area.currentIndex())
    assert pane.titles() == [] and pane.empty.text() == "No page open"


def test_the_window_shows_the_outline_and_a_missing_attachment_offers_no_page(qtbot, window, prompter) -> None:
    path = window.services.layout.notebook_dir / "0_Inbox" / "Outline check.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# Check\n\n## Part\n\nsee [[nowhere.pdf]]\n")
    window.editors.on_file_added(path)
    editor = window.editors.open(path)
    assert window.show_dock("outline").isVisible()
    assert window.outline.titles() == [(0, "Check"), (1, "Part")]
    editor.follow_link("wikilink:nowhere.pdf")
    assert "No file named nowhere.pdf in the vault" in window.statusBar().currentMessage()
    assert prompter.asked == []  # no "Create page" question for an attachment


def test_embeds_are_reused_while_typing_and_redrawn_when_their_file_changes(qtbot, area, vault, monkeypatch) -> None:
    editor = _open(qtbot, area, vault, "![[Chain1]]\n\n> [!tip]- t\n> x\n")
    reads: list[Path] = []
    real = area.vault.read
    monkeypatch.setattr(editor.renderer, "vault", Vault(vault, area.vault.resolve, lambda p: reads.append(p) or real(p)))
    editor.set_text(editor.text() + "\ntyped\n")
    with qtbot.waitSignal(editor.rendered, timeout=WAIT_MS):
        pass
    assert reads == [] and "level three text" in editor.preview.toPlainText()
    (vault / "Chain3.md").write_text("level three changed\n")
    os.utime(vault / "Chain3.md", ns=(1, 1))  # a different modification time, however fast the disk
    with qtbot.waitSignal(editor.rendered, timeout=WAIT_MS):
        area.on_file_changed(vault / "Chain3.md")  # what the watcher reports: the embedding page follows
    assert "level three changed" in editor.preview.toPlainText()
    assert vault / "Chain3.md" in reads


def test_a_callout_inside_an_embed_folds_and_stays_as_left_while_typing(qtbot, area, vault) -> None:
    (vault / "Folding.md").write_text("> [!tip]- inner\n> inner body\n")
    area.on_file_added(vault / "Folding.md")
    editor = _open(qtbot, area, vault, "![[Folding]]\n")
    editor.render_now()  # the embed now comes from the cache
    assert "inner body" not in editor.preview.toPlainText()
    with qtbot.waitSignal(editor.rendered, timeout=WAIT_MS):
        _click(qtbot, editor, "callout:")
    assert "inner body" in editor.preview.toPlainText()
    editor.render_now()
    assert "inner body" in editor.preview.toPlainText()
    with qtbot.waitSignal(editor.rendered, timeout=WAIT_MS):
        _click(qtbot, editor, "callout:")
    assert "inner body" not in editor.preview.toPlainText()


def test_a_link_clicked_in_a_hover_popup_opens_its_page(qtbot, area, vault) -> None:
    text = "go to [[Chain1]]\n"
    editor = _open(qtbot, area, vault, text)
    hover = editor.hovers[0]
    with qtbot.waitSignal(hover.shown, timeout=WAIT_MS):
        _hover(editor.source.viewport(), _source_point(editor, text.index("Chain1") + 2))
    browser = hover.popup.browser
    point = _anchor_point(browser, "wikilink:Chain2")
    qtbot.mouseClick(browser.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert not hover.popup.isVisible()
    assert area.current_editor().path == vault / "Chain2.md"


def test_opening_an_image_from_the_tree_or_a_search_uses_the_system_viewer(qtbot, area, vault) -> None:
    opened: list[Path] = []
    area.open_externally = opened.append
    assert area.open(vault / "assets" / "wide.png") is None
    assert opened == [vault / "assets" / "wide.png"] and area.count() == 0
    assert area.open(vault / "Home.md") is not None


# -- targets outside the vault ------------------------------------------------------------------------
@pytest.fixture
def linked(vault: Path) -> Path:
    """A folder outside the vault, reached through a symlinked folder ``ext`` the vault walk follows,
    next to ``outside.md`` and ``outside.png`` that no link may reach."""
    outside = vault.parent / "shared"
    outside.mkdir()
    (outside / "Linked.md").write_text("# Linked\n\nlinked text\n")
    _picture(outside / "pic.png", 20, 10)
    (vault.parent / "outside.md").write_text("outside text\n")
    _picture(vault.parent / "outside.png", 10, 10)
    os.symlink(outside, vault / "ext")
    return outside


@pytest.fixture
def allowed(area, vault: Path, linked: Path) -> Path:
    """The user allowed the link target ``shared`` (setting outside_link_targets)."""
    area.confinement = Confinement.of(vault, outside=[str(linked)])
    return linked


def test_a_folder_link_out_of_the_vault_is_not_followed_unless_allowed(qtbot, area, vault, linked) -> None:
    editor = _open(qtbot, area, vault, "![[ext/pic.png]]\n\n![[ext/Linked.md]]\n")
    assert 'src="embed:ext/pic.png' not in editor.last_html and "linked text" not in editor.preview.toPlainText()


_ESCAPES = ('<p><a href="embed:../outside.md">page</a> <a href="embed:..%2Foutside.png">picture</a> '
            '<a href="embed:/etc/hostname">absolute</a></p>')


def test_raw_html_cannot_write_an_embed_link_out_of_the_vault(qtbot, area, vault, allowed) -> None:
    editor = _open(qtbot, area, vault, _ESCAPES.replace("<p>", "").replace("</p>", "") + "\n\n![[ext/pic.png]]\n")
    assert "embed:.." not in editor.last_html and "embed:/etc" not in editor.last_html
    assert "page" in editor.preview.toPlainText()  # the text stays, without its link
    assert 'src="embed:ext/pic.png' in editor.last_html  # a symlinked folder of the vault still loads


def test_clicking_an_embed_link_out_of_the_vault_opens_nothing_and_says_so(qtbot, area, vault, linked) -> None:
    opened: list[Path] = []
    area.open_externally = opened.append
    editor = _open(qtbot, area, vault, "x\n")
    editor.preview.setHtml(_ESCAPES)  # as if a link got past the sanitizer
    for prefix in ("embed:../outside.md", "embed:..%2Foutside.png", "embed:/etc/hostname"):
        with qtbot.waitSignal(area.outside_vault, timeout=WAIT_MS):
            _click(qtbot, editor, prefix)
    with qtbot.waitSignal(area.outside_vault, timeout=WAIT_MS):
        area.open_attachment(vault / ".." / "outside.png")
    assert opened == [] and area.count() == 1 and area.current_editor() is editor


def test_a_symlinked_folder_of_the_vault_still_opens_from_a_click(qtbot, area, vault, allowed) -> None:
    opened: list[Path] = []
    area.open_externally = opened.append
    editor = _open(qtbot, area, vault, "![[ext/pic.png]]\n\n![[ext/Linked.md]]\n")
    assert _decoded(qtbot, editor, "embed:ext/pic.png")[0].width() == 20
    _click(qtbot, editor, "embed:ext/pic.png")
    assert opened == [vault / "ext" / "pic.png"]
    editor.follow_link("embed:ext/Linked.md")
    assert area.current_editor().path == vault / "ext" / "Linked.md"


def test_hovering_an_embed_link_out_of_the_vault_reads_nothing(qtbot, area, vault, linked, monkeypatch) -> None:
    read: list[Path] = []
    real = hover_preview.preview_markdown
    monkeypatch.setattr(hover_preview, "preview_markdown", lambda t, v: read.append(t.path) or real(t, v))
    editor = _open(qtbot, area, vault, "x\n")
    editor.preview.setHtml(_ESCAPES + '<p><a href="embed:ext/Linked.md">linked</a></p>')
    hover = editor.hovers[1]
    with qtbot.waitSignal(editor.outside_vault, timeout=WAIT_MS) as refused:
        _hover(editor.preview.viewport(), _anchor_point(editor, "embed:../outside.md"))
    assert refused.args == ["../outside.md"] and not hover._show_timer.isActive()
    with qtbot.waitSignal(hover.shown, timeout=WAIT_MS) as shown:
        _hover(editor.preview.viewport(), _anchor_point(editor, "embed:ext/Linked.md"))
    assert shown.args[0].path == vault / "ext" / "Linked.md" and read == [vault / "ext" / "Linked.md"]
    assert "linked text" in hover.popup.browser.toPlainText()


def test_the_window_says_a_link_out_of_the_vault_was_not_opened(qtbot, window) -> None:
    path = window.services.layout.notebook_dir / "0_Inbox" / "Escape.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("x\n")
    editor = window.editors.open(path)
    count = window.editors.count()
    editor.follow_link("embed:../../outside.md")
    assert "outside the vault" in window.statusBar().currentMessage()
    assert window.editors.count() == count


# -- missing pages -----------------------------------------------------------------------------------
def test_a_click_on_a_missing_page_never_walks_the_vault(qtbot, area, vault, monkeypatch) -> None:
    """The index the watcher keeps is trusted; a page deleted behind its back is dropped in memory."""
    from suzent_desktop.core.vault import links

    (vault / "sub").mkdir()
    (vault / "sub" / "Home.md").write_text("# Other home\n")
    area.on_file_added(vault / "sub" / "Home.md")
    editor = _open(qtbot, area, vault, "[[Nowhere]] and [[Home]] and [[Chain1]]\n")
    (vault / "Home.md").unlink()  # no watcher event

    def no_walk(*_args, **_kwargs):  # noqa: ANN002, ANN003, ANN202
        raise AssertionError("the vault was walked on the GUI thread")

    monkeypatch.setattr(links, "vault_files", no_walk)
    monkeypatch.setattr(links.VaultIndex, "scan", no_walk)
    with qtbot.waitSignal(area.missing_link, timeout=WAIT_MS) as missing:
        _click(qtbot, editor, "wikilink:Nowhere")
    assert missing.args == ["Nowhere"] and area.count() == 1
    with qtbot.waitSignal(area.currentChanged, timeout=WAIT_MS):
        _click(qtbot, editor, "wikilink:Home")
    assert area.current_editor().path == vault / "sub" / "Home.md"  # the deleted one was dropped
    area.setCurrentWidget(editor)
    qtbot.waitUntil(editor.preview.isVisible, timeout=WAIT_MS)
    with qtbot.waitSignal(area.currentChanged, timeout=WAIT_MS):
        _click(qtbot, editor, "wikilink:Chain1")
    assert area.current_editor().path == vault / "Chain1.md"


# -- rendering off the GUI thread ----------------------------------------------------------------------
def test_opening_a_page_renders_its_embeds_off_the_gui_thread(qtbot, area, vault, monkeypatch) -> None:
    threads: list[str] = []
    real = MarkdownRenderer.render

    def recording(self, text, source=None):  # noqa: ANN001, ANN202
        threads.append(threading.current_thread().name)
        return real(self, text, source)

    monkeypatch.setattr(MarkdownRenderer, "render", recording)
    path = vault / "Embeds.md"
    path.write_text("![[Chain0]]\n\n![[Sections#Wanted]]\n")
    area.on_file_added(path)
    editor = area.open(path)
    editor.views.set_view("reading")
    assert editor.last_html == ""  # opening did not wait for the render
    with qtbot.waitSignal(editor.rendered, timeout=WAIT_MS):
        pass
    assert "level two text" in editor.preview.toPlainText() and "wanted text" in editor.preview.toPlainText()
    assert threads and all(name.startswith(("preview-render", "live-preview")) for name in threads)


def test_a_render_of_text_changed_since_is_never_shown(qtbot, area, vault, monkeypatch) -> None:
    editor = _open(qtbot, area, vault, "first\n")
    gate = threading.Event()
    real = editor.renderer.render

    def held(text, source=None):  # noqa: ANN001, ANN202
        gate.wait(WAIT_MS / 1000)
        return real(text, source)

    monkeypatch.setattr(editor.renderer, "render", held)
    editor.set_text("second version\n")
    editor.render_soon()
    editor.set_text("third version\n")  # typed while "second" was rendering
    gate.set()
    with qtbot.waitSignal(editor.rendered, timeout=WAIT_MS):  # the first render shown is the newest text's
        pass
    assert "third version" in editor.preview.toPlainText() and "second" not in editor.preview.toPlainText()
