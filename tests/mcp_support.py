"""Start ``suzent-desktop mcp`` as a subprocess and talk to it with the SDK's own stdio client."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

REPO = Path(__file__).resolve().parents[1]
CALL_TIMEOUT = 60.0  # seconds: a loaded machine, never a figure a test asserts


def server_params(home: Path, *extra: str) -> StdioServerParameters:
    """The command line an MCP client would be configured with, on this checkout's code."""
    env = {
        "PYTHONPATH": str(REPO),
        "SUZENT_EMBEDDING_MODEL": "hashing",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    for key in ("SUZENT_TODAY", "SUZENT_LOCAL_CONFIG"):
        if key in os.environ:
            env[key] = os.environ[key]
    return StdioServerParameters(
        command=sys.executable, args=["-m", "suzent_desktop", "mcp", "--home", str(home), *extra], env=env
    )


@asynccontextmanager
async def mcp_session(home: Path, *extra: str, errlog=None) -> AsyncIterator[ClientSession]:  # noqa: ANN001
    """An initialized client session on a fresh server process; the process ends with the block."""
    kwargs = {"errlog": errlog} if errlog is not None else {}
    async with stdio_client(server_params(home, *extra), **kwargs) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=CALL_TIMEOUT) as session:
            await session.initialize()
            yield session


def tree_snapshot(root: Path, *, skip: tuple[str, ...] = ()) -> dict[str, bytes]:
    """Every file under root with its bytes (names in ``skip`` left out), to prove nothing changed."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name not in skip
    }
