"""The page edits a model may make: it can add and supersede, never erase a person's words.

A model changes an existing page through structured operations, each of which keeps every
line it does not own:

* ``add_bullet``: a fact bullet under a heading (a bullet already there gains the dates);
* ``supersede_bullet``: an old value is struck through and moved under ``## History`` with its
  text and dates, ``until`` the new date, and the new value takes its place;
* ``merge_bullets``: bullets that say the same thing become one that keeps every source date;
* ``create_page``: a page that does not exist yet;
* ``rename_section``: a heading the program wrote gets a new title.

Whole-page ``write`` creates a page or replaces a page the program wrote (every line of it is
the program's, see :mod:`~suzent_desktop.core.engines.dream.guards.authorship`) whose bullets all survive in
the new text; ``edit`` replaces one piece of text under the same rule as every operation:

* a person's line stays word for word, and where a reader sees it (never moved into frontmatter,
  a comment or a code block); a person's bullet may only gain dates, or be struck through
  (superseded) keeping its exact text;
* a fact bullet the program wrote may move, gain dates or be struck through, but its text (up
  to case and punctuation) and dates stay on the page.

An edit that breaks the rule is refused before anything is written, naming the lines it would
lose and the operation to use instead. Every line an edit takes off a page is logged with the
operation that took it (:attr:`VaultTools.removed_lines`), so the run's diff can say why each
removed line went.
"""

from __future__ import annotations

import datetime as dt
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from suzent_desktop.core.files.language.markdown import block_code_lines
from suzent_desktop.core.vault.facts.fact_bullets import HEADING_RE
from suzent_desktop.core.vault.facts.fact_pages import Bullet, PageDoc, dup_norm, is_blank, parse_bullet

if TYPE_CHECKING:
    from suzent_desktop.core.engines.dream.tools import VaultTools

SHOWN_LINES = 3  # lines named in a refusal
_COMMENT_RE = re.compile(r"%%.*?(?:%%|\Z)|<!--.*?(?:-->|\Z)", re.S)  # Obsidian and HTML comments
LINE_CHARS = 80


class EditRefused(ValueError):
    """The edit would remove or reword a line that must stay; nothing was written."""


@dataclass(frozen=True)
class RemovedLine:
    """A line an edit took off a page, and the operation that took it."""

    page: str
    line: str
    operation: str


def removed_lines(before: str, after: str) -> list[str]:
    """Non-blank lines of ``before`` that ``after`` no longer holds as they were (with repeats)."""
    gone = Counter(_lines(before)) - Counter(_lines(after))
    found: list[str] = []
    for line in _lines(before):
        if gone[line] > 0:
            gone[line] -= 1
            found.append(line)
    return found


def _lines(text: str | None) -> list[str]:
    return [line.rstrip("\r").rstrip() for line in (text or "").splitlines() if line.strip()]


def _keeps(old: Bullet, new: Bullet, owned: bool) -> bool:
    """``new`` carries ``old`` on: the same text (up to case and punctuation for the program's own
    bullets), every date, the same end date, and still struck if it was."""
    same = new.text == old.text or owned and dup_norm(new.text) == dup_norm(old.text)
    return (same and set(old.dates) <= set(new.dates) and (old.until is None or new.until == old.until)
            and (new.struck or not old.struck))


def hidden_lines(text: str) -> set[int]:
    """0-based lines (of ``text.split("\\n")``) a reader does not see as text: the frontmatter, code
    (fenced or indented), and lines wholly inside a comment (``%%…%%``, ``<!-- … -->``, either of
    which, left open, runs to the end of the page). Search leaves them out too."""
    lines = text.split("\n")
    hidden = block_code_lines(text)
    # comment marks inside code are code: blank the code lines out, keeping every offset
    masked = "\n".join(" " * len(line) if index in hidden else line for index, line in enumerate(lines))
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    for match in _COMMENT_RE.finditer(masked):
        first = bisect_right(starts, match.start()) - 1
        last = bisect_right(starts, max(match.end() - 1, match.start())) - 1
        for index in range(first, last + 1):
            line = lines[index]
            begin, end = starts[index], starts[index] + len(line)
            visible = masked[begin:max(begin, match.start())] + masked[min(end, match.end()):end]
            if not visible.strip():
                hidden.add(index)
    return hidden


def _seen(text: str) -> list[tuple[str, bool]]:
    """Non-blank lines as :func:`_lines` has them, each with whether a reader sees it."""
    hidden = hidden_lines(text) if text else set()
    return [(line.rstrip("\r").rstrip(), index not in hidden)
            for index, line in enumerate(text.split("\n")) if line.strip()]


