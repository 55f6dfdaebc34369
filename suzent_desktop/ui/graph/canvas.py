"""The graph view's drawing: nodes and links painted from arrays into a picture off the GUI thread.

A vault of 5,000 pages is 5,000 nodes and about as many links again: a QGraphicsItem each would
make every pan and zoom walk a scene of 15,000 objects. This widget keeps the positions in a numpy
array: the view transform, the culling of what is off screen and the hit test of the mouse are
array operations, the links go to the painter in a few calls, and detail follows the zoom (level
of detail): links without antialiasing when the whole vault is on screen, names when zoomed in.

Even so the whole graph takes tens of milliseconds to draw, and several times that on a busy
machine: more than a frame. So it is drawn into a picture (a QImage, which unlike a QPixmap may be
painted on another thread) by a worker thread, and each frame shows the last picture moved and
scaled to the current pan and zoom, which costs one blit. Each pan, zoom, layout round or resize
asks for a new picture; one is drawn at a time and the latest request wins, and the worker rests
as long as it drew before it starts the next, so while the wheel turns the picture catches up
several times a second on at most half a core, and it is sharp again soon after the gesture
stops. PySide holds the GIL through each painter call, so the worker draws in batches of bounded
size: the GUI thread never waits on it for more than one batch.

Hovering is drawn over the picture in each frame, on the GUI thread: a veil of the background
dims the picture, then the hovered node, its neighbours and its links come in the accent colour,
with their names. They are a handful of items, so a hover answers at once.

The canvas only draws and reports: the pane gives it a graph and the positions its worker thread
laid out, and hears which node was clicked.
"""

from __future__ import annotations

import logging
import math
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QEvent, QLineF, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
    QWheelEvent,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

if TYPE_CHECKING:
    from collections.abc import Iterable

    from suzent_desktop.core.vault.graph import Graph

log = logging.getLogger(__name__)

EDGE_LENGTH = 40.0  # world units between linked nodes, once laid out: a node's size is set against it
CLICK_SLOP_PX = 4  # a press and release closer than this is a click, not a drag
LABEL_ZOOM = 0.75  # names are written from this zoom on (and always for the hovered node and its neighbours)
MAX_LABELS = 400
SMOOTH_NODES = 1500  # smooth links when at most this many nodes are on screen (dots are always smooth)
MIN_ZOOM, MAX_ZOOM = 0.005, 20.0
BATCH = 500  # links per painter call on the worker: the GIL is held through a call, and the GUI thread waits
VEIL = 0.55  # how much of the background covers the picture while a node is hovered
MARGIN = 0.25  # the picture reaches this share of the widget past each edge: a pan shows the graph, not blank
MAX_REST_S = 0.2  # the longest the worker rests between two pictures while the view moves
_DRAWER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="graph-draw")
_DISCS: dict[tuple[float, int, float], QImage] = {}  # the worker's dots by diameter, colour and pixel ratio


@dataclass(frozen=True)
class Scene:
    """What one picture shows, taken on the GUI thread and read by the worker (arrays are never
    changed in place: new positions are new arrays)."""

    serial: int  # the canvas's count of changes when it was taken
    graph: int  # which graph it is of: a picture of a replaced graph is thrown away
    points: np.ndarray
    radius: np.ndarray
    ends: np.ndarray
    titles: tuple[str, ...]
    zoom: float
    offset: tuple[float, float]  # where the world's origin stands in the picture
    size: tuple[int, int]  # the picture's: the widget's and a margin around it
    ratio: float  # device pixels per pixel
    text: QColor
    base: QColor
    font: QFont


@dataclass(frozen=True)
class Picture:
    """A drawn scene: the image and the view it was drawn at."""

    image: QImage | None  # None when drawing failed
    took: float  # seconds the drawing took
    serial: int
    graph: int
    zoom: float
    offset: tuple[float, float]  # where the world's origin stands in the image


