"""Revealed preference (steer.fit over steer-core `revealed`) against plain-Python
brute force, hand-checked cases and prefgraph."""

from __future__ import annotations

import itertools

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steer import _native
from steer.errors import InputError
from steer.fit import ccei, garp, houtman_maks, money_pump

# --- plain references (one subject: prices, quantities (T, G)) -----------------------


def expenditure(p: np.ndarray, x: np.ndarray) -> list[list[float]]:
    """E[t][s] = p_t · x_s, summed good by good in order (as the core does)."""
    t_count, goods = p.shape
    return [
        [
            sum_in_order([float(p[t, g]) * float(x[s, g]) for g in range(goods)])
            for s in range(t_count)
        ]
        for t in range(t_count)
    ]


def sum_in_order(terms: list[float]) -> float:
    total = 0.0
    for v in terms:
        total += v
    return total


def reaches(edges: dict[int, list[int]], start: int, goal: int) -> bool:
    """A path of one or more edges from start to goal (depth-first)."""
    stack, seen = list(edges[start]), set()
    while stack:
        v = stack.pop()
        if v == goal:
            return True
        if v not in seen:
            seen.add(v)
            stack.extend(edges[v])
    return False


def ref_garp(
    e: list[list[float]], keep: list[int] | None = None, above: float | None = None
) -> int:
    """Ordered pairs (t, s) with t R* s and s P0 t, within `keep`.

    At full efficiency R0 is `E[t][t] >= E[t][s]` and P0 is `>`. With `above = c`,
    the relations of GARP_e for every e strictly between the candidate ratio c and
    the next one: with r = E[t][s] / E[t][t], `e·E[t][t] >= E[t][s]` iff r <= e,
    and for such e both hold exactly when r <= c (and r < e follows)."""
    obs = list(range(len(e))) if keep is None else keep

    def weak(t: int, s: int) -> bool:
        return e[t][t] >= e[t][s] if above is None else e[t][s] / e[t][t] <= above

    def strict(t: int, s: int) -> bool:
        return e[t][t] > e[t][s] if above is None else e[t][s] / e[t][t] <= above

    edges = {t: [s for s in obs if s != t and weak(t, s)] for t in obs}
    return sum(1 for t in obs for s in obs if s != t and strict(s, t) and reaches(edges, t, s))


def ref_ccei(e: list[list[float]]) -> float:
    """Scan every candidate ratio in order: the answer is the first c such that
    GARP_e fails for the efficiencies just above it, else 1."""
    n = len(e)
    cands = sorted({e[t][s] / e[t][t] for t in range(n) for s in range(n) if s != t})
    for c in (c for c in cands if c < 1.0):
        if ref_garp(e, above=c) > 0:
            return c
    return 1.0


def ref_houtman_maks(e: list[list[float]]) -> int:
    n = len(e)
    for size in range(n, 0, -1):
        for keep in itertools.combinations(range(n), size):
            if ref_garp(e, keep=list(keep)) == 0:
                return size
    return 0


def ref_money_pump(e: list[list[float]]) -> tuple[float, float, int]:
    """(mean, max, count) of the normalised money pumped around every simple
    violating cycle, each cycle listed once (smallest observation first)."""
    n, costs = len(e), []
    for size in range(2, n + 1):
        for members in itertools.combinations(range(n), size):
            for rest in itertools.permutations(members[1:]):
                cycle = (members[0], *rest)
                pairs = list(zip(cycle, cycle[1:] + cycle[:1], strict=True))
                if all(e[a][a] >= e[a][b] for a, b in pairs):
                    pumped = sum(e[a][a] - e[a][b] for a, b in pairs)
                    if pumped > 0:
                        costs.append(pumped / sum(e[a][a] for a, _ in pairs))
    if not costs:
        return 0.0, 0.0, 0
    return sum(costs) / len(costs), max(costs), len(costs)


# --- data ---------------------------------------------------------------------------


