"""Type II ANOVA of a main-effects linear model, from cells.

Type II because generated banks are unbalanced: each factor's sum of squares
is what it adds to a model holding every other factor, whatever the order.
For main effects alone that is the drop in residual sum of squares when the
factor joins the others; its degrees of freedom are the rise in the design's
rank, so a factor the others already determine (a template type found in one
element only) shows zero degrees of freedom and no test, instead of a
spurious one. Checked against statsmodels' `anova_lm(typ=2)` in the tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from steer.analyze._cells import Cells, Floats, design
from steer.stats._distributions import f_sf


@dataclass(frozen=True)
class Term:
    factor: str
    levels: int
    df: int
    sum_sq: float
    f: float | None
    p: float | None
    eta_sq_partial: float | None
    note: str = ""


@dataclass(frozen=True)
class Anova:
    n: int
    r2: float | None
    df_resid: int
    rss: float
    terms: list[Term]


def weighted_fit(x: Floats, n: Floats, mean: Floats) -> tuple[float, int]:
    """(Σ n·(mean − fit)², rank of x) for least squares of the cell means
    weighted by the cell counts: the between-cell part of the residual sum of
    squares of the row-level fit."""
    root = np.sqrt(n)
    coef, _, rank, _ = np.linalg.lstsq(x * root[:, None], mean * root, rcond=None)
    resid = mean - x @ coef
    return float(n @ (resid * resid)), int(rank)


def type2_anova(cells: Cells) -> Anova:
    """Sums of squares, F and p of each factor given all the others."""
    total = cells.total
    if total == 0:
        return Anova(0, None, 0, 0.0, [])
    mean = cells.s / cells.n
    within = float(np.sum(cells.q - cells.s * mean))
    tss = float(cells.q.sum() - cells.s.sum() ** 2 / total)
    between, rank = weighted_fit(design(cells), cells.n, mean)
    rss = max(within + between, 0.0)
    df_resid = int(total) - rank
    r2 = 1.0 - rss / tss if tss > 0 else None
    terms = []
    for f, name in enumerate(cells.names):
        k = len(cells.levels[f])
        if k < 2:
            terms.append(Term(name, k, 0, 0.0, None, None, None, "one level: nothing to compare"))
            continue
        reduced, rank_reduced = weighted_fit(design(cells, without=f), cells.n, mean)
        ss = max(reduced - between, 0.0)
        df = rank - rank_reduced
        if df == 0:
            note = "determined by the other factors (aliased): no separate test"
            terms.append(Term(name, k, 0, 0.0, None, None, None, note))
            continue
        if df_resid <= 0 or rss <= 0:
            terms.append(Term(name, k, df, ss, None, None, None, "no residual variance"))
            continue
        f_stat = (ss / df) / (rss / df_resid)
        p = f_sf(f_stat, df, df_resid)
        eta = ss / (ss + rss) if ss + rss > 0 else None
        terms.append(Term(name, k, df, ss, f_stat, p if math.isfinite(p) else None, eta))
    return Anova(int(total), r2, df_resid, rss, terms)
