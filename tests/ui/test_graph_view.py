"""Graph view: nodes and links of the vault, filters, the local graph, clicks, hover, pan and zoom."""

from __future__ import annotations

import threading
from pathlib import Path

import panes_support
import pytest
from panes_support import WAIT_MS, write_page
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QFontMetricsF, QPalette, QWheelEvent
from PySide6.QtWidgets import QApplication

from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.ui.graph import canvas as graph_canvas
from suzent_desktop.ui.graph.canvas import GraphCanvas
from suzent_desktop.ui.graph.pane import GraphPane

pane_services = panes_support.pane_services


PAGES = {
    "2_Wiki/Kyoto.md": "---\ntags: [trip]\n---\n# Kyoto\n\nSee [[Tokyo]] and ![[map.png]].\n",
    "2_Wiki/Tokyo.md": "# Tokyo\n\nBack to [[Kyoto]].\n",
    "2_Wiki/Osaka.md": "# Osaka\n\nNear [[Kyoto]], and [[Nara]].\n",
    "3_Personal/Nara.md": "# Nara\n\nDeer. #trip\n",
    "0_Inbox/Alone.md": "# Alone\n\nNo link at all.\n",
    "4_Assets/map.png": "png",
}


@pytest.fixture
def linked(pane_services):
    for rel, text in PAGES.items():
        write_page(pane_services.manager, rel, text)
    return pane_services


def make_pane(qtbot, services) -> GraphPane:
    """A graph pane shown (its first read starts then), once its layout is drawn."""
    pane = GraphPane(services)
    qtbot.addWidget(pane)
    pane.resize(700, 500)
    relaid(qtbot, pane, pane.show)
    return pane


def relaid(qtbot, pane: GraphPane, change) -> None:  # noqa: ANN001 - a callable changing an option
    with qtbot.waitSignal(pane.laid_out, timeout=WAIT_MS):
        change()


def turn_wheel(canvas: GraphCanvas, where: QPointF, angle: int) -> None:
    QApplication.sendEvent(canvas, QWheelEvent(
        where, canvas.mapToGlobal(where), QPoint(0, 0), QPoint(0, angle), Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False))


def node(pane: GraphPane, title: str) -> int:
    return next(i for i, n in enumerate(pane.graph.nodes) if n.title == title)


def test_the_graph_shows_a_node_per_page_and_an_edge_per_link(qtbot, linked) -> None:
    pane = make_pane(qtbot, linked)
    assert {"Kyoto", "Tokyo", "Osaka", "Nara", "Alone"} <= pane.titles()
    assert "map.png" not in pane.titles()  # attachments are off by default, as in Obsidian
    links = {frozenset((pane.graph.nodes[a].title, pane.graph.nodes[b].title)) for a, b in pane.graph.edges}
    assert {frozenset(("Kyoto", "Tokyo")), frozenset(("Kyoto", "Osaka")), frozenset(("Osaka", "Nara"))} <= links
    assert len(pane.canvas.points) == len(pane.graph.nodes)
    assert pane.summary.text() == f"{len(pane.graph.nodes)} notes · {len(pane.graph.edges)} links"


def test_filters_hide_nodes(qtbot, linked) -> None:
    pane = make_pane(qtbot, linked)
    relaid(qtbot, pane, lambda: pane.orphans.setChecked(False))
    assert "Alone" not in pane.titles() and "Kyoto" in pane.titles()
    relaid(qtbot, pane, lambda: pane.attachments.setChecked(True))
    assert "map.png" in pane.titles()
    relaid(qtbot, pane, lambda: pane.folder.setCurrentText("2_Wiki"))
    assert pane.titles() == {"Kyoto", "Tokyo", "Osaka"}
    relaid(qtbot, pane, lambda: pane.folder.setCurrentText("All folders"))
    relaid(qtbot, pane, lambda: pane.tag.setCurrentText("trip"))
    assert pane.titles() == set()  # Kyoto and Nara do not link to each other: both stand alone
    relaid(qtbot, pane, lambda: pane.orphans.setChecked(True))
    assert pane.titles() == {"Kyoto", "Nara"}


