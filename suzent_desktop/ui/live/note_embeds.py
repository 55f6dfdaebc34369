"""Notes embedded in Live Preview (``![[Page]]``): read and rendered to HTML on a worker, laid
out at the editor's width on the GUI thread when they are ready, so a page full of embeds opens
without waiting on the files they show."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from PySide6.QtGui import QTextDocument

from suzent_desktop.ui.base import theme

PREVIEW_WORKER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="live-preview")  # embeds and images


class NoteEmbeds:
    """Embedded notes rendered to HTML on a worker, then laid out here at the editor's width."""

    def __init__(self, render: Callable[[Path, str | None, bool], str], ready: Callable[[], None]) -> None:
        self._render = render
        self._ready = ready
        self._html: OrderedDict[tuple, str] = OrderedDict()
        self._pending: set[tuple] = set()
        self._docs: dict[tuple, QTextDocument] = {}

    @staticmethod
    def _key(path: Path, subpath: str | None) -> tuple[str, str | None, int, bool]:
        try:
            stamp = path.stat().st_mtime_ns
        except OSError:
            stamp = 0
        return (str(path), subpath, stamp, theme.is_dark())  # rendered with the theme's colours

    def document(self, path: Path, subpath: str | None, width: int, css: str) -> QTextDocument | None:
        """The laid-out embed, or None while it is being read (a worker is asked once)."""
        key = self._key(path, subpath)
        html = self._html.get(key)
        if html is None:
            if key not in self._pending:
                self._pending.add(key)
                PREVIEW_WORKER.submit(self._work, key, path, subpath)
            return None
        doc_key = (*key, width)
        doc = self._docs.get(doc_key)
        if doc is None:
            doc = QTextDocument()
            doc.setDefaultStyleSheet(css)
            doc.setDocumentMargin(8)
            doc.setHtml(html)
            doc.setTextWidth(width)
            if len(self._docs) > 64:
                self._docs.clear()
            self._docs[doc_key] = doc
        return doc

    def _work(self, key: tuple, path: Path, subpath: str | None) -> None:
        try:
            html = self._render(path, subpath, key[3])
        except Exception as exc:  # noqa: BLE001 - an unreadable page shows why, in its frame
            html = f"<p><i>{type(exc).__name__}: {exc}</i></p>"
        self._html[key] = html
        while len(self._html) > 128:
            self._html.popitem(last=False)
        self._pending.discard(key)
        self._ready()
