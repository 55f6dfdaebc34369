"""Markdown pages → chunks for the index.

A chunk is what one index row holds: a few paragraphs of one heading section, with the
heading path kept alongside so a hit can say where it came from. Tombstoned paragraphs
(and tombstoned list items) are dropped *before* paragraphs are merged, so forgetting
one paragraph never drags its neighbours out of the index, and the neighbours never keep
the forgotten text alive.

Fact pages (mostly bullet lists, as the dream writes ``3_Personal/`` and MEMORY.md, or any page
with a dated, struck-through or History bullet) are chunked one bullet per row, so a hit is one fact with its own dates, and a bullet that is
struck through or stands under a ``History`` heading is marked superseded. Prose pages
keep paragraph chunks.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from suzent_desktop.core.files.language.markdown import FenceTracker, frontmatter_lines, only_links
from suzent_desktop.core.files.records.tombstones import normalize
from suzent_desktop.core.index.ranking.terms import content_stems
from suzent_desktop.core.vault.facts.boilerplate import is_boilerplate
from suzent_desktop.core.vault.facts.fact_bullets import in_history, item_fact, list_item_text
from suzent_desktop.core.vault.forgotten import Forgotten, item_variants

MAX_CHUNK_CHARS = 1200  # a single paragraph longer than this is split at sentence ends
MERGE_CHUNK_CHARS = 800  # small paragraphs of one section are merged up to this size

_HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_SENTENCE_END_RE = re.compile(r"(?<=[.!?…。！？])\s+|(?<=[.!?…。！？][\"')\]])\s+")
FACT_PAGE_SHARE = 0.5  # a page whose text lines are more than this share list items is a fact page
_NON_SPACE_RE = re.compile(r"\S")


@dataclass
class Chunk:
    """One index row's worth of a page. ``paragraphs`` are the whole source paragraphs it holds.

    A paragraph too long for one row is split into pieces; each piece lists only its own text
    (so the work per page stays proportional to its size) and shares ``whole``, the normalized
    paragraph it came from, so forgetting that paragraph still finds every piece.
    """

    text: str
    heading: str | None
    line: int  # 1-based line of the chunk's first paragraph in the original file
    paragraphs: list[str] = field(default_factory=list)
    whole: str | None = None
    dates: list[str] = field(default_factory=list)  # a bullet's provenance dates, as written
    until: str | None = None  # "(…, until DATE)": when the fact stopped being true
    superseded: bool = False  # struck through, or under a History heading
    fact: bool = False  # a fact page's bullet, a row of its own

    @property
    def date(self) -> str | None:
        """The fact's own source date (its latest provenance date), not the file's."""
        return max(self.dates) if self.dates else None

    @property
    def source_text(self) -> str:
        """The chunk as written (a bullet keeps its marker, strike-through and dates): it names the row."""
        return "\n\n".join(self.paragraphs) if self.paragraphs else self.text

    def norms(self) -> list[str]:
        """Normalized paragraphs and list items, so ``forget`` can find this chunk by any of them."""
        result: list[str] = [self.whole] if self.whole else []
        for paragraph in self.paragraphs:
            result.append(normalize(paragraph))
            for line in paragraph.splitlines():
                item = list_item_text(line)
                if item is not None:
                    result.extend(normalize(v) for v in item_variants(item))
        return list(dict.fromkeys(n for n in result if n))

    def units(self) -> list[str]:
        """What forgetting this chunk means: each of its paragraphs or list items, on its own."""
        return list(dict.fromkeys(u for paragraph in self.paragraphs for u in paragraph_units(paragraph)))


@dataclass
class _Paragraph:
    text: str
    line: int
    heading: str | None
    fence: bool = False


def paragraph_units(paragraph: str) -> list[str]:
    """The pieces a tombstone can name in one paragraph: each item of a plain list, else the paragraph.

    A list item is named by its bare fact (no provenance dates, no strike-through), the form
    a daily log and every later rewording of the page's dates share.
    """
    lines = [ln for ln in paragraph.split("\n") if ln.strip()]
    items = [list_item_text(ln) for ln in lines]
    if not lines or any(item is None for item in items) or FenceTracker().feed(lines[0]):
        return [paragraph.strip("\n")] if paragraph.strip() else []
    units = [item_variants(item)[-1].strip() or item.strip() for item in items if item is not None]
    return [u for u in units if u]


def text_units(text: str) -> list[str]:
    """The paragraphs and list items a piece of markdown (a search hit, typed text) stands for."""
    lines = split_lines(text)
    return list(dict.fromkeys(u for p in _paragraphs(lines, 0) for u in paragraph_units(p.text)))


def paragraph_spans(text: str) -> list[tuple[int, str]]:
    """Each paragraph of a page (frontmatter skipped) with its 1-based first line; it spans its own lines."""
    lines = split_lines(text)
    return [(p.line, p.text) for p in _paragraphs(lines, frontmatter_lines("\n".join(lines)))]


def split_lines(text: str) -> list[str]:
    """Lines without terminators; CRLF, CR and LF all count, so Windows files split into paragraphs."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _paragraphs(lines: list[str], first: int) -> list[_Paragraph]:
    out: list[_Paragraph] = []
    headings: list[tuple[int, str]] = []
    buffer: list[str] = []
    start = 0
    fences = FenceTracker()

    def heading_path() -> str | None:
        return " > ".join(title for _, title in headings) or None

    def flush() -> None:
        nonlocal buffer
        text = "\n".join(buffer).strip("\n")
        if text.strip():
            out.append(_Paragraph(text, start, heading_path(), fence=False))
        buffer = []

    for index in range(first, len(lines)):
        line = lines[index]
        number = index + 1
        if fences.open is not None:
            buffer.append(line)
            if fences.feed(line):  # the closing fence
                out.append(_Paragraph("\n".join(buffer), start, heading_path(), fence=True))
                buffer = []
            continue
        if fences.feed(line):  # an opening fence (CommonMark rules, shared with every reader)
            flush()
            buffer, start = [line], number
            continue
        heading = _HEADING_RE.match(line)
        if heading:
            flush()
            level = len(heading.group(1))
            headings = [(lvl, title) for lvl, title in headings if lvl < level]
            if heading.group(2):
                headings.append((level, heading.group(2)))
            continue
        if not line.strip():
            flush()
            continue
        if not buffer:
            start = number
        buffer.append(line)
    if fences.open is not None and buffer:  # an unclosed fence runs to the end of the file
        out.append(_Paragraph("\n".join(buffer), start, heading_path(), fence=True))
    else:
        flush()
    return out


