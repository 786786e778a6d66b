"""Model backends behind one interface, chosen by a model spec (`agent:oracle`)."""

from steer.backends._agents import AGENTS, OracleAgent, RandomAgent
from steer.backends._base import Answer, Backend
from steer.backends._registry import BACKENDS, resolve_backend

__all__ = [
    "AGENTS",
    "BACKENDS",
    "Answer",
    "Backend",
    "OracleAgent",
    "RandomAgent",
    "resolve_backend",
]
