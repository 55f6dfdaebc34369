"""The app's one icon set, drawn as small SVG files in ``resources/icons`` (never emoji, which
show as empty boxes on a system without an emoji font)."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from PySide6.QtGui import QIcon, QImage

NAMES = frozenset({"attachment", "image", "warning", "close"})


def icon_path(name: str) -> str:
    return str(resources.files("suzent_desktop.resources").joinpath("icons", f"{name}.svg"))


@lru_cache(maxsize=32)
def icon(name: str) -> QIcon:
    return QIcon(icon_path(name))


def icon_image(name: str, size: int = 14) -> QImage | None:
    """The icon as an image for a rendered page; None for a name the set does not have."""
    if name not in NAMES:
        return None
    return icon(name).pixmap(size, size).toImage()
