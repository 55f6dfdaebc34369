"""The ``suzent-desktop`` command line (interfaces.md §3).

Importing this module stays cheap (no Qt, LanceDB or litellm): each command imports the
engine it needs, so ``--help`` and ``doctor`` answer at once. Exit codes: 0 success, 1 a
handled error (the message on stderr names the file, line or setting at fault; with ``--json``
stdout also gets ``{"error", "file", "line"}``), 2 bad usage (with ``--json`` the same document,
file and line null). ``SUZENT_*`` environment variables that name no setting are warned about
on stderr.

Behaviour where the interface left a choice:

* ``--home`` and ``--json`` may stand before or after the command.
* ``demo [DIR]`` writes to DIR, else ``--home``, else ``$SUZENT_HOME``, else a
  ``suzent-desktop-demo`` user-data folder. A non-empty folder without the ``.suzent/demo``
  marker is refused (exit 1); in an existing demo home only missing files are restored.
* ``search`` and ``forget`` first sync files changed since the last run (edits made in
  Obsidian or by another agent), so results never lag behind the files.
* ``forget`` records a tombstone only for text that names exactly one memory (or with ``--force``; it then says
  so), so a later reindex can never bring the text back from a log or page. Text that is a
  hit as ``search`` printed it stands for that hit's paragraphs and items, one tombstone each.
  ``forget --undo`` of text that is not forgotten exits 1.
* ``reindex`` reports files it could not index as warnings and exits 0; ``doctor`` is the
  command that exits 1 for them. ``doctor`` errors (exit 1): unreadable config, unusable
  folders, files that are not UTF-8, index errors; warnings (exit 0): malformed log lines,
  badly named logs, unreadable tombstone lines, forgotten text still in a page, a
  watermark on or after today, stale index files.
* ``dream`` runs one cycle as the app does (batch after batch until caught up, then lint
  if due), printing a line per batch; ``--dry-run`` tries one batch on a scratch copy. It
  exits 1 when any run counts as a failed attempt (failed, no change, skipped after the
  retry limit); gated and nothing pending exit 0.
* ``capture`` reads ``{"user", "assistant", "session_id"?, "timestamp"?}``; session_id
  defaults to ``capture``. A turn dated in an already consolidated day goes to today's log;
  the turn itself is kept verbatim in its own day's transcript (unless
  ``memory_keep_transcripts`` is off). Both sides empty is an error (exit 1).
* ``mcp`` serves the Model Context Protocol on stdio (stdout belongs to the protocol) or,
  with ``--http PORT``, on 127.0.0.1 only. ``--read-only`` refuses a missing home rather
  than create one.
* ``status --json`` has exactly the documented keys; ``last_dream``/``last_lint`` are ISO
  dates or null. The human form also lists dates the runner skipped after the retry limit.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from suzent_desktop import cli_review, cli_vault, cli_window
from suzent_desktop.cli_output import PROG, CliError, Output, UsageError, home_of
from suzent_desktop.cli_progress import download_model, show_downloads, terminal_progress
from suzent_desktop.core.documents import SOURCES, captured_turn, fact_dict, hit_dict
from suzent_desktop.core.documents import is_handled_error as _core_handles
from suzent_desktop.core.files.language.words import count, outcome_words


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors raised as :class:`UsageError` (subcommand parsers inherit it)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(self, message)


# -- argument parsing --------------------------------------------------------------
def _common() -> argparse.ArgumentParser:
    """``--home`` and ``--json`` are accepted after the subcommand too (without clobbering the global ones)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--home", type=Path, default=argparse.SUPPRESS, help="home folder (default: $SUZENT_HOME or the user-data folder)")
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="machine-readable output")
    return common


