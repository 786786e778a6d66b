"""The result table shared by the utility fits, and the argument checks.

One row per (group, parameter): `group` (int64), `family`, `parameter`,
`estimate`, `ci_lo`, `ci_hi` (float64, null when not identified or without
resamples; `ci_hi` is also null when the bootstrap distribution is unbounded
above), `n` (observations used), `identified`, `reason` (null when
identified), `r2`, `ssr` (per group, repeated on each of its rows; null where
undefined), `method`, `aic`, `bic` (null where undefined).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from steer.errors import InputError

SCHEMA = pa.schema(
    [
        ("group", pa.int64()),
        ("family", pa.string()),
        ("parameter", pa.string()),
        ("estimate", pa.float64()),
        ("ci_lo", pa.float64()),
        ("ci_hi", pa.float64()),
        ("n", pa.int64()),
        ("identified", pa.bool_()),
        ("reason", pa.string()),
        ("r2", pa.float64()),
        ("ssr", pa.float64()),
        ("method", pa.string()),
        ("aic", pa.float64()),
        ("bic", pa.float64()),
    ]
)

_FLOATS = ("estimate", "ci_lo", "ci_hi", "r2", "ssr", "aic", "bic")


def result_table(columns: dict[str, Any]) -> pa.Table:
    """The native result columns (NaN = no value) as the `SCHEMA` table."""
    out: dict[str, pa.Array] = {}
    reason = columns["reason"]
    for field in SCHEMA:
        name = field.name
        if name == "identified":
            out[name] = pa.array([r is None for r in reason], pa.bool_())
        elif name in _FLOATS:
            values = np.asarray(columns[name], dtype=np.float64)
            out[name] = pa.array(values, pa.float64(), mask=~np.isfinite(values))
        else:
            out[name] = pa.array(columns[name], field.type)
    return pa.table(out, schema=SCHEMA)


def check_bootstrap(bootstrap: int, level: float) -> None:
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, (int, np.integer)):
        raise InputError(f"bootstrap: must be an int (resamples), got {bootstrap!r}")
    if bootstrap < 0:
        raise InputError(f"bootstrap: must be non-negative, got {bootstrap}")
    if not 0.0 < float(level) < 1.0:
        raise InputError(f"level: must be in (0, 1), got {level}")


def lengths(n: int, **arrays: npt.NDArray[Any]) -> None:
    """Every array has `n` entries."""
    bad = {k: len(v) for k, v in arrays.items() if len(v) != n}
    if bad:
        listed = ", ".join(f"{k} has {m}" for k, m in bad.items())
        raise InputError(f"array lengths differ: {n} group ids but {listed}")


def floats(name: str, value: Any, n: int | None = None) -> npt.NDArray[np.float64]:
    """A 1-D float64 array; `None` becomes `n` NaNs."""
    if value is None:
        if n is None:
            raise InputError(f"{name}: missing")
        return np.full(n, np.nan)
    try:
        arr = np.ascontiguousarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name}: not an array of numbers ({exc})") from None
    if arr.ndim != 1:
        raise InputError(f"{name}: expected a 1-D array, got {arr.ndim} axes")
    return arr


def ints(name: str, value: Any) -> npt.NDArray[np.int64]:
    arr = np.asarray(value)
    if arr.ndim != 1:
        raise InputError(f"{name}: expected a 1-D array, got {arr.ndim} axes")
    if arr.size and not (np.issubdtype(arr.dtype, np.integer) or arr.dtype == np.bool_):
        whole = np.issubdtype(arr.dtype, np.floating) and bool(np.all(np.isfinite(arr)))
        if not (whole and np.all(arr == np.round(arr))):
            raise InputError(f"{name}: expected integer ids, got {arr.dtype}")
    return np.ascontiguousarray(arr, dtype=np.int64)


def bools(name: str, value: Any) -> npt.NDArray[np.bool_]:
    arr = np.asarray(value)
    if arr.ndim != 1:
        raise InputError(f"{name}: expected a 1-D array, got {arr.ndim} axes")
    if arr.size and arr.dtype != np.bool_ and not np.isin(arr, (0, 1)).all():
        raise InputError(f"{name}: expected booleans (True/False or 0/1)")
    return np.ascontiguousarray(arr, dtype=np.bool_)


def no_nan(
    name: str, arr: npt.NDArray[np.float64], where: npt.NDArray[np.bool_] | None = None
) -> None:
    """A required field holds no NaN (where `where`, if given)."""
    bad = np.isnan(arr) if where is None else np.isnan(arr) & where
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"{name}: observation {i}: missing value (NaN) in a required field")


def check_brackets(lo: npt.NDArray[np.float64], hi: npt.NDArray[np.float64]) -> None:
    """Interval-censored observations: each bracket [lo, hi] (NaN = open on
    that side) says something and is not inverted."""
    both = np.isnan(lo) & np.isnan(hi)
    if both.any():
        i = int(np.flatnonzero(both)[0])
        raise InputError(f"lo: observation {i}: lo and hi are both open (NaN): no information")
    inverted = lo > hi
    if inverted.any():
        i = int(np.flatnonzero(inverted)[0])
        raise InputError(f"lo: observation {i}: lo {lo[i]} > hi {hi[i]}")
