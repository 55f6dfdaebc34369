"""One window per home: a second start on a home that is open brings its window to the front.

The window listens on a local socket (a named pipe on Windows) whose name is derived from the
home's resolved path. A later ``gui``, ``open PATH`` or ``demo`` on the same home connects to it,
asks for the window, and exits: only one process ever runs the indexer and the dream runner of
a home. A socket file left by a process that crashed is noticed (nobody answers) and replaced.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from PySide6.QtCore import QDir, QLockFile, QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket
from PySide6.QtWidgets import QWidget

CONNECT_MS = 500  # a live window answers in a few ms; a stale socket file refuses at once
RAISE_REQUEST = b"raise\n"
ALREADY_OPEN = "{home} is already open in a window: it was brought to the front."


def server_name(home: Path) -> str:
    """The socket's name for ``home``: the same for every spelling of the path (``~``, a symlink)."""
    resolved = str(Path(home).expanduser().resolve())
    if sys.platform == "win32":
        resolved = resolved.lower()
    return "suzent-home-" + hashlib.sha1(resolved.encode("utf-8")).hexdigest()[:20]


def hand_over(home: Path, timeout_ms: int = CONNECT_MS) -> bool:
    """Ask the window already open on ``home`` to come to the front; False when none is open."""
    return _ask(server_name(home), timeout_ms)


def _ask(name: str, timeout_ms: int) -> bool:
    socket = QLocalSocket()
    socket.connectToServer(name)
    if not socket.waitForConnected(timeout_ms):
        return False
    socket.write(RAISE_REQUEST)
    socket.waitForBytesWritten(timeout_ms)
    socket.disconnectFromServer()
    if socket.state() != QLocalSocket.LocalSocketState.UnconnectedState:
        socket.waitForDisconnected(timeout_ms)
    return True


class HomeServer(QObject):
    """The open window's end of the socket: ``raise_requested`` when another start wants it."""

    raise_requested = Signal()

    def __init__(self, home: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = server_name(home)
        self.server = QLocalServer(self)
        self.server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self.server.newConnection.connect(self._connected)

    def claim(self) -> bool:
        """Listen for the home; False when another process holds it (it has been asked to come forward).

        Asked first: Qt's listen on Unix takes over a socket file even while another server uses it."""
        turn = QLockFile(str(Path(QDir.tempPath()) / f"{self.name}.lock"))  # two starts at once: one at a time
        turn.setStaleLockTime(10_000)
        turn.lock()
        try:
            if _ask(self.name, CONNECT_MS):
                return False
            QLocalServer.removeServer(self.name)  # a file left by a process that is gone
            return self.server.listen(self.name)
        finally:
            turn.unlock()

    def close(self) -> None:
        self.server.close()

    def _connected(self) -> None:
        while self.server.hasPendingConnections():
            socket = self.server.nextPendingConnection()
            socket.disconnected.connect(socket.deleteLater)
            self.raise_requested.emit()


def bring_to_front(window: QWidget) -> None:
    """Un-minimise, raise and activate ``window`` (the window manager may only flash it)."""
    if window.isMinimized():
        window.showNormal()
    window.show()
    window.raise_()
    window.activateWindow()
