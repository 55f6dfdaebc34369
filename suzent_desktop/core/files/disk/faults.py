"""Named crash points, so crash-safety tests can stop the process at an exact moment.

Code that writes in steps calls :func:`crash_point` between them (``"index.after_add"``:
rows are in the table, the state file does not know them yet). In normal use this is a
dictionary lookup. When the environment variable ``SUZENT_CRASH_AT`` names the point
(``name`` or ``name:N`` for its N-th pass), the process ends at once with ``os._exit``,
like a ``kill -9``: no ``finally`` block, no flush, no cleanup runs. Tests run the
command line in a subprocess with that variable set, then check that the next start
repairs everything.
"""

from __future__ import annotations

import os
import threading

ENV_VAR = "SUZENT_CRASH_AT"
EXIT_CODE = 137  # what a shell reports for a process killed by signal 9

_counts: dict[str, int] = {}
_lock = threading.Lock()


def _target() -> tuple[str, int] | None:
    spec = os.environ.get(ENV_VAR, "").strip()
    if not spec:
        return None
    name, _, nth = spec.partition(":")
    try:
        return name, max(1, int(nth)) if nth else 1
    except ValueError:
        return name, 1


def crash_point(name: str) -> None:
    """End the process here, abruptly, when ``SUZENT_CRASH_AT`` names this point (else do nothing)."""
    target = _target()
    if target is None or target[0] != name:
        return
    with _lock:
        _counts[name] = _counts.get(name, 0) + 1
        reached = _counts[name] >= target[1]
    if reached:
        os._exit(EXIT_CODE)
