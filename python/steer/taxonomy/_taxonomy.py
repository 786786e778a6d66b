"""The loaded taxonomy: lookup with 'did you mean', selection and subgraphs."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from steer._suggest import did_you_mean
from steer.errors import UnknownNameError
from steer.taxonomy._graph import ancestors, topological_order
from steer.taxonomy._model import Benchmark, Element, Module, Setting


@dataclass(frozen=True)
class Subgraph:
    """An element and its transitive prerequisites, with the edges among them."""

    root: str
    nodes: tuple[str, ...]
    edges: tuple[tuple[str, str], ...]  # (element, prerequisite)


class Taxonomy:
    """All settings, modules and elements of every loaded benchmark."""

    def __init__(
        self,
        settings: dict[str, Setting],
        modules: dict[str, Module],
        elements: dict[str, Element],
    ) -> None:
        self.settings = settings
        self.modules = modules
        self.elements = elements
        self._by_name: dict[str, str] = {}
        for e in elements.values():
            for name in (e.slug, *e.aliases):
                self._by_name[name] = e.id
        self._requires = {e.id: e.requires for e in elements.values()}

    def __len__(self) -> int:
        return len(self.elements)

    def __iter__(self) -> Iterator[Element]:
        return iter(self.elements.values())

    def __contains__(self, element_id: object) -> bool:
        return element_id in self.elements

    # --- lookup -------------------------------------------------------------

    def _short_forms(self, name: str) -> list[str]:
        if name.startswith("A."):
            return [f"steer-me.{name}"]
        return [f"steer.{name}", f"steer-me.{name}"]

    def find(self, name: str) -> Element | None:
        """The element called `name` (full id, short id like '3.1.b', or slug)."""
        if name in self.elements:
            return self.elements[name]
        if name in self._by_name:
            return self.elements[self._by_name[name]]
        for full in self._short_forms(name):
            if full in self.elements:
                return self.elements[full]
        return None

    def element(self, name: str) -> Element:
        """Like `find`, but raises `UnknownNameError` with suggestions."""
        found = self.find(name)
        if found is None:
            # Short ids ('3.1.b') are valid names too, so suggest among them.
            pool = [*self.elements, *self._by_name, *(e.label for e in self)]
            raise UnknownNameError("element", name, did_you_mean(name, pool))
        return found

    def elements_of(self, group_id: str) -> list[Element]:
        """Elements of a setting or module id (e.g. 'steer.3' or 'steer-me.1.2')."""
        if group_id in self.modules:
            return [e for e in self if e.module == group_id]
        if group_id in self.settings:
            return [e for e in self if e.setting == group_id]
        raise UnknownNameError(
            "setting or module", group_id, did_you_mean(group_id, [*self.settings, *self.modules])
        )

    def module_by_slug(self, slug: str) -> Module | None:
        return next((m for m in self.modules.values() if m.slug == slug), None)

    # --- selection ------------------------------------------------------------

    def select(self, selector: str) -> list[Element]:
        """Elements matched by a selector.

        A selector is an id, a short id or slug, a setting/module id (its
        elements), an id prefix on a dot boundary (`steer.3.1`, `3.1`), or a
        glob (`steer.2.*.a`, `3.1.*`, `steer-me.A.1*`). Prefixes and globs may
        leave out the benchmark, as short ids do.
        """
        forms = [selector, *self._short_forms(selector)]
        if any(ch in selector for ch in "*?["):
            return [e for e in self if any(fnmatch.fnmatchcase(e.id, f) for f in forms)]
        found = self.find(selector)
        if found is not None:
            return [found]
        return [e for e in self if any(e.id.startswith(f + ".") for f in forms)] or [
            e for e in self if e.module == selector or e.setting == selector
        ]

    def filter(
        self,
        *,
        benchmark: Benchmark | None = None,
        setting: str | None = None,
        grades: tuple[int, int] | None = None,
    ) -> list[Element]:
        """Elements of a benchmark / setting overlapping a grade range."""
        out: Iterable[Element] = self
        if benchmark:
            out = (e for e in out if e.benchmark == benchmark)
        if setting:
            wanted = self._setting_id(setting)
            out = (e for e in out if e.setting == wanted)
        if grades:
            lo, hi = grades
            out = (e for e in out if e.covers_grades(lo, hi))
        return list(out)

    def _setting_id(self, setting: str) -> str:
        if setting in self.settings:
            return setting
        for candidate in (f"steer.{setting}", f"steer-me.{setting}"):
            if candidate in self.settings:
                return candidate
        raise UnknownNameError("setting", setting, did_you_mean(setting, self.settings))

    # --- the dependency graph -------------------------------------------------

    def prerequisites(self, name: str) -> Subgraph:
        """The element and everything it transitively requires."""
        root = self.element(name).id
        nodes = (root, *ancestors(self._requires, root))
        edges = tuple((n, r) for n in nodes for r in self._requires[n])
        return Subgraph(root=root, nodes=nodes, edges=edges)

    def dependents(self, name: str) -> Subgraph:
        """The element and everything that transitively requires it."""
        root = self.element(name).id
        reverse: dict[str, list[str]] = {e: [] for e in self.elements}
        for e, reqs in self._requires.items():
            for r in reqs:
                reverse[r].append(e)
        nodes = (root, *ancestors(reverse, root))
        edges = tuple((d, n) for n in nodes for d in reverse[n])
        return Subgraph(root=root, nodes=nodes, edges=edges)

    def topological_order(self) -> list[str]:
        """Element ids with every prerequisite before what depends on it."""
        return topological_order(self._requires)
