"""JSON Canvas (``.canvas``) boards as markdown, so their text is searchable and their links checked.

JSON Canvas is an open format (jsoncanvas.org): ``nodes`` of type ``text`` hold markdown,
``file`` nodes name a vault file (optionally ``#subpath``), ``link`` nodes a URL and ``group``
nodes a label. A board reads as its text nodes, one paragraph block each, in the order they
are stored, with each file node as an embed of the file it shows, so the one grammar and the
one resolver treat a board's links like a page's. A board that is not valid JSON reads as no
text: it is the editor's file, not ours to guess at.
"""

from __future__ import annotations

import json
from typing import Any

from suzent_desktop.core.files.disk.text_hygiene import loads_json

CANVAS_SUFFIX = ".canvas"


def is_canvas(path: object) -> bool:
    return str(path).lower().endswith(CANVAS_SUFFIX)


def canvas_markdown(text: str) -> str:
    """The markdown a board stands for: its text nodes, and an embed per file node."""
    try:
        data: Any = loads_json(text) if text.strip() else {}
    except json.JSONDecodeError:
        return ""
    nodes = data.get("nodes") if isinstance(data, dict) else None
    if not isinstance(nodes, list):
        return ""
    blocks: list[str] = []
    for node in nodes:
        if not isinstance(node, dict):
            continue
        kind = node.get("type")
        if kind == "text" and isinstance(node.get("text"), str) and node["text"].strip():
            blocks.append(node["text"].strip("\n"))
        elif kind == "file" and isinstance(node.get("file"), str) and node["file"].strip():
            subpath = node.get("subpath") if isinstance(node.get("subpath"), str) else ""
            blocks.append(f"![[{node['file'].strip()}{subpath}]]")
        elif kind == "group" and isinstance(node.get("label"), str) and node["label"].strip():
            blocks.append(node["label"].strip())
    return "\n\n".join(blocks) + ("\n" if blocks else "")
