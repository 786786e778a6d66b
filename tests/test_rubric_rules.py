"""Built-in rules on hand-made cards, rule selection like ruff's, filters,
and the codes table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grade_helpers import make_runs
from steer.rubric import ElementScore, ModelCard, SectionScore, Selection, grade, load_rubric
from steer.rubric._fits import read_fits
from steer.rubric.rules import inconsistency, too_few_samples, user_check
from steer.rubric.rules._codes import CODES, RULE_CODES
from steer.rubric.rules._context import RuleContext
from steer.taxonomy import load_taxonomy

RUBRIC = """\
name = "rules"

[rules.too_few_samples]
max_ci_width = 0.1

[[section]]
name = "Games"
select = ["steer.3.1"]

[[check]]
code = "T001"
parameter = "lambda"
min = 0.9
max = 1.1
"""


def context(
    tmp_path: Path, elements: dict[str, ElementScore], section: SectionScore
) -> RuleContext:
    path = tmp_path / "r.toml"
    path.write_text(RUBRIC, encoding="utf-8")
    loaded = load_rubric(path)
    section.file, section.path = loaded.file, ("section", 0)
    card = ModelCard("m", [section], section.score, section.letter, 3.0, elements)
    return RuleContext(loaded, [card], load_taxonomy())


def es(element: str, **metrics: float) -> ElementScore:
    return ElementScore(element, "", 50, dict(metrics), {})


def section(score: float, lo: float, hi: float) -> SectionScore:
    return SectionScore("Games", 1, "normalized_accuracy", score, lo, hi, "B", ["x"], ["x"])


def test_inconsistency_flags_low_consistency(tmp_path: Path) -> None:
    ctx = context(
        tmp_path,
        {
            "steer.2.1.b": es("steer.2.1.b", consistency=0.6),
            "steer.2.1.a": es("steer.2.1.a", consistency=0.95),
        },
        section(0.8, 0.78, 0.82),
    )
    (d,) = inconsistency.run(ctx)
    assert d.code == "RAT005" and d.element == "steer.2.1.b" and "0.600" in d.message


def test_too_few_samples_needs_a_wide_interval_across_letters(tmp_path: Path) -> None:
    wide = context(tmp_path, {}, section(0.85, 0.6, 0.95))
    (d,) = too_few_samples.run(wide)
    assert d.code == "RAT006" and "spans D–A" in d.message
    assert d.location.line == 6  # the [[section]] header
    # Wide, but inside one letter band: the grade stands.
    assert list(too_few_samples.run(context(tmp_path, {}, section(0.95, 0.901, 1.0)))) == []


def test_parameter_checks_read_fits(tmp_path: Path) -> None:
    fits = tmp_path / "fits.json"
    fits.write_text(
        json.dumps({"fits": [{"model": "m", "parameter": "lambda", "estimate": 2.25}]}),
        encoding="utf-8",
    )
    ctx = context(tmp_path, {}, section(0.8, 0.78, 0.82))
    (missing,) = user_check.run(ctx)
    assert missing.code == "RAT008" and missing.model is None
    ctx.fits = read_fits(fits)
    (d,) = user_check.run(ctx)
    assert d.code == "T001" and d.severity == "error" and "2.250" in d.message


def test_fits_parquet_has_the_same_columns(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "fits.parquet"
    pq.write_table(
        pa.table(
            {
                "model": ["m"],
                "parameter": ["alpha"],
                "estimate": [0.88],
                "ci_lo": [0.8],
                "ci_hi": [0.95],
            }
        ),
        path,
    )
    fit = read_fits(path).get("m", "alpha")
    assert fit is not None and fit.estimate == 0.88


def test_selection_like_ruff() -> None:
    s = Selection(select=["RAT"], ignore=["RAT00"], per_model_ignores={"gpt-*": ["RAT1"]})
    assert not s.enabled("RAT001")
    assert s.enabled("RAT101", "claude")
    assert not s.enabled("RAT101", "gpt-4")
    assert not s.enabled("HE001")
    assert Selection().enabled("HE001", "any")


def test_codes_table_is_consistent() -> None:
    assert all(code.startswith(("RUB", "RAT")) for code in CODES)
    assert len({c.name for c in CODES.values()}) == len(CODES)
    assert tuple(sorted(RULE_CODES)) == RULE_CODES
    for code in RULE_CODES:
        assert CODES[code].module, code


@pytest.mark.parametrize(
    ("filters", "models", "elements"),
    [
        ('models = ["model-a"]', ["model-a"], 5),
        ('domains = ["medicine"]', ["model-a", "model-b"], 5),
        ("grades = [3, 3]", ["model-a", "model-b"], 5),
        ('adaptation = { format = ["free"] }', ["model-a", "model-b"], 0),
    ],
)
def test_filters(tmp_path: Path, filters: str, models: list[str], elements: int) -> None:
    runs = [tmp_path / r for r in make_runs(tmp_path)]
    path = tmp_path / "f.toml"
    path.write_text(
        f'name = "f"\n[filters]\n{filters}\n[[section]]\nname = "All"\nselect = ["*"]\n',
        encoding="utf-8",
    )
    result = grade(runs, load_rubric(path))
    assert [c.model for c in result.cards] == models
    graded = result.cards[0].elements
    assert len(graded) == elements
    if filters.startswith("domains"):
        assert all(e.worst_domain == "medicine" for e in graded.values())


def test_custom_letter_scale(tmp_path: Path) -> None:
    from steer.rubric import check_rubric

    good = tmp_path / "l.toml"
    good.write_text(
        'name = "l"\n[[letters]]\nletter = "Pass"\nmin = 0.5\npoints = 1\n'
        '[[section]]\nname = "All"\nselect = ["*"]\n',
        encoding="utf-8",
    )
    runs = [tmp_path / r for r in make_runs(tmp_path)]
    result = grade(runs, load_rubric(good))
    assert [c.letter for c in result.cards] == ["Pass", "F"]
    bad = tmp_path / "bad.toml"
    bad.write_text(
        'name = "l"\n[[letters]]\nletter = "A"\nmin = 0.5\npoints = 4\n'
        '[[letters]]\nletter = "B"\nmin = 0.7\npoints = 3\n'
        '[[section]]\nname = "All"\nselect = ["*"]\n',
        encoding="utf-8",
    )
    (d,) = check_rubric(bad)
    assert d.code == "RUB006" and d.location.line == 6


SHIFT_RUBRIC = """
name = "shift"

