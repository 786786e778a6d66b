"""Response keys: (bank_sha256, question_id, model, adaptation, sample).

The same key in two inputs is an error naming both files (passing one run
twice would count it twice); `dedupe="latest"` keeps, per key, the row with
the latest `recorded_at`, rows without one losing to rows with one, and ties
going to the input given later. A no-answer row added for coverage never
displaces a real response: it is dropped where any input answered the key.
Vectorised: key codes from the native group encoder, then numpy and Arrow
hash aggregations; nothing loops over rows.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from steer import _native
from steer.errors import InputError, row_location

KEY = ("bank_sha256", "question_id", "model", "adaptation", "sample")
Dedupe = Literal["latest"] | None


def key_codes(table: pa.Table) -> np.ndarray:
    """A dense int code per row: equal codes, equal keys (missing columns
    count as one value)."""
    from steer.score._columns import key_columns

    by = [c for c in KEY if c in table.column_names and not _constant(table[c])]
    if not by:
        return np.zeros(table.num_rows, np.int64)
    keys = key_columns(table, by)
    codes, _ = _native.encode_groups([k[1] for k in keys], [len(k[2]) for k in keys])
    return np.asarray(codes, dtype=np.int64)


def _constant(column: pa.ChunkedArray) -> bool:
    """One value in every row (e.g. sample 0 throughout): it cannot tell keys
    apart, so it is left out of the encoding (a min/max pass, not a hash)."""
    if column.null_count or pa.types.is_dictionary(column.type) or pa.types.is_struct(column.type):
        return False
    if not len(column):
        return True
    bounds = pc.min_max(column)
    return bool(bounds["min"].as_py() == bounds["max"].as_py())


def resolve_keys(
    table: pa.Table,
    origin: np.ndarray,
    names: list[str],
    filled: np.ndarray | None,
    dedupe: Dedupe,
) -> pa.Table:
    """Check or resolve duplicate keys of a concatenation of inputs.

    `origin` is each row's input index (non-decreasing along the rows),
    `names` the inputs' names, `filled` marks the no-answer rows added for
    coverage (None: none). Without `dedupe`, real rows of one key in two
    inputs are an InputError naming both; repeats within one input stay.
    """
    if "question_id" not in table.column_names or not table.num_rows:
        return table
    codes = key_codes(table)
    n_codes = int(codes.max()) + 1
    real = np.ones(len(codes), bool) if filled is None else ~filled
    real_count = np.bincount(codes, weights=real, minlength=n_codes)
    has_real = real_count > 0
    if dedupe is None:
        _check_distinct(table, codes[real], origin[real], np.nonzero(real)[0], names)
        if filled is None or not filled.any():
            return table
        # Drop fillers where some input answered; one filler per key otherwise.
        fill_rows = np.nonzero(filled & ~has_real[codes])[0]
        _, first = np.unique(codes[fill_rows], return_index=True)
        keep = real.copy()
        keep[fill_rows[first]] = True
        return table.filter(pa.array(keep))
    # Latest: real beats filler, then the latest recorded_at, then the later row
    # (inputs are concatenated in the order given).
    cand = real == has_real[codes]
    if "recorded_at" in table.column_names:
        rec = table["recorded_at"].to_numpy(zero_copy_only=False).astype(np.float64)
        rec = np.where(np.isnan(rec), -np.inf, rec)
        top = np.full(n_codes, -np.inf)
        np.maximum.at(top, codes[cand], rec[cand])
        cand &= rec == top[codes]
    idx = np.nonzero(cand)[0]
    last = np.full(n_codes, -1, np.int64)
    np.maximum.at(last, codes[idx], idx)
    if n_codes == table.num_rows:
        return table
    keep = np.zeros(table.num_rows, bool)
    keep[last] = True
    return table.filter(pa.array(keep))


def check_within(table: pa.Table, name: str) -> None:
    """Raise if two rows of one input hold the same key: padding a table with
    copies of its rows would otherwise count them as more answers."""
    if "question_id" not in table.column_names or table.num_rows < 2:
        return
    codes = key_codes(table)
    order = np.argsort(codes, kind="stable")
    ranked = codes[order]
    repeat = np.nonzero(ranked[1:] == ranked[:-1])[0]
    if not len(repeat):
        return
    # The pair whose later row comes first in the file.
    k = repeat[np.argmin(order[repeat + 1])]
    a, b = int(order[k]), int(order[k + 1])
    row = table.take(pa.array([a])).to_pylist()[0]
    what = f"question `{row.get('question_id')}` of `{row.get('model')}`"
    sample = row.get("sample")
    if sample:
        what += f" (sample {sample})"
    raise InputError(
        f"{name}: {row_location(name, a)} and {row_location(name, b)} both hold the response "
        f"to {what} (same bank_sha256, question_id, model, adaptation and sample); "
        "give each response once, or pass --dedupe latest to keep the latest"
    )


def _check_distinct(
    table: pa.Table, codes: np.ndarray, origin: np.ndarray, rows: np.ndarray, names: list[str]
) -> None:
    """Raise if a key has rows from two different inputs."""
    if len(names) < 2 or not len(codes):
        return
    n_codes = int(codes.max()) + 1
    count = np.bincount(codes, minlength=n_codes)
    total = np.bincount(codes, weights=origin, minlength=n_codes)
    low = np.full(n_codes, len(names), np.int64)
    # Rows come in input order, so a key's first row has its lowest input.
    _, first = np.unique(codes, return_index=True)
    low[codes[first]] = origin[first]
    mixed = np.nonzero(total != count * low)[0]
    if not len(mixed):
        return
    code = mixed[0]
    mine = np.nonzero(codes == code)[0]
    a = mine[0]
    b = mine[np.nonzero(origin[mine] != origin[a])[0][0]]
    row = table.take(pa.array([rows[a]])).to_pylist()[0]
    what = f"question `{row.get('question_id')}` of `{row.get('model')}`"
    sample = row.get("sample")
    if sample:
        what += f" (sample {sample})"
    raise InputError(
        f"{names[origin[a]]} and {names[origin[b]]} both hold the response to {what}; "
        "give each run once, or pass --dedupe latest to keep the later answer"
    )


def filler_mask(table: pa.Table, lengths: list[int], added: list[int]) -> np.ndarray:
    """Rows added for coverage: each input's last `added[i]` rows."""
    mask = np.zeros(table.num_rows, bool)
    start = 0
    for n, extra in zip(lengths, added, strict=True):
        if extra:
            mask[start + n - extra : start + n] = True
        start += n
    return mask


def origins(lengths: list[int]) -> np.ndarray:
    return np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
