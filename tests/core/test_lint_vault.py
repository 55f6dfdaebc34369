"""Lint on a realistic Obsidian vault (tests/data/lint_vault) against the findings listed beside it."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from dream_support import make_manager

from suzent_desktop.core.engines.dream.lint import link_audit

DATA = Path(__file__).resolve().parents[1] / "data"
_WRITTEN = re.compile(r"^(?P<link>.+) \(line \d+\) matches no (?:page|file) in the vault$")


def load_vault(home: Path, clock):
    manager = make_manager(home, clock)
    shutil.copytree(DATA / "lint_vault", manager.layout.notebook_dir, dirs_exist_ok=True)
    return manager


def scored(manager) -> tuple[set, set, set, set]:
    expected = json.loads((DATA / "lint_vault.expected.json").read_text(encoding="utf-8"))
    findings = link_audit(manager.home)
    broken = {(f.path, _WRITTEN.match(f.detail).group("link")) for f in findings if f.kind == "broken_link"}
    orphans = {f.path for f in findings if f.kind == "orphan"}
    return broken, {tuple(b) for b in expected["broken_link"]}, orphans, set(expected["orphan"])


def test_broken_links_match_the_expected_list(home, clock) -> None:
    broken, expected, _orphans, _ = scored(load_vault(home, clock))
    true_positives = broken & expected
    precision = len(true_positives) / len(broken)
    recall = len(true_positives) / len(expected)
    assert precision >= 0.95 and recall >= 0.95, (sorted(broken - expected), sorted(expected - broken))
    assert broken == expected


def test_orphans_count_every_link_form(home, clock) -> None:
    _broken, _expected, orphans, expected = scored(load_vault(home, clock))
    assert orphans == expected


@pytest.mark.parametrize("rel", ["Home.md", "Tables.md", "Code examples.md", "Markdown links.md"])
def test_lint_never_edits_the_vault(home, clock, rel: str) -> None:
    manager = load_vault(home, clock)
    before = (manager.layout.notebook_dir / rel).read_bytes()
    link_audit(manager.home)
    assert (manager.layout.notebook_dir / rel).read_bytes() == before == (DATA / "lint_vault" / rel).read_bytes()
