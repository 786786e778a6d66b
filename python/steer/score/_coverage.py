"""Every asked question counts: add a no-answer row for each asked question
that a (model, adaptation) has no row for, and record its coverage.

A no-answer row carries the question's element, domain, type, perspective,
grade, option count, correct index, consistency rule, base id and part from
the bank, `chosen_index` = −1 and `error` = "no answer recorded", so the
engine counts it in `n_no_answer` and in the denominator of every metric.
Rows that record an error are no-answers too, whatever index they hold.

A row whose question was not asked is an error (exit 2): it answers a
different bank, or the manifest or `--bank` is not the one the responses came
from, and no denominator would be right. The fix (the right `--bank`, or the
run directory instead of its table) is in the message.

All of this is vectorised: one `index_in` over the question ids and a
`bincount` over (card, question) codes; Python only loops over cards.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from steer import _native
from steer.adapt._order import order_passes
from steer.errors import FileFormatError, row_location
from steer.schema import NO_ANSWER
from steer.score._asked import Asked

NO_ANSWER_ERROR = "no answer recorded"
CARD_FIELDS = ("model", "adaptation")
# Bank columns a no-answer row copies.
FROM_BANK = (
    "question_id",
    "base_id",
    "part",
    "element",
    "domain",
    "type",
    "perspective",
    "grade",
    "correct_index",
    "consistency_rule",
)

CardKey = tuple[str, str]  # (model, adaptation label)


@dataclass
class Coverage:
    """How much of its bank one (model, adaptation) was asked.

    `asked` and `bank` are None when unknown (a bare table without `--bank`).
    Answered counts come from the rows themselves (`chosen_index` ≠ −1), after
    any rubric filter, so they are not stored here.
    """

    asked: int | None
    bank: int | None
    sources: list[str]

    @property
    def known(self) -> bool:
        return self.asked is not None


def label_of(adaptation: dict[str, object] | None) -> str:
    """`Adaptation.label()` of a struct value ("" when there is none)."""
    if not adaptation:
        return ""
    label = (
        f"{adaptation.get('format')};shots={adaptation.get('shots')};"
        f"cot={adaptation.get('cot')};prob={adaptation.get('prob_mode')}"
    )
    for extra in ("order", "collective", "persona"):  # as Adaptation.label()
        value = adaptation.get(extra)
        if value:
            label += f";{extra}={value}"
    return label


def card_codes(table: pa.Table) -> tuple[np.ndarray, list[int]]:
    """Per-row card code (model × adaptation) and the first row of each card."""
    from steer.score._columns import key_columns

    by = [c for c in CARD_FIELDS if c in table.column_names]
    keys = key_columns(table, by)
    codes, first = _native.encode_groups([k[1] for k in keys], [len(k[2]) for k in keys])
    return np.asarray(codes), [int(i) for i in first]


def mark_errors(table: pa.Table) -> pa.Table:
    """Rows that record an error count as no-answers (chosen_index −1)."""
    if "error" not in table.column_names or table["error"].null_count == table.num_rows:
        return table
    error = table["error"]
    failed = pc.fill_null(pc.not_equal(error, ""), False)
    if not pc.any(failed).as_py():
        return table
    chosen = pc.if_else(failed, pa.scalar(-1, pa.int32()), table["chosen_index"])
    return table.set_column(table.schema.get_field_index("chosen_index"), "chosen_index", chosen)


def complete(table: pa.Table, asked: Asked, source: str) -> tuple[pa.Table, dict[CardKey, int]]:
    """`table` plus a no-answer row for every asked question a card lacks.

    Returns the completed table and the number of asked questions per card.
    Raises a FileFormatError naming `source` and the row when a row answers a
    question that was not asked.
    """
    if "question_id" not in table.column_names:
        raise FileFormatError(
            "missing column, needed to match responses with the questions asked",
            source=source,
            field="question_id",
        )
    qid = table["question_id"]
    pos = _positions(qid, asked.ids)
    if pos.null_count and asked.from_run:
        asked = _widen(asked, qid, pos)
        pos = _positions(qid, asked.ids)
    n_asked = len(asked.ids)
    if pos.null_count:
        row = int(pc.indices_nonzero(pc.is_null(pos))[0].as_py())
        raise FileFormatError(
            f"question `{qid[row].as_py()}` was not asked (not in {asked.source}); "
            "give the bank these responses answered (--bank), or the run directory",
            source=source,
            where=row_location(source, row),
            field="question_id",
        )
    cards: list[tuple[str, dict[str, object] | None, str | None, str | None]] = []
    missing: list[np.ndarray] = []
    samples: list[np.ndarray] = []
    if table.num_rows:
        codes, first = card_codes(table)
        samples = _card_samples(table, codes, len(first))
        index = np.asarray(pos.to_numpy(zero_copy_only=False), dtype=np.int64)
        flat = codes.astype(np.int64) * n_asked + index
        seen = np.bincount(flat, minlength=len(first) * n_asked).reshape(len(first), n_asked) > 0
        head = table.take(pa.array(first, pa.int64())).to_pylist()
        for k, row in enumerate(head):
            cards.append(
                (str(row["model"]), row.get("adaptation"), row.get("run_id"), row.get("backend"))
            )
            missing.append(np.nonzero(~seen[k])[0])
    if asked.card is not None:
        model, adaptation, run_id, backend = asked.card
        # A run with `order=shuffle:K` asked every question under K adaptations.
        for order in order_passes(adaptation.get("order")):  # type: ignore[arg-type]
            shown = {**adaptation, "order": order}
            if not any(c[0] == model and label_of(c[1]) == label_of(shown) for c in cards):
                cards.append((model, shown, run_id, backend))
                missing.append(np.arange(n_asked))
                samples.append(np.zeros(1, np.int64))
    counts = {(c[0], label_of(c[1])): n_asked for c in cards}
    extra = [
        _no_answers(asked, idx, card, source, table.schema, drawn)
        for idx, card, drawn in zip(missing, cards, samples, strict=True)
        if len(idx)
    ]
    if not extra:
        return table, counts
    out = pa.concat_tables([table, *extra], promote_options="permissive")
    return out, counts


def _card_samples(table: pa.Table, codes: np.ndarray, n_cards: int) -> list[np.ndarray]:
    """The distinct `sample` values of each card (just 0 without the column)."""
    if "sample" not in table.column_names:
        return [np.zeros(1, np.int64) for _ in range(n_cards)]
    drawn = pc.fill_null(table["sample"].cast(pa.int64()), 0).to_numpy()
    pairs = np.unique(np.stack([codes.astype(np.int64), drawn]), axis=1)
    bounds = np.searchsorted(pairs[0], np.arange(n_cards + 1))
    return [pairs[1, bounds[k] : bounds[k + 1]] for k in range(n_cards)]


def question_counts(table: pa.Table) -> dict[CardKey, tuple[int, int]]:
    """(distinct questions, distinct questions with a usable answer in some
    sample) per card: coverage counts questions, so repeated samples of one
    question never count as more questions asked or answered."""
    if not table.num_rows:
        return {}
    from steer.score._columns import key_columns

    codes, first = card_codes(table)
    (qkey,) = key_columns(table, ["question_id"])
    q = np.asarray(qkey[1], np.int64)
    n_q = int(q.max()) + 1 if len(q) else 1
    flat = codes.astype(np.int64) * n_q + q
    chosen = table["chosen_index"].to_numpy(zero_copy_only=False)
    asked = np.unique(flat)
    answered = np.unique(flat[chosen != NO_ANSWER])  # OFF_OPTIONS (-2) answered
    n_cards = len(first)
    rows = np.bincount(asked // n_q, minlength=n_cards)
    good = np.bincount(answered // n_q, minlength=n_cards)
    head = table.take(pa.array(first, pa.int64())).select(
        [c for c in CARD_FIELDS if c in table.column_names]
    )
    return {
        (str(r["model"]), label_of(r.get("adaptation"))): (int(rows[k]), int(good[k]))
        for k, r in enumerate(head.to_pylist())
    }


def _widen(asked: Asked, qid: pa.ChunkedArray, pos: pa.ChunkedArray) -> Asked:
    """A run's rows outside its ask that its own bank holds were asked by an
    earlier invocation (a larger --limit): count them. Ids its bank lacks stay
    unasked (an error); with the bank file gone, the run's rows are trusted."""
    outside = pc.unique(pc.filter(qid, pc.is_null(pos)).cast(asked.ids.type))
    if asked.run_bank is not None:
        outside = pc.filter(
            outside, pc.is_in(outside, value_set=asked.run_bank["question_id"].combine_chunks())
        )
    elif asked.questions is not None:
        return asked
    return asked.widened(outside) if len(outside) else asked