class GraphCanvas(QWidget):
    """Draws a graph; a drag pans, the wheel zooms about the mouse, hovering lights a node's neighbours."""

    node_clicked = Signal(object)  # the Path of the clicked node
    painted = Signal()  # after each frame
    rendered = Signal()  # a new picture came from the worker (see :meth:`current`)
    _drawn = Signal(object)  # a Picture, from the worker thread

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
        self._titles: tuple[str, ...] = ()
        self._reach: tuple[np.ndarray, np.ndarray] | None = None  # see _name_reach
        self._around: list[list[int]] = []
        self.zoom = 1.0  # screen pixels per world unit
        self.offset = QPointF(0, 0)  # where the world's origin stands on screen
        self.fitted = True  # follows the layout (fits it to the widget) until the user pans or zooms
        self.placed = False  # the graph's positions have come (until then there is nothing to draw)
        self.hovered: int | None = None
        self.centre: int | None = None  # the local graph's page, drawn in the accent colour
        self.picture: Picture | None = None  # the last picture the worker drew of this graph
        self._serial = 0  # changes the picture must show (graph, positions, view, size, palette)
        self._graph_serial = 0
        self._shown = 0  # the serial of the latest picture in
        self._drawing = False  # a picture is being drawn on the worker
        self._press: QPointF | None = None
        self._last = QPointF(0, 0)
        self._dragged = False
        self._kick = QTimer(self)  # changes made in one turn of the event loop ask for one picture
        self._kick.setSingleShot(True)
        self._kick.timeout.connect(self._draw_next)
        self._drawn.connect(self._on_drawn)

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
        self._titles = tuple(node.title for node in graph.nodes)
        self._reach = None
        self.points = np.zeros((len(graph.nodes), 2))
        self.placed = False
        self.picture = None
        self._graph_serial += 1
        self._changed()

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
        self.placed = True
        if self.fitted:
            self.fit()
        self._changed()

    def fit(self) -> None:
        """Zoom and pan so the whole graph fits the widget, the names it writes at that zoom included."""
        if not len(self.points):
            return
        low, high = self.points.min(axis=0), self.points.max(axis=0)
        span = np.maximum(high - low, EDGE_LENGTH)
        margin = 24.0
        zoom = float(np.clip(min((self.width() - 2 * margin) / span[0], (self.height() - 2 * margin) / span[1]),
                             MIN_ZOOM, MAX_ZOOM))
        x, y = self.points[:, 0], self.points[:, 1]
        side = below = np.zeros(len(self.points))
        if zoom >= LABEL_ZOOM:
            side, below = self._name_reach()
            # the named nodes and the outermost ones are all that can bound the drawing
            keep = np.union1d(np.flatnonzero(side), [x.argmin(), x.argmax(), y.argmin(), y.argmax()])
            zoom = min(_fitting(x[keep], side[keep], side[keep], self.width() - 2 * margin, zoom),
                       _fitting(y[keep], np.zeros(len(keep)), below[keep], self.height() - 2 * margin, zoom))
            if zoom < LABEL_ZOOM:  # too small for names: none are written
                side = below = np.zeros(len(self.points))
                zoom = min(zoom, LABEL_ZOOM - 1e-3)
        self.zoom = zoom
        left = (x * zoom - side).min() + (x * zoom + side).max()
        top = (y * zoom).min() + (y * zoom + below).max()
        self.offset = QPointF((self.width() - left) / 2, (self.height() - top) / 2)
        self.fitted = True
        self._changed()

    def _name_reach(self) -> tuple[np.ndarray, np.ndarray]:
        """How far each node's name reaches past it, in pixels: to each side and below (zero for the
        nodes not named when zoomed in). Measured once per graph and font: layout rounds fit each time."""
        if self._reach is None:
            metrics = QFontMetricsF(self.font())
            side, below = np.zeros(len(self._titles)), np.zeros(len(self._titles))
            named = np.argsort(-self.radius, kind="stable")[:MAX_LABELS]
            side[named] = [metrics.horizontalAdvance(self._titles[i]) / 2 for i in named.tolist()]
            below[named] = metrics.height() + 2
            self._reach = (side, below)
        return self._reach

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
        self._changed()

    def pan_by(self, dx: float, dy: float) -> None:
        self.offset = QPointF(self.offset.x() + dx, self.offset.y() + dy)
        self.fitted = False
        self._changed()

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
            if clicked is not None and self.graph is not None:
                self.node_clicked.emit(Path(self.graph.nodes[clicked].key))
        super().mouseReleaseEvent(event)

    def leaveEvent(self, event: object) -> None:  # noqa: N802 - Qt override
        self._hover(None)

    def resizeEvent(self, event: object) -> None:  # noqa: N802 - Qt override
        if self.fitted:
            self.fit()
        else:
            self._changed()  # the picture no longer covers the widget

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.FontChange:
            self._reach = None
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.FontChange):
            self._changed()  # a theme switch: the picture is in the old colours
        super().changeEvent(event)

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
        self.update()  # drawn over the picture: no new picture

    def lit(self) -> set[int]:
        """The hovered node and its neighbours (empty when nothing is hovered)."""
        if self.hovered is None or self.hovered >= len(self._around):
            return set()
        return {self.hovered, *self._around[self.hovered]}

    # -- the picture -----------------------------------------------------------------------
    def current(self) -> bool:
        """Whether the picture shows the latest graph, positions and view (none is drawing or due)."""
        return not self._drawing and self._shown == self._serial

    def _changed(self) -> None:
        """What the picture shows changed: show the old one moved and scaled now, ask for a new one."""
        self._serial += 1
        self.update()
        if not self._kick.isActive():  # (when it is, the worker is resting: the change waits for it)
            self._kick.start(0)

    def _draw_next(self) -> None:
        """Hand the latest scene to the worker, unless it is drawing (its picture's arrival asks again)."""
        if self._drawing or self._shown == self._serial:
            return
        scene = self._scene()
        if scene is None:  # nothing to draw: no graph, no positions yet, or no room
            self._shown = self._serial
            self.update()
            self.rendered.emit()
            return
        self._drawing = True
        _DRAWER.submit(self._draw_off_thread, scene)

    def _scene(self) -> Scene | None:
        if not self.placed or not len(self.points) or self.width() <= 0 or self.height() <= 0:
            return None
        palette = self.palette()
        across, down = round(self.width() * MARGIN), round(self.height() * MARGIN)
        return Scene(serial=self._serial, graph=self._graph_serial, points=self.points, radius=self.radius,
                     ends=self._ends, titles=self._titles, zoom=self.zoom,
                     offset=(self.offset.x() + across, self.offset.y() + down),
                     size=(self.width() + 2 * across, self.height() + 2 * down), ratio=self.devicePixelRatioF(),
                     text=QColor(palette.color(QPalette.ColorRole.Text)),
                     base=QColor(palette.color(QPalette.ColorRole.Base)), font=QFont(self.font()))

    def _draw_off_thread(self, scene: Scene) -> None:
        """(worker thread) Draw the scene and post the picture back to the GUI thread."""
        start = time.perf_counter()
        try:
            image: QImage | None = draw_scene(scene)
        except Exception:  # a failed picture must not leave the canvas waiting for ever
            log.exception("drawing the graph failed")
            image = None
        picture = Picture(image=image, took=time.perf_counter() - start, serial=scene.serial, graph=scene.graph,
                          zoom=scene.zoom, offset=scene.offset)
        try:
            self._drawn.emit(picture)
        except RuntimeError:
            pass  # the canvas closed meanwhile

    def _on_drawn(self, picture: Picture) -> None:
        self._drawing = False
        self._shown = picture.serial
        if picture.image is not None and picture.graph == self._graph_serial and self.placed:
            self.picture = picture
        self.update()
        self.rendered.emit()
        if self._shown != self._serial:  # moved on meanwhile: the next picture, after a rest as long
            self._kick.start(round(min(picture.took, MAX_REST_S) * 1000))  # as this one took

    # -- painting --------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        painter = QPainter(self)
        palette = self.palette()
        painter.fillRect(self.rect(), palette.color(QPalette.ColorRole.Base))
        if self.picture is not None and self.placed:
            self._paint_picture(painter, self.picture)
            self._paint_marks(painter, palette)
        painter.end()
        self.painted.emit()

    def _paint_picture(self, painter: QPainter, picture: Picture) -> None:
        """The last picture, moved and scaled from the view it was drawn at to the current one."""
        assert picture.image is not None
        scale = self.zoom / picture.zoom
        painter.save()
        painter.translate(self.offset.x() - picture.offset[0] * scale, self.offset.y() - picture.offset[1] * scale)
        painter.scale(scale, scale)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, abs(scale - 1.0) > 1e-6)
        painter.drawImage(QPointF(0, 0), picture.image)
        painter.restore()

    def _paint_marks(self, painter: QPainter, palette: QPalette) -> None:
        """Over the picture: the hovered node, its neighbours and links (the rest veiled), and the
        local graph's centre, in the accent colour and named."""
        lit = self.lit()
        marked = sorted(lit | ({self.centre} if self.centre is not None else set()))
        if not marked:
            return
        screen = self._screen()
        radius = np.maximum(self.radius * self.zoom, 1.5)
        accent = palette.color(QPalette.ColorRole.Highlight)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        if lit:
            veil = QColor(palette.color(QPalette.ColorRole.Base))
            veil.setAlphaF(VEIL)
            painter.fillRect(self.rect(), veil)
            mine = self._ends[(self._ends[:, 0] == self.hovered) | (self._ends[:, 1] == self.hovered)]
            painter.setPen(QPen(accent, 1.6))
            painter.drawLines(_lines(screen[mine[:, 0]], screen[mine[:, 1]]))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(accent)
        for i in marked:
            r = float(radius[i]) * (1.3 if i == self.hovered else 1.0)
            painter.drawEllipse(QPointF(float(screen[i, 0]), float(screen[i, 1])), r, r)
        _draw_names(painter, screen, radius, marked, self._titles, palette.color(QPalette.ColorRole.Text))


