"""Frontmatter properties as Obsidian shows them: each value typed (text, list, number,
checkbox, date), and one key written back without touching the rest.

Writing a property replaces only that key's lines in the YAML block (a new key goes last), so
the order of the other keys, their comments and their quoting stay as the person wrote them.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import yaml

from suzent_desktop.core.markdown import frontmatter, frontmatter_block

KINDS = ("text", "list", "number", "checkbox", "date")
_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_KEY_RE = re.compile(r"^(?P<key>[^\s#:-][^:]*?)\s*:(?:\s|$)")


def property_kind(value: Any) -> str:
    """Obsidian's property type for a YAML value."""
    if isinstance(value, bool):
        return "checkbox"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, dt.date) or (isinstance(value, str) and _DATE_RE.match(value)):
        return "date"
    if isinstance(value, list | tuple):
        return "list"
    return "text"


def properties(text: str) -> list[tuple[str, Any]]:
    """(key, value) in the order the page writes them."""
    return list(frontmatter(text).items())


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.date):
        return value.isoformat()
    if value is None or value == "":
        return ""  # an empty property is written ``key:`` (YAML null), as Obsidian writes it
    dumped = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=1 << 20)
    return dumped.removesuffix("\n").removesuffix("\n...").removesuffix("...").rstrip("\n")


def _entry(key: str, value: Any, newline: str) -> str:
    if isinstance(value, list | tuple):
        if not value:
            return f"{key}: []{newline}"
        return f"{key}:{newline}" + "".join(f"  - {_scalar(item)}{newline}" for item in value)
    scalar = _scalar(value)
    return f"{key}: {scalar}{newline}" if scalar else f"{key}:{newline}"


def set_property(text: str, key: str, value: Any) -> str:
    """``text`` with the property ``key`` set to ``value`` (a page without frontmatter gets one)."""
    newline = "\r\n" if "\r\n" in text[:4096] else "\n"
    block, body = frontmatter_block(text)
    if not block and body is text:
        return f"---{newline}{_entry(key, value, newline)}---{newline}{text}"
    head = text[: len(text) - len(body)]
    lines = head.splitlines(keepends=True)
    opening, inner, closing = lines[0], lines[1:-1], lines[-1]
    start = end = None
    for index, line in enumerate(inner):
        match = _KEY_RE.match(line)
        if start is None:
            if match and match.group("key").strip("'\"") == key:
                start = index
        elif match or (line.strip() and not line[:1].isspace() and not line.lstrip().startswith("- ")):
            end = index
            break
    if start is None:
        inner = [*inner, _entry(key, value, newline)]
    else:
        end = len(inner) if end is None else end
        while end > start + 1 and not inner[end - 1].strip():
            end -= 1  # blank lines before the next key stay where they are
        inner = [*inner[:start], _entry(key, value, newline), *inner[end:]]
    return opening + "".join(inner) + closing + body