@st.composite
def random_choices(draw: st.DrawFn, max_t: int = 7) -> tuple[np.ndarray, np.ndarray]:
    t = draw(st.integers(1, max_t))
    g = draw(st.integers(1, 3))
    price = st.floats(0.1, 5.0, allow_nan=False)
    qty = st.floats(0.0, 10.0, allow_nan=False)
    p = np.array(draw(st.lists(price, min_size=t * g, max_size=t * g))).reshape(t, g)
    x = np.array(draw(st.lists(qty, min_size=t * g, max_size=t * g))).reshape(t, g)
    x[:, 0] += 0.01  # no empty bundle
    return p, x


@st.composite
def cobb_douglas(draw: st.DrawFn, max_t: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """Choices of one Cobb–Douglas consumer: GARP-consistent by construction."""
    t = draw(st.integers(1, max_t))
    g = draw(st.integers(2, 3))
    alpha = np.array(draw(st.lists(st.integers(1, 9), min_size=g, max_size=g)), float)
    alpha /= alpha.sum()
    grid = st.sampled_from([0.5, 1.0, 1.5, 2.0, 3.0, 4.0])
    p = np.array(draw(st.lists(grid, min_size=t * g, max_size=t * g))).reshape(t, g)
    income = np.array(draw(st.lists(st.sampled_from([10.0, 12.0, 20.0]), min_size=t, max_size=t)))
    return p, alpha * income[:, None] / p


@st.composite
def planted(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    """Cobb–Douglas choices plus a planted pair that violates GARP both ways."""
    p, x = draw(cobb_douglas(max_t=5))
    scale = draw(st.sampled_from([0.5, 1.0, 3.0]))
    g = p.shape[1]
    pv = np.ones((2, g))
    pv[1, 1] = 3.0
    xv = np.full((2, g), 0.5)
    xv[0, :2] = [3.0, 1.0]
    xv[1, :2] = [1.0, 2.0]
    at = draw(st.integers(0, len(p)))
    return np.insert(p, at, pv, axis=0), np.insert(x, at, xv * scale, axis=0)


def check_against_reference(p: np.ndarray, x: np.ndarray, pump: bool = True) -> None:
    e = expenditure(p, x)
    got = ccei(p, x).to_pylist()[0]
    violations = ref_garp(e)
    assert got["violations"] == violations
    assert got["consistent"] == (violations == 0)
    assert got["ccei"] == ref_ccei(e)
    hm = houtman_maks(p, x).to_pylist()[0]
    assert hm["exact"] and hm["size"] == hm["upper"] == ref_houtman_maks(e)
    assert hm["fraction"] == hm["size"] / len(p)
    if not pump:  # the permutation reference is for T <= 7
        return
    mp = money_pump(p, x).to_pylist()[0]
    mean, most, count = ref_money_pump(e)
    assert mp["exact"] and mp["cycles"] == count
    assert mp["mean"] == pytest.approx(mean, abs=1e-12) and mp["max"] == pytest.approx(
        most, abs=1e-12
    )
    # The maximum is exact without enumerating cycles (maximum-ratio cycle search).
    quick = money_pump(p, x, step_budget=0).to_pylist()[0]
    assert quick["max"] == pytest.approx(most, abs=1e-12)


# --- brute force ----------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(random_choices())
def test_random_data_matches_brute_force(data: tuple[np.ndarray, np.ndarray]) -> None:
    check_against_reference(*data)


@settings(max_examples=40, deadline=None)
@given(random_choices(max_t=10))
def test_houtman_maks_matches_every_subset_up_to_ten(data: tuple[np.ndarray, np.ndarray]) -> None:
    check_against_reference(*data, pump=False)


@settings(max_examples=60, deadline=None)
@given(cobb_douglas())
def test_cobb_douglas_choices_are_consistent(data: tuple[np.ndarray, np.ndarray]) -> None:
    p, x = data
    row = ccei(p, x).to_pylist()[0]
    assert row["consistent"] and row["violations"] == 0 and row["ccei"] == 1.0
    assert houtman_maks(p, x)["size"].to_pylist() == [len(p)]
    assert money_pump(p, x)["cycles"].to_pylist() == [0]
    check_against_reference(p, x, pump=len(p) <= 7)


@settings(max_examples=60, deadline=None)
@given(planted())
def test_planted_violation_is_found(data: tuple[np.ndarray, np.ndarray]) -> None:
    p, x = data
    row = ccei(p, x).to_pylist()[0]
    assert not row["consistent"] and row["ccei"] < 1.0
    assert houtman_maks(p, x)["size"].to_pylist()[0] <= len(p) - 1
    check_against_reference(p, x, pump=len(p) <= 7)


def test_two_observation_violation_by_hand() -> None:
    # E = [[4, 3], [6, 7]]: x1 costs 3 < 4 at prices 1 and x2 costs 6 < 7 at
    # prices 2, so each is strictly revealed preferred to the other. GARP_e
    # needs e·4 >= 3 and e·7 >= 6 for the cycle: it holds for every e < 6/7.
    p = np.array([[1.0, 1.0], [1.0, 3.0]])
    x = np.array([[3.0, 1.0], [1.0, 2.0]])
    assert ccei(p, x).to_pylist() == [
        {"subject": 0, "consistent": False, "violations": 2, "ccei": 6 / 7}
    ]
    assert houtman_maks(p, x).to_pylist()[0]["size"] == 1
    # Buy x2 at prices 1 (save 1), sell... the cycle pumps (4-3)+(7-6) = 2 of 11.
    mp = money_pump(p, x).to_pylist()[0]
    assert (mp["cycles"], mp["exact"]) == (1, True) and mp["max"] == pytest.approx(2 / 11)


def test_weak_cycle_has_ccei_one() -> None:
    # E = [[4, 4], [5, 7]]: x1 R0 x2 only weakly, x2 P0 x1: GARP fails, but
    # GARP_e holds for every e < 1, so the supremum is 1.
    p = np.array([[1.0, 1.0], [1.0, 2.0]])
    x = np.array([[3.0, 1.0], [1.0, 3.0]])
    row = ccei(p, x).to_pylist()[0]
    assert (row["consistent"], row["violations"], row["ccei"]) == (False, 1, 1.0)


# --- batches and tables ---------------------------------------------------------------


def test_batch_equals_subject_by_subject() -> None:
    rng = np.random.default_rng(3)
    sizes = [1, 5, 12, 3, 30]
    p = rng.uniform(0.5, 2.0, (sum(sizes), 2))
    x = rng.uniform(0.0, 10.0, (sum(sizes), 2)) + 0.01
    labels = np.repeat(np.array(["e", "d", "c", "b", "a"]), sizes)
    batch = ccei(p, x, subjects=labels)
    assert batch["subject"].to_pylist() == ["a", "b", "c", "d", "e"]
    for row in batch.to_pylist():
        mask = labels == row["subject"]
        single = ccei(p[mask], x[mask]).to_pylist()[0]
        assert {k: v for k, v in row.items() if k != "subject"} == {
            k: v for k, v in single.items() if k != "subject"
        }


def test_tables_long_and_list_forms_agree_with_arrays() -> None:
    rng = np.random.default_rng(4)
    s, t, g = 4, 6, 3
    p = rng.uniform(0.5, 2.0, (s, t, g))
    x = rng.uniform(0.1, 10.0, (s, t, g))
    want = ccei(p, x)
    subject = np.repeat(np.arange(s), t)
    observation = np.tile(np.arange(t), s)
    lists = pa.table(
        {
            "subject": subject,
            "observation": observation,
            "price": list(p.reshape(s * t, g)),
            "quantity": list(x.reshape(s * t, g)),
        }
    )
    # Shuffled long form: one row per (subject, observation, good).
    order = rng.permutation(s * t * g)
    long = pa.table(
        {
            "subject": np.repeat(subject, g)[order],
            "observation": np.repeat(observation, g)[order],
            "good": np.tile(np.arange(g), s * t)[order],
            "price": p.reshape(-1)[order],
            "quantity": x.reshape(-1)[order],
        }
    )
    assert ccei(lists).equals(want)
    assert ccei(long).equals(want)
    assert houtman_maks(long).equals(houtman_maks(p, x))


# --- bad input ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("price", 0.0, "prices: subject 'b': observation 1, good 0: a price must be positive"),
        ("price", -1.0, "prices: subject 'b': observation 1, good 0: a price must be positive"),
        ("price", np.nan, "prices: subject 'b': observation 1, good 0"),
        ("quantity", -2.0, "quantities: subject 'b': observation 1, good 0: a quantity must"),
        ("quantity", np.inf, "quantities: subject 'b': observation 1, good 0"),
    ],
)
def test_bad_values_name_subject_observation_and_good(
    field: str, value: float, message: str
) -> None:
    p, x = np.ones((4, 2)), np.ones((4, 2))
    (p if field == "price" else x)[3, 0] = value
    for fn in (garp, ccei, houtman_maks, money_pump):
        with pytest.raises(InputError, match=message.replace("(", r"\(")):
            fn(p, x, subjects=["a", "a", "b", "b"])


