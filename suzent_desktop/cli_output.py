"""What every command shares: the program's name, its handled errors, its output (human text or
one JSON document) and which home a command works on. Kept apart from the parser so that each
command module can use them without importing the whole command line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

PROG = "suzent-desktop"


class CliError(Exception):
    """A handled failure: printed on stderr, exit code 1."""


class UsageError(Exception):
    """Bad usage argparse found (exit code 2), raised instead of exiting so that ``main`` can
    also answer it as the ``--json`` error document a script reads for every other failure."""

    def __init__(self, parser: argparse.ArgumentParser, message: str) -> None:
        super().__init__(f"{parser.prog}: {message}")
        self.parser = parser
        self.message = message


# -- output helpers ----------------------------------------------------------------
class Output:
    """Human text or one JSON document on stdout; diagnostics always on stderr."""

    def __init__(self, as_json: bool, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self.as_json = as_json
        self.out = out or sys.stdout
        self.err = err or sys.stderr

    def say(self, text: str = "") -> None:
        if not self.as_json:
            print(text, file=self.out)

    def doc(self, data: Any) -> None:
        if self.as_json:
            print(json.dumps(data, ensure_ascii=False, indent=2, default=str), file=self.out)

    def warn(self, text: str) -> None:
        print(text, file=self.err)


def home_of(args: argparse.Namespace) -> Path:
    if args.home is not None:
        return Path(args.home).expanduser()
    from suzent_desktop.core.files.paths.layout import default_home

    return default_home()
