"""Position robustness: does the answer survive a reshuffle of the options?

Runs with `order=shuffle:K` ask every question under K permutations of its
options, journaled under the adaptations `…;order=shuffle:K/i` with the
chosen option mapped back to the bank's order (see steer.adapt._order).
Over the questions asked under at least two permutations:

* `position_agreement`: the chance that two different permutations of a
  question chose the same option (Σ_c n_c(n_c − 1) / (m(m − 1)), n_c the
  permutations choosing option c, m those asked; a no-answer agrees with
  nothing), averaged over questions. 1 for a model that reads the content,
  near 0 for one that always picks the same letter.
* `position_robustness`: accuracy under the worst permutation, i.e. the share
  of answer-graded questions answered right under *every* permutation asked
  (a no-answer is wrong).

Both are per question part. They are computed per group of `by`, with the
adaptation's permutation index dropped: the K cards `…;order=shuffle:K/0` …
`/K−1` of a run share one value. Intervals: percentile bootstrap over the
questions of a group, the stream seeded by `seed` and the group's key.
Vectorised: integer codes, bincounts and one unique over (question, choice);
Python loops only over groups (for the bootstrap).
"""

from __future__ import annotations

import hashlib
import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from steer import _native
from steer.adapt._order import order_column
from steer.score._columns import group_key_strings, key_columns, prepare

POSITION_METRICS = ("position_agreement", "position_robustness")
_INDEX = r";order=(shuffle:\d+)/\d+$"
_INDEXED = re.compile(r"shuffle:\d+/\d+")


def _coarse_orders(orders: pa.Array) -> pa.Array:
    """`shuffle:K/i` → `shuffle:K` over a dictionary of orders."""
    return pc.replace_substring_regex(orders.cast(pa.string()), r"/\d+$", "")


def _coarse(labels: pa.Array | pa.ChunkedArray) -> pa.Array:
    """Adaptation labels without the permutation index (`…;order=shuffle:K`)."""
    return pc.replace_substring_regex(labels.cast(pa.string()), _INDEX, r";order=\1")


def _coarse_keys(keys: pa.Table) -> pa.Table:
    if "adaptation" not in keys.column_names:
        return keys
    i = keys.column_names.index("adaptation")
    return keys.set_column(i, "adaptation", _coarse(keys["adaptation"]))


def _codes(strings: list[str]) -> tuple[np.ndarray, list[str]]:
    encoded = pc.dictionary_encode(pa.array(strings, pa.string()))
    return (
        np.asarray(encoded.indices, dtype=np.int64),
        [str(s) for s in encoded.dictionary.to_pylist()],
    )


