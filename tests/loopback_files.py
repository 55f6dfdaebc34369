"""Files served over HTTP on the loopback address, for the model download tests (no network here).

``stall`` holds one file's body after its first bytes until an event is set: a download that is
under way, for as long as a test needs it to be (a cancel while the bytes flow).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from suzent_desktop.core.index.model_download import PinnedFile

STALL_LIMIT_SECONDS = 30.0  # a stalled answer never outlives a failed test by much


@dataclass(frozen=True)
class Stall:
    """Send ``after`` bytes of ``name``, then wait for ``go`` before the rest."""

    name: str
    after: int
    go: threading.Event


@contextmanager
def serving(files: dict[str, bytes], stall: Stall | None = None) -> Iterator[tuple[str, list[str]]]:
    """(base URL, the paths asked for) of a loopback server holding ``files``."""
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server name
            asked.append(self.path)
            name = self.path.lstrip("/")
            body = files.get(name)
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            split = stall.after if stall is not None and stall.name == name else len(body)
            try:
                self.wfile.write(body[:split])
                self.wfile.flush()
                if split < len(body):
                    stall.go.wait(STALL_LIMIT_SECONDS)
                    self.wfile.write(body[split:])
            except OSError:  # the client stopped reading (a cancelled download)
                pass

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", asked
    finally:
        if stall is not None:
            stall.go.set()
        server.shutdown()
        server.server_close()


def pin(name: str, url: str, body: bytes, *, max_bytes: int | None = None) -> PinnedFile:
    return PinnedFile(name, url, hashlib.sha256(body).hexdigest(), max_bytes or len(body))
