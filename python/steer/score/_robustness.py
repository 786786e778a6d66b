"""Robustness metrics: worst normalized accuracy over a finer dimension, and
dependency robustness over the taxonomy's prerequisite graph.

Both are over the questions asked. The worst-group metrics use the strict
normalized accuracy (a no-answer is wrong): a grade on robustness must not
rise by leaving the hard domain unanswered. Dependency robustness keeps the
STEER definition on normalized accuracy (a no-answer scores 0).

Intervals (percentile bootstrap, same seed and level as the other metrics):
each finer cell (group × domain, say) resamples its own questions, seeded by
its own key, and a replicate of the robustness value is the minimum over the
group's cells of their replicates, exactly as the estimate is the minimum of
their values. Resampling within cells keeps every cell's size fixed, so the
worst cell of a replicate is a cell the estimate could have picked.
Dependency robustness likewise recomputes its sum on each replicate of the
cells' normalized accuracies.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from steer import _native
from steer.errors import InputError
from steer.score._columns import group_key_strings, key_columns, prepare
from steer.score._metrics import METRICS

NA_COLUMNS = ("sum_norm", "sum_norm_strict", "n_units", "n_no_answer")
# What the worst-group metrics take the minimum of.
WORST_OF = "normalized_accuracy_strict"


def _normalized_accuracy(table: pa.Table, metric: str = "normalized_accuracy") -> np.ndarray:
    cells = {n: table[n].to_numpy() for n in NA_COLUMNS}
    compute = METRICS[metric].compute
    assert compute is not None
    return compute(cells)


def robustness(out: pa.Table, responses: pa.Table, by: list[str], name: str, bins: int) -> pa.Table:
    """Add `name` (e.g. domain_robustness): the minimum strict normalized
    accuracy over the dimension within each group, and `<name>_argmin`, the
    worst value."""
    dim = name.removesuffix("_robustness")
    if dim in by:  # one value per group: the minimum is the group itself
        out = out.append_column(
            name, pa.array(_normalized_accuracy(out, WORST_OF), from_pandas=True)
        )
        return out.append_column(f"{name}_argmin", out[dim].cast(pa.string()))
    if dim not in responses.column_names:
        raise InputError(f"{name} needs a {dim!r} column in the responses")
    cells, keys = prepare(responses, [*by, dim]).cells(bins)
    na = _normalized_accuracy(pa.table({k: cells[k] for k in NA_COLUMNS}), WORST_OF)
    table = keys.append_column("_na", pa.array(na, from_pandas=True))
    table = table.filter(table["_na"].is_valid())
    worst = (
        table.sort_by([*((k, "ascending") for k in by), ("_na", "ascending")])
        .group_by(by, use_threads=False)
        .aggregate([("_na", "first"), (dim, "first")])
        .rename_columns([*by, "_na", "_argmin"])
    )
    # Matched per group in Python rather than with an Arrow join, whose null
    # keys never match (a group with grade null would lose its value).
    lookup = {
        tuple(r[k] for k in by): (r["_na"], None if r["_argmin"] is None else str(r["_argmin"]))
        for r in worst.to_pylist()
    }
    keys = [tuple(r[k] for k in by) for r in out.select(by).to_pylist()]
    found = [lookup.get(key, (None, None)) for key in keys]
    out = out.append_column(name, pa.array([v[0] for v in found], pa.float64()))
    return out.append_column(f"{name}_argmin", pa.array([v[1] for v in found], pa.string()))


def dependency_robustness(out: pa.Table, responses: pa.Table, by: list[str], bins: int) -> pa.Table:
    """Add `dependency_robustness` per cell, computed in steer-core: Σ over the
    element's transitive prerequisites x with gap(x) < gap(s) of gap(s) − gap(x),
    gap = normalized accuracy, among cells sharing every other key. Prerequisites
    that were not scored are skipped; elements outside the taxonomy get null."""
    values = _Dependency(out, by).values(_normalized_accuracy(out))
    return out.append_column("dependency_robustness", pa.array(values, from_pandas=True))


class _Dependency:
    """The prerequisite graph among the cells of `out`, built once, evaluated
    for any vector of cell scores (the estimate, then every replicate)."""

    def __init__(self, out: pa.Table, by: list[str]) -> None:
        from steer.taxonomy import load_taxonomy

        if "element" not in by:
            raise InputError("dependency_robustness needs 'element' among the --by columns")
        taxonomy = load_taxonomy()
        encoded = pc.dictionary_encode(out["element"]).combine_chunks()
        elements = [str(e) for e in encoded.dictionary.to_pylist()]
        position = {e: i for i, e in enumerate(elements)}
        offsets, prereq = [0], []
        for e in elements:  # the distinct elements scored, not rows
            if e in taxonomy:
                prereq += [
                    position[x] for x in taxonomy.prerequisites(e).nodes[1:] if x in position
                ]
            offsets.append(len(prereq))
        others = [k for k in by if k != "element"]
        if others:
            keys = key_columns(out, others)
            context, _ = _native.encode_groups([k[1] for k in keys], [len(k[2]) for k in keys])
        else:
            context = np.zeros(out.num_rows, dtype=np.uint32)
        self.element = np.ascontiguousarray(encoded.indices.to_numpy(), dtype=np.uint32)
        self.context = context
        self.offsets = offsets
        self.prereq = np.asarray(prereq, dtype=np.uint32)
        unknown = np.array([e not in taxonomy for e in elements], dtype=bool)
        self.unknown = unknown[self.element] if len(unknown) else np.zeros(0, dtype=bool)

    def values(self, score: np.ndarray) -> np.ndarray:
        values = _native.dependency_robustness(
            np.ascontiguousarray(score, dtype=np.float64),
            self.element,
            self.context,
            self.offsets,
            self.prereq,
        )
        values[self.unknown] = np.nan
        return values


def _percentiles(reps: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Per row of `reps` (groups × replicates), the bounds of the central
    `level` interval, linear interpolation as in steer-core; NaN replicates
    are left out and a row without any gets NaN bounds."""
    tail = (1 - level) / 2
    lo = np.full(reps.shape[0], np.nan)
    hi = np.full(reps.shape[0], np.nan)
    ok = ~np.isnan(reps).all(axis=1)
    if ok.any():
        lo[ok], hi[ok] = np.nanpercentile(reps[ok], [100 * tail, 100 * (1 - tail)], axis=1)
    return lo, hi


