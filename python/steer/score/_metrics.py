"""The metric registry: names, definitions and how each is computed from cells.

Cell metrics are ratios of additive sums (so they survive merging); the
others need the rows again (equal-mass ECE) or a finer grouping (robustness,
dependency robustness).

Every answer metric is taken over the questions *asked* (`n_units`), answered
or not, so leaving questions out never shrinks the denominator: a no-answer is
wrong for `exact_match`, `gap`, `normalized_accuracy_strict` and the
worst-group robustness metrics, which therefore cannot be raised by not
answering, and scores chance (0) for `normalized_accuracy` (where a no-answer
beats a wrong answer: grade on the strict variant). A consistency-graded
question with a part unanswered counts as violated.

An answer with no listed option (`chosen_index` −2: a free-text number that
matches neither the key nor a distractor) is answered and wrong everywhere:
−p/(1−p) in both normalized accuracies, wrong for `exact_match` and `gap`, a
violation for `consistency`, and never part of `no_answer_rate`; only a reply
with no answer at all (−1) is a no-answer.

Free text: under `--adapt free` the adaptation separates the cards, so
`exact_match` on a free-text card IS the free-text exact match within
tolerance (STEER-ME's: the number read matches the key at 3 significant
figures or within 1%, or the template's absolute tolerance for a zero key,
and is closer to the key than to every distractor; categorical questions by
the key option's words). `--by adaptation` shows MC and free text apart;
`--by answer_kind` splits numeric questions (with an `answer_value`) from
categorical ones, which STEER-ME reports apart in free-text mode.

`error_rate` is a family: one column `error_rate:<type>` per error type
present (wrong answers of that type / questions asked), from additive
`n_error:<type>` counts that merge like every other cell. A wrong answer's
type is the chosen option's tag (`x+wrong_tens_digit` counts under `x`;
`untagged` for an option without a tag) or `off_options` for −2; each wrong
part of a multi-part question counts once (consistency-graded parts have no
key, hence no error type). On single-part questions the rates of a group sum
to 1 − exact match − no-answer rate.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from steer._suggest import did_you_mean
from steer.errors import UnknownNameError

Cells = Mapping[str, np.ndarray]
Kind = Literal["cell", "equal_mass", "robustness", "dependency", "position", "errors"]


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.asarray(num, dtype=np.float64) / np.asarray(den, dtype=np.float64)
    out[np.asarray(den) == 0] = np.nan  # undefined, never a silent zero
    return out


def _ece(c: Cells) -> np.ndarray:
    gap = np.abs(np.asarray(c["ece_acc"], dtype=np.float64) - c["ece_conf"]).sum(axis=1)
    return _ratio(gap, c["n_prob"])


@dataclass(frozen=True)
class Metric:
    name: str
    doc: str
    kind: Kind
    compute: Callable[[Cells], np.ndarray] | None = None
    bootstrap: bool = False  # the Rust bootstrap resamples it (robustness: see _robustness)


METRICS: dict[str, Metric] = {
    m.name: m
    for m in (
        Metric(
            "exact_match",
            "share of questions asked answered right (multi-part: every part); "
            "a no-answer counts as wrong",
            "cell",
            lambda c: _ratio(c["n_correct"], c["n_units"]),
            True,
        ),
        Metric(
            "normalized_accuracy",
            "+1 right, −p/(1−p) wrong, 0 for a no-answer (chance), over questions asked; "
            "random guessing scores 0",
            "cell",
            lambda c: _ratio(c["sum_norm"], c["n_units"]),
            True,
        ),
        Metric(
            "normalized_accuracy_strict",
            "normalized accuracy with a no-answer scored wrong (−p/(1−p))",
            "cell",
            lambda c: _ratio(c["sum_norm_strict"], c["n_units"]),
            True,
        ),
        Metric(
            "gap",
            "accuracy minus the random-guess rate over questions asked, a no-answer "
            "counting as wrong (the 2024 harness's variant)",
            "cell",
            lambda c: _ratio(np.asarray(c["n_correct"]) - c["sum_p_random"], c["n_units"]),
            True,
        ),
        Metric(
            "no_answer_rate",
            "share of questions asked without a usable answer",
            "cell",
            lambda c: _ratio(c["n_no_answer"], c["n_units"]),
            True,
        ),
        Metric(
            "error_rate",
            "per error type: wrong answers of that type / questions asked, one column "
            "`error_rate:<type>` each (the chosen option's tag, `off_options` for a "
            "free-text number matching no option); counts `n_error:<type>` merge by adding",
            "errors",
        ),
        Metric(
            "consistency",
            "share of consistency-graded questions answered consistently; "
            "a no-answer counts as a violation",
            "cell",
            lambda c: _ratio(c["n_consistent"], c["n_consistency"]),
            True,
        ),
        Metric(
            "ece",
            "expected calibration error, equal-width bins over the top option's probability",
            "cell",
            _ece,
            True,
        ),
        Metric(
            "ece_equal_mass",
            "expected calibration error with equal-mass bins",
            "equal_mass",
            bootstrap=True,
        ),
        Metric(
            "brier",
            "mean over questions of (1/|O|) Σ (p(o) − 1[o correct])²",
            "cell",
            lambda c: _ratio(c["sum_brier"], c["n_prob"]),
            True,
        ),
        Metric(
            "epa",
            "expected probability on the correct option",
            "cell",
            lambda c: _ratio(c["sum_p_correct"], c["n_prob"]),
            True,
        ),
        Metric(
            "invalid_mass",
            "mean probability mass off the options before renormalising",
            "cell",
            lambda c: _ratio(c["sum_invalid_mass"], c["n_prob"]),
            True,
        ),
        Metric(
            "domain_robustness",
            "minimum strict normalized accuracy over domains (a no-answer is wrong)",
            "robustness",
        ),
        Metric(
            "type_robustness",
            "minimum strict normalized accuracy over question types (a no-answer is wrong)",
            "robustness",
        ),
        Metric(
            "perspective_robustness",
            "minimum strict normalized accuracy over perspectives (a no-answer is wrong)",
            "robustness",
        ),
        Metric(
            "dependency_robustness",
            "Σ over prerequisites x scoring below the element: "
            "|gap(s) − gap(x)|, gap = normalized accuracy (a no-answer scores 0)",
            "dependency",
        ),
        Metric(
            "position_robustness",
            "under order=shuffle:K: share of questions answered right under every "
            "permutation of their options (accuracy under the worst permutation)",
            "position",
        ),
        Metric(
            "position_agreement",
            "under order=shuffle:K: chance that two permutations of a question chose "
            "the same option (a no-answer agrees with nothing)",
            "position",
        ),
    )
}

DEFAULT_METRICS = ("exact_match", "normalized_accuracy", "no_answer_rate", "ece", "brier", "epa")


def resolve_metrics(names: Sequence[str] | None) -> list[Metric]:
    """Metrics by name (default set when None), with 'did you mean' for typos."""
    out = []
    for name in names or DEFAULT_METRICS:
        if name not in METRICS:
            raise UnknownNameError("metric", name, did_you_mean(name, METRICS))
        out.append(METRICS[name])
    return out
