"""Peak memory of `reindex` and `search` beside one large page: bounded by the page size limit.

    python bench/large_page.py                   # pages of 7.5 (under the limit), 50 and 300 MB
    python bench/large_page.py --mb 50 --code /path/to/other/checkout

Each size runs in a fresh home: one page of plain paragraphs of about that many MB is written
to ``2_Wiki/``, then ``reindex`` and ``search`` run as separate processes (the hashing embedder),
and the peak resident memory of each process is printed with what it said about the page. A
page over the limit (``core/files/disk/regular.py``, 8 MiB) is named and never read, so the figure is
the app's own. ``--code`` measures another checkout (the code before a change) the same way.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PARAGRAPH = ("Maria planned the garden beds along the south fence, with tomatoes, basil and three kinds of beans; "
             "she wrote down when each was sown and how the soil drained after the storm. ") * 3


def write_page(path: Path, megabytes: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    target = int(megabytes * 1024 * 1024)
    block = "".join(f"## Day {i}\n\n{PARAGRAPH}\n\n" for i in range(200)).encode()
    with path.open("wb") as out:
        written = 0
        while written < target:
            out.write(block)
            written += len(block)


def run(code: Path, home: Path, *args: str) -> tuple[float, str]:
    """Peak RSS (MB) of one command in a fresh process, and its last line of output."""
    env = {**os.environ, "PYTHONPATH": str(code), "SUZENT_HOME": str(home), "SUZENT_EMBEDDING_MODEL": "hashing",
           "SUZENT_LOCAL_CONFIG": str(home.parent / "device.toml")}
    proc = subprocess.Popen([sys.executable, "-m", "suzent_desktop", *args], env=env, cwd=home.parent,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = proc.stdout.read() if proc.stdout else ""
    _pid, _status, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    lines = [line for line in out.splitlines() if "Wiki" in line or "row" in line or "result" in line.lower()]
    return usage.ru_maxrss / 1024, (lines[-1] if lines else out.strip()[-160:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, nargs="+", default=[7.5, 50, 300])
    parser.add_argument("--code", type=Path, default=REPO, help="the checkout to measure (default: this one)")
    args = parser.parse_args()
    print(f"code: {args.code}")
    print(f"{'page MB':>8} {'command':>8} {'peak RSS MB':>12}  said")
    for megabytes in args.mb:
        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp) / "home"
            run(args.code, home, "lint")  # a writing command: the home and its vault are made
            write_page(home / "notebook" / "2_Wiki" / "Garden.md", megabytes)
            for command in (("reindex",), ("search", "garden beds")):
                peak, said = run(args.code, home, *command)
                print(f"{megabytes:>8.1f} {command[0]:>8} {peak:>12.0f}  {said[:110]}", flush=True)


if __name__ == "__main__":
    main()
