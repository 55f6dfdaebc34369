"""The vault as a graph of notes and the links between them, for the window's graph view.

Nodes are the vault's pages and boards (and, when asked, its attachments); an edge joins two
files when one links to or embeds the other, by the vault model's one resolver, so the graph
agrees with backlinks and ``[[`` completion. Everything here reads a :class:`VaultSnapshot` and
runs in a worker thread: building the graph of a 5,000-page vault and laying it out take far
longer than a GUI frame.

The layout is igraph's Fruchterman-Reingold force-directed layout (its grid variant, linear in
the number of nodes). igraph holds the GIL while it runs, so :func:`layout_rounds` runs it in
short rounds, each one seeded with the last, and yields the positions after each: the window
draws the graph settling, and its GUI thread never waits for more than one round.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from suzent_desktop.core.vault.model import BACKLINK_KINDS, Kind, VaultSnapshot
from suzent_desktop.core.vault.query import normalize_tag, tag_matches

NOTE_KINDS = BACKLINK_KINDS  # pages and boards: the program's own index/log/schema would link to everything
ROUND_BUDGET_S = 0.025  # one layout round holds the GIL about this long at most (the GUI thread waits for it)
LAYOUT_ITERATIONS = 300  # Fruchterman-Reingold iterations in all, spread over the rounds


@dataclass(frozen=True)
class GraphNode:
    """One file of the graph: its path, its name as shown, its folder and tags (for the filters)."""

    key: str  # the path as the vault model keeps it
    title: str
    folder: str  # vault-relative, posix, "" at the root
    tags: tuple[str, ...] = ()
    attachment: bool = False

    @property
    def path(self) -> Path:
        return Path(self.key)


@dataclass(frozen=True)
class Graph:
    """Nodes and undirected edges (pairs of node positions in ``nodes``, lower first, each once)."""

    nodes: tuple[GraphNode, ...] = ()
    edges: tuple[tuple[int, int], ...] = ()
    _where: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    def index_of(self, key: str | Path) -> int | None:
        """The position of a file's node, None when the graph does not show it."""
        if not self._where and self.nodes:
            self._where.update((node.key, i) for i, node in enumerate(self.nodes))
        return self._where.get(str(key))

    def degrees(self) -> list[int]:
        found = [0] * len(self.nodes)
        for a, b in self.edges:
            found[a] += 1
            found[b] += 1
        return found

    def neighbours(self) -> list[list[int]]:
        """Each node's neighbours, by position."""
        found: list[list[int]] = [[] for _ in self.nodes]
        for a, b in self.edges:
            found[a].append(b)
            found[b].append(a)
        return found

    def subgraph(self, keep: Sequence[int]) -> Graph:
        """The nodes at ``keep`` (in that order) and the edges between them."""
        where = {old: new for new, old in enumerate(keep)}
        edges = tuple((where[a], where[b]) if where[a] < where[b] else (where[b], where[a])
                      for a, b in self.edges if a in where and b in where)
        return Graph(tuple(self.nodes[i] for i in keep), edges)


@dataclass(frozen=True)
class GraphFilter:
    """What the graph view shows: Obsidian's filters (a folder, a tag, orphans, attachments)."""

    folder: str = ""  # vault-relative posix folder; its subfolders count; "" for the whole vault
    tag: str = ""  # pages carrying it or a tag nested under it; "" for every node
    orphans: bool = True  # nodes left without an edge
    attachments: bool = False  # images, PDFs and other files that pages link to or embed


def build_graph(snapshot: VaultSnapshot) -> Graph:
    """(worker thread) Every note and attachment of a parsed snapshot, joined where one links to the other."""
    root = os.path.join(str(snapshot.root), "")
    files = sorted(snapshot.entries(*NOTE_KINDS, Kind.ATTACHMENT), key=lambda f: f.key)
    nodes = tuple(_node(f.key, root, snapshot.tags_of(f.key), f.kind is Kind.ATTACHMENT) for f in files)
    where = {node.key: i for i, node in enumerate(nodes)}
    edges: set[tuple[int, int]] = set()
    for i, node in enumerate(nodes):
        if node.attachment:
            continue
        page = node.path
        for _line, link in snapshot.links(page):
            if not link.target:
                continue  # a link into the same page
            target = snapshot.resolve_link(link, page)
            j = where.get(str(target)) if target is not None else None
            if j is not None and j != i:
                edges.add((i, j) if i < j else (j, i))
    return Graph(nodes, tuple(sorted(edges)), where)


def _node(key: str, root: str, tags: tuple[str, ...], attachment: bool) -> GraphNode:
    rel = key[len(root):].replace(os.sep, "/")
    folder, _sep, name = rel.rpartition("/")
    title = name if attachment else name.rsplit(".", 1)[0]
    return GraphNode(key, title, folder, tags, attachment)