def draw_scene(scene: Scene) -> QImage:
    """(worker thread) The graph as one image: every link with a part on screen, every dot on
    screen, and when zoomed in the names of the most linked nodes on screen."""
    width, height = scene.size
    image = QImage(max(1, round(width * scene.ratio)), max(1, round(height * scene.ratio)), QImage.Format.Format_RGB32)
    image.setDevicePixelRatio(scene.ratio)
    image.fill(scene.base)
    screen = scene.points * scene.zoom + np.array(scene.offset)
    radius = np.maximum(scene.radius * scene.zoom, 1.5)
    seen = ((screen[:, 0] + radius >= 0) & (screen[:, 0] - radius <= width)
            & (screen[:, 1] + radius >= 0) & (screen[:, 1] - radius <= height))
    shown = np.flatnonzero(seen)
    painter = QPainter(image)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, len(shown) <= SMOOTH_NODES)
        painter.setFont(scene.font)
        _draw_links(painter, screen, scene.ends, scene.size, _mixed(scene.text, scene.base, 0.24))
        _draw_dots(painter, screen, radius, shown, _mixed(scene.text, scene.base, 0.67), scene.ratio)
        if scene.zoom >= LABEL_ZOOM and len(shown):
            biggest = shown[np.argsort(-scene.radius[shown], kind="stable")][:MAX_LABELS]
            _draw_names(painter, screen, radius, biggest.tolist(), scene.titles, scene.text)
    finally:
        painter.end()
    return image


