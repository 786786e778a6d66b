"""`grade`: score runs under a rubric, build the report card, run the rules."""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from steer import _native
from steer.errors import FileFormatError, InputError, row_location
from steer.rubric._baseline import Baseline
from steer.rubric._card import CardCoverage, ElementScore, GradeResult, ModelCard, SectionScore
from steer.rubric._diagnostic import Diagnostic, Location
from steer.rubric._fits import Fits
from steer.rubric._grade_math import letter_of, weighted_mean
from steer.rubric._load import LoadedRubric
from steer.rubric._model import RUN_METRICS, Filters, Rubric, Section
from steer.rubric._selection import Selection
from steer.rubric._selectors import select_elements
from steer.rubric.rules._context import RuleContext
from steer.rubric.rules._registry import RULES
from steer.score import load_responses, score
from steer.score._columns import _key_values, key_columns
from steer.score._coverage import card_codes, label_of, question_counts
from steer.score._keys import Dedupe
from steer.taxonomy import Taxonomy, load_taxonomy

BASE_METRICS = (
    "exact_match",
    "normalized_accuracy",
    "normalized_accuracy_strict",
    "gap",
    "ece",
    "consistency",
)
ROBUSTNESS = ("domain_robustness", "type_robustness", "perspective_robustness")


def bank_hashes(runs: Sequence[str | Path | pa.Table]) -> list[str]:
    """The question banks (sha256 from each run directory's manifest) of `runs`."""
    found = set()
    for run in runs:
        if isinstance(run, pa.Table):
            continue
        manifest = Path(run) / "manifest.json"
        if manifest.is_file():
            try:
                bank = json.loads(manifest.read_text(encoding="utf-8")).get("bank_sha256")
            except (ValueError, RecursionError, AttributeError):  # bad JSON/UTF-8, deep
                continue
            if bank:
                found.add(str(bank))
    return sorted(found)


# pyarrow's stubs do not model dictionary chunks or compute kernels on
# chunked arrays precisely; the column helpers below take `Any`.
def _in(column: Any, values: Sequence[object]) -> Any:
    """Membership test (nulls count as out) that stays on the dictionary for
    dictionary columns."""
    if pa.types.is_dictionary(column.type):
        chunks = []
        for chunk in column.chunks:
            hit = pc.is_in(chunk.dictionary, value_set=pa.array(values, chunk.dictionary.type))
            chunks.append(pc.fill_null(pc.take(hit, chunk.indices), False))
        return pa.chunked_array(chunks, pa.bool_())
    return pc.fill_null(pc.is_in(column, value_set=pa.array(values, column.type)), False)


def _distinct(column: Any) -> list[str]:
    """Distinct non-null values of a column, as sorted strings."""
    if pa.types.is_dictionary(column.type):
        found = {v for c in column.chunks for v in c.dictionary.to_pylist()}
    else:
        found = set(pc.unique(column).to_pylist())
    return sorted(str(v) for v in found if v is not None)


def _in_file(exc: FileFormatError, loaded: Any, source_rows: pa.ChunkedArray) -> FileFormatError:
    """A row error from scoring the filtered in-memory table, renamed to the
    file and row the user gave (never the internal `<table>`)."""
    if exc.source != "<table>" or not (exc.where or "").startswith("row "):
        return exc
    row = int(source_rows[int((exc.where or "").removeprefix("row "))].as_py())
    name, local = loaded.locate(row)
    return FileFormatError(
        exc.problem, source=name, where=row_location(name, local), field=exc.field
    )


