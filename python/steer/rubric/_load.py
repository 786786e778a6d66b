"""Read rubric files: TOML → validated `Rubric`, with every problem reported as
a diagnostic at `file:line:col`, and `extends` chains merged."""

from __future__ import annotations

import itertools
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args, get_origin

from pydantic import BaseModel, ValidationError

from steer._resources import rubrics_dir
from steer._scan import decode_checked
from steer._suggest import did_you_mean
from steer._toml import check_depth
from steer.errors import FileFormatError, InputError
from steer.rubric._diagnostic import Diagnostic, Location, RubricError
from steer.rubric._locate import Path as KeyPath
from steer.rubric._locate import Position, locate_keys, nearest
from steer.rubric._model import RUN_METRICS, Check, Rubric, Rules, Section
from steer.rubric._selectors import select_elements, selector_hint
from steer.rubric.rules._codes import CODES, RESERVED_PREFIXES
from steer.taxonomy import Taxonomy, load_taxonomy

_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")


@dataclass
class LoadedRubric:
    """A validated rubric with where its parts came from."""

    rubric: Rubric
    file: str  # as shown to the user
    path: Path
    positions: dict[str, dict[KeyPath, Position]] = field(default_factory=dict)
    warnings: list[Diagnostic] = field(default_factory=list)

    def locate(self, file: str, path: KeyPath) -> Location:
        line, col = nearest(self.positions.get(file, {}), path)
        return Location(file, line, col)


def shipped_rubrics() -> dict[str, Path]:
    """Shipped rubric names (file stems) → paths."""
    folder = Path(str(rubrics_dir()))
    return {p.stem: p for p in sorted(folder.glob("*.toml"))}


def display_path(path: Path) -> str:
    """How a file is named in messages: shipped rubrics as `rubrics/NAME.toml`,
    others relative to the working directory when inside it."""
    resolved = path.resolve()
    shipped = Path(str(rubrics_dir())).resolve()
    if resolved.is_relative_to(shipped):
        return f"rubrics/{resolved.relative_to(shipped).as_posix()}"
    try:
        return resolved.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def resolve_rubric(ref: str, relative_to: Path | None = None) -> Path:
    """A rubric reference → its file: a path (relative to `relative_to`'s folder
    when given), else a shipped rubric's name."""
    looks_like_path = ref.endswith(".toml") or "/" in ref or "\\" in ref
    if looks_like_path:
        base = relative_to.parent if relative_to else Path.cwd()
        candidate = Path(ref) if Path(ref).is_absolute() else base / ref
        if candidate.is_dir():
            raise InputError(f"{ref}: is a directory, not a rubric file")
        if candidate.exists() and not candidate.is_file():
            raise InputError(f"{ref}: not a regular file, so not a rubric")
        if not candidate.is_file():
            raise InputError(f"{ref}: no such rubric file")
        return candidate
    shipped = shipped_rubrics()
    if ref in shipped:
        return shipped[ref]
    hint = did_you_mean(ref, shipped)
    extra = f" — did you mean {', '.join(repr(h) for h in hint)}?" if hint else ""
    raise InputError(
        f"unknown rubric {ref!r}{extra} (shipped: {', '.join(shipped)}; or give a .toml path)"
    )


def load_rubric(ref: str | Path, taxonomy: Taxonomy | None = None) -> LoadedRubric:
    """Load and validate a rubric (a path or a shipped name), merging `extends`.

    Raises `RubricError` (an `InputError`) listing every error-level
    diagnostic; warnings (e.g. selectors matching nothing) are kept in
    `.warnings`.
    """
    taxonomy = taxonomy or load_taxonomy()
    path = ref if isinstance(ref, Path) else resolve_rubric(ref)
    loaded = _load_chain(path, taxonomy, stack=[])
    errors = [d for d in loaded.warnings if d.severity == "error"]
    if errors:
        raise RubricError(errors)
    return loaded


def check_rubric(path: Path, taxonomy: Taxonomy | None = None) -> list[Diagnostic]:
    """Every diagnostic about a rubric file (errors and warnings), sorted by place."""
    taxonomy = taxonomy or load_taxonomy()
    try:
        loaded = _load_chain(path, taxonomy, stack=[])
    except RubricError as exc:
        return exc.diagnostics
    return loaded.warnings


