"""Experiment grids: the stimuli of each experiment, as data files.

A grid is a JSON object with `experiment`, `grid_version`, a `design` note
and `rows`, one stimulus each (the shipped grids are in `grids/`; a user's
own file with the same shape replaces one with `--grid FILE`). Rows are
validated by the experiment's row model, so a malformed row names the file,
the row and the field; nothing in a grid is evaluated as code.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from steer._scan import read_checked
from steer.errors import FileFormatError, InputError

GRIDS = Path(__file__).with_name("grids")


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")


def _probability(value: float) -> float:
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{value} is not a probability (0 to 1)")
    return value


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise ValueError("is not a finite number")
    return value


class ProspectRow(_Row):
    """(x1, p1; x2, p2): two outcomes of one sign, |x2| > |x1|."""

    x1: float
    p1: float
    x2: float
    p2: float

    _p = field_validator("p1", "p2")(_probability)
    _x = field_validator("x1", "x2")(_finite)

    @model_validator(mode="after")
    def _shape(self) -> ProspectRow:
        if abs(self.p1 + self.p2 - 1.0) > 1e-9:
            raise ValueError(f"p1 + p2 must be 1 (got {self.p1 + self.p2:g})")
        if self.x1 * self.x2 < 0:
            raise ValueError("x1 and x2 must not differ in sign (mixed gambles: mixed-gamble)")
        if abs(self.x2) <= abs(self.x1):
            raise ValueError("|x2| must exceed |x1| (x2 is the extreme outcome)")
        return self


class MixedRow(_Row):
    loss: float = Field(lt=0)
    p_loss: float = Field(gt=0, lt=1)

    _x = field_validator("loss")(_finite)


class DelayRow(_Row):
    amount: float = Field(gt=0)
    delay: str = Field(min_length=1, max_length=40)
    years: float = Field(gt=0, le=200)
    immediate: list[float] = Field(min_length=2, max_length=60)

    @field_validator("immediate")
    @classmethod
    def _amounts(cls, value: list[float]) -> list[float]:
        if any(not math.isfinite(v) or v < 0 for v in value):
            raise ValueError("immediate amounts must be finite and >= 0")
        if len(set(value)) != len(value):
            raise ValueError("immediate amounts repeat")
        return value


class PoolRow(_Row):
    pool: int = Field(ge=1, le=1000)


class OfferRow(_Row):
    pool: int = Field(ge=1, le=1000)
    offer: int = Field(ge=0)

    @model_validator(mode="after")
    def _within(self) -> OfferRow:
        if self.offer > self.pool:
            raise ValueError(f"offer {self.offer} exceeds the pool {self.pool}")
        return self


class DictatorRow(_Row):
    kind: Literal["give", "allocation"]
    pool: int | None = Field(default=None, ge=1, le=1000)
    a: tuple[float, float] | None = None
    b: tuple[float, float] | None = None

    @model_validator(mode="after")
    def _kind(self) -> DictatorRow:
        if self.kind == "give" and self.pool is None:
            raise ValueError("a 'give' row needs a pool")
        if self.kind == "allocation" and (self.a is None or self.b is None):
            raise ValueError("an 'allocation' row needs options a and b as [you, other]")
        return self


class TriangleRow(_Row):
    pair: str | None = None
    control: Literal["dominance"] | None = None
    a: tuple[float, float, float]
    b: tuple[float, float, float]

    @field_validator("a", "b")
    @classmethod
    def _lottery(cls, value: tuple[float, float, float]) -> tuple[float, float, float]:
        if any(not 0.0 <= p <= 1.0 for p in value) or abs(sum(value) - 1.0) > 1e-9:
            raise ValueError("probabilities of (low, middle, high) must be in [0, 1] and sum to 1")
        return value


class BudgetRow(_Row):
    income: float = Field(gt=0)
    p1: float = Field(gt=0)
    p2: float = Field(gt=0)

    _x = field_validator("income", "p1", "p2")(_finite)


ROW_MODELS: dict[str, type[_Row]] = {
    "gambling": ProspectRow,
    "mixed-gamble": MixedRow,
    "waiting": DelayRow,
    "discounting": DelayRow,
    "ultimatum-proposer": PoolRow,
    "ultimatum-responder": OfferRow,
    "dictator": DictatorRow,
    "mm-triangle": TriangleRow,
    "budget": BudgetRow,
}


class Grid(BaseModel):
    """A validated grid: its stimuli and the settings rows share."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    experiment: str
    grid_version: int
    design: str
    rows: tuple[Any, ...]
    source: str
    # mm-triangle: the three outcomes (low, middle, high); budget: the shares
    # offered; mixed-gamble: the gains offered, as multiples of break-even.
    outcomes: tuple[float, float, float] | None = None
    shares: tuple[float, ...] | None = None
    gain_ratios: tuple[float, ...] | None = None

    @field_validator("shares", "gain_ratios")
    @classmethod
    def _ladder(cls, value: tuple[float, ...] | None) -> tuple[float, ...] | None:
        if value is not None:
            if len(value) < 2 or any(not math.isfinite(v) or v < 0 for v in value):
                raise ValueError("needs at least two finite, non-negative numbers")
            if list(value) != sorted(set(value)):
                raise ValueError("must increase")
        return value