def _draw_links(painter: QPainter, screen: np.ndarray, ends: np.ndarray, size: tuple[int, int],
                colour: QColor) -> None:
    """Every link with a part on screen (opaque: blending thousands of lines is slow), in batches."""
    if not len(ends):
        return
    a, b = screen[ends[:, 0]], screen[ends[:, 1]]
    low, high = np.minimum(a, b), np.maximum(a, b)
    crossing = np.flatnonzero((high[:, 0] >= 0) & (low[:, 0] <= size[0]) & (high[:, 1] >= 0) & (low[:, 1] <= size[1]))
    painter.setPen(QPen(colour, 1.0))
    for start in range(0, len(crossing), BATCH):
        rows = crossing[start:start + BATCH]
        painter.drawLines(_lines(a[rows], b[rows]))


def _draw_dots(painter: QPainter, screen: np.ndarray, radius: np.ndarray, shown: np.ndarray, colour: QColor,
               ratio: float) -> None:
    """The nodes, each a copy of a small smooth disc drawn once per size (to the half pixel): copying
    an image is several times faster than filling a circle, smooth or not."""
    sizes = (np.round(radius[shown] * 4) / 2).tolist()  # diameters, to the half pixel
    for (x, y), size in zip(screen[shown].tolist(), sizes, strict=True):
        disc = _disc(size, colour, ratio)
        half = disc.width() / ratio / 2
        painter.drawImage(QPointF(x - half, y - half), disc)


