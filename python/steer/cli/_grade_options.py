"""What `steer grade` and `steer report` share: the rubric, config and rule
selection merged from the config file and the command line (flags win)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click

from steer._suggest import did_you_mean
from steer.cli._app import CliError
from steer.rubric import (
    FoundConfig,
    LoadedRubric,
    RubricError,
    Selection,
    find_config,
    load_rubric,
)
from steer.rubric.rules._codes import CODES

DEFAULT_RUBRIC = "whole-benchmark"
F = TypeVar("F", bound=Callable[..., Any])


def split_codes(values: tuple[str, ...]) -> list[str]:
    return [c.strip() for v in values for c in v.split(",") if c.strip()]


@dataclass
class GradeSetup:
    config: FoundConfig
    loaded: LoadedRubric
    selection: Selection


def setup(rubric: str | None, select: list[str], ignore: list[str]) -> GradeSetup:
    """Find the config, load the rubric (any rubric diagnostic is bad input,
    exit 2) and merge the rule selection."""
    found = find_config()
    loaded = load_rubric(rubric or found.config.rubric or DEFAULT_RUBRIC)
    if loaded.warnings:
        raise RubricError(loaded.warnings)
    r, c = loaded.rubric, found.config
    known = [*CODES, *(check.code for check in r.check)]
    for code in [*select, *ignore, *(c.select or []), *c.ignore]:
        if code != "ALL" and not any(k.startswith(code) for k in known):
            hint = did_you_mean(code, known)
            extra = f" — did you mean {hint[0]!r}?" if hint else " (see `steer rules`)"
            where = "" if code in [*select, *ignore] else f"{found.path}: "
            raise CliError(f"{where}unknown rule code or prefix {code!r}{extra}")
    per_model = {k: list(v) for k, v in r.per_model_ignores.items()}
    for model, codes in c.per_model_ignores.items():
        per_model.setdefault(model, []).extend(codes)
    selection = Selection(
        select=select or c.select or r.select or ["ALL"],
        ignore=[*r.ignore, *c.ignore, *ignore],
        per_model_ignores=per_model,
    )
    return GradeSetup(found, loaded, selection)


def response_options(fn: F) -> F:
    """`--bank` and `--dedupe`: what the responses were asked, and how to
    treat one response given twice (shared by score, grade and report)."""
    fn = click.option(
        "--dedupe",
        type=click.Choice(["latest"]),
        default=None,
        help="When two inputs hold the same response (bank, question, model, adaptation, "
        "sample), keep the later recorded one instead of failing.",
    )(fn)
    return click.option(
        "--bank",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="The question bank that bare response tables answered: its questions "
        "without a usable answer count as no-answers (run directories know their bank).",
    )(fn)


def rubric_option() -> Callable[[F], F]:
    return click.option(
        "--rubric",
        "-r",
        metavar="FILE|NAME",
        help=f"Rubric file or shipped rubric name (default: the config's, else {DEFAULT_RUBRIC}).",
    )
