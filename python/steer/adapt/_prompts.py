"""The wording of every prompt steer sends. One place, so that a change of
wording is one diff (and shows in the prompts hash of a run)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from steer.adapt._letters import letters

SYSTEM = (
    "You are taking a test of economic reasoning. Every question has exactly one best "
    "option. Follow the reply format you are asked for."
)
LETTER_ONLY = "Reply with the letter of the best option and nothing else."
REASON_FIRST = "Work through the problem step by step. Do not give a final answer yet."
FINAL_LETTER = "Now give your final answer. " + LETTER_ONLY
# Elicitation trials (steer play) whose reply names no option are asked again.
REASK = "That reply does not name one of the options. " + LETTER_ONLY
# A game's numeric move (steer play GAME) outside the allowed range, or missing.
REASK_NUMBER = (
    "That reply does not give a number from {lo} to {hi}. Give your final number on its "
    "own as \\boxed{{value}}."
)
# A game's move given as a list of whole numbers (a pirate game's proposal).
FREE_LIST = (
    "Work out your answer, then give the final list on its own as \\boxed{{a, b, ...}}: "
    "{count} whole numbers separated by commas, adding up to {total}."
)
REASK_LIST = (
    "That reply does not give a valid list ({why}). Give {count} whole numbers of 0 or more, "
    "adding up to {total}, on their own as \\boxed{{a, b, ...}}."
)
HIDDEN_OPTIONS = "Here are the options. Which one agrees with your reasoning? " + LETTER_ONLY
TOGETHER = (
    "Explain your reasoning briefly, then finish with a line of the form 'ANSWER: X', "
    "where X is the letter of the best option."
)
EXPLAIN_ONLY = (
    "Explain in a few sentences which option is best and why. Do not end with a letter on its own."
)
SEPARATE_ANSWER = (
    "Below is an explanation someone wrote about a multiple-choice question, followed by "
    "the options. Which option does the explanation support? " + LETTER_ONLY
)
FREE = (
    "Work out the answer, then give the final number on its own as \\boxed{value} "
    "(a plain number, no units)."
)


def system_text(persona: str | None = None) -> str:
    """The system message: SYSTEM, after the description of who answers where
    there is one (a collective's member under `--personas`). The persona's
    text is not part of `prompts_hash`; its own sha256 is in the run's
    manifest (`generation.persona_sha256`)."""
    return SYSTEM if persona is None else f"{persona.strip()}\n\n{SYSTEM}"


def option_block(options: Sequence[str]) -> str:
    return "\n".join(
        f"{label}. {text}" for label, text in zip(letters(len(options)), options, strict=True)
    )


def with_options(question: Mapping[str, Any], instruction: str) -> str:
    return f"{question['question_text']}\n\nOptions:\n{option_block(question['options'])}\n\n" + (
        instruction
    )


def without_options(question: Mapping[str, Any], instruction: str) -> str:
    return f"{question['question_text']}\n\n{instruction}"


def prompts_hash() -> str:
    """A short hash of all the wording above (recorded in run manifests)."""
    text = "\x00".join(
        [
            SYSTEM,
            LETTER_ONLY,
            REASON_FIRST,
            FINAL_LETTER,
            HIDDEN_OPTIONS,
            TOGETHER,
            EXPLAIN_ONLY,
            SEPARATE_ANSWER,
            FREE,
        ]
    )
    return hashlib.sha256(text.encode()).hexdigest()[:12]
