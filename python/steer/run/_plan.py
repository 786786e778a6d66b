"""What a run asks: questions grouped into conversations, with the `none`
rewrite and few-shot examples decided up front (deterministic for a seed)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from steer.adapt import ShotPool, apply_none, plan_none
from steer.schema import Adaptation


@dataclass
class Conversation:
    """All parts of one question, as they will be put to the model."""

    parts: list[dict[str, Any]]
    examples: list[Mapping[str, Any]] = field(default_factory=list)
    todo: set[str] = field(default_factory=set)  # question ids not yet journaled


def plan_conversations(
    rows: Sequence[dict[str, Any]],
    adaptation: Adaptation,
    *,
    seed: int,
    answered: set[str],
    everything: Sequence[dict[str, Any]] | None = None,
    pool: Sequence[Mapping[str, Any]] | None = None,
) -> list[Conversation]:
    """Conversations with at least one unanswered part, in bank order.

    `everything` (the whole bank, before --limit) fixes the `none` plan and is
    the default few-shot pool, so a limit or a resume never changes a prompt.
    """
    everything = rows if everything is None else everything
    replaced = plan_none(everything, seed) if adaptation.format == "none" else {}
    shots = ShotPool(everything if pool is None else pool, seed) if adaptation.shots else None
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for q in rows:
        groups.setdefault((q["element"], q["base_id"]), []).append(q)
    out = []
    for parts in groups.values():
        parts.sort(key=lambda q: q["part"])
        todo = {q["question_id"] for q in parts} - answered
        if not todo:
            continue
        shown = [apply_none(q, replaced.get(q["question_id"])) for q in parts]
        examples = list(shots.select(parts[0], adaptation.shots)) if shots else []
        out.append(Conversation(shown, examples, todo))
    return out
