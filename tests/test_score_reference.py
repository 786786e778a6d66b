"""steer.score.score against a plain-Python reference of every metric.

The reference below follows the definitions rows → units → cells → metrics
one row at a time, with no numpy and no Arrow compute, and the hypothesis
tests compare it with the Rust engine on random response tables (multi-part
questions, consistency groups, one-option questions, missing, NaN, zero and
unnormalised probabilities, empty groups) under many groupings. Every count
must match exactly and every sum and rate to 1e-9.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steer.schema import RESPONSE_SCHEMA, Adaptation
from steer.score import score
from steer.taxonomy import load_taxonomy

TOL = 1e-9
ALL_METRICS = (
    "exact_match",
    "normalized_accuracy",
    "normalized_accuracy_strict",
    "gap",
    "no_answer_rate",
    "consistency",
    "ece",
    "ece_equal_mass",
    "brier",
    "epa",
    "invalid_mass",
    "domain_robustness",
    "type_robustness",
    "perspective_robustness",
)
COUNT_FIELDS = (
    "n_rows",
    "n_units",
    "n_no_answer",
    "n_correct",
    "n_consistency",
    "n_consistent",
    "n_unscored",
    "n_prob",
    "n_prob_invalid",
    "n_top_correct",
)
SUM_FIELDS = (
    "sum_norm",
    "sum_norm_strict",
    "sum_p_random",
    "sum_conf",
    "sum_p_correct",
    "sum_brier",
    "sum_invalid_mass",
)
# Real taxonomy elements: a prerequisite chain (3.1.f → 3.1.e → 3.1.d → 3.1.b → 3.1.a),
# elements from other settings and benchmarks, and one id the taxonomy does not know.
ELEMENTS = (
    "steer.3.1.f",
    "steer.3.1.e",
    "steer.3.1.d",
    "steer.3.1.b",
    "steer.3.1.a",
    "steer.2.4.b",
    "steer-me.A.3",
    "custom.unknown",
)
GROUPINGS = (
    ["model"],
    ["element"],
    ["domain"],
    ["type"],
    ["perspective"],
    ["grade"],
    ["module"],
    ["setting"],
    ["adaptation"],
    ["model", "element"],
    ["element", "grade"],
    ["model", "domain", "element"],
    ["setting", "adaptation"],
    ["element", "adaptation", "type"],
    ["module", "perspective", "model"],
)
# Valid consistency rules by number of parts.
RULES = {
    2: ("same:01", "flip:01", "flip:10", "map:01=1+2|*|-", "map:10=3|0+1"),
    3: (
        "same:01,12",
        "same:02",
        "flip:01;same:12",
        "flip:01,12",
        "same:01; flip:02",
        "map:02=2|0+1; same:01",
    ),
}

# --- building response tables ---------------------------------------------------------------


def response_table(rows: Sequence[dict[str, Any]]) -> pa.Table:
    """A RESPONSE_SCHEMA table from row dicts (missing columns are null, but
    `sample`, which may not be null, defaults to 0)."""
    arrays = [
        pa.array([r.get(f.name) for r in rows], type=f.type)
        if any(f.name in r for r in rows)
        else pa.array([0] * len(rows), f.type)
        if f.name == "sample"
        else pa.nulls(len(rows), f.type)
        for f in RESPONSE_SCHEMA
    ]
    return pa.Table.from_arrays(arrays, schema=RESPONSE_SCHEMA)


adaptations = st.fixed_dictionaries(
    {
        "format": st.sampled_from(["mc", "hidden"]),
        "shots": st.sampled_from([0, 3]),
        "cot": st.sampled_from(["none", "shown"]),
        "prob_mode": st.sampled_from(["conditioning", "mixing"]),
    }
)
unit_floats = st.one_of(
    st.sampled_from([0.0, 0.05, 0.1, 0.25, 0.3, 0.5, 0.7, 0.9, 1.0]),
    st.floats(0.0, 1.0, allow_nan=False),
)


@st.composite
def option_probs(draw: st.DrawFn, n: int, none_only: bool) -> list[float | None] | None:
    """Probabilities of one row: missing, a distribution, NaN, nulls, zeros or unnormalised."""
    if none_only:
        return None
    kind = draw(
        st.sampled_from(
            ["missing", "dist", "dist", "dist", "raw", "nan", "all_nan", "null", "zeros", "tie"]
        )
    )
    if kind == "missing":
        return None
    if kind == "zeros":
        return [0.0] * n
    if kind == "tie":
        return [1.0 / n] * n
    if kind == "all_nan":
        return [math.nan] * n
    values: list[float | None] = list(draw(st.lists(unit_floats, min_size=n, max_size=n)))
    if kind == "dist":
        total = sum(v for v in values if v is not None)
        values = [v / total for v in values if v is not None] if total > 0 else values
    elif kind == "nan":
        values[draw(st.integers(0, n - 1))] = math.nan
    elif kind == "null":
        values[draw(st.integers(0, n - 1))] = None
    return values  # "raw": any values in [0, 1], summing to anything


@st.composite
def questions(draw: st.DrawFn, index: int, kinds: Sequence[str], none_only: bool) -> list[dict]:
    """The rows of one question (one row unless multi-part or consistency-graded)."""
    kind = draw(st.sampled_from(kinds))
    # Single-part questions may leave base_id blank (the schema default) or repeat one.
    alone = kind in ("single", "unkeyed")
    base_id = draw(st.sampled_from([f"b{index}", "", "repeat"])) if alone else f"b{index}"
    shared = {
        "run_id": draw(st.sampled_from(["r1", "r2"])),
        "model": draw(st.sampled_from(["alpha", "beta", "gamma"])),
        "backend": "agent",
        "adaptation": draw(adaptations),
        "base_id": base_id,
        "element": draw(st.sampled_from(ELEMENTS)),
        "domain": draw(st.sampled_from(["finance", "sports", ""])),
        "type": draw(st.sampled_from(["standard", "twist"])),
        "perspective": draw(st.sampled_from(["first", "third", "anonymous"])),
        "grade": draw(st.sampled_from([None, 3, 7])),
    }
    n_parts = 1 if alone else draw(st.integers(2, 3))
    rule = draw(st.sampled_from(RULES[n_parts])) if kind == "consistency" else None
    rows = []
    for part in range(n_parts):
        n = draw(st.integers(1, 5))
        if kind == "consistency" or kind == "unkeyed":
            correct = None
        elif kind == "multi" and part > 0:  # a later part may have no key
            correct = draw(st.none() | st.integers(0, n - 1))
        else:
            correct = draw(st.integers(0, n - 1))
        rows.append(
            shared
            | {
                "question_id": f"{shared['element']}/{base_id or index}/{part}",
                "part": part,
                "n_options": n,
                "chosen_index": draw(st.integers(-1, n - 1)),
                "correct_index": correct,
                "consistency_rule": rule,
                "option_probs": draw(option_probs(n, none_only)),
            }
        )
    return rows


@st.composite
def response_rows(draw: st.DrawFn, max_questions: int = 25) -> list[dict[str, Any]]:
    """Rows of a random response table, in a random order."""
    kinds = draw(
        st.sampled_from(
            [
                ("single", "unkeyed"),  # one row per question: no units
                ("single", "single", "unkeyed", "multi", "consistency"),
                ("multi", "consistency"),
            ]
        )
    )
    none_only = draw(st.booleans()) and draw(st.booleans())  # a quarter: no probabilities
    n = draw(st.integers(0, max_questions))
    rows = [row for i in range(n) for row in draw(questions(i, kinds, none_only))]
    return draw(st.permutations(rows)) if rows else rows


# --- the reference -------------------------------------------------------------------------


@cache
def taxonomy() -> Any:
    return load_taxonomy()


def group_value(row: dict[str, Any], column: str) -> Any:
    tax = taxonomy()
    if column in ("module", "setting"):
        element = row["element"]
        return getattr(tax.elements[element], column) if element in tax else element
    if column == "adaptation":
        return Adaptation(**row["adaptation"]).label()
    return row[column]


def parse_rule(text: str) -> list[tuple[str, int, int]]:
    out = []
    for clause in text.split(";"):
        if not clause.strip():
            continue
        kind, pairs = clause.strip().split(":")
        if kind.strip() == "map":  # map:AB=S0|S1|…, kind kept as "map=S0|S1|…"
            pair, sets = pairs.split("=")
            out.append(("map=" + sets.strip(), int(pair.strip()[0]), int(pair.strip()[1])))
            continue
        for pair in pairs.split(","):
            pair = pair.strip()
            out.append((kind.strip(), int(pair[0]), int(pair[1])))
    return out


def rule_holds(rule: list[tuple[str, int, int]], choice: dict[int, int], n: dict[int, int]) -> bool:
    for kind, a, b in rule:
        if kind == "same" and choice[a] != choice[b]:
            return False
        if kind == "flip" and choice[b] != n[b] - 1 - choice[a]:
            return False
        if kind.startswith("map="):
            sets = kind[4:].split("|")
            if not 0 <= choice[a] < len(sets):
                return False
            s = sets[choice[a]].strip()
            if s == "-" or (s != "*" and str(choice[b]) not in s.split("+")):
                return False
    return True


def rule_p_random(rule: list[tuple[str, int, int]], n: dict[int, int]) -> float:
    """Chance that independent uniform answers satisfy the rule, by enumeration."""
    parts = sorted(n)
    combos = list(itertools.product(*(range(n[p]) for p in parts)))
    hits = sum(rule_holds(rule, dict(zip(parts, c, strict=True)), n) for c in combos)
    return hits / len(combos)


def wrong_penalty(p: float) -> float:
    return p / (1 - p) if p < 1 else 1.0


def calibration(row: dict[str, Any]) -> dict[str, Any] | None:
    """'invalid', or the calibration facts of a keyed, answered row with probabilities."""
    probs = row["option_probs"]
    if row["correct_index"] is None or row["chosen_index"] == -1 or probs is None:
        return None
    assert len(probs) == row["n_options"]
    values = [math.nan if p is None else p for p in probs]
    for p in values:
        assert math.isnan(p) or 0 <= p <= 1  # out-of-range values are tested as bad input
    total = sum(p for p in values if not math.isnan(p))
    if any(math.isnan(p) for p in values) or total <= 0:
        return {"invalid": True}
    q = [p / total for p in values]
    top = max(range(len(q)), key=lambda o: (q[o], -o))  # first of ties
    key = row["correct_index"]
    return {
        "invalid": False,
        "conf": q[top],
        "top_correct": top == key,
        "p_correct": q[key],
        "brier": sum((qo - (o == key)) ** 2 for o, qo in enumerate(q)) / len(q),
        "invalid_mass": abs(1 - total),
    }


def unit_outcome(rows: list[dict[str, Any]]) -> tuple[dict[str, Any] | None, int]:
    """(outcome or None when nothing is scored, number of unscored rows)."""
    rule_text = rows[0]["consistency_rule"]
    if rule_text is not None:
        rule = parse_rule(rule_text)
        mentioned = sorted({p for _, a, b in rule for p in (a, b)})
        by_part = {p: next(r for r in rows if r["part"] == p) for p in mentioned}
        n = {p: by_part[p]["n_options"] for p in mentioned}
        choice = {p: by_part[p]["chosen_index"] for p in mentioned}
        answered = all(c != -1 for c in choice.values())
        right = answered and rule_holds(rule, choice, n)
        outcome = {"answered": answered, "right": right, "p": rule_p_random(rule, n)}
        return outcome | {"consistency": True}, 0
    keyed = [r for r in rows if r["correct_index"] is not None]
    if not keyed:
        return None, len(rows)
    answered = all(r["chosen_index"] != -1 for r in keyed)
    right = answered and all(r["chosen_index"] == r["correct_index"] for r in keyed)
    p = math.prod(1 / r["n_options"] for r in keyed)
    return {"answered": answered, "right": right, "p": p, "consistency": False}, len(rows) - len(
        keyed
    )


def empty_cell(bins: int) -> dict[str, Any]:
    cell: dict[str, Any] = dict.fromkeys(COUNT_FIELDS, 0) | dict.fromkeys(SUM_FIELDS, 0.0)
    cell["ece_n"] = [0] * bins
    cell["ece_conf"] = [0.0] * bins
    cell["ece_acc"] = [0] * bins
    cell["cal"] = []  # (conf, top_correct) in row order, for equal-mass ECE
    return cell


def reference_cells(
    rows: Sequence[dict[str, Any]], by: Sequence[str], bins: int
) -> dict[tuple[Any, ...], dict[str, Any]]:
    """Rows → units → additive cells per group (plus calibration rows in order)."""
    cells: dict[tuple[Any, ...], dict[str, Any]] = {}
    key_of = {id(r): tuple(group_value(r, c) for c in by) for r in rows}
    for row in rows:
        cell = cells.setdefault(key_of[id(row)], empty_cell(bins))
        cell["n_rows"] += 1
        cal = calibration(row)
        if cal is None:
            continue
        if cal["invalid"]:
            cell["n_prob_invalid"] += 1
            continue
        cell["n_prob"] += 1
        cell["sum_conf"] += cal["conf"]
        cell["sum_p_correct"] += cal["p_correct"]
        cell["n_top_correct"] += cal["top_correct"]
        cell["sum_brier"] += cal["brier"]
        cell["sum_invalid_mass"] += cal["invalid_mass"]
        b = min(math.floor(cal["conf"] * bins), bins - 1)
        cell["ece_n"][b] += 1
        cell["ece_conf"][b] += cal["conf"]
        cell["ece_acc"][b] += cal["top_correct"]
        cell["cal"].append((cal["conf"], cal["top_correct"]))

    # Rows sharing (group, run_id, element, base_id) are one question when one of
    # them has part > 0 or a consistency rule; any other row is a question alone.
    question: dict[Any, list[dict[str, Any]]] = {}
    for row in rows:
        key = (key_of[id(row)], row["run_id"], row["element"], row["base_id"])
        question.setdefault(key, []).append(row)
    units: list[list[dict[str, Any]]] = []
    for members in question.values():
        if any(r["part"] > 0 or r["consistency_rule"] is not None for r in members):
            units.append(members)
        else:
            units.extend([r] for r in members)
    for members in units:
        cell = cells[key_of[id(members[0])]]
        outcome, unscored = unit_outcome(members)
        cell["n_unscored"] += unscored
        if outcome is None:
            continue
        p = outcome["p"]
        cell["n_units"] += 1
        if outcome["consistency"]:
            cell["n_consistency"] += 1
            cell["n_consistent"] += outcome["right"]
        cell["sum_p_random"] += p  # every question asked, answered or not
        if not outcome["answered"]:  # chance (0) for sum_norm, wrong for strict
            cell["n_no_answer"] += 1
            cell["sum_norm_strict"] -= wrong_penalty(p)
            continue
        if outcome["right"]:
            cell["n_correct"] += 1
            cell["sum_norm"] += 1
            cell["sum_norm_strict"] += 1
        else:
            cell["sum_norm"] -= wrong_penalty(p)
            cell["sum_norm_strict"] -= wrong_penalty(p)
    return cells


def ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def ece_equal_mass(cal: list[tuple[float, bool]], bins: int) -> float | None:
    n = len(cal)
    if n == 0:
        return None
    ordered = sorted(cal)  # by confidence, ties wrong before right: order-free
    total = 0.0
    for b in range(bins):
        chunk = ordered[b * n // bins : (b + 1) * n // bins]
        total += abs(sum(right for _, right in chunk) - sum(conf for conf, _ in chunk))
    return total / n


def cell_metrics(cell: dict[str, Any], bins: int) -> dict[str, float | None]:
    """Rates over the questions asked (n_units): a no-answer is wrong for exact
    match, gap and the strict variant, and scores 0 for normalized accuracy."""
    asked = cell["n_units"]
    n_prob = cell["n_prob"]
    ece_gap = sum(abs(a - c) for a, c in zip(cell["ece_acc"], cell["ece_conf"], strict=True))
    return {
        "exact_match": ratio(cell["n_correct"], asked),
        "normalized_accuracy": ratio(cell["sum_norm"], asked),
        "normalized_accuracy_strict": ratio(cell["sum_norm_strict"], asked),
        "gap": ratio(cell["n_correct"] - cell["sum_p_random"], asked),
        "no_answer_rate": ratio(cell["n_no_answer"], cell["n_units"]),
        "consistency": ratio(cell["n_consistent"], cell["n_consistency"]),
        "ece": ratio(ece_gap, n_prob),
        "ece_equal_mass": ece_equal_mass(cell["cal"], bins),
        "brier": ratio(cell["sum_brier"], n_prob),
        "epa": ratio(cell["sum_p_correct"], n_prob),
        "invalid_mass": ratio(cell["sum_invalid_mass"], n_prob),
    }


def reference_robustness(
    rows: Sequence[dict[str, Any]], by: Sequence[str], dim: str, bins: int
) -> dict[tuple[Any, ...], tuple[float | None, set[str | None]]]:
    """Per group: min strict normalized accuracy (a no-answer is wrong) over the
    dim's values, and the values at the min."""
    fine = reference_cells(rows, [*by, dim], bins)
    worst: dict[tuple[Any, ...], tuple[float | None, set[str | None]]] = {}
    for key, cell in fine.items():
        group, value = key[:-1], key[-1]
        na = cell_metrics(cell, bins)["normalized_accuracy_strict"]
        label = None if value is None else str(value)
        best, where = worst.get(group, (None, set()))
        if na is None:
            worst[group] = (best, where)
        elif best is None or na < best - 1e-12:
            worst[group] = (na, {label})
        elif abs(na - best) <= 1e-12:
            worst[group] = (best, where | {label})
    return worst


