"""The editorial lint pass: an audit of the notebook that reports, and never edits pages.

Findings:
  * ``contradiction``: two current bullets set one subject to different values
    (``User works at A`` and ``User works at B``, neither struck out under History);
  * ``broken_link``: a link (wikilink, embed or markdown link, outside code) that names no
    file of the vault under the one resolver's rules (Obsidian's: attachments count);
  * ``orphan``: a content page no other content page links to by any link form
    (``index.md`` lists every page, so its links do not count);
  * ``stale``: frontmatter ``stale_after`` is before today;
  * ``duplicate_page``: two pages with (nearly) the same text;
  * ``tombstone_paraphrase``: a paragraph or bullet whose text is, or closely rewords, a
    forgotten fact. Exact tombstones cannot catch a reworded copy (the design document
    says so); embedding similarity can.

``## [TODAY] lint`` with a one-line summary is appended to ``log.md`` only after a clean
pass; a pass that fails (an unreadable page, a failing embedder) writes nothing.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from suzent_desktop.core.engines.dream.model import Finding, LintResult
from suzent_desktop.core.files.disk.regular import read_page
from suzent_desktop.core.files.language.markdown import (
    Link,
    frontmatter,
    frontmatter_block,
    line_of,
    links,
    meta_text,
)
from suzent_desktop.core.files.records.tombstones import normalize
from suzent_desktop.core.vault.canvas import canvas_markdown
from suzent_desktop.core.vault.facts.fact_pages import (
    PageDoc,
    content_words,
    dup_norm,
    parse_bullet,
    subject_value,
)
from suzent_desktop.core.vault.links import VaultIndex
from suzent_desktop.core.vault.model import Kind, VaultSnapshot

if TYPE_CHECKING:
    from suzent_desktop.core.files.clock import Clock
    from suzent_desktop.core.files.paths.layout import Layout
    from suzent_desktop.core.files.records.tombstones import Tombstones
    from suzent_desktop.core.index.embedding import Embedder
    from suzent_desktop.core.vault.model import Vault
    from suzent_desktop.core.vault.notebook import Notebook


class Linting(Protocol):
    """The stores a lint pass reads (the Lint service, or a whole home): pages, tombstones, the embedder."""

    @property
    def layout(self) -> Layout: ...
    @property
    def clock(self) -> Clock: ...
    @property
    def notebook(self) -> Notebook: ...
    @property
    def embedder(self) -> Embedder: ...
    @property
    def tombstones(self) -> Tombstones: ...
    @property
    def vault(self) -> Vault: ...

# Cosine above which notebook text is reported as a rewording of a forgotten fact.
PARAPHRASE_THRESHOLD = 0.85
# Cosine above which two whole pages are reported as duplicates.
DUPLICATE_PAGE_THRESHOLD = 0.95
PAGE_EMBED_CHARS = 2000
MIN_PAGE_CHARS = 40


@dataclass
class _Page:
    rel: str
    text: str
    meta: dict[str, Any]
    body: str
    path: Path | None = None


def _load_pages(home: Linting, vault: VaultSnapshot) -> list[_Page]:
    nb = home.notebook
    pages: list[_Page] = []
    for path in vault.files(Kind.PAGE):
        text = read_page(path).decode("utf-8-sig", errors="replace")
        pages.append(_Page(nb.relative(path), text, frontmatter(text), frontmatter_block(text)[1], path))
    return pages


def _broken(page: _Page, index: VaultIndex, rel: str) -> tuple[list[Finding], set[Path]]:
    """Broken-link findings of one page (or board), and the files its links reach."""
    findings: list[Finding] = []
    reached: set[Path] = set()
    for link in links(page.text):
        if not link.target:
            continue  # [[#Heading]]: a place in the same page
        found = index.resolve_link(link, page.path)
        if found is None:
            written = page.text[link.start : link.end]
            findings.append(Finding("broken_link", rel, f"{written} (line {line_of(page.text, link.start)}) "
                                                        f"matches no {_what(link)} in the vault"))
        else:
            reached.add(found)
    return findings, reached


def _what(link: Link) -> str:
    return "page" if "." not in link.target.rsplit("/", 1)[-1] or link.target.lower().endswith(".md") else "file"


def _load_canvases(home: Linting, vault: VaultSnapshot) -> list[_Page]:
    """JSON Canvas boards as the markdown of their nodes: their links are checked and count."""
    nb = home.notebook
    boards: list[_Page] = []
    for path in vault.files(Kind.CANVAS):
        markdown = canvas_markdown(read_page(path).decode("utf-8", errors="replace"))
        boards.append(_Page(nb.relative(path), markdown, {}, markdown, path))
    return boards


def _link_findings(pages: list[_Page], index_page: _Page | None, index: VaultIndex,
                   boards: Sequence[_Page] = ()) -> list[Finding]:
    findings: list[Finding] = []
    inbound: Counter[Path] = Counter()
    for page in [*pages, *boards]:
        page_findings, reached = _broken(page, index, page.rel)
        findings += page_findings
        inbound.update(p for p in reached if p != page.path)
    if index_page is not None:
        findings += _broken(index_page, index, "index.md")[0]
    for page in pages:
        if page.path is not None and inbound[page.path] == 0:
            findings.append(Finding("orphan", page.rel, "no other page links here"))
    return findings


def _stale_findings(pages: list[_Page], today: dt.date) -> list[Finding]:
    findings: list[Finding] = []
    for page in pages:
        raw = meta_text(page.meta.get("stale_after")).strip()
        if not raw:
            continue
        try:
            when = dt.date.fromisoformat(raw[:10])
        except ValueError:
            findings.append(Finding("stale", page.rel, f"stale_after {raw!r} is not a YYYY-MM-DD date"))
            continue
        if when < today:
            findings.append(Finding("stale", page.rel, f"stale_after {when.isoformat()} has passed"))
    return findings


def _contradiction_findings(pages: list[_Page]) -> list[Finding]:
    by_key: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for page in pages:
        for bullet in PageDoc.parse(page.body).current_bullets():
            relation = subject_value(bullet.text)
            if relation is not None:
                by_key[relation.key].append((page.rel, relation.value, bullet.text))
    findings: list[Finding] = []
    for _key, entries in sorted(by_key.items()):
        values = {dup_norm(value) for _rel, value, _text in entries}
        if len(values) > 1:
            texts = "; ".join(f"'{text}' ({rel})" for rel, _value, text in entries)
            findings.append(Finding("contradiction", entries[-1][0], f"current facts disagree: {texts}"))
    return findings


def _units(page: _Page) -> list[str]:
    """Bullets and paragraphs of a page: the pieces a tombstone is compared with."""
    units: list[str] = []
    paragraph: list[str] = []
    for line in page.body.splitlines():
        stripped = line.strip()
        bullet = parse_bullet(line) if stripped else None
        if not stripped or stripped.startswith("#") or bullet is not None:
            if paragraph:
                units.append(" ".join(paragraph))
                paragraph = []
            if bullet is not None:
                units.append(bullet.text)
            continue
        paragraph.append(stripped)
    if paragraph:
        units.append(" ".join(paragraph))
    return [u for u in units if u.strip()]


def _other_entity(unit: str, stone: str) -> bool:
    """True when the page text names someone or something the forgotten fact does not, and
    vice versa (``met Rosa`` vs ``met Hiro``): similar wording about a different entity."""
    unit_only = content_words(unit) - content_words(stone)
    stone_only = content_words(stone) - content_words(unit)
    names = {w.lower() for w in re.findall(r"(?<!^)(?<![.!?] )\b[A-Z][\w'-]+", unit)}
    return bool(stone_only) and bool(unit_only & names)


def _embedding_findings(home: Linting, pages: list[_Page]) -> list[Finding]:
    findings: list[Finding] = []
    embed = home.embedder.embed
    # duplicate pages: pairs above the threshold, found with one matrix product
    bodies = [(p, " ".join(p.body.split())[:PAGE_EMBED_CHARS]) for p in pages]
    bodies = [(p, b) for p, b in bodies if len(b) >= MIN_PAGE_CHARS]
    if len(bodies) > 1:
        matrix = np.asarray(embed([b for _p, b in bodies]), dtype=np.float32)
        scores = np.triu(matrix @ matrix.T, k=1)
        norms = [normalize(b) for _p, b in bodies]
        pairs = {(int(i), int(j)) for i, j in np.argwhere(scores >= DUPLICATE_PAGE_THRESHOLD)}
        first_seen: dict[str, int] = {}
        for index, norm in enumerate(norms):
            if norm in first_seen:
                pairs.add((first_seen[norm], index))
            first_seen.setdefault(norm, index)
        for i, j in sorted(pairs):
            findings.append(Finding(
                "duplicate_page", bodies[j][0].rel,
                f"nearly the same text as {bodies[i][0].rel} (similarity {scores[i, j]:.2f})",
            ))
    # rewordings of forgotten facts
    stones = sorted(home.tombstones.contents())
    stone_set = set(stones)
    units = [(p.rel, u) for p in pages for u in _units(p)]
    if stones and units:
        stone_vecs = np.asarray(embed(stones), dtype=np.float32)
        unit_vecs = np.asarray(embed([u for _r, u in units]), dtype=np.float32)
        scores = unit_vecs @ stone_vecs.T
        for index, (rel, unit) in enumerate(units):
            best = int(np.argmax(scores[index]))
            score = float(scores[index, best])
            exact = normalize(unit) in stone_set
            if exact or (score >= PARAPHRASE_THRESHOLD and not _other_entity(unit, stones[best])):
                findings.append(Finding(
                    "tombstone_paraphrase", rel,
                    f"'{unit[:120]}' resembles forgotten '{stones[best][:120]}' (similarity {score:.2f})",
                ))
    return findings


def link_audit(home: Linting) -> list[Finding]:
    """Broken links and orphans alone (no embedder needed): what ``bench/lint_vault.py`` scores."""
    vault = home.vault.current(parsed=False)
    return _link_findings(_load_pages(home, vault), _index_page(home), vault.index, _load_canvases(home, vault))


def _index_page(home: Linting) -> _Page | None:
    index_md = home.layout.index_md
    if not index_md.is_file():
        return None
    text = read_page(index_md).decode("utf-8", errors="replace")
    return _Page("index.md", text, {}, text, index_md)


def audit(home: Linting) -> list[Finding]:
    """Every finding, blocking (run it in a worker thread)."""
    vault = home.vault.current(parsed=False)  # the files as they are now, from the home's one model
    pages = _load_pages(home, vault)
    findings = _link_findings(pages, _index_page(home), vault.index, _load_canvases(home, vault))
    findings += _stale_findings(pages, home.clock.today())
    findings += _contradiction_findings(pages)
    findings += _embedding_findings(home, pages)
    findings += [Finding("not_followed", rel, reason) for rel, reason in vault.refused()]  # the model's walk
    return findings


def summarize(findings: list[Finding]) -> str:
    if not findings:
        return "no findings"
    counts = Counter(f.kind for f in findings)
    return f"{len(findings)} findings: " + ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items()))


async def run_lint(home: Linting) -> LintResult:
    """One lint pass; appends ``## [TODAY] lint`` only when the audit completed."""
    try:
        findings = await asyncio.to_thread(audit, home)
    except Exception as exc:  # a failed pass reports and writes nothing
        return LintResult(findings=[Finding("error", "", f"lint failed: {type(exc).__name__}: {exc}")], ok=False)
    await asyncio.to_thread(home.notebook.append_lint, home.clock.today(), summarize(findings))
    return LintResult(findings=findings, pages_changed=[], ok=True)