def _split_long(text: str, limit: int) -> list[str]:
    """Split at sentence ends into pieces ≤ limit; a sentence longer than limit is cut at spaces.

    Cuts move an index through the sentence rather than re-slicing what is left, so a page
    that is one endless sentence costs time proportional to its length.
    """
    pieces: list[str] = []
    current = ""
    for sentence in _SENTENCE_END_RE.split(text):
        if not sentence.strip():
            continue
        start = 0
        while len(sentence) - start > limit:
            cut = sentence.rfind(" ", start, start + limit)
            cut = cut if cut > start + limit // 2 else start + limit
            head = sentence[start:cut].rstrip()
            rest = _NON_SPACE_RE.search(sentence, cut)
            start = rest.start() if rest else len(sentence)
            if current:
                pieces.append(current)
                current = ""
            pieces.append(head)
        tail = sentence[start:]
        if not tail:
            continue
        if current and len(current) + 1 + len(tail) > limit:
            pieces.append(current)
            current = tail
        else:
            current = f"{current} {tail}" if current else tail
    if current:
        pieces.append(current)
    return pieces


def _split_list(paragraph: _Paragraph, limit: int) -> list[tuple[str, int]]:
    """A long list cut between its lines into pieces ≤ limit, each with the line it starts on.

    Items stay whole (a line longer than ``limit`` is cut like a long sentence), so a hit
    points at the right line and a forgotten item names only the piece that holds it.
    """
    pieces: list[tuple[str, int]] = []
    current: list[str] = []
    size, start = 0, paragraph.line
    for offset, line in enumerate(paragraph.text.split("\n")):
        number = paragraph.line + offset
        if len(line) > limit:
            if current:
                pieces.append(("\n".join(current), start))
                current, size = [], 0
            pieces.extend((piece, number) for piece in _split_long(line, limit))
            continue
        if current and size + 1 + len(line) > limit:
            pieces.append(("\n".join(current), start))
            current, size = [], 0
        if not current:
            start = number
        current.append(line)
        size += len(line) + (1 if size else 0)
    if current:
        pieces.append(("\n".join(current), start))
    return pieces


