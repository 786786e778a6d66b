"""Project configuration: `steer.toml`, `.steer.toml` or `[tool.steer]` in
`pyproject.toml`, found by walking up from the working directory (the first
folder holding any of them wins; within it, in that order)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from steer.rubric._diagnostic import Diagnostic, Location, RubricError
from steer.rubric._load import (
    display_path,
    read_rubric_text,
    toml_error,
    validation_diagnostics,
)
from steer.rubric._locate import locate_keys

OutputFormat = Literal["text", "json", "markdown", "html", "github", "junit", "sarif"]


class Config(BaseModel):
    """Settings merged under the command line's flags (flags win)."""

    model_config = ConfigDict(extra="forbid")

    rubric: str | None = Field(default=None, description="default rubric: shipped name or path")
    select: list[str] | None = None
    ignore: list[str] = Field(default_factory=list)
    per_model_ignores: dict[str, list[str]] = Field(default_factory=dict)
    format: OutputFormat | None = None
    baseline: str | None = None
    fits: str | None = None


@dataclass
class FoundConfig:
    config: Config
    path: Path | None  # None: no file found, defaults


def find_config(start: Path | None = None) -> FoundConfig:
    """The nearest configuration, validated; defaults when there is none.

    Raises `RubricError` (exit 2) for a malformed file or unknown keys. Paths
    inside it (rubric, baseline, fits) are made relative to its folder.
    """
    folder = (start or Path.cwd()).resolve()
    for directory in (folder, *folder.parents):
        for name in ("steer.toml", ".steer.toml", "pyproject.toml"):
            path = directory / name
            if path.is_file():
                found = _read(path, tool_table=name == "pyproject.toml")
                if found is not None:
                    return FoundConfig(found, path)
    return FoundConfig(Config(), None)


def _read(path: Path, tool_table: bool) -> Config | None:
    file = display_path(path)
    text = read_rubric_text(path, file)  # bad UTF-8 / deep nesting: RUB001 at its line
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg, line, col = toml_error(exc)
        where = Location(file, line, col)
        raise RubricError([Diagnostic("RUB001", "error", f"invalid TOML: {msg}", where)]) from None
    positions = locate_keys(text)
    if tool_table:
        raw = raw.get("tool", {}).get("steer")
        if raw is None:
            return None
        positions = {k[2:]: v for k, v in positions.items() if k[:2] == ("tool", "steer")}
    diagnostics = validation_diagnostics(Config, raw, file, positions)
    if diagnostics:
        raise RubricError(diagnostics)
    config = Config.model_validate(raw)
    for name in ("rubric", "baseline", "fits"):
        value = getattr(config, name)
        if value and (value.endswith((".toml", ".json", ".parquet")) or "/" in value):
            setattr(config, name, str(path.parent / value))
    return config
