"""Work around a reference-count bug of PySide6 6.12 on CPython 3.11.

PySide6 6.12 returns ``None`` from every void method (and ``True``/``False`` from some
paths) without taking a new reference. CPython 3.12+ makes these singletons immortal, so
the bug is invisible there; on 3.11 each call drops the singleton's count by one and the
interpreter aborts with "none_dealloc: deallocating None" after a few thousand widget
calls (loading a 5,000-page vault tree is enough). Measured: 100 ``QLabel.setText`` calls
lower ``sys.getrefcount(None)`` by exactly 100.

The fix gives the three singletons a reference count so large that no session can use it
up (2**40 calls), which is what 3.12's immortality does. It only touches ``ob_refcnt`` of
objects that are never freed anyway, and is a no-op on 3.12+. Remove it once PySide6 is
fixed upstream.
"""

from __future__ import annotations

import ctypes
import sys

_RESERVE = 1 << 40


def pin_singletons() -> bool:
    """Make None/True/False effectively immortal on CPython < 3.12. Returns True if applied."""
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False
    for obj in (None, True, False, Ellipsis, NotImplemented):
        count = ctypes.c_ssize_t.from_address(id(obj))  # ob_refcnt is the first field of PyObject
        if count.value < _RESERVE:
            count.value += _RESERVE
    return True
