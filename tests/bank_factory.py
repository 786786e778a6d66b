"""Small question banks built by hand for the run and backend tests (no
dependence on the generators)."""

from __future__ import annotations

from pathlib import Path

from steer.backends._agents import HumanAgent
from steer.bank import questions_to_table, write_bank
from steer.run import run_bank
from steer.schema import Question

ELEMENTS = ("steer.1.1.a", "steer.1.1.c", "steer.2.2.a")


def make_questions(n: int, *, multipart_every: int = 0) -> list[Question]:
    """`n` four-option questions with numeric options; every `multipart_every`-th
    base question gets a second part (one conversation)."""
    out = []
    for i in range(n):
        element = ELEMENTS[i % len(ELEMENTS)]
        base = f"q{i:05d}"
        key = i % 4
        values = [10 * (i + 1) + 3 * k for k in range(4)]
        parts = 2 if multipart_every and i % multipart_every == 0 else 1
        for part in range(parts):
            out.append(
                Question(
                    question_id=Question.make_id(element, base, part),
                    element=element,
                    base_id=base,
                    part=part,
                    question_text=f"Question {i} part {part}: which value is best? ({base})",
                    options=[str(v) for v in values],
                    correct_index=key,
                    type=("choice", "value")[i % 2],
                    domain=("food", "travel", "work")[i % 3],
                    explanation=f"Worked answer for {base}: the best value is {values[key]}.",
                    option_tags=["key" if k == key else "certainty_bias" for k in range(4)],
                    answer_value=float(values[key]),
                )
            )
    return out


def write_test_bank(path: Path, n: int, *, multipart_every: int = 0) -> Path:
    write_bank(questions_to_table(make_questions(n, multipart_every=multipart_every)), path)
    return path


def biased_agent(seed: int, bias_rate: float) -> HumanAgent:
    """A reference agent. Every question of the test bank has a bias-tagged
    distractor: the agent is right with probability 1 − bias_rate."""
    return HumanAgent("agent:human", "agent", "human", seed=seed, bias_rate=bias_rate)


def paired_runs(root: Path) -> Path:
    """A 240-question test bank (root/bank.parquet, returned) and three runs of
    it to compare: root/base, root/rerun (the same agent with a new seed) and
    root/worse (a regressed agent)."""
    bank = write_test_bank(root / "bank.parquet", 240, multipart_every=5)
    run_bank(bank, biased_agent(1, 0.1), root / "base", seed=1)
    run_bank(bank, biased_agent(2, 0.1), root / "rerun", seed=2)  # same model, new seed
    run_bank(bank, biased_agent(3, 0.6), root / "worse", seed=3)  # regressed
    return bank
