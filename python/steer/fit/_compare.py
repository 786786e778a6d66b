"""`steer fit --compare A B`: how an intervention moves each parameter."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from steer.errors import InputError

COMPARE_SCHEMA = pa.schema(
    [
        ("model", pa.string()),
        ("experiment", pa.string()),
        ("family", pa.string()),
        ("parameter", pa.string()),
        ("condition_a", pa.string()),
        ("estimate_a", pa.float64()),
        ("ci_lo_a", pa.float64()),
        ("ci_hi_a", pa.float64()),
        ("condition_b", pa.string()),
        ("estimate_b", pa.float64()),
        ("ci_lo_b", pa.float64()),
        ("ci_hi_b", pa.float64()),
        ("shift", pa.float64()),
        # The two intervals do not overlap: a conservative test of a shift at 5%.
        ("significant", pa.bool_()),
        # Discounting: the family with the lowest AIC differs between A and B.
        ("strategy_changed", pa.bool_()),
    ]
)

_KEY = ["model", "experiment", "family", "parameter"]


def _best_family(table: pa.Table) -> dict[tuple[str, str], str]:
    """(model, experiment) -> the discounting family with the lowest AIC."""
    out: dict[tuple[str, str], tuple[float, str]] = {}
    if "aic" not in table.column_names:
        return {}
    for r in table.filter(pc.is_valid(table["aic"])).to_pylist():
        key = (r["model"], r["experiment"])
        if key not in out or r["aic"] < out[key][0]:
            out[key] = (r["aic"], r["family"])
    return {k: v[1] for k, v in out.items()}


def compare_conditions(table: pa.Table, a: str, b: str) -> pa.Table:
    """One row per parameter fitted under both conditions `a` and `b`."""
    conditions = set(pc.unique(table["condition"]).to_pylist())
    for name in (a, b):
        if name not in conditions:
            raise InputError(
                f"--compare: no runs under condition {name!r} (the runs have "
                f"{', '.join(sorted(conditions))})"
            )
    left = table.filter(pc.equal(table["condition"], a))
    right = table.filter(pc.equal(table["condition"], b))
    best_a, best_b = _best_family(left), _best_family(right)
    rb = {tuple(r[k] for k in _KEY): r for r in right.to_pylist()}
    rows = []
    for r in left.to_pylist():
        other = rb.get(tuple(r[k] for k in _KEY))
        if other is None or not (r["identified"] and other["identified"]):
            continue
        overlap = (
            r["ci_lo"] is not None
            and other["ci_lo"] is not None
            and r["ci_lo"] <= other["ci_hi"]
            and other["ci_lo"] <= r["ci_hi"]
        )
        known = r["ci_lo"] is not None and other["ci_lo"] is not None
        family_key = (r["model"], r["experiment"])
        rows.append(
            {
                **{k: r[k] for k in _KEY},
                "condition_a": a,
                "estimate_a": r["estimate"],
                "ci_lo_a": r["ci_lo"],
                "ci_hi_a": r["ci_hi"],
                "condition_b": b,
                "estimate_b": other["estimate"],
                "ci_lo_b": other["ci_lo"],
                "ci_hi_b": other["ci_hi"],
                "shift": other["estimate"] - r["estimate"],
                "significant": (not overlap) if known else None,
                "strategy_changed": (
                    best_a[family_key] != best_b[family_key]
                    if family_key in best_a and family_key in best_b
                    else None
                ),
            }
        )
    return pa.Table.from_pylist(rows, schema=COMPARE_SCHEMA)
