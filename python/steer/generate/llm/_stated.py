"""Which payload numbers a question must state, learned from the template path.

A model could return a payload for one problem and text for another, so the
verifier also asks that the text states the payload's numbers. Which numbers
those are is learned per template and grade from questions the template path
rendered: a payload position (`payload.env.x`, `payload.payoffs[0][1][0]`)
must be stated when, in every rendering, its value appears in the question
text or options. Positions whose value never varies are constants of the
template (a "nothing" outcome of 0) and are never required; numbers that every
rendering writes ("Pair 1") cannot serve as evidence, so index-like positions
do not slip in by coincidence.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from steer.generate.llm._numbers import Written, numbers_in, states
from steer.generate.llm._reject import Rejected

# Payload keys that are not the problem's numbers (filled from the template).
_NOT_PROBLEM = frozenset({"answer", "order"})
# A position needs this many renderings that show it to count as stated.
_MIN_EVIDENCE = 3


def numeric_leaves(payload: Any, where: str = "payload") -> Iterator[tuple[str, float]]:
    """(path, value) of every number in a payload, in document order."""
    if isinstance(payload, bool):
        return
    if isinstance(payload, int | float):
        yield where, float(payload)
    elif isinstance(payload, dict):
        for key, value in payload.items():
            if where == "payload" and key in _NOT_PROBLEM:
                continue
            yield from numeric_leaves(value, f"{where}.{key}")
    elif isinstance(payload, list):
        for i, value in enumerate(payload):
            yield from numeric_leaves(value, f"{where}[{i}]")


@dataclass(frozen=True)
class Sample:
    """One template-path question: its payload, all its wording, and each
    part's options (one part for a single-answer question)."""

    payload: dict[str, Any]
    text: str
    options: list[list[str]]


@dataclass(frozen=True)
class Stated:
    """Payload positions the whole question must state, and (for multi-part
    questions) those each option must state, keyed by (part, option)."""

    whole: tuple[str, ...] = ()
    options: dict[tuple[int, int], tuple[str, ...]] = field(default_factory=dict)


def _learn(payloads: Sequence[dict[str, float]], texts: Sequence[str]) -> tuple[str, ...]:
    if len(payloads) < _MIN_EVIDENCE:
        return ()
    numbers = [numbers_in(t) for t in texts]
    common = set.intersection(*({w.value for w in ns} for ns in numbers))
    out = []
    for path in payloads[0]:
        values = [p.get(path) for p in payloads]
        if any(v is None for v in values) or len(set(values)) < 2:
            continue
        evidence, stated = 0, True
        for value, ns in zip(values, numbers, strict=True):
            assert value is not None
            hits = [w for w in ns if states(w, value)]
            if any(w.value not in common for w in hits):
                evidence += 1
            elif not hits:
                stated = False
                break
            # Only boilerplate matches ("Pair 1" for a value of 1): no evidence either way.
        if stated and evidence >= _MIN_EVIDENCE:
            out.append(path)
    return tuple(out)


def learn_stated(samples: Sequence[Sample]) -> Stated:
    """What a question of this template and grade states, from its renderings."""
    payloads = [dict(numeric_leaves(s.payload)) for s in samples]
    whole = _learn(payloads, [s.text for s in samples])
    per_option: dict[tuple[int, int], tuple[str, ...]] = {}
    if samples and len(samples[0].options) > 1:
        for part, options in enumerate(samples[0].options):
            for i in range(len(options)):
                texts = [s.options[part][i] for s in samples]
                paths = _learn(payloads, texts)
                if paths:
                    per_option[(part, i)] = paths
    return Stated(whole, per_option)


def _missing(payload: dict[str, Any], paths: Sequence[str], numbers: list[Written]) -> str | None:
    leaves = dict(numeric_leaves(payload))
    for path in paths:
        value = leaves.get(path)
        if value is not None and not any(states(w, value) for w in numbers):
            return f"{path} = {value:g}"
    return None


def check_stated(payload: dict[str, Any], stated: Stated, text: str) -> None:
    """Raise `Rejected` naming a payload number the question text and options omit."""
    missing = _missing(payload, stated.whole, numbers_in(text))
    if missing:
        raise Rejected(
            "number_not_stated", f"the payload's {missing} is not in the question text or options"
        )


def check_option_numbers(
    payload: dict[str, Any], stated: Stated, options: Sequence[Sequence[str]]
) -> None:
    """Raise `Rejected` when an option does not state the numbers that option
    states in the template (a pair written in another order, say)."""
    for (part, i), paths in sorted(stated.options.items()):
        if part >= len(options) or i >= len(options[part]):
            continue
        missing = _missing(payload, paths, numbers_in(options[part][i]))
        if missing:
            raise Rejected(
                "options_do_not_correspond",
                f"option {i + 1} of part {part + 1} ({options[part][i]!r}) should state {missing}",
            )
