"""Robustness metrics: worst normalized accuracy over a finer dimension, and
dependency robustness over the taxonomy's prerequisite graph."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from steer import _native
from steer.errors import InputError
from steer.score._columns import key_columns, prepare
from steer.score._metrics import METRICS


def _normalized_accuracy(table: pa.Table) -> np.ndarray:
    cells = {n: table[n].to_numpy() for n in ("sum_norm", "n_units", "n_no_answer")}
    compute = METRICS["normalized_accuracy"].compute
    assert compute is not None
    return compute(cells)


def robustness(out: pa.Table, responses: pa.Table, by: list[str], name: str, bins: int) -> pa.Table:
    """Add `name` (e.g. domain_robustness): the minimum normalized accuracy over
    the dimension within each group, and `<name>_argmin`, the worst value."""
    dim = name.removesuffix("_robustness")
    if dim in by:  # one value per group: the minimum is the group itself
        out = out.append_column(name, pa.array(_normalized_accuracy(out), from_pandas=True))
        return out.append_column(f"{name}_argmin", out[dim].cast(pa.string()))
    if dim not in responses.column_names:
        raise InputError(f"{name} needs a {dim!r} column in the responses")
    cells, keys = prepare(responses, [*by, dim]).cells(bins)
    na = _normalized_accuracy(
        pa.table({k: cells[k] for k in ("sum_norm", "n_units", "n_no_answer")})
    )
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
            prereq += [position[x] for x in taxonomy.prerequisites(e).nodes[1:] if x in position]
        offsets.append(len(prereq))
    others = [k for k in by if k != "element"]
    if others:
        keys = key_columns(out, others)
        context, _ = _native.encode_groups([k[1] for k in keys], [len(k[2]) for k in keys])
    else:
        context = np.zeros(out.num_rows, dtype=np.uint32)
    values = _native.dependency_robustness(
        np.ascontiguousarray(_normalized_accuracy(out), dtype=np.float64),
        np.ascontiguousarray(encoded.indices.to_numpy(), dtype=np.uint32),
        context,
        offsets,
        np.asarray(prereq, dtype=np.uint32),
    )
    unknown = np.array([e not in taxonomy for e in elements], dtype=bool)
    values[unknown[encoded.indices.to_numpy()]] = np.nan
    return out.append_column("dependency_robustness", pa.array(values, from_pandas=True))
