"""The diffs a dream shows: unified diffs of its pages, each removed line with the operation that removed it.

difflib shows a change of the final newline alone as a removed and an added line that look
the same; such a diff says in words what changed instead. A run's diff ends with a note per
removed line naming the tool call that took it off (``supersede_bullet``, ``merge_bullets``,
``write``…), from :attr:`VaultTools.removed_lines`.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping

from suzent_desktop.core.engines.dream.guards.page_edits import RemovedLine

REMOVED_HEADER = "# removed lines, each with the operation that removed it:"
NOT_BY_A_TOOL = "not by a tool call: taken off after the run (forgotten text)"


def _newline_only(old: str, new: str) -> str:
    """'' unless the two texts differ only in their final newline; else what changed, in words."""
    if old.rstrip("\r\n") != new.rstrip("\r\n") or old == new:
        return ""
    return "final newline added" if len(new) > len(old) else "final newline removed"


def unified_diffs(before: Mapping[str, bytes], after: Mapping[str, bytes]) -> dict[str, str]:
    diffs: dict[str, str] = {}
    for rel in sorted(set(before) | set(after)):
        old, new = before.get(rel), after.get(rel)
        if old == new:
            continue
        old_text = (old or b"").decode("utf-8", errors="replace")
        new_text = (new or b"").decode("utf-8", errors="replace")
        header_from = f"a/{rel}" if old is not None else "/dev/null"
        header_to = f"b/{rel}" if new is not None else "/dev/null"
        only = _newline_only(old_text, new_text) if old is not None and new is not None else ""
        if only:
            diffs[rel] = f"--- {header_from}\n+++ {header_to}\n# only the {only}; no line changed\n"
            continue
        diffs[rel] = "".join(difflib.unified_diff(
            old_text.splitlines(keepends=True), new_text.splitlines(keepends=True),
            fromfile=header_from, tofile=header_to,
        ))
    return diffs


def annotate(diffs: dict[str, str], removed: Iterable[RemovedLine]) -> dict[str, str]:
    """The diffs with, after each, every removed line and the operation that removed it."""
    by_line: dict[tuple[str, str], str] = {}
    for item in removed:
        by_line[(item.page, item.line.rstrip())] = item.operation  # the latest removal tells
    notes: dict[str, str] = {}
    for rel, diff in diffs.items():
        gone = [line[1:].rstrip("\r\n") for line in diff.splitlines()
                if line.startswith("-") and not line.startswith("---") and line[1:].strip()]
        if not gone:
            notes[rel] = diff
            continue
        lines = [f"#   {line}  <- {by_line.get((rel, line.rstrip()), NOT_BY_A_TOOL)}" for line in gone]
        notes[rel] = diff + ("" if diff.endswith("\n") else "\n") + "\n".join([REMOVED_HEADER, *lines]) + "\n"
    return notes
