"""Adaptations: how a question is put to a model and how its reply is read.

Formats mc / shown / hidden / together / separate / free / none, k-shot
examples, answer-letter parsing and option probabilities from log-probs.
"""

from steer.adapt._conversation import Call, converse, opening
from steer.adapt._free import extract_number, match_option, numbers_match
from steer.adapt._letters import letter_of, letters, parse_letter
from steer.adapt._none import NONE_OPTION, apply_none, plan_none
from steer.adapt._probs import first_letter_position, letter_mass, option_probs
from steer.adapt._prompts import prompts_hash
from steer.adapt._shots import MAX_SHOTS, ShotPool
from steer.adapt._types import Answer, CallKind, Completion, Message

__all__ = [
    "MAX_SHOTS",
    "NONE_OPTION",
    "Answer",
    "Call",
    "CallKind",
    "Completion",
    "Message",
    "ShotPool",
    "apply_none",
    "converse",
    "extract_number",
    "first_letter_position",
    "letter_mass",
    "letter_of",
    "letters",
    "match_option",
    "numbers_match",
    "opening",
    "option_probs",
    "parse_letter",
    "plan_none",
    "prompts_hash",
]