def _na_replicates(
    responses: pa.Table, by: list[str], resamples: int, seed: int, level: float, bins: int
) -> tuple[np.ndarray, pa.Table]:
    """Normalized-accuracy replicates (groups × resamples) of every group of
    `by`, each group's stream seeded by its own key values, and the key table."""
    columns, keys = prepare(responses, by).codes()
    res = _native.bootstrap_ci(
        columns,
        ["normalized_accuracy"],
        resamples=resamples,
        seed=seed,
        level=level,
        bins=bins,
        keep_replicates=True,
        group_keys=group_key_strings(keys),
    )
    return res["replicates"][0], keys


def _rows_of(target: pa.Table, keys: pa.Table) -> np.ndarray:
    """Row of `target` holding each row's key of `keys` (−1 where none)."""
    where = {k: i for i, k in enumerate(group_key_strings(target))}
    return np.array([where.get(k, -1) for k in group_key_strings(keys)], dtype=np.int64)


def robustness_interval(
    out: pa.Table,
    responses: pa.Table,
    by: list[str],
    name: str,
    resamples: int,
    seed: int,
    level: float,
    bins: int,
) -> pa.Table:
    """Add `<name>_lo/hi`: bootstrap bounds of the minimum over the dimension,
    computed in steer-core replicate by replicate (nothing per cell is kept)."""
    dim = name.removesuffix("_robustness")
    fine = by if dim in by else [*by, dim]
    columns, fine_keys = prepare(responses, fine).codes()
    parent = _rows_of(out.select(by), fine_keys.select(by))
    lo, hi = _native.bootstrap_min(
        columns,
        WORST_OF,
        np.where(parent < 0, np.iinfo(np.uint32).max, parent).astype(np.uint32),
        out.num_rows,
        resamples=resamples,
        seed=seed,
        level=level,
        group_keys=group_key_strings(fine_keys),
    )
    out = out.append_column(f"{name}_lo", pa.array(lo, from_pandas=True))
    return out.append_column(f"{name}_hi", pa.array(hi, from_pandas=True))


def dependency_interval(
    out: pa.Table,
    responses: pa.Table,
    by: list[str],
    resamples: int,
    seed: int,
    level: float,
    bins: int,
) -> pa.Table:
    """Add `dependency_robustness_lo/hi`: the sum recomputed on every replicate
    of the cells' normalized accuracies."""
    reps, keys = _na_replicates(responses, by, resamples, seed, level, bins)
    row = _rows_of(out.select(by), keys)
    cell_reps = np.full((out.num_rows, resamples), np.nan)
    cell_reps[row[row >= 0]] = reps[row >= 0]
    graph = _Dependency(out, by)
    values = np.empty_like(cell_reps)
    for b in range(resamples):  # one native call per replicate, over all cells
        values[:, b] = graph.values(cell_reps[:, b])
    lo, hi = _percentiles(values, level)
    out = out.append_column("dependency_robustness_lo", pa.array(lo, from_pandas=True))
    return out.append_column("dependency_robustness_hi", pa.array(hi, from_pandas=True))
