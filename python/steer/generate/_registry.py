"""Registries of structures, solvers and distractor generators.

Templates name these by string; the loader checks each name against the
registry (with 'did you mean') before any question is generated.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

import numpy as np

if TYPE_CHECKING:
    from steer.templates._model import GradeSpec, TemplateSpec

T = TypeVar("T")
AnswerKind = Literal["numeric", "choice", "text", "consistency"]


class Resample(Exception):  # noqa: N818 - a control-flow signal, not an error
    """The sampled problem is unusable (a tie, a degenerate game): draw again."""


@dataclass
class Instance:
    """A sampled problem: `data` is its JSON payload, `fields` its text pieces,
    `choices` the natural answer options for choice questions."""

    data: dict[str, Any]
    fields: dict[str, str]
    choices: list[str] | None = None
    # More text fields, made only when the question is rendered (text_fields):
    # a sampler's draw can still be rejected by its solver, and a drawn game's
    # table text is wasted on it. Draw-free: every random draw of the instance
    # is made before the sampler returns, so deferring changes no stream.
    defer: Callable[[], dict[str, str]] | None = None

    def text_fields(self) -> dict[str, str]:
        """Every text field, the deferred ones made now (once: they join `fields`)."""
        if self.defer is not None:
            self.fields.update(self.defer())
            self.defer = None
        return self.fields


@dataclass
class Solution:
    """The solver's answer: a number (`value`), the index of a choice, or a
    text (`text`, with `pool` holding other well-formed wrong texts)."""

    value: float | None = None
    choice: int | None = None
    fields: dict[str, str] = field(default_factory=dict)
    text: str | None = None
    # Other well-formed wrong texts; a callable is only called when needed.
    pool: Sequence[str] | Callable[[], Sequence[str]] = field(default_factory=list)
    # More text fields (the working), made only when the question is rendered:
    # a solve that only checks a key (a re-solve of a payload) needs just the answer.
    explain: Callable[[], dict[str, str]] | None = None

    def text_fields(self) -> dict[str, str]:
        return self.fields if self.explain is None else {**self.fields, **self.explain()}


class LazyTexts(Sequence[str]):
    """`n` texts made one at a time by `make(i)`: a pool of every strategy
    profile can run to a thousand texts of which a question uses two or three."""

    def __init__(self, n: int, make: Callable[[int], str]) -> None:
        self._n, self._make = n, make

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return [self._make(k) for k in range(*i.indices(self._n))]
        if not -self._n <= i < self._n:
            raise IndexError(i)
        return self._make(i % self._n)


def lazy_texts(items: Sequence[T], make: Callable[[T], str]) -> LazyTexts:
    """A pool whose i-th text is `make(items[i])`, made only when drawn."""
    return LazyTexts(len(items), lambda i: make(items[i]))


def near_max(values: Sequence[float]) -> list[int]:
    """Indices of the values within numpy.isclose's default tolerance (1e-8 +
    1e-5·|max|) of the largest: the same answer as
    `np.flatnonzero(np.isclose(v, v.max()))` for finite values, at a small
    fraction of its cost on the handful of payoffs a solver compares."""
    top = max(values)
    slack = 1e-8 + 1e-5 * abs(top)
    return [i for i, v in enumerate(values) if abs(v - top) <= slack]


@dataclass(frozen=True)
class StructureKind:
    name: str
    fields: tuple[str, ...]
    sample: Callable[[np.random.Generator, GradeSpec, TemplateSpec], Instance]
    check: Callable[[GradeSpec, TemplateSpec], str | None]
    doc: str = ""


@dataclass(frozen=True)
class SolverKind:
    name: str
    structures: tuple[str, ...]
    answer: AnswerKind
    solve: Callable[[Instance], Solution]
    fields: tuple[str, ...] = ("working", "answer")
    doc: str = ""
    needs: tuple[str, ...] = ()  # template variables the solver reads
    # Where a numeric answer lies whatever the numbers (an expectation: between
    # its least and greatest outcome); menus offer nothing outside it.
    bounds: Callable[[Instance], tuple[float, float]] | None = None


@dataclass(frozen=True)
class DistractorKind:
    """A wrong answer and the error it stands for.

    Numeric kinds return the wrong value (or None when it does not apply);
    choice kinds return the index of the choice that error leads to; text
    kinds return the wrong text.
    """

    name: str
    answer: AnswerKind
    make: Callable[[Instance, Solution], Any]
    doc: str = ""


STRUCTURES: dict[str, StructureKind] = {}
SOLVERS: dict[str, SolverKind] = {}
DISTRACTORS: dict[str, DistractorKind] = {}


def register_structure(kind: StructureKind) -> StructureKind:
    STRUCTURES[kind.name] = kind
    return kind


def register_solver(kind: SolverKind) -> SolverKind:
    SOLVERS[kind.name] = kind
    return kind


def distractor(
    name: str, answer: AnswerKind
) -> Callable[[Callable[[Instance, Solution], Any]], Callable[[Instance, Solution], Any]]:
    """Register a distractor generator under `name`; the docstring documents it."""

    def wrap(fn: Callable[[Instance, Solution], Any]) -> Callable[[Instance, Solution], Any]:
        DISTRACTORS[name] = DistractorKind(name, answer, fn, (fn.__doc__ or "").strip())
        return fn

    return wrap
