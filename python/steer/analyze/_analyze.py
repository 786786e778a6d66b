"""`analyze`: what explains a model's correctness (STEER-ME's variance analysis).

Per model, every graded response (a no-answer counts as wrong) is one
observation of correctness; the factors are the question's domain,
perspective, type, element and the adaptation it was asked under. The
Type II ANOVA says how much of the variance each factor explains given the
others (F, p, partial η², R²), the logistic regression checks the same
factors on the binary outcome (likelihood-ratio χ²), and the wrong answers
are broken down by the error their chosen option encodes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from steer._suggest import did_you_mean
from steer.analyze._anova import Anova, type2_anova
from steer.analyze._cells import collapse
from steer.analyze._errors import ErrorCount, chosen_tags, error_counts
from steer.analyze._logit import Logit, logit_lr_tests
from steer.errors import InputError
from steer.schema import NO_ANSWER, OFF_OPTIONS, OFF_OPTIONS_TAG
from steer.score._asked import read_bank_arg, run_asked
from steer.score._load import BankInput, ResponseInput, load_responses
from steer.score._outcomes import adaptation_labels

FACTORS = ("domain", "perspective", "type", "element", "adaptation")


@dataclass(frozen=True)
class ModelAnalysis:
    model: str
    n: int
    accuracy: float
    no_answers: int
    anova: Anova
    logit: Logit
    errors: list[ErrorCount] = field(default_factory=list)
    # The same wrong answers under their full tags (a named error's digit slip apart).
    errors_full: list[ErrorCount] = field(default_factory=list)
    tagged: bool = False  # were option tags found for the error breakdown


@dataclass(frozen=True)
class Analysis:
    factors: list[str]
    models: list[ModelAnalysis]


def _tag_bank(inputs: Sequence[ResponseInput], bank: BankInput | None) -> pa.Table | None:
    """The bank rows whose option tags classify wrong answers: `bank`, else
    the banks the run directories' manifests point to."""
    if bank is not None:
        return read_bank_arg(bank).table
    tables = []
    for item in inputs:
        if isinstance(item, str | Path) and Path(item).is_dir():
            asked = run_asked(Path(item), None)
            if asked is not None and asked.run_bank is not None:
                tables.append(asked.run_bank.select(["question_id", "option_tags"]))
    if not tables:
        return None
    merged = pa.concat_tables(tables, promote_options="permissive")
    # One row per question id (the same bank under several runs).
    first = pc.index_in(pc.unique(merged["question_id"]), value_set=merged["question_id"])
    return merged.take(first)


def _codes(column: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, list[str]]:
    encoded = pc.dictionary_encode(pc.fill_null(column.cast(pa.string()), ""))
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks()
    levels = encoded.dictionary.to_pylist()
    return encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64), levels


def analyze(
    inputs: ResponseInput | Sequence[ResponseInput],
    *,
    bank: BankInput | None = None,
    factors: Sequence[str] = FACTORS,
) -> Analysis:
    """Variance analysis of correctness for every model in `inputs` (run
    directories or response tables; `bank` as for `steer score`)."""
    items = [inputs] if isinstance(inputs, pa.Table | str | Path) else list(inputs)
    factors = list(factors)
    for name in factors:
        if name not in FACTORS:
            close = did_you_mean(name, FACTORS)
            hint = f"; did you mean {close[0]!r}?" if close else f" (use {', '.join(FACTORS)})"
            raise InputError(f"unknown factor {name!r}{hint}")
    if len(set(factors)) != len(factors):
        raise InputError("a factor is named twice")
    table = load_responses(items, bank=bank).table
    graded = table.filter(pc.is_valid(table["correct_index"]))
    chosen = graded["chosen_index"].to_numpy().astype(np.int64)
    key = graded["correct_index"].to_numpy().astype(np.int64)
    y = (chosen == key).astype(np.float64)
    columns: dict[str, pa.ChunkedArray | pa.Array] = {}
    for name in factors:
        if name == "adaptation":
            columns[name] = adaptation_labels(graded["adaptation"])
        elif name in graded.column_names:
            columns[name] = graded[name]
        else:
            columns[name] = pa.array([""] * graded.num_rows, pa.string())
    encoded = {name: _codes(column) for name, column in columns.items()}
    tag_bank = _tag_bank(items, bank)
    tags = chosen_tags(graded["question_id"], chosen, tag_bank) if tag_bank is not None else None
    if tags is not None:
        # A free-text number matching no option (-2) is a wrong answer of its own type.
        tags = pc.if_else(pa.array(chosen == OFF_OPTIONS), OFF_OPTIONS_TAG, tags)
    model_codes, models = _codes(graded["model"])
    out = []
    for m, model in enumerate(models):
        mask = model_codes == m
        names, levels, codes = [], [], []
        for name in factors:
            all_codes, all_levels = encoded[name]
            # Re-code within this model, so a level it never saw is no level.
            used, local = np.unique(all_codes[mask], return_inverse=True)
            names.append(name)
            levels.append([all_levels[u] for u in used])
            codes.append(local.reshape(-1).astype(np.int64))
        cells = collapse(names, levels, codes, y[mask])
        errors: list[ErrorCount] = []
        errors_full: list[ErrorCount] = []
        if tags is not None:
            wrong = tags.filter(pa.array(mask & (y == 0) & (chosen != NO_ANSWER)))
            errors = error_counts(wrong)
            errors_full = error_counts(wrong, combined=True)
        out.append(
            ModelAnalysis(
                model=model,
                n=int(mask.sum()),
                accuracy=float(y[mask].mean()) if mask.any() else 0.0,
                no_answers=int((chosen[mask] == NO_ANSWER).sum()),
                anova=type2_anova(cells),
                logit=logit_lr_tests(cells),
                errors=errors,
                errors_full=errors_full,
                tagged=tags is not None,
            )
        )
    return Analysis(factors, out)
