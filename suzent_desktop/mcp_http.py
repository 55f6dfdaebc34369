"""The MCP server over HTTP for agents on other machines: a bearer token, and Host/Origin checks.

``suzent-desktop mcp --http PORT`` listens on 127.0.0.1 only. ``--bind ADDRESS --token-file FILE``
also serves other machines; then every request must carry ``Authorization: Bearer TOKEN``
(the file's text), or it gets 401 before anything else reads it. The DNS-rebinding checks of
the local server stay as they are (a foreign ``Host`` gets 421, a foreign ``Origin`` 403):
the allowed values are the loopback names plus those in the settings ``mcp_allowed_hosts`` and
``mcp_allowed_origins``, never opened wide. Serve it to the network behind a TLS reverse proxy
(the README shows one): the token must not cross a network in clear text.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import stat
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

from mcp.server.transport_security import TransportSecuritySettings

LOOPBACK_HOSTS = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
LOOPBACK_ORIGINS = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]
MIN_TOKEN_CHARS = 16

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
    """The token in ``path`` (one line); refused when missing, short, or readable by others."""
    try:
        text = path.read_text(encoding="utf-8")
        mode = path.stat().st_mode
    except OSError as exc:
        raise HttpSetupError(f"--token-file {path}: cannot be read ({exc.strerror or exc})") from exc
    token = text.strip()
    if len(token) < MIN_TOKEN_CHARS or any(c.isspace() for c in token):
        raise HttpSetupError(f"--token-file {path}: the token must be one word of at least {MIN_TOKEN_CHARS} "
                             "characters (for example the output of `openssl rand -hex 32`)")
    if os.name == "posix" and mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise HttpSetupError(f"--token-file {path}: other users can read it; run `chmod 600 {path}`")
    return token


def _host_patterns(value: str) -> list[str]:
    """``proxy.example.org`` allows it with any port; ``proxy.example.org:443`` exactly that."""
    patterns: list[str] = []
    for host in value.split():
        patterns += [host] if host.rsplit(":", 1)[-1].isdigit() or host.endswith(":*") else [host, f"{host}:*"]
    return patterns


def security(settings: Any) -> TransportSecuritySettings:
    """The loopback names, plus only what the settings add."""
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=LOOPBACK_HOSTS + _host_patterns(settings.mcp_allowed_hosts),
        allowed_origins=LOOPBACK_ORIGINS + settings.mcp_allowed_origins.split(),
    )


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
    """The server's streamable-HTTP app behind the token check (when a token is set)."""
    app = server.streamable_http_app(transport_security=security(settings), host=bind)
    return BearerAuth(app, token) if token else app


async def serve_http(server: Any, settings: Any, *, port: int, bind: str, token: str | None) -> None:
    import uvicorn

    config = uvicorn.Config(build_app(server, settings, bind=bind, token=token), host=bind, port=port,
                            log_level="warning")
    await uvicorn.Server(config).serve()
