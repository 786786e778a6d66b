"""The `steer` command line: one module per command."""

from __future__ import annotations

import click

from steer.cli._app import SteerGroup
from steer.cli.bank_cmd import bank_cmd
from steer.cli.demo_cmd import demo_cmd
from steer.cli.generate_cmd import generate_cmd
from steer.cli.grade_cmd import grade_cmd
from steer.cli.report_cmd import report_cmd
from steer.cli.rubric_cmd import rubric_cmd
from steer.cli.rules_cmd import rules_cmd
from steer.cli.run_cmd import run_cmd
from steer.cli.score_cmd import score_cmd
from steer.cli.taxonomy_cmd import taxonomy_cmd
from steer.cli.templates_cmd import templates_cmd


def _version() -> str:
    from steer import __version__

    return __version__


@click.group(cls=SteerGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(_version(), "--version", prog_name="steer")
def cli() -> None:
    """steer: measure how economically rational an LLM agent is, and grade it."""


for command in (taxonomy_cmd, bank_cmd, generate_cmd, run_cmd, score_cmd, demo_cmd, templates_cmd):
    cli.add_command(command)
cli.add_command(grade_cmd)
cli.add_command(report_cmd)
cli.add_command(rubric_cmd)
cli.add_command(rules_cmd)


def main() -> None:
    """Console entry point. Expected failures are already one-line errors with
    exit 2; anything else is a bug in steer and says so (STEER_DEBUG=1 shows
    the traceback)."""
    import os
    import sys

    try:
        cli(prog_name="steer", standalone_mode=True)
    except BrokenPipeError:
        # Python's recommended handling: silence the flush at exit, exit 1.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(1)
    except Exception as exc:
        if os.environ.get("STEER_DEBUG"):
            raise
        click.echo(
            f"error: internal error ({type(exc).__name__}: {exc}); this is a bug in "
            "steer, please report it (STEER_DEBUG=1 shows the traceback)",
            err=True,
        )
        sys.exit(2)


__all__ = ["cli", "main"]
