"""``mcp --http PORT --bind ADDRESS --token-file FILE``: bearer token, Host and Origin checks."""

from __future__ import annotations

import subprocess
import sys
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
    from suzent_desktop.core.files.mcp_activity import ActivityRecorder
    from suzent_desktop.mcp_server import MemoryTools

    tools = MemoryTools(manager, read_only=True, activity=ActivityRecorder(manager.layout.mcp_activity_file,
                                                                            enabled=False, read_only=True))
    status = await tools.memory_status()
    assert status["server"]["device"] == "server-1"
