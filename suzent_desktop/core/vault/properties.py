"""Frontmatter properties as Obsidian shows them: each value typed (text, list, number,
checkbox, date), and one key written back without touching the rest.

Setting, renaming or deleting a property changes only that key's lines in the YAML block (a new
key goes last), so the order of the other keys, their comments and their quoting stay as the
person wrote them.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import yaml

from suzent_desktop.core.files.language.markdown import frontmatter, frontmatter_block

KINDS = ("text", "list", "number", "checkbox", "date", "map")  # a map is shown, not edited
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
    if isinstance(value, dict):
        return "map"
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


class _Block:
    """A page split around its frontmatter: the ``---`` lines, the YAML lines between, the body."""

    def __init__(self, text: str) -> None:
        self.newline = "\r\n" if "\r\n" in text[:4096] else "\n"
        block, self.body = frontmatter_block(text)
        self.exists = bool(block) or self.body is not text
        lines = text[: len(text) - len(self.body)].splitlines(keepends=True) if self.exists else []
        self.opening, self.inner, self.closing = (lines[0], lines[1:-1], lines[-1]) if lines else ("", [], "")

    def span(self, key: str) -> tuple[int, int] | None:
        """The YAML lines [start, end) of ``key``: its line and its value's indented lines."""
        start = None
        for index, line in enumerate(self.inner):
            match = _KEY_RE.match(line)
            if start is None:
                if match and match.group("key").strip("'\"") == key:
                    start = index
            elif match or (line.strip() and not line[:1].isspace() and not line.lstrip().startswith("- ")):
                end = index
                break
        else:
            if start is None:
                return None
            end = len(self.inner)
        while end > start + 1 and not self.inner[end - 1].strip():
            end -= 1  # blank lines before the next key stay where they are
        return start, end

    def text(self) -> str:
        if not any(line.strip() for line in self.inner):
            return self.body  # no property left: no frontmatter either
        return self.opening + "".join(self.inner) + self.closing + self.body


def set_property(text: str, key: str, value: Any) -> str:
    """``text`` with the property ``key`` set to ``value`` (a page without frontmatter gets one)."""
    page = _Block(text)
    entry = _entry(key, value, page.newline)
    if not page.exists:
        return f"---{page.newline}{entry}---{page.newline}{text}"
    span = page.span(key)
    if span is None:
        page.inner = [*page.inner, entry]
    else:
        page.inner = [*page.inner[: span[0]], entry, *page.inner[span[1] :]]
    return page.opening + "".join(page.inner) + page.closing + page.body


def _key_text(key: str) -> str:
    """The key as YAML writes it (quoted when it needs to be)."""
    return _scalar(key) if key else key


def rename_property(text: str, key: str, new_key: str) -> str:
    """``text`` with ``key`` renamed: its value, its comment and its place stay as written."""
    page = _Block(text)
    span = page.span(key)
    if span is None or new_key == key:
        return text
    if page.span(new_key) is not None:
        raise ValueError(f"the page already has a property '{new_key}'")
    line = page.inner[span[0]]
    match = _KEY_RE.match(line)
    assert match is not None
    colon = line.index(":", match.end("key"))
    page.inner[span[0]] = _key_text(new_key) + line[colon:]
    return page.opening + "".join(page.inner) + page.closing + page.body


def delete_property(text: str, key: str) -> str:
    """``text`` without ``key``'s lines; the frontmatter goes when no property is left."""
    page = _Block(text)
    span = page.span(key)
    if span is None:
        return text
    del page.inner[span[0] : span[1]]
    return page.text()
