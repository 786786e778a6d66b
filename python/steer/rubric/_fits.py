"""Fitted utility parameters, the input of parameter checks.

The format (JSON or Parquet), one record per model × parameter:

    {"fits_version": 1,
     "fits": [{"model": "gpt-x", "parameter": "lambda", "estimate": 1.9,
               "ci_lo": 1.6, "ci_hi": 2.3}, ...]}

A Parquet file holds the same five columns. Parameter names are free text;
steer's fits use `alpha`, `beta` (value curvature for gains/losses), `lambda`
(loss aversion), `gamma`, `delta` (probability weighting for gains/losses),
`fs_alpha`, `fs_beta` (Fehr–Schmidt envy/guilt) and `k` (hyperbolic discounting).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from steer._scan import read_checked
from steer.errors import FileFormatError, InputError


class Fit(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str
    parameter: str
    estimate: float
    ci_lo: float | None = None
    ci_hi: float | None = None


class FitsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    fits_version: int = 1
    fits: list[Fit]


@dataclass
class Fits:
    """Fits by (model, parameter)."""

    by_key: dict[tuple[str, str], Fit]

    def get(self, model: str, parameter: str) -> Fit | None:
        return self.by_key.get((model, parameter))


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
    by_key = {}
    for fit in parsed.fits:
        if not math.isfinite(fit.estimate):
            raise FileFormatError(
                f"estimate of {fit.parameter!r} for {fit.model!r} is not finite", source=str(path)
            )
        by_key[(fit.model, fit.parameter)] = fit
    return Fits(by_key)
