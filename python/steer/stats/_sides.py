"""Two sides of a comparison (run directories or response tables), paired card
by card: what `steer compare A B` computes."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Unpack

import pyarrow as pa
import pyarrow.compute as pc

from steer.errors import InputError
from steer.score._outcomes import question_outcomes
from steer.stats._paired import PairedOptions, compare

if TYPE_CHECKING:
    from steer.rubric import LoadedRubric

CARD = ["model", "adaptation"]


def side_outcomes(
    path: Path, *, bank: Path | None = None, rubric: LoadedRubric | None = None
) -> pa.Table:
    """Question outcomes of one side. What it was asked comes from the run's
    manifest, else from `bank` (a bare table): each asked question without a
    usable answer is a no-answer. `rubric` applies its filters and section
    selection first."""
    from steer.bank import file_sha256
    from steer.rubric._grade import bank_hashes, filter_responses
    from steer.score import load_responses

    if not path.exists():
        raise InputError(f"{path}: no such run directory or response table")
    # Every asked question counts: missing answers become no-answer rows.
    table = load_responses(path, bank=bank).table
    banks = bank_hashes([path]) or ([file_sha256(bank)] if bank is not None else [])
    if rubric is not None:
        from steer.rubric._grade import _all_selected
        from steer.taxonomy import load_taxonomy

        taxonomy = load_taxonomy()
        elements = sorted({e for s in rubric.rubric.section for e in _all_selected(s, taxonomy)})
        table = filter_responses(table, rubric.rubric.filters, elements)
    return question_outcomes(table, bank=banks[0] if len(banks) == 1 else None)


def _cards(outcomes: pa.Table) -> list[tuple[str, str]]:
    order = [(k, "ascending") for k in CARD]
    keys = outcomes.select(CARD).group_by(CARD).aggregate([]).sort_by(order).to_pylist()
    return [(str(k["model"]), str(k["adaptation"])) for k in keys]


def _card(outcomes: pa.Table, key: tuple[str, str]) -> pa.Table:
    mask = pc.and_(pc.equal(outcomes["model"], key[0]), pc.equal(outcomes["adaptation"], key[1]))
    return outcomes.filter(mask)


def compare_sides(
    a: pa.Table,
    b: pa.Table,
    metric: str,
    *,
    names: tuple[str, str] = ("A", "B"),
    **options: Unpack[PairedOptions],
) -> pa.Table:
    """Paired B − A per card and cell. When each side holds one (model,
    adaptation) they are paired whatever their names; otherwise cards pair by
    equal (model, adaptation), and a side without a partner is an error.
    Correction runs across the cells of each card pair. `options` are
    `compare`'s (by, level, correction, resamples, seed), with its defaults."""
    cards_a, cards_b = _cards(a), _cards(b)
    if not cards_a or not cards_b:
        empty = names[0] if not cards_a else names[1]
        raise InputError(f"{empty}: no answer-graded responses to compare")
    if len(cards_a) == 1 and len(cards_b) == 1:
        pairs = [(cards_a[0], cards_b[0])]
    else:
        common = sorted(set(cards_a) & set(cards_b))
        alone = sorted(set(cards_a) ^ set(cards_b))
        if alone or not common:
            who = ", ".join(f"{m} · {ad}" for m, ad in alone)
            raise InputError(
                f"{names[0]} and {names[1]} hold several models/adaptations and these have no "
                f"partner on the other side: {who}; compare one model and adaptation per side"
            )
        pairs = [(k, k) for k in common]
    tables = []
    for key_a, key_b in pairs:
        cells = compare(_card(a, key_a), _card(b, key_b), metric, **options)
        n = cells.num_rows
        if n == 0:
            banks = [sorted(pc.unique(t["bank_sha256"]).to_pylist()) for t in (a, b)]
            raise InputError(
                f"{names[0]} and {names[1]} share no question to pair (question banks "
                f"{', '.join(x[:12] for x in banks[0])} and {', '.join(x[:12] for x in banks[1])})"
            )
        front = {
            "model_a": pa.repeat(pa.scalar(key_a[0], pa.string()), n),
            "adaptation_a": pa.repeat(pa.scalar(key_a[1], pa.string()), n),
            "model_b": pa.repeat(pa.scalar(key_b[0], pa.string()), n),
            "adaptation_b": pa.repeat(pa.scalar(key_b[1], pa.string()), n),
        }
        for i, (name, column) in enumerate(front.items()):
            cells = cells.add_column(i, name, column)
        tables.append(cells)
    return pa.concat_tables(tables)
