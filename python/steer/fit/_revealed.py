"""Revealed preference over budget choices, many subjects at once.

Data come as numpy arrays or as a pyarrow table:

* `prices`, `quantities` of shape (T, G) — one subject — or (S, T, G) — S
  subjects with T choices each; or (rows, G) with `subjects=` labelling each
  row (subjects may have different numbers of choices; rows are grouped by
  label, keeping their order within a subject);
* a table with columns `subject`, `observation`, `price`, `quantity`, where
  `price` and `quantity` are either lists (one row per choice, G entries) or
  numbers with a `good` column (one row per choice and good).

Every function returns a pyarrow table with one row per subject (in sorted
label order for labelled input). The definitions, and where the Houtman–Maks
and money-pump figures stop being exact, are in steer-core's
`revealed` module; the `exact` columns say which rows are proven.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from steer import _native
from steer.errors import InputError

__all__ = ["Panel", "ccei", "garp", "houtman_maks", "money_pump", "panel"]

#: Default node budget of the exact Houtman–Maks search (per subject).
HM_NODE_BUDGET = 200_000
#: Default step budget of the money-pump cycle enumeration (per subject).
MPI_STEP_BUDGET = 2_000_000

_COLUMNS = ("subject", "observation", "price", "quantity")


@dataclass(frozen=True)
class Panel:
    """Stacked choices: rows (rows, G), subject `i` at `offsets[i]:offsets[i+1]`."""

    prices: npt.NDArray[np.float64]
    quantities: npt.NDArray[np.float64]
    offsets: npt.NDArray[np.int64]
    subjects: pa.Array
    #: Each row's observation label (tables only; else its position is its name).
    observations: pa.Array | None = None


def _array(name: str, value: Any) -> npt.NDArray[np.float64]:
    try:
        return np.ascontiguousarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name}: not an array of numbers ({exc})") from None


def panel(
    data: Any,
    quantities: Any = None,
    *,
    subjects: Any = None,
) -> Panel:
    """Normalise the accepted inputs (see the module doc) to a `Panel`."""
    if isinstance(data, pa.Table):
        if quantities is not None or subjects is not None:
            raise InputError("quantities: pass a table alone, or two arrays")
        return _from_table(data)
    if quantities is None:
        raise InputError("quantities: missing (pass prices and quantities)")
    p, q = _array("prices", data), _array("quantities", quantities)
    if p.shape != q.shape:
        raise InputError(f"quantities: shape {q.shape} differs from the prices' {p.shape}")
    if subjects is not None:
        if p.ndim != 2:
            raise InputError(f"prices: with subjects=, expected (rows, goods), got {p.ndim} axes")
        labels = pa.array(np.asarray(subjects)) if not isinstance(subjects, pa.Array) else subjects
        if len(labels) != p.shape[0]:
            raise InputError(f"subjects: {len(labels)} labels for {p.shape[0]} rows")
        order = pc.sort_indices(pa.table({"s": labels}), sort_keys=[("s", "ascending")])
        order_np = order.to_numpy()
        return _grouped(p[order_np], q[order_np], labels.take(order))
    if p.ndim == 2:
        return Panel(p, q, np.array([0, p.shape[0]], dtype=np.int64), pa.array([0]))
    if p.ndim == 3:
        s, t, g = p.shape
        offsets = np.arange(0, s * t + 1, t, dtype=np.int64) if t else np.zeros(s + 1, np.int64)
        return Panel(p.reshape(s * t, g), q.reshape(s * t, g), offsets, pa.array(np.arange(s)))
    raise InputError(f"prices: expected (T, G) or (S, T, G), got {p.ndim} axes")


def _grouped(
    p: npt.NDArray[np.float64],
    q: npt.NDArray[np.float64],
    labels: pa.Array,
    observations: pa.Array | None = None,
) -> Panel:
    """Rows already sorted by label: offsets where the label changes."""
    codes = pc.dictionary_encode(labels).indices.to_numpy(zero_copy_only=False)
    n = len(codes)
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]]) if n else np.array([], int)
    offsets = np.r_[starts, n].astype(np.int64)
    return Panel(
        np.ascontiguousarray(p),
        np.ascontiguousarray(q),
        offsets,
        labels.take(pa.array(starts, pa.int64())),
        observations,
    )


def _from_table(table: pa.Table) -> Panel:
    missing = [c for c in _COLUMNS if c not in table.column_names]
    if missing:
        raise InputError(f"table: missing column(s) {', '.join(missing)}")
    long = "good" in table.column_names
    keys = ["subject", "observation"] + (["good"] if long else [])
    for k in keys:
        if table.column(k).null_count:
            raise InputError(f"{k}: {table.column(k).null_count} missing value(s)")
    order = pc.sort_indices(table.select(keys), sort_keys=[(k, "ascending") for k in keys])
    t = table.take(order)
    if long:
        rows = len(t)
        if rows == 0:
            raise InputError("table: no rows")
        subj = pc.dictionary_encode(t["subject"].combine_chunks()).indices.to_numpy()
        obs = pc.dictionary_encode(t["observation"].combine_chunks()).indices.to_numpy()
        change = np.r_[True, (subj[1:] != subj[:-1]) | (obs[1:] != obs[:-1])]
        starts = np.flatnonzero(change)
        sizes = np.diff(np.r_[starts, rows])
        if (sizes != sizes[0]).any():
            raise InputError("good: every choice needs the same number of goods")
        g = int(sizes[0])
        price = _column_values(t, "price").reshape(-1, g)
        quantity = _column_values(t, "quantity").reshape(-1, g)
        labels = t["subject"].combine_chunks().take(pa.array(starts, pa.int64()))
        observations = t["observation"].combine_chunks().take(pa.array(starts, pa.int64()))
    else:
        price = _list_values(t, "price")
        quantity = _list_values(t, "quantity")
        if price.shape != quantity.shape:
            raise InputError("quantity: lists differ in length from the price lists")
        labels = t["subject"].combine_chunks()
        observations = t["observation"].combine_chunks()
    return _grouped(price, quantity, labels, observations)


def _column_values(t: pa.Table, name: str) -> npt.NDArray[np.float64]:
    col = t[name]
    if col.null_count:
        raise InputError(f"{name}: {col.null_count} missing value(s)")
    try:
        return np.asarray(col.cast(pa.float64()).to_numpy(), dtype=np.float64)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise InputError(f"{name}: not numbers ({exc})") from None


def _list_values(t: pa.Table, name: str) -> npt.NDArray[np.float64]:
    col = t[name].combine_chunks()
    if not (pa.types.is_list(col.type) or pa.types.is_fixed_size_list(col.type)):
        raise InputError(f"{name}: expected a list per choice, or a 'good' column")
    if col.null_count:
        raise InputError(f"{name}: {col.null_count} missing list(s)")
    lengths = pc.list_value_length(col).to_numpy(zero_copy_only=False)
    if len(lengths) == 0 or (lengths != lengths[0]).any() or lengths[0] == 0:
        raise InputError(f"{name}: every choice needs the same, non-zero number of goods")
    flat = pc.list_flatten(col)
    if flat.null_count:
        raise InputError(f"{name}: {flat.null_count} missing value(s)")
    values = np.asarray(flat.cast(pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64)
    return values.reshape(len(lengths), int(lengths[0]))


_SUBJECT = re.compile(r"subject (\d+)")
_OBSERVATION = re.compile(r"observation (\d+)")


def _call(fn: Any, pan: Panel, *args: Any) -> Any:
    """The native call; errors name the subject by its label."""
    try:
        return fn(pan.prices, pan.quantities, pan.offsets, *args)
    except InputError as exc:
        message = str(exc)
        m = _SUBJECT.search(message)
        if m and int(m.group(1)) < len(pan.subjects):
            subject = int(m.group(1))
            o = _OBSERVATION.search(message)
            if o and pan.observations is not None:
                row = int(pan.offsets[subject]) + int(o.group(1))
                name = pan.observations[row].as_py()
                message = message[: o.start()] + f"observation {name!r}" + message[o.end() :]
            label = pan.subjects[subject].as_py()
            message = message[: m.start()] + f"subject {label!r}" + message[m.end() :]
        raise InputError(message) from None


def _table(pan: Panel, **columns: Any) -> pa.Table:
    return pa.table({"subject": pan.subjects, **columns})


def garp(data: Any, quantities: Any = None, *, subjects: Any = None) -> pa.Table:
    """GARP per subject: `consistent`, `violations` (ordered violating pairs)."""
    pan = panel(data, quantities, subjects=subjects)
    ok, violations, _ = _call(_native.revealed_garp, pan, False)
    return _table(pan, consistent=ok, violations=violations)


def ccei(data: Any, quantities: Any = None, *, subjects: Any = None) -> pa.Table:
    """Afriat's critical cost efficiency index per subject, exact, with GARP."""
    pan = panel(data, quantities, subjects=subjects)
    ok, violations, index = _call(_native.revealed_garp, pan, True)
    return _table(pan, consistent=ok, violations=violations, ccei=index)