def _positions(qid: pa.ChunkedArray, ids: pa.Array) -> pa.ChunkedArray:
    """Each row's position in `ids` (null: not asked). A dictionary column is
    looked up once per distinct value, not once per row."""
    if not pa.types.is_dictionary(qid.type):
        if qid.type != ids.type:
            qid = qid.cast(ids.type)
        return pc.index_in(qid, value_set=ids)
    chunks = [
        pc.take(pc.index_in(c.dictionary.cast(ids.type), value_set=ids), c.indices)
        for c in qid.chunks
    ]
    return pa.chunked_array(chunks, pa.int32())


def _no_answers(
    asked: Asked,
    missing: np.ndarray,
    card: tuple[str, dict[str, object] | None, str | None, str | None],
    source: str,
    schema: pa.Schema,
    samples: np.ndarray,
) -> pa.Table:
    """No-answer rows for the asked questions at positions `missing`, one per
    sample value the card drew (`samples`): the engine counts each (question,
    sample) as a unit, so an unanswered question weighs as much as one
    answered in every sample, and padding a table with extra samples of a few
    questions cannot dilute the no-answers."""
    from steer.schema import RESPONSE_SCHEMA

    if asked.questions is None:
        raise FileFormatError(
            f"{len(missing)} of the {len(asked.ids)} questions asked have no response, and "
            "the run's bank file is not where its manifest says; pass it with --bank FILE",
            source=source,
        )
    missing = np.tile(missing, len(samples))
    rows = asked.questions.take(pa.array(missing, pa.int64()))  # aligned with asked.ids
    n = rows.num_rows
    model, adaptation, run_id, backend = card
    columns: dict[str, pa.Array] = {}
    for name in FROM_BANK:
        if name in rows.column_names:
            columns[name] = rows[name].combine_chunks()
    columns["n_options"] = pc.list_value_length(rows["options"]).cast(pa.int32())
    columns["chosen_index"] = pa.array(np.full(n, -1, np.int32))
    columns["model"] = pa.repeat(pa.scalar(model, pa.string()), n)
    if adaptation is not None or "adaptation" in schema.names:
        struct = RESPONSE_SCHEMA.field("adaptation").type
        columns["adaptation"] = pa.repeat(pa.scalar(adaptation, struct), n)
    columns["run_id"] = pa.repeat(pa.scalar(run_id or "", pa.string()), n)
    columns["backend"] = pa.repeat(pa.scalar(backend or "", pa.string()), n)
    columns["error"] = pa.repeat(pa.scalar(NO_ANSWER_ERROR, pa.string()), n)
    if asked.bank_sha256 is not None or "bank_sha256" in schema.names:
        columns["bank_sha256"] = pa.repeat(pa.scalar(asked.bank_sha256, pa.string()), n)
    columns["sample"] = pa.array(np.repeat(samples, n // len(samples)).astype(np.int32))
    out = pa.table(columns)
    # The response table's own types (dictionary columns, narrower ints) win,
    # so the two concatenate without promoting the big table.
    for i, field in enumerate(out.schema):
        if field.name in schema.names and schema.field(field.name).type != field.type:
            target = schema.field(field.name).type
            out = out.set_column(i, field.name, out[field.name].cast(target))
    return out