def _pieces(paragraph: _Paragraph, limit: int) -> list[tuple[str, int]]:
    if list_item_text(paragraph.text.split("\n", 1)[0]) is not None:
        return _split_list(paragraph, limit)
    return [(piece, paragraph.line) for piece in _split_long(paragraph.text, limit)]


def _dead_line(line: str, forgotten: Forgotten) -> bool:
    return list_item_text(line) is not None and forgotten.holds(line)


def _drop_tombstoned(paragraph: _Paragraph, forgotten: Forgotten) -> _Paragraph | None:
    """None when the paragraph is forgotten; otherwise the paragraph minus its forgotten list items
    (taken first: an item holding forgotten text takes itself out, not the list around it)."""
    if paragraph.fence:
        return None if forgotten.holds(paragraph.text) else paragraph
    lines = paragraph.text.split("\n")
    kept = [ln for ln in lines if not _dead_line(ln, forgotten)] if len(lines) > 1 else lines
    if not any(ln.strip() for ln in kept) or forgotten.holds("\n".join(kept)):
        return None  # (a paragraph forgotten whole, or after one of its items was)
    return paragraph if len(kept) == len(lines) else _Paragraph("\n".join(kept), paragraph.line, paragraph.heading)


def _is_fact_page(paragraphs: list[_Paragraph]) -> bool:
    """A page of facts (personal pages, MEMORY.md), whose bullets are rows of their own: mostly
    list items, or holding any item written as a consolidated fact (dated, struck through, under
    History). The second rule is for a page that is an intro line and one fact: as prose, the fact
    would merge with the intro, lose its date and could not be marked superseded on its own."""
    items = total = 0
    for paragraph in paragraphs:
        if paragraph.fence:
            continue
        history = in_history(paragraph.heading)
        for line in paragraph.text.split("\n"):
            if not line.strip():
                continue
            total += 1
            item = list_item_text(line)
            if item is None:
                continue
            fact = item_fact(item)
            if history or fact.dates or fact.until or fact.struck:
                return True
            items += 1
    return total > 0 and items > FACT_PAGE_SHARE * total


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _item_chunks(paragraph: _Paragraph, max_chars: int, forgotten: Forgotten) -> list[Chunk] | None:
    """One chunk per top-level list item (nested lines stay with their item); None for prose.

    Lines before the first item stay one prose chunk; a list of bare links is navigation
    and stays whole. Tombstoned items (and nested lines) are left out here, line numbers intact.
    """
    lines = paragraph.text.split("\n")
    starts = [i for i, ln in enumerate(lines) if list_item_text(ln) is not None]
    if not starts:
        return None
    top = min(_indent(lines[i]) for i in starts)
    starts = [i for i in starts if _indent(lines[i]) == top]
    if all(only_links(list_item_text(lines[i]) or "") for i in starts):
        return None
    chunks: list[Chunk] = []
    history = in_history(paragraph.heading)
    whole = normalize(paragraph.text)  # forgetting the whole list still finds every item's row
    lead = "\n".join(lines[: starts[0]])
    if lead.strip() and not forgotten.holds(lead):
        chunks.append(Chunk(lead, paragraph.heading, paragraph.line, [lead], whole=whole, superseded=history))
    for n, first in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        kept = [ln for ln in lines[first:end] if not _dead_line(ln, forgotten)]
        if not kept or kept[0] != lines[first] or forgotten.holds("\n".join(kept)):
            continue
        raw = "\n".join(kept)
        if len(kept) == 1 and only_links(list_item_text(lines[first]) or ""):
            continue  # "- [[Nate]]" among About Me's facts leads to a page; as a hit it answers nothing
        fact = item_fact(list_item_text(lines[first]) or "")
        rest = [ln.strip() for ln in kept[1:] if ln.strip()]
        text = "\n".join([fact.text, *rest]) if fact.text else "\n".join(rest)
        if not text.strip():
            continue
        superseded = fact.struck or fact.until is not None or history
        # A long item is cut like a long sentence; each piece lists only itself and names the item.
        long = len(text) > max_chars
        for piece in _split_long(text, max_chars) if long else [text]:
            chunks.append(
                Chunk(
                    piece,
                    paragraph.heading,
                    paragraph.line + first,
                    [piece] if long else [raw],
                    whole=normalize(raw) if long else whole,
                    dates=list(fact.dates),
                    until=fact.until,
                    superseded=superseded,
                    fact=True,
                )
            )
    return chunks