def lost_lines(before: str, after: str, owns: Callable[[str], bool]) -> list[str]:
    """Lines of ``before`` an edit to ``after`` would erase, reword or hide against the rule ([] when none).

    A line is judged by what a reader sees, not only its bytes: a line a reader saw must stay
    visible, so an edit that moves it into the frontmatter, a comment or a code block, without
    changing a byte of it, loses it as surely as erasing it. A line that was hidden already may
    stay hidden. ``owns(line)`` says whether the program wrote the line. Blank lines never count."""
    old, new = _seen(before), _seen(after)
    shown = Counter(line for line, visible in new if visible)
    unseen = Counter(line for line, visible in new if not visible)
    shown_bullets = [b for b in (parse_bullet(line) for line, visible in new if visible) if b is not None]
    any_bullets = [b for b in (parse_bullet(line) for line, _visible in new) if b is not None]
    lost: set[int] = set()
    for index in sorted(range(len(old)), key=lambda i: not old[i][1]):  # visible lines claim theirs first
        line, visible = old[index]
        if shown[line] > 0:
            shown[line] -= 1
            continue
        if not visible and unseen[line] > 0:
            unseen[line] -= 1
            continue
        owned = owns(line)
        bullet = parse_bullet(line)
        if bullet is not None and any(_keeps(bullet, b, owned) for b in (shown_bullets if visible else any_bullets)):
            continue
        if owned and bullet is None:
            continue  # a heading or a link line the program wrote may change
        lost.add(index)
    return [old[index][0] for index in sorted(lost)]


def _shown(lines: list[str]) -> str:
    named = ", ".join(repr(line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1] + "…")
                      for line in lines[:SHOWN_LINES])
    more = f" and {len(lines) - SHOWN_LINES} more" if len(lines) > SHOWN_LINES else ""
    return named + more


def apply(tools: VaultTools, rel: str, text: str, operation: str, *, create: bool = False) -> None:
    """Write ``text`` to ``rel`` if no line that must stay is lost; EditRefused otherwise."""
    if tools.exists(rel):
        if create:
            raise EditRefused(f"{rel} already exists; change it with add_bullet, supersede_bullet or "
                              "merge_bullets (read it first)")
        before = tools.read(rel)
        lost = lost_lines(before, text, lambda line: tools.owns(rel, line))
        if lost:
            raise EditRefused(
                f"{operation} on {rel} would remove, reword or hide {len(lost)} line(s) that must stay: "
                f"{_shown(lost)}. Lines a person wrote and fact bullets are never erased, nor hidden in "
                "frontmatter, a comment or a code block: add new facts with add_bullet, and "
                "mark an old value as replaced with supersede_bullet (it keeps the old text under History)"
            )
    tools.write(rel, text, operation=operation)


# -- the operations --------------------------------------------------------------------------------
def write_page(tools: VaultTools, rel: str, content: str) -> str:
    """Create a page, or replace one the program wrote whose bullets all survive."""
    if tools.exists(rel):
        theirs = [line for line in _lines(tools.read(rel)) if not tools.owns(rel, line)]
        if theirs:
            raise EditRefused(
                f"{rel} has {len(theirs)} line(s) a person wrote ({_shown(theirs)}); write replaces only pages "
                "the program wrote. Change this page with add_bullet, supersede_bullet, merge_bullets or "
                "rename_section"
            )
    apply(tools, rel, content, "write")
    return f"ok: wrote {rel}"


def create_page(tools: VaultTools, rel: str, content: str) -> str:
    apply(tools, rel, content, "create_page", create=True)
    return f"ok: created {rel}"


def edit_text(tools: VaultTools, rel: str, old: str, new: str) -> str:
    text = tools.read(rel)
    count = text.count(old) if old else 0
    if count != 1:
        raise ValueError(f"{rel}: the text to replace occurs {count} times; it must occur exactly once")
    apply(tools, rel, text.replace(old, new, 1), "edit")
    return f"ok: edited {rel}"


def _is_iso_day(text: str) -> bool:
    """YYYY-MM-DD and a real day (the ISO parser alone also takes 20260101 and week dates)."""
    try:
        return len(text) == 10 and text[4] == "-" and dt.date.fromisoformat(text) is not None
    except ValueError:
        return False


def _dates(value: Any) -> list[str]:
    items = value if isinstance(value, list) else re.split(r"[,\s]+", str(value or ""))
    dates = [str(d).strip() for d in items if str(d).strip()]
    bad = [d for d in dates if not _is_iso_day(d)]
    if bad:
        raise ValueError(f"dates must be YYYY-MM-DD, not {bad[0]!r}")
    return sorted(set(dates))