def filtered(graph: Graph, rule: GraphFilter) -> Graph:
    """The part of the graph a filter shows. Orphans are judged after the other filters: a note whose
    every neighbour is filtered out stands alone on screen, so it is hidden with the orphans."""
    folder = rule.folder.strip("/")
    inside = f"{folder}/"
    tag = normalize_tag(rule.tag) if rule.tag.strip() else ""
    keep = [
        i for i, node in enumerate(graph.nodes)
        if (rule.attachments or not node.attachment)
        and (not folder or node.folder == folder or node.folder.startswith(inside))
        and (not tag or any(tag_matches(tag, t) for t in node.tags))
    ]
    shown = graph.subgraph(keep)
    if rule.orphans:
        return shown
    degrees = shown.degrees()
    return shown.subgraph([i for i, d in enumerate(degrees) if d])


def local(graph: Graph, centre: str | Path, depth: int) -> Graph:
    """The page ``centre`` and the notes within ``depth`` links of it (either way), the centre first;
    an empty graph when the graph does not hold the page."""
    start = graph.index_of(centre)
    if start is None:
        return Graph()
    around = graph.neighbours()
    reached = {start: 0}
    queue = deque([start])
    while queue:
        at = queue.popleft()
        if reached[at] >= depth:
            continue
        for nxt in around[at]:
            if nxt not in reached:
                reached[nxt] = reached[at] + 1
                queue.append(nxt)
    return graph.subgraph(list(reached))


Positions = list[tuple[float, float]]


def layout_rounds(graph: Graph, seed: dict[str, tuple[float, float]] | None = None,
                  iterations: int = LAYOUT_ITERATIONS, budget_s: float = ROUND_BUDGET_S) -> Iterator[Positions]:
    """(worker thread) A force-directed layout of the graph, yielded after each short round.

    Nodes named in ``seed`` start where they stood (a refreshed graph keeps its shape), the others
    near a neighbour that has a place, or at random. A round runs as many iterations as fit in
    ``budget_s``, measured on the first; the temperature falls from round to round, so the graph
    settles rather than shakes. A graph seeded whole gets a tenth of the iterations.
    """
    import igraph

    count = len(graph.nodes)
    if count == 0:
        yield []
        return
    coords = _seeded(graph, seed or {})
    placed = sum(1 for node in graph.nodes if seed and node.key in seed)
    if placed == count:
        iterations = max(10, iterations // 10)
    solver = igraph.Graph(n=count, edges=list(graph.edges))
    hot = max(1.0, count ** 0.5 / 10) * (0.3 if placed == count else 1.0)
    done, step = 0, 5
    while done < iterations:
        step = min(step, iterations - done)
        temperature = hot * (1 - done / iterations)
        started = time.perf_counter()
        coords = _aligned(solver.layout_fruchterman_reingold(niter=step, seed=coords, start_temp=temperature,
                                                             grid=count > 1000).coords, coords)
        took = time.perf_counter() - started
        done += step
        yield [(x, y) for x, y in coords]
        step = max(1, min(100, int(step * budget_s / max(took, 1e-6))))


def _aligned(moved: list[list[float]], before: list[list[float]]) -> list[list[float]]:
    """``moved`` turned and shifted to lie over ``before`` (least squares).

    igraph returns its layout centred and turned to its own axes whatever the seed, so without
    this each round (and each refresh) would spin the whole drawing rather than nudge its nodes.
    """
    import numpy as np

    new, old = np.asarray(moved, dtype=float), np.asarray(before, dtype=float)
    if len(new) < 2:
        return old.tolist()
    new_mean, old_mean = new.mean(axis=0), old.mean(axis=0)
    left, _scale, right = np.linalg.svd((new - new_mean).T @ (old - old_mean))
    return ((new - new_mean) @ (left @ right) + old_mean).tolist()


def _seeded(graph: Graph, seed: dict[str, tuple[float, float]]) -> list[list[float]]:
    """Starting places: the seed's, else beside a placed neighbour, else spread on a square."""
    import random

    rng = random.Random(len(graph.nodes))
    side = max(1.0, len(graph.nodes) ** 0.5)
    coords: list[list[float] | None] = [list(seed[n.key]) if n.key in seed else None for n in graph.nodes]
    around = graph.neighbours()
    for i, place in enumerate(coords):
        if place is not None:
            continue
        near = next((coords[j] for j in around[i] if coords[j] is not None), None)
        if near is not None:
            coords[i] = [near[0] + rng.uniform(-1, 1), near[1] + rng.uniform(-1, 1)]
        else:
            coords[i] = [rng.uniform(-side, side), rng.uniform(-side, side)]
    return [c for c in coords if c is not None]
