"""The lint pass: each finding kind, the log entry only after a clean pass, pages never edited."""

from __future__ import annotations

import pytest
from dream_support import make_manager, vault_files

from suzent_desktop.core.engines.dream.lint import run_lint


@pytest.fixture
def manager(home, clock):
    return make_manager(home, clock)


def write(manager, rel: str, text: str) -> None:
    path = manager.layout.notebook_dir / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def kinds(result) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for f in result.findings:
        found.setdefault(f.kind, []).append(f.path)
    return found


async def test_a_healthy_notebook_has_no_findings_and_gets_a_lint_entry(manager, today):
    write(manager, "3_Personal/About Me.md", "# About Me\n\n- [[Work]]\n")
    write(manager, "3_Personal/Work.md", "# Work\n\nPart of [[About Me]].\n\n- User works at Microsoft (2026-07-05)\n\n"
                                         "## History\n\n- ~~User works at Contoso~~ (2026-07-01, until 2026-07-05)\n")
    result = await run_lint(manager.home)
    assert result.ok and result.findings == [] and result.pages_changed == []
    entry = manager.notebook.last_entry("lint")
    assert entry.date == today.isoformat() and entry.watermark is None and entry.summary == "no findings"


async def test_each_kind_of_finding(manager):
    write(manager, "3_Personal/Hub.md", "# Hub\n\n[[Work]] [[Places]] [[Old Plans]] [[Copy A]] [[Copy B]] [[Nowhere]]\n")
    write(manager, "3_Personal/Work.md", "# Work\n\n[[Hub]]\n\n- User works at Microsoft (2026-07-05)\n"
                                         "- User works at Contoso (2026-07-01)\n")
    write(manager, "3_Personal/Places.md", "# Places\n\n[[Hub]]\n\n- The user's dentist is Dr Smith, based in Leeds\n")
    write(manager, "3_Personal/Old Plans.md", "---\nstale_after: 2026-07-01\n---\n# Old Plans\n\n- Trip to Rome\n")
    same = "A long note about vector search, embeddings and hybrid ranking with reciprocal rank fusion."
    write(manager, "2_Wiki/Concepts/Copy A.md", f"# Search\n\n{same}\n")
    write(manager, "2_Wiki/Concepts/Copy B.md", f"# Search\n\n{same}\n")
    write(manager, "0_Inbox/Lonely.md", "# Lonely\n\nNobody links here.\n")
    await manager.forgetting.forget("User's dentist is Dr. Smith in Leeds", force=True)
    before = vault_files(manager)
    result = await run_lint(manager.home)
    found = kinds(result)
    assert result.ok
    assert found["contradiction"] == ["3_Personal/Work.md"]
    assert ("3_Personal/Hub.md") in found["broken_link"]
    assert "0_Inbox/Lonely.md" in found["orphan"] and "3_Personal/Work.md" not in found["orphan"]
    assert found["stale"] == ["3_Personal/Old Plans.md"]
    assert found["duplicate_page"] == ["2_Wiki/Concepts/Copy B.md"]
    assert found["tombstone_paraphrase"] == ["3_Personal/Places.md"]
    detail = next(f.detail for f in result.findings if f.kind == "broken_link")
    assert "Nowhere" in detail
    after = vault_files(manager)
    log_after = after.pop("log.md")
    assert {k: v for k, v in before.items() if k != "log.md"} == after  # pages never edited
    assert b"## [2026-07-20] lint" in log_after and "contradiction" in manager.notebook.last_entry("lint").summary


async def test_a_failed_lint_writes_nothing(manager):
    class Broken:
        name, dim = "broken", 3

        def embed(self, texts):
            raise RuntimeError("embedder down")

    write(manager, "3_Personal/Work.md", "# Work\n\n- User works at Microsoft in the Azure storage team\n")
    write(manager, "3_Personal/Play.md", "# Play\n\n- User plays chess on Sundays with friends\n")
    manager.embedder = Broken()
    log_before = manager.layout.log_md.read_bytes()
    result = await run_lint(manager.home)
    assert not result.ok and result.findings[0].kind == "error" and "embedder down" in result.findings[0].detail
    assert manager.layout.log_md.read_bytes() == log_before


async def test_similar_wording_about_someone_else_is_not_a_forgotten_fact(manager):
    write(manager, "3_Personal/About Me.md", "# About Me\n\n- [[People]]\n")
    write(manager, "3_Personal/People.md", "# People\n\n[[About Me]]\n\n- User met Rosa at a kayaking club in Oaxaca\n")
    await manager.forgetting.forget("User met Hiro at a kayaking club in Oaxaca", force=True)
    result = await run_lint(manager.home)
    assert result.ok and "tombstone_paraphrase" not in kinds(result)
