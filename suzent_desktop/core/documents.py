"""The JSON forms the command line (``--json``) and the MCP server answer with, in one place.

Both front ends print the same hit, fact and captured-turn documents and accept the same
source kinds, so a script that reads one can read the other; and both decide the same way
which failures a user can act on (a message) and which are bugs (a traceback).
"""

from __future__ import annotations

import sys
from typing import Any

SOURCES = ("archive", "notebook", "core", "transcript")  # the index's source kinds, as ``--source`` takes them


def is_handled_error(exc: BaseException) -> bool:
    """Errors a user can act on; anything else is a bug and keeps its traceback."""
    if isinstance(exc, OSError | ValueError):
        return True  # SettingsError, LayoutError, NotebookError, ArchiveError are ValueErrors
    for module, name in (
        ("suzent_desktop.core.embedding", "EmbeddingError"),
        ("suzent_desktop.core.llm", "LLMError"),
        ("suzent_desktop.core.extraction", "ExtractionError"),
    ):
        cls = getattr(sys.modules.get(module), name, None)  # not loaded: it cannot have raised
        if isinstance(cls, type) and isinstance(exc, cls):
            return True
    return False


def captured_turn(manager: Any) -> dict[str, Any] | None:
    """Where the turn just captured was kept (None when transcripts are off)."""
    kept = manager.last_turn
    if kept is None:
        return None
    return {"id": kept.id, "path": str(kept.path), "line": kept.line}


def fact_dict(fact: Any) -> dict[str, Any]:
    return {"category": fact.category, "content": fact.content, "tags": list(fact.tags), "importance": fact.importance}


def _place_dict(place: Any) -> dict[str, Any]:
    item: dict[str, Any] = {"text": place.text, "source_type": place.source_type, "path": str(place.path)}
    if place.line is not None:
        item["line"] = place.line
    if place.date is not None:
        item["date"] = place.date
    return item


def hit_dict(hit: Any) -> dict[str, Any]:
    """The JSON form of a search hit, shared by ``search --json`` and the MCP server's search_memory."""
    item = _place_dict(hit)
    item["score"] = float(hit.score)
    item["heading"] = hit.heading
    item["superseded"] = hit.superseded
    item["superseded_on"] = hit.until
    item["current"] = _place_dict(hit.current) if hit.current is not None else None
    item["places"] = [_place_dict(place) for place in hit.places]
    return item
