"""Scenarios: questions built from a template's own sampled variables.

`vars` are drawn, `derive` computed and `require` enforced (see
steer.templates._vars); `choices` turn into lotteries (a sure amount is a
one-outcome lottery) that `max_expected_value` ranks in steer-core; the
`formula` solver evaluates the template's `answer`; `bayes_posterior` runs
Bayes' rule in steer-core on variables named prior / likelihood /
false_alarm (or evidence).
"""

from __future__ import annotations

import re

import numpy as np

from steer import _native
from steer.generate._format import amount, percent
from steer.generate._registry import (
    Instance,
    Resample,
    Solution,
    SolverKind,
    StructureKind,
    distractor,
    register_solver,
    register_structure,
)
from steer.templates._identity import by_identity
from steer.templates._model import GradeSpec, TemplateSpec
from steer.templates._text import placeholders, render
from steer.templates._vars import evaluate, sample_env


def format_var(x: float, fmt: str, t: TemplateSpec) -> str:
    if fmt == "percent":
        return percent(x)
    if "|" in fmt:
        # A two-way wording: the first for a nonzero value ("is"), the second for zero.
        yes, no = fmt.split("|")
        return yes if x else no
    if fmt in ("money", "dollars"):
        # An amount with cents shows them whatever the template's decimals:
        # "$222" for $222.50 (round half to even) would state a false figure,
        # and "$15.6" is no way to write a sum of money.
        decimals = t.decimals
        if decimals < 2 and round(x, decimals) != round(x, 2):
            decimals = 2
        return amount(x, t.unit if fmt == "money" else "", decimals)
    text = amount(x, "", max(t.decimals, 4))
    return text.rstrip("0").rstrip(".") if "." in text else text


_DOLLAR_PLACEHOLDER = re.compile(r"\$\{(\w+)\}")


@by_identity
def _formats(t: TemplateSpec) -> dict[str, str]:
    """How each name a wording of `t` can show is written: its `formats`
    entry, else "dollars" for a name a text writes after a literal dollar
    sign ("${price}", money without the template's unit), else a plain
    number. Names no wording shows are left out: a scenario can derive
    dozens of helper numbers that are never formatted."""
    texts = [
        *t.phrasings,
        t.explanation or "",
        *(c.text for c in t.choices),
        *(p.text for p in t.parts),
        *(o for p in t.parts for o in p.options),
    ]
    shown = {name for text in texts for name in placeholders(text)}
    dollars = {m.group(1) for text in texts for m in _DOLLAR_PLACEHOLDER.finditer(text)}
    return {name: t.formats.get(name, "dollars" if name in dollars else "number") for name in shown}


def scenario_instance(
    rng: np.random.Generator,
    spec: GradeSpec,
    t: TemplateSpec,
    shuffle: bool = True,
    order: list[int] | None = None,
) -> Instance:
    """One draw; `order` fixes the order of the choices (a control part keeps
    its original's), else they are shuffled (or kept, `shuffle=False`)."""
    env = sample_env(rng, t, spec)
    formats = _formats(t)
    fields = {name: format_var(x, formats[name], t) for name, x in env.items() if name in formats}
    data: dict[str, object] = {"env": env}
    if t.answer is not None:
        data["answer"] = t.answer
    choices = None
    if t.choices:
        if order is None:
            n = len(t.choices)
            order = [int(i) for i in rng.permutation(n)] if shuffle else list(range(n))
        lotteries = []
        for i in order:
            c = t.choices[i]
            values = [evaluate(v, env) for v in c.values]
            probs = [evaluate(p, env) for p in c.probs]
            if any(not 0 <= p <= 1 for p in probs) or abs(sum(probs) - 1) > 1e-9:
                raise Resample(f"choice {c.text!r}: probabilities do not form a lottery")
            lotteries.append({"values": values, "probs": probs})
        data["lotteries"] = lotteries
        data["order"] = order
        choices = [render(t.choices[i].text, fields) for i in order]
        fields["n_choices"] = str(len(choices))
    return Instance(data=data, fields=fields, choices=choices)


def _check(spec: GradeSpec, t: TemplateSpec) -> str | None:
    return None


register_structure(
    StructureKind(
        "scenario",
        ("n_choices",),
        scenario_instance,
        _check,
        "the template's own `vars`/`derive`/`require`, with optional `choices` as lotteries",
    )
)