def question_values(
    responses: pa.Table, by: list[str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """Per question asked under ≥ 2 permutations: (group code, agreement,
    right under every permutation — NaN for consistency-graded parts), and
    the group key strings (adaptation without its permutation index)."""
    empty: tuple[np.ndarray, np.ndarray, np.ndarray, list[str]] = (
        np.zeros(0, np.int64),
        np.zeros(0),
        np.zeros(0),
        [],
    )
    if not responses.num_rows or "adaptation" not in responses.column_names:
        return empty
    # Which rows carry a permutation index: decided once per distinct order.
    order = pc.dictionary_encode(order_column(responses["adaptation"].combine_chunks()))
    indexed = np.array(
        [_INDEXED.fullmatch(str(v)) is not None for v in order.dictionary.to_pylist()] + [False]
    )
    shuffled = indexed[np.asarray(pc.fill_null(order.indices, -1), dtype=np.int64)]
    if not shuffled.any():
        return empty
    table = responses.filter(pa.array(shuffled))
    columns, keys = prepare(table, by).codes()
    coarse = group_key_strings(_coarse_keys(keys))
    group_of_code, group_strings = _codes(coarse)
    group = group_of_code[np.asarray(columns["group"], dtype=np.int64)]
    # A question: its group, the run's adaptation (index dropped), bank, id and
    # sample, as integer codes (labels are built per distinct value, not per row).
    names = ["adaptation", "question_id"]
    names += [n for n in ("bank_sha256", "sample") if n in table.column_names]
    unit_keys = []
    for name, indices, dictionary in key_columns(table, names):
        if name == "adaptation.order":
            base = pc.dictionary_encode(_coarse_orders(dictionary))
            lookup = np.append(np.asarray(base.indices, dtype=np.int32), np.int32(-1))
            indices = np.ascontiguousarray(lookup[indices], dtype=np.int32)
            dictionary = base.dictionary
        unit_keys.append((indices, len(dictionary)))
    unit, first = _native.encode_groups(
        [np.ascontiguousarray(group, dtype=np.int32), *(k[0] for k in unit_keys)],
        [len(group_strings), *(k[1] for k in unit_keys)],
    )
    unit = np.asarray(unit, dtype=np.int64)
    n_units = len(first)
    chosen = np.asarray(pc.fill_null(table["chosen_index"], -1), dtype=np.int64)
    if "error" in table.column_names:
        failed = np.asarray(pc.fill_null(pc.not_equal(table["error"], ""), False), dtype=bool)
        chosen = np.where(failed, -1, chosen)
    correct_col = table["correct_index"]
    graded = np.asarray(pc.is_valid(correct_col), dtype=bool)
    correct = np.asarray(pc.fill_null(correct_col, -2), dtype=np.int64)

    asked = np.bincount(unit, minlength=n_units).astype(np.float64)
    answered = chosen >= 0
    width = int(chosen.max()) + 2 if len(chosen) else 1
    pair = unit[answered] * width + chosen[answered]
    values, counts = np.unique(pair, return_counts=True)
    same = np.bincount(values // width, weights=counts * (counts - 1.0), minlength=n_units).astype(
        np.float64
    )
    eligible = asked >= 2
    with np.errstate(invalid="ignore", divide="ignore"):
        agreement = same / (asked * (asked - 1))
    wrong = np.bincount(unit, weights=graded & (chosen != correct), minlength=n_units)
    is_graded = np.bincount(unit, weights=graded, minlength=n_units) > 0
    worst = np.where(is_graded, (wrong == 0).astype(np.float64), np.nan)
    first = np.full(n_units, -1, dtype=np.int64)
    first[unit[::-1]] = np.arange(len(unit))[::-1]
    unit_group = group[first]
    return unit_group[eligible], agreement[eligible], worst[eligible], group_strings


def _group_means(group: np.ndarray, values: np.ndarray, n_groups: int) -> np.ndarray:
    ok = ~np.isnan(values)
    total = np.bincount(group[ok], weights=values[ok], minlength=n_groups)
    n = np.bincount(group[ok], minlength=n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = total / n
    out[n == 0] = np.nan
    return out


def _bootstrap(
    values: np.ndarray, resamples: int, seed: int, key: str, level: float
) -> tuple[float, float]:
    """Percentile interval of the mean of `values` (NaN left out), resampling
    them with replacement; the stream is seeded by `seed` and `key`. A
    question's values are few (0/1, or k(k−1)/2 + 1 agreement levels), so a
    replicate is one multinomial draw over the distinct values: exact, and
    O(resamples × distinct values) whatever the number of questions."""
    values = values[~np.isnan(values)]
    if not len(values):
        return float("nan"), float("nan")
    digest = hashlib.blake2b(f"{seed}\x1f{key}".encode(), digest_size=8).digest()
    rng = np.random.default_rng(int.from_bytes(digest, "little"))
    levels, counts = np.unique(values, return_counts=True)
    draws = rng.multinomial(len(values), counts / len(values), size=resamples)
    means = draws @ levels / len(values)
    tail = (1 - level) / 2
    lo, hi = np.percentile(means, [100 * tail, 100 * (1 - tail)])
    return float(lo), float(hi)


def position_metrics(
    out: pa.Table,
    responses: pa.Table,
    by: list[str],
    names: list[str],
    *,
    resamples: int = 0,
    seed: int = 0,
    level: float | None = None,
) -> pa.Table:
    """Add the requested position metrics (and `_lo`/`_hi` with a bootstrap)
    to the scored groups `out`."""
    group, agreement, worst, strings = question_values(responses, by)
    n_groups = len(strings)
    per_metric = {"position_agreement": agreement, "position_robustness": worst}
    target = group_key_strings(_coarse_keys(out.select(by))) if out.num_rows else []
    where = {s: i for i, s in enumerate(strings)}
    rows = np.array([where.get(s, -1) for s in target], dtype=np.int64)
    for name in names:
        values = _group_means(group, per_metric[name], n_groups)
        picked = np.where(rows >= 0, values[np.maximum(rows, 0)] if n_groups else np.nan, np.nan)
        out = out.append_column(name, pa.array(picked, from_pandas=True))
        if resamples > 0 and level is not None:
            bounds = [
                _bootstrap(per_metric[name][group == g], resamples, seed, strings[g], level)
                for g in range(n_groups)
            ]
            lo = np.array([b[0] for b in bounds] + [np.nan])
            hi = np.array([b[1] for b in bounds] + [np.nan])
            pick = np.where(rows >= 0, rows, n_groups)
            out = out.append_column(f"{name}_lo", pa.array(lo[pick], from_pandas=True))
            out = out.append_column(f"{name}_hi", pa.array(hi[pick], from_pandas=True))
    return out
