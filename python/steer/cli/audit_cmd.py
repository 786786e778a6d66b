"""`steer bank audit`: the shortcut audit, failing like a linter."""

from __future__ import annotations

from pathlib import Path

import click

from steer.cli._limits import SEED

EXIT_FAILED = 1


@click.command("audit")
@click.argument("bank", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--format",
    "fmt_",
    type=click.Choice(["text", "json", "csv", "markdown"]),
    default="text",
    show_default=True,
    help="Report format; csv has one row per element and agent, then the graded "
    "learner's rows (overall and per module).",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the report here (replaced atomically) instead of standard output.",
)
@click.option(
    "--responses",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the bank answered by the cross-fitted blind learner as a response "
    "table (Parquet, model agent:blind-learner) for `steer grade --bank BANK`.",
)
@click.option(
    "--seed",
    type=SEED,
    default=0,
    show_default=True,
    help="Seed of the halves.",
)
@click.option(
    "--threshold",
    type=click.FloatRange(0, 100),
    default=10.0,
    show_default=True,
    help="Fail an element when a blind agent beats chance by more than this many points.",
)
@click.option(
    "--min-n",
    type=click.IntRange(1),
    default=400,
    show_default=True,
    help="Held-out questions an element needs to be judged.",
)
@click.option(
    "--rubric",
    "-r",
    metavar="NAME|FILE",
    default="whole-benchmark",
    show_default=True,
    help="Rubric (shipped name or file) the blind learner's answers are graded under.",
)
@click.option(
    "--max-learner-score",
    type=click.FloatRange(-1, 1),
    default=0.05,
    show_default=True,
    help="Fail when the graded blind learner scores above this overall "
    "(the rubric's metric; random guessing scores 0 in normalized accuracy).",
)
@click.option(
    "--max-module-score",
    type=click.FloatRange(-1, 1),
    default=0.10,
    show_default=True,
    help="Fail when the graded blind learner scores above this in any module "
    "(the rubric's innermost sections).",
)
@click.option(
    "--no-learner",
    is_flag=True,
    help="Skip the scikit-learn agent, and with it the graded learner (faster).",
)
@click.option(
    "--exit-zero",
    is_flag=True,
    help="Exit 0 even when elements fail or the graded learner is above its bars.",
)
def audit_cmd(
    bank: Path,
    fmt_: str,
    output: Path | None,
    responses: Path | None,
    seed: int,
    threshold: float,
    min_n: int,
    rubric: str,
    max_learner_score: float,
    max_module_score: float,
    no_learner: bool,
    exit_zero: bool,
) -> None:
    """Flag elements whose keys blind agents can guess (shortcut audit).

    Answers BANK with blind agents that never solve a question (always the
    first/last/longest option, the largest number, "cannot be determined",
    Yes/No, the element's favourite key text, the union of the other options,
    and a logistic regression over option form and number-masked text,
    cross-fitted on seeded halves) and flags every element where one beats
    chance by more than --threshold points. Also reports key-position balance
    (χ²), key-text diversity, option counts and Yes/No balance.

    The learner's cross-fitted answers to the whole bank are graded under
    --rubric like a model's run: its score overall and per module is printed,
    and the audit fails when it is above --max-learner-score overall or
    --max-module-score in any module (a content-blind agent should score
    about 0, like random guessing).

    Per element the report also gives the share of distractors tagged
    `other` (BAL001 when 10% or more), the largest deviation of a
    perspective from an even fifth (BAL002 beyond ±20%) and the share of
    two-option items where their template offers more (BAL003 above 10%):
    listed as findings, not failed on (imported banks carry neither tags nor
    perspectives). CI generates a seeded bank of every element and holds it
    to all of these (tests/test_quality_gate.py).

    Exit 0 when no element fails and the graded learner is within its bars,
    1 otherwise, 2 on bad input.
    """
    from steer._atomic import atomic_path
    from steer.audit import audit_frame, blind_responses, build_frame, render
    from steer.audit.agents import learner_available
    from steer.bank import file_sha256, read_bank
    from steer.errors import InputError

    if responses and (no_learner or not learner_available()):
        why = "--no-learner" if no_learner else "scikit-learn is not installed"
        raise InputError(
            f"--responses needs the learned agent, but {why} (pip install 'steer[audit]')"
        )
    table = read_bank(bank)
    frame = build_frame(table, seed)
    sha = file_sha256(bank)
    report, choices = audit_frame(
        frame,
        source=str(bank),
        seed=seed,
        threshold=threshold / 100,
        min_n=min_n,
        learner=not no_learner,
        rubric=None if no_learner else rubric,
        max_learner_score=max_learner_score,
        max_module_score=max_module_score,
        bank_sha256=sha,
    )
    text = render(report, fmt_)  # type: ignore[arg-type]
    if responses:
        import pyarrow.parquet as pq

        answered = blind_responses(frame, choices, sha)
        with atomic_path(responses) as tmp:
            pq.write_table(answered, tmp)
    if output:
        with atomic_path(output) as tmp:
            tmp.write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)
    if report.failed and not exit_zero:
        click.get_current_context().exit(EXIT_FAILED)