def _formula(instance: Instance) -> Solution:
    value = evaluate(str(instance.data["answer"]), instance.data["env"])
    return Solution(value=value, fields={"answer": f"{value:g}"})


register_solver(
    SolverKind(
        "formula",
        ("scenario",),
        "numeric",
        _formula,
        doc="the template's `answer` expression (arithmetic elements, no game to solve)",
    )
)


def _bayes(instance: Instance) -> Solution:
    env = instance.data["env"]
    prior, likelihood = env["prior"], env["likelihood"]
    if "evidence" in env:
        evidence = env["evidence"]
        if not prior * likelihood <= evidence <= 1:
            raise Resample("evidence probability inconsistent with the prior and likelihood")
        posterior = _native.bayes_rule(prior, likelihood, evidence)
        working = f"{likelihood:g} × {prior:g} / {evidence:g} = {posterior:.4f}"
    else:
        post = _native.bayes_posterior(
            np.array([prior, 1 - prior]), np.array([likelihood, env["false_alarm"]])
        )
        posterior = float(post[0])
        evidence = prior * likelihood + (1 - prior) * env["false_alarm"]
        working = (
            f"P(E) = {prior:g} × {likelihood:g} + {1 - prior:g} × {env['false_alarm']:g} = "
            f"{evidence:.4f}; posterior = {prior * likelihood:.4f} / {evidence:.4f} = "
            f"{posterior:.4f}"
        )
    return Solution(value=posterior, fields={"working": working})


register_solver(
    SolverKind(
        "bayes_posterior",
        ("scenario",),
        "numeric",
        _bayes,
        needs=("prior", "likelihood"),
        doc="P(H | E) by Bayes' rule (steer-core decision::bayes)",
    )
)


def _env(instance: Instance) -> dict[str, float]:
    return instance.data["env"]


@distractor("inverse_conditional", "numeric")
def _inverse_conditional(instance: Instance, _s: Solution) -> float:
    """Confuses P(H | E) with P(E | H)."""
    return _env(instance)["likelihood"]


@distractor("base_rate_neglect", "numeric")
def _base_rate_neglect(instance: Instance, _s: Solution) -> float | None:
    """Ignores the prior: treats both hypotheses as equally likely beforehand."""
    env = _env(instance)
    if "false_alarm" not in env:
        return None
    return env["likelihood"] / (env["likelihood"] + env["false_alarm"])


@distractor("forgot_normalization", "numeric")
def _forgot_normalization(instance: Instance, _s: Solution) -> float:
    """Multiplies prior by likelihood but never divides by P(E)."""
    env = _env(instance)
    return env["prior"] * env["likelihood"]


@distractor("prior_only", "numeric")
def _prior_only(instance: Instance, _s: Solution) -> float:
    """Does not update: reports the prior."""
    return _env(instance)["prior"]


def _evidence(env: dict[str, float]) -> float:
    if "evidence" in env:
        return env["evidence"]
    return env["prior"] * env["likelihood"] + (1 - env["prior"]) * env["false_alarm"]


@distractor("reported_evidence", "numeric")
def _reported_evidence(instance: Instance, _s: Solution) -> float:
    """Reports P(E), the share showing the evidence, as P(H | E)."""
    return _evidence(_env(instance))


@distractor("posterior_odds", "numeric")
def _posterior_odds(instance: Instance, _s: Solution) -> float | None:
    """Divides P(H and E) by P(not H and E): the odds, not the probability.
    Odds of 1 or more are left out: no probability could be read that way, so the
    option would be struck without the skill."""
    env = _env(instance)
    joint = env["prior"] * env["likelihood"]
    rest = _evidence(env) - joint
    return joint / rest if 0 < joint < rest else None


@distractor("one_minus_false_alarm", "numeric")
def _one_minus_false_alarm(instance: Instance, _s: Solution) -> float | None:
    """Takes the test's specificity, 1 - P(E | not H), for P(H | E)."""
    env = _env(instance)
    return 1 - env["false_alarm"] if "false_alarm" in env else None


@distractor("complement_posterior", "numeric")
def _complement_posterior(instance: Instance, solution: Solution) -> float | None:
    """Reports P(not H | E), the other hypothesis's share of the evidence."""
    return None if solution.value is None else 1 - float(solution.value)
