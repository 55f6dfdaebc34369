"""The fine-tuned sentence classifier half of the fact judge.

The linear judge reads words, verb forms and the bundled MiniLM's sentence vector, but a frozen
sentence vector says what a line is about, not whether it states something: "User loves your
photos" and "User loves hiking" sit close together. This is all-MiniLM-L6-v2 fine-tuned end to
end on the judge's own labelled lines (``training/fact_judge/finetune.py``), so its attention
learns which words carry the statement. It answers one number a line, a keep logit that the judge
adds to its own score (an even vote of two models, no weight fitted between them).

int8, per-channel, on one core: about as fast as the embedder, a few milliseconds a line.
"""

from __future__ import annotations

import threading
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from suzent_desktop.core.index.embedding import bundled_tokenizer_path, cpu_session

FILE = "fact_judge_encoder.onnx"  # in suzent_desktop/resources
MAX_TOKENS = 64  # a candidate line is one sentence; the model was trained on 64 tokens at most


class FactEncoderError(RuntimeError):
    """The classifier file is missing, unreadable or not the one the weights were trained with."""


def encoder_path() -> Path:
    return Path(str(resources.files("suzent_desktop.resources").joinpath(FILE)))


class FactEncoder:
    """Keep logits of lines; the session loads on first use, on one thread."""

    def __init__(self, path: Path | None = None) -> None:
        self._path = path or encoder_path()
        self._session: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    @property
    def path(self) -> Path:
        return self._path

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._session is None:
                if not self._path.is_file():
                    raise FactEncoderError(f"{self._path}: the fact judge's classifier file is missing")
                from tokenizers import Tokenizer

                tokenizer = Tokenizer.from_file(str(bundled_tokenizer_path()))
                tokenizer.enable_truncation(max_length=MAX_TOKENS)
                tokenizer.enable_padding()
                try:
                    self._session = cpu_session(self._path, threads=1)
                except Exception as exc:  # onnxruntime raises its own exception types
                    raise FactEncoderError(f"{self._path}: cannot load the fact judge's classifier: {exc}") from exc
                self._tokenizer = tokenizer
            return self._tokenizer, self._session

    def logits(self, lines: list[str]) -> np.ndarray:
        """One keep logit a line (one model call for them all: a turn gives a handful)."""
        if not lines:
            return np.zeros(0, dtype=np.float32)
        tokenizer, session = self._load()
        encodings = tokenizer.encode_batch([line if line.strip() else " " for line in lines])
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        (logits,) = session.run(["keep_logit"], {"input_ids": ids, "attention_mask": mask})
        return np.asarray(logits, dtype=np.float32).reshape(len(lines))
