"""The vault graph: nodes and edges from the vault model, filters, the local graph, the layout's rounds."""

from __future__ import annotations

import itertools

import pytest

from suzent_desktop.core.files.paths.layout import Layout
from suzent_desktop.core.home import bootstrap_home
from suzent_desktop.core.vault.graph import Graph, GraphFilter, build_graph, filtered, layout_rounds, local
from suzent_desktop.core.vault.model import Vault

PAGES = {
    "2_Wiki/Kyoto.md": "---\ntags: [trip]\n---\n# Kyoto\nSee [[Tokyo]] and [[Nowhere]].\n",
    "2_Wiki/Tokyo.md": "# Tokyo\nBack to [[Kyoto#Temples]], ![[map.png]], [[#Top]] #trip/japan\n",
    "2_Wiki/Osaka.md": "# Osaka\nNear [[Kyoto]]. [[Nara]]\n",
    "2_Wiki/Nara.md": "# Nara\nDeer.\n",
    "0_Inbox/Alone.md": "Nothing links here. `[[Kyoto]]` is code.\n",
    "4_Assets/map.png": "png",
}


@pytest.fixture
def graph(layout: Layout) -> Graph:
    bootstrap_home(layout)
    for rel, text in PAGES.items():
        path = layout.notebook_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return build_graph(Vault(layout).snapshot())


def names(graph: Graph) -> set[str]:
    return {node.title for node in graph.nodes}


def edges(graph: Graph) -> set[frozenset[str]]:
    return {frozenset((graph.nodes[a].title, graph.nodes[b].title)) for a, b in graph.edges}


def test_nodes_are_pages_and_attachments_and_edges_are_resolved_links(graph: Graph) -> None:
    assert {"Kyoto", "Tokyo", "Osaka", "Nara", "Alone", "map.png"} <= names(graph)
    mine = {frozenset(pair) for pair in (("Kyoto", "Tokyo"), ("Tokyo", "map.png"), ("Osaka", "Kyoto"), ("Osaka", "Nara"))}
    assert mine <= edges(graph)  # Kyoto<->Tokyo once, though both link; no edge for a link into the page itself
    assert not any("Alone" in pair for pair in edges(graph))  # a link in code is no link
    kyoto = next(node for node in graph.nodes if node.title == "Kyoto")
    assert graph.index_of(kyoto.path) == graph.nodes.index(kyoto)
    assert kyoto.folder == "2_Wiki" and kyoto.tags == ("trip",)


def test_filters_hide_attachments_orphans_other_folders_and_untagged_pages(graph: Graph) -> None:
    assert "map.png" not in names(filtered(graph, GraphFilter()))
    assert "map.png" in names(filtered(graph, GraphFilter(attachments=True)))
    assert "Alone" in names(filtered(graph, GraphFilter()))
    assert "Alone" not in names(filtered(graph, GraphFilter(orphans=False)))
    assert names(filtered(graph, GraphFilter(folder="2_Wiki"))) == {"Kyoto", "Tokyo", "Osaka", "Nara"}
    tagged = filtered(graph, GraphFilter(tag="#Trip"))  # any case, nested tags count for their parent
    assert names(tagged) == {"Kyoto", "Tokyo"} and edges(tagged) == {frozenset(("Kyoto", "Tokyo"))}


def test_the_local_graph_holds_the_neighbours_to_the_depth_asked(graph: Graph) -> None:
    nara = next(node for node in graph.nodes if node.title == "Nara")
    assert names(local(graph, nara.key, 1)) == {"Nara", "Osaka"}
    assert names(local(graph, nara.key, 2)) == {"Nara", "Osaka", "Kyoto"}
    assert names(local(graph, nara.key, 3)) == {"Nara", "Osaka", "Kyoto", "Tokyo"}
    assert "map.png" in names(local(graph, nara.key, 4))
    assert local(graph, nara.key, 2).nodes[0].title == "Nara"  # the centre first
    assert local(graph, "/not/in/the/vault.md", 2).nodes == ()


def test_the_layout_comes_in_rounds_that_settle_and_keep_a_seeded_shape(graph: Graph) -> None:
    rounds = list(layout_rounds(graph, iterations=60))
    assert len(rounds) > 1 and all(len(r) == len(graph.nodes) for r in rounds)
    final = rounds[-1]
    seed = {node.key: final[i] for i, node in enumerate(graph.nodes)}
    again = list(layout_rounds(graph, seed=seed, iterations=60))
    moved = max(abs(a[0] - b[0]) + abs(a[1] - b[1]) for a, b in zip(final, again[-1], strict=True))
    spread = max(x for x, _y in final) - min(x for x, _y in final)
    assert moved < spread  # a refreshed graph keeps its shape rather than starting over
    assert list(layout_rounds(Graph())) == [[]]


def test_a_layout_round_runs_at_most_twice_the_iterations_of_the_last(graph: Graph, monkeypatch) -> None:
    import igraph

    steps: list[int] = []
    real = igraph.GraphBase.layout_fruchterman_reingold
    monkeypatch.setattr(igraph.GraphBase, "layout_fruchterman_reingold",
                        lambda self, **kw: (steps.append(kw["niter"]), real(self, **kw))[1])
    list(layout_rounds(graph, iterations=300))  # a few nodes: each round is far quicker than its budget
    assert sum(steps) == 300 and len(steps) > 4
    assert all(later <= 2 * earlier for earlier, later in itertools.pairwise(steps))  # no long GIL hold
