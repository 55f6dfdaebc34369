"""The MCP server over HTTP for agents on other machines: a bearer token, and Host/Origin checks.

``suzent-desktop mcp --http PORT`` listens on 127.0.0.1 only. ``--bind ADDRESS --token-file FILE``
also serves other machines; then every request must carry ``Authorization: Bearer TOKEN``
(the file's text), or it gets 401 before anything else reads it. The DNS-rebinding checks of
the local server stay as they are (a foreign ``Host`` gets 421, a foreign ``Origin`` 403):
the allowed hosts are the loopback names plus those in the setting ``mcp_allowed_hosts``, compared
without regard to case as DNS does; an ``Origin`` passes only when it is the server's own (the
scheme and the request's ``Host``) or one in ``mcp_allowed_origins``, so a web page served on
another local port cannot call the memory. A client has HEADER_TIMEOUT_SECONDS to send its
request's headers: a half-sent request is not held open before the token is even read. Serve it
to the network behind a TLS reverse proxy (docs/mcp.md shows one): the token must not cross a
network in clear text.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import os
import stat
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

import h11
from mcp.server.transport_security import TransportSecuritySettings
from uvicorn.protocols.http.h11_impl import H11Protocol

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "[::1]"})
MIN_TOKEN_CHARS = 16
MAX_TOKEN_FILE_BYTES = 64 * 1024
HEADER_TIMEOUT_SECONDS = 10.0  # from a request's first byte (or the connection's start) to its last header

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Awaitable[None]]


class HttpSetupError(ValueError):
    """The HTTP options cannot be used as given (the message names the option or file)."""


def is_loopback(address: str) -> bool:
    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address.strip("[]")).is_loopback
    except ValueError:
        return False


def read_token(path: Path) -> str:
    """The token in ``path`` (one line); refused when missing, short, readable by others, or not a
    regular file (a named pipe would block start-up until something wrote to it)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise HttpSetupError(f"--token-file {path}: cannot be read ({exc.strerror or exc})") from exc
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise HttpSetupError(f"--token-file {path}: not a regular file (a pipe, a device or a folder); "
                                 "give a file that holds the token")
        data = os.read(fd, MAX_TOKEN_FILE_BYTES + 1)
    except OSError as exc:
        raise HttpSetupError(f"--token-file {path}: cannot be read ({exc.strerror or exc})") from exc
    finally:
        os.close(fd)
    try:
        token = data.decode("utf-8").strip()
    except UnicodeDecodeError:
        token = ""
    if len(token) < MIN_TOKEN_CHARS or len(data) > MAX_TOKEN_FILE_BYTES or any(c.isspace() for c in token):
        raise HttpSetupError(f"--token-file {path}: the token must be one word of at least {MIN_TOKEN_CHARS} "
                             "characters (for example the output of `openssl rand -hex 32`)")
    if os.name == "posix" and mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise HttpSetupError(f"--token-file {path}: other users can read it; run `chmod 600 {path}`")
    return token


def _split_host(value: str) -> tuple[str, str | None]:
    """``Example.org:8765`` -> (``example.org``, ``8765``); ``[::1]`` keeps its brackets."""
    value = value.strip().lower()
    if value.startswith("["):
        name, _, rest = value.partition("]")
        return name + "]", rest[1:] if rest.startswith(":") else (None if not rest else rest)
    name, colon, port = value.partition(":")
    return name, port if colon else None


def _host_allowed(host: str, allowed: list[str]) -> bool:
    """A loopback name with any port, or a name of ``mcp_allowed_hosts``: ``proxy.example.org``
    with any port, ``proxy.example.org:443`` with exactly that one."""
    name, port = _split_host(host)
    if not name or (port is not None and not port.isdigit()):
        return False
    if name in LOOPBACK_NAMES:
        return True
    for entry in allowed:
        want_name, want_port = _split_host(entry)
        if want_name == name and want_port in (None, "*", port):
            return True
    return False


