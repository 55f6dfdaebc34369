"""Template sentences the offline consolidator once wrote on the pages it created.

They say nothing about the user ("Facts about the user's places, consolidated from the daily
logs. Part of [[About Me]].") yet, indexed as rows, they ranked in the top hits for generic
questions. Pages written before the consolidator stopped writing them still hold them: the
chunker leaves them out of the index, and nothing else changes the user's files.
"""

from __future__ import annotations

import re

from suzent_desktop.core.files.language.markdown import only_links

OLD_INTRO_RE = re.compile(r"^Facts about the user's [^\n]{1,80}, consolidated from the daily logs\. Part of (?P<hub>.+)\.$")
OLD_HUB_INTRO = "What the notebook knows about the user, one page per subject."


def is_boilerplate(paragraph: str) -> bool:
    """Whether a paragraph is one of those template sentences (never a fact to search)."""
    text = " ".join(paragraph.split())
    match = OLD_INTRO_RE.match(text)
    return bool(match and only_links(match.group("hub"))) or text == OLD_HUB_INTRO