@cache
def transitive_prerequisites(element: str) -> frozenset[str]:
    out: set[str] = set()
    stack = list(taxonomy().elements[element].requires)
    while stack:
        x = stack.pop()
        if x not in out:
            out.add(x)
            stack.extend(taxonomy().elements[x].requires)
    return frozenset(out)


def reference_dependency(
    na: dict[tuple[Any, ...], float | None], by: Sequence[str]
) -> dict[tuple[Any, ...], float | None]:
    """Σ over transitive prerequisites x scoring below s of NA(s) − NA(x), same other keys."""
    e = list(by).index("element")
    out: dict[tuple[Any, ...], float | None] = {}
    for key, mine in na.items():
        element = key[e]
        if mine is None or element not in taxonomy():
            out[key] = None
            continue
        total = 0.0
        for x in transitive_prerequisites(element):
            other = na.get((*key[:e], x, *key[e + 1 :]))
            if other is not None and other < mine:
                total += mine - other
        out[key] = total
    return out


def reference(
    rows: Sequence[dict[str, Any]], by: Sequence[str], bins: int = 10
) -> dict[tuple[Any, ...], dict[str, Any]]:
    """Every cell and metric per group, as `score` should report them."""
    out = {}
    cells = reference_cells(rows, by, bins)
    for key, cell in cells.items():
        flat = {k: v for k, v in cell.items() if k not in ("ece_n", "ece_conf", "ece_acc", "cal")}
        for name in ("ece_n", "ece_conf", "ece_acc"):
            flat.update({f"{name}_{b}": v for b, v in enumerate(cell[name])})
        out[key] = flat | cell_metrics(cell, bins)
    for dim in ("domain", "type", "perspective"):
        if dim in by:
            d = list(by).index(dim)
            for key, values in out.items():
                values[f"{dim}_robustness"] = values["normalized_accuracy_strict"]
                values[f"{dim}_robustness_argmin"] = {None if key[d] is None else str(key[d])}
        else:
            for key, (worst, where) in reference_robustness(rows, by, dim, bins).items():
                out[key][f"{dim}_robustness"] = worst
                out[key][f"{dim}_robustness_argmin"] = where if worst is not None else {None}
    if "element" in by:
        na = {key: values["normalized_accuracy"] for key, values in out.items()}
        for key, value in reference_dependency(na, by).items():
            out[key]["dependency_robustness"] = value
    return out


