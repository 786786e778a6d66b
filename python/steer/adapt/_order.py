"""The order adaptation: `order=shuffle:K` asks every question under K seeded
permutations of its options, to expose position bias.

A run with `order=shuffle:K` makes K passes over its bank; pass i shows each
question's options in permutation i and journals its answers under the
adaptation `order=shuffle:K/i`. The permutation index is thus part of the
adaptation and of the response key (bank, question, model, adaptation,
sample): the K answers of a question are distinct responses, never
duplicates, and resuming asks only what a pass lacks.

Permutation i of a question with n options is a seeded base permutation
rotated by i (`shown[j] = base[(j + i) mod n]`; a new base every n passes),
so for K ≤ n the key sits at K different positions. Bases are seeded by
(run seed, question id, i // n): deterministic, and independent of the other
questions and of the bank's order.

What is stored: the response row's `chosen_index`, `correct_index` and
`option_probs` are in the bank's option order (the reply's letter mapped
back through the permutation), so every metric reads them as usual; the
transcript keeps what the model saw (the permuted options) and the letter it
chose among them.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

MAX_SHUFFLES = 64
# Key of a question dict put to a backend under a permutation (not a bank column).
SHOWN_ORDER = "_shown_order"
_ORDER = re.compile(r"shuffle:(\d+)(?:/(\d+))?")


def parse_order(text: str) -> tuple[int, int | None]:
    """(K, permutation index or None) of `shuffle:K` / `shuffle:K/i`;
    ValueError naming the problem otherwise."""
    m = _ORDER.fullmatch(text.strip())
    if not m:
        raise ValueError(f"order {text!r} must read 'shuffle:K' (K permutations per question)")
    k = int(m.group(1))
    if not 1 <= k <= MAX_SHUFFLES:
        raise ValueError(f"order {text!r}: K must be from 1 to {MAX_SHUFFLES}")
    index = None if m.group(2) is None else int(m.group(2))
    if index is not None and index >= k:
        raise ValueError(f"order {text!r}: permutation index must be below {k}")
    return k, index


def order_passes(order: str | None) -> list[str | None]:
    """The adaptations' `order` of a run's passes: `shuffle:K` → K passes
    `shuffle:K/0` … `shuffle:K/(K−1)`; anything else is one pass as it is."""
    if order is None:
        return [None]
    k, index = parse_order(order)
    if index is not None:
        return [order]
    return [f"shuffle:{k}/{i}" for i in range(k)]


def base_order(order: str | None) -> str | None:
    """`shuffle:K/i` → `shuffle:K` (the run's order); others unchanged."""
    if order is None:
        return None
    return order.split("/", 1)[0]


def shown_order(question_id: str, n: int, seed: int, index: int) -> list[int]:
    """Permutation `index` of a question's `n` options: for each displayed
    position, the option's index in the bank."""
    if n <= 1:
        return list(range(n))
    block, shift = divmod(index, n)
    rng = np.random.default_rng([seed, zlib.crc32(question_id.encode()), block])
    base = rng.permutation(n).tolist()
    return [base[(j + shift) % n] for j in range(n)]


def shuffle_question(q: Mapping[str, Any], order: list[int]) -> dict[str, Any]:
    """A copy of question `q` with its options shown in `order`
    (order[shown] = bank index); its key and tags follow, and the order is
    kept under SHOWN_ORDER so the answer can be mapped back."""
    out = dict(q)
    out["options"] = [q["options"][i] for i in order]
    if q.get("option_tags") is not None:
        out["option_tags"] = [q["option_tags"][i] for i in order]
    if q.get("correct_index") is not None:
        out["correct_index"] = order.index(int(q["correct_index"]))
    out[SHOWN_ORDER] = order
    return out


def shuffle_rows(
    rows: Sequence[Mapping[str, Any]], order: str | None, seed: int
) -> list[dict[str, Any]]:
    """The rows as pass `order` (`shuffle:K/i`) shows them; unchanged (as
    dicts) without a permutation index."""
    if order is None:
        return [dict(q) for q in rows]
    _, index = parse_order(order)
    if index is None:
        return [dict(q) for q in rows]
    return [
        shuffle_question(q, shown_order(str(q["question_id"]), len(q["options"]), seed, index))
        for q in rows
    ]


def to_bank_order(
    q: Mapping[str, Any], chosen: int, probs: Sequence[float] | None
) -> tuple[int, int | None, list[float] | None]:
    """(chosen_index, correct_index, option_probs) of an answer to question
    dict `q`, in the bank's option order: mapped back through its
    SHOWN_ORDER when it was shown permuted."""
    order = q.get(SHOWN_ORDER)
    correct = q.get("correct_index")
    if order is None:
        return chosen, correct, None if probs is None else list(probs)
    n = len(order)
    original = order[chosen] if 0 <= chosen < n else chosen
    key = None if correct is None else order[int(correct)]
    mapped: list[float] | None = None
    if probs is not None and len(probs) == n:
        mapped = [0.0] * n
        for shown, p in enumerate(probs):
            mapped[order[shown]] = p
    elif probs is not None:
        mapped = list(probs)
    return original, key, mapped


def order_column(adaptation: Any) -> Any:
    """The `order` of each row's adaptation struct (all null when the struct
    predates the field)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pa.types.is_struct(adaptation.type):
        return pa.nulls(len(adaptation), pa.string())
    if adaptation.type.get_field_index("order") < 0:
        return pa.nulls(len(adaptation), pa.string())
    return pc.struct_field(adaptation, "order")


def same_order(table: Any, order: str | None) -> Any:
    """Rows of a response table asked under `order` (None: no permutation)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if "adaptation" not in table.column_names:
        return pa.repeat(pa.scalar(order is None, pa.bool_()), table.num_rows)
    column = order_column(table["adaptation"])
    if order is None:
        return pc.is_null(column)
    return pc.fill_null(pc.equal(column, order), False)
