"""The commands that open a window: ``gui``, ``open FOLDER`` and ``demo``. One window per home
(a second start hands over to the open one), and a clear line where no window can open."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from suzent_desktop.cli_output import PROG, CliError, Output, home_of


def cmd_gui(args: argparse.Namespace, out: Output) -> int:
    """Open the app. A problem found first is printed here and shown in a window too (the
    desktop entry has no terminal): a settings error offers to open the file or start with defaults."""
    home = home_of(args)
    if _handed_over(home, out):
        return 0
    try:
        prepared = _preflight(home)
    except ValueError as exc:  # SettingsError, LayoutError, NotebookError
        out.warn(f"{PROG}: error: {exc}")
        return _launch(home, problem=exc)
    return _launch(home, prepared=prepared)


def cmd_open(args: argparse.Namespace, out: Output) -> int:
    """Open a folder as a vault: its own home beside the default one, recorded as recent."""
    from suzent_desktop.core.files.paths.vaults import open_folder

    home = open_folder(args.path)
    out.doc({"vault": str(args.path.expanduser().resolve()), "home": str(home)})
    out.say(f"Opening {args.path} (home: {home})")
    args.home = home
    return cmd_gui(args, out)


def _handed_over(home: Path, out: Output) -> bool:
    """A window already open on ``home`` is brought to the front instead of starting a second
    process (two would run two indexers and two dream runners on one home)."""
    try:
        from suzent_desktop.ui.base.app import hand_over

        said = hand_over(home)
    except ImportError:  # no usable Qt: _launch says so
        return False
    if said:
        out.say(said)
    return said is not None


def _no_display() -> str | None:
    """Why no window can open here (a Linux or BSD session with no X11 or Wayland display), or None.

    Qt would abort the process with its own advice to reinstall it; the user needs to hear the cause."""
    if sys.platform in ("darwin", "win32") or os.environ.get("QT_QPA_PLATFORM", "").strip():
        return None
    if os.environ.get("DISPLAY", "").strip() or os.environ.get("WAYLAND_DISPLAY", "").strip():
        return None
    return "no display to open the window on (DISPLAY and WAYLAND_DISPLAY are unset)"


def _launch(home: Path, *, problem: Exception | None = None, prepared: Any = None) -> int:
    missing = _no_display()
    if missing:
        raise CliError(f"{missing}: start it from a desktop session, or use the command line "
                       f"(`{PROG} --home {shlex.quote(str(home))} status`, `search`, `mcp`)")
    try:  # Qt may be missing, or lack the system libraries it loads: say so in one line
        import PySide6.QtWidgets  # noqa: F401
    except ImportError as exc:
        raise CliError(f"the desktop app cannot start: {exc}") from exc
    from suzent_desktop.ui.base.app import run_app  # a failure in our own code shows its traceback
    if problem is not None:
        return int(run_app(home, problem=problem) or 0)
    if prepared is not None:  # the window opens on it: the home is not prepared a second time
        return int(run_app(home, prepared=prepared) or 0)
    return int(run_app(home) or 0)


def _preflight(home: Path) -> Any:
    """Fail with a named setting or path before a window opens, and bootstrap a new home
    (``PreparedHome``: the window opens on it)."""
    from suzent_desktop.core.operations import prepare_home

    return prepare_home(home)


def _demo_dir(args: argparse.Namespace) -> Path:
    if args.dir is not None:
        return Path(args.dir).expanduser()
    if args.home is not None:
        return Path(args.home).expanduser()
    env = os.environ.get("SUZENT_HOME", "").strip()
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("suzent-desktop-demo", appauthor=False))


def cmd_demo(args: argparse.Namespace, out: Output) -> int:
    from suzent_desktop.core.demo import DemoError, write_demo_home
    from suzent_desktop.core.files.clock import SYSTEM_CLOCK

    target = _demo_dir(args)
    try:
        report = write_demo_home(target, SYSTEM_CLOCK.today())
    except DemoError as exc:
        raise CliError(str(exc)) from exc
    out.doc({"home": str(report.home), "created": report.created, "kept": report.kept, "gui": not args.no_gui})
    if report.created:
        out.say(f"Demo home written to {report.home} ({report.created} files; {report.kept} existing files kept).")
    else:
        out.say(f"Demo home {report.home} already exists; your edits are kept.")
    quoted = shlex.quote(str(report.home))
    out.say(f"Try: {PROG} --home {quoted} status   |   {PROG} --home {quoted} search coffee")
    if args.no_gui or _handed_over(report.home, out):
        return 0
    return _launch(report.home)
