"""The rendered view of a page: a QTextBrowser that loads images from the vault and nothing else.

QTextBrowser asks :meth:`PreviewBrowser.loadResource` for every image, stylesheet and
background it meets. Only ``embed:`` URLs naming a file that really lives in the vault are
served (scaled to the width the page asked for and to the pane); every other URL, remote or
local, gets nothing, so the preview never touches the network or a file outside the vault.
An image is decoded on a worker thread (a large photo takes longer than a frame): until then
the page shows an empty box of the image's size, read from the file's header, and the preview
re-renders when the images are in. Decoded images are kept in a small cache, because each
re-render while typing asks again.
"""

from __future__ import annotations

from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from PySide6.QtCore import QSize, Qt, QUrl, Signal
from PySide6.QtGui import QImage, QImageReader, QResizeEvent, QTextDocument
from PySide6.QtWidgets import QTextBrowser, QWidget

from suzent_desktop.core.vault.links import in_vault_walk
from suzent_desktop.ui.base.icons import icon_image
from suzent_desktop.ui.reading.markdown_render import ICON_SCHEME, parse_embed_href
from suzent_desktop.ui.reading.wide_tables import set_html_fitted

IMAGE_CACHE_SIZE = 48
_FRAME_SLACK = 48  # callout and embed frames take some width from nested images
_DECODER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="preview-images")

ImageKey = tuple[str, int, int, int]


class ImageCache:
    """Decoded, scaled images by (file, modification time, size): re-renders reuse them."""

    def __init__(self, size: int = IMAGE_CACHE_SIZE) -> None:
        self.size = size
        self._images: OrderedDict[tuple[str, int, int, int], QImage] = OrderedDict()

    @staticmethod
    def key(path: Path, width: int | None, height: int | None, fit: int) -> ImageKey | None:
        """What an image is cached under; None when the file cannot be read."""
        try:
            stamp = path.stat().st_mtime_ns
        except OSError:
            return None
        return (str(path), stamp, (width or 0) * 100_000 + (height or 0), fit)

    def get(self, key: ImageKey) -> QImage | None:
        """The decoded image (a null QImage when the file could not be decoded), or None if not decoded yet."""
        image = self._images.get(key)
        if image is not None:
            self._images.move_to_end(key)
        return image

    def put(self, key: ImageKey, image: QImage) -> None:
        self._images[key] = image
        while len(self._images) > self.size:
            self._images.popitem(last=False)


def target_size(natural: QSize, width: int | None, height: int | None, fit: int) -> QSize:
    """The size an image is shown at: the page's ``|W`` or ``|WxH`` (aspect kept), then no wider than ``fit``."""
    w, h = natural.width(), natural.height()
    if w <= 0 or h <= 0:
        return QSize(width or w, height or h)
    if width and height:
        scale = min(width / w, height / h)
    elif width:
        scale = width / w
    elif height:
        scale = height / h
    else:
        scale = 1.0
    if fit > 0 and w * scale > fit:
        scale = fit / w
    return QSize(max(1, round(w * scale)), max(1, round(h * scale)))


def _placeholder(path: Path, width: int | None, height: int | None, fit: int) -> QImage:
    """An empty box of the size the image will have (the header alone is read), shown while it decodes."""
    natural = QImageReader(str(path)).size()
    size = target_size(natural, width, height, fit) if natural.isValid() else QSize(width or 1, height or 1)
    box = QImage(size, QImage.Format.Format_ARGB32)
    box.fill(Qt.GlobalColor.transparent)
    return box


def _read_scaled(path: Path, width: int | None, height: int | None, fit: int) -> QImage | None:
    reader = QImageReader(str(path))
    reader.setAutoTransform(True)
    natural = reader.size()
    if natural.isValid():
        size = target_size(natural, width, height, fit)
        if size != natural:
            reader.setScaledSize(size)  # JPEG decodes straight to the smaller size
    image = reader.read()
    if image.isNull():
        return None
    if not natural.isValid():
        size = target_size(image.size(), width, height, fit)
        if size != image.size():
            image = image.scaled(size)
    return image


_CACHE = ImageCache()


class PreviewBrowser(QTextBrowser):
    """Read-only rendered markdown; ``embed:`` images come from ``root`` only."""

    width_changed = Signal()  # the pane's width changed enough that images should be re-fitted
    images_ready = Signal()  # images decoded since the last render: render again to show them
    _decoded = Signal(object, object)  # (key, QImage | None), from the decoding thread

    def __init__(self, root: Path | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.root = Path(root) if root is not None else None
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.refused: list[str] = []  # URLs the document asked for and did not get (shown nowhere; tests read it)
        self._fitted_to = 0
        self.pending: set[ImageKey] = set()  # images being decoded
        self._decoded.connect(self._on_decoded)

    def fit_width(self) -> int:
        """Widest an image may be: the pane less the document's margins and some frame room."""
        margin = int(self.document().documentMargin())
        return max(64, self.viewport().width() - 2 * margin - _FRAME_SLACK)

    def loadResource(self, kind: int, url: QUrl | str):  # noqa: ANN201, N802 - Qt override returning a QVariant
        href = url.toString() if isinstance(url, QUrl) else url
        embed = parse_embed_href(href)
        is_image = getattr(kind, "value", kind) == QTextDocument.ResourceType.ImageResource.value
        if is_image and href.startswith(ICON_SCHEME + ":"):
            found = icon_image(href[len(ICON_SCHEME) + 1 :])
            if found is not None:
                return found
        if is_image and embed is not None and self.root is not None:
            rel, width, height = embed
            path = self.root / rel
            key = ImageCache.key(path, width, height, self.fit_width()) if in_vault_walk(self.root, path) else None
            if key is not None and path.is_file():
                self._fitted_to = key[3]
                image = _CACHE.get(key)
                if image is None:
                    self._decode(key, path, width, height)
                    return _placeholder(path, width, height, key[3])
                if not image.isNull():
                    return image
        self.refused.append(href)
        return None

    def _decode(self, key: ImageKey, path: Path, width: int | None, height: int | None) -> None:
        if key in self.pending:
            return
        self.pending.add(key)

        def work() -> None:
            image = _read_scaled(path, width, height, key[3])
            try:
                self._decoded.emit(key, image)
            except RuntimeError:
                pass  # the preview closed meanwhile

        _DECODER.submit(work)

    def _on_decoded(self, key: ImageKey, image: QImage | None) -> None:
        self.pending.discard(key)
        _CACHE.put(key, image if image is not None else QImage())
        if not self.pending:
            self.images_ready.emit()

    def setHtml(self, html: str) -> None:  # noqa: N802 - Qt override
        """Show a page; a table wider than the pane is held to its width (the page never scrolls sideways)."""
        set_html_fitted(self.document(), html, super().setHtml)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        if self._fitted_to and abs(self.fit_width() - self._fitted_to) > 8:
            self._fitted_to = 0
            self.width_changed.emit()
