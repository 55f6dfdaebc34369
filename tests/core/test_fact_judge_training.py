"""The fact judge's own training material reads as train.py expects (training/fact_judge/)."""

from __future__ import annotations

import importlib.util
from collections import defaultdict
from pathlib import Path
from types import ModuleType

from suzent_desktop.core.engines.capture.fact_judge import SUBJECTS

FOLDER = Path(__file__).resolve().parents[2] / "training" / "fact_judge"


def _train() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fact_judge_train", FOLDER / "train.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rows(name: str) -> list[list[str]]:
    return [row.split("\t") for row in (FOLDER / name).read_text(encoding="utf-8").splitlines() if not row.startswith("#")]


def test_every_talk_line_has_a_hand_label_the_step_that_made_it_and_its_turn():
    rows = _rows("talk_labels.tsv")
    turns: dict[str, set[str]] = defaultdict(set)
    for number, row in enumerate(rows, 1):
        assert len(row) == 5, f"talk_labels.tsv row {number}: {len(row)} columns"
        group, label, line, step, turn = row
        assert group.startswith("talk-"), f"row {number}: group {group!r}"
        assert label == "drop" or label in SUBJECTS, f"row {number}: label {label!r}"
        assert step in ("candidate", "wide", "both"), f"row {number}: step {step!r}"
        assert line.strip() and turn.strip(), f"row {number}: empty line or turn"
        turns[group].add(turn)
    assert all(len(texts) == 1 for texts in turns.values()), "a turn group holds two different turns"
    assert len(turns) >= 250


def test_train_reads_the_talk_lines_as_their_own_source_each_turn_a_group():
    train = _train()
    examples = train.line_examples("talk_labels.tsv")
    assert len(examples) == len(_rows("talk_labels.tsv"))
    keep = {line: kept for line, kept, _subject, _group in examples}
    assert keep["User thanks Dana for the tip"] == 0  # a thanks to a named friend, only the wide step makes it
    assert keep["User adopted a senior beagle named Rosie from the shelter last month"] == 1
    assert "User thanks Dana for the tip" in train.wide_only()
    assert train._weight("talk-12") == train.TALK_WEIGHT
