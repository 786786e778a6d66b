"""`steer.score`: metrics for every group of a response table, with intervals."""

from __future__ import annotations

from collections.abc import Sequence
from statistics import NormalDist
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from steer import _native
from steer._limits import MAX_BINS, MAX_BOOTSTRAP, MAX_CELLS, MAX_SEED, check_count
from steer.errors import InputError
from steer.score._columns import Prepared, group_key_strings, prepare
from steer.score._errors import ERROR_PREFIX, RATE_PREFIX, row_error_types
from steer.score._keys import Dedupe
from steer.score._load import BankInput, Loaded, ResponseInput, load_responses, row_error
from steer.score._metrics import Metric, _ratio, resolve_metrics
from steer.score._position import position_metrics
from steer.score._robustness import (
    dependency_interval,
    dependency_robustness,
    robustness,
    robustness_interval,
)

ADDITIVE = (
    "n_rows",
    "n_units",
    "n_no_answer",
    "n_correct",
    "sum_norm",
    "sum_norm_strict",
    "sum_p_random",
    "n_consistency",
    "n_consistent",
    "n_unscored",
    "n_prob",
    "n_prob_invalid",
    "sum_conf",
    "sum_p_correct",
    "n_top_correct",
    "sum_brier",
    "sum_invalid_mass",
)
BIN_FIELDS = ("ece_n", "ece_conf", "ece_acc")