def filter_responses(table: pa.Table, filters: Filters, elements: list[str]) -> pa.Table:
    """Rows the rubric grades: its filters, and elements some section selects.
    Returns `table` itself when every row is kept (no copy)."""
    masks: list[Any] = []
    if not set(_distinct(table["element"])) <= set(elements):
        masks.append(_in(table["element"], elements))

    def need(column: str) -> Any:
        if column not in table.column_names:
            raise InputError(
                f"the rubric filters on {column!r} but the responses have no such column"
            )
        return table[column]

    if filters.grades is not None:
        grade = need("grade")
        low, high = (pa.scalar(g, pa.int32()) for g in filters.grades)
        within = pc.and_(pc.greater_equal(grade, low), pc.less_equal(grade, high))
        masks.append(pc.fill_null(within, pa.scalar(False)))
    for name, column in (("domains", "domain"), ("types", "type"), ("perspectives", "perspective")):
        values = getattr(filters, name)
        if values is not None:
            masks.append(_in(need(column), values))
    if filters.models is not None:
        models = _distinct(table["model"])
        kept = [m for m in models if any(fnmatch.fnmatchcase(m, p) for p in filters.models)]
        masks.append(_in(table["model"], kept))
    if filters.adaptation is not None:
        adaptation = need("adaptation")
        for field, values in filters.adaptation.model_dump(exclude_none=True).items():
            masks.append(_in(pc.struct_field(adaptation, field), values))
    if not masks:
        return table
    mask = masks[0]
    for m in masks[1:]:
        mask = pc.and_(mask, m)
    return table.filter(mask)


def _metrics(rubric: Rubric, table: pa.Table) -> list[str]:
    wanted = set(BASE_METRICS) | {rubric.metric}
    wanted |= {c.metric for c in rubric.check if c.metric and c.metric not in RUN_METRICS}

    def walk(sections: list[Section]) -> None:
        for s in sections:
            if s.metric:
                wanted.add(s.metric)
            walk(s.section)

    walk(rubric.section)
    wanted.add("domain_robustness")
    out = []
    for name in sorted(wanted):
        if name in ROBUSTNESS and name.removesuffix("_robustness") not in table.column_names:
            continue
        out.append(name)
    return out


CardKey = tuple[str, str]  # (model, adaptation label)


def _mapped_wilson(
    cols: dict[str, list[Any]], i: int, acc_lo: float, acc_hi: float
) -> dict[str, tuple[float, float]]:
    """Intervals of gap and normalized accuracy (plain and strict) without a
    bootstrap, mapped from the Wilson interval [acc_lo, acc_hi] of accuracy
    (k right of n asked) in cell `i`.

    gap is acc − p̄ for the mean random-guess rate p̄: the mapping is exact.
    Normalized accuracy is (k − Σ penalties of the misses)/n with penalty
    q = p/(1 − p) per question, so with a miss costing q it is
    acc − (1 − acc − u)·q (u: no-answer share, 0 for the strict variant, where
    a no-answer is a miss). When option counts vary in the cell, q is not one
    number: the cell's sums give the exact mean penalty of its own misses,
    q̄ = (k − sum_norm)/misses, with which the map passes through the estimate;
    the bounds take the worse of q̄ and q(p̄) (the penalty at the mean chance
    rate) on each side, so more or fewer misses at either cost stay inside.
    With one option count both are p/(1 − p): the exact (acc − p)/(1 − p) map.
    """
    n = float(cols["n_units"][i] or 0)
    if not n:
        return {}
    k = float(cols["n_correct"][i])
    p_mean = float(cols["sum_p_random"][i]) / n
    q_mean = p_mean / (1 - p_mean) if p_mean < 1 else 1.0
    out = {"gap": (acc_lo - p_mean, acc_hi - p_mean)}
    silent = float(cols["n_no_answer"][i])
    for metric, total, misses, fixed in (
        ("normalized_accuracy_strict", "sum_norm_strict", n - k, 0.0),
        ("normalized_accuracy", "sum_norm", n - k - silent, silent / n),
    ):
        q_miss = (k - float(cols[total][i])) / misses if misses > 0 else q_mean
        q_hi, q_lo = max(q_miss, q_mean), min(q_miss, q_mean)
        # Misses left at accuracy a: 1 − a − u, never below none.
        lo = acc_lo - max(0.0, 1 - acc_lo - fixed) * q_hi
        hi = acc_hi - max(0.0, 1 - acc_hi - fixed) * q_lo
        out[metric] = (lo, hi)
    return out


