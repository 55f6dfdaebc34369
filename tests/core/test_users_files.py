"""A vault's own root index.md, log.md and schema.md are the user's: the app keeps its own beside them."""

from __future__ import annotations

import datetime as dt
import json
import os
import stat
from pathlib import Path

import pytest

from suzent_desktop.cli import main
from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.files.records.archive import Archive
from suzent_desktop.core.files.records.log_grammar import Fact
from suzent_desktop.settings import load_settings

USER_INDEX = b"# My index\n\nMy own map of this vault.\n\n- [[Ideas]]\n"
USER_LOG = b"# Log\n\n## 2026-06-01\nStarted the garden journal.\n"
USER_SCHEMA = b"# schema\n\nMy own front-matter conventions.\n"


def _vault_with_own_files(home: Path, today: dt.date, days: int = 3, *, zones_at_root: bool = True
                          ) -> tuple[Path, list[str]]:
    """A vault with the user's own index.md, log.md and schema.md. With ``zones_at_root`` it also has
    the app's zones at its root (a vault the app set up before), so the app's files stand beside them."""
    vault = home / "notebook"
    vault.mkdir(parents=True)
    if zones_at_root:
        (vault / "3_Personal").mkdir()
    (vault / "index.md").write_bytes(USER_INDEX)
    (vault / "log.md").write_bytes(USER_LOG)
    (vault / "schema.md").write_bytes(USER_SCHEMA)
    (vault / "Ideas.md").write_text("# Ideas\n\n- Grow tomatoes\n", encoding="utf-8")
    (home / "config.toml").write_text("memory_consolidation_min_facts = 1\nmemory_lint_min_days = 0\n",
                                      encoding="utf-8")
    archive = Archive(Layout.from_settings(home, load_settings(home)))
    dates = [(today - dt.timedelta(days=days - i)).isoformat() for i in range(days)]
    for number, date in enumerate(dates):
        archive.append_turn([Fact(f"User planted {number + 2} rows of beans", "garden"),
                             Fact("User is allergic to peanuts", "health", importance=0.9)],
                            session_id="s1", when=dt.datetime.fromisoformat(f"{date}T09:00"))
    return vault, dates


