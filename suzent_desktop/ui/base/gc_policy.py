"""Garbage collection while the window is up: no full collection may pause the GUI thread.

CPython's cyclic collector holds the GIL for as long as a collection takes, whichever thread
triggers it, and a full (generation 2) collection walks every tracked object not frozen. A
worker building an index or running a dream creates hundreds of thousands of long-lived
objects, so a full collection in the middle of one paused the GUI for 100-900 ms (measured on
a 5,000-page vault). Young collections only walk what was allocated since the last one and
stay well under a millisecond, so they keep running automatically; full ones never do.

At safe points (the window shown, an operation or a dream finished) the young generations
are collected and every survivor is frozen: kept out of all later scans, still freed by
reference counting. Only a reference cycle that outlived two young collections and then died
is never collected; ``bench/ui_stall.py`` counts them (``cyclic_garbage_kept``).

The command line and the MCP server keep CPython's defaults: nothing draws there.
"""

from __future__ import annotations

import gc

# Generation 2 is collected automatically once this many generation-1 collections have run
# since the last one: C int max, so never in practice (each needs ~7,000 allocations).
NEVER = 2**31 - 1


def install() -> None:
    """Once the window is shown: no automatic full collections from now on, and a safe point."""
    young, middle, _old = gc.get_threshold()
    gc.set_threshold(young, middle, NEVER)
    safe_point()


def safe_point() -> None:
    """Collect the young generations (cheap), then freeze every survivor out of later scans.

    Called when a unit of work is done: what it left behind is either garbage (collected
    here while young, or freed by reference counting) or state kept for a long time.
    """
    gc.collect(1)
    gc.freeze()