# --- comparing ---------------------------------------------------------------------------------


def by_key(scored: pa.Table, by: Sequence[str]) -> dict[tuple[Any, ...], dict[str, Any]]:
    rows = scored.to_pylist()
    keyed = {tuple(r[c] for c in by): r for r in rows}
    assert len(keyed) == len(rows), "duplicate group keys"
    return keyed


def close(got: Any, want: Any) -> bool:
    if want is None or got is None:
        return got is None and want is None  # undefined is null, never 0 or NaN
    return math.isclose(got, want, rel_tol=TOL, abs_tol=TOL)


def assert_matches(
    scored: pa.Table, want: dict[tuple[Any, ...], dict[str, Any]], by: Sequence[str]
) -> None:
    got = by_key(scored, by)
    assert set(got) == set(want)
    for key, expected in want.items():
        row = got[key]
        for name, value in expected.items():
            if name.endswith("_argmin"):
                assert row[name] in value, (key, name, row[name], value)
            elif name in COUNT_FIELDS or name.startswith(("ece_n_", "ece_acc_")):
                assert row[name] == value, (key, name, row[name], value)
            else:
                assert close(row[name], value), (key, name, row[name], value)


def metrics_for(by: Iterable[str]) -> list[str]:
    return [*ALL_METRICS, "dependency_robustness"] if "element" in by else list(ALL_METRICS)


