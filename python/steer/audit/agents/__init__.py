"""Blind agents: answer a bank without solving it (see `Agent`)."""

from __future__ import annotations

from steer.audit.agents import _digits, _form, _phrases, _position, _priors
from steer.audit.agents._base import Agent, Scores
from steer.audit.agents._learner import AGENT as LEARNER
from steer.audit.agents._learner import available as learner_available

HEURISTICS: tuple[Agent, ...] = (
    *_position.AGENTS,
    *_form.AGENTS,
    *_digits.AGENTS,
    *_phrases.AGENTS,
    *_priors.AGENTS,
)


def answer_agents(with_learner: bool = True) -> tuple[Agent, ...]:
    """Every agent for answer-graded questions; the learner only where
    scikit-learn is installed and `with_learner`."""
    learner = (LEARNER,) if with_learner and learner_available() else ()
    return (*HEURISTICS, *learner)


__all__ = ["HEURISTICS", "LEARNER", "Agent", "Scores", "answer_agents", "learner_available"]
