"""When a model's tool-calling loop has stopped getting anywhere, so the run ends early.

A model that repeats itself would otherwise run to the step limit (40 calls, half an hour on a
CPU-run model). The loop ends, naming what was repeated, when:

* the model makes a successful call it already made, with the same arguments (for a read, a
  search or a list: and the same answer, so reading a page again after changing it is fine);
* :data:`NO_PROGRESS_STEPS` replies in a row changed nothing: no page's bytes moved, no fact was
  accounted for, and no new page or query was read (failed calls, edits that changed nothing,
  the same reads again).

The runner then judges the run by what it covered (:mod:`~suzent_desktop.core.engines.dream.runs.outcome`):
pages kept if a batch fact stands on them, a failed attempt otherwise.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

READ_ONLY_TOOLS = frozenset({"list", "read", "search_notebook", "search_memory"})
NO_PROGRESS_STEPS = 3
SHOWN_ARGUMENT_CHARS = 120


class LoopStopped(Exception):
    """The model's loop ends here; the message says what was repeated."""


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="replace")).hexdigest()


class LoopGuard:
    def __init__(self, state: Callable[[], object]) -> None:
        """``state()`` is a fingerprint of what the run has done (page bytes, accounted facts)."""
        self._state = state
        self._done: dict[tuple[str, str], str] = {}  # successful call -> digest of its answer
        self._mark = state()
        self._learned = False
        self._idle_steps = 0

    def before(self, name: str, key: str, shown: str) -> None:
        """Stop before a change the model already made successfully is made again."""
        if name not in READ_ONLY_TOOLS and (name, key) in self._done:
            raise LoopStopped(f"the model repeated a successful call: {name}({_clip(shown)})")

    def after(self, name: str, key: str, shown: str, result: str) -> None:
        if result.startswith("error:"):
            return
        answer = _digest(result)
        if name in READ_ONLY_TOOLS:
            if self._done.get((name, key)) == answer:
                raise LoopStopped(f"the model repeated a successful call with the same answer: {name}({_clip(shown)})")
            self._learned = True
        self._done[(name, key)] = answer

    def end_step(self) -> None:
        """After one reply's calls: count it as idle when it changed and learned nothing."""
        now = self._state()
        if now != self._mark or self._learned:
            self._idle_steps = 0
        else:
            self._idle_steps += 1
        self._mark, self._learned = now, False
        if self._idle_steps >= NO_PROGRESS_STEPS:
            raise LoopStopped(f"{NO_PROGRESS_STEPS} replies in a row changed nothing (failed or repeated calls)")


def _clip(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SHOWN_ARGUMENT_CHARS else flat[: SHOWN_ARGUMENT_CHARS - 1] + "…"
