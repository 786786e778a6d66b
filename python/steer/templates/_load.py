"""Load template files and check every name they use before anything runs."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path

from pydantic import BaseModel, ValidationError

from steer._resources import template_files, templates_dir
from steer._suggest import did_you_mean
from steer._toml import parse_toml, read_toml_text
from steer.errors import FileFormatError, UnknownNameError
from steer.taxonomy import Taxonomy, load_taxonomy
from steer.templates._checks import check_expressions, check_satisfiable
from steer.templates._model import GradeSpec, TemplateFile, TemplateSpec, control_template
from steer.templates._perspective import PERSPECTIVE_WORDS
from steer.templates._text import PlaceholderError, placeholders


@dataclass(frozen=True)
class Template:
    """A validated template with where it came from (for error messages)."""

    element: str
    spec: TemplateSpec
    source: str
    line: int | None


def _line_of(text: str, needle: str, start: int = 0) -> int | None:
    lines = text.splitlines()
    for number in range(start, len(lines)):
        if needle in lines[number]:
            return number + 1
    return None


def load_template_file(
    path: Path | Traversable, taxonomy: Taxonomy | None = None, label: str | None = None
) -> list[Template]:
    """Parse one template file; raise `FileFormatError` with file:line on problems."""
    # Imported here: the generate package imports this module at load time.
    from steer.generate import DISTRACTORS, SOLVERS, STRUCTURES

    taxonomy = taxonomy or load_taxonomy()
    source = label or str(path)
    text = read_toml_text(path, source)
    raw = parse_toml(text, source)
    try:
        parsed = TemplateFile.model_validate(raw)
    except ValidationError as exc:
        errors = exc.errors()
        # A misspelt key also leaves the intended one "missing"; report the key
        # the author actually wrote.
        err = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
        # Drop pydantic's union-branch tags (`function-after[_range(), RangeSpec]`).
        loc = [str(p) for p in err["loc"] if "[" not in str(p)]
        where = None
        if len(loc) >= 3 and loc[0] == "template":
            template_id = raw["template"][int(loc[1])].get("id", "")
            line = _line_of(text, f'"{template_id}"') if template_id else None
            key_line = _line_of(text, loc[2], (line or 1) - 1) if line else None
            where = f"line {key_line or line}" if (key_line or line) else None
        elif len(loc) == 1 and err["type"] == "extra_forbidden":
            key_line = _line_of(text, loc[0])
            where = f"line {key_line}" if key_line else None
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            if "template" not in loc:
                model: type[BaseModel] = TemplateFile
            elif len(loc) >= 5 and loc[2] == "grade":
                model = GradeSpec
            else:
                model = TemplateSpec
            hint = did_you_mean(loc[-1], list(model.model_fields))
            msg = f"unknown key {loc[-1]!r}" + (f" — did you mean {hint[0]!r}?" if hint else "")
        raise FileFormatError(msg, source=source, where=where, field=".".join(loc)) from None
    try:
        element = taxonomy.element(parsed.element).id
    except UnknownNameError as exc:
        raise FileFormatError(
            str(exc), source=source, where=f"line {_line_of(text, 'element')}", field="element"
        ) from None

    lo, hi = taxonomy.element(element).grades
    templates = []
    for spec in parsed.template:
        line = _line_of(text, f'"{spec.id}"')
        for grade in spec.grade:
            if not lo <= grade <= hi:
                raise FileFormatError(
                    f"grade {grade} is outside {element}'s grade levels {lo}-{hi}",
                    source=source,
                    where=f"line {_line_of(text, f'[template.grade.{grade}', (line or 1) - 1)}",
                    field=f"grade.{grade}",
                )

        def fail(
            message: str, field: str, needle: str | None = None, _line: int | None = line
        ) -> FileFormatError:
            at = _line_of(text, needle, (_line or 1) - 1) if needle else _line
            return FileFormatError(
                message, source=source, where=f"line {at}" if at else None, field=field
            )

        for kind, registry, name in (
            ("structure", STRUCTURES, spec.structure),
            ("solver", SOLVERS, spec.solver),
        ):
            if name not in registry:
                hint = did_you_mean(name, registry)
                extra = f" — did you mean {hint[0]!r}?" if hint else ""
                raise fail(f"unknown {kind} {name!r}{extra}", kind, f'"{name}"')
        structure = STRUCTURES[spec.structure]
        solver = SOLVERS[spec.solver]
        if spec.structure not in solver.structures:
            raise fail(
                f"solver {spec.solver!r} cannot solve a {spec.structure!r} "
                f"(it takes {', '.join(solver.structures)})",
                "solver",
                spec.solver,
            )
        for name in spec.distractors:
            if name not in DISTRACTORS:
                hint = did_you_mean(name, DISTRACTORS)
                extra = f" — did you mean {hint[0]!r}?" if hint else ""
                raise fail(f"unknown distractor {name!r}{extra}", "distractors", f'"{name}"')
            if DISTRACTORS[name].answer != solver.answer:
                raise fail(
                    f"distractor {name!r} makes {DISTRACTORS[name].answer} answers but "
                    f"solver {spec.solver!r} gives {solver.answer} answers",
                    "distractors",
                    f'"{name}"',
                )
        names = check_expressions(spec, text, line, fail)
        if spec.control is not None:
            if spec.structure != "scenario" or solver.answer != "choice" or len(spec.choices) < 2:
                raise fail(
                    "`control` needs a `scenario` template with `choices` and a choice solver",
                    "control",
                    "control",
                )
            check_expressions(control_template(spec), text, line, fail)
        known = set(structure.fields) | set(spec.words) | set(solver.fields) | names
        if spec.perspectives:
            known |= set(PERSPECTIVE_WORDS)
        for needed in solver.needs:
            if needed not in names:
                raise fail(
                    f"solver {spec.solver!r} needs a variable named {needed!r}",
                    "solver",
                    f'"{spec.solver}"',
                )
        for field_name, texts in (
            ("phrasings", spec.phrasings),
            ("explanation", [spec.explanation or ""]),
            ("choices", [c.text for c in spec.choices]),
            ("parts", [p.text for p in spec.parts] + [o for p in spec.parts for o in p.options]),
        ):
            for phrase in texts:
                try:
                    used = placeholders(phrase)
                except PlaceholderError as exc:
                    raise fail(str(exc), field_name, exc.name) from None
                for name in used:
                    if name not in known:
                        hint = did_you_mean(name, known)
                        extra = f" — did you mean {{{hint[0]}}}?" if hint else ""
                        raise fail(f"unknown variable {{{name}}}{extra}", field_name, f"{{{name}}}")
        for grade, gspec in spec.grade.items():
            problem = structure.check(gspec, spec)
            if problem is None and solver.answer == "numeric" and gspec.options is None:
                problem = "numeric answers need `options` (how many to offer)"
            if problem:
                raise fail(
                    f"grade {grade}: {problem}", f"grade.{grade}", f"[template.grade.{grade}"
                )
            check_satisfiable(spec, grade, fail)
            if spec.control is not None:
                check_satisfiable(control_template(spec), grade, fail)
        templates.append(Template(element=element, spec=spec, source=source, line=line))
    return templates


@functools.cache
def load_templates(benchmark: str | None = None) -> tuple[Template, ...]:
    """Every shipped template, validated; with `benchmark` ("steer",
    "steer-me") only that benchmark's folder is read, so generating one
    benchmark does not pay for validating the other's files."""
    if benchmark is not None:
        return tuple(t for t in _load_folder(benchmark) if t.element.startswith(f"{benchmark}."))
    root = templates_dir()
    out: list[Template] = []
    for path in template_files(root):
        label = "templates/" + str(path)[len(str(root)) :].lstrip("/")
        out.extend(load_template_file(path, label=label))
    return tuple(out)


def _load_folder(benchmark: str) -> tuple[Template, ...]:
    root = templates_dir()
    folder = root / benchmark
    if not folder.is_dir():
        # Files elsewhere under templates/ may still hold this benchmark's elements.
        return load_templates()
    out: list[Template] = []
    for path in template_files(folder):
        label = "templates/" + str(path)[len(str(root)) :].lstrip("/")
        out.extend(load_template_file(path, label=label))
    return tuple(out)
