"""The `steer` command line: one module per command."""

from __future__ import annotations

import importlib
from typing import Any

import click

from steer._suggest import did_you_mean
from steer.cli._app import SteerGroup

# name → "module:attribute". Commands are imported when used, so `steer
# generate` does not pay for the report, grading and run machinery.
COMMANDS = {
    "analyze": "steer.cli.analyze_cmd:analyze_cmd",
    "bank": "steer.cli.bank_cmd:bank_cmd",
    "compare": "steer.cli.compare_cmd:compare_cmd",
    "demo": "steer.cli.demo_cmd:demo_cmd",
    "fit": "steer.cli.fit_cmd:fit_cmd",
    "generate": "steer.cli.generate_cmd:generate_cmd",
    "grade": "steer.cli.grade_cmd:grade_cmd",
    "play": "steer.cli.play_cmd:play_cmd",
    "plot": "steer.cli.plot_cmd:plot_cmd",
    "rephrase": "steer.cli.rephrase_cmd:rephrase_cmd",
    "report": "steer.cli.report_cmd:report_cmd",
    "rubric": "steer.cli.rubric_cmd:rubric_cmd",
    "rules": "steer.cli.rules_cmd:rules_cmd",
    "run": "steer.cli.run_cmd:run_cmd",
    "score": "steer.cli.score_cmd:score_cmd",
    "show": "steer.cli.show_cmd:show_cmd",
    "survey": "steer.cli.survey_cmd:survey_cmd",
    "taxonomy": "steer.cli.taxonomy_cmd:taxonomy_cmd",
    "templates": "steer.cli.templates_cmd:templates_cmd",
    "view": "steer.cli.view_cmd:view_cmd",
}


class LazySteerGroup(SteerGroup):
    """The top-level group: subcommands load on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMANDS})

    def get_command(self, ctx: click.Context, name: str) -> Any:
        if name in COMMANDS and name not in self.commands:
            module, attribute = COMMANDS[name].split(":")
            self.add_command(getattr(importlib.import_module(module), attribute), name)
        return super().get_command(ctx, name)

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            # Worded as click words it for the subgroups, which it can list.
            close = did_you_mean(name, self.list_commands(ctx), n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            ctx.fail(f"No such command {name!r}.{hint}")
        return super().resolve_command(ctx, args)


def _version() -> str:
    from steer import __version__

    return __version__


@click.group(cls=LazySteerGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(_version(), "--version", prog_name="steer")
def cli() -> None:
    """steer: measure how economically rational an LLM agent is, and grade it."""


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