def _element_scores(
    scored: pa.Table, metrics: list[str], taxonomy: Taxonomy
) -> dict[CardKey, dict[str, ElementScore]]:
    cols = scored.to_pydict()
    n = scored.num_rows
    out: dict[CardKey, dict[str, ElementScore]] = {}
    for i in range(n):
        element = str(cols["element"][i])
        info = taxonomy.elements.get(element)
        values = {m: cols[m][i] for m in metrics}
        bounds: dict[str, tuple[float, float]] = {}
        for m in metrics:
            los, his = cols.get(f"{m}_lo"), cols.get(f"{m}_hi")
            if los is None or his is None or los[i] is None or his[i] is None:
                continue
            if los[i] == los[i] and his[i] == his[i]:  # NaN: no interval
                bounds[m] = (float(los[i]), float(his[i]))
        wlo, whi = cols.get("exact_match_wilson_lo"), cols.get("exact_match_wilson_hi")
        if wlo is not None and whi is not None and wlo[i] is not None and whi[i] == whi[i]:
            bounds.setdefault("exact_match", (float(wlo[i]), float(whi[i])))
            for m, (lo, hi) in _mapped_wilson(cols, i, float(wlo[i]), float(whi[i])).items():
                bounds.setdefault(m, (lo, hi))
        for m, (lo, hi) in list(bounds.items()):
            # A printed interval always holds its estimate: a percentile
            # bootstrap of a skewed metric (ECE) or rounding in the mapping
            # below can leave it just outside; widen to include it.
            v = values.get(m)
            if v is not None and v == v:
                bounds[m] = (min(lo, float(v)), max(hi, float(v)))
        adaptation = str(cols["adaptation"][i] or "") if "adaptation" in cols else ""
        out.setdefault((str(cols["model"][i]), adaptation), {})[element] = ElementScore(
            element=element,
            name=info.name if info else "",
            n=int(cols["n_units"][i]),
            metrics=values,
            bounds=bounds,
            worst_domain=cols.get("domain_robustness_argmin", [None] * n)[i],
            worst_domain_value=cols.get("domain_robustness", [None] * n)[i],
        )
    return out


def _section_score(
    section: Section,
    elements: dict[str, ElementScore],
    default_metric: str,
    steps: list[tuple[str, float, float]],
    taxonomy: Taxonomy,
) -> SectionScore:
    metric = section.metric or default_metric
    if section.section:
        children = [_section_score(c, elements, metric, steps, taxonomy) for c in section.section]
        score_ = weighted_mean([(c.weight, c.score) for c in children])
        lo = weighted_mean([(c.weight, c.lo) for c in children if c.score is not None])
        hi = weighted_mean([(c.weight, c.hi) for c in children if c.score is not None])
        selected = [e for c in children for e in c.selected]
        present = [e for c in children for e in c.present]
    else:
        children = []
        selected = select_elements(taxonomy, section.select, section.exclude)
        present = [e for e in selected if e in elements and elements[e].value(metric) is not None]
        score_ = weighted_mean([(1.0, elements[e].value(metric)) for e in present])
        bounded = [elements[e].bounds[metric] for e in present if metric in elements[e].bounds]
        lo = hi = None
        if present and len(bounded) == len(present):
            # The mean of the bounds: wider than the mean's own interval, so
            # conservative for the too-few-samples rule.
            lo = sum(b[0] for b in bounded) / len(bounded)
            hi = sum(b[1] for b in bounded) / len(bounded)
    return SectionScore(
        name=section.name,
        weight=section.weight,
        metric=metric,
        score=score_,
        lo=lo,
        hi=hi,
        letter=letter_of(score_, steps)[0],
        selected=selected,
        present=present,
        children=children,
        file=section._file,
        path=section._path,
    )


def _element_locations(loaded: LoadedRubric, taxonomy: Taxonomy) -> dict[str, Location]:
    where: dict[str, Location] = {}

    def walk(sections: list[Section]) -> None:
        for s in sections:
            for i, selector in enumerate(s.select):
                for e in select_elements(taxonomy, [selector], s.exclude):
                    where.setdefault(e, loaded.locate(s._file, (*s._path, "select", i)))
            walk(s.section)

    walk(loaded.rubric.section)
    return where


