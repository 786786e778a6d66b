"""`steer analyze` (issue 21 §5): Type II ANOVA and logistic likelihood-ratio
tests of correctness, held to statsmodels on the row-level data, and the
error-type breakdown, held to a plain loop over the responses."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from steer.analyze import chosen_tags, collapse, error_counts, logit_lr_tests, type2_anova
from steer.cli import cli as main
from steer.stats._distributions import betainc, chi2_sf, f_sf

pd = pytest.importorskip("pandas")
smf = pytest.importorskip("statsmodels.formula.api")
sm = pytest.importorskip("statsmodels.api")
anova_lm = pytest.importorskip("statsmodels.stats.anova").anova_lm
scipy_stats = pytest.importorskip("scipy.stats")


def _data(seed: int, n: int, sizes: tuple[int, ...], binary: bool) -> tuple[list, np.ndarray]:
    rng = np.random.default_rng(seed)
    codes = [rng.integers(0, k, n).astype(np.int64) for k in sizes]
    # Every level present, so statsmodels and steer see the same factors.
    for c, k in zip(codes, sizes, strict=True):
        c[:k] = np.arange(k)
    signal = sum(0.3 * (c % 2) * (i + 1) for i, c in enumerate(codes))
    if binary:
        y = (rng.random(n) < 1 / (1 + np.exp(-(signal - 0.5)))).astype(np.float64)
    else:
        y = signal + rng.normal(size=n)
    return codes, y


def _cells(codes: list, y: np.ndarray):
    names = [f"f{i}" for i in range(len(codes))]
    levels = [[str(v) for v in range(int(c.max()) + 1)] for c in codes]
    return collapse(names, levels, codes, y)


def _frame(codes: list, y: np.ndarray):
    return pd.DataFrame({**{f"f{i}": c for i, c in enumerate(codes)}, "y": y})


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(60, 400),
    sizes=st.lists(st.integers(2, 4), min_size=1, max_size=3).map(tuple),
    binary=st.booleans(),
)
def test_type2_anova_matches_statsmodels(seed: int, n: int, sizes: tuple, binary: bool) -> None:
    codes, y = _data(seed, n, sizes, binary)
    df = _frame(codes, y)
    formula = "y ~ " + " + ".join(f"C(f{i})" for i in range(len(codes)))
    fit = smf.ols(formula, df).fit()
    reference = anova_lm(fit, typ=2)
    ours = type2_anova(_cells(codes, y))
    assert ours.n == n
    assert ours.df_resid == int(fit.df_resid)
    assert ours.rss == pytest.approx(fit.ssr, rel=1e-9, abs=1e-9)
    assert ours.r2 == pytest.approx(fit.rsquared, rel=1e-7, abs=1e-9)
    for i, term in enumerate(ours.terms):
        row = reference.loc[f"C(f{i})"]
        assert term.df == int(row["df"])
        assert term.sum_sq == pytest.approx(row["sum_sq"], rel=1e-7, abs=1e-9)
        assert term.f == pytest.approx(row["F"], rel=1e-6, abs=1e-9)
        assert term.p == pytest.approx(row["PR(>F)"], rel=1e-6, abs=1e-12)


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(200, 600),
    sizes=st.lists(st.integers(2, 3), min_size=1, max_size=3).map(tuple),
)
def test_logit_lr_tests_match_statsmodels(seed: int, n: int, sizes: tuple) -> None:
    codes, y = _data(seed, n, sizes, binary=True)
    df = _frame(codes, y)
    names = [f"C(f{i})" for i in range(len(codes))]
    full = smf.glm("y ~ " + " + ".join(names), df, family=sm.families.Binomial()).fit()
    cells = _cells(codes, y)
    ours = logit_lr_tests(cells)
    if ours.separated:  # statsmodels warns and its estimates diverge; nothing to compare
        return
    for i, term in enumerate(ours.terms):
        rest = " + ".join(n for j, n in enumerate(names) if j != i) or "1"
        reduced = smf.glm(f"y ~ {rest}", df, family=sm.families.Binomial()).fit()
        chi2 = reduced.deviance - full.deviance
        assert term.df == len(cells.levels[i]) - 1
        assert term.chi2 == pytest.approx(chi2, rel=1e-6, abs=1e-8)
        assert term.p == pytest.approx(scipy_stats.chi2.sf(chi2, term.df), rel=1e-6, abs=1e-12)
    mcfadden = 1 - full.llf / smf.glm("y ~ 1", df, family=sm.families.Binomial()).fit().llf
    assert ours.pseudo_r2 == pytest.approx(mcfadden, rel=1e-6)


def test_aliased_and_single_level_factors_get_no_test() -> None:
    rng = np.random.default_rng(3)
    element = rng.integers(0, 4, 400)
    family = element // 2  # each element has one type: the type is determined by the element
    single = np.zeros(400, dtype=np.int64)
    y = (rng.random(400) < 0.6).astype(float)
    cells = collapse(
        ["type", "element", "perspective"],
        [["a", "b"], ["0", "1", "2", "3"], ["first"]],
        [family, element, single],
        y,
    )
    anova = type2_anova(cells)
    by = {t.factor: t for t in anova.terms}
    assert by["type"].df == 0 and by["type"].f is None and "aliased" in by["type"].note
    assert by["element"].df == 2  # what the element adds beyond its type
    assert by["perspective"].df == 0 and "one level" in by["perspective"].note
    logit = {t.factor: t for t in logit_lr_tests(cells).terms}
    assert logit["type"].chi2 is None and logit["element"].df == 2


def test_separation_is_marked_and_the_statistic_stays_finite() -> None:
    # Element 0 always right: its estimate runs off to infinity.
    element = np.repeat([0, 1, 2], 100)
    y = np.concatenate([np.ones(100), np.tile([1.0, 0.0], 50), np.tile([1.0, 0.0, 0.0], 34)[:100]])
    cells = collapse(["element"], [["0", "1", "2"]], [element.astype(np.int64)], y)
    logit = logit_lr_tests(cells)
    assert logit.separated
    (term,) = logit.terms
    assert term.chi2 is not None and math.isfinite(term.chi2) and term.chi2 > 50
    # The limit of the likelihood ratio: element 0's cell fitted exactly.
    rates = [float(y[element == e].mean()) for e in range(3)]
    ll_full = sum(
        100 * (r * math.log(r) + (1 - r) * math.log(1 - r)) if 0 < r < 1 else 0 for r in rates
    )
    p0 = y.mean()
    ll_null = 300 * (p0 * math.log(p0) + (1 - p0) * math.log(1 - p0))
    assert term.chi2 == pytest.approx(2 * (ll_full - ll_null), rel=1e-6)


@settings(max_examples=200, deadline=None)
@given(
    a=st.floats(0.05, 200),
    b=st.floats(0.05, 200),
    x=st.floats(0, 1),
)
def test_betainc_matches_scipy(a: float, b: float, x: float) -> None:
    from scipy.special import betainc as reference

    assert betainc(a, b, x) == pytest.approx(reference(a, b, x), rel=1e-8, abs=1e-14)


@settings(max_examples=200, deadline=None)
@given(f=st.floats(0, 500), d1=st.integers(1, 200), d2=st.integers(1, 100_000))
def test_f_and_chi2_tails_match_scipy(f: float, d1: int, d2: int) -> None:
    assert f_sf(f, d1, d2) == pytest.approx(scipy_stats.f.sf(f, d1, d2), rel=1e-7, abs=1e-14)
    assert chi2_sf(f, d1) == pytest.approx(scipy_stats.chi2.sf(f, d1), rel=1e-7, abs=1e-14)


def test_chosen_tags_match_a_plain_lookup() -> None:
    bank = pa.table(
        {
            "question_id": ["q1", "q2", "q3"],
            "option_tags": [["key", "a", "b"], ["x+wrong_tens_digit", "key"], None],
        }
    )
    qid = pa.array(["q1", "q1", "q2", "q2", "q3", "q9", "q1"])
    chosen = np.array([1, 2, 0, 1, 0, 0, -1])
    got = chosen_tags(qid, chosen, bank).to_pylist()
    lookup = {r["question_id"]: r["option_tags"] for r in bank.to_pylist()}
    expected = []
    for q, c in zip(qid.to_pylist(), chosen.tolist(), strict=True):
        tags = lookup.get(q)
        expected.append(tags[c] if tags is not None and 0 <= c < len(tags) else None)
    assert got == expected
    named = {e.tag: e.count for e in error_counts(pa.array(["a", "x+wrong_tens_digit", "x", None]))}
    assert named == {"a": 1, "x": 2}
    full = error_counts(pa.array(["a", "x+wrong_tens_digit", "x"]), combined=True)
    assert {e.tag for e in full} == {"a", "x", "x+wrong_tens_digit"}
    assert sum(e.share for e in full) == pytest.approx(1.0)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    root = tmp_path_factory.mktemp("analyze")
    bank = root / "bank.parquet"
    cli = CliRunner()
    assert cli.invoke(main, ["generate", "--elements", "steer.1.1,steer.2.4", "--per-cell", "6",
                             "-o", str(bank)]).exit_code == 0  # fmt: skip
    for model, name in (("agent:human", "human"), ("agent:random", "random")):
        result = cli.invoke(main, ["run", str(bank), "-m", model, "-o", str(root / name)])
        assert result.exit_code == 0, result.output
    return bank, root / "human", root / "random"


def test_cli_analyzes_each_model_and_breaks_down_errors(runs: tuple[Path, Path, Path]) -> None:
    bank, human, random = runs
    result = CliRunner().invoke(main, ["analyze", str(human), str(random), "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert [m["model"] for m in doc["models"]] == ["agent:human", "agent:random"]
    for m in doc["models"]:
        assert [t["factor"] for t in m["anova"]["terms"]] == doc["factors"]
        assert m["tagged"]  # the runs' manifests lead to the bank and its tags
        wrong = round(m["n"] * (1 - m["accuracy"])) - m["no_answers"]
        assert sum(e["count"] for e in m["errors"]) == wrong
        assert all(e["tag"] != "key" for e in m["errors"])
    text = CliRunner().invoke(main, ["analyze", str(human), "--bank", str(bank)]).output
    assert "Type II ANOVA" in text and "likelihood-ratio" in text and "error" in text
    md = CliRunner().invoke(main, ["analyze", str(human), "--format", "markdown"]).output
    assert md.startswith("# steer analyze") and "| factor |" in md


def test_cli_rejects_unknown_factor_and_writes_atomically(
    runs: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    _, human, _ = runs
    bad = CliRunner().invoke(main, ["analyze", str(human), "--factors", "domian"])
    assert bad.exit_code == 2
    assert "did you mean 'domain'" in bad.output
    out = tmp_path / "a.csv"
    ok = CliRunner().invoke(main, ["analyze", str(human), "--format", "csv", "-o", str(out)])
    assert ok.exit_code == 0
    lines = out.read_text().splitlines()
    assert lines[0].startswith("model,test,term")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv"]
    missing = CliRunner().invoke(main, ["analyze", str(tmp_path / "nope")])
    assert missing.exit_code == 2
