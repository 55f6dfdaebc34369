"""Opening a folder of notes as a vault leaves it as it was: every file byte for byte, and no
new visible entry at its root except the app's one folder, created when the app first writes a page."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import shutil
from pathlib import Path

import pytest

from suzent_desktop.cli import main
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.paths.vaults import RecentVaults, home_for, vault_home
from suzent_desktop.core.files.records.log_grammar import Fact
from suzent_desktop.settings import load_settings

HELP_VAULT = Path(os.environ.get("SUZENT_OBSIDIAN_HELP", "/work/data/obsidian-help/en"))


def _sha256s(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _visible_root(root: Path) -> set[str]:
    return {p.name for p in root.iterdir() if not p.name.startswith(".")}


def _small_vault(root: Path) -> Path:
    (root / "Projects" / "Garden").mkdir(parents=True)
    (root / "attachments").mkdir()
    (root / ".obsidian").mkdir()
    (root / ".obsidian" / "app.json").write_text('{"livePreview": true}\n', encoding="utf-8")
    (root / "index.md").write_text("# My index\n\n- [[Beans]]\n", encoding="utf-8")
    (root / "Projects" / "Garden" / "Beans.md").write_text(
        "---\ntags: [garden]\n---\n# Beans\n\nPlanted in [[Spring]]. #garden\n", encoding="utf-8")
    (root / "Spring.md").write_text("# Spring\n\nSee ![[cat.png]].\n", encoding="utf-8")
    (root / "attachments" / "cat.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    return root


def _exercise(home: Path, today: dt.date) -> None:
    """open, index, search, capture a past day, dream, lint and promote: as a person would."""
    from suzent_desktop.core.files.records.archive import Archive

    layout = Layout.from_settings(home, load_settings(home))
    assert main(["--home", str(home), "reindex"]) == 0
    assert main(["--home", str(home), "search", "beans"]) == 0
    yesterday = dt.datetime.combine(today - dt.timedelta(days=1), dt.time(9))
    Archive(layout).append_turn([Fact("User prefers green tea", "preference")], session_id="s1", when=yesterday)
    for command in (["dream", "--force"], ["lint"], ["promote"], ["search", "green tea"]):
        assert main(["--home", str(home), *command]) == 0, command


@pytest.mark.parametrize("which", ["small", "obsidian-help"])
def test_an_existing_vault_is_left_as_it_was(tmp_path: Path, home: Path, today: dt.date, which: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("SUZENT_HOME")
    if which == "small":
        vault = _small_vault(tmp_path / "vault")
    else:
        if not HELP_VAULT.is_dir():
            pytest.skip("the Obsidian help vault is not on this machine")
        vault = tmp_path / "help"
        shutil.copytree(HELP_VAULT, vault)
    before, root_before = _sha256s(vault), _visible_root(vault)
    vault_home_dir = home_for(vault)
    assert vault_home_dir != vault and not vault_home_dir.is_relative_to(vault)
    assert main(["--home", str(vault_home_dir), "reindex"]) == 0  # a first open that writes (bootstraps)
    assert _visible_root(vault) == root_before  # nothing visible until the app writes a page
    _exercise(vault_home_dir, today)
    after = _sha256s(vault)
    assert {rel: after.get(rel) for rel in before} == before
    assert _visible_root(vault) == root_before | {"Memory"}
    memory = vault / "Memory"
    assert (memory / "log.md").is_file() and any((memory / "3_Personal").glob("*.md"))
    assert (vault / ".state").is_dir()  # the app's state stays hidden
    assert load_settings(vault_home_dir).notebook_path == str(vault.resolve())


def test_the_app_folder_is_configurable(tmp_path: Path, today: dt.date, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    vault = _small_vault(tmp_path / "vault")
    home = vault_home(vault)
    (home / "config.toml").write_text((home / "config.toml").read_text(encoding="utf-8") + 'app_folder = "Agent"\n',
                                      encoding="utf-8")
    _exercise(home, today)
    assert _visible_root(vault) == {"Projects", "attachments", "index.md", "Spring.md", "Agent"}


def test_a_fresh_home_keeps_the_seed_layout(home: Path) -> None:
    assert main(["--home", str(home), "lint"]) == 0
    vault = home / "notebook"
    assert {"0_Inbox", "2_Wiki", "3_Personal", "index.md", "log.md", "schema.md"} <= _visible_root(vault)


def test_a_vault_the_app_set_up_before_keeps_its_layout(home: Path) -> None:
    assert main(["--home", str(home), "lint"]) == 0
    (home / "notebook" / "Notes.md").write_text("# Notes\n", encoding="utf-8")
    layout = Layout.from_settings(home, load_settings(home))
    assert layout.app_dir == layout.notebook_dir and layout.log_md == home / "notebook" / "log.md"


def test_open_records_recent_vaults_and_an_app_home_opens_as_itself(tmp_path: Path, home: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    launched: list[Path] = []
    monkeypatch.setattr("suzent_desktop.cli_window._launch", lambda home, **_: launched.append(home) or 0)
    first, second = _small_vault(tmp_path / "one"), _small_vault(tmp_path / "two")
    assert main(["open", str(first)]) == 0
    assert main(["open", str(second)]) == 0
    assert main(["open", str(first)]) == 0
    assert [entry.vault for entry in RecentVaults().entries()] == [first.resolve(), second.resolve()]
    assert launched[0] == launched[2] != launched[1]
    assert main(["--home", str(home), "lint"]) == 0
    assert home_for(home) == home  # a home folder (config, notebook, memory) opens as that home
    assert main(["open", str(tmp_path / "missing")]) == 1


def test_open_refuses_a_cloned_home_whose_config_points_elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    launched: list[Path] = []
    monkeypatch.setattr("suzent_desktop.cli_window._launch", lambda home, **_: launched.append(home) or 0)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "secret.md").write_text("# Private\n", encoding="utf-8")
    clone = tmp_path / "clone"
    clone.mkdir()
    (clone / "config.toml").write_text(f'notebook_path = "{elsewhere}"\ntheme = "dark"\n', encoding="utf-8")
    capsys.readouterr()
    assert main(["open", str(clone)]) == 1
    err = capsys.readouterr().err
    assert "notebook_path" in err and "did not write" in err and str(clone / "config.toml") in err
    assert launched == [] and not (elsewhere / ".state").exists() and RecentVaults().entries() == []


def test_open_adopts_the_paths_the_app_wrote(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from suzent_desktop.settings import Settings, save_settings

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr("suzent_desktop.cli_window._launch", lambda home, **_: 0)
    vault = _small_vault(tmp_path / "notes")
    home = tmp_path / "myhome"
    home.mkdir()
    save_settings(home, Settings(notebook_path=str(vault)))  # the settings dialog writes it
    assert main(["open", str(home)]) == 0
    (home / "config.toml").write_text(f'notebook_path = "{tmp_path}"\n', encoding="utf-8")  # changed by another hand
    assert main(["open", str(home)]) == 1
    assert main(["open", str(vault)]) == 0  # a plain folder of notes gets a home the app writes itself
    assert main(["open", str(vault)]) == 0
    assert main(["open", str(home_for(vault))]) == 0  # and that home opens as itself


def test_forget_leaves_a_note_the_person_wrote_as_written_unless_asked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    vault = _small_vault(tmp_path / "vault")
    home = vault_home(vault)
    beans = vault / "Projects" / "Garden" / "Beans.md"
    before = beans.read_bytes()
    said = "Planted in [[Spring]]. #garden"

    def cli(*args: str) -> str:
        assert main(["--home", str(home), *args]) == 0, args
        return capsys.readouterr().out

    cli("reindex")
    out = cli("forget", said)
    assert beans.read_bytes() == before  # memory only: the note stays as written
    assert f"kept as you wrote it in {beans}" in out and "--from-notes" in out
    assert "Planted" not in cli("search", "planted spring garden")  # out of search all the same
    cli("forget", "--undo", said)
    out = cli("forget", "--from-notes", said)
    assert b"Planted" not in beans.read_bytes() and "kept as you wrote it" not in out
    cli("forget", "--undo", said)
    assert beans.read_bytes() == before


def test_doctor_reports_forgotten_text_kept_in_a_persons_note_as_information(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    vault = _small_vault(tmp_path / "vault")
    home = vault_home(vault)
    assert main(["--home", str(home), "reindex"]) == 0
    assert main(["--home", str(home), "forget", "Planted in [[Spring]]. #garden"]) == 0
    capsys.readouterr()
    main(["--home", str(home), "--json", "doctor"])
    report = json.loads(capsys.readouterr().out)
    about = [p for p in report["problems"] if p["path"].endswith("Beans.md")]
    assert about and all(p["severity"] == "info" and "kept in your note" in p["message"] for p in about), about