def test_dream_lint_and_promote_leave_the_users_root_files_byte_for_byte(home: Path, today: dt.date,
                                                                        capsys: pytest.CaptureFixture[str]):
    vault, dates = _vault_with_own_files(home, today)
    for command in (["dream"], ["lint"], ["promote"], ["dream", "--force"]):
        assert main(["--home", str(home), *command]) == 0, capsys.readouterr().err
    assert (vault / "index.md").read_bytes() == USER_INDEX
    assert (vault / "log.md").read_bytes() == USER_LOG
    assert (vault / "schema.md").read_bytes() == USER_SCHEMA
    own_log = (vault / "suzent-log.md").read_text(encoding="utf-8")
    assert f"watermark={dates[-1]}" in own_log and "] lint" in own_log
    assert "suzent:index:start" in (vault / "suzent-index.md").read_text(encoding="utf-8")
    assert (vault / "suzent-schema.md").is_file()
    capsys.readouterr()
    assert main(["--home", str(home), "--json", "status"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["watermark"] == dates[-1] and status["watermark_error"] is None
    assert {"file": "index.md", "app_uses": "suzent-index.md"} in status["users_files"]
    assert {"file": "log.md", "app_uses": "suzent-log.md"} in status["users_files"]
    assert main(["--home", str(home), "status"]) == 0
    out = capsys.readouterr().out
    assert "index.md is yours and left alone; the app keeps suzent-index.md instead" in out
    assert "log.md is yours and left alone; the app keeps suzent-log.md instead" in out


def test_in_a_vault_of_notes_the_apps_files_go_to_its_own_folder(home: Path, today: dt.date,
                                                                capsys: pytest.CaptureFixture[str]):
    vault, dates = _vault_with_own_files(home, today, zones_at_root=False)
    for command in (["dream"], ["lint"], ["promote"]):
        assert main(["--home", str(home), *command]) == 0, capsys.readouterr().err
    assert (vault / "index.md").read_bytes() == USER_INDEX and (vault / "log.md").read_bytes() == USER_LOG
    assert f"watermark={dates[-1]}" in (vault / "Memory" / "log.md").read_text(encoding="utf-8")
    assert {p.name for p in vault.iterdir() if not p.name.startswith(".")} == {
        "index.md", "log.md", "schema.md", "Ideas.md", "Memory"}
    assert Layout.from_settings(home, load_settings(home)).user_nav_files() == []


def test_the_users_own_index_md_is_searchable_as_a_page(home: Path, today: dt.date,
                                                        capsys: pytest.CaptureFixture[str]):
    _vault_with_own_files(home, today)
    capsys.readouterr()
    assert main(["--home", str(home), "--json", "search", "own map of this vault"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert hits and hits[0]["path"].endswith("index.md") and "own map" in hits[0]["text"]


def test_the_apps_own_names_are_configurable(home: Path, today: dt.date, capsys: pytest.CaptureFixture[str]):
    vault, dates = _vault_with_own_files(home, today)
    with (home / "config.toml").open("a", encoding="utf-8") as handle:
        handle.write('alt_log_name = "_memory-log.md"\n')
    assert main(["--home", str(home), "dream"]) == 0, capsys.readouterr().err
    assert (vault / "log.md").read_bytes() == USER_LOG
    assert f"watermark={dates[-1]}" in (vault / "_memory-log.md").read_text(encoding="utf-8")
    assert not (vault / "suzent-log.md").exists()


def test_root_files_of_an_earlier_version_stay_the_apps(home: Path, today: dt.date):
    from suzent_desktop.core.vault.notebook import _seed_text

    vault = home / "notebook"
    vault.mkdir(parents=True)
    (vault / "log.md").write_text(f"# Log\n\n## [{today}] lint\nno findings\n", encoding="utf-8")
    (vault / "schema.md").write_text(_seed_text("schema.md").replace("<!-- suzent:schema -->\n", ""),
                                     encoding="utf-8")
    (vault / "index.md").write_text("# Index\n\n<!-- suzent:index:start -->\n<!-- suzent:index:end -->\n",
                                    encoding="utf-8")
    layout = Layout.from_settings(home, load_settings(home))
    assert layout.nav_files() == [vault / "index.md", vault / "log.md", vault / "schema.md"]
    assert layout.user_nav_files() == []


@pytest.mark.parametrize("command", [["status"], ["search", "beans"], ["--json", "status"]])
def test_looking_creates_no_vault_folder(tmp_path: Path, command: list[str], capsys: pytest.CaptureFixture[str]):
    home = tmp_path / "home"
    home.mkdir()
    assert main(["--home", str(home), *command]) == 0, capsys.readouterr().err
    assert not (home / "notebook").exists() and not (home / "memory").exists()


def test_searching_a_vault_the_app_never_set_up_writes_nothing_into_it(home: Path,
                                                                    capsys: pytest.CaptureFixture[str]):
    vault = home / "notebook"
    vault.mkdir()
    (vault / "Garden.md").write_text("# Garden\n\nThe beans grow by the fence.\n", encoding="utf-8")
    before = sorted(p.relative_to(vault) for p in vault.rglob("*"))
    assert main(["--home", str(home), "--json", "search", "beans"]) == 0, capsys.readouterr().err
    assert json.loads(capsys.readouterr().out), "the page is found, so there is a recall signal to record"
    assert main(["--home", str(home), "status"]) == 0, capsys.readouterr().err
    assert sorted(p.relative_to(vault) for p in vault.rglob("*")) == before


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o002, 0o664)])
def test_new_files_get_the_mode_the_umask_gives(home: Path, today: dt.date, capsys: pytest.CaptureFixture[str],
                                                umask: int, mode: int):
    old = os.umask(umask)
    try:
        (home / "config.toml").write_text("memory_consolidation_min_facts = 1\n", encoding="utf-8")
        archive = Archive(Layout.from_settings(home, load_settings(home)))
        yesterday = (today - dt.timedelta(days=1)).isoformat()
        archive.append_turn([Fact("User is allergic to peanuts", "health")], session_id="s1",
                            when=dt.datetime.fromisoformat(f"{yesterday}T09:00"))
        assert main(["--home", str(home), "dream"]) == 0, capsys.readouterr().err
    finally:
        os.umask(old)
    vault = home / "notebook"
    created = [*vault.joinpath("3_Personal").glob("*.md"), vault / ".state" / "dream_state.json",
               home / "memory" / "MEMORY.md", home / "memory" / "archive" / f"{yesterday}.md"]
    assert len(created) >= 4
    for path in created:
        assert stat.S_IMODE(path.stat().st_mode) == mode, path


def test_a_replaced_file_keeps_its_own_mode(tmp_path: Path):
    from suzent_desktop.core.files.disk.atomic import atomic_write_text

    target = tmp_path / "page.md"
    target.write_text("old\n", encoding="utf-8")
    target.chmod(0o600)
    atomic_write_text(target, "new\n")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600 and target.read_text(encoding="utf-8") == "new\n"
