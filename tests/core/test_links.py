"""The one link resolver: Obsidian's rules on a small vault."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from suzent_desktop.core.files.disk.confine import Confinement
from suzent_desktop.core.files.language.markdown import links
from suzent_desktop.core.vault.links import VaultIndex, in_vault_walk, inside_vault, vault_files, walkable_rel


def _vault(root: Path, files: list[str]) -> VaultIndex:
    for rel in files:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
    return VaultIndex.scan(root)


FILES = ["Home.md", "a/Note.md", "b/Note.md", "b/Other.md", "Areas/Work.md", "Tools/Espresso.md",
         "2_Wiki/Concepts/Foo.md", "att/Engelbart.jpg", "att/lucide-cog.svg", "c/Deep/Note.md", "Note Two.md"]

# (target, linking page or None, expected vault path or None)
RESOLVE_ROWS = [
    ("Home", None, "Home.md"),
    ("home", None, "Home.md"),                      # case-insensitive
    ("Home.md", None, "Home.md"),                   # .md optional
    ("Tools/Espresso", None, "Tools/Espresso.md"),  # exact path
    ("Concepts/Foo", None, "2_Wiki/Concepts/Foo.md"),  # path ending
    ("Foo", None, "2_Wiki/Concepts/Foo.md"),        # unique name anywhere
    ("Engelbart.jpg", None, "att/Engelbart.jpg"),   # attachment, any extension
    ("lucide-cog.svg", "Home.md", "att/lucide-cog.svg"),
    ("Note", "b/Other.md", "b/Note.md"),            # same folder wins
    ("Note", "Home.md", "a/Note.md"),               # else shortest path, then alphabetical
    ("Deep/Note", None, "c/Deep/Note.md"),
    ("a/Note", "b/Other.md", "a/Note.md"),
    ("Note Two", None, "Note Two.md"),
    ("Missing", None, None),
    ("Engelbart", None, None),                      # an attachment needs its extension
    ("x/Foo", None, None),                          # a path ending must match whole folders
]


@pytest.mark.parametrize(("target", "source", "expected"), RESOLVE_ROWS, ids=[r[0] for r in RESOLVE_ROWS])
def test_resolution_rules(tmp_path: Path, target: str, source: str | None, expected: str | None) -> None:
    index = _vault(tmp_path, FILES)
    found = index.resolve(target, tmp_path / source if source else None)
    assert (found.relative_to(tmp_path).as_posix() if found else None) == expected


def test_markdown_links_are_relative_first(tmp_path: Path) -> None:
    index = _vault(tmp_path, FILES)
    (link,) = links("[x](../a/Note.md)")
    assert index.resolve_link(link, tmp_path / "b" / "Other.md") == tmp_path / "a" / "Note.md"
    (link,) = links("[x](Note.md)")
    assert index.resolve_link(link, tmp_path / "b" / "Other.md") == tmp_path / "b" / "Note.md"
    (link,) = links("[x](Tools/Espresso.md)")  # vault-absolute, as Obsidian writes them
    assert index.resolve_link(link, tmp_path / "b" / "Other.md") == tmp_path / "Tools" / "Espresso.md"


def test_link_target_for_is_the_shortest_unambiguous_name(tmp_path: Path) -> None:
    index = _vault(tmp_path, FILES)
    assert index.link_target_for(tmp_path / "Home.md") == "Home"
    assert index.link_target_for(tmp_path / "a" / "Note.md") == "a/Note"
    assert index.link_target_for(tmp_path / "c" / "Deep" / "Note.md") == "Deep/Note"
    assert index.link_target_for(tmp_path / "att" / "Engelbart.jpg") == "Engelbart.jpg"
    assert index.name_taken("work") and not index.name_taken("Play")


def test_symlinked_folders_are_followed_and_loops_cut(tmp_path: Path) -> None:
    vault, outside = tmp_path / "vault", tmp_path / "outside"
    (vault / "sub").mkdir(parents=True)
    outside.mkdir()
    (vault / "sub" / "In.md").write_text("x")
    (outside / "Linked.md").write_text("x")
    os.symlink(outside, vault / "ext")
    os.symlink(vault / "sub", vault / "sub" / "loop")  # a folder linking to itself
    allowed = Confinement.of(vault, outside=[str(outside)])  # the user allowed this link target
    files = sorted(p.relative_to(vault).as_posix() for p in vault_files(vault, allowed))
    assert files == ["ext/Linked.md", "sub/In.md"]
    assert [p.relative_to(vault).as_posix() for p in vault_files(vault)] == ["sub/In.md"]  # else not followed
    assert VaultIndex.scan(vault).resolve("Linked") is None
    index = VaultIndex.scan(vault, allowed)
    assert index.resolve("Linked") == vault / "ext" / "Linked.md"
    assert inside_vault(vault, vault / "sub" / "In.md") and not inside_vault(vault, vault / "ext" / "Linked.md")
    assert in_vault_walk(vault, vault / "ext" / "Linked.md")  # a link may reach what the walk lists


@pytest.mark.parametrize(
    ("rel", "walked"),
    [("a/b.md", True), ("ext/Linked.md", True), ("Meeting 10:30.md", True), ("../outside.md", False),
     ("a/../../outside.md", False), ("ext/../secret.md", False), ("/etc/hostname", False), ("C:/x.exe", False),
     ("..\\x.exe", False), (".obsidian/app.json", False), ("a/.hidden.md", False), ("", False)],
)
def test_a_link_reaches_only_what_the_vault_walk_lists(tmp_path: Path, rel: str, walked: bool) -> None:
    """No ``..`` step is folded away: through a symlinked folder ``ext/..`` is not the vault."""
    assert walkable_rel(rel) is walked
    assert in_vault_walk(tmp_path, tmp_path / rel) is (walked and bool(rel))


@pytest.mark.parametrize(
    ("old", "new"),
    [("b", "Archive/b"), ("b/Note.md", "b/Renamed.md"), ("Home.md", "a/Home.md"), ("c", "C2")],
)
def test_a_move_updates_the_index_as_a_rescan_would(tmp_path: Path, old: str, new: str) -> None:
    index = _vault(tmp_path, FILES)
    (tmp_path / new).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / old).rename(tmp_path / new)

    index.move(tmp_path / old, tmp_path / new)

    rescanned = VaultIndex.scan(tmp_path)
    assert index.files() == rescanned.files()
    assert index.resolve("Note", tmp_path / "Home.md") == rescanned.resolve("Note", tmp_path / "Home.md")


def test_removing_a_folder_drops_every_file_under_it_and_nothing_else(tmp_path: Path) -> None:
    index = _vault(tmp_path, FILES)
    index.remove_tree(tmp_path / "b")
    assert [index.rel(p) for p in index.files()] == sorted(f for f in FILES if not f.startswith("b/"))
    assert index.resolve("Other") is None and index.resolve("Note", tmp_path / "Home.md") == tmp_path / "a/Note.md"
    index.remove_tree(tmp_path / ".trash")  # hidden: never indexed, nothing to do
    index.remove_tree(tmp_path / "Home.md")
    assert index.resolve("Home") is None
