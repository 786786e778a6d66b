"""Rubrics: TOML files saying what to grade and which checks must pass, and the
engine that grades runs under them (`steer grade`)."""

from steer.rubric._baseline import Baseline, read_baseline, write_baseline
from steer.rubric._card import CardCoverage, ElementScore, GradeResult, ModelCard, SectionScore
from steer.rubric._config import Config, FoundConfig, find_config
from steer.rubric._diagnostic import Diagnostic, Location, RubricError, Severity
from steer.rubric._fits import Fit, Fits, read_fits
from steer.rubric._grade import grade
from steer.rubric._load import (
    LoadedRubric,
    check_rubric,
    display_path,
    load_rubric,
    resolve_rubric,
    shipped_rubrics,
)
from steer.rubric._model import Check, Rubric, Section
from steer.rubric._selection import Selection

__all__ = [
    "Baseline",
    "CardCoverage",
    "Check",
    "Config",
    "Diagnostic",
    "ElementScore",
    "Fit",
    "Fits",
    "FoundConfig",
    "GradeResult",
    "LoadedRubric",
    "Location",
    "ModelCard",
    "Rubric",
    "RubricError",
    "Section",
    "SectionScore",
    "Selection",
    "Severity",
    "check_rubric",
    "display_path",
    "find_config",
    "grade",
    "load_rubric",
    "read_baseline",
    "read_fits",
    "resolve_rubric",
    "shipped_rubrics",
    "write_baseline",
]
