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
        ("suzent_desktop.core.index.embedding", "EmbeddingError"),
        ("suzent_desktop.core.llm", "LLMError"),
        ("suzent_desktop.core.engines.capture.extraction", "ExtractionError"),
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


def backlinks_document(snapshot: Any, name: str, *, mentions: bool = True) -> dict[str, Any]:
    """A page's backlinks (and unlinked mentions) from the vault model, paths relative to the vault:
    ``{"page", "backlinks": [{"path", "line", "context"}], "unlinked_mentions": [{"path", "line", "text", "context"}]}``."""
    page = snapshot.find_page(name)
    doc: dict[str, Any] = {
        "page": snapshot.rel(page),
        "backlinks": [{"path": snapshot.rel(b.source), "line": b.line, "context": b.context}
                      for b in snapshot.backlinks(page)],
    }
    if mentions:
        doc["unlinked_mentions"] = [
            {"path": snapshot.rel(m.path), "line": m.line, "text": m.text, "context": m.context}
            for m in snapshot.unlinked_mentions(page)
        ]
    return doc


def tags_document(snapshot: Any) -> dict[str, Any]:
    """Every tag of the vault with the number of pages carrying it (a parent counts its nested tags):
    ``{"tags": [{"tag", "count"}]}``, sorted by tag ignoring case."""
    counts = snapshot.tag_counts()
    return {"tags": [{"tag": tag, "count": counts[tag]} for tag in sorted(counts, key=str.lower)]}