def _origin_allowed(origin: str, host: str, allowed: list[str]) -> bool:
    """The server's own origin (its scheme and the request's Host), or one of ``mcp_allowed_origins``."""
    origin = origin.strip().lower()
    if origin in (f"http://{host.lower()}", f"https://{host.lower()}"):
        return True
    for entry in (a.lower() for a in allowed):
        if origin == entry:
            return True
        base, _, port = origin.rpartition(":")
        if entry.endswith(":*") and base == entry[:-2] and port.isdigit():
            return True
    return False


class HostOriginCheck:
    """ASGI middleware against DNS rebinding: a foreign ``Host`` gets 421, a foreign ``Origin`` 403."""

    def __init__(self, app: ASGIApp, settings: Any) -> None:
        self.app = app
        self.hosts = settings.mcp_allowed_hosts.split()
        self.origins = settings.mcp_allowed_origins.split()

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope.get("type") == "http":
            headers = {name.lower(): value.decode("latin-1") for name, value in scope.get("headers", [])}
            host, origin = headers.get(b"host", ""), headers.get(b"origin")
            if not _host_allowed(host, self.hosts):
                return await _refuse(send, 421, "Invalid Host header")
            if origin and not _origin_allowed(origin, host, self.origins):  # none: not from a web page
                return await _refuse(send, 403, "Invalid Origin header")
        await self.app(scope, receive, send)


async def _refuse(send: Any, status: int, message: str) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8")]})
    await send({"type": "http.response.body", "body": f"{status} {message}\n".encode()})


class BearerAuth:
    """ASGI middleware: a request without the right ``Authorization: Bearer`` header gets 401."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope.get("type") == "http":
            given = b""
            for name, value in scope.get("headers", []):
                if name.lower() == b"authorization":
                    given = value
            if not hmac.compare_digest(given, self.expected):
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                        (b"www-authenticate", b'Bearer realm="suzent-desktop"')]})
                await send({"type": "http.response.body", "body": b"401 Unauthorized: a bearer token is required\n"})
                return
        await self.app(scope, receive, send)


def check_options(bind: str, token_file: Path | None) -> None:
    if not is_loopback(bind) and token_file is None:
        raise HttpSetupError(f"--bind {bind}: serving other machines needs --token-file FILE (a bearer token)")


def build_app(server: Any, settings: Any, *, bind: str, token: str | None) -> ASGIApp:
    """The server's streamable-HTTP app behind the Host/Origin check and the token check (when a token is set)."""
    checks_off = TransportSecuritySettings(enable_dns_rebinding_protection=False)  # HostOriginCheck does them
    app = server.streamable_http_app(transport_security=checks_off, host=bind)
    return HostOriginCheck(BearerAuth(app, token) if token else app, settings)


class HeaderDeadline(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, closing a connection that owes bytes nobody reads for more than
    HEADER_TIMEOUT_SECONDS: a request's headers not complete since they began (or since the
    connection opened), or the body of a request already answered (a 401 reads none). A client
    that sends half a request, or trickles a body after its 401, would otherwise hold a
    connection, and a file descriptor, forever."""

    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._watch()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _owed(self) -> bool:
        """The client owes bytes the app does not wait for."""
        state = self.conn.their_state
        answered = self.cycle is not None and self.cycle.response_complete
        return state is h11.IDLE or (state is h11.SEND_BODY and answered)

    def _watch(self) -> None:
        if not self._owed():
            self._disarm()
        elif self._deadline is None and not self.transport.is_closing():
            self._deadline = self.loop.call_later(HEADER_TIMEOUT_SECONDS, self._late)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _late(self) -> None:
        self._deadline = None
        if self._owed() and not self.transport.is_closing():
            self.transport.close()


def http_server(server: Any, settings: Any, *, port: int, bind: str, token: str | None) -> Any:
    """The uvicorn server for :func:`serve_http` (a test runs it in a thread)."""
    import uvicorn

    config = uvicorn.Config(build_app(server, settings, bind=bind, token=token), host=bind, port=port,
                            http=HeaderDeadline, log_level="warning")
    return uvicorn.Server(config)


async def serve_http(server: Any, settings: Any, *, port: int, bind: str, token: str | None) -> None:
    await http_server(server, settings, port=port, bind=bind, token=token).serve()
