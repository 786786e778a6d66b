"""`steer rules`: the diagnostic codes, and one rule's documentation."""

from __future__ import annotations

import importlib
import json

import click

from steer.cli._app import CliError
from steer.report import render_table
from steer.rubric.rules._codes import CODES, by_name

# How every rule's metrics treat questions without a usable answer.
NO_ANSWERS = (
    "Scores count every question asked (a run's manifest, or --bank for bare tables). "
    "A no-answer (no row, an error, an unparsable reply) counts as wrong in exact_match, "
    "gap and normalized_accuracy_strict, and as chance (0) in normalized_accuracy; "
    "RAT012-RAT014 report coverage and the no-answer rate. "
    "Under --adapt order=shuffle:K, position_agreement (chance two permutations of a "
    "question chose the same option) counts a no-answer as agreeing with nothing, and "
    "position_robustness (right under every permutation) as wrong."
)


@click.command("rules")
@click.argument("code", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def rules_cmd(code: str | None, as_json: bool) -> None:
    """List every diagnostic code, or document one (by code or name)."""
    if code is None:
        rows = [c for c in CODES.values()]
        if as_json:
            click.echo(
                json.dumps(
                    [
                        {
                            "code": c.code,
                            "name": c.name,
                            "severity": c.severity,
                            "summary": c.summary,
                        }
                        for c in rows
                    ],
                    indent=2,
                )
            )
            return
        table = [[c.code, c.name, c.severity, c.summary] for c in rows]
        click.echo(render_table(["code", "name", "severity", "summary"], table, "llll"))
        click.echo(f"\n{NO_ANSWERS}")
        return
    found = CODES.get(code.upper()) or by_name(code)
    if found is None:
        from steer._suggest import did_you_mean

        hint = did_you_mean(code, [*CODES, *(c.name for c in CODES.values())])
        extra = f" — did you mean {hint[0]!r}?" if hint else ""
        raise CliError(f"unknown rule {code!r}{extra}")
    doc = found.summary
    if found.module:
        module = importlib.import_module(f"steer.rubric.rules.{found.module}")
        doc = (module.__doc__ or found.summary).strip()
    if as_json:
        click.echo(json.dumps({"code": found.code, "name": found.name, "doc": doc}, indent=2))
    else:
        click.echo(f"{found.code} {found.name} (default severity: {found.severity})\n\n{doc}")