[[section]]
name = "Games"
select = ["steer.3.1"]

[[check]]
code = "S001"
parameter = "prospect-theory.lambda@persona:a banker"
shift_from = "baseline"
min = -0.3
max = 0.3

[[check]]
code = "S002"
parameter = "prospect-theory.lambda@persona:a banker"
shift_from = "baseline"
significant = false
min = -0.3
max = 0.3

[[check]]
code = "S003"
parameter = "fehr-schmidt.alpha"
max = 1
"""


def _fit(parameter: str, estimate: float | None, lo: float | None, hi: float | None,
         condition: str = "baseline", family: str = "prospect-theory") -> dict:  # fmt: skip
    return {"model": "m", "parameter": parameter, "family": family, "condition": condition,
            "estimate": estimate, "ci_lo": lo, "ci_hi": hi,
            "identified": estimate is not None,
            "reason": None if estimate is not None else "no data"}  # fmt: skip


@pytest.mark.parametrize(
    ("persona", "fails"),
    [
        ((1.0, 0.8, 1.2), {"S001", "S002"}),  # moved 1.25 and the intervals part
        ((1.8, 1.2, 2.4), {"S002"}),  # moved 0.45 but the intervals overlap
        ((2.2, 2.0, 2.4), set()),  # within the bounds
    ],
)
def test_shift_checks_compare_two_conditions(
    tmp_path: Path, persona: tuple[float, float, float], fails: set[str]
) -> None:
    fits = tmp_path / "fits.json"
    records = [
        _fit("lambda", 2.25, 2.0, 2.5),
        _fit("lambda", *persona, condition="persona:a banker"),
        # Two alphas: the bare name is ambiguous, the family names it.
        _fit("alpha", 0.88, 0.8, 0.95),
        _fit("alpha", 2.0, 0.75, 2.0, family="fehr-schmidt"),
    ]
    fits.write_text(json.dumps({"fits": records}), encoding="utf-8")
    path = tmp_path / "r.toml"
    path.write_text(SHIFT_RUBRIC, encoding="utf-8")
    loaded = load_rubric(path)
    card = ModelCard("m", [], None, "—", None, {})
    ctx = RuleContext(loaded, [card], load_taxonomy(), fits=read_fits(fits))
    found = {d.code for d in user_check.run(ctx)}
    assert found - {"S003"} == fails
    assert "S003" in found  # fehr-schmidt alpha 2.0 > 1


def test_an_ambiguous_bare_name_asks_for_the_family(tmp_path: Path) -> None:
    fits = tmp_path / "fits.json"
    records = [_fit("alpha", 0.88, 0.8, 0.95), _fit("alpha", 2.0, 0.75, 2.0, family="fehr-schmidt")]
    fits.write_text(json.dumps({"fits": records}), encoding="utf-8")
    ctx = context(tmp_path, {}, section(0.8, 0.78, 0.82))
    ctx.loaded.rubric.check[0] = ctx.loaded.rubric.check[0].model_copy(
        update={"parameter": "alpha"}
    )
    ctx.fits = read_fits(fits)
    (d,) = user_check.run(ctx)
    assert d.code == "RAT008" and "prospect-theory.alpha" in (d.hint or "")
    assert "fehr-schmidt.alpha" in (d.hint or "")
