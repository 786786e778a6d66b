"""Question generation: sample a structure, prove the key, build the options."""

from steer.generate._generate import generate_bank, generate_questions
from steer.generate._registry import DISTRACTORS, SOLVERS, STRUCTURES

__all__ = ["DISTRACTORS", "SOLVERS", "STRUCTURES", "generate_bank", "generate_questions"]