def _fact_text(text: str) -> tuple[str, list[str]]:
    """A bullet's text and dates from what the model passed ('- fact (2026-07-01)' or 'fact')."""
    raw = " ".join(str(text).split())
    bullet = parse_bullet(raw if raw.startswith(("- ", "* ", "+ ")) else f"- {raw}")
    if bullet is None or not bullet.text:
        raise ValueError("text is required: the fact as one line")
    return bullet.text, bullet.dates


def _heading_title(item: Any) -> str | None:
    match = HEADING_RE.match(item) if isinstance(item, str) else None
    return match.group("title").strip() or None if match else None


def _page_doc(tools: VaultTools, rel: str) -> tuple[PageDoc, bool]:
    if tools.exists(rel):
        return PageDoc.parse(tools.read(rel)), False
    stem = rel.rsplit("/", 1)[-1].removesuffix(".md")
    return PageDoc(items=[f"# {stem}", ""]), True


def add_bullet(tools: VaultTools, rel: str, text: str, dates: Any = None, heading: str = "") -> str:
    fact, inline = _fact_text(text)
    when = sorted(set(_dates(dates)) | set(inline))
    doc, new_page = _page_doc(tools, rel)
    for bullet in doc.current_bullets():
        if dup_norm(bullet.text) == dup_norm(fact):
            added = [d for d in when if bullet.add_date(d)]
            if not added:
                return f"ok: {rel} already holds {bullet.text!r} with these dates; nothing changed"
            apply(tools, rel, doc.render(), f"add_bullet (dates added to '{bullet.text[:LINE_CHARS]}')")
            return f"ok: {rel} already held {bullet.text!r}; added {', '.join(added)}"
    new = Bullet(raw="", text=fact, dates=when, dirty=True)
    wanted = heading.strip().lstrip("#").strip()
    if not wanted:
        doc.add_current(new)
    else:
        at = next((i for i, item in enumerate(doc.items) if (_heading_title(item) or "").lower() == wanted.lower()),
                  None)
        if at is None:
            history = doc.history_index()
            at = len(doc.items) if history is None else history
            while at > 0 and is_blank(doc.items[at - 1]):
                at -= 1
            section: list[str | Bullet] = ["", f"## {wanted}", "", new]
            doc.items[at:at] = section + ([""] if history is not None else [])
        else:
            level = len(HEADING_RE.match(doc.items[at]).group("level"))  # type: ignore[arg-type, union-attr]
            doc.insert_in_section(at, new, level=level)
    apply(tools, rel, doc.render(), "add_bullet", create=new_page)
    return f"ok: added to {rel}" + (f" under {wanted!r}" if wanted else "")


def _matching(doc: PageDoc, text: str, *, struck: bool = False) -> list[Bullet]:
    fact, _dates_given = _fact_text(text)
    return [item for item in doc.items
            if isinstance(item, Bullet) and item.struck == struck and dup_norm(item.text) == dup_norm(fact)]


def _no_such_bullet(rel: str, text: str, doc: PageDoc) -> ValueError:
    shown = "; ".join(b.text[:60] for b in doc.current_bullets()[:6]) or "none"
    return ValueError(f"{rel}: no current bullet reads {text[:LINE_CHARS]!r} (its bullets: {shown})")


def supersede_bullet(tools: VaultTools, rel: str, old: str, date: str, new: str = "") -> str:
    given = _dates(date)
    if len(given) != 1:
        raise ValueError("date is required: the one date of the newer fact (YYYY-MM-DD)")
    until = given[0]
    doc = PageDoc.parse(tools.read(rel))
    found = _matching(doc, old)
    if not found:
        raise _no_such_bullet(rel, old, doc)
    if len(found) > 1:
        raise ValueError(f"{rel}: {len(found)} bullets read {old[:LINE_CHARS]!r}; merge_bullets them first")
    target = found[0]
    retired = Bullet(raw="", text=target.text, dates=list(target.dates), until=until, struck=True, dirty=True)
    if new.strip():
        fact, inline = _fact_text(new)
        doc.replace(target, Bullet(raw="", text=fact, dates=sorted({until, *inline}), dirty=True))
    else:
        doc.items.remove(target)
    doc.add_history(retired)
    apply(tools, rel, doc.render(), f"supersede_bullet (struck through under History, until {until})")
    return f"ok: superseded {target.text[:LINE_CHARS]!r} on {rel}" + (" with the new value" if new.strip() else "")


