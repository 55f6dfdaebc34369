"""Search operators: what a query asks besides its words, parsed in one place.

The command line, the Search pane and the MCP tool all pass the text a person typed; this
module splits it the way Obsidian's search does:

* ``tag:travel`` (or ``tag:#travel``): pages carrying the tag, in their frontmatter or inline;
  a nested tag counts for its parents (``tag:trip`` matches ``#trip/japan``);
* ``path:notes/2026``: pages whose path (inside the vault, or the memory folder) contains it;
* ``"exact phrase"``: hits whose text holds the phrase (its words also rank the hits);
* ``-term``, ``-"a phrase"``, ``-tag:x``, ``-path:x``: the opposite of each;
* every other word goes to the hybrid search.

Matching is case-insensitive. Operators combine with AND, like words in Obsidian. A query of
operators only (``tag:travel``) has nothing to rank by and lists the matching pages instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_TOKEN_RE = re.compile(r'(?P<neg>-?)(?:(?P<key>[A-Za-z]+):)?(?:"(?P<quoted>[^"]*)(?:"|$)|(?P<bare>\S+))')
OPERATORS = frozenset({"tag", "path"})
# Quotes a Chinese, Japanese or Korean keyboard types ("“日记”", 「日記」, 『…』, full-width ＂):
# each marks a phrase as ``"`` does.
_QUOTES = str.maketrans({c: '"' for c in "“”「」『』＂"})


@dataclass(frozen=True)
class SearchQuery:
    """A parsed query: the words to rank by, and the filters every hit must pass."""

    words: str = ""  # plain words and phrases, for the hybrid search's ranking
    phrases: tuple[str, ...] = ()  # the hit's text holds each
    tags: tuple[str, ...] = ()  # the hit's page carries each (or a tag nested under it)
    paths: tuple[str, ...] = ()  # the hit's path contains each
    without: tuple[str, ...] = ()  # the hit's text holds none of these (``-term``, ``-"phrase"``)
    without_tags: tuple[str, ...] = ()
    without_paths: tuple[str, ...] = ()

    @property
    def has_filters(self) -> bool:
        return bool(self.phrases or self.without or self.has_file_filters)

    @property
    def has_file_filters(self) -> bool:
        """Filters decided per file (tags and paths) rather than per hit."""
        return bool(self.tags or self.paths or self.without_tags or self.without_paths)

    @property
    def operators_only(self) -> bool:
        """Nothing to rank by: the matching pages are listed."""
        return not self.words.strip() and self.has_filters


def parse_query(text: str) -> SearchQuery:
    """Split a typed query into words and operators; anything not an operator is a word.

    ``key:value`` with an unknown key (``10:30``, ``note:``) stays a word, as does a lone ``-``
    or a word with a hyphen inside it (``e-mail``). An unclosed quote runs to the end.
    """
    text = text.translate(_QUOTES)
    words: list[str] = []
    found: dict[str, list[str]] = {name: [] for name in
                                   ("phrases", "tags", "paths", "without", "without_tags", "without_paths")}
    for match in _TOKEN_RE.finditer(text):
        negated = bool(match.group("neg"))
        key = (match.group("key") or "").lower()
        quoted = match.group("quoted")
        value = (quoted if quoted is not None else match.group("bare") or "").strip()
        if key and key not in OPERATORS:
            value = f"{match.group('key')}:{value}" if value else f"{match.group('key')}:"
            key = ""
        if not value:
            continue  # ``""`` or ``-""``: nothing to look for
        if key == "tag":
            tag = normalize_tag(value)
            if tag:
                found["without_tags" if negated else "tags"].append(tag)
        elif key == "path":
            found["without_paths" if negated else "paths"].append(_path_part(value))
        elif negated:
            found["without"].append(value.lower())
        elif quoted is not None:
            found["phrases"].append(value.lower())
            words.append(value)
        else:
            words.append(value)
    return SearchQuery(words=" ".join(words), **{k: tuple(dict.fromkeys(v)) for k, v in found.items()})


def normalize_tag(tag: str) -> str:
    """A tag as compared: no leading ``#``, no trailing ``/``, lower case (Obsidian ignores case)."""
    return tag.strip().lstrip("#").strip("/").lower()


def tag_matches(wanted: str, tag: str) -> bool:
    """``tag:a`` matches ``#a`` and every tag nested under it (``#a/b``), never ``#ab``."""
    tag = normalize_tag(tag)
    return tag == wanted or tag.startswith(wanted + "/")


def _path_part(value: str) -> str:
    return value.replace("\\", "/").lower()


def path_matches(wanted: str, relative_path: str) -> bool:
    """The file's path (inside its folder, with ``/``) contains the wanted part, ignoring case."""
    return wanted in relative_path.replace("\\", "/").lower()


def file_passes(query: SearchQuery, relative_path: str, file_tags: Sequence[str]) -> bool:
    """Whether a file's rows may be hits: every ``tag:``/``path:`` holds and no ``-tag:``/``-path:`` does."""
    if not all(any(tag_matches(want, tag) for tag in file_tags) for want in query.tags):
        return False
    if any(any(tag_matches(want, tag) for tag in file_tags) for want in query.without_tags):
        return False
    if not all(path_matches(want, relative_path) for want in query.paths):
        return False
    return not any(path_matches(want, relative_path) for want in query.without_paths)


def text_passes(query: SearchQuery, text: str) -> bool:
    """Whether a hit's own text holds every phrase and none of the excluded terms (substring, any case)."""
    lowered = text.lower()
    return all(p in lowered for p in query.phrases) and not any(w in lowered for w in query.without)
