"""Resolve a model spec such as `agent:random` or `openai:gpt-4o` to a backend."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from steer._suggest import did_you_mean
from steer.backends._agents import AGENTS
from steer.backends._base import Backend
from steer.errors import InputError, UnknownNameError

Factory = Callable[[str, str, int, dict[str, Any]], Backend]


def _reject_options(family: str, options: dict[str, Any]) -> None:
    if options:
        names = ", ".join(sorted(options))
        raise InputError(f"backend {family!r} takes no options (got {names})")


def _agent_arguments(spec: str, text: str) -> dict[str, float]:
    """`alpha=0.7,lambda=1.7` as numbers (the inside of `agent:pt(...)`)."""
    out: dict[str, float] = {}
    for item in filter(None, (x.strip() for x in text.split(","))):
        key, eq, raw = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise InputError(f"{spec}: {item!r} is not key=value")
        if key in out:
            raise InputError(f"{spec}: {key} given twice")
        try:
            out[key] = float(raw)
        except ValueError:
            raise InputError(f"{spec}: {key}={raw.strip()!r} is not a number") from None
    return out


def _preference(spec: str, model: str, seed: int) -> Backend:
    from steer.backends._preference_agents import PARAMETERS, preference_agent

    name, _, rest = model.partition("(")
    if rest and not rest.endswith(")"):
        raise InputError(f"{spec}: missing ')' after the agent's parameters")
    arguments = _agent_arguments(spec, rest[:-1]) if rest else {}
    known = PARAMETERS[name][0]
    for key in arguments:
        if key not in known:
            hint = did_you_mean(key, known)
            also = f" (did you mean {', '.join(hint)}?)" if hint else ""
            raise InputError(
                f"{spec}: unknown parameter {key!r}{also}; agent:{name} takes {', '.join(known)}"
            )
    return preference_agent(spec, name, arguments, seed)


def _agent(spec: str, model: str, seed: int, options: dict[str, Any]) -> Backend:
    from steer.backends._preference_agents import PARAMETERS

    _reject_options("agent", options)
    name = model.partition("(")[0]
    if name in PARAMETERS:
        return _preference(spec, model, seed)
    if model not in AGENTS:
        raise UnknownNameError("agent", model, did_you_mean(name, [*AGENTS, *PARAMETERS]))
    cls: Any = AGENTS[model]
    if model in ("random", "human"):
        return cls(spec=spec, family="agent", model=model, seed=seed)  # type: ignore[no-any-return]
    return cls(spec=spec, family="agent", model=model)  # type: ignore[no-any-return]


def _settings(model_cls: Any, family: str, options: dict[str, Any]) -> Any:
    try:
        return model_cls(**options)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        raise InputError(f"backend {family!r}: option {where!r}: {first['msg']}") from None


def _openai(spec: str, model: str, seed: int, options: dict[str, Any]) -> Backend:
    from steer.backends._openai import OpenAIBackend, OpenAIOptions

    settings = _settings(OpenAIOptions, "openai", options)
    return OpenAIBackend(spec=spec, family="openai", model=model, settings=settings)


def _hf(spec: str, model: str, seed: int, options: dict[str, Any]) -> Backend:
    from steer.backends._hf import HFBackend, HFOptions, require_hf

    require_hf()
    return HFBackend(
        spec=spec, family="hf", model=model, settings=_settings(HFOptions, "hf", options)
    )


def _vllm(spec: str, model: str, seed: int, options: dict[str, Any]) -> Backend:
    from steer.backends._vllm import VLLMBackend, VLLMOptions, require_vllm

    require_vllm()
    settings = _settings(VLLMOptions, "vllm", options)
    return VLLMBackend(spec=spec, family="vllm", model=model, settings=settings)


BACKENDS: dict[str, Factory] = {"agent": _agent, "openai": _openai, "hf": _hf, "vllm": _vllm}


def resolve_backend(spec: str, *, seed: int = 0, options: dict[str, Any] | None = None) -> Backend:
    """The backend for `FAMILY:MODEL`; unknown families and agents suggest fixes.

    `options` are backend settings (`base_url`, `concurrency`, ...), checked
    against the family's option model.
    """
    family, sep, model = spec.partition(":")
    if not sep or not model:
        raise InputError(f"model spec {spec!r} must look like FAMILY:MODEL, e.g. agent:oracle")
    if family not in BACKENDS:
        raise UnknownNameError("backend", family, did_you_mean(family, BACKENDS))
    return BACKENDS[family](spec, model, seed, dict(options or {}))