# A rubric is a few kilobytes; refusing huge files keeps `extends` pointed at a
# large file from reading it all into memory.
MAX_RUBRIC_BYTES = 1 << 20


def read_rubric_text(path: Path, file: str) -> str:
    """The text of a rubric file; not UTF-8 or nested too deeply for tomllib is
    RUB001 at its line."""
    try:
        if path.stat().st_size > MAX_RUBRIC_BYTES:
            raise InputError(f"{file}: larger than {MAX_RUBRIC_BYTES >> 20} MiB, not a rubric")
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{file}: no such rubric file") from None
    except IsADirectoryError:
        raise InputError(f"{file}: is a directory, not a rubric file") from None
    try:
        text = decode_checked(data, file)
        check_depth(text, file)
    except FileFormatError as exc:
        line, _, col = (exc.where or "line 1:1").removeprefix("line ").partition(":")
        where = Location(file, int(line), int(col or 1))
        raise RubricError([Diagnostic("RUB001", "error", exc.problem, where)]) from None
    return text


def _load_chain(path: Path, taxonomy: Taxonomy, stack: list[Path]) -> LoadedRubric:
    file = display_path(path)
    text = read_rubric_text(path, file)
    positions = locate_keys(text)
    diagnostics, rubric = validate_text(text, file, positions, taxonomy)
    loaded = LoadedRubric(rubric or Rubric(name="?"), file, path, {file: positions}, diagnostics)
    if rubric is None:
        raise RubricError(_sorted(diagnostics))
    if rubric.extends:
        where = loaded.locate(file, ("extends",))
        try:
            parent_path = resolve_rubric(rubric.extends, relative_to=path)
            _check_extends_target(rubric.extends, parent_path)
        except InputError as exc:
            diagnostics.append(Diagnostic("RUB005", "error", str(exc), where))
            raise RubricError(_sorted(diagnostics)) from None
        chain = [*stack, path.resolve()]
        if parent_path.resolve() in chain:
            names = " → ".join(display_path(p) for p in [*chain, parent_path.resolve()])
            diagnostics.append(Diagnostic("RUB005", "error", f"`extends` cycle: {names}", where))
            raise RubricError(_sorted(diagnostics))
        try:
            parent = _load_chain(parent_path, taxonomy, chain)
        except RubricError as exc:
            # Say which `extends` led there, then the parent's own problems.
            shown = display_path(parent_path)
            diagnostics.append(
                Diagnostic("RUB005", "error", f"`extends`: {shown} is not a valid rubric", where)
            )
            raise RubricError([*_sorted(diagnostics), *exc.diagnostics]) from None
        loaded.rubric = merge(parent.rubric, rubric)
        loaded.positions.update(parent.positions)
        diagnostics.extend(parent.warnings)
    if not stack and not loaded.rubric.section:
        diagnostics.append(
            Diagnostic(
                "RUB008",
                "error",
                "the rubric has no [[section]] (nor does what it extends)",
                Location(file, 1, 1),
            )
        )
    _check_codes(loaded, file)
    loaded.warnings = _sorted(diagnostics)
    return loaded


def _check_extends_target(ref: str, path: Path) -> None:
    """`extends` may name only a regular `.toml` file (a shipped rubric's name
    resolves to one): not a directory, a device, a FIFO or another kind of file."""
    if path.suffix.lower() != ".toml":
        raise InputError(f"`extends = {ref!r}`: a rubric is a .toml file")
    if not path.is_file():  # follows symlinks: /dev/zero behind a link is refused
        raise InputError(f"`extends = {ref!r}`: not a regular file")


