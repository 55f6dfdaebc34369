"""The completion check reads the vault only when a kill is likely, and completes a batch already on pages."""

from __future__ import annotations

from dream_support import days_before, make_manager, write_log

from suzent_desktop.core.engines.dream.model import EngineReport
from suzent_desktop.core.engines.dream.runs import resume


async def test_an_ordinary_run_does_not_read_the_vault_for_it(home, clock, today, monkeypatch):
    manager = make_manager(home, clock)
    write_log(manager, days_before(today, 1)[0], ["User likes green tea"])
    looked: list[int] = []
    real = resume.already_on_pages
    monkeypatch.setattr(resume, "already_on_pages", lambda *a: looked.append(1) or real(*a))
    assert (await manager.dreaming.runner().run_once(force=True)).outcome == "productive"
    assert looked == []


async def test_a_batch_that_failed_before_and_stands_on_pages_is_completed(home, clock, today):
    manager = make_manager(home, clock)
    day = days_before(today, 1)[0]
    write_log(manager, day, ["User likes green tea"])
    (manager.layout.notebook_dir / "3_Personal" / "Tea.md").write_text(
        f"# Tea\n\n- User likes green tea ({day})\n", encoding="utf-8")

    async def idle(batch, tools):
        return EngineReport(summary="nothing to add")

    first = await manager.dreaming.runner(engine=idle).run_once(force=True)  # a clean start: the engine runs
    assert first.outcome == "no_change" and first.failed_attempt
    second = await manager.dreaming.runner(engine=idle).run_once(force=True)  # it failed before: look at the pages
    assert second.outcome == "productive" and second.reason.startswith("every fact of the batch")
    assert manager.dreaming.watermark() == day
