"""The command line's ``why`` and ``review``: the words behind a memory, and what changed since the last look.

``why`` only looks. ``review`` lists, and with an action writes only what review owns (the
reviewed stream, MEMORY.md on ``--accept-memory``) or what forget and an edit always write.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
from typing import Any

from suzent_desktop.core.engines.memory_md import memory_approval

SHOWN_CHARS = 200


def add_commands(add: Callable[[str, str], argparse.ArgumentParser]) -> None:
    why = add("why", "where a memory came from: its log facts and the conversation turns behind them")
    why.add_argument("what", help="the words of a page bullet or MEMORY.md line, PATH:LINE as search prints it, "
                                  "or a hit id")
    rev = add("review", "what the memory learned since you last reviewed it, items the engine is unsure of first")
    rev.add_argument("--keep", nargs="+", metavar="ID", default=[], help="mark these items reviewed")
    rev.add_argument("--forget", metavar="ID", help="forget this item's memory (a tombstone) and mark it reviewed")
    rev.add_argument("--edit", nargs=2, metavar=("ID", "TEXT"), help="reword this page bullet (dates and sources stay)")
    rev.add_argument("--mark-all-reviewed", action="store_true", help="mark every listed item reviewed")
    rev.add_argument("--accept-memory", action="store_true", help="accept the proposed MEMORY.md: the agent reads it")
    rev.add_argument("--reject-memory", action="store_true", help="drop the proposed MEMORY.md")


def _clip(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SHOWN_CHARS else flat[: SHOWN_CHARS - 1] + "…"


def _when(ts: str) -> str:
    return ts[:16].replace("T", " ")


def print_card(card: Any, say: Callable[[str], None]) -> None:
    where = f"{card.path}:{card.line}" if card.path and card.line else card.path or card.kind
    say(f"{_clip(card.text)}")
    say(f"  {where}")
    if card.typed_by_hand == "editor":
        say("  typed by hand in a page: no daily-log fact stands behind it")
    for source in card.sources:
        say(f"  log {source.date}" + (f" line {source.log_line}" if source.log_line else "") + f": {_clip(source.fact)}")
        turn = source.turn
        if turn is None:
            say("    typed by hand (remember)" if source.typed_by_hand else "    its turn is not kept (or forgotten)")
            continue
        say(f"    turn {turn.id}, {_when(turn.ts)}, {turn.speaker} said: «{_clip(turn.sentence)}»")
        for label, side in (("before", turn.before), ("after", turn.after)):
            if side is not None:
                say(f"      {label} ({_when(side.ts)}) user: {_clip(side.user)}")
        say(f"    {turn.path}:{turn.line}")
    for place in card.other_pages:
        say(f"  also on: {place.page}:{place.line}")


def cmd_why(args: argparse.Namespace, out: Any, open_manager: Callable[..., Any]) -> int:
    manager = open_manager(args, bootstrap=False)
    card = asyncio.run(manager.reviewing.why(args.what))
    out.doc(card.as_json())
    print_card(card, out.say)
    return 0


class ReviewError(ValueError):
    """An item or proposal named on the command line is not there."""


def _item(items: list[Any], wanted: str) -> Any:
    found = next((i for i in items if i.id == wanted), None)
    if found is None:
        raise ReviewError(f"review item {wanted!r}: not in the list (reviewed already, or changed); "
                                         "run `review` again")
    return found


def cmd_review(args: argparse.Namespace, out: Any, open_manager: Callable[..., Any]) -> int:
    manager = open_manager(args)
    done: list[str] = []
    if args.accept_memory:
        if manager.reviewing.accept_memory() is None:
            raise ReviewError("no proposed MEMORY.md waits for approval")
        asyncio.run(manager.indexing.sync_paths([manager.layout.memory_md]))
        done.append("accepted the proposed MEMORY.md")
    if args.reject_memory:
        if not memory_approval.reject(manager.layout):
            raise ReviewError("no proposed MEMORY.md waits for approval")
        done.append("dropped the proposed MEMORY.md")
    listed = manager.reviewing.items()
    if args.keep:
        manager.reviewing.keep([_item(listed, i).id for i in args.keep])
        done.append(f"kept {len(args.keep)}")
    if args.forget:
        asyncio.run(manager.reviewing.forget_item(_item(listed, args.forget)))
        done.append("forgot 1")
    if args.edit:
        changes = manager.reviewing.edit(_item(listed, args.edit[0]), args.edit[1])
        asyncio.run(manager.indexing.sync_paths(changes.changed))
        done.append(changes.message)
    if args.mark_all_reviewed:
        done.append(f"marked {manager.reviewing.mark_all()} reviewed")
    listed = manager.reviewing.items() if done else listed
    waiting = memory_approval.proposal(manager.layout) is not None
    out.doc({"items": [i.as_json() for i in listed], "memory_proposal": waiting, "done": done})
    for line in done:
        out.say(line)
    if not listed:
        out.say("Nothing to review.")
    for number, item in enumerate(listed, start=1):
        where = f"{item.page}:{item.line}" if item.page and item.line else item.page or ""
        out.say(f"{number:3}. [{item.kind}] {_clip(item.text)}")
        out.say(f"     {item.id}  {where}" + (f"  ({item.date})" if item.date else ""))
        if item.unsure:
            out.say(f"     unsure: {item.unsure}")
    if waiting:
        out.say("A proposed MEMORY.md waits for approval: review --accept-memory (or --reject-memory)")
    return 0
