"""Suite-wide setup: offscreen Qt, the deterministic hashing embedder, a pinned clock."""

from __future__ import annotations

import datetime as dt
import os
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
for key in list(os.environ):
    if key.startswith("SUZENT_"):
        del os.environ[key]
# Most tests use the hashing embedder; tests marked real_model opt into the bundled model.
os.environ["SUZENT_EMBEDDING_MODEL"] = "hashing"
# The device id lives in per-machine config: keep the suite's out of the user's config folder.
os.environ["SUZENT_LOCAL_CONFIG"] = str(Path(tempfile.mkdtemp(prefix="suzent-local-")) / "device.toml")

TODAY = dt.date(2026, 7, 20)


@pytest.fixture
def today() -> dt.date:
    return TODAY


@pytest.fixture
def clock(today: dt.date):
    from suzent_desktop.core.files.clock import Clock

    return Clock(fixed_today=today)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, today: dt.date) -> Path:
    """An empty home folder, with SUZENT_TODAY pinned so every date rule is reproducible."""
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("SUZENT_HOME", str(path))
    monkeypatch.setenv("SUZENT_TODAY", today.isoformat())
    return path


@pytest.fixture
def layout(home: Path):
    from suzent_desktop.core.files.paths.layout import Layout
    from suzent_desktop.settings import load_settings

    return Layout.from_settings(home, load_settings(home))