# --- tests --------------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(response_rows(), st.sampled_from(GROUPINGS), st.sampled_from([1, 2, 3, 10]))
def test_every_metric_matches_the_reference(
    rows: list[dict[str, Any]], by: list[str], bins: int
) -> None:
    scored = score(response_table(rows), by=by, metrics=metrics_for(by), ci=None, bins=bins)
    assert scored.column_names[: len(by)] == by
    assert_matches(scored, reference(rows, by, bins), by)


@settings(max_examples=40, deadline=None)
@given(response_rows(max_questions=40), st.sampled_from(GROUPINGS))
def test_single_part_tables_score_row_by_row(rows: list[dict[str, Any]], by: list[str]) -> None:
    """Without multi-part or consistency questions every keyed row is a unit."""
    rows = [r | {"part": 0, "consistency_rule": None} for r in rows]
    scored = score(response_table(rows), by=by, metrics=metrics_for(by), ci=None)
    assert_matches(scored, reference(rows, by), by)


def test_reference_sees_each_kind_of_question() -> None:
    """The generator reaches the cases the property tests are meant to cover."""
    seen: set[str] = set()

    @settings(max_examples=150, deadline=None, database=None)
    @given(response_rows())
    def collect(rows: list[dict[str, Any]]) -> None:
        if not rows:
            seen.add("empty table")
        for r in rows:
            probs = r["option_probs"]
            seen.add("one option" if r["n_options"] == 1 else "several options")
            seen.add("multi-part" if r["part"] > 0 and r["consistency_rule"] is None else "")
            seen.add("consistency" if r["consistency_rule"] else "")
            if probs is not None:
                if any(p is None for p in probs):
                    seen.add("null probability")
                elif any(math.isnan(p) for p in probs):
                    seen.add("nan probability")
                elif not math.isclose(sum(probs), 1.0):
                    seen.add("unnormalised")
        if rows and all(r["option_probs"] is None for r in rows):
            seen.add("no probabilities")

    collect()
    assert {
        "empty table",
        "one option",
        "multi-part",
        "consistency",
        "null probability",
        "nan probability",
        "unnormalised",
        "no probabilities",
    } <= seen


