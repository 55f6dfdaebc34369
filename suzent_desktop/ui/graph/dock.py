"""The graph view's place in the window: a dock tabbed beside Links, its two View menu entries
(Ctrl+G for the whole vault, as in Obsidian; "Local graph" for the open page's neighbourhood) and
the wiring that opens a clicked node's page and follows the open page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMenu

from suzent_desktop.ui.graph.pane import GraphPane

if TYPE_CHECKING:
    from suzent_desktop.ui.window.main_window import MainWindow


def add_graph_dock(window: MainWindow) -> GraphPane:
    """Build the graph pane and its dock (hidden until asked for) and add its actions to the View menu."""
    graph = window.panes["graph"] = GraphPane(window.services)
    dock = window._dock("graph", "Graph", graph, Qt.DockWidgetArea.RightDockWidgetArea)
    window.tabifyDockWidget(window.docks["backlinks"], dock)
    window.docks["backlinks"].raise_()
    dock.visibilityChanged.connect(graph.dock_shown)
    graph.page_chosen.connect(lambda path: window.open_path(path, None))
    window.editors.current_page_changed.connect(graph.set_page)
    view = cast(QMenu, next(act.menu() for act in window.menuBar().actions() if act.text() == "&View"))
    first = view.actions()[3]  # after the three editor views
    for action in (window._action("graph_view", "Graph view", lambda: show_graph(window, local=False), "Ctrl+G"),
                   window._action("local_graph", "Local graph", lambda: show_graph(window, local=True))):
        view.insertAction(first, action)
    return graph


def show_graph(window: MainWindow, *, local: bool = False) -> GraphPane:
    """Show the graph dock, wide enough to read (a narrow sidebar is widened to half the window)."""
    graph = cast(GraphPane, window.panes["graph"])
    if local:
        graph.show_local()
    else:
        graph.show_global()
    dock = window.show_dock("graph")
    if dock.width() < window.width() // 2 and not dock.isFloating():
        window.resizeDocks([dock], [window.width() // 2], Qt.Orientation.Horizontal)
    return graph
