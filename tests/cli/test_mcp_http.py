"""``mcp --http PORT --bind ADDRESS --token-file FILE``: bearer token, Host and Origin checks."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from suzent_desktop import mcp_http
from suzent_desktop.core.manager import MemoryManager
from suzent_desktop.mcp_server import build_server

TOKEN = "0123456789abcdef0123456789abcdef"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@pytest.fixture
def client(home: Path):
    manager = MemoryManager.open(home)
    settings = manager.settings.replace(mcp_allowed_hosts="memory.example.org",
                                        mcp_allowed_origins="https://memory.example.org")
    app = mcp_http.build_app(build_server(manager), settings, bind="0.0.0.0", token=TOKEN)
    with TestClient(app, base_url="http://127.0.0.1:8765") as test_client:
        yield test_client


def test_every_request_needs_the_bearer_token(client: TestClient):
    assert client.post("/mcp", json=INIT, headers=ACCEPT).status_code == 401
    wrong = client.post("/mcp", json=INIT, headers={**ACCEPT, "authorization": "Bearer nope"})
    assert wrong.status_code == 401 and wrong.headers["www-authenticate"].startswith("Bearer")
    right = client.post("/mcp", json=INIT, headers={**ACCEPT, "authorization": f"Bearer {TOKEN}"})
    assert right.status_code == 200


def test_foreign_host_and_origin_stay_refused_and_configured_ones_pass(client: TestClient):
    auth = {**ACCEPT, "authorization": f"Bearer {TOKEN}"}
    assert client.post("/mcp", json=INIT, headers={**auth, "host": "evil.example.com"}).status_code == 421
    assert client.post("/mcp", json=INIT, headers={**auth, "origin": "https://evil.example.com"}).status_code == 403
    proxied = {**auth, "host": "memory.example.org", "origin": "https://memory.example.org"}
    assert client.post("/mcp", json=INIT, headers=proxied).status_code == 200


def test_host_is_compared_without_regard_to_case(client: TestClient):
    auth = {**ACCEPT, "authorization": f"Bearer {TOKEN}"}
    for host in ("LOCALHOST:8765", "Memory.Example.ORG", "memory.example.org:443"):
        assert client.post("/mcp", json=INIT, headers={**auth, "host": host}).status_code == 200, host
    for host in ("localhost:evil", "memory.example.org.evil.com", ""):
        assert client.post("/mcp", json=INIT, headers={**auth, "host": host}).status_code == 421, host


def test_only_the_servers_own_origin_passes_among_local_ones(client: TestClient):
    auth = {**ACCEPT, "authorization": f"Bearer {TOKEN}"}
    for origin in ("http://localhost:3000", "http://127.0.0.1:9999", "http://[::1]:8765", "null"):
        assert client.post("/mcp", json=INIT, headers={**auth, "origin": origin}).status_code == 403, origin
    for origin in ("http://127.0.0.1:8765", "HTTP://127.0.0.1:8765", "https://Memory.Example.org"):
        assert client.post("/mcp", json=INIT, headers={**auth, "origin": origin}).status_code == 200, origin


def test_a_named_pipe_as_token_file_is_refused_without_waiting(tmp_path: Path):
    pipe = tmp_path / "token"
    os.mkfifo(pipe, 0o600)
    outcome: list[BaseException | str] = []

    def read() -> None:
        try:
            outcome.append(mcp_http.read_token(pipe))
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            outcome.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=20)
    if reader.is_alive():  # blocked on the pipe: let it go before failing
        os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(timeout=5)
        pytest.fail("reading a named pipe as the token file blocked start-up")
    assert isinstance(outcome[0], mcp_http.HttpSetupError) and "not a regular file" in str(outcome[0])
    with pytest.raises(mcp_http.HttpSetupError, match="not a regular file"):
        mcp_http.read_token(tmp_path)


def test_a_half_sent_request_is_closed_after_the_header_timeout(home: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(mcp_http, "HEADER_TIMEOUT_SECONDS", 0.5)
    manager = MemoryManager.open(home)
    server = mcp_http.http_server(build_server(manager), manager.settings, port=0, bind="127.0.0.1", token=TOKEN)
    runner = threading.Thread(target=server.run, daemon=True)
    runner.start()
    try:
        with socket.create_connection(("127.0.0.1", _port_of(server)), timeout=30) as half:
            half.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthor")  # and nothing more
            try:
                assert half.recv(1024) == b""  # the server closed it
            except TimeoutError:
                pytest.fail("a half-sent request was held open")
        with socket.create_connection(("127.0.0.1", _port_of(server)), timeout=30) as trickle:
            trickle.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n{")
            assert trickle.recv(1024).startswith(b"HTTP/1.1 401")  # answered before the body is read
            assert _closed_while_trickling(trickle)  # a body trickled after the answer holds nothing open
        with socket.create_connection(("127.0.0.1", _port_of(server)), timeout=30) as whole:
            whole.sendall(b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert whole.recv(1024).startswith(b"HTTP/1.1 401")  # a whole request is answered as before
    finally:
        server.should_exit = True
        runner.join(timeout=30)


def _closed_while_trickling(connection: socket.socket) -> bool:
    """Send a byte every 0.1 s, as a slow client would, until the server closes the connection (True)
    or 10 s have passed (False)."""
    connection.settimeout(0.1)
    for _ in range(100):
        try:
            connection.sendall(b" ")
            if connection.recv(1024) == b"":
                return True
        except TimeoutError:
            continue
        except OSError:  # reset by the server
            return True
    return False


def _port_of(server) -> int:
    import time

    deadline = time.monotonic() + 60
    while not server.started:
        assert time.monotonic() < deadline and server.should_exit is False, "the server did not start"
        time.sleep(0.02)
    return server.servers[0].sockets[0].getsockname()[1]


def test_token_file_rules(tmp_path: Path):
    token = tmp_path / "token"
    token.write_text("short\n")
    token.chmod(0o600)
    with pytest.raises(mcp_http.HttpSetupError, match="at least 16"):
        mcp_http.read_token(token)
    token.write_text(TOKEN + "\n")
    token.chmod(0o644)
    with pytest.raises(mcp_http.HttpSetupError, match="chmod 600"):
        mcp_http.read_token(token)
    token.chmod(0o600)
    assert mcp_http.read_token(token) == TOKEN
    with pytest.raises(mcp_http.HttpSetupError, match="--token-file"):
        mcp_http.check_options("0.0.0.0", None)
    mcp_http.check_options("127.0.0.1", None)


def test_bind_without_a_token_file_is_refused_before_serving(home: Path):
    done = subprocess.run([sys.executable, "-m", "suzent_desktop", "--home", str(home), "mcp", "--http", "8799",
                           "--bind", "0.0.0.0"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "--token-file" in done.stderr


async def test_memory_status_names_the_device_that_answered(home: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("SUZENT_DEVICE", "server-1")
    manager = MemoryManager.open(home)
    from suzent_desktop.core.files.records.mcp_activity import ActivityRecorder
    from suzent_desktop.mcp_server import MemoryTools

    tools = MemoryTools(manager, read_only=True, activity=ActivityRecorder(manager.layout.mcp_activity_file,
                                                                            enabled=False, read_only=True))
    status = await tools.memory_status()
    assert status["server"]["device"] == "server-1"


async def test_memory_status_names_no_absolute_path_of_the_home(home: Path):
    manager = MemoryManager.open(home)
    page = manager.layout.notebook_dir / "3_Personal" / "Work.md"
    page.parent.mkdir(parents=True, exist_ok=True)
    from suzent_desktop.core.files.records.mcp_activity import ActivityRecorder
    from suzent_desktop.mcp_server import MemoryTools

    tools = MemoryTools(manager, read_only=True, activity=ActivityRecorder(manager.layout.mcp_activity_file,
                                                                            enabled=False, read_only=True))
    await manager.indexing.reindex()
    page.write_text("# Work\n\n- User works at Contoso\n", encoding="utf-8")  # changed since indexed
    status = await tools.memory_status()
    assert str(home) not in json.dumps(status) and "home" not in status["server"]
    assert status["index"]["stale_files"] == ["vault/3_Personal/Work.md"]
