"""Dependency-graph helpers over `{element: prerequisites}` mappings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

_WHITE, _GREY, _BLACK = 0, 1, 2  # unvisited, on the current path, finished


def find_cycle(requires: Mapping[str, Sequence[str]]) -> list[str] | None:
    """A cycle as a closed path `[a, b, …, a]`, or None when the graph is acyclic.

    Iterative depth-first search, so deep graphs cannot hit the recursion limit.
    """
    colour = dict.fromkeys(requires, _WHITE)
    for root in requires:
        if colour[root] != _WHITE:
            continue
        path: list[str] = [root]
        stack = [iter(requires.get(root, ()))]
        colour[root] = _GREY
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                colour[path.pop()] = _BLACK
                stack.pop()
                continue
            state = colour.get(nxt, _BLACK)  # unknown ids are reported elsewhere
            if state == _GREY:
                return [*path[path.index(nxt) :], nxt]
            if state == _WHITE:
                colour[nxt] = _GREY
                path.append(nxt)
                stack.append(iter(requires.get(nxt, ())))
    return None


def ancestors(requires: Mapping[str, Sequence[str]], start: str) -> list[str]:
    """Every transitive prerequisite of `start` (not `start` itself), in BFS order."""
    seen: dict[str, None] = {}
    frontier = list(requires.get(start, ()))
    while frontier:
        node = frontier.pop(0)
        if node in seen:
            continue
        seen[node] = None
        frontier.extend(requires.get(node, ()))
    return list(seen)


def topological_order(requires: Mapping[str, Sequence[str]]) -> list[str]:
    """Elements ordered so that prerequisites come before what needs them."""
    from graphlib import TopologicalSorter

    return list(TopologicalSorter({k: list(v) for k, v in requires.items()}).static_order())
