"""Rationality Check scoring against the published tables.

`game_results.csv` and `domain_results.csv` (shared fixtures, not in the
repository) are the toolkit's published per-model results. The tests
reproduce every game-theory and society domain score of the 19 models and the
human baseline to the published decimals, and every `fin` value that has both
prompt versions, with steer and with a plain reference written here from the
rules alone; they also pin the evidence that rules the alternatives out.
"""

from __future__ import annotations

import csv
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from steer.errors import FileFormatError
from steer.play._rc_scores import (
    DOMAINS,
    METRIC_LABELS,
    REVERSED_METRICS,
    RCTable,
    combine_versions,
    domain_scores,
    metric_label,
    normalize,
    normalized_metrics,
    read_rc_table,
    score_rc,
)

GAME_DOMAINS = {"Game theory", "Society"}


# --- plain reference, from the rules in the module docstring ----------------


def _ref_read_games(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    """Rows as dicts with Game/ver/Metric filled down (Metric also up)."""
    with path.open(encoding="utf-8", newline="") as f:
        lines = list(csv.reader(f))
    header = lines[0]
    models = header[3:-4]
    rows: list[dict[str, str]] = []
    game = ver = ""
    for cells in lines[1:]:
        row = dict(zip(header, cells, strict=True))
        if row["Game"]:
            game, ver = row["Game"], ""
        ver = row["ver"] or ver
        row["Game"], row["ver"] = game, ver
        rows.append(row)
    for i, row in enumerate(rows):
        if not row["Metric"]:
            same = [r for r in rows[:i][::-1] if r["Game"] == row["Game"] and r["Metric"]]
            same = same or [r for r in rows[i:] if r["Game"] == row["Game"] and r["Metric"]]
            row["Metric"] = same[0]["Metric"]
    return models, rows


def _ref_value(cell: str) -> float | None:
    return None if cell in ("", "-") else float(cell)


def _ref_normalized(row: dict[str, str], model: str) -> float | None:
    x = _ref_value(row[model])
    if x is None:
        return None
    lo, hi = float(row["Min_score"]), float(row["Max_score"])
    y = (x - lo) / (hi - lo)
    return 1 - y if row["Reverse"] == "1" else y


def _ref_domain(rows: list[dict[str, str]], games: tuple[str, ...], model: str) -> float:
    vals = [_ref_normalized(r, model) for r in rows if r["Game"] in games and r["Show"] == "1"]
    present = [v for v in vals if v is not None]
    return sum(present) / len(present)


def _published_domains(path: Path) -> dict[tuple[str, str], dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        lines = list(csv.reader(f))
    header = lines[0]
    out: dict[tuple[str, str], dict[str, str]] = {}
    domain = ""
    for cells in lines[1:]:
        row = dict(zip(header, cells, strict=True))
        domain = row["Domain"] or domain
        if domain in GAME_DOMAINS:
            out[(domain, row["Type"])] = row
    return out


def _rounds_to(x: float, published: str) -> bool:
    # The CSV drops trailing zeros ("0.6" is the table's 0.60): at least 2.
    decimals = max(2, len(published.partition(".")[2]))
    return bool(abs(x - float(published)) < 0.5 * 10**-decimals)


@pytest.fixture(scope="module")
def rc_dir(shared_fixtures: Path) -> Path:
    return shared_fixtures / "rationality_check"


@pytest.fixture(scope="module")
def table(rc_dir: Path) -> RCTable:
    return read_rc_table(rc_dir / "game_results.csv")


# --- the published numbers ---------------------------------------------------


def test_reader_shape(table: RCTable) -> None:
    assert len(table.models) == 20 and table.models[-1] == "Human"
    assert len(table.game) == 34
    # Merged cells: InfRepPD v2 takes Eff from above, MMLU Orig Accuracy from below.
    assert table.metric[table.row("InfRepPD", "v2", "Eff")] == "Eff"
    assert table.row("MMLU", "Orig", "Accuracy") == 30
    assert table.row("OnePD", "v1", "%NE") == 5  # ",,%NE" is still v1
    assert math.isnan(table.value("Human", "OnePD", "v1", "%NE"))  # '-'
    assert math.isnan(table.value("Human", "SecPriAuc", "fin", "ActDev"))  # blank
    assert table.value("gpt-4", "BeaCon", "v1", "ActDev") == 20.44


def test_domain_scores_reproduce_published(table: RCTable, rc_dir: Path) -> None:
    published = _published_domains(rc_dir / "domain_results.csv")
    assert {(d.domain, d.type) for d in DOMAINS} == set(published)
    ours = {(r["domain"], r["type"]): r for r in score_rc(table).domains.to_pylist()}
    checked, wrong = 0, []
    for key, row in published.items():
        for model in table.models:
            x = ours[key][model]
            if not _rounds_to(x, row[model]):
                wrong.append((key, model, x, row[model]))
            checked += 1
    assert not wrong
    assert checked == 6 * 20  # 19 models and the human baseline
    # bard has survey scores only: no game results, no game-domain scores.
    assert "bard" not in table.models
    assert all(row["bard"] == "" for row in published.values())


def test_reference_reproduces_published(rc_dir: Path, table: RCTable) -> None:
    models, rows = _ref_read_games(rc_dir / "game_results.csv")
    published = _published_domains(rc_dir / "domain_results.csv")
    ours = {(r["domain"], r["type"]): r for r in domain_scores(table).to_pylist()}
    for d in DOMAINS:
        for model in models:
            ref = _ref_domain(rows, d.games, model)
            assert _rounds_to(ref, published[(d.domain, d.type)][model]), (d, model)
            assert ours[(d.domain, d.type)][model] == pytest.approx(ref, abs=1e-12)


def test_fin_is_mean_of_versions(table: RCTable, rc_dir: Path) -> None:
    _, rows = _ref_read_games(rc_dir / "game_results.csv")
    by_key = {(r["Game"], r["ver"], r["Metric"]): r for r in rows}
    # Clear every fin cell, let steer rebuild them, compare with the published.
    fin = table.version == "fin"
    cleared = replace(table, values=np.where(fin[:, None], np.nan, table.values))
    rebuilt = combine_versions(cleared)
    checked = 0
    for (game, ver, label), row in by_key.items():
        if ver != "fin":
            continue
        v1, v2 = by_key.get((game, "v1", label)), by_key.get((game, "v2", label))
        for model in table.models:
            a = _ref_value(v1[model]) if v1 else None
            b = _ref_value(v2[model]) if v2 else None
            if a is None or b is None:
                continue
            published = float(row[model])
            assert (a + b) / 2 == published, (game, label, model)  # bit for bit
            i = table.row(game, "fin", METRIC_LABELS[label])
            assert rebuilt.values[i, table.models.index(model)] == published
            checked += 1
    assert checked == 123
    # Given fin values are kept (SecPriAuc has only v1, and fin is not its v1).
    np.testing.assert_array_equal(combine_versions(table).values, table.values)
    i = table.row("SecPriAuc", "fin", "ActDev")
    assert math.isnan(rebuilt.values[i, 0]) and table.values[i, 0] == 0.269


def test_alternative_rules_do_not_reproduce(table: RCTable, rc_dir: Path) -> None:
    """The evidence quoted in the module docstring."""
    published = _published_domains(rc_dir / "domain_results.csv")
    scores = {(r["domain"], r["type"]): r for r in domain_scores(table).to_pylist()}
    # Society Practical pools the six rows; the mean of the sub-scores misses.
    cc = scores[("Society", "Cooperation and coordination")]["gpt-4"]
    woc = scores[("Society", "Wisdom of crowd")]["gpt-4"]
    assert not _rounds_to((cc + woc) / 2, published[("Society", "Practical")]["gpt-4"])
    # The human SecPriAuc value is skipped, not counted as 0.
    shown = normalized_metrics(table).to_pylist()
    gt = [r["Human"] for r in shown if r["game"] in DOMAINS[0].games]
    assert gt.count(None) == 1
    as_zero = sum(v or 0.0 for v in gt) / len(gt)
    assert not _rounds_to(as_zero, published[("Game theory", "Practical")]["Human"])
    # Shown rows only: adding the Show = 0 %NE rows changes gpt-4's score.
    extra = (table.game == "OnePD") & (table.version != "fin") & (table.metric == "%NE")
    widened = replace(table, show=table.show | extra)
    x = domain_scores(widened).to_pylist()[0]["gpt-4"]
    assert not _rounds_to(x, published[("Game theory", "Practical")]["gpt-4"])


def test_published_values_in_range(table: RCTable) -> None:
    # Why clipping cannot be decided from the data: no shown value is outside.
    shown = table.values[table.show]
    given_ = shown[~np.isnan(shown)]
    assert given_.min() >= 0 and given_.max() <= 1
    assert (table.min_score[table.show] == 0).all() and (table.max_score[table.show] == 1).all()
    plain = domain_scores(table).to_pylist()
    assert domain_scores(table, clip=True).to_pylist() == plain


# --- without the fixtures -----------------------------------------------------

HEADER = "Game,ver,Metric,m1,m2,Human,Max_score,Min_score,Reverse,Show\n"
SMALL = HEADER + (
    "SecPriAuc,fin,ActDev↓,0.2,0.4,,1.0,0,1,1\n"
    "OnePD,v1,%NE,0.4,0.9,-,1.0,0,0,0\n"
    ",v2,,0.6,0.1,-,1.0,0,0,0\n"
    ",fin,%NE,,0.5,0.8,1.0,0,0,1\n"
    "FinRepME,fin,Eff↑,0.7,1.2,0.3,1.0,0,0,1\n"
)


def _write(tmp_path: Path, text: str, name: str = "games.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_score_small_table(tmp_path: Path) -> None:
    t = read_rc_table(_write(tmp_path, SMALL))
    assert t.models == ("m1", "m2", "Human")
    s = score_rc(t)
    norm = {r["game"]: r for r in s.normalized.to_pylist()}
    assert norm["SecPriAuc"]["m1"] == pytest.approx(0.8)  # reversed
    assert norm["SecPriAuc"]["Human"] is None
    assert norm["OnePD"]["m1"] == pytest.approx(0.5)  # fin filled from v1, v2
    assert norm["OnePD"]["m2"] == 0.5  # given fin kept, not (0.9 + 0.1) / 2
    assert norm["FinRepME"]["m2"] == pytest.approx(1.2)  # out of range: not clipped
    dom = {(r["domain"], r["type"]): r for r in s.domains.to_pylist()}
    assert dom[("Game theory", "Practical")]["m1"] == pytest.approx((0.8 + 0.5) / 2)
    assert dom[("Game theory", "Practical")]["Human"] == pytest.approx(0.8)
    assert dom[("Society", "Wisdom of crowd")]["m1"] is None  # no MMLU/MATH rows
    assert dom[("Society", "Practical")]["m2"] == pytest.approx(1.2)
    clipped = {(r["domain"], r["type"]): r for r in score_rc(t, clip=True).domains.to_pylist()}
    assert clipped[("Society", "Practical")]["m2"] == 1.0


def test_metric_labels() -> None:
    assert metric_label("ActDev") == "ActDev↓" and metric_label("Eff") == "Eff↑"
    assert metric_label("%NE") == "%NE"
    assert set(METRIC_LABELS.values()) == {"ActDev", "Dev", "%NE", "Eff", "Accuracy"}
    assert {n for label, n in METRIC_LABELS.items() if "↓" in label} == REVERSED_METRICS


# --- normalisation properties -------------------------------------------------

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
span = st.floats(min_value=1e-3, max_value=1e6, allow_nan=False)
unit = st.floats(min_value=0.0, max_value=1.0)


@given(lo=finite, width=span, t=unit, rev=st.booleans())
def test_normalize_bounds(lo: float, width: float, t: float, rev: bool) -> None:
    hi = lo + width
    x = min(lo + t * width, hi)
    y = float(normalize(x, lo, hi, rev))
    assert -1e-9 <= y <= 1 + 1e-9
    assert float(normalize(lo, lo, hi, rev)) == (1.0 if rev else 0.0)
    assert float(normalize(hi, lo, hi, rev)) == pytest.approx(0.0 if rev else 1.0)


@given(lo=finite, width=span, x=finite)
def test_normalize_reversal(lo: float, width: float, x: float) -> None:
    hi = lo + width
    plain = float(normalize(x, lo, hi, False))
    assert float(normalize(x, lo, hi, True)) == 1.0 - plain


@given(lo=finite, width=span, xs=st.lists(finite, min_size=2, max_size=20), rev=st.booleans())
def test_normalize_monotone(lo: float, width: float, xs: list[float], rev: bool) -> None:
    xs = sorted(xs)
    y = normalize(np.array(xs), lo, lo + width, rev)
    steps = np.diff(y)
    assert (steps <= 0).all() if rev else (steps >= 0).all()


@given(lo=finite, width=span, x=finite, rev=st.booleans())
def test_normalize_clip(lo: float, width: float, x: float, rev: bool) -> None:
    y = float(normalize(x, lo, lo + width, rev, clip=True))
    assert 0.0 <= y <= 1.0
    free = float(normalize(x, lo, lo + width, rev))
    assert y == min(max(free, 0.0), 1.0)


def test_normalize_nan_and_broadcast() -> None:
    y = normalize([[np.nan, 0.25]], [0.0], [1.0], [True])
    assert math.isnan(y[0, 0]) and y[0, 1] == 0.75
    assert math.isnan(normalize(np.nan, 0, 1, False, clip=True))


# --- bad input ----------------------------------------------------------------


def _error(tmp_path: Path, text: str) -> FileFormatError:
    path = _write(tmp_path, text)
    with pytest.raises(FileFormatError) as info:
        read_rc_table(path)
    assert info.value.source == str(path)
    assert str(path) in str(info.value)
    return info.value


@pytest.mark.parametrize(
    ("text", "where", "field", "words"),
    [
        (SMALL.replace("0.4,0.9", "0.4,high"), "row 1", "m2", "'high'"),
        (SMALL.replace("ActDev↓", "ActDev↑"), "row 0", "Metric", "unknown metric"),
        (
            SMALL.replace("Eff↑,0.7,1.2,0.3,1.0,0,0,1", "Eff↑,0.7,1.2,0.3,1.0,0,1,1"),
            "row 4",
            "Reverse",
            "contradicts",
        ),
        (SMALL.replace("0.2,0.4,,1.0,0,1,1", "0.2,0.4,,1.0,0,1,yes"), "row 0", "Show", "0 or 1"),
        (SMALL.replace("0.2,0.4,,1.0,0,1,1", "0.2,0.4,,,0,1,1"), "row 0", "Max_score", "shown row"),
        (SMALL.replace("0.2,0.4,,1.0,0,1,1", "0.2,0.4,,1.0,x,1,1"), "row 0", "Min_score", "'x'"),
        (SMALL.replace("0.2,0.4,,1.0,0,1,1", "0.2,0.4,,inf,0,1,1"), "row 0", "Max_score", "'inf'"),
        (SMALL + ",fin,Eff↑,0.1,0.1,0.1,1.0,0,0,1\n", "row 5", "Metric", "repeats"),
        (SMALL + "OnePD,v3,%NE,0.1,0.1,0.1,1.0,0,0,0\n", "row 5", "Game", "already"),
        (SMALL + "OnePG,,%NE,0.1,0.1,0.1,1.0,0,0,0\n", "row 5", "ver", "needs a version"),
        (SMALL + "OnePG,fin,,0.1,0.1,0.1,1.0,0,0,0\n", "row 5", "Metric", "names its metric"),
        (HEADER + ",fin,%NE,0.1,0.1,0.1,1.0,0,0,1\n", "row 0", "Game", "needs a game"),
    ],
)
def test_reader_rejects_cell(tmp_path: Path, text: str, where: str, field: str, words: str) -> None:
    err = _error(tmp_path, text)
    assert (err.where, err.field) == (where, field)
    assert words in str(err)


def test_reader_rejects_short_row(tmp_path: Path) -> None:
    err = _error(tmp_path, SMALL + "OnePG,fin,%NE,0.1\n")
    assert err.where == "row 5" and "4 cells" in str(err)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "empty"),
        (HEADER, "no data rows"),
        ("Game,version,Metric,m1,Max_score,Min_score,Reverse,Show\n", "'ver'"),
        ("Game,ver,Metric,m1,Max_score,Min_score,Show\n", "must end with"),
        ("Game,ver,Metric,Max_score,Min_score,Reverse,Show\n", "no model columns"),
        ("Game,ver,Metric,m1,m1,Max_score,Min_score,Reverse,Show\n", "repeated"),
        ("Game,ver,Metric,m1,,Max_score,Min_score,Reverse,Show\n", "empty"),
    ],
)
def test_reader_rejects_header(tmp_path: Path, text: str, words: str) -> None:
    assert words in str(_error(tmp_path, text))


def test_reader_rejects_unreadable(tmp_path: Path) -> None:
    missing = tmp_path / "absent.csv"
    with pytest.raises(FileFormatError, match=r"absent\.csv"):
        read_rc_table(missing)
    path = tmp_path / "latin1.csv"
    path.write_bytes(SMALL.replace("↓", "").replace("↑", "").encode() + b"\xe9\n")
    with pytest.raises(FileFormatError, match="UTF-8"):
        read_rc_table(path)


def test_table_shape_checked() -> None:
    with pytest.raises(ValueError, match="values"):
        RCTable(
            models=("a",),
            game=np.array(["g"]),
            version=np.array(["fin"]),
            metric=np.array(["Eff"]),
            values=np.zeros((1, 2)),
            max_score=np.ones(1),
            min_score=np.zeros(1),
            reverse=np.zeros(1, bool),
            show=np.ones(1, bool),
        )
