"""RAT007 regression.

What: with `--baseline`, flags an element whose score dropped below the
baseline's for the same model and adaptation, by a paired test over the
questions both answered (McNemar's exact test for exact match, the paired
bootstrap for other metrics; a no-answer counts as wrong on its side), when
the drop is significant at `[rules.regression] level` after
multiple-comparison control across the card's elements (`correction`: Holm by
default, Benjamini–Hochberg or none). A version-1 baseline holds no questions:
there the element's interval must lie wholly below the baseline's.

Why: CI gates must fail on real drops and stay quiet on noise. Pairing
removes question difficulty from the comparison, so real drops are found with
fewer questions, and correcting across elements keeps a card with many
elements from failing by chance.

Example: baseline exact match 0.95, now 0.60 on the same 60 questions →
RAT007 `steer.1.1.c` regressed: exact_match −0.350 [−0.483, −0.233] …,
adjusted p = 1.9e-09.
"""

from __future__ import annotations

from collections.abc import Iterator

from steer.rubric._baseline import Summary
from steer.rubric._card import ModelCard
from steer.rubric._diagnostic import Diagnostic
from steer.rubric.rules._context import RuleContext, fmt
from steer.score._outcomes import OUTCOME_METRICS
from steer.stats import compare, significant_drops

CODE = "RAT007"
HINT = "if the drop is intended, rewrite the baseline with --write-baseline"
TESTS = {"mcnemar": "McNemar exact test", "bootstrap": "paired bootstrap"}
ADJUSTED = {
    "holm": "Holm-adjusted p",
    "bh": "Benjamini–Hochberg-adjusted p",
    "none": "unadjusted p",
}


def paired_metric(metric: str) -> str:
    """The per-question metric a paired test uses for a rubric metric."""
    return metric if metric in OUTCOME_METRICS else "exact_match"


def _signed(x: float) -> str:
    """`x` with its sign, zero always as +0.000 (never -0.000)."""
    return f"{round(x, 3) + 0.0:+.3f}"


def pvalue(p: float) -> str:
    return f"{p:.2g}" if p < 0.001 else f"{p:.3f}"


def run(ctx: RuleContext) -> Iterator[Diagnostic]:
    baseline = ctx.baseline
    if baseline is None:
        return
    rubric = ctx.loaded.rubric
    options = rubric.rules.regression
    for card in ctx.cards:
        found, current = ctx.baseline_match(baseline, card)
        if found.differs:
            continue  # RAT010 says what differs
        if found.card is None or current is None:
            summary = baseline.scores.get(card.model, {})
            if found.card is not None:
                summary = found.card.summary
            yield from _interval_rule(ctx, card, summary, baseline.metric or rubric.metric)
            continue
        metric = paired_metric(rubric.metric)
        table = compare(
            found.card.questions,
            current,
            metric,
            level=options.level,
            correction=options.correction,
            resamples=options.resamples,
            seed=options.seed,
        )
        adjusted = ADJUSTED[options.correction]
        for row in significant_drops(table, options.level).to_pylist():
            yield ctx.diagnostic(
                CODE,
                f"`{row['cell']}` regressed: {metric} {fmt(row['b'])} against baseline "
                f"{fmt(row['a'])}, difference {_signed(row['diff'])} "
                f"[{_signed(row['lo'])}, {_signed(row['hi'])}] over {row['n']} paired questions "
                f"({TESTS[row['test']]}, p = {pvalue(row['p'])}, {adjusted} = "
                f"{pvalue(row['p_adjusted'])} < {options.level:g})",
                model=card.model,
                element=row["cell"],
                severity=options.severity,
                hint=HINT,
            )


def _interval_rule(
    ctx: RuleContext, card: ModelCard, before: Summary, metric: str
) -> Iterator[Diagnostic]:
    """Unpaired: the element's interval lies wholly below the baseline's."""
    for element, es in card.elements.items():
        old = before.get(element)
        _, hi = es.bounds.get(metric, (None, None))
        if old is None or hi is None or old.get("lo") is None:
            continue
        old_lo = float(old["lo"])  # type: ignore[arg-type]
        if hi >= old_lo:
            continue
        yield ctx.diagnostic(
            CODE,
            f"`{element}` regressed: {metric} {fmt(es.value(metric))} (CI up to "
            f"{fmt(hi)}) against baseline {fmt(old.get('value'))} (CI from {fmt(old_lo)}; "
            "not paired: a version-1 baseline)",
            model=card.model,
            element=element,
            severity=ctx.loaded.rubric.rules.regression.severity,
            hint=HINT,
        )