def merge_bullets(tools: VaultTools, rel: str, text: str) -> str:
    doc = PageDoc.parse(tools.read(rel))
    found = _matching(doc, text)
    if len(found) < 2:
        raise _no_such_bullet(rel, text, doc) if not found else ValueError(
            f"{rel}: only one bullet reads {text[:LINE_CHARS]!r}; nothing to merge")
    theirs = [b for b in found if not tools.owns(rel, b.raw)]
    keep = (theirs or found)[0]  # a person's wording is the one that stays
    for bullet in found:
        if bullet is not keep:
            for date in bullet.dates:
                keep.add_date(date)
            doc.items.remove(bullet)
    apply(tools, rel, doc.render(), f"merge_bullets (merged into '{keep.render().strip()[:LINE_CHARS]}')")
    return f"ok: merged {len(found)} bullets into one on {rel}"


def rename_section(tools: VaultTools, rel: str, old: str, new: str) -> str:
    title = new.strip().lstrip("#").strip()
    if not title or "\n" in title:
        raise ValueError("new is required: the section's new title, one line")
    wanted = old.strip().lstrip("#").strip().lower()
    if wanted == "history":
        raise ValueError("the History section holds superseded values and keeps its name")
    doc = PageDoc.parse(tools.read(rel))
    found = [i for i, item in enumerate(doc.items) if (_heading_title(item) or "").lower() == wanted]
    if len(found) != 1:
        raise ValueError(f"{rel}: {len(found)} headings read {old[:LINE_CHARS]!r}; name exactly one")
    marks = HEADING_RE.match(doc.items[found[0]]).group("level")  # type: ignore[arg-type, union-attr]
    doc.items[found[0]] = f"{marks} {title}"
    apply(tools, rel, doc.render(), "rename_section")
    return f"ok: renamed the section to {title!r} on {rel}"


def run(tools: VaultTools, name: str, args: dict[str, Any]) -> str:
    """One edit tool call (blocking); KeyError for a missing argument, ValueError for a refusal."""
    path = str(args["path"])
    if name == "write":
        return write_page(tools, path, str(args["content"]))
    if name == "create_page":
        return create_page(tools, path, str(args["content"]))
    if name == "edit":
        return edit_text(tools, path, str(args["old"]), str(args["new"]))
    if name == "add_bullet":
        return add_bullet(tools, path, str(args["text"]), args.get("dates", args.get("date")),
                          str(args.get("heading") or ""))
    if name == "supersede_bullet":
        return supersede_bullet(tools, path, str(args["old"]), str(args["date"]), str(args.get("new") or ""))
    if name == "merge_bullets":
        return merge_bullets(tools, path, str(args["text"]))
    if name == "rename_section":
        return rename_section(tools, path, str(args["old"]), str(args["new"]))
    raise ValueError(f"unknown edit {name!r}")


def _spec(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description, "parameters": {
        "type": "object", "properties": properties, "required": required}}}


_S = {"type": "string"}
EDIT_TOOL_SPECS: list[dict[str, Any]] = [
    _spec("add_bullet", "Add one fact bullet to a page (created if missing), under a heading (created if missing). "
          "A bullet already on the page saying the same gains the dates instead.",
          {"path": _S, "text": {"type": "string", "description": "the fact, one line"},
           "dates": {"type": "array", "items": _S, "description": "its source dates, YYYY-MM-DD"},
           "heading": {"type": "string", "description": "section title; empty: after the page's bullets"}},
          ["path", "text", "dates"]),
    _spec("supersede_bullet", "Mark a bullet as replaced by a newer value: it is struck through and moved under "
          "## History with its text and dates, until the given date; the new value (if given) takes its place.",
          {"path": _S, "old": {"type": "string", "description": "the old bullet's text"},
           "new": {"type": "string", "description": "the new fact"},
           "date": {"type": "string", "description": "the newer fact's date, YYYY-MM-DD"}},
          ["path", "old", "date"]),
    _spec("merge_bullets", "Merge bullets of one page that say the same thing into one that keeps every source date.",
          {"path": _S, "text": {"type": "string", "description": "the duplicated bullet's text"}},
          ["path", "text"]),
    _spec("create_page", "Create a new page (markdown). Fails if the page exists.",
          {"path": _S, "content": _S}, ["path", "content"]),
    _spec("rename_section", "Give a section heading the program wrote a new title.",
          {"path": _S, "old": {"type": "string", "description": "the heading's current title"}, "new": _S},
          ["path", "old", "new"]),
]
EDIT_TOOLS = frozenset({"write", "edit", *(spec["function"]["name"] for spec in EDIT_TOOL_SPECS)})
