"""The graph view's drawing: nodes and links painted straight from arrays, panned and zoomed.

A vault of 5,000 pages is 5,000 nodes and about as many links again: a QGraphicsItem each would
make every pan and zoom walk a scene of 15,000 objects. This widget keeps the positions in a numpy
array and paints one frame from it: the view transform, the culling of what is off screen and
the hit test of the mouse are array operations, the links go to the painter in one call, and
detail follows the zoom (level of detail): dots without outline or antialiasing when the whole
vault is on screen, circles, then names, when zoomed in.

The canvas only draws and reports: the pane gives it a graph and the positions its worker thread
laid out, and hears which node was clicked.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
    QPixmap,
    QPolygonF,
    QWheelEvent,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

if TYPE_CHECKING:
    from suzent_desktop.core.operations import Graph

EDGE_LENGTH = 40.0  # world units between linked nodes, once laid out: a node's size is set against it
CLICK_SLOP_PX = 4  # a press and release closer than this is a click, not a drag
LABEL_ZOOM = 0.75  # names are written from this zoom on (and always for the hovered node and its neighbours)
MAX_LABELS = 400
SMOOTH_NODES = 1500  # antialiasing when at most this many nodes are on screen
MIN_ZOOM, MAX_ZOOM = 0.005, 20.0


class GraphCanvas(QWidget):
    """Draws a graph; a drag pans, the wheel zooms about the mouse, hovering lights a node's neighbours."""

    node_clicked = Signal(object)  # the Path of the clicked node
    painted = Signal()  # after each frame (the bench and tests time frames by it)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(120, 120)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.graph: Graph | None = None
        self.points = np.zeros((0, 2))  # world positions, one row per node
        self.radius = np.zeros(0)  # world radius of each node (by its number of links)
        self._ends = np.zeros((0, 2), dtype=np.int64)  # the edges as an array
        self._around: list[list[int]] = []
        self.zoom = 1.0  # screen pixels per world unit
        self.offset = QPointF(0, 0)  # where the world's origin stands on screen
        self.fitted = True  # follows the layout (fits it to the widget) until the user pans or zooms
        self.hovered: int | None = None
        self.centre: int | None = None  # the local graph's page, drawn in the accent colour
        self._press: QPointF | None = None
        self._last = QPointF(0, 0)
        self._dragged = False
        self._drag_frame: tuple[QPixmap, QPointF] | None = None  # while a drag pans: the frame it started on

    # -- data ------------------------------------------------------------------------------
    def set_graph(self, graph: Graph, centre: int | None = None) -> None:
        """A new graph to draw; positions follow with :meth:`set_positions`."""
        self.graph = graph
        self.centre = centre
        self.hovered = None
        self._around = graph.neighbours()
        degrees = np.asarray(graph.degrees(), dtype=float)
        self.radius = 4.0 + 1.6 * np.sqrt(degrees)
        self._ends = np.asarray(graph.edges, dtype=np.int64).reshape(-1, 2)
        self.points = np.zeros((len(graph.nodes), 2))
        self.update()

    def set_positions(self, positions: list[tuple[float, float]]) -> None:
        """Positions from the layout (any scale): scaled so that links are about :data:`EDGE_LENGTH` long."""
        pos = np.asarray(positions, dtype=float).reshape(-1, 2)
        if len(pos) != len(self.radius):
            return  # the positions of a graph that was replaced meanwhile
        if len(self._ends):
            length = float(np.median(np.linalg.norm(pos[self._ends[:, 0]] - pos[self._ends[:, 1]], axis=1)))
        else:
            length = float(np.ptp(pos, axis=0).max()) / max(1.0, len(pos) ** 0.5) if len(pos) > 1 else 1.0
        self.points = pos * (EDGE_LENGTH / length) if length > 1e-9 else pos
        if self.fitted:
            self.fit()
        self.update()

    def fit(self) -> None:
        """Zoom and pan so the whole graph fits the widget."""
        if not len(self.points):
            return
        low, high = self.points.min(axis=0), self.points.max(axis=0)
        span = np.maximum(high - low, EDGE_LENGTH)
        margin = 24.0
        zoom = min((self.width() - 2 * margin) / span[0], (self.height() - 2 * margin) / span[1])
        self.zoom = float(np.clip(zoom, MIN_ZOOM, MAX_ZOOM))
        middle = (low + high) / 2
        self.offset = QPointF(self.width() / 2 - middle[0] * self.zoom, self.height() / 2 - middle[1] * self.zoom)
        self.fitted = True
        self.update()

    # -- geometry --------------------------------------------------------------------------
    def _screen(self) -> np.ndarray:
        return self.points * self.zoom + np.array([self.offset.x(), self.offset.y()])

    def screen_pos(self, index: int) -> QPointF:
        """Where a node stands on screen (tests click there)."""
        x, y = self._screen()[index]
        return QPointF(float(x), float(y))

    def node_at(self, point: QPointF) -> int | None:
        """The node under a point of the widget, the nearest when several are."""
        if not len(self.points):
            return None
        screen = self._screen()
        gaps = np.hypot(screen[:, 0] - point.x(), screen[:, 1] - point.y())
        reach = np.maximum(self.radius * self.zoom, 3.0) + 3.0
        gaps[gaps > reach] = np.inf
        nearest = int(np.argmin(gaps))
        return nearest if np.isfinite(gaps[nearest]) else None

    def zoom_by(self, factor: float, about: QPointF) -> None:
        """Zoom keeping the world point under ``about`` where it is."""
        zoom = float(np.clip(self.zoom * factor, MIN_ZOOM, MAX_ZOOM))
        ratio = zoom / self.zoom
        self.offset = QPointF(about.x() - (about.x() - self.offset.x()) * ratio,
                              about.y() - (about.y() - self.offset.y()) * ratio)
        self.zoom = zoom
        self.fitted = False
        self.update()

    def pan_by(self, dx: float, dy: float) -> None:
        self.offset = QPointF(self.offset.x() + dx, self.offset.y() + dy)
        self.fitted = False
        self.update()

    # -- events ----------------------------------------------------------------------------
    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 - Qt override
        steps = event.angleDelta().y() or event.pixelDelta().y()
        if steps:
            self.zoom_by(1.0015 ** steps, event.position())
        event.accept()

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        if event.button() == Qt.MouseButton.LeftButton:
            self._press = event.position()
            self._last = event.position()
            self._dragged = False
            self.setCursor(Qt.CursorShape.ClosedHandCursor)
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        point = event.position()
        if self._press is not None and event.buttons() & Qt.MouseButton.LeftButton:
            if not self._dragged and (point - self._press).manhattanLength() > CLICK_SLOP_PX:
                self._dragged = True
                self._drag_frame = (self.grab(), QPointF(self.offset))  # a drag moves this picture, drawn once
            if self._dragged:
                self.pan_by(point.x() - self._last.x(), point.y() - self._last.y())
            self._last = point
            return
        self._hover(self.node_at(point))

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        if event.button() == Qt.MouseButton.LeftButton and self._press is not None:
            clicked = None if self._dragged else self.node_at(event.position())
            self._press = None
            self.unsetCursor()
            if self._drag_frame is not None:
                self._drag_frame = None
                self.update()  # the whole graph again, with what the drag brought into view
            if clicked is not None and self.graph is not None:
                self.node_clicked.emit(Path(self.graph.nodes[clicked].key))
        super().mouseReleaseEvent(event)

    def leaveEvent(self, event: object) -> None:  # noqa: N802 - Qt override
        self._hover(None)

    def resizeEvent(self, event: object) -> None:  # noqa: N802 - Qt override
        if self.fitted:
            self.fit()

    def _hover(self, index: int | None) -> None:
        if index == self.hovered:
            return
        self.hovered = index
        if index is not None and self.graph is not None:
            node = self.graph.nodes[index]
            self.setCursor(Qt.CursorShape.PointingHandCursor)
            self.setToolTip(f"{node.folder}/{node.title}" if node.folder else node.title)
        else:
            self.unsetCursor()
            self.setToolTip("")
        self.update()

    def lit(self) -> set[int]:
        """The hovered node and its neighbours (empty when nothing is hovered)."""
        if self.hovered is None or self.hovered >= len(self._around):
            return set()
        return {self.hovered, *self._around[self.hovered]}

    # -- painting --------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        painter = QPainter(self)
        palette = self.palette()
        painter.fillRect(self.rect(), palette.color(QPalette.ColorRole.Base))
        if self._drag_frame is not None:  # panning: the frame the drag started on, moved (thousands of links
            frame, at = self._drag_frame  # take longer to draw than a frame lasts); the rest on release
            painter.drawPixmap(self.offset - at, frame)
        elif self.graph is not None and len(self.points) == len(self.graph.nodes) and len(self.points):
            self._paint_graph(painter, palette)
        painter.end()
        self.painted.emit()

    def _paint_graph(self, painter: QPainter, palette: QPalette) -> None:
        screen = self._screen()
        width, height = self.width(), self.height()
        radius = np.maximum(self.radius * self.zoom, 1.5)
        seen = ((screen[:, 0] + radius >= 0) & (screen[:, 0] - radius <= width)
                & (screen[:, 1] + radius >= 0) & (screen[:, 1] - radius <= height))
        shown = np.flatnonzero(seen)
        lit = self.lit()
        text = palette.color(QPalette.ColorRole.Text)
        accent = palette.color(QPalette.ColorRole.Highlight)
        base = palette.color(QPalette.ColorRole.Base)
        edge_colour = _mixed(text, base, 0.11 if lit else 0.24)  # opaque: blending thousands of lines is slow
        node_colour = _mixed(text, base, 0.35 if lit else 0.67)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, len(shown) <= SMOOTH_NODES)
        self._paint_edges(painter, screen, edge_colour, accent, lit)
        special = lit | ({self.centre} if self.centre is not None else set())
        plain = shown[~np.isin(shown, list(special))] if special else shown
        self._paint_dots(painter, screen, radius, plain, node_colour)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(accent)
        for i in sorted(special):
            r = float(radius[i]) * (1.3 if i == self.hovered else 1.0)
            painter.drawEllipse(QPointF(float(screen[i, 0]), float(screen[i, 1])), r, r)
        self._paint_labels(painter, screen, radius, shown, lit, text)

    @staticmethod
    def _paint_dots(painter: QPainter, screen: np.ndarray, radius: np.ndarray, shown: np.ndarray,
                    colour: QColor) -> None:
        """The nodes as round points, one call per size (to the half pixel): a call per node is too
        slow for thousands of them."""
        if not len(shown):
            return
        sizes = np.round(radius[shown] * 4) / 2  # diameters, to the half pixel
        pen = QPen(colour)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        for size in np.unique(sizes).tolist():
            pen.setWidthF(size)
            painter.setPen(pen)
            points = screen[shown[sizes == size]]
            painter.drawPoints(QPolygonF([QPointF(x, y) for x, y in points.tolist()]))

    def _paint_edges(self, painter: QPainter, screen: np.ndarray, colour: QColor, accent: QColor,
                     lit: set[int]) -> None:
        """Every link with a part on screen, in one call; the hovered node's links on top, in the accent."""
        if not len(self._ends):
            return
        a, b = screen[self._ends[:, 0]], screen[self._ends[:, 1]]
        low, high = np.minimum(a, b), np.maximum(a, b)
        crossing = (high[:, 0] >= 0) & (low[:, 0] <= self.width()) & (high[:, 1] >= 0) & (low[:, 1] <= self.height())
        rows = np.flatnonzero(crossing)
        painter.setPen(QPen(colour, 1.0))
        painter.drawLines(_lines(a, b, rows))
        if self.hovered is not None:
            mine = np.flatnonzero((self._ends[:, 0] == self.hovered) | (self._ends[:, 1] == self.hovered))
            painter.setPen(QPen(accent, 1.6))
            painter.drawLines(_lines(a, b, mine))

    def _paint_labels(self, painter: QPainter, screen: np.ndarray, radius: np.ndarray, shown: np.ndarray,
                      lit: set[int], colour: QColor) -> None:
        """Names: of every node on screen once zoomed in far enough (the most linked first, at most
        :data:`MAX_LABELS`), and always of the hovered node and its neighbours."""
        named = set(lit)
        if self.centre is not None:
            named.add(self.centre)
        if self.zoom >= LABEL_ZOOM and len(shown):
            biggest = shown[np.argsort(-self.radius[shown], kind="stable")][:MAX_LABELS]
            named.update(biggest.tolist())
        if not named or self.graph is None:
            return
        painter.setPen(colour)
        metrics = painter.fontMetrics()
        for i in named:
            title = self.graph.nodes[i].title
            half = metrics.horizontalAdvance(title) / 2
            top = float(screen[i, 1] + radius[i] + 2)
            painter.drawText(QRectF(float(screen[i, 0]) - half - 1, top, 2 * half + 2, metrics.height()),
                             Qt.AlignmentFlag.AlignCenter, title)


def _mixed(front: QColor, back: QColor, share: float) -> QColor:
    """``front`` laid at ``share`` opacity over ``back``, as one opaque colour."""
    return QColor.fromRgbF(*(f * share + b * (1 - share) for f, b in (
        (front.redF(), back.redF()), (front.greenF(), back.greenF()), (front.blueF(), back.blueF()))))


def _lines(a: np.ndarray, b: np.ndarray, rows: np.ndarray) -> list[QLineF]:
    """The segments ``a[i]``–``b[i]`` for the rows given (read as Python floats in one go: indexing numpy
    arrays row by row costs more than the drawing)."""
    return [QLineF(x1, y1, x2, y2) for x1, y1, x2, y2 in np.hstack([a[rows], b[rows]]).tolist()]