def _native_call(loaded: Loaded, fn: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return fn(*args, **kwargs)
    except InputError as exc:
        mapped = row_error(exc, loaded)
        if mapped is exc:
            raise
        raise mapped from None


def cells_table(keys: pa.Table, cells: dict[str, np.ndarray]) -> pa.Table:
    """Keys plus the additive columns, ECE bins flattened to `ece_n_0 …`."""
    out = keys
    for name in ADDITIVE:
        out = out.append_column(name, pa.array(cells[name]))
    for name in BIN_FIELDS:
        for b in range(cells[name].shape[1]):
            out = out.append_column(
                f"{name}_{b}", pa.array(np.ascontiguousarray(cells[name][:, b]))
            )
    return out


def cells_from_table(table: pa.Table) -> dict[str, np.ndarray]:
    """The additive arrays back from a cells table (inverse of `cells_table`)."""
    cells = {name: table[name].to_numpy() for name in ADDITIVE}
    for name in BIN_FIELDS:
        cols = sorted(
            (c for c in table.column_names if c.startswith(f"{name}_")),
            key=lambda c: int(c.rsplit("_", 1)[1]),
        )
        cells[name] = (
            np.column_stack([table[c].to_numpy() for c in cols])
            if cols
            else np.zeros((table.num_rows, 0))
        )
    return cells


def add_cell_metrics(table: pa.Table, metrics: Sequence[Metric]) -> pa.Table:
    cells = cells_from_table(table)
    for metric in metrics:
        if metric.kind == "cell" and metric.compute is not None:
            table = table.append_column(
                metric.name, pa.array(metric.compute(cells), from_pandas=True)
            )
        elif metric.kind == "errors":
            table = add_error_rates(table)
    return table


def error_columns(table: pa.Table) -> list[str]:
    """The additive wrong-answer counts of a cells table (`n_error:<type>`)."""
    return [c for c in table.column_names if c.startswith(ERROR_PREFIX)]


def add_error_rates(table: pa.Table) -> pa.Table:
    """`error_rate:<type>` = wrong answers of that type / questions asked,
    for every `n_error:<type>` count (replacing any rates already there)."""
    table = table.drop_columns([c for c in table.column_names if c.startswith(RATE_PREFIX)])
    n_units = table["n_units"].to_numpy()
    for name in error_columns(table):
        rate = _ratio(table[name].to_numpy(), n_units)
        table = table.append_column(
            RATE_PREFIX + name.removeprefix(ERROR_PREFIX), pa.array(rate, from_pandas=True)
        )
    return table


def _error_counts(
    loaded: Loaded, prepared: Prepared, keys: pa.Table, by: list[str]
) -> dict[str, pa.Array]:
    """Wrong answers per (group, error type), counted in the Rust core, as
    `n_error:<type>` columns in `keys` order (types sorted)."""
    types = row_error_types(loaded.table)
    names = pc.unique(pc.drop_null(types)).sort()
    codes = np.asarray(pc.fill_null(pc.index_in(types, value_set=names), -1), dtype=np.int32)
    columns, by_code = prepared.codes()
    counts = _native_call(loaded, _native.error_counts, columns, codes, len(names))
    out = {}
    for t, name in enumerate(names.to_pylist()):
        aligned = _align(by_code, counts[:, t].astype(np.float64), keys, by)
        out[ERROR_PREFIX + name] = pc.cast(aligned, pa.int64())
    return out


def _align(
    source_keys: pa.Table, values: np.ndarray, target_keys: pa.Table, by: list[str]
) -> pa.Array:
    """Reorder per-group `values` (in `source_keys` order) to `target_keys` order.

    Both tables hold the same distinct keys; sorting both the same way (nulls
    last) pairs them up without a join, which would not match null keys.
    """
    if source_keys.equals(target_keys):
        return pa.array(values, from_pandas=True)
    order = [(name, "ascending", "at_end") for name in by]
    src = pc.sort_indices(source_keys, sort_keys=order).to_numpy()
    dst = pc.sort_indices(target_keys, sort_keys=order).to_numpy()
    out = np.empty(len(dst))
    out[dst] = np.asarray(values, dtype=np.float64)[src]
    return pa.array(out, from_pandas=True)


def wilson(k: np.ndarray, n: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for k successes in n trials (NaN where n = 0)."""
    z = NormalDist().inv_cdf(0.5 + level / 2)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.asarray(k, dtype=np.float64) / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo, hi = centre - half, centre + half
    lo[n == 0] = np.nan
    hi[n == 0] = np.nan
    return np.clip(lo, 0, 1), np.clip(hi, 0, 1)


def score(
    responses: ResponseInput | Sequence[ResponseInput] | Loaded,
    by: Sequence[str] = ("model", "element"),
    metrics: Sequence[str] | None = None,
    *,
    ci: float | None = 0.95,
    bootstrap: int = 0,
    seed: int = 0,
    bins: int = 10,
    bank: BankInput | None = None,
    dedupe: Dedupe = None,
) -> pa.Table:
    """Score response tables grouped by `by`; one row per group.

    `responses` are Arrow tables, Parquet/JSONL files or run directories.
    Columns: the keys, additive counts and sums (`n_units`, `sum_norm`, ECE bin
    sums `ece_n_0…` — cells merge by adding them), then each requested metric.
    With `ci`, exact match gets Wilson bounds (`exact_match_wilson_lo/hi`, k
    right of n asked) and, with `bootstrap` > 0 resamples, every metric gets
    percentile bootstrap bounds (`<metric>_lo/hi`) over questions. A group's
    stream is seeded by `seed` and its key values, so its interval does not
    change with row order or with which other groups are present.
    Calibration metrics are null where no row has probabilities (`n_prob` = 0).
    Every asked question counts (a run's manifest, or `bank` for bare tables;
    see `load_responses`, which also explains `dedupe`).
    """
    by = list(by)
    chosen = resolve_metrics(metrics)
    # Sizes reach Rust allocations: out-of-range values are bad input, not an abort.
    bins = check_count("bins", bins, 1, MAX_BINS)
    bootstrap = check_count("bootstrap", bootstrap, 0, MAX_BOOTSTRAP)
    seed = check_count("seed", seed, 0, MAX_SEED)
    if ci is not None and not 0 < ci < 1:
        raise InputError(f"ci must be a level between 0 and 1, e.g. 0.95; got {ci}")
    loaded = load_responses(responses, bank=bank, dedupe=dedupe)
    prepared = prepare(loaded.table, by)
    # Each group holds a row of `bins` ECE cells: refuse sizes that cannot fit
    # in memory before Rust allocates them (an allocation failure aborts).
    groups = min(prepared.space, max(loaded.table.num_rows, 1))
    if groups * bins > MAX_CELLS:
        raise InputError(
            f"{groups} groups × {bins} bins is more than {MAX_CELLS:,} cells; "
            "use fewer --bins or coarser --by columns"
        )
    cells, keys = _native_call(loaded, prepared.cells, bins)
    table = cells_table(keys, cells)
    if any(m.kind == "errors" for m in chosen):
        for name, counts in _error_counts(loaded, prepared, keys, by).items():
            table = table.append_column(name, counts)
    out = add_cell_metrics(table, chosen)

    for metric in chosen:
        if metric.kind == "equal_mass":
            columns, by_code = prepared.codes()
            values = _native_call(loaded, _native.ece_equal_mass, columns, bins)
            out = out.append_column(metric.name, _align(by_code, values, keys, by))
        elif metric.kind == "robustness":
            out = robustness(out, loaded.table, by, metric.name, bins)
        elif metric.kind == "dependency":
            out = dependency_robustness(out, loaded.table, by, bins)
    positional = [m.name for m in chosen if m.kind == "position"]
    if positional:
        out = position_metrics(
            out, loaded.table, by, positional,
            resamples=bootstrap if ci is not None else 0, seed=seed, level=ci,
        )  # fmt: skip

    if ci is not None:
        if "exact_match" in {m.name for m in chosen}:
            # k right of every question asked: a no-answer is a failure.
            lo, hi = wilson(cells["n_correct"], cells["n_units"], ci)
            out = out.append_column("exact_match_wilson_lo", pa.array(lo, from_pandas=True))
            out = out.append_column("exact_match_wilson_hi", pa.array(hi, from_pandas=True))
        resamplable = [m.name for m in chosen if m.bootstrap]
        if bootstrap > 0 and resamplable:
            columns, by_code = prepared.codes()
            res = _native_call(
                loaded,
                _native.bootstrap_ci,
                columns,
                resamplable,
                resamples=bootstrap,
                seed=seed,
                level=ci,
                bins=bins,
                group_keys=group_key_strings(by_code),
            )
            for k, name in enumerate(resamplable):
                out = out.append_column(f"{name}_lo", _align(by_code, res["lo"][k], keys, by))
                out = out.append_column(f"{name}_hi", _align(by_code, res["hi"][k], keys, by))
        for metric in chosen if bootstrap > 0 else ():
            if metric.kind == "robustness":
                out = robustness_interval(
                    out, loaded.table, by, metric.name, bootstrap, seed, ci, bins
                )
            elif metric.kind == "dependency":
                out = dependency_interval(out, loaded.table, by, bootstrap, seed, ci, bins)
    return out.sort_by([(name, "ascending") for name in by])


def _with_columns(table: pa.Table, names: Sequence[str]) -> pa.Table:
    """`table` with every column of `names` (int64 zeros where absent), in that order."""
    for name in names:
        if name not in table.column_names:
            table = table.append_column(name, pa.array(np.zeros(table.num_rows, np.int64)))
    rest = [c for c in table.column_names if c not in names]
    return table.select(rest + list(names))


def merge_cells(
    tables: Sequence[pa.Table], by: Sequence[str], metrics: Sequence[str] | None = None
) -> pa.Table:
    """Merge scored-cell tables by adding their additive columns per key, then
    recompute the cell metrics (non-additive columns are dropped)."""
    by = list(by)
    if not tables:
        raise InputError("no cell tables to merge")
    additive = [
        c
        for c in tables[0].column_names
        if c in ADDITIVE or c.startswith(tuple(f"{b}_" for b in BIN_FIELDS))
    ]
    # Wrong-answer counts by error type: a type one table lacks counts 0 there.
    errors = sorted({c for t in tables for c in error_columns(t)})
    merged = pa.concat_tables(
        [_with_columns(t.select(by + additive + error_columns(t)), errors) for t in tables]
    )
    additive += errors
    summed = merged.group_by(by, use_threads=False).aggregate([(c, "sum") for c in additive])
    summed = summed.rename_columns([c.removesuffix("_sum") for c in summed.column_names])
    summed = summed.select(by + additive)
    chosen = [m for m in resolve_metrics(metrics) if m.kind == "cell"]
    return add_cell_metrics(summed, chosen).sort_by([(n, "ascending") for n in by])