def test_table_errors_name_subject_and_observation_labels() -> None:
    bad = pa.table(
        {
            "subject": ["z", "z", "a"],
            "observation": [7, 3, 0],
            "price": [[1.0, 1.0], [1.0, -3.0], [1.0, 2.0]],
            "quantity": [[3.0, 1.0], [1.0, 2.0], [1.0, 1.0]],
        }
    )
    with pytest.raises(InputError, match="prices: subject 'z': observation 3, good 1"):
        ccei(bad)
    long = pa.table(
        {
            "subject": ["s", "s", "s", "s"],
            "observation": ["r1", "r1", "r2", "r2"],
            "good": [0, 1, 0, 1],
            "price": [1.0, 1.0, 1.0, 1.0],
            "quantity": [1.0, 1.0, np.nan, 1.0],
        }
    )
    with pytest.raises(InputError, match="quantities: subject 's': observation 'r2', good 0"):
        garp(long)


def test_degenerate_shapes_are_errors() -> None:
    with pytest.raises(InputError, match=r"subject 0: no observations \(T = 0\)"):
        ccei(np.ones((2, 0, 2)), np.ones((2, 0, 2)))
    with pytest.raises(InputError, match="observation 1: the chosen bundle is empty"):
        ccei(np.ones((2, 2)), np.array([[1.0, 0.0], [0.0, 0.0]]))
    with pytest.raises(InputError, match="quantities: shape"):
        garp(np.ones((3, 2)), np.ones((2, 2)))
    with pytest.raises(InputError, match="missing column"):
        garp(pa.table({"subject": [1], "price": [[1.0]]}))
    with pytest.raises(InputError, match="offsets"):
        _native.revealed_garp(np.ones((3, 2)), np.ones((3, 2)), np.array([0, 2], np.int64))
    with pytest.raises(InputError, match="need at least one good"):
        ccei(np.ones((3, 0)), np.ones((3, 0)))


