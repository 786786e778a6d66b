"""Responses collapsed to cells: one per combination of factor levels.

A main-effects model gives every response in a cell the same prediction, so
least squares and the binomial likelihood need only each cell's count, sum
and sum of squares: a million responses become a few thousand cells, and no
dense design matrix of the rows is ever built.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Codes = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Cells:
    """`codes[f][c]`: the level of factor f in cell c; `n`, `s`, `q`: each
    cell's count of responses, sum of y and sum of y²."""

    names: list[str]
    levels: list[list[str]]
    codes: list[Codes]
    n: Floats
    s: Floats
    q: Floats

    @property
    def total(self) -> float:
        return float(self.n.sum())


def collapse(names: list[str], levels: list[list[str]], codes: list[Codes], y: Floats) -> Cells:
    """Cells of the rows' factor codes (each `codes[f]` holds 0..len(levels[f])-1)."""
    stacked = np.stack(codes, axis=1) if codes else np.zeros((len(y), 0), dtype=np.int64)
    if len(y) == 0:
        return Cells(names, levels, [np.zeros(0, np.int64) for _ in codes], *[np.zeros(0)] * 3)
    unique, inverse = np.unique(stacked, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    n = np.bincount(inverse).astype(np.float64)
    s = np.bincount(inverse, weights=y).astype(np.float64)
    q = np.bincount(inverse, weights=y * y).astype(np.float64)
    return Cells(names, levels, [unique[:, f].astype(np.int64) for f in range(len(codes))], n, s, q)


def design(cells: Cells, without: int | None = None) -> Floats:
    """Intercept and treatment-coded dummies (first level as reference) of
    every factor but `without`, one row per cell."""
    blocks = [np.ones((len(cells.n), 1))]
    for f, (codes, levels) in enumerate(zip(cells.codes, cells.levels, strict=True)):
        if f == without or len(levels) < 2:
            continue
        block = np.zeros((len(codes), len(levels) - 1))
        hit = codes > 0
        block[np.flatnonzero(hit), codes[hit] - 1] = 1.0
        blocks.append(block)
    return np.hstack(blocks)
