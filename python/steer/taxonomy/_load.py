"""Read and validate the taxonomy files under `templates/taxonomy/`."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path

from pydantic import ValidationError

from steer._resources import templates_dir
from steer._suggest import did_you_mean
from steer._toml import parse_toml
from steer.errors import FileFormatError
from steer.taxonomy._graph import find_cycle
from steer.taxonomy._model import Element, Module, Setting, TaxonomyFile
from steer.taxonomy._taxonomy import Taxonomy


def _line_of(text: str, record_id: str, nth: int = 1) -> str | None:
    """Line number (as 'line N') of the `nth` line defining `id = "record_id"`.

    Only the defining line counts: the id also appears in other records'
    `requires`, which may come first in the file.
    """
    defines = re.compile(rf"""\s*id\s*=\s*["']{re.escape(record_id)}["']""")
    found = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if defines.match(line):
            found += 1
            if found == nth:
                return f"line {number}"
    return None


def _first_error(exc: ValidationError) -> tuple[str, str]:
    err = exc.errors()[0]
    field = ".".join(str(p) for p in err["loc"])
    return field, err["msg"]


def _parent_id(child_id: str) -> str:
    return child_id.rsplit(".", 1)[0]


@dataclass(frozen=True)
class _Source:
    """One taxonomy file's name and text, to point errors at its lines."""

    name: str
    text: str

    def error(
        self, record_id: str, message: str, field: str | None = None, nth: int = 1
    ) -> FileFormatError:
        where = _line_of(self.text, record_id, nth)
        return FileFormatError(message, source=self.name, where=where, field=field)


def _parse(path: Path | Traversable) -> tuple[_Source, TaxonomyFile]:
    src = _Source(str(path), path.read_text(encoding="utf-8"))
    raw = parse_toml(src.text, src.name)
    try:
        return src, TaxonomyFile.model_validate(raw)
    except ValidationError as exc:
        field, msg = _first_error(exc)
        raise FileFormatError(msg, source=src.name, field=field) from None


def load_taxonomy_files(paths: Iterable[Path | Traversable]) -> Taxonomy:
    """Build a validated `Taxonomy` from taxonomy TOML files.

    Raises `FileFormatError` naming the file, line and field of the first
    problem: bad TOML, unknown keys, duplicate ids, dangling parents or
    prerequisites, grade ranges, cycles.
    """
    settings: dict[str, Setting] = {}
    modules: dict[str, Module] = {}
    elements: dict[str, Element] = {}
    where_defined: dict[str, _Source] = {}

    for path in paths:
        src, parsed = _parse(path)
        bench = parsed.benchmark

        def claim(record_id: str, src: _Source = src, bench: str = bench) -> None:
            if record_id in where_defined:
                first = where_defined[record_id]
                raise src.error(
                    record_id,
                    f"duplicate id {record_id!r} (first defined in {first.name})",
                    "id",
                    nth=2 if first is src else 1,  # point at the repeat, not the original
                )
            if not record_id.startswith(f"{bench}."):
                raise src.error(record_id, f"id {record_id!r} must start with {bench!r}.", "id")
            where_defined[record_id] = src

        for s in parsed.setting:
            claim(s.id)
            settings[s.id] = Setting(id=s.id, name=s.name, benchmark=bench)
        for m in parsed.module:
            claim(m.id)
            parent = _parent_id(m.id)
            if parent not in settings:
                raise src.error(
                    m.id, f"module {m.id!r} belongs to no known setting ({parent!r})", "id"
                )
            modules[m.id] = Module(id=m.id, name=m.name, setting=parent, benchmark=bench)
        for e in parsed.element:
            claim(e.id)
            module_id = e.module or _parent_id(e.id)
            if module_id not in modules:
                hint = did_you_mean(module_id, modules)
                extra = f" — did you mean {hint[0]!r}?" if hint else ""
                raise src.error(
                    e.id, f"element {e.id!r} names unknown module {module_id!r}{extra}", "module"
                )
            try:
                elements[e.id] = Element(
                    id=e.id,
                    slug=e.slug,
                    name=e.name,
                    definition=e.definition,
                    setting=modules[module_id].setting,
                    module=module_id,
                    benchmark=bench,
                    grades=e.grades,
                    grade_source=e.grade_source,
                    requires=tuple(e.requires),
                    aliases=tuple(e.aliases),
                )
            except ValidationError as exc:
                field, msg = _first_error(exc)
                raise src.error(e.id, msg, field) from None

    slugs: dict[str, str] = {}
    for element in elements.values():
        src = where_defined[element.id]
        for name in (element.slug, *element.aliases):
            if name in slugs:
                raise src.error(
                    element.id,
                    f"slug or alias {name!r} of {element.id!r} is already used by {slugs[name]!r}",
                    "slug",
                )
            slugs[name] = element.id
        for req in element.requires:
            if req not in elements:
                hint = did_you_mean(req, elements)
                extra = f" — did you mean {hint[0]!r}?" if hint else ""
                raise src.error(
                    element.id,
                    f"{element.id!r} requires unknown element {req!r}{extra}",
                    "requires",
                )

    cycle = find_cycle({e.id: e.requires for e in elements.values()})
    if cycle:
        raise where_defined[cycle[0]].error(
            cycle[0], "prerequisites form a cycle: " + " -> ".join(cycle), "requires"
        )
    return Taxonomy(settings, modules, elements)


def taxonomy_files() -> list[Traversable]:
    folder = templates_dir() / "taxonomy"
    return sorted((p for p in folder.iterdir() if p.name.endswith(".toml")), key=lambda p: p.name)


@functools.cache
def load_taxonomy() -> Taxonomy:
    """The shipped taxonomy (STEER and STEER-ME), loaded once per process."""
    return load_taxonomy_files(taxonomy_files())
