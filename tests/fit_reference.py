"""Plain-Python references for the utility fits (steer.fit): value and
weighting functions, certainty equivalents, switching gains, the fits'
objectives, and simulators of subjects answering the LLM economicus designs
(TK 1992 certainty-equivalent ladders, mixed gambles, waiting, ultimatum)."""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import norm

# TK 1992's 28 gain prospects: (x_lo, x_hi, probabilities of x_hi).
TK_GAINS = [
    (0.0, 50.0, (0.1, 0.5, 0.9)),
    (0.0, 100.0, (0.05, 0.25, 0.5, 0.75, 0.95)),
    (0.0, 200.0, (0.01, 0.1, 0.5, 0.9, 0.99)),
    (0.0, 400.0, (0.01, 0.99)),
    (50.0, 100.0, (0.1, 0.5, 0.9)),
    (50.0, 150.0, (0.05, 0.25, 0.5, 0.75, 0.95)),
    (100.0, 200.0, (0.05, 0.25, 0.5, 0.75, 0.95)),
]
MIXED_LOSSES = (-50.0, -100.0, -200.0, -400.0)
MIXED_P = (0.25, 0.5, 0.75, 0.9)
LADDER = (10.0 ** (np.arange(7) / 6.0) - 1.0) / 9.0


def w(p: float, c: float) -> float:
    if p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    return p**c / (p**c + (1.0 - p) ** c) ** (1.0 / c)


def ce(theta: tuple[float, ...], x1: float, p1: float, x2: float, p2: float) -> float:
    """Certainty equivalent of a one-sign two-outcome prospect (TK 1992)."""
    alpha, beta, _lam, gamma, delta = theta[:5]
    if abs(x1) > abs(x2):
        (xh, ph), xl = (x1, p1), x2
    else:
        (xh, ph), xl = (x2, p2), x1
    if max(x1, x2) > 0:
        wh = w(ph, gamma)
        v = wh * xh**alpha + (1 - wh) * xl**alpha
        return v ** (1 / alpha)
    wh = w(ph, delta)
    u = wh * (-xh) ** beta + (1 - wh) * (-xl) ** beta
    return -(u ** (1 / beta))


def g_star(theta: tuple[float, ...], loss: float, p_loss: float) -> float:
    """The gain that makes the mixed gamble (loss, p_loss; G) worth nothing."""
    alpha, beta, lam, gamma, delta = theta[:5]
    return (lam * w(p_loss, delta) * (-loss) ** beta / w(1 - p_loss, gamma)) ** (1 / alpha)


def model_values(theta: tuple[float, ...], data: dict[str, np.ndarray]) -> np.ndarray:
    out: list[float] = []
    for k, a1, q1, a2, q2 in zip(
        data["kind"], data["x1"], data["p1"], data["x2"], data["p2"], strict=True
    ):
        out.append(ce(theta, a1, q1, a2, q2) if k == 0 else g_star(theta, a1, q1))
    return np.array(out)


def scales(data: dict[str, np.ndarray]) -> np.ndarray:
    k, x1, p1, x2 = data["kind"], data["x1"], data["p1"], data["x2"]
    be = -x1 * p1 / (1 - p1)
    return np.where(k == 0, np.abs(np.nan_to_num(x2) - x1), be)


def ssr(theta: tuple[float, ...], data: dict[str, np.ndarray]) -> float:
    """The lm objective: squared distance to the closed brackets' midpoints."""
    closed = ~np.isnan(data["lo"]) & ~np.isnan(data["hi"])
    sub = {k: v[closed] for k, v in data.items()}
    mid = 0.5 * (sub["lo"] + sub["hi"])
    return float(np.sum((model_values(theta, sub) - mid) ** 2))


def nll(theta: tuple[float, ...], data: dict[str, np.ndarray]) -> float:
    """The mle objective at (α, β, λ, γ, δ, σ): interval-censored normal."""
    sigma = theta[5]
    m = model_values(theta, data)
    sd = sigma * scales(data)
    lo = np.where(np.isnan(data["lo"]), -np.inf, data["lo"])
    hi = np.where(np.isnan(data["hi"]), np.inf, data["hi"])
    a, b = (lo - m) / sd, (hi - m) / sd
    # log(Φ(b) − Φ(a)) computed on the side away from the tails.
    upper = a > 0
    with np.errstate(all="ignore"):
        la = np.where(upper, norm.logsf(a), norm.logcdf(b))
        lb = np.where(upper, norm.logsf(b), norm.logcdf(a))
        lp = la + np.log1p(-np.exp(lb - la))
        total = float(-np.sum(lp))
    return total if math.isfinite(total) else 1e300


def pt_design() -> dict[str, np.ndarray]:
    """56 certainty-equivalent tasks (28 gains, 28 mirrored losses) and 16 mixed
    gambles, one subject; lo/hi left empty."""
    kind, x1, p1, x2, p2 = [], [], [], [], []
    for sign in (1.0, -1.0):
        for lo, hi, ps in TK_GAINS:
            for p in ps:
                kind.append(0)
                x1.append(sign * lo)
                p1.append(1.0 - p)
                x2.append(sign * hi)
                p2.append(p)
    for loss in MIXED_LOSSES:
        for p in MIXED_P:
            kind.append(1)
            x1.append(loss)
            p1.append(p)
            x2.append(math.nan)
            p2.append(math.nan)
    return {
        "kind": np.array(kind, np.int64),
        "x1": np.array(x1),
        "p1": np.array(p1),
        "x2": np.array(x2),
        "p2": np.array(p2),
    }


def bracket(value: float, rungs: np.ndarray) -> tuple[float, float]:
    """The consecutive rungs (sorted ascending) around `value`; NaN = open."""
    i = int(np.searchsorted(rungs, value))
    lo = rungs[i - 1] if i > 0 else math.nan
    hi = rungs[i] if i < len(rungs) else math.nan
    return lo, hi


def simulate_pt(
    theta: tuple[float, ...],
    sigma: float,
    rng: np.random.Generator,
    mixed_span: tuple[float, float] = (0.5, 30.0),
) -> dict[str, np.ndarray]:
    """A subject with `theta` answering `pt_design()`: its switch value is the
    model's plus N(0, (σ s)²), bracketed by the seven-rung sure-amount ladder
    (certainty equivalents) or by seven gains log-spaced in `mixed_span` × g*
    (mixed gambles, g* the break-even gain). The LLM economicus span
    (0.75, 1.75) censors every mixed answer of a subject with λ ≳ 2 above, so
    λ = 4 would not be identified; the default span reaches such subjects."""
    d = pt_design()
    m = model_values(theta, d)
    y = m + sigma * scales(d) * rng.standard_normal(len(m))
    lo, hi = [], []
    for i, k in enumerate(d["kind"]):
        if k == 0:
            rungs = np.sort(d["x1"][i] + (d["x2"][i] - d["x1"][i]) * LADDER)
        else:
            be = -d["x1"][i] * d["p1"][i] / (1 - d["p1"][i])
            rungs = np.geomspace(mixed_span[0] * be, mixed_span[1] * be, 7)
        a, b = bracket(y[i], rungs)
        lo.append(a)
        hi.append(b)
    d["lo"], d["hi"] = np.array(lo), np.array(hi)
    return d


def stack(subjects: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Many subjects as one batch with a `group` column (their index)."""
    out = {k: np.concatenate([s[k] for s in subjects]) for k in subjects[0]}
    out["group"] = np.concatenate(
        [np.full(len(s["kind"]), i, np.int64) for i, s in enumerate(subjects)]
    )
    return out