def test_the_local_graph_shows_the_page_and_its_neighbours_to_the_depth_chosen(qtbot, linked) -> None:
    pane = make_pane(qtbot, linked)
    nara = linked.layout.notebook_dir / "3_Personal/Nara.md"
    pane.set_page(nara)
    relaid(qtbot, pane, lambda: pane.show_local(depth=1))
    assert pane.titles() == {"Nara", "Osaka"}
    assert pane.canvas.centre == node(pane, "Nara")
    relaid(qtbot, pane, lambda: pane.depth_box.setValue(2))
    assert pane.titles() == {"Nara", "Osaka", "Kyoto"}
    tokyo = linked.layout.notebook_dir / "2_Wiki/Tokyo.md"
    relaid(qtbot, pane, lambda: pane.set_page(tokyo))  # the local graph follows the open page
    assert pane.titles() == {"Tokyo", "Kyoto", "Osaka"}


def test_the_layout_runs_off_the_gui_thread(qtbot, linked) -> None:
    pane = make_pane(qtbot, linked)
    assert pane.layout_threads and threading.get_ident() not in pane.layout_threads
    spread = pane.canvas.points.max(axis=0) - pane.canvas.points.min(axis=0)
    assert (spread > 0).all()  # the nodes were laid out, not left on one spot


def test_hover_lights_a_node_and_its_neighbours(qtbot, linked) -> None:
    pane = make_pane(qtbot, linked)
    osaka = node(pane, "Osaka")
    qtbot.mouseMove(pane.canvas, pane.canvas.screen_pos(osaka).toPoint())
    qtbot.waitUntil(lambda: pane.canvas.hovered == osaka, timeout=WAIT_MS)
    assert pane.canvas.lit() == {osaka, node(pane, "Kyoto"), node(pane, "Nara")}
    assert pane.canvas.current()  # drawn over the picture at once, without a new picture
    accent = pane.canvas.palette().color(QPalette.ColorRole.Highlight)
    shot = pane.canvas.grab().toImage()
    for lit in ("Osaka", "Kyoto", "Nara"):
        assert shot.pixelColor(pane.canvas.screen_pos(node(pane, lit)).toPoint()) == accent
    assert shot.pixelColor(pane.canvas.screen_pos(node(pane, "Tokyo")).toPoint()) != accent


def test_a_drag_pans_and_the_wheel_zooms_about_the_mouse(qtbot, linked) -> None:
    pane = make_pane(qtbot, linked)
    canvas = pane.canvas
    empty = QPoint(3, 3)
    assert canvas.node_at(QPointF(empty)) is None
    before = canvas.offset
    qtbot.mousePress(canvas, Qt.MouseButton.LeftButton, pos=empty)
    for step in range(1, 6):
        qtbot.mouseMove(canvas, empty + QPoint(10 * step, 5 * step))
    qtbot.mouseRelease(canvas, Qt.MouseButton.LeftButton, pos=empty + QPoint(50, 25))
    assert (canvas.offset.x() - before.x(), canvas.offset.y() - before.y()) == pytest.approx((40, 20), abs=11)
    kyoto = node(pane, "Kyoto")
    where = canvas.screen_pos(kyoto)
    zoom = canvas.zoom
    turn_wheel(canvas, where, 240)
    assert canvas.zoom > zoom * 1.3
    assert canvas.screen_pos(kyoto).x() == pytest.approx(where.x(), abs=0.5)  # the point under the mouse stays
    assert not canvas.fitted  # the next layout round no longer moves the view


