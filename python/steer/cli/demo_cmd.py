"""`steer demo`: the whole pipeline on the embedded default, offline."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import click

from steer._json import json_safe
from steer.bank import write_bank
from steer.cli._limits import SEED
from steer.generate import generate_bank
from steer.report import build_card
from steer.run import run_bank
from steer.score import score

DEMO_ELEMENTS = ("steer.1.1.c", "steer.2.4.b", "steer.3.1.b")
DEMO_AGENTS = ("agent:oracle", "agent:random")


@click.command("demo")
@click.option(
    "--out",
    "-o",
    type=click.Path(file_okay=False, path_type=Path),
    help="Keep the bank and runs in this directory (default: a temporary one).",
)
@click.option("--seed", default=0, show_default=True, type=SEED)
@click.option(
    "--per-cell",
    default=4,
    show_default=True,
    type=click.IntRange(1),
    help="Questions per template × grade.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report card as JSON.")
@click.option(
    "--experiments",
    is_flag=True,
    help="Instead: play every behavioural experiment with reference agents of known "
    "preferences, fit them, grade the parameters (rubric 'preferences') and write a "
    "report with the figures.",
)
@click.option(
    "--samples",
    default=10,
    show_default=True,
    type=click.IntRange(1, 1000),
    help="--experiments: samples of each trial.",
)
def demo_cmd(
    out: Path | None, seed: int, per_cell: int, as_json: bool, experiments: bool, samples: int
) -> None:
    """Generate a small bank, answer it with reference agents, print a report card.

    Three elements (1.1.c compute expectations, 2.4.b maximize expected
    utility, 3.1.b best response), two agents (oracle and random). No network,
    no GPU. With --experiments: the behavioural experiments instead (see
    `steer play`, `steer fit`).
    """
    if experiments:
        from steer.cli._demo_experiments import demo_experiments

        demo_experiments(out, seed=seed, samples=samples, as_json=as_json)
        return
    with tempfile.TemporaryDirectory(prefix="steer-demo-") as tmp:
        root = out or Path(tmp)
        bank = generate_bank(list(DEMO_ELEMENTS), per_cell=per_cell, seed=seed)
        bank_path = write_bank(bank, root / "bank.parquet")
        runs = [
            run_bank(bank_path, agent, root / "runs" / agent.replace(":", "-"), seed=seed)
            for agent in DEMO_AGENTS
        ]
        # The run directories, not their tables: their manifests say what was
        # asked, so the card counts every asked question.
        scored = score([r.directory for r in runs], by=["model", "element"])
        card = build_card(
            scored,
            title=f"steer demo — {bank.num_rows} questions, "
            f"{len(DEMO_ELEMENTS)} elements, seed {seed}",
        )
        if as_json:
            click.echo(json.dumps(json_safe(card.to_dict()), indent=2, allow_nan=False))
        else:
            click.echo(card.render_text())
            where = (
                f"bank and runs kept in {out}"
                if out
                else "pass --out DIR to keep the bank and runs"
            )
            click.echo(
                f"\n({where}; grades: A ≥ 0.9, B ≥ 0.8, C ≥ 0.7, D ≥ 0.6 normalized "
                "accuracy, where 0 is random guessing)"
            )
