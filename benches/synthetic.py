"""Synthetic response tables for the benchmarks (vectorised; no row loops)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa


def response_table(
    n: int,
    seed: int = 0,
    *,
    models: int = 20,
    elements: int = 120,
    domains: int = 12,
    grades: int = 13,
) -> pa.Table:
    """`n` single-part responses with 2–5 options and option probabilities.

    Group keys are dictionary columns, as steer writes them; about 3% of rows
    are unanswered and 1% carry no probabilities.
    """
    rng = np.random.default_rng(seed)
    n_options = rng.integers(2, 6, n, dtype=np.int32)
    correct = (rng.random(n) * n_options).astype(np.int32)
    skill = rng.random(n) < 0.55
    chosen = np.where(skill, correct, (rng.random(n) * n_options).astype(np.int32))
    chosen[rng.random(n) < 0.03] = -1
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(n_options, out=offsets[1:])
    raw = rng.random(offsets[-1]) ** 2
    # Push mass towards the chosen option so calibration is not trivial.
    first = offsets[:-1]
    boost = np.where(chosen >= 0, chosen, 0)
    raw[first + boost] += rng.random(n) * 2
    sums = np.add.reduceat(raw, first)
    raw /= np.repeat(sums, n_options)
    probs = pa.ListArray.from_arrays(pa.array(offsets), pa.array(raw))
    missing = rng.random(n) < 0.01
    probs = pa.ListArray.from_arrays(pa.array(offsets), pa.array(raw), mask=pa.array(missing))

    def category(prefix: str, k: int) -> pa.DictionaryArray:
        names = pa.array([f"{prefix}{i:03d}" for i in range(k)])
        return pa.DictionaryArray.from_arrays(
            pa.array(rng.integers(0, k, n, dtype=np.int32)), names
        )

    return pa.table(
        {
            "model": category("model-", models),
            "element": category("steer.x.", elements),
            "domain": category("domain-", domains),
            "grade": rng.integers(0, grades, n, dtype=np.int32),
            "n_options": n_options,
            "chosen_index": chosen,
            "correct_index": correct,
            "option_probs": probs,
        }
    )


def numeric_nbytes(table: pa.Table) -> int:
    """Bytes of the numeric columns the metrics read (ints, offsets, probabilities)."""
    total = 0
    for name in ("n_options", "chosen_index", "correct_index", "grade"):
        total += table[name].nbytes
    for name in ("model", "element", "domain"):
        total += sum(chunk.indices.nbytes for chunk in table[name].chunks)
    total += table["option_probs"].nbytes
    return total


def taxonomy_response_table(n: int, seed: int = 0, *, models: int = 4) -> pa.Table:
    """`response_table` with its elements renamed to real taxonomy ids (STEER
    and STEER-ME, in order) so that rubrics select them; adds a `type` column."""
    from steer.taxonomy import load_taxonomy

    ids = list(load_taxonomy().elements)
    table = response_table(n, seed, models=models, elements=len(ids))
    element = table["element"].combine_chunks()
    renamed = pa.DictionaryArray.from_arrays(element.indices, pa.array(ids))
    table = table.set_column(table.schema.get_field_index("element"), "element", renamed)
    types = pa.DictionaryArray.from_arrays(
        pa.array(np.arange(n, dtype=np.int32) % 2), pa.array(["positive", "normative"])
    )
    return table.append_column("type", types)


def write_run_dir(run: Path, n: int, seed: int) -> Path:
    """`run`/responses.parquet of `n` taxonomy responses (one model family,
    the default adaptation, unique question ids) and a manifest naming the
    bank: a run directory as steer grade, score and view read it."""
    import json

    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    run.mkdir(parents=True)
    table = taxonomy_response_table(n, seed=seed)
    n = table.num_rows
    table = table.append_column("run_id", pa.array(["bench"] * n).dictionary_encode())
    table = table.append_column("backend", pa.array(["agent"] * n).dictionary_encode())
    adaptation = pa.StructArray.from_arrays(
        [pa.array(["mc"] * n), pa.array(np.zeros(n, dtype=np.int8)), pa.array(["none"] * n),
         pa.array(["conditioning"] * n)],
        names=["format", "shots", "cot", "prob_mode"],
    )  # fmt: skip
    table = table.append_column("adaptation", adaptation)
    ids = pc.binary_join_element_wise("q", pa.array(np.arange(n)).cast(pa.string()), "")
    table = table.append_column("question_id", ids)
    pq.write_table(table, run / "responses.parquet")
    (run / "manifest.json").write_text(json.dumps({"bank_sha256": "0" * 64}))
    return run