def test_the_graph_is_drawn_off_the_gui_thread_and_a_wheel_turn_or_a_drag_moves_the_last_picture(
        qtbot, linked, monkeypatch) -> None:
    pane = make_pane(qtbot, linked)
    canvas = pane.canvas
    assert canvas.current() and canvas.picture is not None
    drawers: list[int] = []
    real = graph_canvas.draw_scene
    monkeypatch.setattr(graph_canvas, "draw_scene", lambda scene: (drawers.append(threading.get_ident()), real(scene))[1])
    zoom = canvas.zoom
    turn_wheel(canvas, QPointF(canvas.rect().center()), 240)
    canvas.repaint()  # the frame the wheel asked for: the last picture, scaled
    assert canvas.picture.zoom == zoom and not canvas.current()
    qtbot.waitUntil(canvas.current, timeout=WAIT_MS)  # then a sharp picture at the new zoom
    assert canvas.picture.zoom == canvas.zoom > zoom * 1.3
    empty = QPoint(3, 3)
    qtbot.mousePress(canvas, Qt.MouseButton.LeftButton, pos=empty)
    for step in range(1, 6):
        qtbot.mouseMove(canvas, empty + QPoint(30 * step, 0))
        canvas.repaint()
    qtbot.mouseRelease(canvas, Qt.MouseButton.LeftButton, pos=empty + QPoint(150, 0))
    qtbot.waitUntil(canvas.current, timeout=WAIT_MS)
    margin = (round(canvas.width() * graph_canvas.MARGIN), round(canvas.height() * graph_canvas.MARGIN))
    assert canvas.picture.offset == (canvas.offset.x() + margin[0], canvas.offset.y() + margin[1])
    assert drawers and threading.get_ident() not in drawers  # never drawn whole on the GUI thread


def test_ctrl_g_shows_the_graph_and_a_click_on_a_node_opens_its_page(qtbot, window) -> None:
    window.resize(1360, 840)
    with qtbot.waitSignal(window.graph.laid_out, timeout=WAIT_MS):
        qtbot.keyClick(window, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    assert window.docks["graph"].isVisible() and not window.graph.local_mode
    pane = window.graph
    target = next(i for i, n in enumerate(pane.graph.nodes) if not n.attachment)
    page = Path(pane.graph.nodes[target].key)
    pane.canvas.zoom_by(1.0, QPointF(0, 0))  # stop following the layout: the node stays where it is drawn
    with qtbot.waitSignal(window.editors.current_page_changed, timeout=WAIT_MS):
        qtbot.mouseClick(pane.canvas, Qt.MouseButton.LeftButton, pos=pane.canvas.screen_pos(target).toPoint())
    assert window.editors.current_editor().path == page


def test_local_graph_is_offered_in_the_command_palette(qtbot, window) -> None:
    palette = window.show_command_palette()
    labels = {entry.label: entry.detail for entry in palette.entries()}
    assert "Local graph" in labels and labels["Graph view"] == "Ctrl+G"
    palette.reject()


def test_the_graph_behind_another_tab_is_read_when_its_tab_is_chosen_not_before(qtbot, window) -> None:
    window.resize(1360, 840)
    pane = window.graph
    assert pane.job("refresh") is None  # the window showed its docks: the graph's is behind Links
    note = window.services.layout.notebook_dir / "2_Wiki" / "New.md"
    window.services.bridge.changed.emit(ChangeSet(pages={note}, added=frozenset({note})))
    assert pane.job("refresh") is None and pane.refresh_count == 0  # Qt calls it visible, moved off screen
    with qtbot.waitSignal(pane.laid_out, timeout=WAIT_MS):
        window.docks["graph"].raise_()  # its tab chosen
    assert pane.refresh_count == 1 and pane.graph.nodes


def test_the_whole_graph_fits_with_its_names(qtbot, linked) -> None:
    write_page(linked.manager, "0_Inbox/A page with a rather long name.md", "# Long\n\nAbout [[Nara]].\n")
    pane = GraphPane(linked)
    qtbot.addWidget(pane)
    pane.resize(420, 500)
    relaid(qtbot, pane, pane.show)
    canvas = pane.canvas
    assert canvas.fitted and canvas.zoom >= graph_canvas.LABEL_ZOOM  # names are written
    metrics = QFontMetricsF(canvas.font())
    for i, shown in enumerate(pane.graph.nodes):
        half = metrics.horizontalAdvance(shown.title) / 2
        where = canvas.screen_pos(i)
        assert 0 <= where.x() - half and where.x() + half <= canvas.width(), shown.title
        assert where.y() + canvas.radius[i] * canvas.zoom + metrics.height() <= canvas.height(), shown.title
