"""How long the preview takes to re-render a page while the user types (GUI thread time).

    python bench/preview_render.py [--runs 10]

Builds a small vault in a temporary folder and times ``MarkdownRenderer.render`` on: a plain
300-paragraph page; a page with 20 note embeds that nest 3 deep with callouts, comments and
inline HTML, first render (every embedded page parsed) and re-render while typing (embeds
reused); and the same page after an embedded file changed (that branch re-parsed). Prints
milliseconds per render (median of the runs). Timings are of this machine at this moment:
on a shared machine run it twice and read the lower figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from suzent_desktop.core.vault.links import VaultIndex  # noqa: E402
from suzent_desktop.ui.reading.markdown_render import MarkdownRenderer, Vault  # noqa: E402


def build(root: Path) -> str:
    """20 pages that embed each other in a ring; returns the text of a page embedding all of them."""
    for number in range(20):
        following = (number + 1) % 20
        body = "".join(f"A paragraph of words with a [[N{following}]] link and **bold** text.\n\n" for _ in range(15))
        (root / f"N{number}.md").write_text(
            f"---\ntags: [bench]\n---\n# N{number}\n\n{body}> [!tip]- folded\n> body\n\n![[N{following}#N{following}]]\n"
        )
    return "# Big\n\n" + "".join(f"![[N{n}]]\n\nText %%a comment%% and <b>html</b>.\n\n" for n in range(20))


def timed(render, text: str, runs: int, before=None) -> float:  # noqa: ANN001 - callables
    samples = []
    for _ in range(runs):
        if before is not None:
            before()
        start = time.perf_counter()
        render(text)
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        big = build(root)
        index = VaultIndex.scan(root)
        renderer = MarkdownRenderer(vault=Vault(root, lambda link, source: index.resolve_link(link, source),
                                                lambda path: path.read_text(encoding="utf-8")))
        source = root / "Big.md"

        def render(text: str) -> str:
            return renderer.render(text, source)

        plain = "\n\n".join(f"Paragraph {n} with a [[N1]] link and **bold**." for n in range(300))
        print(f"plain page, 300 paragraphs:          {timed(render, plain, args.runs):7.1f} ms")
        print(f"20 nested embeds, first render:      {timed(render, big, args.runs, renderer.forget_embeds):7.1f} ms")
        print(f"20 nested embeds, while typing:      {timed(render, big, args.runs):7.1f} ms")
        counter = iter(range(1, 10_000))

        def touch() -> None:
            os.utime(root / "N5.md", ns=(next(counter), next(counter)))

        print(f"20 nested embeds, one file changed:  {timed(render, big, args.runs, touch):7.1f} ms")


if __name__ == "__main__":
    main()