def build_parser() -> argparse.ArgumentParser:
    common = _common()
    parser = _Parser(
        prog=PROG,
        description="A long-term memory you can see, search, edit and trust: daily logs, a notebook vault, a search index.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    parser.add_argument("--home", type=Path, default=None, help="home folder (default: $SUZENT_HOME or the user-data folder)")
    parser.add_argument("--json", action="store_true", default=False, help="machine-readable output (one JSON document)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, parents=[common], help=help_text, description=help_text)  # type: ignore[list-item]  # typeshed wants the subclass

    add("gui", "open the app on the home (the default command)")
    open_vault = add("open", "open a folder of notes (an Obsidian vault) in the app, leaving its files as they are")
    open_vault.add_argument("path", type=Path, help="the vault folder (or a home folder)")
    demo = add("demo", "write a demo home (weeks of daily logs, a seeded vault) and open the app on it")
    demo.add_argument("dir", nargs="?", type=Path, help="where to write it (default: --home, $SUZENT_HOME, else a 'suzent-desktop-demo' data folder)")
    demo.add_argument("--no-gui", action="store_true", help="only write the demo home")

    remember = add("remember", "append one fact line to today's log and index it")
    remember.add_argument("text")
    remember.add_argument("--category", default="general")
    remember.add_argument("--tags", default="", help='space-separated tags, e.g. "ui product"')
    remember.add_argument("--session", default="manual", help="session id (first 8 characters are written)")
    remember.add_argument("--importance", type=_unit_float, default=None, help="0..1; 0.8 or more refreshes nothing by itself")

    capture = add("capture", "capture one conversation turn given as JSON {user, assistant, session_id, timestamp?}")
    capture.add_argument("file", nargs="?", default="-", help="a JSON file, or - for stdin (default)")

    search = add("search", "hybrid search over daily logs, notebook pages, core files and conversation transcripts")
    search.add_argument(
        "query",
        help='words, with operators: tag:name path:folder "exact phrase" -word (a query starting with "-": put -- first)',
    )
    search.add_argument("--limit", type=_positive_int, default=10)
    search.add_argument("--source", choices=SOURCES, default=None)

    forget = add("forget", "forget a memory: from search at once, and from notebook pages")
    forget.add_argument("text", help="a fact, a paragraph, or a hit's text as search printed it")
    forget.add_argument("--undo", action="store_true", help="take a forget back: search and page lines return")
    forget.add_argument("--force", action="store_true",
                        help="record TEXT even though nothing remembered matches it (text not captured yet)")
    forget.add_argument("--from-notes", action="store_true",
                        help="in an opened vault, also delete TEXT from the notes you wrote (outside Memory/)")

    reindex = add("reindex", "bring the index in step with the files")
    reindex.add_argument("--full", action="store_true", help="rebuild everything from the files")

    add("status", "watermark, pending dates, next dream batch and index health")
    dropped = add("dropped", "facts a dream dropped, kept in search until you confirm the drop")
    dropped.add_argument("--confirm", nargs="+", default=None, metavar="ID",
                         help="agree with the drop: these facts (ids as listed) leave search")
    dream = add("dream", "run one consolidation cycle: batch after batch until caught up, then lint if due")
    dream.add_argument("--force", action="store_true", help="ignore the time and volume gates")
    dream.add_argument("--dry-run", action="store_true", help="run against a scratch copy; report diffs only")
    add("lint", "run one lint pass over the notebook")
    add("promote", "rewrite MEMORY.md from 3_Personal/ pages and recall signals")
    add("doctor", "check the home for problems (never modifies anything)")
    cli_vault.add_commands(add)
    cli_review.add_commands(add)
    mcp = add("mcp", "serve the memory to an agent over the Model Context Protocol (stdio by default)")
    mcp.add_argument("--read-only", action="store_true", help="only the reading tools; write nothing at all")
    mcp.add_argument("--http", type=_port, default=None, metavar="PORT", help="serve streamable HTTP on 127.0.0.1:PORT instead of stdio. Without --token-file, ANY local "
                     "process (any program of any user on this machine) can read and write the memory through it")
    mcp.add_argument("--bind", default=None, metavar="ADDRESS", help="with --http: listen on ADDRESS (another machine's agents; needs --token-file)")
    mcp.add_argument("--token-file", type=Path, default=None, metavar="FILE", help="with --http: every request must carry 'Authorization: Bearer' and this file's token")
    return parser


def _version() -> str:
    from suzent_desktop import __version__

    return __version__


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _port(text: str) -> int:
    value = _positive_int(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"must be a port number (1..65535), got {value}")
    return value


def _unit_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {value}")
    return value


# -- entry point ---------------------------------------------------------------------
def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    arguments = list(sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(arguments)
    except UsageError as exc:
        return _usage_error(exc, as_json=_wants_json(arguments))
    except SystemExit as exc:  # argparse: 0 for --help and --version
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    out = Output(bool(args.json))
    command = args.command or "gui"
    handler = COMMANDS[command]
    from suzent_desktop.settings import unknown_environment

    for warning in unknown_environment():
        out.warn(f"warning: {warning}")
    try:
        return int(handler(args, out) or 0)
    except KeyboardInterrupt:
        out.warn("interrupted")
        return 130
    except BrokenPipeError:  # output piped into `head` and the like: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:  # noqa: BLE001 - every known failure becomes exit 1 with its message
        if not is_handled_error(exc) or os.environ.get("SUZENT_DEBUG"):
            raise
        if out.as_json:
            print(json.dumps(error_document(exc), ensure_ascii=False), file=out.out)
        out.warn(f"{PROG}: error: {exc}")
        return 1


def _usage_error(exc: UsageError, *, as_json: bool) -> int:
    """Bad usage: argparse's usage and message on stderr as always, plus the JSON error document
    on stdout with ``--json`` (a script parsing stdout must not get an empty answer); exit 2."""
    if as_json:
        print(json.dumps(error_document(exc), ensure_ascii=False), file=sys.stdout)
    exc.parser.print_usage(sys.stderr)
    print(f"{exc.parser.prog}: error: {exc.message}", file=sys.stderr)
    return 2


def _wants_json(arguments: list[str]) -> bool:
    """Whether ``--json`` (or an abbreviation argparse accepts) was given, read leniently: the
    command line is wrong in some other way, so the real parser has no answer to ask."""
    probe = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    probe.add_argument("--json", action="store_true")
    try:
        return bool(probe.parse_known_args(arguments)[0].json)
    except (argparse.ArgumentError, SystemExit):
        return False


def error_document(exc: BaseException) -> dict[str, Any]:
    """The ``--json`` form of a handled error: the message, and the file and line at fault when known."""
    file = getattr(exc, "file", None) or getattr(exc, "filename", None)
    line = getattr(exc, "line", None)
    document: dict[str, Any] = {"error": str(exc), "file": str(file) if file is not None else None,
                                "line": line if isinstance(line, int) else None}
    if candidates := getattr(exc, "candidates", None):  # an ambiguous forget: the memories it could mean
        document["candidates"] = list(candidates)
    return document


def is_handled_error(exc: BaseException) -> bool:
    """Errors a user can act on; anything else is a bug and keeps its traceback."""
    return isinstance(exc, CliError) or _core_handles(exc)


def _open(args: argparse.Namespace, *, bootstrap: bool = True):
    """The engine on the home; ``bootstrap=False`` for the commands that only look (status,
    search), so looking never creates vault folders or seed files."""
    from suzent_desktop.core.manager import MemoryManager

    manager = MemoryManager.open(home_of(args), bootstrap=bootstrap)
    show_downloads(manager.embedder, sys.stderr, as_json=bool(getattr(args, "json", False)))
    return manager


def _run(coro: Any) -> Any:
    return asyncio.run(coro)


NOT_CONSOLIDATED_SHOWN = 10
NOISY_CATCH_UP = 10  # say what is happening when a sync before a search may take a moment


async def _catch_up(manager: Any, out: Output) -> None:
    """A fresh process sees files edited elsewhere (Obsidian, another agent): sync them before reading."""
    stale = manager.indexing.stale_paths()
    if not stale:
        return
    download_model(manager.embedder, out.err, as_json=out.as_json)  # before any pass, its bytes shown
    progress = terminal_progress(f"Indexing {count(len(stale), 'changed file')} first", out.err,
                                 as_json=out.as_json) if len(stale) >= NOISY_CATCH_UP else None
    if progress is None:
        # Just these files: the walk above found them, a full pass would walk the vault again.
        await manager.indexing.sync_paths(stale)  # files that cannot be indexed are reported by reindex, status and doctor
        return
    try:  # many files (a first index): a pass that reports its progress, drawn as a bar
        await manager.indexing.reindex(progress=progress)
    finally:
        progress.close()


# -- commands --------------------------------------------------------------------------
def cmd_remember(args: argparse.Namespace, out: Output) -> int:
    manager = _open(args)
    _say_when_waiting(manager, out)
    tags = tuple(args.tags.split())

    async def go() -> Any:
        changes = await manager.capturing.remember(
            args.text, category=args.category, tags=tags, session_id=args.session, importance=args.importance
        )
        await _catch_up(manager, out)  # e.g. a new home's MEMORY.md, so status is not left stale
        return changes

    changes = _run(go())
    date = min(changes.logs) if changes.logs else manager.clock.today().isoformat()
    path = manager.log_path(date)
    # Where this process's line landed; other processes may have appended since.
    line = changes.log_lines[-1] if changes.log_lines else _last_line_number(path)
    out.doc({"date": date, "path": str(path), "line": line, "rows_added": changes.rows_added, "errors": changes.errors})
    out.say(f"Remembered in {path}:{line} ({count(changes.rows_added, 'row')} indexed).")
    _report_errors(out, changes.errors)
    return 0


def _last_line_number(path: Path) -> int:
    return path.read_bytes().count(b"\n")


def _report_errors(out: Output, errors: list[str]) -> None:
    for error in errors:
        out.warn(f"warning: {error}")


def _say_when_waiting(manager: Any, out: Output) -> None:
    """A capture never waits silently behind another process's index pass (a long page takes minutes)."""
    manager.indexing.on_wait(lambda: out.warn(
        "Saved. Another index pass (the app, or a reindex) is running; this waits for it so the "
        "new fact is searchable when the command ends. Ctrl+C is safe: the fact stays in its log."
    ))


def cmd_capture(args: argparse.Namespace, out: Output) -> int:
    turn = _read_turn(args.file)
    manager = _open(args)
    _say_when_waiting(manager, out)
    facts, changes = _run(
        manager.process_conversation_turn_for_memories(
            turn["user"], turn["assistant"], turn["session_id"], timestamp=turn["timestamp"]
        )
    )
    date = min(changes.logs) if changes.logs else manager.clock.today().isoformat()
    captured = captured_turn(manager)
    out.doc(
        {
            "facts": [fact_dict(f) for f in facts],
            "date": date if facts else (manager.last_turn.date if manager.last_turn else None),
            "path": str(manager.log_path(date)) if facts else None,
            "turn": captured,
            "rows_added": changes.rows_added,
            "memory_md": changes.memory_md,
            "errors": changes.errors,
        }
    )
    if captured is not None:
        out.say(f"Kept the turn verbatim in {captured['path']}:{captured['line']} (turn {captured['id']}).")
    if not facts:
        out.say("No facts found in this turn." if captured else "No facts found in this turn; nothing was written.")
    elif changes.message:  # a retried capture
        out.say(f"Not written again: {changes.message}.")
    else:
        out.say(f"Captured {count(len(facts), 'fact')} into {manager.log_path(date)}:")
        for fact in facts:
            out.say(f"  - [{fact.category}] {fact.content}")
        if changes.memory_md:
            out.say("MEMORY.md refreshed (high-importance fact).")
    _report_errors(out, changes.errors)
    return 0


def _read_turn(source: str) -> dict[str, Any]:
    """Read and validate the turn JSON; every problem names the file (or stdin) and the key."""
    import datetime as dt

    label = "stdin" if source == "-" else source
    try:  # stdin as bytes, decoded like a file: its text layer would turn bad bytes into replacement characters
        stdin = getattr(sys.stdin, "buffer", None)
        raw = (stdin.read().decode("utf-8") if stdin is not None else sys.stdin.read()) if source == "-" \
            else Path(source).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise CliError(f"{label}: not valid UTF-8 at byte {exc.start}") from exc
    except OSError as exc:
        raise CliError(f"{label}: cannot be read: {exc.strerror or exc}") from exc
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise CliError(f"{label}:{exc.lineno}: not valid JSON: {exc.msg} (column {exc.colno})") from exc
    except RecursionError:  # the parser recurses once per level: 100,000 nested lists exhaust the stack
        raise CliError(f"{label}: not valid JSON for a turn: lists or objects nested too deeply") from None
    if not isinstance(data, dict):
        raise CliError(f"{label}: expected a JSON object with keys user, assistant, session_id")
    for key in ("user", "assistant"):
        if not isinstance(data.get(key), str):
            raise CliError(f"{label}: key '{key}' is missing or not a string")
    session = data.get("session_id", "capture")
    if not isinstance(session, str) or not session.strip():
        raise CliError(f"{label}: key 'session_id' must be a non-empty string")
    stamp = data.get("timestamp")
    when = None
    if stamp is not None:
        try:
            when = dt.datetime.fromisoformat(str(stamp))
        except ValueError:
            raise CliError(f"{label}: key 'timestamp' is not an ISO-8601 date-time: {stamp!r}") from None
    return {"user": data["user"], "assistant": data["assistant"], "session_id": session.strip(), "timestamp": when}


def cmd_search(args: argparse.Namespace, out: Output) -> int:
    if not args.query.strip():
        raise CliError("nothing to search for: the query is empty")
    manager = _open(args, bootstrap=False)

    async def go() -> Any:
        await _catch_up(manager, out)
        from suzent_desktop.core.index.ranking.filters import Filters

        return await manager.searching.search(args.query, limit=args.limit, filters=Filters(source=args.source))

    response = _run(go())
    if response.failed:  # an empty list would read as "nothing remembered"
        raise CliError(f"{response.warning} (suzent-desktop reindex --full rebuilds it from the files)")
    results = [hit_dict(hit) for hit in response.hits]
    out.doc(results)
    if response.warning:
        out.warn(f"warning: {response.warning}")
    if not results:
        out.say("No results.")
    for number, hit in enumerate(response.hits, start=1):
        when = f" ({hit.date})" if hit.date else ""
        if hit.heading:
            when += f"  § {hit.heading}"
        out.say(f"{number:2}. [{hit.source_type}] {_one_line(hit.text)}{_superseded_note(hit)}")
        out.say(f"    {_where(hit.path, hit.line)}{when}  score={hit.score:.3f}")
        if hit.current is not None:
            out.say(f"    now: {_one_line(hit.current.text)}  ({_where(hit.current.path, hit.current.line)})")
        for place in hit.also:
            out.say(f"    also in: {_where(place.path, place.line)}" + (f" ({place.date})" if place.date else ""))
    return 0


def _where(path: str, line: int | None) -> str:
    return f"{path}:{line}" if line else str(path)


def _superseded_note(hit: Any) -> str:
    if not hit.superseded:
        return ""
    return f"  (superseded on {hit.until})" if hit.until else "  (superseded)"


def _one_line(text: str, width: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def cmd_forget(args: argparse.Namespace, out: Output) -> int:
    manager = _open(args)
    if args.undo:
        return _undo_forget(manager, args, out)

    async def go() -> Any:
        await _catch_up(manager, out)
        changes = await manager.forgetting.forget(args.text, force=args.force, from_notes=args.from_notes)
        return changes, await asyncio.to_thread(manager.forgetting.notes_holding, changes.forgotten)

    changes, kept = _run(go())
    pages = sorted(str(p) for p in changes.pages)
    out.doc({"tombstone": changes.forgotten[0], "tombstones": changes.forgotten, "rows_removed": changes.rows_removed,
             "matched": changes.rows_removed > 0, "pages_changed": pages, "core_files_changed": changes.memory_md,
             "notes_kept": sorted(str(p) for p in kept)})
    for unit in changes.forgotten:
        out.say(f"Forgotten: {_one_line(unit)}")
    for page in pages:
        out.say(f"  taken off {page}")
    if changes.memory_md:
        out.say("  taken off MEMORY.md or another core file")
    for note in kept:
        out.say(f"  kept as you wrote it in {note} (forget --from-notes deletes it there too)")
    for error in changes.errors:  # a page outside the vault keeps the text
        out.warn(f"warning: {error}")
    if changes.rows_removed:
        out.say(f"Removed {count(changes.rows_removed, 'row')} from the index. Undo: forget --undo TEXT")
    else:
        out.say(f"No indexed row held {args.text!r} yet; the tombstone keeps it from ever being indexed.")
    return 0


def _undo_forget(manager: Any, args: argparse.Namespace, out: Output) -> int:
    changes = _run(manager.forgetting.undo(args.text))
    pages = sorted(str(p) for p in changes.pages)
    out.doc({"restored": changes.restored, "rows_added": changes.rows_added, "pages_changed": pages,
             "core_files_changed": changes.memory_md, "logs": sorted(changes.logs)})
    for unit in changes.restored:
        out.say(f"Restored: {_one_line(unit)}")
    for page in pages:
        out.say(f"  lines put back in {page}")
    for date in sorted(changes.logs):
        out.say(f"  its day was already consolidated: captured again in the log of {date}")
    for error in changes.errors:
        out.warn(f"warning: {error}")
    return 0


def cmd_reindex(args: argparse.Namespace, out: Output) -> int:
    manager = _open(args)
    download_model(manager.embedder, out.err, as_json=out.as_json)  # before any pass, its bytes shown
    progress = terminal_progress("Rebuilding the index" if args.full else "Indexing", out.err, as_json=out.as_json)
    try:
        changes = _run(manager.indexing.reindex(full=args.full, progress=progress))
    finally:
        if progress is not None:
            progress.close()
    stats = _run(manager.indexing.stats())
    out.doc(
        {
            "full": bool(args.full),
            "rows_added": changes.rows_added,
            "rows_removed": changes.rows_removed,
            "rows": stats.rows,
            "errors": changes.errors,
        }
    )
    out.say(
        f"{'Rebuilt' if args.full else 'Synced'} the index: +{count(changes.rows_added, 'row')}, "
        f"-{count(changes.rows_removed, 'row')}; {count(stats.rows, 'row')} in total."
    )
    _report_errors(out, changes.errors)
    return 0  # files that could not be indexed are warnings here; `doctor` exits 1 for them


def cmd_status(args: argparse.Namespace, out: Output) -> int:
    manager = _open(args, bootstrap=False)
    status = _run(manager.status())
    out.doc(status)
    index = status["index"]
    out.say(f"Home:          {manager.layout.home}")
    out.say(f"Today:         {status['today']}")
    out.say(f"Watermark:     {status['watermark'] or '(none: nothing consolidated yet)'}")
    refused = manager.dreaming.watermark_error()
    if refused:
        out.warn(f"error: {refused}")
    out.say(f"Pending:       {count(len(status['pending_dates']), 'day')}, {count(status['pending_facts'], 'fact')}")
    if status["next_batch"]:
        out.say(f"Next batch:    {status['next_batch'][0]} .. {status['next_batch'][-1]}")
    gate = _gate_line(manager) if not out.as_json else None
    if gate:
        out.say(f"Dream gate:    {gate}")
    skipped = sorted(manager.dreaming.days().skipped)
    if skipped:
        out.say(f"Skipped:       {', '.join(skipped)} (given up after the retry limit; still searchable)")
    left = status.get("not_consolidated") or []
    if left:
        out.say(f"Not consolidated: {count(len(left), 'fact')} of consolidated days that no page holds "
                "(still searchable; the next dream offers them again):")
        for fact in left[:NOT_CONSOLIDATED_SHOWN]:
            out.say(f"  {fact['path']}:{fact['line'] or '?'}  {_one_line(fact['text'], 100)}")
        if len(left) > NOT_CONSOLIDATED_SHOWN:
            out.say(f"  … and {len(left) - NOT_CONSOLIDATED_SHOWN} more (`{PROG} --json status` lists all)")
    for user_file, own in manager.layout.user_nav_files():
        out.say(f"Your file:     {user_file.name} is yours and left alone; the app keeps {own.name} instead")
    out.say(f"Last dream:    {status['last_dream'] or 'never'}{manager.dreaming.last_run_note()}")
    out.say(f"Last lint:     {status['last_lint'] or 'never'}{'  (due)' if status['lint_due'] else ''}")
    sources = ", ".join(f"{k} {v}" for k, v in sorted(index["by_source"].items())) or "empty"
    out.say(f"Index:         {count(index['rows'], 'row')} ({sources})")
    kept = status["transcripts"]
    out.say(f"Transcripts:   {count(kept['turns'], 'turn')} over {count(kept['days'], 'day')}")
    if index["stale_files"]:
        out.say(f"Stale files:   {len(index['stale_files'])} (run `{PROG} reindex`)")
    for error in index["errors"]:
        out.say(f"Index error:   {error}")
    return 0


def _gate_line(manager: Any) -> str | None:
    """Whether the next dream would run now, and if not why."""
    import datetime as dt

    gate = manager.dreaming.gate_status()
    if gate.due:
        return "due now"
    when = ""
    if gate.next_run_at:
        when = f"; next check at {dt.datetime.fromtimestamp(gate.next_run_at).strftime('%Y-%m-%d %H:%M')}"
    return f"waiting ({gate.reason}){when}"


def cmd_dropped(args: argparse.Namespace, out: Output) -> int:
    manager = _open(args)
    if args.confirm:
        confirmed, _changes = _run(manager.dreaming.confirm_dropped(args.confirm))
        out.doc({"confirmed": [_dropped_dict(f) for f in confirmed]})
        for fact in confirmed:
            out.say(f"Confirmed: {_one_line(fact.text)} ({fact.date}); it leaves search, its log keeps it")
        return 0
    pending = manager.dreaming.pending_dropped()
    out.doc({"dropped": [_dropped_dict(f) for f in pending]})
    if not pending:
        out.say("No dropped fact awaits your word.")
    for fact in pending:
        out.say(f"{fact.id}  {fact.date}  {_one_line(fact.text)}\n    dropped on {fact.run or '?'}: {fact.reason}")
    if pending:
        out.say("They stay in search. To agree that they can go: dropped --confirm ID [ID ...]")
    return 0


def _dropped_dict(fact: Any) -> dict[str, Any]:
    return {"id": fact.id, "date": fact.date, "line": fact.line, "text": fact.text, "reason": fact.reason,
            "run": fact.run}


def cmd_dream(args: argparse.Namespace, out: Output) -> int:
    """One consolidation cycle, as the app runs it: batch after batch until caught up, then lint if due."""
    manager = _open(args)
    label = " (dry run)" if args.dry_run else ""

    def line_per_batch(result: Any) -> None:
        batch = f"{result.batch[0]} .. {result.batch[-1]}" if result.batch else "no dates"
        pages = f", {count(len(result.pages_changed), 'page')} changed" if result.pages_changed else ""
        out.say(f"Dream{label}: {outcome_words(result.outcome)} — {batch}{pages}")
        if result.reason:
            out.say(f"  reason: {result.reason}")
        if result.forceable and not args.force:  # not a dream already running, nor another device's lease
            out.say("  `dream --force` runs it now anyway (it lifts the time and volume gates)")
        if result.summary:
            out.say(f"  {result.summary}")

    cycle = _run(manager.dreaming.cycle(force=args.force, dry_run=args.dry_run, on_result=line_per_batch))
    results, lint = cycle.results, cycle.lint
    overall = _overall(results)
    left_out = _run(manager.vault_snapshot(parsed=False)).refused()  # loops, links out: the model's walk
    out.doc(
        {
            **overall.as_json(),
            "left_out": [{"path": rel, "reason": why} for rel, why in left_out],
            "reason": overall.reason,
            "dry_run": bool(args.dry_run),
            "diffs": dict(overall.diffs or {}) if args.dry_run else {},
            "runs": [{**r.as_json(), "reason": r.reason, "failed_attempt": r.failed_attempt} for r in results],
            "lint": None if lint is None else {
                "ok": bool(lint.ok), "pages_changed": list(lint.pages_changed),
                "findings": [f.as_json() for f in lint.findings],
            },
        }
    )
    for page in overall.pages_changed:
        out.say(f"  changed: {page}")
    for fact in overall.uncovered:
        out.say(f"  not consolidated: {fact['date']}  {_one_line(fact['text'], 100)}")
    for fact in overall.dropped:
        out.say(f"  dropped: {fact['date']}  {_one_line(fact['text'], 100)} ({fact['reason']})")
    if overall.dropped and not args.dry_run:
        out.say("  dropped facts stay in search until you agree: see `dropped`")
    if args.dry_run:
        for diff in (overall.diffs or {}).values():
            out.say(diff)
    if lint is not None:
        out.say(f"Lint: {count(len(lint.findings), 'finding')}{'' if lint.ok else ' (did not finish cleanly)'}.")
    out.say(f"Watermark: {overall.watermark or '(none)'}")
    for rel, why in left_out:
        out.warn(f"warning: left out of the dream: {rel}: {why}")
    failed = [r for r in results if r.failed_attempt or r.outcome == "failed"]  # every failed outcome exits 1
    for result in failed:
        out.warn(f"{PROG}: dream {outcome_words(result.outcome)}: {result.reason or result.summary}")
    if lint is not None and not lint.ok:
        out.warn(f"{PROG}: lint did not finish cleanly; no lint entry was written")
    return 1 if failed or (lint is not None and not lint.ok) else 0


def _overall(results: list[Any]) -> Any:
    """One record for a cycle: its dates, pages and final watermark; a failed attempt's outcome wins."""
    from dataclasses import replace

    failed = next((r for r in results if r.failed_attempt), None)
    worked = [r for r in results if r.outcome in ("productive", "skipped")]
    head = failed or next((r for r in results if r.outcome == "productive"), None) or (worked or results)[0]
    ran = [r for r in results if r.batch]
    return replace(
        head,
        batch=sorted({d for r in ran for d in r.batch}),
        watermark=results[-1].watermark if results[-1].watermark else head.watermark,
        pages_changed=sorted({p for r in results for p in r.pages_changed}),
        summary=" ".join(r.summary for r in worked if r.summary) if worked and not failed else head.summary,
        # A fact left uncovered is offered to every later batch of the cycle: list it once, as last seen.
        uncovered=list({(f["date"], f["text"]): f for r in results for f in r.uncovered}.values()),
        dropped=list({(f["date"], f["text"]): f for r in results for f in r.dropped}.values()),
    )


def cmd_lint(args: argparse.Namespace, out: Output) -> int:
    manager = _open(args)
    result = _run(manager.linting.run())
    findings = [{"kind": f.kind, "path": str(f.path), "detail": f.detail} for f in result.findings]
    out.doc({"findings": findings, "pages_changed": list(result.pages_changed), "ok": bool(result.ok)})
    if not findings:
        out.say("Lint: no findings.")
    for finding in findings:
        out.say(f"{finding['path']}: {finding['kind']}: {finding['detail']}")
    if not result.ok:
        out.warn(f"{PROG}: lint did not finish cleanly; no lint entry was written")
        return 1
    return 0


def cmd_promote(args: argparse.Namespace, out: Output) -> int:
    from suzent_desktop.core.engines.memory_md.promotion import PromotionError

    manager = _open(args)
    try:
        changes = _run(manager.promoting.run())
    except PromotionError as exc:
        raise CliError(str(exc)) from exc
    path = manager.layout.memory_md
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    out.doc({"memory_md": str(path), "changed": bool(changes.memory_md), "lines": len(text.splitlines()), "chars": len(text)})
    state = "rewritten" if changes.memory_md else "unchanged"
    out.say(f"MEMORY.md {state}: {path} ({len(text.splitlines())} lines, {len(text)} characters).")
    _report_errors(out, changes.errors)
    return 0


def cmd_doctor(args: argparse.Namespace, out: Output) -> int:
    from suzent_desktop.core.doctor import doctor_report

    report = doctor_report(home_of(args))
    problems, kept = report.problems, report.transcripts
    errors = [p for p in problems if p.severity == "error"]
    out.doc({"ok": not errors, "problems": [p.to_dict() for p in problems], "transcripts": kept})
    if kept is not None:
        out.say(f"Transcripts: {count(kept['turns'], 'turn')} over {count(kept['days'], 'day')}.")
    if not problems:
        out.say("No problems found.")
    for problem in problems:
        out.say(problem.format())
    if problems:
        warnings = sum(1 for p in problems if p.severity == "warning")
        out.say(f"{count(len(errors), 'error')}, {count(warnings, 'warning')}.")
    if errors:
        out.warn(f"{PROG}: doctor found {count(len(errors), 'error')}")
        return 1
    return 0


def cmd_mcp(args: argparse.Namespace, out: Output) -> int:
    """Serve until the client closes stdin (stdio) or the process is stopped (HTTP); stdout is the protocol's."""
    from suzent_desktop.core.manager import MemoryManager

    home = home_of(args)
    if args.read_only and not home.is_dir():
        raise CliError(f"{home}: no home folder here, and --read-only creates nothing")
    from suzent_desktop import mcp_http

    if (args.bind or args.token_file) and args.http is None:
        raise CliError("--bind and --token-file need --http PORT")
    bind = args.bind or "127.0.0.1"
    mcp_http.check_options(bind, args.token_file)
    token = mcp_http.read_token(args.token_file) if args.token_file else None
    manager = MemoryManager.open(home, bootstrap=not args.read_only)
    from suzent_desktop.mcp_server import serve

    serve(manager, read_only=args.read_only, http_port=args.http, bind=bind, token=token)
    return 0


COMMANDS: dict[str, Callable[[argparse.Namespace, Output], int]] = {
    "gui": cli_window.cmd_gui,
    "open": cli_window.cmd_open,
    "demo": cli_window.cmd_demo,
    "remember": cmd_remember,
    "capture": cmd_capture,
    "search": cmd_search,
    "forget": cmd_forget,
    "reindex": cmd_reindex,
    "status": cmd_status,
    "dream": cmd_dream,
    "dropped": cmd_dropped,
    "lint": cmd_lint,
    "promote": cmd_promote,
    "doctor": cmd_doctor,
    "mcp": cmd_mcp,
    "backlinks": lambda args, out: cli_vault.cmd_backlinks(args, out, _open),
    "tags": lambda args, out: cli_vault.cmd_tags(args, out, _open),
    "why": lambda args, out: cli_review.cmd_why(args, out, _open),
    "review": lambda args, out: cli_review.cmd_review(args, out, _open),
}


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
