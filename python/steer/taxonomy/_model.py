"""The taxonomy's records: settings contain modules, modules contain elements."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Benchmark = Literal["steer", "steer-me"]
GRADE_MIN, GRADE_MAX = 0, 14


def slugify(name: str) -> str:
    """'Theory of Mind' → 'theory_of_mind'."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Setting(_Record):
    id: str
    name: str
    benchmark: Benchmark

    @property
    def label(self) -> str:
        """The id without the benchmark prefix, e.g. '3'."""
        return self.id.split(".", 1)[1]


class Module(_Record):
    id: str
    name: str
    setting: str
    benchmark: Benchmark

    @property
    def slug(self) -> str:
        return slugify(self.name)

    @property
    def label(self) -> str:
        return self.id.split(".", 1)[1]


class Element(_Record):
    """One element of rationality, the unit questions and scores are keyed by."""

    id: str = Field(description="stable id, e.g. 'steer.3.1.e' or 'steer-me.A.12'")
    slug: str
    name: str
    definition: str
    setting: str
    module: str
    benchmark: Benchmark
    grades: tuple[int, int] = Field(description="inclusive grade-level range")
    grade_source: Literal["paper", "steer"]
    requires: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """The id without the benchmark prefix, e.g. '3.1.e' or 'A.12'."""
        return self.id.split(".", 1)[1]

    @field_validator("grades")
    @classmethod
    def _grade_range(cls, v: tuple[int, int]) -> tuple[int, int]:
        lo, hi = v
        if not GRADE_MIN <= lo <= hi <= GRADE_MAX:
            raise ValueError(
                f"grades must be [low, high] with {GRADE_MIN} <= low <= high <= {GRADE_MAX}, "
                f"got [{lo}, {hi}]"
            )
        return v

    @model_validator(mode="after")
    def _no_self_loop(self) -> Element:
        if self.id in self.requires:
            raise ValueError(f"{self.id} lists itself in requires")
        return self

    def covers_grades(self, lo: int, hi: int) -> bool:
        """True when the element's grade range overlaps [lo, hi]."""
        return self.grades[0] <= hi and lo <= self.grades[1]


# --- the on-disk file format (templates/taxonomy/*.toml) ---------------------


class SettingEntry(_Record):
    id: str
    name: str


class ModuleEntry(_Record):
    id: str
    name: str


class ElementEntry(_Record):
    id: str
    slug: str
    name: str
    definition: str
    grades: tuple[int, int]
    grade_source: Literal["paper", "steer"]
    requires: list[str] = []
    aliases: list[str] = []
    # STEER-ME element ids (A.12) do not encode their module, so they name it.
    module: str | None = None

    @field_validator("definition")
    @classmethod
    def _one_line(cls, v: str) -> str:
        if "\n" in v.strip():
            raise ValueError("definition must be a single line")
        return v.strip()


class TaxonomyFile(_Record):
    benchmark: Benchmark
    title: str
    setting: list[SettingEntry]
    module: list[ModuleEntry]
    element: list[ElementEntry]