# --- prefgraph ------------------------------------------------------------------------


def test_agrees_with_prefgraph_on_random_data() -> None:
    prefgraph = pytest.importorskip("prefgraph")
    rng = np.random.default_rng(11)
    users, sizes = [], rng.integers(2, 40, 300)
    for t in sizes:
        g = int(rng.integers(2, 5))
        users.append((rng.uniform(0.2, 3.0, (t, g)), rng.uniform(0.0, 10.0, (t, g)) + 0.01))
    theirs = prefgraph.Engine(metrics=["garp", "ccei"]).analyze_arrays(users)
    for (p, x), ref in zip(users, theirs, strict=True):
        row = ccei(p, x).to_pylist()[0]
        assert row["consistent"] == ref.is_garp
        assert row["violations"] == ref.n_violations
        assert row["ccei"] == pytest.approx(ref.ccei, abs=1e-9)


def test_houtman_maks_and_money_pump_agree_with_prefgraph() -> None:
    prefgraph = pytest.importorskip("prefgraph")
    rng = np.random.default_rng(12)
    users = [
        (rng.uniform(0.5, 2.0, (8, 2)), rng.uniform(0.0, 10.0, (8, 2)) + 0.01) for _ in range(25)
    ]
    theirs = prefgraph.Engine(metrics=["garp", "hm", "mpi"]).analyze_arrays(users)
    p = np.stack([u[0] for u in users])
    x = np.stack([u[1] for u in users])
    hm, mp = houtman_maks(p, x), money_pump(p, x)
    assert hm["size"].to_pylist() == [r.hm_consistent for r in theirs]
    assert all(hm["exact"].to_pylist())
    # prefgraph's MPI is the largest normalised pump over the violating cycles.
    assert mp["max"].to_numpy() == pytest.approx([r.mpi for r in theirs], abs=1e-9)


