"""Scoring a survey run: subscale scores with intervals, and the distance of
a model's item answers from published models' answers.

Per model and sample, a subscale's score is the mean (or sum) of its items'
answers after reverse keying; the reported score is the mean over samples
with a seeded percentile bootstrap over samples. Unanswered items are left
out of a sample's score (counted in `unanswered`).
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from steer.errors import FileFormatError, InputError
from steer.schema import NO_ANSWER
from steer.survey._instrument import Instrument

BOOTSTRAP = 2000


def item_answers(instrument: Instrument, responses: pa.Table) -> pa.Table:
    """(model, sample, item, subscale, answer, keyed) per answered item; the
    answer on the instrument's scale, `keyed` after reverse keying."""
    # Question ids are "survey.<name>/i<item>.s<sample>/0": read them with
    # Arrow's string kernels, never a Python loop over rows.
    parts = pc.extract_regex(responses["question_id"], r"/i(?P<item>.+)\.s(?P<sample>\d+)/")
    items = pc.struct_field(parts, "item")
    samples = pc.cast(pc.struct_field(parts, "sample"), pa.int32())
    chosen = pc.fill_null(responses["chosen_index"], NO_ANSWER).to_numpy()
    errored = pc.is_valid(responses["error"]).to_numpy(zero_copy_only=False)
    k = instrument.scale.max - instrument.scale.min + 1
    known = pa.array([i.id for i in instrument.item], pa.string())
    position = pc.index_in(items, value_set=known)
    found = pc.is_valid(position).to_numpy(zero_copy_only=False)
    at = pc.fill_null(position, 0).to_numpy(zero_copy_only=False)
    ok = (chosen >= 0) & (chosen < k) & ~errored & found
    reverse = np.array([i.reverse for i in instrument.item])[at]
    subscale = pa.array([i.subscale for i in instrument.item], pa.string()).take(pa.array(at))
    answer = instrument.scale.min + chosen
    keyed = np.where(reverse, instrument.scale.min + instrument.scale.max - answer, answer)
    table = pa.table(
        {
            "model": responses["model"],
            "sample": samples,
            "item": items,
            "subscale": subscale,
            "answer": pa.array(answer.astype(float)),
            "keyed": pa.array(keyed.astype(float)),
        }
    )
    return table.filter(pa.array(ok))


def subscale_scores(
    instrument: Instrument, responses: pa.Table, *, ci: float = 0.95, seed: int = 0
) -> pa.Table:
    """One row per (model, subscale): score, interval over samples, n."""
    answers = item_answers(instrument, responses)
    rows = []
    for model in dict.fromkeys(responses["model"].to_pylist()):
        mine = answers.filter(pc.equal(answers["model"], model))
        for subscale in instrument.subscales:
            part = mine.filter(pc.equal(mine["subscale"], subscale))
            sample = part["sample"].to_numpy()
            keyed = part["keyed"].to_numpy()
            per = []
            for s in np.unique(sample):
                values = keyed[sample == s]
                per.append(values.mean() if instrument.scoring.rule == "mean" else values.sum())
            x = np.asarray(per, dtype=float)
            lo = hi = math.nan
            if x.size > 1:
                idx = np.random.default_rng([seed, *str(model).encode()]).integers(
                    0, x.size, (BOOTSTRAP, x.size)
                )
                tail = (1 - ci) / 2
                lo, hi = (float(v) for v in np.quantile(x[idx].mean(axis=1), [tail, 1 - tail]))
            rows.append(
                {
                    "model": model,
                    "instrument": instrument.name,
                    "subscale": subscale,
                    "score": float(x.mean()) if x.size else None,
                    "score_lo": None if math.isnan(lo) else lo,
                    "score_hi": None if math.isnan(hi) else hi,
                    "n_samples": int(x.size),
                    "n_answers": int(keyed.size),
                }
            )
    return pa.Table.from_pylist(rows)


def read_published(path: str | Path, scale: str) -> dict[str, dict[str, float]]:
    """Published per-item answers of one scale from a table laid out like
    Rationality Check's survey_result.csv (scale name, id, one column per
    model; the scale name is given on its first row only): model → item → answer."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FileFormatError(f"not UTF-8 text (byte {exc.start})", source=str(path)) from None
    reader = csv.reader(text.splitlines())
    header = next(reader, None)
    if not header or len(header) < 3:
        raise FileFormatError(
            "needs a header: scale name, id, then one column per model",
            source=str(path),
            where="line 1",
        )
    models = [h.strip() for h in header[2:]]
    out: dict[str, dict[str, float]] = {m: {} for m in models}
    current = ""
    found = False
    for number, row in enumerate(reader, 2):
        if not row or not any(c.strip() for c in row):
            continue
        if row[0].strip():
            current = row[0].strip()
        if current.lower() != scale.lower():
            continue
        found = True
        item = row[1].strip() if len(row) > 1 else ""
        if not item:
            raise FileFormatError(
                "missing item id", source=str(path), where=f"line {number}", field="id"
            )
        for model, cell in zip(models, row[2:], strict=False):
            cell = cell.strip()
            if not cell or cell == "-":
                continue
            try:
                out[model][item] = float(cell)
            except ValueError:
                raise FileFormatError(
                    f"{cell!r} is not a number",
                    source=str(path),
                    where=f"line {number}",
                    field=model,
                ) from None
    if not found:
        raise InputError(f"{path}: no rows for the scale {scale!r}")
    return {m: v for m, v in out.items() if v}


def compare_published(
    instrument: Instrument, responses: pa.Table, published: dict[str, dict[str, float]]
) -> pa.Table:
    """Per (model, published model): the mean absolute difference of item
    answers (each item's answer averaged over samples first) and the Pearson
    correlation over the items both answered."""
    answers = item_answers(instrument, responses)
    rows = []
    for model in dict.fromkeys(answers["model"].to_pylist()):
        mine = answers.filter(pc.equal(answers["model"], model))
        grouped = mine.group_by("item").aggregate([("answer", "mean")])
        own = dict(
            zip(grouped["item"].to_pylist(), grouped["answer_mean"].to_pylist(), strict=True)
        )
        for other, theirs in published.items():
            shared = [i for i in own if i in theirs]
            if not shared:
                continue
            a = np.array([own[i] for i in shared])
            b = np.array([theirs[i] for i in shared])
            r = None
            if len(shared) > 2 and a.std() > 0 and b.std() > 0:
                r = float(np.corrcoef(a, b)[0, 1])
            rows.append(
                {
                    "model": model,
                    "published_model": other,
                    "items": len(shared),
                    "mean_abs_diff": float(np.abs(a - b).mean()),
                    "correlation": r,
                }
            )
    table = pa.Table.from_pylist(rows)
    if table.num_rows:
        table = table.sort_by([("model", "ascending"), ("mean_abs_diff", "ascending")])
    return table
