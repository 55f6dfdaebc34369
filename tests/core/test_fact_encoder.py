"""The fact judge's fine-tuned classifier: it votes, and it is never paired with weights trained beside another."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest
from dream_support import make_manager

from suzent_desktop.core.engines.capture import fact_judge
from suzent_desktop.core.engines.capture.extraction import ExtractionError
from suzent_desktop.core.engines.capture.fact_encoder import FactEncoder, FactEncoderError, encoder_path


def test_the_classifier_scores_a_stated_fact_above_a_reaction_to_the_listener():
    facts = ["User's brother Tomasz opened a bakery in Gdansk in March",
             "User has been learning the cello for two years"]
    talk = ["User thinks that sounds so cool", "User is so happy for Marta, that is amazing news"]
    logits = FactEncoder().logits(facts + talk)
    assert min(logits[:2]) > max(logits[2:])


def test_the_judge_adds_the_classifier_vote_to_its_linear_score():
    judge = fact_judge.judge()
    line = "User's brother Tomasz opened a bakery in Gdansk in March"
    alone = dataclasses.replace(judge, with_encoder=False).probability(line)
    assert judge.probability(line) != pytest.approx(alone)


def test_a_missing_classifier_file_is_named_in_the_error(tmp_path: Path):
    with pytest.raises(FactEncoderError, match="fact_judge_encoder.onnx: the fact judge's classifier file is missing"):
        FactEncoder(tmp_path / "fact_judge_encoder.onnx").logits(["User moved to Lyon"])


def test_weights_trained_beside_another_classifier_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    other = tmp_path / "fact_judge_encoder.onnx"
    shutil.copyfile(encoder_path(), other)
    with other.open("ab") as handle:
        handle.write(b"\0")  # a retrained file: another checksum
    monkeypatch.setattr(fact_judge, "encoder", lambda: FactEncoder(other))
    fact_judge.judge.cache_clear()
    try:
        with pytest.raises(FactEncoderError, match="not the classifier fact_judge.npz was trained with"):
            fact_judge.judge()
    finally:
        fact_judge.judge.cache_clear()


async def test_a_missing_classifier_fails_the_capture_by_name_and_keeps_the_turn(home, clock, monkeypatch: pytest.MonkeyPatch,
                                                                                tmp_path: Path):
    manager = make_manager(home, clock)
    monkeypatch.setattr(fact_judge, "encoder", lambda: FactEncoder(tmp_path / "fact_judge_encoder.onnx"))
    with pytest.raises(ExtractionError) as err:
        await manager.process_conversation_turn_for_memories("My sister Ana moved to Porto in May.", "Nice!", "s1")
    message = str(err.value)
    turn = manager.last_turn
    assert "fact_judge_encoder.onnx" in message and "no facts written" in message
    assert f"the turn is kept in {turn.path}:{turn.line}" in message and turn.path.is_file()
    assert not manager.archive.path_for(manager.clock.today().isoformat()).exists()
