"""Capture: facts go into today's daily log, and that log into the index at once."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import TYPE_CHECKING

from suzent_desktop.core.files.archive import Archive
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.facts import Fact
from suzent_desktop.core.index.fair_lock import IndexBusy

if TYPE_CHECKING:
    from suzent_desktop.core.index.indexer import Indexer


async def append_and_index(
    archive: Archive, indexer: Indexer, facts: list[Fact], *, session_id: str, when: dt.datetime
) -> ChangeSet:
    """Append ``facts`` as one block of the day's log, then index that log; an index another process
    holds leaves the facts in the log for the next pass (the caller never hangs on it)."""
    path, lines = await asyncio.to_thread(archive.append_turn, facts, session_id=session_id, when=when)
    changes = ChangeSet(logs={when.date().isoformat()}, log_lines=list(lines))
    try:
        changes.merge(await indexer.sync_paths([path]))
    except IndexBusy as exc:
        changes.errors.append(f"written to {path.name}, not indexed yet: {exc}")
    return changes