_HEAD = {"experiment", "grid_version", "design", "rows", "outcomes", "shares", "gain_ratios"}


def _not_json(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def load_grid(experiment: str, path: str | Path | None = None) -> Grid:
    """The grid of `experiment`: the shipped one, or the file at `path`."""
    source = Path(path) if path is not None else GRIDS / f"{experiment}.json"
    if not source.is_file():
        raise InputError(f"{source}: no such grid file")
    try:
        data = json.loads(read_checked(source).decode("utf-8"), parse_constant=_not_json)
    except json.JSONDecodeError as exc:
        raise FileFormatError(
            f"invalid JSON: {exc.msg}", source=str(source), where=f"line {exc.lineno}:{exc.colno}"
        ) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise FileFormatError(f"invalid JSON: {exc}", source=str(source)) from None
    if not isinstance(data, dict):
        raise FileFormatError("a grid is a JSON object", source=str(source))
    unknown = sorted(set(data) - _HEAD)
    if unknown:
        raise FileFormatError(f"unknown key {unknown[0]!r}", source=str(source), field=unknown[0])
    if data.get("experiment") != experiment:
        raise FileFormatError(
            f"is {data.get('experiment')!r}, expected {experiment!r}",
            source=str(source),
            field="experiment",
        )
    if data.get("grid_version") != 1:
        raise FileFormatError(
            f"grid_version {data.get('grid_version')!r} is not supported (expected 1)",
            source=str(source),
            field="grid_version",
        )
    raw_rows = data.get("rows")
    if not isinstance(raw_rows, list) or not raw_rows:
        raise FileFormatError("needs a non-empty list of rows", source=str(source), field="rows")
    model = ROW_MODELS[experiment]
    rows = []
    seen: dict[str, int] = {}
    for i, raw in enumerate(raw_rows):
        try:
            row = model.model_validate(raw)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or "row"
            raise FileFormatError(
                err["msg"].removeprefix("Value error, "),
                source=str(source),
                where=f"row {i}",
                field=field,
            ) from None
        if row.id in seen:
            raise FileFormatError(
                f"duplicate id {row.id!r} (first at row {seen[row.id]})",
                source=str(source),
                where=f"row {i}",
                field="id",
            )
        seen[row.id] = i
        rows.append(row)
    try:
        return Grid(
            experiment=experiment,
            grid_version=1,
            design=str(data.get("design", "")),
            rows=tuple(rows),
            source=str(source),
            outcomes=data.get("outcomes"),
            shares=data.get("shares"),
            gain_ratios=data.get("gain_ratios"),
        )
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"])
        raise FileFormatError(err["msg"], source=str(source), field=field) from None
