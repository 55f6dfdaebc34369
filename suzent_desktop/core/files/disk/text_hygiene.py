"""Text hygiene at the door: what may enter a file, and when a file counts as binary.

Captured turns, remembered facts and what the engines write pass through :func:`clean`:
NUL and the other C0/C1 control characters (everything below U+0020 except tab, newline and
carriage return, plus DEL and U+0080–U+009F) are replaced by a space, NUL by nothing. One
such character used to make a whole daily log or page "look binary" and leave search.

Reading is lenient in the same spirit: :func:`looks_binary` judges a file by the share of
control bytes at its start (and needs a few of them), so a single stray byte never condemns it, and
:func:`decode_lenient` decodes line by line so one line that is not UTF-8 does not hide
the rest of the file. Every reader accepts a leading byte-order mark ("utf-8-sig").
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

ENCODING = "utf-8-sig"  # UTF-8, and a leading byte-order mark is not part of the text
BINARY_SAMPLE_BYTES = 8192
BINARY_CONTROL_SHARE = 0.10  # more than this share of control bytes at the start: binary
# ... and at least this many: in a file of a few bytes one stray byte is already a tenth.
BINARY_MIN_CONTROLS = 3

_CONTROL_RE = re.compile(r"[\x01-\x08\x0b\x0c\x0e-\x1f\x7f\x80-\x9f]")
_CONTROL_BYTES = frozenset(set(range(0x00, 0x09)) | {0x0B, 0x0C} | set(range(0x0E, 0x20)) | {0x7F})


def clean(text: str) -> str:
    """``text`` without NUL and with other control characters as spaces; tab and newlines kept."""
    if not text:
        return text
    return _CONTROL_RE.sub(" ", text.replace("\x00", ""))


def looks_binary(data: bytes) -> bool:
    """True when control bytes make up a real share of the file's start (images, archives, databases).

    A text file with a stray NUL or escape byte here and there stays text.
    """
    sample = data[:BINARY_SAMPLE_BYTES]
    if not sample:
        return False
    controls = sum(1 for byte in sample if byte in _CONTROL_BYTES)
    return controls >= BINARY_MIN_CONTROLS and controls > BINARY_CONTROL_SHARE * len(sample)


def decode_lenient(data: bytes) -> tuple[str, list[int]]:
    """The text, and the 1-based lines that were not valid UTF-8.

    Those lines come back empty (line numbers of the others stay right): a guess at their
    bytes would put words into the index that the user never wrote.
    """
    try:
        return data.decode(ENCODING), []
    except UnicodeDecodeError:
        pass
    lines = data.split(b"\n")
    bad: list[int] = []
    out: list[str] = []
    for number, raw in enumerate(lines, start=1):
        try:
            out.append(raw.decode(ENCODING if number == 1 else "utf-8"))
        except UnicodeDecodeError:
            bad.append(number)
            out.append("")
    return "\n".join(out), bad


TOO_DEEP = "nested too deeply (lists or objects inside one another, hundreds of levels down)"


def loads_json(text: str | bytes) -> Any:
    """``json.loads`` whose nesting is bounded: text nested too deeply for the parser (a crafted file
    or a model's tool call 100,000 levels deep) is a :class:`json.JSONDecodeError` like any other
    bad JSON, so every reader's message names its file, never a RecursionError."""
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError(TOO_DEEP, text if isinstance(text, str) else "", 0) from None


def fact_records(path: Path) -> list[dict[str, Any]]:
    """The entries of a ``.state`` record of facts (``{"facts": [{"date", "text", "line", …}]}``)
    that name a day and a text, ``line`` an int or None; a missing or unreadable file has none.

    The dream's ledgers (uncovered, dropped) are bookkeeping: a damaged entry is passed over, never fatal."""
    try:
        data = loads_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    entries = data.get("facts", []) if isinstance(data, dict) else []
    return [{**item, "line": item.get("line") if isinstance(item.get("line"), int) else None}
            for item in entries if isinstance(item, dict) and isinstance(item.get("date"), str)
            and isinstance(item.get("text"), str)]