def test_money_pump_maximum_agrees_with_prefgraph_beyond_enumeration() -> None:
    # T up to 60: the cycle enumeration runs out of budget (exact = False) but the
    # maximum, a maximum-ratio cycle, stays exact.
    prefgraph = pytest.importorskip("prefgraph")
    rng = np.random.default_rng(5)
    users = [
        (rng.uniform(0.5, 2.0, (t, 3)), rng.uniform(0.0, 10.0, (t, 3)) + 0.01)
        for t in rng.integers(10, 60, 40)
    ]
    theirs = prefgraph.Engine(metrics=["garp", "mpi"]).analyze_arrays(users)
    rows = [money_pump(p, x).to_pylist()[0] for p, x in users]
    assert not all(r["exact"] for r in rows)
    assert [r["max"] for r in rows] == pytest.approx([r.mpi for r in theirs], abs=1e-9)


def test_houtman_maks_agrees_with_prefgraph_beyond_brute_force() -> None:
    prefgraph = pytest.importorskip("prefgraph")
    rng = np.random.default_rng(8)
    users = [
        (rng.uniform(0.5, 2.0, (t, 2)), rng.uniform(0.0, 10.0, (t, 2)) + 0.01)
        for t in rng.integers(12, 22, 6)
    ]
    theirs = prefgraph.Engine(metrics=["garp", "hm"]).analyze_arrays(users)
    rows = [houtman_maks(p, x).to_pylist()[0] for p, x in users]
    assert [(r["size"], r["exact"]) for r in rows] == [(t.hm_consistent, True) for t in theirs]


def test_large_subjects_are_bounded_and_marked() -> None:
    rng = np.random.default_rng(9)
    # 150 random budget choices: components beyond the exact search get a greedy
    # consistent subset and an upper bound, flagged when they differ.
    p = rng.uniform(0.5, 2.0, (150, 2))
    share = rng.uniform(0.0, 1.0, 150)
    x = np.stack([share, 1.0 - share], axis=-1) * 100.0 / p
    hm = houtman_maks(p, x).to_pylist()[0]
    assert 0 < hm["size"] <= hm["upper"] < 150
    assert hm["exact"] == (hm["size"] == hm["upper"])
    mp = money_pump(p, x, step_budget=10_000).to_pylist()[0]
    assert not mp["exact"] and 0 < mp["mean"] <= mp["max"] < 1
    # Consistent choices stay exact at any size.
    q = 0.3 * 100.0 / p
    q[:, 1] = 0.7 * 100.0 / p[:, 1]
    assert houtman_maks(p, q).to_pylist()[0] | {"subject": 0} == {
        "subject": 0,
        "n": 150,
        "size": 150,
        "fraction": 1.0,
        "upper": 150,
        "exact": True,
    }