def _asked(table: pa.Table) -> dict[CardKey, tuple[int, tuple[str, ...]]]:
    """(distinct questions, sorted distinct elements) per card of `table`."""
    if not table.num_rows:
        return {}
    codes, first = card_codes(table)
    card = np.asarray(codes, np.int64)

    def distinct(column: str) -> tuple[np.ndarray, list[str]]:
        """Distinct (card, value) pairs, coded card × values + value, and the values."""
        values = table[column]
        if pa.types.is_dictionary(values.type):
            values = values.cast(values.type.value_type)
        encoded = pc.dictionary_encode(values.combine_chunks())
        names = [str(v) for v in encoded.dictionary.to_pylist()]
        index = pc.fill_null(encoded.indices, 0).to_numpy(zero_copy_only=False)
        return np.unique(card * max(len(names), 1) + index.astype(np.int64)), names

    questions, ids = distinct("question_id")
    counts = np.bincount(questions // max(len(ids), 1), minlength=len(first))
    pairs, names = distinct("element")
    per_card: list[list[str]] = [[] for _ in first]
    for pair in pairs.tolist():
        per_card[pair // len(names)].append(names[pair % len(names)])
    per_card = [sorted(found) for found in per_card]
    head = table.take(pa.array(first, pa.int64())).select(
        [c for c in ("model", "adaptation") if c in table.column_names]
    )
    rows = head.to_pylist()
    return {
        (str(r["model"]), label_of(r.get("adaptation"))): (int(counts[k]), tuple(per_card[k]))
        for k, r in enumerate(rows)
    }


def grade(
    runs: Sequence[str | Path | pa.Table],
    loaded: LoadedRubric,
    *,
    selection: Selection | None = None,
    baseline: Baseline | None = None,
    fits: Fits | None = None,
    taxonomy: Taxonomy | None = None,
    run_names: Sequence[str] | None = None,
    bank: str | Path | pa.Table | None = None,
    dedupe: Dedupe = None,
) -> GradeResult:
    """Grade `runs` (run directories, response files or tables) under a rubric.

    Returns the report card of every (model, adaptation) with the diagnostics
    that `selection` enables, sorted by model, severity and code. Every asked
    question counts: a run's manifest says what it asked, `bank` supplies it
    for bare tables, and an asked question without a usable answer is a
    no-answer (see `steer.score.load_responses`, also for `dedupe`). Sections
    with nothing left to grade (filters, or elements absent from the runs)
    stay ungraded and are reported (RAT009).
    """
    taxonomy = taxonomy or load_taxonomy()
    rubric = loaded.rubric
    selection = selection or Selection()
    elements = sorted(
        {e for s in rubric.section for e in _all_selected(s, taxonomy)}
        | {
            e
            for c in rubric.check
            if c.metric and c.metric not in RUN_METRICS  # those select runs' records
            for e in select_elements(taxonomy, c.select, c.exclude)
        }
    )
    responses = load_responses(list(runs), bank=bank, dedupe=dedupe)
    table = responses.table
    # Every (model, adaptation) the rubric grades gets a card, even one the
    # other filters leave without responses.
    # A run that answered nothing still has a card (its manifest names it).
    keys = sorted(set(_card_keys(table)) | set(responses.coverage))
    if rubric.filters.models is not None:
        patterns = rubric.filters.models
        keys = [k for k in keys if any(fnmatch.fnmatchcase(k[0], p) for p in patterns)]
    # Carry each row's place in the loaded files through the filters, so an error
    # from scoring the filtered table names the user's file and row.
    asked_by_card = _asked(table)  # before the filters: what each run asked
    index = pa.array(np.arange(table.num_rows, dtype=np.int64))
    table = filter_responses(table.append_column("_source_row", index), rubric.filters, elements)
    source_rows = table["_source_row"]
    table = table.drop_columns(["_source_row"])
    counts = _answered(table)
    by_card: dict[CardKey, dict[str, ElementScore]] = {k: {} for k in keys}
    if table.num_rows:
        metrics = _metrics(rubric, table)
        try:
            scored = score(
                table,
                by=[*_card_by(table), "element"],
                metrics=metrics,
                ci=rubric.ci,
                bootstrap=rubric.bootstrap,
            )
        except FileFormatError as exc:
            raise _in_file(exc, responses, source_rows) from None
        by_card.update(_element_scores(scored, metrics, taxonomy))
    steps = rubric.letter_steps()
    cards = []
    for model, adaptation in keys:
        els = by_card[(model, adaptation)]
        sections = [_section_score(s, els, rubric.metric, steps, taxonomy) for s in rubric.section]
        overall = weighted_mean([(s.weight, s.score) for s in sections])
        points = [(s.weight, letter_of(s.score, steps)[1]) for s in sections if s.score is not None]
        gpa = weighted_mean(points)
        letter = letter_of(overall, steps)[0]
        graded, answered = counts.get((model, adaptation), (0, 0))
        known = responses.coverage.get((model, adaptation))
        run_questions, run_elements = asked_by_card.get((model, adaptation), (0, ()))
        coverage = CardCoverage(
            graded,
            answered,
            known.asked if known is not None else None,
            known.bank if known is not None else None,
            run_questions,
            run_elements,
        )
        cards.append(ModelCard(model, sections, overall, letter, gpa, els, adaptation, coverage))
    where = _element_locations(loaded, taxonomy)
    ctx = RuleContext(
        loaded, cards, taxonomy, baseline, fits, where, responses=table, banks=bank_hashes(runs)
    )
    diagnostics = _run_rules(ctx)
    diagnostics = [d for d in diagnostics if selection.enabled(d.code, d.model)]
    diagnostics.sort(key=Diagnostic.sort_key)
    return GradeResult(
        rubric_name=rubric.name,
        rubric_file=loaded.file,
        description=rubric.description,
        metric=rubric.metric,
        runs=[str(r) for r in (run_names or [str(r) for r in runs])],
        banks=bank_hashes(runs),
        cards=cards,
        diagnostics=diagnostics,
        letter_steps=steps,
        responses=table,
    )


def _card_by(table: pa.Table) -> list[str]:
    """Card grouping columns: adaptations are never pooled into one card."""
    return ["model", "adaptation"] if "adaptation" in table.column_names else ["model"]


def _card_keys(table: pa.Table) -> list[CardKey]:
    """Distinct (model, adaptation label) pairs of `table`, sorted."""
    if not table.num_rows:
        return []
    by = _card_by(table)
    keys = key_columns(table, by)
    codes, first = _native.encode_groups([k[1] for k in keys], [len(k[2]) for k in keys])
    del codes
    values = _key_values(keys, [k[1][first] for k in keys], by).to_pydict()
    adaptations = values.get("adaptation", [""] * len(values["model"]))
    return sorted(
        {(str(m), str(a or "")) for m, a in zip(values["model"], adaptations, strict=True)}
    )


def _answered(table: pa.Table) -> dict[CardKey, tuple[int, int]]:
    """(questions, questions with a usable answer) per card, distinct question
    ids (see `question_counts`): samples never count as more questions."""
    return question_counts(table)


def _run_rules(ctx: RuleContext) -> list[Diagnostic]:
    """Every rule on every card, each card on its own so that a finding can
    name the card's adaptation (when its model has several cards: otherwise the
    model alone says which card); findings about the rubric itself are
    reported once."""
    out: list[Diagnostic] = []
    seen: set[Diagnostic] = set()
    models = [c.model for c in ctx.cards]
    each: list[ModelCard | None] = list(ctx.cards) or [None]  # no card: rubric-level rules
    for card in each:
        one = replace(ctx, cards=[card] if card is not None else [])
        for rule in RULES:
            for d in rule(one):
                if d.model is not None and card is not None and models.count(card.model) > 1:
                    d = replace(d, adaptation=card.adaptation or None)
                if d not in seen:
                    seen.add(d)
                    out.append(d)
    return out


def _all_selected(section: Section, taxonomy: Taxonomy) -> list[str]:
    if section.section:
        return [e for c in section.section for e in _all_selected(c, taxonomy)]
    return select_elements(taxonomy, section.select, section.exclude)
