"""Frontmatter properties typed as Obsidian types them, and written back one key at a time."""

from __future__ import annotations

import datetime as dt

from suzent_desktop.core.vault.properties import properties, property_kind, set_property

PAGE = (
    "---\n"
    "title: Beans   # a comment kept\n"
    "tags:\n"
    "  - garden\n"
    "  - food\n"
    "rating: 4\n"
    "done: false\n"
    "planted: 2026-04-01\n"
    "weird: {a: 1}\n"
    "---\n"
    "# Beans\n\nBody text.\n"
)


def test_each_value_gets_obsidians_type() -> None:
    props = dict(properties(PAGE))
    assert [property_kind(props[k]) for k in ("title", "tags", "rating", "done", "planted")] == [
        "text", "list", "number", "checkbox", "date"]
    assert property_kind("2026-04-01") == "date" and property_kind(2.5) == "number"
    assert [key for key, _ in properties(PAGE)] == ["title", "tags", "rating", "done", "planted", "weird"]


def test_setting_one_key_rewrites_only_its_lines() -> None:
    changed = set_property(PAGE, "done", True)
    assert changed == PAGE.replace("done: false\n", "done: true\n")
    changed = set_property(PAGE, "tags", ["garden", "food", "summer crop"])
    assert changed == PAGE.replace("  - food\n", "  - food\n  - summer crop\n")
    changed = set_property(PAGE, "planted", dt.date(2026, 4, 2))
    assert changed == PAGE.replace("2026-04-01", "2026-04-02")
    changed = set_property(PAGE, "rating", 4.5)
    assert changed == PAGE.replace("rating: 4\n", "rating: 4.5\n")
    changed = set_property(PAGE, "title", "Beans: runner")
    assert changed == PAGE.replace("title: Beans   # a comment kept\n", "title: 'Beans: runner'\n")
    assert set_property(PAGE, "title", "Beans") .endswith("---\n# Beans\n\nBody text.\n")


def test_a_new_key_goes_last_and_a_page_without_frontmatter_gets_one() -> None:
    assert set_property(PAGE, "status", "draft") == PAGE.replace("weird: {a: 1}\n", "weird: {a: 1}\nstatus: draft\n")
    assert set_property("# Page\n", "done", False) == "---\ndone: false\n---\n# Page\n"
    crlf = PAGE.replace("\n", "\r\n")
    assert set_property(crlf, "done", True) == crlf.replace("done: false\r\n", "done: true\r\n")


def test_renaming_a_key_keeps_its_value_its_place_and_every_other_line() -> None:
    from suzent_desktop.core.vault.properties import rename_property

    assert rename_property(PAGE, "title", "name") == PAGE.replace("title: Beans", "name: Beans")
    assert rename_property(PAGE, "tags", "labels") == PAGE.replace("tags:\n", "labels:\n")
    assert rename_property(PAGE, "rating", "stars: x") == PAGE.replace("rating: 4", "'stars: x': 4")
    import pytest

    with pytest.raises(ValueError, match="already has a property 'done'"):
        rename_property(PAGE, "rating", "done")


def test_deleting_a_key_removes_only_its_lines_and_the_last_one_the_block() -> None:
    from suzent_desktop.core.vault.properties import delete_property

    assert delete_property(PAGE, "tags") == PAGE.replace("tags:\n  - garden\n  - food\n", "")
    assert delete_property(PAGE, "weird") == PAGE.replace("weird: {a: 1}\n", "")
    assert delete_property(PAGE, "missing") == PAGE
    assert delete_property("---\ndone: true\n---\n# Page\n", "done") == "# Page\n"


def test_a_map_is_its_own_kind() -> None:
    assert property_kind({"a": 1}) == "map"