def _disc(diameter: float, colour: QColor, ratio: float) -> QImage:
    """(worker thread) A smooth disc on a transparent square, kept for the next pictures."""
    key = (diameter, colour.rgb(), ratio)
    disc = _DISCS.get(key)
    if disc is None:
        if len(_DISCS) > 256:  # colours change with the theme: forget the old ones
            _DISCS.clear()
        side = math.ceil((diameter + 2) * ratio)
        disc = QImage(side, side, QImage.Format.Format_ARGB32_Premultiplied)
        disc.setDevicePixelRatio(ratio)
        disc.fill(Qt.GlobalColor.transparent)
        painter = QPainter(disc)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(colour)
        middle = side / ratio / 2
        painter.drawEllipse(QPointF(middle, middle), diameter / 2, diameter / 2)
        painter.end()
        _DISCS[key] = disc
    return disc


def _draw_names(painter: QPainter, screen: np.ndarray, radius: np.ndarray, named: Iterable[int],
                titles: tuple[str, ...], colour: QColor) -> None:
    """The titles of the nodes named, each centred under its dot."""
    painter.setPen(colour)
    metrics = painter.fontMetrics()
    for i in named:
        title = titles[i]
        half = metrics.horizontalAdvance(title) / 2
        top = float(screen[i, 1] + radius[i] + 2)
        painter.drawText(QRectF(float(screen[i, 0]) - half - 1, top, 2 * half + 2, metrics.height()),
                         Qt.AlignmentFlag.AlignCenter, title)


def _fitting(coords: np.ndarray, before: np.ndarray, after: np.ndarray, room: float, most: float) -> float:
    """The largest zoom up to ``most`` at which points at ``coords``, each reaching ``before`` and
    ``after`` pixels past itself (its name), span at most ``room`` pixels (the span grows with the zoom)."""
    def span(zoom: float) -> float:
        return float((coords * zoom + after).max() - (coords * zoom - before).min())

    if span(most) <= room:
        return most
    low, high = MIN_ZOOM, most
    for _ in range(40):
        middle = (low + high) / 2
        low, high = (middle, high) if span(middle) <= room else (low, middle)
    return low


def _mixed(front: QColor, back: QColor, share: float) -> QColor:
    """``front`` laid at ``share`` opacity over ``back``, as one opaque colour."""
    return QColor.fromRgbF(*(f * share + b * (1 - share) for f, b in (
        (front.redF(), back.redF()), (front.greenF(), back.greenF()), (front.blueF(), back.blueF()))))


def _lines(a: np.ndarray, b: np.ndarray) -> list[QLineF]:
    """The segments ``a[i]``–``b[i]`` (read as Python floats in one go: indexing numpy arrays row by
    row costs more than the drawing)."""
    return [QLineF(x1, y1, x2, y2) for x1, y1, x2, y2 in np.hstack([a, b]).tolist()]
