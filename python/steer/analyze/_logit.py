"""The same factors in a logistic regression: correctness is binary, so the
linear model's F tests are checked by likelihood-ratio tests of a binomial
GLM (logit link), one per factor dropped from the full model.

The model is fitted on cells by iteratively reweighted least squares: the
binomial likelihood of the rows is the cells' (every row of a cell shares
its prediction), and so are differences of deviance. Where a cell is all
right or all wrong the estimates run off to infinity (separation); the
deviance still converges, so the likelihood-ratio statistics stay usable,
and the fit is marked. Checked against statsmodels' GLM in the tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from steer.analyze._cells import Cells, Floats, design
from steer.stats._distributions import chi2_sf

MAX_ITERATIONS = 100
CLIP = 1e-12


@dataclass(frozen=True)
class Fit:
    log_likelihood: float
    rank: int
    converged: bool
    separated: bool


@dataclass(frozen=True)
class LrTerm:
    factor: str
    df: int
    chi2: float | None
    p: float | None
    note: str = ""


@dataclass(frozen=True)
class Logit:
    n: int
    pseudo_r2: float | None
    converged: bool
    separated: bool
    terms: list[LrTerm]


def _log_likelihood(n: Floats, s: Floats, p: Floats) -> float:
    p = np.clip(p, CLIP, 1 - CLIP)
    return float(s @ np.log(p) + (n - s) @ np.log1p(-p))


def fit_logit(x: Floats, n: Floats, s: Floats) -> Fit:
    """Maximum likelihood of the binomial GLM with logit link by IRLS, with
    step halving whenever a step lowers the likelihood."""
    rate = (s + 0.5) / (n + 1.0)
    z = np.log(rate / (1 - rate))
    root = np.sqrt(n)
    coef, _, rank, _ = np.linalg.lstsq(x * root[:, None], z * root, rcond=None)
    eta = x @ coef
    ll = _log_likelihood(n, s, 1 / (1 + np.exp(-eta)))
    converged = False
    for _ in range(MAX_ITERATIONS):
        p = np.clip(1 / (1 + np.exp(-eta)), CLIP, 1 - CLIP)
        w = n * p * (1 - p)
        work = eta + (s - n * p) / w
        rw = np.sqrt(w)
        new, _, rank, _ = np.linalg.lstsq(x * rw[:, None], work * rw, rcond=None)
        step = new - coef
        for _ in range(30):
            candidate = coef + step
            eta_new = x @ candidate
            ll_new = _log_likelihood(n, s, 1 / (1 + np.exp(-eta_new)))
            if ll_new >= ll - 1e-12 * (1 + abs(ll)):
                break
            step = step / 2
        gain = ll_new - ll
        coef, eta, ll = candidate, eta_new, ll_new
        if abs(gain) <= 1e-10 * (1 + abs(ll)):
            converged = True
            break
    p = 1 / (1 + np.exp(-eta))
    # A cell fitted at (almost) 0 or 1 with responses on the other side or
    # an estimate running away: separation.
    separated = bool(np.any((p < 1e-8) | (p > 1 - 1e-8)))
    return Fit(ll, int(rank), converged, separated)


def logit_lr_tests(cells: Cells) -> Logit:
    """Likelihood-ratio χ² of each factor given all the others."""
    total = int(cells.total)
    if total == 0:
        return Logit(0, None, True, False, [])
    full = fit_logit(design(cells), cells.n, cells.s)
    null_rate = cells.s.sum() / cells.total
    null_ll = _log_likelihood(cells.n, cells.s, np.full(len(cells.n), null_rate))
    pseudo = 1 - full.log_likelihood / null_ll if null_ll < 0 else None
    terms = []
    converged, separated = full.converged, full.separated
    for f, name in enumerate(cells.names):
        if len(cells.levels[f]) < 2:
            terms.append(LrTerm(name, 0, None, None, "one level: nothing to compare"))
            continue
        reduced = fit_logit(design(cells, without=f), cells.n, cells.s)
        converged = converged and reduced.converged
        separated = separated or reduced.separated
        df = full.rank - reduced.rank
        if df == 0:
            note = "determined by the other factors (aliased): no separate test"
            terms.append(LrTerm(name, 0, None, None, note))
            continue
        chi2 = max(2 * (full.log_likelihood - reduced.log_likelihood), 0.0)
        p = chi2_sf(chi2, df)
        terms.append(LrTerm(name, df, chi2, p if math.isfinite(p) else None))
    return Logit(total, pseudo, converged, separated, terms)
