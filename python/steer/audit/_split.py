"""Seeded halves of a bank that keep related questions together.

A question's unit is its consistency group or, failing that, its multi-part
base question; every part of a unit lands in the same half, and so do units
whose texts (stem and options) repeat exactly (the minimum of their parts'
hashes is the unit's hash), so a learner never sees the question it is tested on.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pyarrow as pa

_PRIME = np.uint64(0x100000001B3)
_MASK64 = (1 << 64) - 1


def _splitmix(x: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    # Arrays wrap modulo 2^64 silently (scalars would warn), so keep operands arrays.
    x = x + np.array([0x9E3779B97F4A7C15], dtype=np.uint64)
    x = (x ^ (x >> np.uint64(30))) * np.array([0xBF58476D1CE4E5B9], dtype=np.uint64)
    x = (x ^ (x >> np.uint64(27))) * np.array([0x94D049BB133111EB], dtype=np.uint64)
    return x ^ (x >> np.uint64(31))


def string_hashes(strings: pa.Array | pa.ChunkedArray) -> npt.NDArray[np.uint64]:
    """A 64-bit hash of each string's UTF-8 bytes, computed without a Python
    loop: Σ_k (byte_k + 1)·P^k mod 2^64, mixed with the length by splitmix64.
    Nulls hash like the empty string."""
    if isinstance(strings, pa.ChunkedArray):
        strings = strings.combine_chunks()
    arr = strings.cast(pa.large_binary()).fill_null(b"")
    n = len(arr)
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int64)[arr.offset : arr.offset + n + 1]
    data_buf = arr.buffers()[2]
    start, end = int(offsets[0]), int(offsets[-1])
    data = (
        np.frombuffer(data_buf, dtype=np.uint8)[start:end].astype(np.uint64)
        if data_buf is not None
        else np.zeros(0, dtype=np.uint64)
    )
    rel = offsets - start
    lengths = np.diff(rel)
    longest = int(lengths.max()) if n else 0
    powers = np.ones(max(longest, 1), dtype=np.uint64)
    powers[1:] = np.cumprod(np.full(len(powers) - 1, _PRIME, dtype=np.uint64))
    pos = np.arange(len(data), dtype=np.int64) - np.repeat(rel[:-1], lengths)
    contrib = (data + np.uint64(1)) * powers[pos]
    csum = np.concatenate([np.zeros(1, dtype=np.uint64), np.cumsum(contrib, dtype=np.uint64)])
    total = csum[rel[1:]] - csum[rel[:-1]]
    return _splitmix(total ^ lengths.astype(np.uint64))


def halves(
    texts: pa.Array | pa.ChunkedArray, units: npt.NDArray[np.int64], n_units: int, seed: int
) -> npt.NDArray[np.int8]:
    """Half (0 or 1) of every row: rows of one unit, and units with the same
    texts, share a half. `units[i]` is row i's unit code in [0, n_units)."""
    row_hash = string_hashes(texts)
    unit_hash = np.full(n_units, np.iinfo(np.uint64).max, dtype=np.uint64)
    np.minimum.at(unit_hash, units, row_hash)
    mixed = _splitmix(unit_hash ^ np.array([seed & _MASK64], dtype=np.uint64))
    return (mixed >> np.uint64(63)).astype(np.int8)[units]
