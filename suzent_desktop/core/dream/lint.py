"""The editorial lint pass: an audit of the notebook that reports, and never edits pages.

Findings:
  * ``contradiction``: two current bullets set one subject to different values
    (``User works at A`` and ``User works at B``, neither struck out under History);
  * ``broken_link``: a ``[[link]]`` that matches no page title or vault path;
  * ``orphan``: a content page no other content page links to (``index.md`` lists every
    page, so its links do not count);
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
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from suzent_desktop.core.dream.model import Finding, LintResult
from suzent_desktop.core.dream.pages import (
    PageDoc,
    content_words,
    dup_norm,
    link_keys,
    link_target_key,
    links,
    parse_bullet,
    split_frontmatter,
    subject_value,
)
from suzent_desktop.core.tombstones import normalize

if TYPE_CHECKING:
    from suzent_desktop.core.manager import MemoryManager

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
    meta: dict[str, str]
    body: str


def _load_pages(manager: MemoryManager) -> list[_Page]:
    nb = manager.notebook
    pages: list[_Page] = []
    for path in nb.content_pages():
        text = path.read_bytes().decode("utf-8", errors="replace")
        meta, body = split_frontmatter(text)
        pages.append(_Page(nb.relative(path), text, meta, body))
    return pages


def _link_findings(pages: list[_Page], index_text: str) -> list[Finding]:
    known: dict[str, str] = {}
    for page in pages:
        for key in link_keys(page.rel):
            known.setdefault(key, page.rel)
    findings: list[Finding] = []
    inbound: Counter[str] = Counter()
    for page in pages:
        for target in links(page.body):
            resolved = known.get(link_target_key(target))
            if resolved is None:
                findings.append(Finding("broken_link", page.rel, f"[[{target}]] matches no page"))
            elif resolved != page.rel:
                inbound[resolved] += 1
    for target in links(index_text):
        if link_target_key(target) not in known:
            findings.append(Finding("broken_link", "index.md", f"[[{target}]] matches no page"))
    for page in pages:
        if inbound[page.rel] == 0:
            findings.append(Finding("orphan", page.rel, "no other page links here"))
    return findings


def _stale_findings(pages: list[_Page], today: dt.date) -> list[Finding]:
    findings: list[Finding] = []
    for page in pages:
        raw = page.meta.get("stale_after", "").strip()
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


def _embedding_findings(manager: MemoryManager, pages: list[_Page]) -> list[Finding]:
    findings: list[Finding] = []
    embed = manager.embedder.embed
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
    stones = sorted(manager.tombstones.contents())
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


def audit(manager: MemoryManager) -> list[Finding]:
    """Every finding, blocking (run it in a worker thread)."""
    pages = _load_pages(manager)
    index_md = manager.layout.index_md
    index_text = index_md.read_bytes().decode("utf-8", errors="replace") if index_md.is_file() else ""
    findings = _link_findings(pages, index_text)
    findings += _stale_findings(pages, manager.clock.today())
    findings += _contradiction_findings(pages)
    findings += _embedding_findings(manager, pages)
    return findings


def summarize(findings: list[Finding]) -> str:
    if not findings:
        return "no findings"
    counts = Counter(f.kind for f in findings)
    return f"{len(findings)} findings: " + ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items()))


async def run_lint(manager: MemoryManager) -> LintResult:
    """One lint pass; appends ``## [TODAY] lint`` only when the audit completed."""
    try:
        findings = await asyncio.to_thread(audit, manager)
    except Exception as exc:  # a failed pass reports and writes nothing
        return LintResult(findings=[Finding("error", "", f"lint failed: {type(exc).__name__}: {exc}")], ok=False)
    await asyncio.to_thread(manager.notebook.append_lint, manager.clock.today(), summarize(findings))
    return LintResult(findings=findings, pages_changed=[], ok=True)
