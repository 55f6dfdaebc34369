"""One dream at a time on one device: a second process's dream says "already running" and counts nothing."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from pathlib import Path

from dream_support import days_before, make_manager, write_log

from suzent_desktop.core.engines.dream.runner import ALREADY_RUNNING

HOLDER = textwrap.dedent("""
    import asyncio, datetime as dt, sys
    from pathlib import Path
    sys.path[:0] = [sys.argv[1], str(Path(sys.argv[1]).parents[1])]  # the helpers, then this checkout's code
    from dream_support import make_manager
    from suzent_desktop.core.engines.dream.model import EngineReport
    from suzent_desktop.core.engines.dream.runner import DreamRunner
    from suzent_desktop.core.files.clock import Clock

    async def engine(batch, tools):
        tools.write("3_Personal/Work.md", "# Work\\n\\n- User works at Contoso\\n")
        print("engine running", flush=True)
        await asyncio.to_thread(sys.stdin.readline)  # until the test lets it finish
        return EngineReport(summary="wrote it")

    manager = make_manager(Path(sys.argv[2]), Clock(fixed_today=dt.date.fromisoformat(sys.argv[3])))
    print(asyncio.run(manager.dreaming.runner(engine=engine).run_once(force=True)).outcome, flush=True)
""")


async def test_a_second_process_dreaming_on_this_device_is_told_already_running(home, clock, today):
    manager = make_manager(home, clock)
    write_log(manager, days_before(today, 1)[0], ["User works at Contoso"])
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(Path(__file__).parent), str(home), today.isoformat()],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        started = await asyncio.wait_for(asyncio.to_thread(holder.stdout.readline), timeout=120)
        assert started.strip() == "engine running"
        state_before = manager.layout.runner_state_file.read_bytes()  # the holder's attempt, saved

        second = await manager.dreaming.runner().run_once(force=True)  # the command line while the window dreams

        assert second.outcome == "gated" and second.reason == ALREADY_RUNNING
        assert manager.layout.runner_state_file.read_bytes() == state_before  # no attempt counted, no run recorded
        assert not second.failed_attempt and manager.dreaming.watermark() is None
        out, _ = await asyncio.to_thread(holder.communicate, "go\n", 120)
        assert out.strip() == "productive"
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(timeout=30)
    # The lock went with the holder's run: this process dreams again.
    write_log(manager, days_before(today, 1)[0], ["User likes green tea"])
    assert (await manager.dreaming.runner().run_once(force=True)).reason != ALREADY_RUNNING
