"""Resolve a model spec such as `agent:random` to a backend."""

from __future__ import annotations

from collections.abc import Callable

from steer._suggest import did_you_mean
from steer.backends._agents import AGENTS
from steer.backends._base import Backend
from steer.errors import InputError, UnknownNameError


def _agent(spec: str, model: str, seed: int) -> Backend:
    if model not in AGENTS:
        raise UnknownNameError("agent", model, did_you_mean(model, AGENTS))
    cls = AGENTS[model]
    if model == "random":
        return cls(spec=spec, family="agent", model=model, seed=seed)  # type: ignore[call-arg]
    return cls(spec=spec, family="agent", model=model)


BACKENDS: dict[str, Callable[[str, str, int], Backend]] = {"agent": _agent}
PLANNED = ("openai", "hf", "vllm")


def resolve_backend(spec: str, *, seed: int = 0) -> Backend:
    """The backend for `FAMILY:MODEL`; unknown families and agents suggest fixes."""
    family, sep, model = spec.partition(":")
    if not sep or not model:
        raise InputError(f"model spec {spec!r} must look like FAMILY:MODEL, e.g. agent:oracle")
    if family not in BACKENDS:
        if family in PLANNED:
            raise InputError(f"backend {family!r} is not available in this build of steer yet")
        raise UnknownNameError("backend", family, did_you_mean(family, BACKENDS))
    return BACKENDS[family](spec, model, seed)
