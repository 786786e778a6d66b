"""Fitted utility parameters, the input of parameter checks.

The format (JSON or Parquet), one record per model × parameter:

    {"fits_version": 1,
     "fits": [{"model": "gpt-x", "parameter": "lambda", "estimate": 1.9,
               "ci_lo": 1.6, "ci_hi": 2.3}, ...]}

A Parquet file holds the same columns. `steer fit` writes this format with
more columns per record: `condition` (the intervention), `experiment`,
`family` (the utility model: `prospect-theory`, `fehr-schmidt`, `hyperbolic`,
`exponential`, `quasi-hyperbolic`, `econbench`, `competence`, ...), `n`,
`identified` (with a `reason` and a null estimate when not), `r2`, `ssr`,
`aic`, `bic`, and optionally `adaptation` (the one card of the model the
record is about; `steer grade` sets it on collective and survey records).
A rubric check names a parameter as `lambda`, as `family.parameter`
(`fehr-schmidt.alpha`) when the bare name is ambiguous, and with
`@condition` for a condition other than the baseline
(`prospect-theory.lambda@persona:a-banker`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from steer._scan import read_checked
from steer.errors import FileFormatError, InputError


class Fit(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str
    parameter: str
    estimate: float | None
    ci_lo: float | None = None
    ci_hi: float | None = None
    condition: str | None = None
    experiment: str | None = None
    family: str | None = None
    n: int | None = None
    identified: bool = True
    reason: str | None = None
    r2: float | None = None
    ssr: float | None = None
    aic: float | None = None
    bic: float | None = None
    #: The card (adaptation label) the record is about, where it is one card's
    #: own: a collective's records belong to its vote's card, a survey's to
    #: its run's. None: every card of the model (fitted parameters, games).
    adaptation: str | None = None

    def names(self) -> list[str]:
        """The names a rubric check may use for this fit."""
        bare = [self.parameter]
        if self.family:
            bare.append(f"{self.family}.{self.parameter}")
        if self.condition in (None, "baseline"):
            return bare + [f"{b}@baseline" for b in bare]
        return [f"{b}@{self.condition}" for b in bare]


class FitsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    fits_version: int = 1
    fits: list[Fit]


@dataclass
class Fits:
    """Fits by (model, name); a name two fits share is ambiguous, not a fit."""

    by_key: dict[tuple[str, str], Fit]
    ambiguous: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    #: Every fit of the file, in its order.
    records: list[Fit] = field(default_factory=list)

    def get(self, model: str, parameter: str) -> Fit | None:
        return self.by_key.get((model, parameter))

    def alternatives(self, model: str, parameter: str) -> list[str]:
        """The qualified names to use instead of an ambiguous `parameter`."""
        return self.ambiguous.get((model, parameter), [])


class _NotJSONError(ValueError):
    """NaN / Infinity, which Python's json accepts but JSON does not."""


def _not_json(name: str) -> None:
    raise _NotJSONError(f"{name} is not a JSON number")


def read_fits(path: Path) -> Fits:
    """Read a fits file (.json or .parquet); bad content raises `FileFormatError`."""
    if not path.is_file():
        raise InputError(f"{path}: no such fits file")
    try:
        if path.suffix == ".parquet":
            from steer.bank._read import read_table  # names bad files, rows and UTF-8

            records = read_table(path).to_pylist()
            parsed = FitsFile(fits=[Fit.model_validate(r) for r in records])
        else:
            # Checked for bad UTF-8 and deep nesting first (json recurses per level).
            data = read_checked(path).decode("utf-8")
            parsed = FitsFile.model_validate(json.loads(data, parse_constant=_not_json))
    except json.JSONDecodeError as exc:
        raise FileFormatError(
            f"invalid JSON: {exc.msg}", source=str(path), where=f"line {exc.lineno}:{exc.colno}"
        ) from None
    except _NotJSONError as exc:
        raise FileFormatError(f"invalid JSON: {exc}", source=str(path)) from None
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"])
        raise FileFormatError(err["msg"], source=str(path), field=field) from None
    if parsed.fits_version != 1:
        raise FileFormatError(
            f"fits_version {parsed.fits_version} is not supported (expected 1)", source=str(path)
        )
    return fits_from_records(parsed.fits, str(path))


def fits_from_records(records: list[Fit], source: str) -> Fits:
    """Index fit records by the names checks may use (ambiguous names kept
    apart, with the qualified names to use instead); bad values raise
    `FileFormatError` naming `source` and the record."""
    by_key: dict[tuple[str, str], Fit] = {}
    ambiguous: dict[tuple[str, str], list[str]] = {}
    for i, fit in enumerate(records):
        if fit.estimate is None and fit.identified:
            raise FileFormatError(
                f"estimate of {fit.parameter!r} for {fit.model!r} is missing (only a fit "
                "marked identified: false may leave it out)",
                source=source,
                field=f"fits.{i}.estimate",
            )
        for name, value in (("estimate", fit.estimate), ("ci_lo", fit.ci_lo), ("ci_hi", fit.ci_hi)):
            if value is not None and not math.isfinite(value):
                raise FileFormatError(
                    f"{name} of {fit.parameter!r} for {fit.model!r} is not finite",
                    source=source,
                    field=f"fits.{i}.{name}",
                )
        for name in fit.names():
            key = (fit.model, name)
            if key in ambiguous:
                continue
            if key in by_key and by_key[key] is not fit:
                first = by_key.pop(key)
                ambiguous[key] = sorted(
                    {n for f in (first, fit) for n in f.names()[1:2] if n != name}
                )
                continue
            by_key[key] = fit
    return Fits(by_key, ambiguous, list(records))
