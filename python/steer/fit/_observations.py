"""From a play run's answers to the observations the fits take, in arrays.

A play run's responses are joined to its trial table on `question_id`; the
choices of one ladder (the rungs of one stimulus in one sample: the seven
sure amounts of a gamble, the 31 immediate amounts of a delay, the offers an
ultimatum responder sees) are reduced to a bracket [lo, hi] on the switching
amount, and the ladder is *competent* when it has one switching point: every
amount taken is larger than every amount turned down, and every rung was
answered. All of it is vectorised over rows (numpy), never a Python loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from steer.errors import InputError

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
B = npt.NDArray[np.bool_]


def condition_of(intervention: str, adaptation: dict[str, Any] | None) -> str:
    """`intervention`, then the adaptation's settings that differ from the
    default (`baseline;shown`, `persona:a banker;order=shuffle:2/1`)."""
    from steer.schema import Adaptation

    if not adaptation:
        return intervention
    given, default = Adaptation(**adaptation), Adaptation()
    parts = [intervention]
    if given.format != default.format:
        parts.append(given.format)
    for name, short in (("shots", "shots"), ("cot", "cot"), ("prob_mode", "prob"),
                        ("order", "order")):  # fmt: skip
        value = getattr(given, name)
        if value != getattr(default, name):
            parts.append(f"{short}={value}")
    return ";".join(parts)


def _conditions(intervention: str, responses: pa.Table) -> pa.Array:
    """Each response's condition: the intervention, and the adaptation when it
    is not the default (each permutation of order=shuffle:K is its own)."""
    adaptation = responses["adaptation"]
    fields = [pc.cast(pc.struct_field(adaptation, name), pa.string()).fill_null("")
              for name in ("format", "shots", "cot", "prob_mode", "order")]  # fmt: skip
    key = pc.binary_join_element_wise(*fields, "\x1f")
    distinct = pc.unique(key)
    firsts = pc.index_in(distinct, value_set=key)
    labels = [condition_of(intervention, adaptation[int(i)].as_py()) for i in firsts.to_pylist()]
    return pa.array(labels, pa.string()).take(pc.index_in(key, value_set=distinct))


def answered_trials(
    responses: pa.Table, trials: pa.Table, intervention: str = "baseline"
) -> pa.Table:
    """The trial table with each response's `model`, `condition` and `chosen`
    (-1: no usable answer) joined on; one row per response."""
    from steer.experiments import TRIAL_SCHEMA

    trials = trials.select(TRIAL_SCHEMA.names)
    at = pc.index_in(responses["question_id"], value_set=trials["question_id"])
    if at.null_count:
        raise InputError(
            f"{at.null_count} responses answer no trial of the run (responses from another run?)"
        )
    chosen = pc.if_else(pc.is_valid(responses["error"]), -1, responses["chosen_index"])
    joined = trials.take(at)
    joined = joined.append_column("model", responses["model"]).append_column("chosen", chosen)
    joined = joined.append_column("condition", _conditions(intervention, responses))
    return joined.sort_by([("model", "ascending"), ("question_id", "ascending")])


@dataclass(frozen=True)
class Ladders:
    """One entry per ladder (model, stimulus, sample)."""

    model: npt.NDArray[np.object_]
    stimulus: npt.NDArray[np.object_]
    sample: I64
    lo: F64  # largest amount turned down (NaN: none was)
    hi: F64  # smallest amount taken (NaN: none was)
    competent: B
    reason: npt.NDArray[np.object_]  # why not competent ("" when it is)
    first: I64  # a row of the joined table that belongs to the ladder
    group: I64  # each row's ladder (an index into the arrays above)


def ladders(table: pa.Table, *, by_stimulus: bool = True) -> Ladders:
    """Brackets on the switching amount of every ladder in `table` (rows of one
    experiment from `answered_trials`). `by_stimulus=False` makes each sample's
    trials of every stimulus one ladder (the ultimatum responder's offers)."""
    model = table["model"].to_numpy(zero_copy_only=False).astype(object)
    stimulus = table["stimulus"].to_numpy(zero_copy_only=False).astype(object)
    sample = table["sample"].to_numpy().astype(np.int64)
    keys = [model, sample] + ([stimulus] if by_stimulus else [])
    # Group ids from the distinct (model, [stimulus,] sample) triples.
    codes = [np.unique(k.astype(str), return_inverse=True)[1] for k in keys]
    combined = np.zeros(len(sample), dtype=np.int64)
    for c in codes:
        combined = combined * (int(c.max(initial=0)) + 1) + c
    uniq, group = np.unique(combined, return_inverse=True)
    n = len(uniq)
    level = table["level"].to_numpy(zero_copy_only=False).astype(np.float64)
    accept = table["accept"].to_numpy(zero_copy_only=False).astype(np.int64)
    chosen = table["chosen"].to_numpy().astype(np.int64)
    answered = chosen >= 0
    took = answered & (chosen == accept)
    turned = answered & ~took
    lo = np.full(n, -np.inf)
    hi = np.full(n, np.inf)
    np.maximum.at(lo, group[turned], level[turned])
    np.minimum.at(hi, group[took], level[took])
    missing = np.zeros(n, dtype=np.int64)
    np.add.at(missing, group, ~answered)
    crossed = np.isfinite(lo) & np.isfinite(hi) & (lo >= hi)
    competent = (missing == 0) & ~crossed
    reason = np.full(n, "", dtype=object)
    reason[crossed] = "more than one switching point"
    reason[missing > 0] = "unanswered rungs"
    first = np.unique(group, return_index=True)[1].astype(np.int64)
    return Ladders(
        model=model[first],
        stimulus=stimulus[first] if by_stimulus else np.full(n, "", dtype=object),
        sample=sample[first],
        lo=np.where(np.isfinite(lo), lo, np.nan),
        hi=np.where(np.isfinite(hi), hi, np.nan),
        competent=competent,
        reason=reason,
        first=first,
        group=group.astype(np.int64),
    )


def column(table: pa.Table, name: str, rows: I64) -> F64:
    """Column `name` of `table` at `rows`, as floats (NaN for nulls)."""
    values = table[name].to_numpy(zero_copy_only=False)
    return np.asarray(values, dtype=np.float64)[rows]


def pick(lists: pa.ChunkedArray | pa.Array, index: pa.ChunkedArray | pa.Array) -> F64:
    """`lists[i][index[i]]` for every row, as floats (vectorised: pyarrow's
    list_element takes one index for all rows)."""
    if isinstance(lists, pa.ChunkedArray):
        lists = lists.combine_chunks()
    starts = lists.offsets.to_numpy()[:-1]
    flat = np.asarray(lists.values, dtype=np.float64)
    return flat[starts + np.asarray(index, dtype=np.int64)]


def delay_ladders(table: pa.Table) -> Ladders:
    """Ladders of a waiting or discounting run, with LLM economicus's test that
    some money is preferred to none: a ladder that takes the bottom rung ($0
    now) over the delayed amount is incompetent. (Monotonicity in delay is a
    property of a whole set of ladders: `delay_monotone`.)"""
    from dataclasses import replace

    lad = ladders(table)
    if not len(lad.sample):
        return lad
    level = table["level"].to_numpy(zero_copy_only=False).astype(np.float64)
    lowest = np.full(len(lad.sample), np.inf)
    np.minimum.at(lowest, lad.group, level)
    took_nothing = np.isfinite(lad.hi) & (lad.hi <= lowest) & (lowest <= 0)
    reason = lad.reason.copy()
    reason[took_nothing & (reason == "")] = "took nothing now over the delayed amount"
    return replace(lad, competent=lad.competent & ~took_nothing, reason=reason)


def delay_monotone(table: pa.Table, lad: Ladders) -> tuple[float, int]:
    """Share of adjacent delays (per model and delayed amount) whose median
    immediate equivalent (bracket midpoints of the competent ladders, across
    samples) does not rise with the delay, and the number of such pairs."""
    ok = lad.competent & np.isfinite(lad.lo) & np.isfinite(lad.hi)
    if not ok.any():
        return float("nan"), 0
    mid = ((lad.lo + lad.hi) / 2)[ok]
    years = column(table, "years", lad.first)[ok]
    amount = column(table, "amount", lad.first)[ok]
    model = lad.model[ok].astype(str)
    cell_keys = np.char.add(np.char.add(model, "\x1f"), amount.astype(str))
    point_keys = np.char.add(np.char.add(cell_keys, "\x1f"), years.astype(str))
    points, inverse = np.unique(point_keys, return_inverse=True)
    medians = np.array([np.median(mid[inverse == i]) for i in range(len(points))])
    first = np.unique(inverse, return_index=True)[1]
    cells, years_p = cell_keys[first], years[first]
    order = np.lexsort((years_p, cells))
    same = cells[order][1:] == cells[order][:-1]
    rises = medians[order][1:] > medians[order][:-1] + 1e-9
    pairs = int(same.sum())
    return (float(1 - rises[same].mean()) if pairs else float("nan")), pairs