def _sorted(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    seen: dict[str, Diagnostic] = {}
    for d in diagnostics:
        seen.setdefault(d.line(), d)
    return sorted(
        seen.values(), key=lambda d: (d.location.file, d.location.line, d.location.column)
    )


def validate_text(
    text: str, file: str, positions: dict[KeyPath, Position], taxonomy: Taxonomy
) -> tuple[list[Diagnostic], Rubric | None]:
    """Parse and validate one file (without following `extends`)."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message, line, col = toml_error(exc)
        return [
            Diagnostic("RUB001", "error", f"invalid TOML: {message}", Location(file, line, col))
        ], None
    diagnostics = validation_diagnostics(Rubric, raw, file, positions)
    if diagnostics:
        # Report selectors too, so one run of `steer rubric check` shows all.
        return diagnostics + selector_diagnostics(raw, file, positions, taxonomy), None
    rubric = Rubric.model_validate(raw)
    _tag_origins(rubric.section, file, ("section",))
    for i, check in enumerate(rubric.check):
        check._file, check._path = file, ("check", i)
    diagnostics += _semantic(rubric, raw, file, positions, taxonomy)
    return diagnostics, rubric


def toml_error(exc: tomllib.TOMLDecodeError) -> tuple[str, int, int]:
    """(message, line, column) of a TOML syntax error (Python 3.11 keeps the
    position only in the message text)."""
    text = str(exc)
    at = _AT.search(text)
    if at is None:
        return text, 1, 1
    return text[: at.start()], int(at.group(1)), int(at.group(2))


def _tag_origins(sections: list[Section], file: str, base: KeyPath) -> None:
    for i, s in enumerate(sections):
        s._file, s._path = file, (*base, i)
        _tag_origins(s.section, file, (*base, i, "section"))


def validation_diagnostics(
    model: type[BaseModel], raw: dict[str, Any], file: str, positions: dict[KeyPath, Position]
) -> list[Diagnostic]:
    """pydantic's errors as RUB002 (unknown key) / RUB003 (bad value) diagnostics."""
    try:
        model.model_validate(raw)
    except ValidationError as exc:
        out = []
        for err in exc.errors():
            loc = tuple(err["loc"])
            line, col = nearest(positions, loc)
            where = Location(file, line, col)
            if err["type"] == "extra_forbidden":
                key = str(loc[-1])
                hint = did_you_mean(key, _fields_at(model, loc[:-1]))
                out.append(
                    Diagnostic(
                        "RUB002",
                        "error",
                        f'unknown key "{key}"',
                        where,
                        hint=f'did you mean "{hint[0]}"?' if hint else None,
                    )
                )
            else:
                dotted = ".".join(str(p) for p in loc) or "(top level)"
                msg = err["msg"].removeprefix("Value error, ")
                got = (
                    f" (got {err['input']!r})" if not isinstance(err["input"], dict | list) else ""
                )
                out.append(Diagnostic("RUB003", "error", f"`{dotted}`: {msg}{got}", where))
        return out
    return []


def _fields_at(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """The field names allowed at `loc` inside `model` (for 'did you mean')."""
    current: Any = model
    for part in loc:
        if isinstance(part, int):
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return []
        info = current.model_fields.get(str(part))
        if info is None:
            return []
        current = _unwrap(info.annotation)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return list(current.model_fields)
    return []


def _unwrap(annotation: Any) -> Any:
    while get_origin(annotation) is not None:
        args = [a for a in get_args(annotation) if a is not type(None)]
        models = [a for a in args if isinstance(a, type) and issubclass(a, BaseModel)]
        if models:
            return models[0]
        annotation = args[-1] if args else None
    return annotation


def _semantic(
    rubric: Rubric,
    raw: dict[str, Any],
    file: str,
    positions: dict[KeyPath, Position],
    taxonomy: Taxonomy,
) -> list[Diagnostic]:
    """Checks pydantic cannot express: monotone letter scales and selectors
    that match something."""
    out: list[Diagnostic] = []

    def at(path: KeyPath) -> Location:
        line, col = nearest(positions, path)
        return Location(file, line, col)

    if rubric.scale is not None:
        steps = rubric.letter_steps()
        for (hi_name, hi, _), (lo_name, lo, _) in itertools.pairwise(steps):
            if lo >= hi:
                out.append(
                    Diagnostic(
                        "RUB006",
                        "error",
                        f"letter thresholds overlap: {lo_name} starts at {lo}, "
                        f"not below {hi_name} at {hi}",
                        at(("scale", lo_name)),
                        hint="each letter's threshold must be lower than the one above it",
                    )
                )
    if rubric.letters is not None:
        for i in range(1, len(rubric.letters)):
            a, b = rubric.letters[i - 1], rubric.letters[i]
            if b.min >= a.min or b.points > a.points:
                out.append(
                    Diagnostic(
                        "RUB006",
                        "error",
                        f"letters must be best first with falling `min` and `points`: "
                        f"{b.letter} (min {b.min}, points {b.points}) follows "
                        f"{a.letter} (min {a.min}, points {a.points})",
                        at(("letters", i)),
                    )
                )
        names = [x.letter for x in rubric.letters]
        if len(set(names)) != len(names):
            out.append(Diagnostic("RUB006", "error", "a letter appears twice", at(("letters",))))

    out += selector_diagnostics(raw, file, positions, taxonomy)
    for i, check in enumerate(rubric.check):
        if check.code.startswith(RESERVED_PREFIXES):
            out.append(
                Diagnostic(
                    "RUB003",
                    "error",
                    f"check code `{check.code}` uses a prefix reserved for steer's own "
                    f"codes ({', '.join(RESERVED_PREFIXES)})",
                    at(("check", i, "code")),
                    hint="pick another prefix, e.g. the rubric's initials",
                )
            )
    return out


def selector_diagnostics(
    raw: dict[str, Any], file: str, positions: dict[KeyPath, Position], taxonomy: Taxonomy
) -> list[Diagnostic]:
    """RUB004 for each selector (in sections, nested or not, and checks) that
    matches no element. Reads the raw TOML, so it works on invalid files too."""
    out: list[Diagnostic] = []

    def selectors(items: Any, path: KeyPath) -> None:
        if not isinstance(items, list):
            return
        for i, selector in enumerate(items):
            if not isinstance(selector, str):
                continue
            if selector == "*" or select_elements(taxonomy, [selector], []):
                continue
            line, col = nearest(positions, (*path, i))
            out.append(
                Diagnostic(
                    "RUB004",
                    "warning",
                    f"selector `{selector}` matches no element",
                    Location(file, line, col),
                    hint=selector_hint(taxonomy, selector),
                )
            )

    def walk(entries: Any, base: KeyPath) -> None:
        if not isinstance(entries, list):
            return
        for i, entry in enumerate(entries):
            if isinstance(entry, dict) and entry.get("metric") in RUN_METRICS:
                continue  # a run metric's selectors name games, collectives or subscales
            if isinstance(entry, dict):
                selectors(entry.get("select"), (*base, i, "select"))
                selectors(entry.get("exclude"), (*base, i, "exclude"))
                walk(entry.get("section"), (*base, i, "section"))

    walk(raw.get("section"), ("section",))
    walk(raw.get("check"), ("check",))
    return out


def _check_codes(loaded: LoadedRubric, file: str) -> None:
    """`select`/`ignore` entries must name a known code or prefix."""
    rubric = loaded.rubric
    known = [*CODES, *(c.code for c in rubric.check)]
    entries: list[tuple[str, KeyPath]] = []
    entries += [(c, ("select", i)) for i, c in enumerate(rubric.select or [])]
    entries += [(c, ("ignore", i)) for i, c in enumerate(rubric.ignore)]
    for model, codes in rubric.per_model_ignores.items():
        entries += [(c, ("per_model_ignores", model, i)) for i, c in enumerate(codes)]
    for code, path in entries:
        if code == "ALL" or any(k.startswith(code) for k in known):
            continue
        hint = did_you_mean(code, known)
        loaded.warnings.append(
            Diagnostic(
                "RUB007",
                "error",
                f"`{code}` is not a known code or prefix",
                loaded.locate(file, path),
                hint=f"did you mean `{hint[0]}`?" if hint else "see `steer rules`",
            )
        )


def merge(parent: Rubric, child: Rubric) -> Rubric:
    """`child` over `parent`: fields the child sets replace the parent's, except
    checks (parent's then child's) and rule options (per rule)."""
    update: dict[str, Any] = {}
    for name in child.model_fields_set:
        if name == "check":
            continue
        if name == "rules":
            rules = parent.rules.model_copy(
                update={r: getattr(child.rules, r) for r in child.rules.model_fields_set}
            )
            update["rules"] = Rules.model_validate(rules.model_dump())
            continue
        if name == "filters":
            update["filters"] = parent.filters.model_copy(
                update={f: getattr(child.filters, f) for f in child.filters.model_fields_set}
            )
            continue
        update[name] = getattr(child, name)
    checks: list[Check] = [*parent.check, *child.check]
    update["check"] = checks
    if "scale" in update:
        update["letters"] = None
    if "letters" in update:
        update.setdefault("scale", None)
    return parent.model_copy(update=update)
