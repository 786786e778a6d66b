"""The `steer` click group and its error handling.

Every `SteerError` becomes one line on stderr and exit status 2 (bad input or
usage, like a linter); a `steer grade` failure will use 1; success is 0.
"""

from __future__ import annotations

from typing import Any

import click

from steer.errors import InputError, InternalError, SteerError

EXIT_BAD_INPUT = 2


class CliError(click.ClickException):
    exit_code = EXIT_BAD_INPUT

    def show(self, file: Any = None) -> None:
        click.echo(f"error: {self.format_message()}", err=True)


class SteerGroup(click.Group):
    """A click group that turns steer's exceptions into one-line errors."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except InternalError as exc:
            raise CliError(f"{exc}") from exc
        except (InputError, SteerError) as exc:
            raise CliError(str(exc)) from exc
        except BrokenPipeError:
            raise  # the reader went away (e.g. `| head`); main() exits quietly
        except OSError as exc:
            target = f"{exc.filename}: " if exc.filename else ""
            raise CliError(f"{target}{exc.strerror or exc}") from exc


def parse_grades(value: str | None) -> tuple[int, int] | None:
    """'3-6' → (3, 6); '5' → (5, 5)."""
    if value is None:
        return None
    lo, sep, hi = value.partition("-")
    try:
        grades = (int(lo), int(hi) if sep else int(lo))
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a grade range like 3-6") from None
    if not 0 <= grades[0] <= grades[1] <= 14:
        raise click.BadParameter(f"{value!r}: grades run from 0 to 14, low before high")
    return grades


def grades_option() -> Any:
    return click.option(
        "--grades",
        "grades",
        metavar="LO-HI",
        callback=lambda _c, _p, v: parse_grades(v),
        help="Grade-level range, e.g. 3-6 (or a single grade).",
    )


def json_option() -> Any:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
