"""The bank answered by the strongest blind agent, as a response table that
`steer score` and `steer grade --bank BANK` read like a model's run.

Answer-graded parts get the cross-fitted learner's choice (each from the model
of the half it was not fitted on); consistency-graded parts the "keep" agent's.
"""

from __future__ import annotations

import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from steer.audit._frame import OptionFrame
from steer.schema import Adaptation
from steer.schema.response import RESPONSE_SCHEMA

MODEL = "agent:blind-learner"


def blind_responses(
    frame: OptionFrame, choices: dict[str, np.ndarray], bank_sha256: str | None = None
) -> pa.Table:
    """One response row per question row of the frame's bank."""
    t = frame.table
    n = t.num_rows
    chosen = np.where(frame.q_answer, choices["learner"], choices["keep"]).astype(np.int32)
    run_id = f"audit-{(bank_sha256 or 'bank')[:12]}"
    adaptation = pa.array([Adaptation().model_dump()] * 1, RESPONSE_SCHEMA.field("adaptation").type)

    def const(value: object, typ: pa.DataType) -> pa.Array:
        return pa.repeat(pa.scalar(value, typ), n) if n else pa.array([], typ)

    cols = {
        "run_id": const(run_id, pa.string()),
        "model": const(MODEL, pa.string()),
        "backend": const("agent", pa.string()),
        "adaptation": pc.take(adaptation, pa.array(np.zeros(n, dtype=np.int64))),
        "question_id": t["question_id"],
        "base_id": t["base_id"],
        "part": t["part"],
        "element": t["element"],
        "domain": t["domain"],
        "type": t["type"],
        "perspective": t["perspective"],
        "grade": t["grade"],
        "n_options": pa.array(frame.q_n.astype(np.int32)),
        "chosen_index": pa.array(chosen),
        "correct_index": t["correct_index"],
        "consistency_rule": t["consistency_rule"],
        "bank_sha256": const(bank_sha256, pa.string()),
        "sample": const(0, pa.int32()),
        "recorded_at": const(round(time.time(), 6), pa.float64()),
    }
    columns = []
    for field in RESPONSE_SCHEMA:
        col = cols.get(field.name)
        columns.append(pc.cast(col, field.type) if col is not None else pa.nulls(n, field.type))
    return pa.Table.from_arrays(columns, schema=RESPONSE_SCHEMA)