def chunk_markdown(
    text: str,
    *,
    tombstones: Iterable[str] = (),
    max_chars: int = MAX_CHUNK_CHARS,
    merge_chars: int = MERGE_CHUNK_CHARS,
    dead: list[str] | None = None,
) -> list[Chunk]:
    """Chunks of a markdown page, frontmatter stripped, forgotten paragraphs and items left out
    (``core/vault/forgotten.py``; named in ``dead``, when given: the page still holds forgotten text)."""
    forgotten = Forgotten.of(tombstones).within(text)
    if dead is not None:
        forgotten = forgotten.noting(dead)

    lines = split_lines(text)
    found = _paragraphs(lines, frontmatter_lines("\n".join(lines)))
    fact_page = _is_fact_page(found)
    chunks: list[Chunk] = []
    current: Chunk | None = None
    for original in found:
        paragraph = _drop_tombstoned(original, forgotten)
        if paragraph is None or (not original.fence and is_boilerplate(paragraph.text)):
            continue
        if fact_page and not original.fence and only_links(paragraph.text.strip()):
            continue  # the way back to a hub page: navigation, not a fact
        if fact_page and not original.fence:
            items = _item_chunks(original, max_chars, forgotten)  # from the original: lines keep their numbers
            if items is not None:
                current = None
                chunks.extend(items)
                continue
        history = in_history(paragraph.heading)
        if not paragraph.fence and len(paragraph.text) > max_chars:
            current = None
            whole = normalize(paragraph.text)
            for piece, line in _pieces(paragraph, max_chars):
                if not forgotten.holds(piece):
                    chunks.append(Chunk(piece, paragraph.heading, line, [piece], whole=whole, superseded=history))
            continue
        if (
            current is not None
            and current.heading == paragraph.heading
            and len(current.text) + 2 + len(paragraph.text) <= merge_chars
        ):
            current.text = f"{current.text}\n\n{paragraph.text}"
            current.paragraphs.append(paragraph.text)
            continue
        current = Chunk(paragraph.text, paragraph.heading, paragraph.line, [paragraph.text], superseded=history)
        chunks.append(current)
    return _without_echoes(chunks) if fact_page else chunks


def _without_echoes(chunks: list[Chunk]) -> list[Chunk]:
    """A fact page's prose row whose words all stand in one of its bullets is left out: a
    person page's first line ("Rosa is the user's brother.") repeats the fact it came from, and
    as a short row it outranked that fact, taking the page's place in the results."""
    def is_item(chunk: Chunk) -> bool:
        return list_item_text(chunk.paragraphs[0].lstrip().split("\n")[0]) is not None

    bullets = [content_stems(c.text) for c in chunks if is_item(c)]
    return [c for c in chunks if is_item(c) or not any(content_stems(c.text) <= b for b in bullets)]


def embedding_text(chunk: Chunk, page: str | None = None) -> str:
    """What the model sees: the heading path gives a short paragraph its context.

    A fact page's bullet under nothing but the page's own name (``# Hobbies`` atop Hobbies.md, a page the
    dream writes) is embedded as its own words: the name is the page's title, which search weighs on its
    own, and in the vector of a one-line fact it outweighed the fact's words, so after a dream a fact
    ranked below where its daily-log row had, which the same words found by their meaning.
    """
    heading = chunk.heading
    if heading and chunk.fact and page is not None and heading.strip().casefold() == page.strip().casefold():
        heading = None
    return f"{heading}\n{chunk.text}" if heading else chunk.text