def test_empty_groups_and_empty_tables() -> None:
    """A group whose rows are all unscored has null rates, never 0; a group that
    answered nothing scores as wrong (exact match, gap) or chance (normalized
    accuracy), never null."""
    base = {
        "run_id": "r",
        "backend": "agent",
        "adaptation": {"format": "mc", "shots": 0, "cot": "none", "prob_mode": "conditioning"},
        "element": "steer.3.1.b",
        "part": 0,
        "n_options": 3,
        "correct_index": 1,
        "consistency_rule": None,
        "option_probs": None,
        "base_id": "",
        "domain": "",
        "type": "",
        "perspective": "",
        "grade": None,
    }
    rows = [
        base | {"model": "keyless", "question_id": "a", "correct_index": None, "chosen_index": 0},
        base | {"model": "silent", "question_id": "b", "chosen_index": -1},
        base | {"model": "silent", "question_id": "c", "chosen_index": -1},
    ]
    scored = score(response_table(rows), by=["model"], metrics=ALL_METRICS, ci=None)
    assert_matches(scored, reference(rows, ["model"]), ["model"])
    got = by_key(scored, ["model"])
    for name in ALL_METRICS:
        assert got[("keyless",)][name] is None, name
    silent = got[("silent",)]
    assert silent["no_answer_rate"] == 1.0
    assert silent["normalized_accuracy_strict"] == pytest.approx(-0.5)  # two × −(1/3)/(2/3)
    assert silent["exact_match"] == 0.0
    assert silent["normalized_accuracy"] == 0.0
    assert silent["gap"] == pytest.approx(-1 / 3)
    for name in ("ece", "brier", "epa"):
        assert silent[name] is None, name
    empty = score(response_table([]), by=["model"], metrics=ALL_METRICS, ci=None)
    assert empty.num_rows == 0
    assert {"model", "n_units", *ALL_METRICS} <= set(empty.column_names)