def houtman_maks(
    data: Any,
    quantities: Any = None,
    *,
    subjects: Any = None,
    node_budget: int = HM_NODE_BUDGET,
) -> pa.Table:
    """The largest GARP-consistent subset: `size`, `fraction` (of T), `upper`
    (a bound on the size when not `exact`) and `exact`."""
    pan = panel(data, quantities, subjects=subjects)
    if node_budget < 0:
        raise InputError(f"node_budget: must be non-negative, got {node_budget}")
    size, upper, exact = _call(_native.revealed_houtman_maks, pan, node_budget)
    t = np.diff(pan.offsets)
    fraction = size / np.maximum(t, 1)
    return _table(pan, n=t, size=size, fraction=fraction, upper=upper, exact=exact)


def money_pump(
    data: Any,
    quantities: Any = None,
    *,
    subjects: Any = None,
    step_budget: int = MPI_STEP_BUDGET,
) -> pa.Table:
    """The money-pump index over violating cycles: `max` (always exact: a
    maximum-ratio cycle), `mean` and `cycles` (exact when `exact`, else over every
    2-cycle and the cycles enumerated within `step_budget`)."""
    pan = panel(data, quantities, subjects=subjects)
    if step_budget < 0:
        raise InputError(f"step_budget: must be non-negative, got {step_budget}")
    mean, most, cycles, exact = _call(_native.revealed_money_pump, pan, step_budget)
    return _table(pan, mean=mean, max=most, cycles=cycles, exact=exact)
