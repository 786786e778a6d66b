"""Solvers that prove answer keys. The arithmetic runs in steer-core (Rust)."""

from __future__ import annotations

import numpy as np

from steer import _native
from steer.generate._format import amount, percent
from steer.generate._registry import Instance, Resample, Solution, SolverKind, register_solver


def _lottery_lists(
    lotteries: list[dict[str, list[float]]],
) -> tuple[list[float], list[float], list[int]]:
    """Outcomes and probabilities back to back, with each lottery's offset:
    plain lists, which steer-core reads faster than numpy builds arrays of a
    handful of numbers."""
    values: list[float] = []
    probs: list[float] = []
    offsets = [0]
    for lot in lotteries:
        values += lot["values"]
        probs += lot["probs"]
        offsets.append(len(values))
    return values, probs, offsets


def _expected_value(instance: Instance) -> Solution:
    values = np.asarray(instance.data["values"], dtype=np.float64)
    probs = np.asarray(instance.data["probs"], dtype=np.float64)
    ev = _native.expected_value(values, probs)
    terms = " + ".join(f"{percent(p)} × {amount(v)}" for v, p in zip(values, probs, strict=True))
    return Solution(value=ev, fields={"working": f"{terms} = {amount(ev)}", "answer": amount(ev)})


register_solver(
    SolverKind(
        "expected_value",
        ("lottery",),
        "numeric",
        _expected_value,
        doc="Σ p·x of the lottery (steer-core decision::expected_value)",
        bounds=lambda instance: (min(instance.data["values"]), max(instance.data["values"])),
    )
)


def _max_expected_value(instance: Instance) -> Solution:
    lotteries = instance.data["lotteries"]
    best, evs = _native.rank_expected_values(*_lottery_lists(lotteries))
    if len(best) != 1:
        raise Resample("several options share the highest expected value")
    ranked = sorted(evs, reverse=True)
    if ranked[0] - ranked[1] < 0.01 * abs(ranked[0]):
        raise Resample("best option is not clearly ahead")
    choices = instance.choices
    assert choices is not None

    # Sure amounts (every option one outcome) have values, not expectations.
    sure = all(len(lottery["values"]) == 1 for lottery in lotteries)
    label = "" if sure else "expected "
    # Sums of money in the template's unit where the structure passes it on.
    unit = instance.fields.get("unit", "")

    def working() -> dict[str, str]:
        return {
            "working": "; ".join(
                f"{c}: {label}{amount(ev, unit)}" for c, ev in zip(choices, evs, strict=True)
            )
        }

    return Solution(choice=best[0], fields={"answer": choices[best[0]]}, explain=working)


register_solver(
    SolverKind(
        "max_expected_value",
        # `scenario` options are sure amounts computed from the sampled numbers.
        ("lottery_choice", "scenario"),
        "choice",
        _max_expected_value,
        doc="the option with the highest expected value, required unique by a 1% margin",
    )
)

register_solver(
    SolverKind(
        "best_stored_option",
        # Logic, beliefs and preference structures check every option themselves
        # (truth tables, set models, who saw what) and store the verdict as a
        # score per option: 1 for the answer that follows, 0 otherwise. The key
        # is re-derived from those stored scores, in steer-core, like a menu of
        # sure amounts.
        (
            "preference_chain",
            "syllogism",
            "conditional_syllogism",
            "equivalent_conditional",
            "preference_pair",
            "belief_story",
        ),
        "choice",
        _max_expected_value,
        doc="the option the structure's own check scores highest, required unique",
    )
)


def _best_response(instance: Instance) -> Solution:
    payoffs = np.asarray(instance.data["payoffs"], dtype=np.float64)
    player, against = instance.data["player"], instance.data["against"]
    best = _native.best_response(payoffs, player, against)
    if len(best) != 1:
        raise Resample("tied best responses")
    assert instance.choices is not None
    own = payoffs[:, against, 0] if player == 0 else payoffs[against, :, 1]
    working = ", ".join(f"{c} pays {amount(v)}" for c, v in zip(instance.choices, own, strict=True))
    answer = instance.choices[best[0]]
    return Solution(
        choice=best[0],
        fields={
            "working": f"Against {instance.fields['against']}: {working}; {answer} pays most.",
            "answer": answer,
        },
    )


register_solver(
    SolverKind(
        "best_response",
        ("bimatrix",),
        "choice",
        _best_response,
        doc="the asked player's unique best reply (steer-core games::Bimatrix::best_responses)",
    )
)
