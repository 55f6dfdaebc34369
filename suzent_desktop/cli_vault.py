"""The command line's questions to the vault model: ``backlinks PAGE`` and ``tags``.

They only look: like ``search`` and ``status`` they create no vault folder or seed file. The
answers are the documents the MCP server gives too (``core/documents.py``).
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
from typing import Any

from suzent_desktop.core.documents import backlinks_document, tags_document


def add_commands(add: Callable[[str, str], argparse.ArgumentParser]) -> None:
    backlinks = add("backlinks", "pages that link to a page, and pages that name it without a link")
    backlinks.add_argument("page", help='the page as a link names it ("Kyoto") or its vault path ("2_Wiki/Kyoto.md")')
    add("tags", "every tag of the vault with the number of pages carrying it")


def _snapshot(open_manager: Callable[..., Any], args: argparse.Namespace) -> Any:
    manager = open_manager(args, bootstrap=False)
    return asyncio.run(manager.vault_snapshot())


def cmd_backlinks(args: argparse.Namespace, out: Any, open_manager: Callable[..., Any]) -> int:
    doc = backlinks_document(_snapshot(open_manager, args), args.page)
    out.doc(doc)
    links, mentions = doc["backlinks"], doc["unlinked_mentions"]
    out.say(f"{doc['page']}: {len(links)} backlink(s), {len(mentions)} unlinked mention(s)")
    for item in links:
        out.say(f"  {item['path']}:{item['line']}  {item['context']}")
    if mentions:
        out.say("Unlinked mentions:")
    for item in mentions:
        out.say(f"  {item['path']}:{item['line']}  {item['context']}")
    return 0


def cmd_tags(args: argparse.Namespace, out: Any, open_manager: Callable[..., Any]) -> int:
    doc = tags_document(_snapshot(open_manager, args))
    out.doc(doc)
    if not doc["tags"]:
        out.say("No tags.")
    for item in doc["tags"]:
        out.say(f"{item['count']:6}  #{item['tag']}")
    return 0
